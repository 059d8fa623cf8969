"""Writes for API tokens: create (the secret is returned once), revoke, and the
last-used bookkeeping done on authentication."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from api.models import TRUSTED_SOURCES, ApiToken
from memories.constants import Source
from memories.exceptions import DomainError, InvalidInput

TOKEN_MARK = "lgx"
PREFIX_LENGTH = 8
# Writing last_used_at on every call would put a write lock on the read path; a
# minute's precision is enough to tell live tokens from dead ones.
LAST_USED_GRANULARITY = timedelta(seconds=60)

TOKEN_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$")
_ADVERTISER_RE = re.compile(r"^[^\s,\x00-\x1f]{1,64}$")


def hash_secret(secret: str) -> str:
    # The secret is 256 random bits, so a plain digest is enough; a slow KDF would
    # only add latency to every API call.
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def split_token(raw: str) -> tuple[str, str] | None:
    """'lgx_<prefix>_<secret>' → (prefix, whole token); None when it is not shaped like one."""
    parts = raw.split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_MARK or len(parts[1]) != PREFIX_LENGTH or not parts[2]:
        return None
    return parts[1], raw


def clean_advertisers(advertisers: list[str] | tuple[str, ...] | None) -> list[str]:
    cleaned: list[str] = []
    for advertiser in advertisers or ():
        advertiser = advertiser.strip()
        if not advertiser:
            continue
        if not _ADVERTISER_RE.match(advertiser):
            raise InvalidInput(f"advertiser {advertiser!r} is not a valid code (1-64 characters, no spaces or commas)")
        if advertiser not in cleaned:
            cleaned.append(advertiser)
    return cleaned


@transaction.atomic
def api_token_create(
    *,
    name: str,
    advertisers: list[str] | tuple[str, ...] | None = None,
    all_advertisers: bool = False,
    can_review: bool = False,
    trusted_sources: list[str] | tuple[str, ...] = (),
    created_by=None,
    can_erase: bool = False,
    created_by_name: str = "",
) -> tuple[ApiToken, str]:
    """Create a token and return it with its secret. The secret is not stored and
    cannot be shown again."""
    from governance.audit import audit_record
    from governance.constants import AuditEvent

    name = (name or "").strip()
    if not TOKEN_NAME_RE.match(name):
        raise InvalidInput("token name must be 1-100 characters: letters, digits, '_', '.', '-'")
    scope = clean_advertisers(advertisers)
    if all_advertisers and scope:
        raise InvalidInput("give either advertisers or all advertisers, not both")
    if not all_advertisers and not scope:
        raise InvalidInput("a token needs at least one advertiser (or all advertisers)")
    grants = sorted({str(x).strip().lower() for x in trusted_sources if str(x).strip()})
    unknown = set(grants) - TRUSTED_SOURCES
    if unknown:
        raise InvalidInput(f"--trusted-sources takes human and/or system, not {', '.join(sorted(unknown))}")
    if ApiToken.objects.filter(name=name).exists():
        raise InvalidInput(f"a token named {name!r} already exists")
    prefix = secrets.token_hex(PREFIX_LENGTH // 2)
    while ApiToken.objects.filter(prefix=prefix).exists():
        prefix = secrets.token_hex(PREFIX_LENGTH // 2)
    raw = f"{TOKEN_MARK}_{prefix}_{secrets.token_urlsafe(32)}"
    creator = created_by_name or (created_by.get_username() if created_by is not None else "")
    token = ApiToken.objects.create(
        name=name,
        prefix=prefix,
        secret_hash=hash_secret(raw),
        advertisers=scope,
        all_advertisers=all_advertisers,
        can_review=can_review,
        can_erase=can_erase,
        trusted_sources=grants,
        created_by=created_by,
        created_by_name=creator,
    )
    audit_record(
        event_type=AuditEvent.API_TOKEN_CREATED,
        actor=creator or "cli",
        target=token,
        extra={
            "name": name,
            "advertisers": scope,
            "all_advertisers": all_advertisers,
            "can_review": can_review,
            "can_erase": can_erase,
            "trusted_sources": grants,
        },
    )
    return token, raw


@transaction.atomic
def api_token_revoke(*, token: ApiToken, actor: str) -> ApiToken:
    from governance.audit import audit_record
    from governance.constants import AuditEvent

    if not token.revoked:
        token.revoked = True
        token.save(update_fields=["revoked"])
        audit_record(event_type=AuditEvent.API_TOKEN_REVOKED, actor=actor, target=token, extra={"name": token.name})
    return token


def api_token_authenticate(*, raw: str) -> ApiToken | None:
    """The live token matching `raw`, or None. Unknown, malformed and revoked tokens
    are indistinguishable to the caller."""
    parsed = split_token(raw or "")
    if parsed is None:
        # Still hash once so that malformed and well-formed misses cost the same.
        hmac.compare_digest(hash_secret(raw or ""), "0" * 64)
        return None
    prefix, whole = parsed
    candidate = ApiToken.objects.filter(prefix=prefix).first()
    expected = candidate.secret_hash if candidate is not None else "0" * 64
    if not hmac.compare_digest(hash_secret(whole), expected) or candidate is None or candidate.revoked:
        return None
    now = timezone.now()
    if candidate.last_used_at is None or now - candidate.last_used_at > LAST_USED_GRANULARITY:
        ApiToken.objects.filter(pk=candidate.pk).update(last_used_at=now)
        candidate.last_used_at = now
    return candidate


class SourceNotGranted(DomainError):
    http_status = 403


def api_token_check_source(*, token: ApiToken, source: str | None) -> None:
    """Provenance comes from the credential: a token claims `human` or `system` only with
    an operator's explicit grant."""
    claimed = (source or Source.AGENT).strip().lower()
    if claimed in TRUSTED_SOURCES and claimed not in token.claimable_sources:
        raise SourceNotGranted(
            f"token {token.name!r} may not claim source {claimed!r}; an operator grants it with "
            f"`memory token create --name {token.name} … --trusted-sources {claimed}`"
        )
