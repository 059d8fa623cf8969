"""The review queue for tokens with the review right."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Body, Path, Query, Router
from ninja.errors import HttpError

from api.concurrency import token_slot
from api.models import ApiToken
from api.routers.common import COMMON_ERRORS, MAX_ID, decision_dict, request_token
from api.schemas import (
    DecisionOut,
    ErrorOut,
    ReviewDecisionIn,
    ReviewListOut,
)
from governance.models import ReviewItem

router = Router()


# --- review ---------------------------------------------------------------------------
@router.get("/review", response={200: ReviewListOut, **COMMON_ERRORS}, tags=["review"], summary="Open review items in the token's scope")
def review_list(request: HttpRequest, limit: int = Query(50, ge=1, le=200)) -> dict[str, Any]:
    from governance.review.selectors import review_item_dict, review_queue

    return {"items": [review_item_dict(item) for item in review_queue(advertisers=request_token(request).scope, limit=limit)]}


def _reviewable_item(token: ApiToken, item_id: int) -> ReviewItem:
    from governance.review.selectors import review_item_get

    if not token.can_review:
        raise HttpError(403, "this token may not decide reviews (create it with --can-review)")
    item = review_item_get(item_id=item_id, advertisers=token.scope)
    if not token.allows(item.advertiser):
        # Readable (global items are), but deciding one changes what every advertiser sees.
        raise HttpError(403, "deciding a global review item needs an all-advertiser token")
    return item


@router.post(
    "/review/{item_id}/approve",
    response={200: DecisionOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    tags=["review"],
    summary="Approve a review item (tokens created with --can-review)",
)
def review_approve(
    request: HttpRequest, item_id: int = Path(..., ge=1, le=MAX_ID), payload: ReviewDecisionIn = Body(None)
) -> dict[str, Any]:
    from governance.review.services import review_approve as approve

    token = request_token(request)
    item = _reviewable_item(token, item_id)
    payload = payload or ReviewDecisionIn()
    with token_slot(token):
        decision = approve(
            item=item, reviewer=None, reviewer_name=token.actor, note=payload.note, decision_correct=payload.decision_correct
        )
    return decision_dict(decision)


@router.post(
    "/review/{item_id}/reject",
    response={200: DecisionOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    tags=["review"],
    summary="Reject a review item (needs a note; tokens created with --can-review)",
)
def review_reject(
    request: HttpRequest, item_id: int = Path(..., ge=1, le=MAX_ID), payload: ReviewDecisionIn = Body(None)
) -> dict[str, Any]:
    from governance.review.services import review_reject as reject

    token = request_token(request)
    item = _reviewable_item(token, item_id)
    payload = payload or ReviewDecisionIn()
    with token_slot(token):
        decision = reject(item=item, reviewer=None, reviewer_name=token.actor, note=payload.note, decision_correct=payload.decision_correct)
    return decision_dict(decision)
