"""Bearer-token authentication, advertiser scoping and the per-token rate limit."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
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
    MEMORY_API_RATE, e.g. "120/min") so it can be tuned without rebuilding the API."""

    scope = "lingix-token"

    def __init__(self) -> None:
        self.rate = None
        self.num_requests, self.duration = None, None

    def allow_request(self, request: HttpRequest) -> bool:
        self.rate = getattr(settings, "MEMORY_API_RATE", None) or DEFAULT_RATE
        self.num_requests, self.duration = self.parse_rate(self.rate)
        allowed = super().allow_request(request)
        if not allowed:
            record_rate_limit_refusal(limit="rate")
        return allowed

    def get_cache_key(self, request: HttpRequest) -> str | None:
        token = getattr(request, "auth", None)
        if not isinstance(token, ApiToken):
            return None
        return self.cache_format % {"scope": self.scope, "ident": token.pk}


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
