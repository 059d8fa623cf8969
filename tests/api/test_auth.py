"""Who may call what: the auth matrix and advertiser isolation."""

import pytest

from api.models import ApiToken
from api.services import api_token_authenticate, api_token_revoke, hash_secret

pytestmark = pytest.mark.django_db


def test_secret_is_stored_only_as_a_hash(make_token):
    token, raw = make_token("hash-check", ["brand_A"])
    stored = ApiToken.objects.get(pk=token.pk)
    assert raw.startswith(f"lgx_{stored.prefix}_")
    assert stored.secret_hash == hash_secret(raw)
    assert raw not in stored.secret_hash and raw[9:] not in str(ApiToken.objects.values().get(pk=token.pk))


def test_authenticate_rejects_tampered_and_revoked(make_token):
    token, raw = make_token("tamper", ["brand_A"])
    assert api_token_authenticate(raw=raw).pk == token.pk
    assert api_token_authenticate(raw=raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
    assert api_token_authenticate(raw="lgx_00000000_nope") is None
    assert api_token_authenticate(raw="garbage") is None
    api_token_revoke(token=token, actor="test")
    assert api_token_authenticate(raw=raw) is None


@pytest.mark.parametrize(
    "header, expected",
    [
        (None, "missing"),
        ("Bearer", "must be"),
        ("Basic dXNlcjpwYXNz", "must be"),
        ("Bearer lgx_deadbeef_not-a-real-secret", "invalid or revoked"),
        ("Bearer something-else", "invalid or revoked"),
    ],
)
def test_unauthenticated_requests_get_401_json(demo_memories, header, expected):
    from django.test import Client

    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    response = Client().post("/api/v1/search", data={"query": "出价"}, content_type="application/json", **extra)
    assert response.status_code == 401
    assert expected in response.json()["detail"]


def test_auth_matrix(demo_memories, make_token, api_client):
    _, raw_a = make_token("matrix-a", ["brand_A"])
    revoked, raw_revoked = make_token("matrix-revoked", ["brand_A"])
    api_token_revoke(token=revoked, actor="test")
    client = api_client()

    assert client.post("/search", {"query": "出价策略"}).status_code == 401  # no token
    assert client.post("/search", {"query": "出价策略"}, raw="lgx_12345678_wrong").status_code == 401  # bad token
    assert client.post("/search", {"query": "出价策略"}, raw=raw_revoked).status_code == 401  # revoked
    wrong = client.post("/search", {"query": "出价策略", "advertiser": "brand_B"}, raw=raw_a)  # wrong advertiser
    assert wrong.status_code == 403 and "brand_B" in wrong.json()["detail"]
    right = client.post("/search", {"query": "出价策略", "advertiser": "brand_A"}, raw=raw_a)  # right one
    assert right.status_code == 200
    assert right.json()["results"]
    assert {r["advertiser"] for r in right.json()["results"]} <= {"brand_A", None}
    assert ApiToken.objects.get(name="matrix-a").last_used_at is not None


def test_every_endpoint_requires_a_token(demo_memories):
    from django.test import Client

    client = Client()
    calls = [
        ("post", "/api/v1/search"),
        ("post", "/api/v1/ingest"),
        ("post", "/api/v1/trigger"),
        ("get", "/api/v1/memories/1"),
        ("get", "/api/v1/status"),
        ("post", "/api/v1/reflect"),
        ("get", "/api/v1/review"),
        ("post", "/api/v1/review/1/approve"),
        ("post", "/api/v1/review/1/reject"),
        ("post", "/api/v1/recall"),
    ]
    for method, path in calls:
        response = getattr(client, method)(path, content_type="application/json")
        assert response.status_code == 401, (method, path, response.status_code)
        assert "detail" in response.json()


def test_search_without_advertiser_is_confined_to_the_token(demo_memories, brand_a):
    for query in ["出价策略", "预算", "美妆 ROI", "brand_B", "医药OTC 投放"]:
        response = brand_a.post("/search", {"query": query, "top_k": 50})
        assert response.status_code == 200
        advertisers = {r["advertiser"] for r in response.json()["results"]}
        assert advertisers <= {"brand_A", None}, (query, advertisers)
    # The same queries from an all-advertiser token do reach brand_B: the filter is the
    # token's scope, not an accident of ranking.
    assert any(m.advertiser == "brand_B" for m in demo_memories)


def test_all_advertiser_token_sees_everyone(demo_memories, operator_token):
    seen = set()
    for query in ["出价策略", "预算", "美妆 ROI", "3C 新品", "医药OTC 投放"]:
        seen |= {r["advertiser"] for r in operator_token.post("/search", {"query": query, "top_k": 50}).json()["results"]}
    assert {"brand_A", "brand_B"} <= seen


def test_memory_detail_is_scoped(demo_memories, brand_a):
    mine = next(m for m in demo_memories if m.advertiser == "brand_A")
    theirs = next(m for m in demo_memories if m.advertiser == "brand_B")
    shared = next(m for m in demo_memories if m.advertiser is None)
    body = brand_a.get(f"/memories/{mine.pk}").json()
    assert body["content"] == mine.content and body["history"][0]["id"] == mine.pk
    assert brand_a.get(f"/memories/{shared.pk}").status_code == 200
    hidden = brand_a.get(f"/memories/{theirs.pk}")
    assert hidden.status_code == 404 and hidden.json() == {"detail": f"memory {theirs.pk} not found"}


def test_memory_detail_shows_version_history(db, make_memory, operator_token):
    from memories.storage import memory_supersede

    old = make_memory("brand_A 美妆新客出价上限 45 元", advertiser="brand_A")
    new = memory_supersede(old=old, content="brand_A 美妆新客出价上限调整为 50 元")
    body = operator_token.get(f"/memories/{new.pk}").json()
    assert [h["id"] for h in body["history"]] == [old.pk, new.pk]
    assert body["history"][0]["status"] == "superseded"


def test_status(demo_memories, brand_a):
    body = brand_a.get("/status").json()
    assert body["provider"] == "offline"
    assert body["memories"]["L1"] >= 1 and "embeddings" in body


def test_no_provider_means_503_with_the_message(demo_memories, brand_a, settings, env):
    env(MEMORY_LLM_API_KEY=None)
    settings.MEMORY_LLM_PROVIDER = ""
    response = brand_a.get("/status")
    assert response.status_code == 503
    assert "MEMORY_LLM_PROVIDER" in response.json()["detail"] and "MEMORY_LLM_API_KEY" in response.json()["detail"]
