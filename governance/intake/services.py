"""Writes of event intake: free text, role-tagged turns and structured triggers are
cleaned, checked and sent through the write funnel.

Model calls (classification, value, judge) run before the write transaction, so no
database lock is held while a gateway answers. Everything after them (the event row,
every stage's trace, the memory write or the parked review item, the sampled audit)
commits in one transaction, or not at all."""

from __future__ import annotations

import json
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from governance.constants import EventKind, EventStatus, ReviewKind, TriggerType
from governance.funnel import pipeline as p
from governance.funnel.commit import DEFAULT_PIPELINE
from governance.funnel.errors import (
    EmptyInput,
    InputTooLarge,
    NoteRequired,
    ReviewNotOpen,
    SelfReviewForbidden,
    UnknownEventType,
    UnknownLayer,
    UnknownSource,
)
from governance.funnel.rules import claim_turns
from governance.funnel.types import Decision, StageOutcome
from governance.intake.statement import conversation_statement, text_statement
from governance.models import LayerPolicy, MemoryEvent, Trace
from governance.reasons import reason_columns, row_reasons
from governance.write.erase import tombstone_refuse
from judges.config import get_judge, get_provider
from lingix_config import config
from memories.constants import LAYER_CODES, Source
from memories.exceptions import InvalidInput
from memories.locks import memory_write_lock
from memories.metrics_registry import record_decision
from textrules.safety import Findings, redact, refuse_secret_code, scan_data, scan_text, scan_turns

__all__ = [
    "Decision",
    "event_ingest",
    "event_trigger",
    "event_submit",
    "EmptyInput",
    "InputTooLarge",
    "NoteRequired",
    "ReviewNotOpen",
    "SelfReviewForbidden",
    "UnknownEventType",
    "UnknownLayer",
    "UnknownSource",
]

MAX_DATA_BYTES = 64 * 1024
SOURCES = [choice.value for choice in Source]
EVENT_TYPES = [choice.value for choice in TriggerType]


# --- input checks ------------------------------------------------------------------


