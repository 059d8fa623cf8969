"""Writes of the governance app: events through the write funnel, and the review queue.

Model calls (classification, value, judge) run before the write transaction, so no
database lock is held while a gateway answers. Everything after them — the event row,
every stage's trace, the memory write or the parked review item, the sampled audit —
commits in one transaction, or not at all."""

from __future__ import annotations

import json
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import Action, EventKind, EventStatus, ReviewKind, ReviewStatus, TriggerType
from governance.funnel import pipeline as p
from governance.funnel.commit import DEFAULT_PIPELINE
from governance.funnel.errors import (
    EmptyInput,
    InputTooLarge,
    L1ApprovalForbidden,
    NoteRequired,
    ReviewNotOpen,
    SelfReviewForbidden,
    UnknownEventType,
    UnknownLayer,
    UnknownSource,
)
from governance.funnel.rules import claim_turns
from governance.funnel.types import Decision, StageOutcome
from governance.hard_rules import Authority, WriteOrigin
from governance.memory_write import Proposal, governed_set_status, governed_write
from governance.models import LayerPolicy, MemoryEvent, ReviewItem, Trace
from governance.providers.config import get_judge, get_provider
from governance.review_log import review_log_entry
from governance.review_steps import (
    review_candidate_recheck,
    review_item_lock_open,
    review_item_resolve,
    review_reviewer_check,
    review_trace_add,
)
from governance.safety import redact, scan_data, scan_text
from governance.selectors import review_writes_l1
from governance.tuning import max_text_chars
from memories.constants import L1_PERMISSION, LAYER_CODES, Source, Status
from memories.exceptions import InvalidInput
from memories.metrics_registry import record_decision
from memories.models import Memory
from memories.services import memory_write_lock

__all__ = [
    "Decision",
    "event_ingest",
    "event_trigger",
    "event_submit",
    "review_approve",
    "review_reject",
    "review_item_create",
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


def _clean_text(name: str, text: Any, *, required: bool) -> str:
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise InvalidInput(f"{name} must be a string")
    text = text.strip()
    if required and not text:
        raise EmptyInput(f"{name} is empty")
    if len(text) > max_text_chars():
        raise InputTooLarge(f"{name} is {len(text)} characters; the limit is {max_text_chars()}")
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
        reasons=trace.reasons,
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
        reasons=list(event.reasons or []),
        stages=[_trace_dict(t) for t in event.traces.order_by("seq", "id")],
        review_item_id=review.pk if review else None,
        replayed=replayed,
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
) -> Decision:
    """Run one already-validated event through the funnel. `pipeline` is the seam for
    tests and experiments; callers normally leave it alone. `turns` (role-tagged, with
    their index in the conversation) are what the memory is about: the attribution rules
    read them and the event keeps them, redacted, as the memory's source."""
    found = _existing(actor, idempotency_key)
    if found is not None and found.action:
        return decision_for_event(found, replayed=True)

    # Credentials are cut out and personal data masked before anything is stored or shown to a judge.
    text_scan, summary_scan, content_scan = scan_text(raw_text), scan_text(summary), scan_text(content)
    clean_data, data_findings = scan_data(data or {})
    findings = text_scan + summary_scan + content_scan + data_findings

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
    stages = list(DEFAULT_PIPELINE if pipeline is None else pipeline)
    outside, inside = p.split(stages)
    p.run_stages(ctx, outside)

    with transaction.atomic():
        memory_write_lock()
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
        p.flush_traces(ctx)
        p.run_stages(ctx, inside)
        if ctx.event.action == "":
            # A custom pipeline without a commit stage still leaves a decided event.
            p.settle(ctx)
            MemoryEvent.objects.filter(pk=event.pk).update(
                action=ctx.final, reasons=ctx.reasons, status=EventStatus.DECIDED, decided_at=timezone.now()
            )
    event.refresh_from_db()
    record_decision(action=event.action, stage=ctx.decided_by or "commit")
    return decision_for_event(event)


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
    if sum(len(t["content"]) for t in turns) > max_text_chars():
        raise InputTooLarge(f"messages hold more than {max_text_chars()} characters")
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
) -> Decision:
    """Free text, or a role-tagged conversation, classified into a trigger type first,
    then the funnel. With messages, attribution comes from the roles, not from `source`,
    and the event keeps the turns (and `session_id`) the memory came from."""
    turns: list[dict[str, str]] = []
    if messages is not None:
        if text:
            raise InvalidInput("give either text or messages, not both")
        conversation = _clean_messages(messages)
        turns = claim_turns(conversation)
        text = "\n".join(t["content"] for t in turns)
        raw = "\n".join(f"{t['role']}: {t['content']}" for t in conversation)
        source = Source.USER if turns[-1]["role"] == "user" else Source.ASSISTANT
    else:
        text = _clean_text("text", text, required=True)
        raw = text
    return event_submit(
        kind=EventKind.INGEST,
        content=text,
        raw_text=raw,
        advertiser=_short("advertiser", advertiser, 64) or None,
        source=_clean_source(source),
        layer=_clean_layer(layer),
        idempotency_key=_short("idempotency_key", idempotency_key, 128) or None,
        actor=_short("actor", actor, 128) or "",
        business_line=_short("business_line", business_line, 64) or "",
        pipeline=pipeline,
        turns=turns,
        session_id=_short("session_id", session_id, 200) or None,
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
        advertiser=_short("advertiser", advertiser, 64) or None,
        source=_clean_source(source),
        layer=_clean_layer(layer),
        idempotency_key=_short("idempotency_key", idempotency_key, 128) or None,
        actor=_short("actor", actor, 128) or "",
        business_line=_short("business_line", business_line, 64) or "",
        pipeline=pipeline,
    )


