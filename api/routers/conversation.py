"""Conversation endpoints of the agent API: session distillation (`POST /distill`) and
drill-down from a memory to the turns it came from (`GET /memories/{id}/source`).

Mounted on the main API (same bearer auth, rate limit and error mapping); scope rules are
the ones `/ingest` and `/memories/{id}` use."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Path, Router, Schema
from pydantic import BaseModel, ConfigDict, model_validator

from api.concurrency import token_slot
from api.schemas import Code, DecisionOut, ErrorOut, NonBlank, StrictIn, Text
from api.security import write_advertiser

MAX_ID = 2**63 - 1
MAX_TRANSCRIPT_MESSAGES = 2000
MAX_JSONL_CHARS = 240_000
ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut, 429: ErrorOut, 503: ErrorOut}

router = Router(tags=["conversation"])


class TranscriptMessageIn(Schema):
    role: Annotated[str, Field(max_length=32, description="user, assistant, system or tool (OpenClaw's toolResult is read as tool)")]
    content: Annotated[Text, Field(max_length=64_000)] | list[Any] = ""


class DistillIn(StrictIn):
    session_id: Annotated[NonBlank, Field(max_length=200)]
    messages: list[TranscriptMessageIn] | None = Field(
        None, max_length=MAX_TRANSCRIPT_MESSAGES, description="role-tagged turns; content a string or a list of parts"
    )
    jsonl: Annotated[Text, Field(max_length=MAX_JSONL_CHARS)] | None = Field(
        None, description="an OpenClaw session transcript, one JSON object per line (read tolerantly)"
    )
    advertiser: Code | None = Field(None, description="as for /ingest: defaults to the token's advertiser when it has exactly one")
    business_line: Code | None = None
    turn_start: int | None = Field(None, ge=0, description="first turn index to distil (default 0)")
    turn_end: int | None = Field(None, ge=0, description="last turn index to distil, inclusive (default the last turn)")

    @model_validator(mode="after")
    def _one_transcript(self) -> DistillIn:
        if (self.messages is None) == (self.jsonl is None):
            raise ValueError("give either 'messages' or 'jsonl'")
        return self


class DistillDecisionOut(DecisionOut):
    turns: list[int]


class DistillOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    session_id: str
    turns: int = Field(description="turns read in the range")
    candidates: int
    replayed: bool
    decisions: list[DistillDecisionOut]


class SourceTurnOut(Schema):
    index: int
    role: str
    content: str


class SourceOut(Schema):
    memory_id: int
    session_id: str | None
    turns: list[SourceTurnOut]
    raw_text: str | None
    event_id: int | None


@router.post("/distill", response={200: DistillOut, **ERRORS}, summary="Distil a session transcript into candidate memories")
def distill(request: HttpRequest, payload: DistillIn) -> dict[str, Any]:
    """Each user-stated preference, correction or decision (and each user confirmation of an
    assistant suggestion) becomes one funnel event. Repeating a (session, turn range)
    returns the stored decisions with `replayed: true` and writes nothing."""
    from governance.knowledge.distill.services import session_distill

    token = request.auth
    advertiser = write_advertiser(token, payload.advertiser)
    with token_slot(token):
        return session_distill(
            session_id=payload.session_id,
            messages=[m.dict() for m in payload.messages] if payload.messages is not None else None,
            jsonl=payload.jsonl,
            advertiser=advertiser,
            business_line=payload.business_line or "",
            turn_start=payload.turn_start,
            turn_end=payload.turn_end,
            actor=token.actor,
        )


@router.get("/memories/{memory_id}/source", response={200: SourceOut, **ERRORS}, summary="The turns or raw input a memory came from")
def memory_source(request: HttpRequest, memory_id: int = Path(..., ge=1, le=MAX_ID)) -> dict[str, Any]:
    from governance.intake.selectors import memory_source as source_of
    from memories.selectors import memory_get

    # Outside the token's scope the memory does not exist (404), as for GET /memories/{id}.
    memory = memory_get(memory_id=memory_id, advertisers=request.auth.scope)
    return source_of(memory=memory, advertisers=request.auth.scope)
