"""Proposals into the write funnel: free text or role-tagged turns, and structured triggers."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router
from ninja.errors import HttpError

from api.concurrency import token_slot
from api.routers.common import COMMON_ERRORS, decision_dict, request_token
from api.schemas import (
    TRIGGER_OPENAPI_EXAMPLES,
    DecisionOut,
    IngestIn,
    TriggerIn,
)
from api.security import write_advertiser
from api.services import api_token_check_source

router = Router()


# --- the write funnel -----------------------------------------------------------------
@router.post("/ingest", response={200: DecisionOut, **COMMON_ERRORS}, tags=["write funnel"], summary="Free text through the write funnel")
def ingest(request: HttpRequest, payload: IngestIn) -> dict[str, Any]:
    from governance.intake.services import event_ingest

    token = request_token(request)
    api_token_check_source(token=token, source=payload.source)
    advertiser = write_advertiser(token, payload.advertiser)
    with token_slot(token):
        if (payload.text is None) == (payload.messages is None):
            raise HttpError(422, "give either 'text' or 'messages'")
        decision = event_ingest(
            text=payload.text,
            messages=[m.dict() for m in payload.messages] if payload.messages is not None else None,
            advertiser=advertiser,
            business_line=payload.business_line or "",
            source=payload.source,
            layer=payload.layer,
            idempotency_key=payload.idempotency_key,
            actor=token.actor,
        )
    return decision_dict(decision, explain=payload.explain)


@router.post(
    "/trigger",
    response={200: DecisionOut, **COMMON_ERRORS},
    tags=["write funnel"],
    summary="A structured event through the write funnel",
    openapi_extra=TRIGGER_OPENAPI_EXAMPLES,
)
def trigger(request: HttpRequest, payload: TriggerIn) -> dict[str, Any]:
    from governance.intake.services import event_trigger

    token = request_token(request)
    api_token_check_source(token=token, source=payload.source)
    advertiser = write_advertiser(token, payload.advertiser)
    with token_slot(token):
        decision = event_trigger(
            event_type=payload.event_type,
            advertiser=advertiser,
            business_line=payload.business_line or "",
            summary=payload.summary,
            data=payload.data,
            source=payload.source,
            layer=payload.layer,
            idempotency_key=payload.idempotency_key,
            actor=token.actor,
        )
    return decision_dict(decision, explain=payload.explain)
