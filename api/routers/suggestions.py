"""GET /api/v1/suggestions: open suggestions (an L3 signal and the L2 strategies and L4
templates that apply to it) inside the token's scope."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema

from api.schemas import ErrorOut
from api.security import scope_for


class PlaybookOut(Schema):
    id: int
    layer: str
    content: str
    advertiser: str | None
    category: str
    score: float
    shared_entities: list[str]


class SignalOut(Schema):
    id: int
    layer: str
    content: str
    advertiser: str | None
    category: str
    expires_at: str | None


class SuggestionOut(Schema):
    id: int
    kind: str
    topic: str
    advertiser: str | None
    status: str
    created_at: str
    expires_at: str | None
    signal: SignalOut
    strategies: list[PlaybookOut]
    templates: list[PlaybookOut]


class SuggestionListOut(Schema):
    items: list[SuggestionOut]


router = Router(tags=["memory"])
ERRORS = {code: ErrorOut for code in (400, 401, 403, 422, 429, 503)}


@router.get("", response={200: SuggestionListOut, **ERRORS}, summary="Open suggestions: a signal and the playbooks that apply")
def suggestions_list(
    request: HttpRequest,
    advertiser: str | None = Query(None, min_length=1, max_length=64, pattern=r"^[^\s,<>\"'\\\x00-\x1f\x7f]+$"),
    limit: int = Query(50, ge=1, le=200),
) -> dict[str, Any]:
    from governance.knowledge.selectors import suggestion_dict, suggestions_open

    advertisers = scope_for(request.auth, advertiser)
    return {"items": [suggestion_dict(s) for s in suggestions_open(advertisers=advertisers, limit=limit)]}