# --- review queue ----------------------------------------------------------------------
def review_item_create(
    *,
    kind: str,
    reason: str,
    event: MemoryEvent | None = None,
    memory: Memory | None = None,
    related_memory: Memory | None = None,
    layer: str = "",
    advertiser: str | None = None,
    candidate: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
    proposed_by: str = "",
    proposed_by_user=None,
) -> ReviewItem:
    """Open a review item (promotion proposals, reflection findings, …).

    `candidate` is what approval writes, in the shape of Candidate.as_payload():
    at least {"content", "layer"}; for a promotion, `memory` is the L2 source and the
    written L4 memory records it in derived_from. An item without a candidate only
    records the reviewer's verdict."""
    if kind not in {choice.value for choice in ReviewKind}:
        raise InvalidInput(f"unknown review kind {kind!r}")
    body, _ = scan_data(dict(payload or {}))
    if candidate is not None:
        candidate, _ = scan_data(candidate)
        if not candidate.get("content") or candidate.get("layer") not in LAYER_CODES:
            raise InvalidInput("a review candidate needs content and a layer L1-L4")
        body["candidate"] = candidate
    return ReviewItem.objects.create(
        kind=kind,
        reason=redact(reason),
        event=event,
        memory=memory,
        related_memory=related_memory,
        layer=layer or (candidate or {}).get("layer", ""),
        advertiser=advertiser if advertiser is not None else (memory.advertiser if memory else None),
        payload=body,
        proposed_by=proposed_by,
        proposed_by_user=proposed_by_user,
    )