# --- input checks ------------------------------------------------------------------
def _clean_source(source: str | None) -> str:
    value = (source or Source.AGENT).strip().lower()
    if value not in SOURCES:
        raise UnknownSource(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    return value


def _clean_layer(layer: str | None) -> str:
    if layer is None or str(layer).strip() == "":
        return ""
    value = str(layer).strip().upper()
    if value not in LAYER_CODES:
        raise UnknownLayer(f"unknown layer {layer!r}; use L1, L2, L3 or L4")
    return value


def _clean_event_type(event_type: str) -> str:
    value = (event_type or "").strip().lower()
    if value not in EVENT_TYPES:
        raise UnknownEventType(f"unknown event type {event_type!r}; use one of {', '.join(EVENT_TYPES)}")
    return value


def _short(name: str, value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    value = value.strip()
    if len(value) > limit:
        raise InputTooLarge(f"{name} is longer than {limit} characters")
    return value


def _code(name: str, value: str | None, limit: int) -> str | None:
    """A short identifier that is stored and echoed as given (advertiser, business line,
    idempotency key, session id): one holding a credential is refused, since redacting
    it would make it another identifier."""
    return refuse_secret_code(_short(name, value, limit), field_name=name)


def _clean_text(name: str, text: Any, *, required: bool) -> str:
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise InvalidInput(f"{name} must be a string")
    text = text.strip()
    if required and not text:
        raise EmptyInput(f"{name} is empty")
    if len(text) > config().memory_max_text_chars:
        raise InputTooLarge(f"{name} is {len(text)} characters; the limit is {config().memory_max_text_chars}")
    return text


def _clean_data(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidInput("data must be a JSON object")
    try:
        size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"data is not JSON-serialisable: {exc}") from exc
    if size > MAX_DATA_BYTES:
        raise InputTooLarge(f"data is {size} bytes; the limit is {MAX_DATA_BYTES}")
    return data


def _render_data(event_type: str, data: dict[str, Any]) -> str:
    """A readable memory text for a trigger sent without a summary."""
    parts = [f"{k}={v}" for k, v in data.items() if not isinstance(v, (dict, list))]
    return f"{event_type}: " + "; ".join(parts) if parts else ""


# --- decisions -----------------------------------------------------------------------
def _trace_dict(trace: Trace) -> dict[str, Any]:
    return StageOutcome(
        stage=trace.stage,
        decision=trace.decision,
        reasons=row_reasons(trace),
        scores=trace.scores,
        provider=trace.provider,
        model=trace.model,
        prompt_version=trace.prompt_version,
        latency_ms=trace.latency_ms,
        tokens_in=trace.tokens_in,
        tokens_out=trace.tokens_out,
        cost_usd=trace.cost_usd,
    ).as_dict()


def decision_for_event(event: MemoryEvent, *, replayed: bool = False) -> Decision:
    review = event.review_items.filter(kind__in=[ReviewKind.PENDING_WRITE, ReviewKind.CONFLICT]).order_by("id").first()
    return Decision(
        action=event.action,
        layer=event.decided_layer or None,
        memory_id=event.memory_id,
        event_id=event.pk,
        **reason_columns(row_reasons(event)),
        stages=[_trace_dict(t) for t in event.traces.order_by("seq", "id")],
        review_item_id=review.pk if review else None,
        replayed=replayed,
    )


def _as_stored(value: Any) -> Any:
    # What a JSON column gives back once read (tuples as lists, keys as strings).
    return json.loads(json.dumps(value))


def _decision_from_context(ctx: p.FunnelContext) -> Decision | None:
    """The decision just made, from the rows the funnel wrote in this call (what
    decision_for_event would read back: the event's columns, its traces in order, its
    parked item); None when some trace did not go through the funnel's buffer."""
    event = ctx.event
    if not event.action or len(ctx.stored_traces) != len(ctx.outcomes):
        return None
    for trace in ctx.stored_traces:
        trace.reasons, trace.reason_codes, trace.scores = _as_stored([trace.reasons, trace.reason_codes, trace.scores])
    event.reasons, event.reason_codes = _as_stored([event.reasons, event.reason_codes])
    columns = reason_columns(row_reasons(event))
    return Decision(
        action=event.action,
        layer=event.decided_layer or None,
        memory_id=event.memory_id,
        event_id=event.pk,
        reasons=columns["reasons"],
        reason_codes=columns["reason_codes"],
        stages=[_trace_dict(t) for t in sorted(ctx.stored_traces, key=lambda t: (t.seq, t.pk or 0))],
        review_item_id=ctx.review_item.pk if ctx.review_item is not None else None,
    )


def _existing(actor: str, key: str | None) -> MemoryEvent | None:
    if not key:
        return None
    return MemoryEvent.objects.filter(actor=actor, idempotency_key=key).first()


def event_submit(
    *,
    kind: str,
    content: str,
    raw_text: str = "",
    summary: str = "",
    data: dict[str, Any] | None = None,
    event_type: str = "",
    advertiser: str | None = None,
    source: str = Source.AGENT,
    layer: str = "",
    idempotency_key: str | None = None,
    actor: str = "",
    business_line: str = "",
    pipeline: list | None = None,
    turns: list[dict[str, Any]] | None = None,
    session_id: str | None = None,
    findings: Findings | None = None,
    statement: StageOutcome | None = None,
) -> Decision:
    """Run one already-validated event through the funnel. `pipeline` is the seam for
    tests and experiments; callers normally leave it alone. `turns` (role-tagged, with
    their index in the conversation) are what the memory is about: the attribution rules
    read them and the event keeps them, redacted, as the memory's source. `findings` are
    what an earlier scan of the same input already cut out (a conversation's joined view).
    `statement` is how the intake made `content` from the turns (the first trace stage)."""
    found = _existing(actor, idempotency_key)
    if found is not None and found.action:
        return decision_for_event(found, replayed=True)

    # Credentials are cut out and personal data masked before anything is stored or shown to a judge.
    text_scan, summary_scan, content_scan = scan_text(raw_text), scan_text(summary), scan_text(content)
    clean_data, data_findings = scan_data(data or {})
    findings = text_scan + summary_scan + content_scan + data_findings + (findings or Findings())
    # Erased words are not stored again: refused before the event row exists.
    tombstone_refuse(texts=(content_scan.text, text_scan.text), advertiser=advertiser)

    provider = get_provider()
    judge = get_judge(provider)
    event = MemoryEvent(
        kind=kind,
        event_type=event_type,
        source=source,
        actor=actor,
        advertiser=advertiser or None,
        business_line=business_line or "",
        requested_layer=layer,
        raw_text=text_scan.text,
        summary=summary_scan.text,
        data=clean_data,
        idempotency_key=idempotency_key or None,
        provider=judge.name if judge is provider else f"{judge.name}+{provider.name}",
        session_id=session_id or None,
        source_turns=[
            {"index": t.get("index", i), "role": t["role"], "content": scan_text(t["content"]).text} for i, t in enumerate(turns or [])
        ],
    )
    candidate = p.new_candidate(event=event, content=content_scan.text, trigger_type=event_type, layer=layer)
    candidate.turns = [{"role": t["role"], "content": redact(t["content"])} for t in turns or []]
    policies = {policy.layer: policy for policy in LayerPolicy.objects.all()}
    ctx = p.FunnelContext(event=event, candidate=candidate, provider=provider, judge=judge, policies=policies, safety=findings)
    if statement is not None:
        p.record_trace(ctx, statement)
    stages = list(DEFAULT_PIPELINE if pipeline is None else pipeline)
    outside, inside = p.split(stages)
    p.run_stages(ctx, outside)

    with transaction.atomic():
        # Its own advertiser's scope, and the global one shared: what the conflict check reads.
        memory_write_lock(advertisers=[event.advertiser])
        if idempotency_key:
            try:
                with transaction.atomic():
                    event.save()
            except IntegrityError:
                first = _existing(actor, idempotency_key)
                if first is None:
                    raise
                return decision_for_event(first, replayed=True)
        else:
            event.save()
        # The traces of the stages before the row existed wait in the buffer: run_stages
        # writes them with the ones inside, in one insert.
        p.run_stages(ctx, inside)
        if ctx.event.action == "":
            # A custom pipeline without a commit stage still leaves a decided event.
            p.settle(ctx)
            MemoryEvent.objects.filter(pk=event.pk).update(
                action=ctx.final, **reason_columns(ctx.reasons), status=EventStatus.DECIDED, decided_at=timezone.now()
            )
    decision = _decision_from_context(ctx)
    if decision is None:
        event.refresh_from_db()
        decision = decision_for_event(event)
    record_decision(action=decision.action, stage=ctx.decided_by or "commit")
    return decision


MAX_TURNS = 50


TURN_ROLES = ("user", "assistant")


def _clean_messages(messages: Any) -> list[dict[str, str]]:
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a non-empty list of {role, content}")
    if len(messages) > MAX_TURNS:
        raise InputTooLarge(f"messages holds {len(messages)} turns; the limit is {MAX_TURNS}")
    turns = []
    for i, turn in enumerate(messages):
        if not isinstance(turn, dict) or turn.get("role") not in TURN_ROLES:
            raise InvalidInput(f"messages[{i}] needs a role of {' or '.join(TURN_ROLES)}")
        content = _clean_text(f"messages[{i}].content", turn.get("content"), required=False)
        if content:
            # The position in the caller's conversation (a distilled transcript passes its own).
            index = turn.get("index")
            turns.append({"role": turn["role"], "content": content, "index": index if isinstance(index, int) and index >= 0 else i})
    if not turns:
        raise EmptyInput("messages hold no text")
    if sum(len(t["content"]) for t in turns) > config().memory_max_text_chars:
        raise InputTooLarge(f"messages hold more than {config().memory_max_text_chars} characters")
    return turns


def event_ingest(
    *,
    text: str | None = None,
    messages: list[dict[str, Any]] | None = None,
    advertiser: str | None = None,
    source: str = Source.AGENT,
    layer: str | None = None,
    idempotency_key: str | None = None,
    actor: str = "",
    business_line: str = "",
    pipeline: list | None = None,
    session_id: str | None = None,
    findings: Findings | None = None,
) -> Decision:
    """Free text, or a role-tagged conversation, classified into a trigger type first,
    then the funnel. With messages, attribution comes from the roles, not from `source`,
    and the event keeps the turns (and `session_id`) the memory came from. `findings` is
    what the caller's scan of a longer conversation already cut out of these turns (a
    distillation hands over only a candidate's turns)."""
    turns: list[dict[str, str]] = []
    joined_findings = findings or Findings()
    statement: StageOutcome | None = None
    advertiser = _code("advertiser", advertiser, 64) or None
    idempotency_key = _code("idempotency_key", idempotency_key, 128) or None
    replay = _existing(_short("actor", actor, 128) or "", idempotency_key)
    if messages is not None:
        if text:
            raise InvalidInput("give either text or messages, not both")
        conversation = _clean_messages(messages)
        # The joined view first: a key split across turns leaves each turn its piece.
        contents, found = scan_turns([t["content"] for t in conversation], roles=[t["role"] for t in conversation])
        joined_findings += found
        conversation = [{**t, "content": c} for t, c in zip(conversation, contents, strict=True)]
        turns = claim_turns(conversation)
        # One standalone statement, not the raw turns; a replayed request asks no model.
        provider = None if replay is not None and replay.action else get_provider()
        text, statement = conversation_statement(conversation=conversation, turns=turns, advertiser=advertiser, provider=provider)
        raw = "\n".join(f"{t['role']}: {t['content']}" for t in conversation)
        source = Source.USER if turns[-1]["role"] == "user" else Source.ASSISTANT
    else:
        text = _clean_text("text", text, required=True)
        raw = text
        if _clean_source(source) == Source.USER:
            text, statement = text_statement(text)
    return event_submit(
        kind=EventKind.INGEST,
        content=text,
        raw_text=raw,
        advertiser=advertiser,
        source=_clean_source(source),
        layer=_clean_layer(layer),
        idempotency_key=idempotency_key,
        actor=_short("actor", actor, 128) or "",
        business_line=_code("business_line", business_line, 64) or "",
        pipeline=pipeline,
        turns=turns,
        session_id=_code("session_id", session_id, 200) or None,
        findings=joined_findings,
        statement=statement,
    )


def event_trigger(
    *,
    event_type: str,
    advertiser: str | None = None,
    summary: str = "",
    data: dict[str, Any] | None = None,
    source: str = Source.AGENT,
    layer: str | None = None,
    idempotency_key: str | None = None,
    actor: str = "",
    business_line: str = "",
    pipeline: list | None = None,
) -> Decision:
    """A structured event of a named trigger type: no classification step."""
    event_type = _clean_event_type(event_type)
    summary = _clean_text("summary", summary, required=False)
    data = _clean_data(data)
    # Rendered from the scanned data, so a short secret under a secret-named key (which only
    # the key gives away) is not copied into the content unredacted.
    content = summary or _render_data(event_type, scan_data(data)[0])
    if not content:
        raise EmptyInput("a trigger needs a summary or some data")
    return event_submit(
        kind=EventKind.TRIGGER,
        content=content,
        summary=summary,
        data=data,
        event_type=event_type,
        advertiser=_code("advertiser", advertiser, 64) or None,
        source=_clean_source(source),
        layer=_clean_layer(layer),
        idempotency_key=_code("idempotency_key", idempotency_key, 128) or None,
        actor=_short("actor", actor, 128) or "",
        business_line=_code("business_line", business_line, 64) or "",
        pipeline=pipeline,
    )
