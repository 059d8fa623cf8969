import json

import pytest
from django.core.cache import cache
from django.test import Client


@pytest.fixture(autouse=True)
def _fresh_throttle(settings):
    """Each test starts with empty rate-limit buckets. The in-process cache (SQLite) outlives
    a test and is cleared; the database cache (PostgreSQL) is a table rolled back with the
    test's transaction, and tests without database access must not touch it."""
    if settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache"):
        yield
        return
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_token(db):
    """Create a token through the service; returns (ApiToken, raw secret)."""
    from api.services import api_token_create

    def _make(name: str, advertisers=None, *, all_advertisers: bool = False, can_review: bool = False):
        return api_token_create(
            name=name, advertisers=advertisers, all_advertisers=all_advertisers, can_review=can_review, created_by_name="test"
        )

    return _make


class ApiClient:
    """Django's test client speaking JSON with a bearer token, through the real URLconf
    and middleware."""

    def __init__(self, raw: str | None = None):
        self.client = Client()
        self.raw = raw

    def _headers(self, raw):
        token = self.raw if raw is None else raw
        return {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}

    def post(self, path: str, body=None, *, raw: str | None = None, content: bytes | None = None):
        data = content if content is not None else json.dumps(body if body is not None else {}, ensure_ascii=False)
        return self.client.post(f"/api/v1{path}", data=data, content_type="application/json", **self._headers(raw))

    def get(self, path: str, *, raw: str | None = None, **params):
        return self.client.get(f"/api/v1{path}", params, **self._headers(raw))


@pytest.fixture
def api_client():
    return ApiClient


@pytest.fixture
def brand_a(make_token):
    _, raw = make_token("agent-a", ["brand_A"])
    return ApiClient(raw)


@pytest.fixture
def operator_token(make_token):
    """An operator's API token: every advertiser, and it may decide reviews."""
    _, raw = make_token("ops", all_advertisers=True, can_review=True)
    return ApiClient(raw)
