"""Request (In) and response (Out) shapes of the agent API. The bounds here are the
API's input limits: anything outside them is a 422 before any service runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator
from pydantic import Field as PydanticField

from governance.constants import TriggerType
from governance.funnel.trigger_schemas import openapi_examples
from memories.constants import Layer, MemoryKind, Source

MAX_QUERY_CHARS = 2000
MAX_TEXT_CHARS = 8000
MAX_DATA_BYTES = 16 * 1024
MAX_TOP_K = 50
MAX_MESSAGES = 50

# Built from the model's own choices, so a new layer, source or trigger type reaches the
# API's validation and its OpenAPI enums without a second list to keep in step.
LayerCode = Literal[tuple(Layer.values)]
SourceCode = Literal[tuple(Source.values)]
MemoryKindCode = Literal[tuple(MemoryKind.values)]
EventType = Literal[tuple(TriggerType.values)]


def _plain_text(value: str) -> str:
    # NUL bytes and lone surrogates survive JSON decoding but not SQLite/UTF-8 encoding;
    # refusing them here keeps them from turning into a 500 deep in a service.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Text = Annotated[str, AfterValidator(_plain_text)]
NonBlank = Annotated[str, AfterValidator(_plain_text), AfterValidator(_non_blank)]
# Advertiser and business-line codes: short, no whitespace or separators.
Code = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[^\s,<>\"'\\\x00-\x1f\x7f]+$")]
IdempotencyKey = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-]+$")]


def as_of_utc(value: datetime | None) -> datetime | None:
    # A time without an offset is read as UTC, the zone the API answers in.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


AS_OF_HELP = (
    "ISO-8601 time: read the memories as they were then (the version valid at that time, archived or expired ones "
    "while they were live); without an offset it is UTC"
)
AsOf = Annotated[
    datetime | None,
    AfterValidator(as_of_utc),
    Field(description=AS_OF_HELP),
]


def _check_data(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return value
    try:
        encoded = json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise ValueError("data must be plain JSON text (no lone surrogates)") from None
    if len(encoded) > MAX_DATA_BYTES:
        raise ValueError(f"data must be at most {MAX_DATA_BYTES} bytes as JSON")
    if "\\u0000" in json.dumps(value):
        raise ValueError("data must not contain NUL characters")
    return value


class StrictIn(Schema):
    # Unknown keys are refused so that a typo ("advertisor") is not silently ignored.
    model_config = ConfigDict(extra="forbid")


# --- errors --------------------------------------------------------------------------
class ErrorOut(Schema):
    detail: Any = Field(..., description="a message, or for 422 the list of validation errors")


# --- memories --------------------------------------------------------------------------
class MemoryOut(Schema):
    id: int
    layer: str
    content: str
    advertiser: str | None
    business_line: str
    category: str
    kind: str = Field("", description="episodic (what happened) or semantic (what holds); empty until organised")
    category_path: str = Field("", description="where it sits in its advertiser's category tree, e.g. 医药OTC › 冷启动 › 出价")
    abstract: str = Field("", description="the one-line abstract")
    source: str
    source_attribution: str
    grounding: str
    importance: float
    confidence: float
    status: str
    tier: str
    version: int
    created_at: str | None
    expires_at: str | None
    data: Any


class SearchHitOut(MemoryOut):
    score: float
    explain: dict[str, float] = {}


class MemoryDetailOut(MemoryOut):
    history: list[MemoryOut]
    as_of: str | None = Field(None, description="the time read (as_of), when one was asked for")


# --- search ------------------------------------------------------------------------------
class SearchIn(StrictIn):
    query: Annotated[NonBlank, Field(max_length=MAX_QUERY_CHARS)]
    advertiser: Code | None = Field(None, description="that advertiser plus global memories; must be in the token's scope")
    business_line: Code | None = None
    layers: list[LayerCode] | None = Field(None, max_length=4)
    top_k: int = Field(5, ge=1, le=MAX_TOP_K)
    kind: MemoryKindCode | None = Field(None, description="episodic (what happened) or semantic (what holds)")
    category: Annotated[str, Field(min_length=1, max_length=255)] | None = Field(
        None, description="a category path and its subtree, e.g. 医药OTC › 冷启动 (also 医药OTC/冷启动)"
    )
    mode: Literal["fast", "deep"] = Field(
        "fast", description="fast: one hybrid ranking; deep: sub-queries fused and reranked (slower, better recall)"
    )
    as_of: AsOf = None


class SearchOut(Schema):
    query: str
    results: list[SearchHitOut]
    timing_ms: dict[str, float]
    mode: Literal["fast", "deep"] = "fast"
    as_of: str | None = Field(None, description="the time read (as_of), when one was asked for")
    deep: dict[str, Any] | None = Field(
        None,
        description="deep mode only: subqueries, rewriter, reranker, their timings, and fallback (a reason) and fallback_step "
        "(rewrite or rerank) when it answered fast",
    )
    query_truncated: bool = Field(False, description="the embedder read only the first query_chars_embedded characters")
    query_chars_embedded: int = 0
    query_embedding: dict[str, float | bool | int] = Field(
        default_factory=dict,
        description="cost of embedding the query: ms, cached (LRU hit), tokens read, truncated, chars read",
    )


# --- write funnel ------------------------------------------------------------------------
class TurnIn(Schema):
    role: Literal["user", "assistant"]
    content: Annotated[Text, Field(max_length=MAX_TEXT_CHARS)]


class IngestIn(StrictIn):
    text: Annotated[NonBlank, Field(max_length=MAX_TEXT_CHARS)] | None = Field(
        None, description="free text; or send `messages` instead, so that a confirmation can come from a user turn"
    )
    messages: list[TurnIn] | None = Field(
        None, max_length=50, description="role-tagged turns; a suggestion counts as confirmed only when a later user turn confirms it"
    )
    advertiser: Code | None = Field(
        None, description="defaults to the token's advertiser when it has exactly one; global writes need an all-advertiser token"
    )
    business_line: Code | None = None
    source: SourceCode = "agent"
    layer: LayerCode | None = None
    idempotency_key: IdempotencyKey | None = Field(None, description="a retry with the same key returns the first decision")
    explain: bool = Field(False, description="include every funnel stage's trace in the answer")


# One example request per event type, from the same typed schemas the funnel reads.
TRIGGER_OPENAPI_EXAMPLES = {"requestBody": {"content": {"application/json": {"examples": openapi_examples()}}}}


class TriggerIn(StrictIn):
    event_type: EventType
    advertiser: Code | None = None
    business_line: Code | None = None
    summary: Annotated[Text, Field(max_length=MAX_TEXT_CHARS)] = ""
    data: dict[str, Any] = Field(default_factory=dict)
    source: SourceCode = "agent"
    layer: LayerCode | None = None
    idempotency_key: IdempotencyKey | None = Field(None, description="a retry with the same key returns the first decision")
    explain: bool = Field(False, description="include every funnel stage's trace in the answer")

    @field_validator("data")
    @classmethod
    def _data_bounds(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_data(value) or {}


class DecisionOut(BaseModel):
    # A plain pydantic model: ninja's Schema would drop the extra keys the services add.
    model_config = ConfigDict(extra="allow")

    action: str = PydanticField(
        ..., description="WRITE, UPDATE, REJECT or PENDING_REVIEW (a review acknowledgement may echo the event's action)"
    )
    layer: str | None
    memory_id: int | None
    event_id: int | None
    reasons: list[str]


# --- status / reflect ----------------------------------------------------------------------
class StatusOut(BaseModel):
    # A plain pydantic model: ninja's Schema would drop the extra keys the services add.
    model_config = ConfigDict(extra="allow")

    memories: dict[str, int]
    provider: str


class ReflectOut(BaseModel):
    # A plain pydantic model: ninja's Schema would drop the extra keys the services add.
    model_config = ConfigDict(extra="allow")


# --- review ----------------------------------------------------------------------------
class ReviewItemOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: int
    kind: str
    status: str
    layer: str | None
    advertiser: str | None
    reason: str
    needs_operator: bool = Field(description="approving writes an L1 core rule: an API token can only reject it")
    content: str
    proposed_by: str
    memory_id: int | None
    related_memory_id: int | None
    event_id: int | None
    created_at: str


class ReviewListOut(Schema):
    items: list[ReviewItemOut]


class EraseIn(StrictIn):
    reason: Annotated[NonBlank, Field(max_length=500)] = Field(
        ..., description="why the memory is erased (a client's request, a secret found); kept on the tombstone"
    )


class TombstoneOut(Schema):
    id: int
    memory_id: int = Field(..., description="the erased memory (one tombstone per version)")
    erased_with: int = Field(..., description="the memory id the erase was asked for")
    layer: str
    advertiser: str | None
    version: int
    erased_by: str
    erased_at: str
    reason: str
    content_hash: str = Field(..., description="sha256 of the erased words, normalised: the same text sent again is refused")


class EraseStorageOut(Schema):
    vendor: str = Field(..., description="the database: sqlite or postgresql")
    vacuumed: bool = Field(..., description="SQLite: VACUUM rebuilt the file after the erase (false when busy, and always on PostgreSQL)")
    wal_truncated: bool = Field(..., description="SQLite: the WAL was folded back and cut to zero bytes (false when busy)")
    note: str | None = Field(None, description="why neither step ran, when that is known")


class EraseOut(Schema):
    erased: int = Field(..., description="memory rows erased (every version)")
    tombstone: TombstoneOut = Field(..., description="the tombstone of the memory asked for")
    tombstones: list[TombstoneOut]
    storage: EraseStorageOut = Field(..., description="what reached the disk (docs/erasure.md)")
    unreadable_task_payloads: int = Field(
        ..., description="django-q task payloads that could not be unpickled, so were not checked for the erased words"
    )
    unreadable_task_ids: list[str] = Field(
        ...,
        description="those tasks' ids (delete them in the admin, Django Q > Tasks); empty for a token scoped to some advertisers, since the tasks are the whole system's",
    )


class ReviewDecisionIn(StrictIn):
    note: Annotated[Text, Field(max_length=2000)] = ""
    decision_correct: bool | None = Field(None, description="was the automatic decision right? (feeds guard metrics)")


# --- recall ------------------------------------------------------------------------------
class MessageIn(Schema):
    role: Annotated[str, Field(max_length=32)] = "user"
    content: Annotated[Text, Field(max_length=MAX_TEXT_CHARS)] | list[Any] = ""


class RecallIn(StrictIn):
    messages: list[MessageIn] | None = Field(None, max_length=MAX_MESSAGES, description="the conversation; the last user turn is the query")
    query: Annotated[Text, Field(max_length=MAX_QUERY_CHARS)] | None = None
    advertiser: Code | None = None
    business_line: Code | None = None
    layers: list[LayerCode] | None = Field(None, max_length=4)
    budget_tokens: int = Field(600, ge=50, le=4000)
    top_k: int = Field(8, ge=1, le=20)
    force: bool = Field(False, description="retrieve even when the turn looks like chit-chat")
    detail: Literal["tiered", "full"] = Field(
        "tiered", description="tiered: one-line abstracts first, then the best memories expanded; full: whole memories in rank order"
    )
    mode: Literal["fast", "deep"] = Field("fast", description="the search behind the block (see /search); each has its relevance floor")
    as_of: AsOf = None


class RecallMemoryOut(Schema):
    id: int
    layer: str
    advertiser: str | None
    content: str
    score: float
    age: str
    tokens: int
    detail: str = Field("full", description="which abstract the block shows: line, paragraph or full")


class RecallOut(Schema):
    context: str
    memories: list[RecallMemoryOut]
    tokens: int
    retrieved: bool
    reason: str
    query: str
    query_truncated: bool = Field(False, description="the embedder read only the first query_chars_embedded characters")
    query_chars_embedded: int = 0
    query_embedding: dict[str, float | bool | int] = Field(
        default_factory=dict,
        description="cost of embedding the query: ms, cached (LRU hit), tokens read, truncated, chars read",
    )
    chosen: dict[str, int] = Field(
        default_factory=dict, description="how many memories the block shows at each detail, and how many ranked ones did not fit"
    )
    skipped: str | None = Field(
        None,
        description="why nothing was injected: empty, no_words, slash_command, small_talk, below_relevance_floor, "
        "nothing_found or nothing_fits; null when memories were injected",
    )
    relevance: dict[str, float] | None = Field(
        None, description="the best hit's relevance and the mode's floor (memories.search.relevance), when a search ran"
    )
