"""Operations: counts and schedules, one reflection pass."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router
from ninja.errors import HttpError

from api.concurrency import token_slot
from api.routers.common import COMMON_ERRORS, request_token
from api.schemas import (
    ReflectOut,
    StatusOut,
)

router = Router()


@router.get("/status", response={200: StatusOut, **COMMON_ERRORS}, tags=["operations"], summary="Counts, embeddings, provider, schedules")
def status(request: HttpRequest) -> dict[str, Any]:
    from governance.metrics.status import status_overview

    return status_overview(advertisers=request_token(request).scope)


# --- reflection -----------------------------------------------------------------------
@router.post("/reflect", response={200: ReflectOut, **COMMON_ERRORS}, tags=["operations"], summary="Run one reflection pass")
def reflect(request: HttpRequest) -> dict[str, Any]:
    from api.reflection import run_reflection

    token = request_token(request)
    if not token.all_advertisers:
        raise HttpError(403, "reflection reads every advertiser's memories; it needs an all-advertiser token")
    with token_slot(token):
        return run_reflection(actor=token.actor)