@transaction.atomic
def review_approve(
    *, item: ReviewItem, reviewer, reviewer_name: str, note: str = "", decision_correct: bool | None = None, operator: bool = False
) -> Decision:
    """Approve: a parked candidate is written through the funnel's own write path, and
    the event's trace gains a row naming the reviewer. A sampled audit is confirmed.

    An L1 candidate needs an operator: a user with memories.edit_l1_memory, or
    `operator=True` from the server's own CLI (shell access is operator access)."""
    memory_write_lock()
    note = redact(note or "")
    item = review_item_lock_open(item)
    name = review_reviewer_check(item, reviewer, reviewer_name)
    candidate = (item.payload or {}).get("candidate")
    event = item.event
    memory = None
    action = event.action if event else ""
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        decision_correct = True if decision_correct is None else decision_correct
        reasons = [f"sampled audit: automatic {action} confirmed by reviewer {name}"]
        memory = item.memory
    elif candidate:
        if not candidate.get("layer"):
            raise InvalidInput(f"review item {item.pk} has no layer to write to; reject it or re-send with a layer")
        is_operator = operator or (reviewer is not None and reviewer.has_perm(L1_PERMISSION))
        if review_writes_l1(item) and not is_operator:
            raise L1ApprovalForbidden(f"review item {item.pk} would write an L1 core rule; only an operator may approve it")
        if item.kind in {ReviewKind.PENDING_WRITE, ReviewKind.CONFLICT}:
            candidate = review_candidate_recheck(item, candidate)
        supersedes = None
        if candidate.get("supersedes"):
            supersedes = Memory.objects.filter(pk=candidate["supersedes"], status=Status.ACTIVE).first()
        promotion = item.kind == ReviewKind.PROMOTION
        derived = [item.memory] if promotion and item.memory is not None else []
        if item.kind == ReviewKind.CONSOLIDATION:
            # The semantic memory links back to every episode it was drawn from.
            derived = list(Memory.objects.filter(pk__in=(item.payload or {}).get("source_ids") or []))
        authority = Authority(
            origin=WriteOrigin.PROMOTION if promotion else WriteOrigin.APPROVAL, actor=name, person=True, operator=is_operator
        )
        proposal = Proposal.from_payload({**candidate, "confidence": max(float(candidate.get("confidence", 0.5)), 0.8)})
        memory = governed_write(proposal=proposal, authority=authority, supersedes=supersedes, derived_from=derived)
        action = Action.UPDATE if memory.supersedes_id else Action.WRITE
        reasons = [f"approved by reviewer {name}: {action} to {memory.layer} as memory #{memory.pk}"]
    else:
        reasons = [f"acknowledged by reviewer {name}"]
    if note:
        reasons.append(f"note: {note}")
    review_item_resolve(item, status=ReviewStatus.APPROVED, reviewer=reviewer, name=name, note=note, decision_correct=decision_correct)
    review_trace_add(
        item,
        decision=action or "APPROVED",
        reasons=reasons,
        memory=memory,
        scores={"review_item_id": item.pk, "reviewer": name, "kind": item.kind},
    )
    if event is not None and item.kind != ReviewKind.SAMPLED_AUDIT and memory is not None:
        MemoryEvent.objects.filter(pk=event.pk).update(
            status=EventStatus.RESOLVED,
            action=action,
            memory=memory,
            decided_layer=memory.layer,
            reasons=[*(event.reasons or []), *reasons],
            decided_at=timezone.now(),
        )
    audit_record(
        event_type="review.approved",
        actor=name,
        target=item,
        extra={"kind": item.kind, "memory_id": getattr(memory, "pk", None), "note": note},
    )
    review_log_entry(item=item, reviewer=reviewer, message=reasons[0])
    transaction.on_commit(lambda: record_decision(action=action or "APPROVED", stage="review"))
    return Decision(
        action=action,
        layer=(memory.layer if memory else item.layer) or None,
        memory_id=getattr(memory, "pk", None),
        event_id=item.event_id,
        reasons=reasons,
        review_item_id=item.pk,
    )


@transaction.atomic
def review_reject(*, item: ReviewItem, reviewer, reviewer_name: str, note: str, decision_correct: bool | None = None) -> Decision:
    """Reject: nothing is written; the verdict is recorded. Rejecting a sampled audit of
    an automatic write means the write was wrong, so that memory is archived."""
    if not (note or "").strip():
        raise NoteRequired("a rejection needs a note saying why")
    note = redact(note)
    item = review_item_lock_open(item)
    name = review_reviewer_check(item, reviewer, reviewer_name)
    event = item.event
    reasons = [f"rejected by reviewer {name}", f"note: {note.strip()}"]
    memory = None
    action = "REJECT"
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        decision_correct = False if decision_correct is None else decision_correct
        auto = (item.payload or {}).get("auto_action", "")
        action = auto or "REJECT"
        if auto in {"WRITE", "UPDATE"} and item.memory is not None and item.memory.status == Status.ACTIVE:
            memory = governed_set_status(
                memory=item.memory,
                status=Status.ARCHIVED,
                authority=Authority(
                    origin=WriteOrigin.APPROVAL, actor=name, person=True, operator=reviewer is None or reviewer.has_perm(L1_PERMISSION)
                ),
            )
            reasons.insert(1, f"automatic {auto} judged wrong: memory #{memory.pk} archived")
        else:
            reasons.insert(1, f"automatic {auto} judged wrong")
    review_item_resolve(
        item, status=ReviewStatus.REJECTED, reviewer=reviewer, name=name, note=note.strip(), decision_correct=decision_correct
    )
    review_trace_add(
        item, decision="REJECT", reasons=reasons, memory=memory, scores={"review_item_id": item.pk, "reviewer": name, "kind": item.kind}
    )
    if event is not None and item.kind in {ReviewKind.PENDING_WRITE, ReviewKind.CONFLICT}:
        MemoryEvent.objects.filter(pk=event.pk).update(
            status=EventStatus.RESOLVED, action="REJECT", reasons=[*(event.reasons or []), *reasons], decided_at=timezone.now()
        )
    audit_record(event_type="review.rejected", actor=name, target=item, extra={"kind": item.kind, "note": note.strip()})
    review_log_entry(item=item, reviewer=reviewer, message="; ".join(reasons[:2]))
    transaction.on_commit(lambda: record_decision(action="REJECT", stage="review"))
    return Decision(
        action=action, layer=item.layer or None, memory_id=None, event_id=item.event_id, reasons=reasons, review_item_id=item.pk
    )
