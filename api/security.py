"""Bearer-token authentication, advertiser scoping and the per-token rate limit."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import AuthenticationError, HttpError
from ninja.security import HttpBearer
from ninja.throttling import SimpleRateThrottle

from api.models import ApiToken
from api.services import api_token_authenticate
from memories.metrics_registry import record_rate_limit_refusal

DEFAULT_RATE = "120/min"


class ServiceUnavailable(HttpError):
    def __init__(self, message: str) -> None:
        super().__init__(503, message)


class TokenAuth(HttpBearer):
    """`Authorization: Bearer lgx_…`. Before the token is even looked at, the provider
    configuration is checked: with no provider the API refuses every call (503) with the
    same message the CLI prints, rather than serving reads while writes would fail."""

    def __call__(self, request: HttpRequest) -> ApiToken:
        from judges.config import ProviderNotConfigured, resolve_provider_name

        try:
            resolve_provider_name()
        except ProviderNotConfigured as exc:
            raise ServiceUnavailable(str(exc)) from None
        header = request.headers.get("Authorization") or ""
        if not header:
            raise AuthenticationError(401, "missing 'Authorization: Bearer <token>' header")
        scheme, _, raw = header.partition(" ")
        if scheme.lower() != "bearer" or not raw.strip():
            raise AuthenticationError(401, "the Authorization header must be 'Bearer <token>'")
        token = self.authenticate(request, raw.strip())
        if token is None:
            raise AuthenticationError(401, "invalid or revoked token")
        return token

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        return api_token_authenticate(raw=token)


class TokenRateThrottle(SimpleRateThrottle):
    """One bucket per token across every endpoint. The rate is read on each call (setting
    MEMORY_API_RATE, e.g. "120/min") so it can be tuned without rebuilding the API.

    A bucket is a window that opens with the token's first request and holds at most the
    rate's count until it closes. Counting is one atomic step in the shared store, never a
    read followed by a write (two workers reading the same count would both let a request
    through): with the database cache (PostgreSQL: every worker, every machine) an upsert
    that increments the row and returns the new count; with an in-process cache (SQLite's
    single web process) the cache's own locked increment."""

    scope = "lingix-token"

    def __init__(self) -> None:
        self.rate = None
        self.num_requests, self.duration = None, None
        self.window_ends: float | None = None

    def allow_request(self, request: HttpRequest) -> bool:
        self.rate = getattr(settings, "MEMORY_API_RATE", None) or DEFAULT_RATE
        self.num_requests, self.duration = self.parse_rate(self.rate)
        key = self.get_cache_key(request)
        if key is None:
            return True
        count, self.window_ends = _window_count(key, duration=int(self.duration or 60))
        if count <= int(self.num_requests or 0):
            return True
        record_rate_limit_refusal(limit="rate")
        return False

    def wait(self) -> float | None:
        """Seconds until the window closes (Retry-After)."""
        if self.window_ends is None:
            return None
        return max(1.0, self.window_ends - time.time())

    def get_cache_key(self, request: HttpRequest) -> str | None:
        token = getattr(request, "auth", None)
        if not isinstance(token, ApiToken):
            return None
        return self.cache_format % {"scope": self.scope, "ident": token.pk}


def _window_count(key: str, *, duration: int) -> tuple[int, float]:
    """Count one request in `key`'s window; returns the count so far in this window (this
    request included) and when the window closes (epoch seconds)."""
    backend = settings.CACHES["default"]["BACKEND"]
    if backend.endswith("DatabaseCache"):
        return _window_count_in_table(settings.CACHES["default"]["LOCATION"], key, duration=duration)
    for _ in range(3):
        now = time.time()
        cache.add(f"{key}:ends", now + duration, timeout=duration)
        cache.add(key, 0, timeout=duration)
        try:
            count = cache.incr(key)
        except ValueError:  # the window closed between add and incr: open the next one
            continue
        return count, float(cache.get(f"{key}:ends") or now + duration)
    raise RuntimeError(f"rate-limit window for {key} kept closing")


def _window_count_in_table(table: str, key: str, *, duration: int) -> tuple[int, float]:
    """The database cache's table, one row per token: an INSERT … ON CONFLICT DO UPDATE
    that opens a window or adds one to the open one, RETURNING the count (PostgreSQL,
    SQLite 3.35+). The row's `expires` is the window's end, so the cache's own culling
    removes closed windows. The value is a plain count, not a pickled cache value: the
    key (`rate:` prefix) is never read through the cache API."""
    from django.db import connection

    now = timezone.now()
    ends = now + timedelta(seconds=duration)
    quote = connection.ops.quote_name
    t = quote(table)
    adapt = connection.ops.adapt_datetimefield_value
    sql = (
        f"INSERT INTO {t} ({quote('cache_key')}, {quote('value')}, {quote('expires')}) VALUES (%s, '1', %s) "
        f"ON CONFLICT ({quote('cache_key')}) DO UPDATE SET "
        f"{quote('value')} = CASE WHEN {t}.{quote('expires')} <= %s THEN '1' "
        f"ELSE CAST(CAST({t}.{quote('value')} AS INTEGER) + 1 AS TEXT) END, "
        f"{quote('expires')} = CASE WHEN {t}.{quote('expires')} <= %s THEN %s ELSE {t}.{quote('expires')} END "
        f"RETURNING {quote('value')}, {quote('expires')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [f"rate:{key}", adapt(ends), adapt(now), adapt(now), adapt(ends)])
        value, expires = cursor.fetchone()
    if isinstance(expires, str):
        expires = datetime.fromisoformat(expires)
    if timezone.is_naive(expires):
        expires = expires.replace(tzinfo=UTC)
    return int(value), expires.timestamp()


def scope_for(token: ApiToken, advertiser: str | None) -> tuple[str, ...] | None:
    """The advertisers a read may cover. An explicit advertiser must be inside the
    token's scope (403 otherwise); without one, the token's whole scope is used."""
    if advertiser is not None:
        if not token.allows(advertiser):
            raise HttpError(403, f"this token may not access advertiser {advertiser!r}")
        return (advertiser,)
    return token.scope


def write_advertiser(token: ApiToken, advertiser: str | None) -> str | None:
    """The advertiser a write lands on. A token for exactly one advertiser defaults to
    it; global writes (no advertiser) need an all-advertiser token."""
    if advertiser is None and not token.all_advertisers:
        if len(token.advertisers or ()) == 1:
            return token.advertisers[0]
        raise HttpError(403, "this token may not write global memories; pass one of its advertisers")
    if not token.allows(advertiser):
        raise HttpError(403, f"this token may not write for advertiser {advertiser!r}")
    return advertiser
