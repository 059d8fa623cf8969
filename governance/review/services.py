"""Writes of the review queue: opening an item, and a reviewer's approval or rejection,
each atomic with its trace, audit row and admin log entry."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import Action, AuditEvent, EventStatus, ReviewKind, ReviewStatus
from governance.funnel.errors import (
    L1ApprovalForbidden,
    NoteRequired,
)
from governance.funnel.types import Decision
from governance.models import MemoryEvent, ReviewItem
from governance.reasons import reason_columns, review_reason_columns, row_reasons
from governance.review.log import review_log_entry
from governance.review.selectors import review_writes_l1
from governance.review.steps import (
    review_candidate_recheck,
    review_item_lock_open,
    review_item_resolve,
    review_reviewer_check,
    review_trace_add,
)
from governance.write.hard_rules import Authority, WriteOrigin
from governance.write.memory import Proposal, governed_set_status, governed_write, governed_write_lock
from memories.constants import L1_PERMISSION, LAYER_CODES, Status
from memories.exceptions import InvalidInput
from memories.metrics_registry import record_decision
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode, as_reason
from textrules.safety import redact, scan_data


def review_item_create(
    *,
    kind: str,
    reason: Reason | str,
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
    records the reviewer's verdict. A `reason` given as a string is shown as written."""
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
        **review_reason_columns([as_reason(reason)]),
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
    planned = (item.payload or {}).get("candidate") or {}
    governed_write_lock(advertiser=planned.get("advertiser", item.advertiser) or None, supersedes_id=planned.get("supersedes"))
    note = redact(note or "")
    item = review_item_lock_open(item)
    name = review_reviewer_check(item, reviewer, reviewer_name)
    candidate = (item.payload or {}).get("candidate")
    event = item.event
    memory = None
    action = event.action if event else ""
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        decision_correct = True if decision_correct is None else decision_correct
        reasons = [Reason.of(ReasonCode.AUDIT_CONFIRMED, action=action, reviewer=name)]
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
        reasons = [Reason.of(ReasonCode.APPROVED, reviewer=name, action=action, layer=memory.layer, id=memory.pk)]
    else:
        reasons = [Reason.of(ReasonCode.ACKNOWLEDGED, reviewer=name)]
    if note:
        reasons.append(Reason.of(ReasonCode.NOTE, note=note))
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
            **reason_columns([*row_reasons(event), *reasons]),
            decided_at=timezone.now(),
        )
    audit_record(
        event_type=AuditEvent.REVIEW_APPROVED,
        actor=name,
        target=item,
        extra={"kind": item.kind, "memory_id": getattr(memory, "pk", None), "note": note},
    )
    review_log_entry(item=item, reviewer=reviewer, message=reasons[0].english())
    transaction.on_commit(lambda: record_decision(action=action or "APPROVED", stage="review"))
    return Decision(
        action=action,
        layer=(memory.layer if memory else item.layer) or None,
        memory_id=getattr(memory, "pk", None),
        event_id=item.event_id,
        **reason_columns(reasons),
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
    reasons = [Reason.of(ReasonCode.REJECTED, reviewer=name), Reason.of(ReasonCode.NOTE, note=note.strip())]
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
            reasons.insert(1, Reason.of(ReasonCode.AUTO_WRONG_ARCHIVED, action=auto, id=memory.pk))
        else:
            reasons.insert(1, Reason.of(ReasonCode.AUTO_WRONG, action=auto))
    review_item_resolve(
        item, status=ReviewStatus.REJECTED, reviewer=reviewer, name=name, note=note.strip(), decision_correct=decision_correct
    )
    review_trace_add(
        item, decision="REJECT", reasons=reasons, memory=memory, scores={"review_item_id": item.pk, "reviewer": name, "kind": item.kind}
    )
    if event is not None and item.kind in {ReviewKind.PENDING_WRITE, ReviewKind.CONFLICT}:
        MemoryEvent.objects.filter(pk=event.pk).update(
            status=EventStatus.RESOLVED, action="REJECT", **reason_columns([*row_reasons(event), *reasons]), decided_at=timezone.now()
        )
    audit_record(event_type=AuditEvent.REVIEW_REJECTED, actor=name, target=item, extra={"kind": item.kind, "note": note.strip()})
    review_log_entry(item=item, reviewer=reviewer, message="; ".join(r.english() for r in reasons[:2]))
    transaction.on_commit(lambda: record_decision(action="REJECT", stage="review"))
    return Decision(
        action=action,
        layer=item.layer or None,
        memory_id=None,
        event_id=item.event_id,
        **reason_columns(reasons),
        review_item_id=item.pk,
    )
