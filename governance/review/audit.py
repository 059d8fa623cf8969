"""Sampled-audit verdicts that change something: a reviewer overturns an automatic REJECT
and writes the refused candidate.

Confirming an automatic decision is `review_approve`; overturning it while keeping the
outcome (a refusal that stays refused, or an automatic write archived) is `review_reject`.
This module holds the one verdict those two cannot express. The write goes through the
one governed write path with the reviewer as the authority, so the hard layer rules and
the deterministic funnel rules apply as they would to any approval."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import Action, AuditEvent, EventStatus, ReviewKind, ReviewStatus
from governance.funnel.errors import L1ApprovalForbidden
from governance.funnel.types import Decision
from governance.models import MemoryEvent, ReviewItem
from governance.reasons import reason_columns, row_reasons
from governance.review.steps import (
    review_candidate_recheck,
    review_item_lock_open,
    review_item_resolve,
    review_reviewer_check,
    review_trace_add,
)
from governance.write.hard_rules import Authority, WriteOrigin
from governance.write.memory import Proposal, governed_write, governed_write_lock
from memories.constants import L1_PERMISSION, Layer, Status
from memories.exceptions import InvalidInput
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode
from textrules.safety import redact


class NotAnAuditedRefusal(InvalidInput):
    """Only a sampled audit of an automatic REJECT has a refused candidate to write."""


def review_can_overturn_write(item: ReviewItem) -> bool:
    """Whether "overturn and write" applies: an open sampled audit of an automatic REJECT
    that recorded the candidate it refused."""
    payload = item.payload or {}
    return (
        item.kind == ReviewKind.SAMPLED_AUDIT
        and payload.get("auto_action") == Action.REJECT
        and isinstance(payload.get("candidate"), dict)
        and bool((payload["candidate"].get("content") or "").strip())
    )


def review_overturn_writes_l1(item: ReviewItem) -> bool:
    """Whether overturning would write an L1 core rule, which only an operator may."""
    return review_can_overturn_write(item) and item.payload["candidate"].get("layer") == Layer.L1


@transaction.atomic
def review_overturn_write(*, item: ReviewItem, reviewer, reviewer_name: str, note: str = "", operator: bool = False) -> Decision:
    """The automatic REJECT was wrong: write the refused candidate as the reviewer's
    decision. The event's trace gains a review row naming the reviewer, the event now
    points at the written memory, and the verdict (decision_correct=False) feeds the guard
    metrics like any audit."""
    planned = (item.payload or {}).get("candidate") or {}
    governed_write_lock(advertiser=planned.get("advertiser", item.advertiser) or None, supersedes_id=planned.get("supersedes"))
    note = redact(note or "").strip()
    item = review_item_lock_open(item)
    name = review_reviewer_check(item, reviewer, reviewer_name)
    if not review_can_overturn_write(item):
        raise NotAnAuditedRefusal(f"review item {item.pk} is not a sampled audit of an automatic REJECT; nothing to write")
    candidate = dict(item.payload["candidate"])
    if not candidate.get("layer"):
        raise InvalidInput(f"review item {item.pk} has no layer to write to; the refusal came before a layer was chosen")
    is_operator = operator or (reviewer is not None and reviewer.has_perm(L1_PERMISSION))
    if review_overturn_writes_l1(item) and not is_operator:
        raise L1ApprovalForbidden(f"review item {item.pk} would write an L1 core rule; only an operator may overturn it")
    candidate = review_candidate_recheck(item, candidate)
    supersedes = None
    if candidate.get("supersedes"):
        supersedes = Memory.objects.filter(pk=candidate["supersedes"], status=Status.ACTIVE).first()
    authority = Authority(origin=WriteOrigin.APPROVAL, actor=name, person=True, operator=is_operator)
    proposal = Proposal.from_payload({**candidate, "confidence": max(float(candidate.get("confidence", 0.5)), 0.8)})
    memory = governed_write(proposal=proposal, authority=authority, supersedes=supersedes)
    action = Action.UPDATE if memory.supersedes_id else Action.WRITE
    reasons = [Reason.of(ReasonCode.AUDIT_OVERTURNED, reviewer=name, action=action, layer=memory.layer, id=memory.pk)]
    if note:
        reasons.append(Reason.of(ReasonCode.NOTE, note=note))
    review_item_resolve(item, status=ReviewStatus.APPROVED, reviewer=reviewer, name=name, note=note, decision_correct=False)
    item.memory = memory
    item.save(update_fields=["memory"])
    review_trace_add(
        item,
        decision=action,
        reasons=reasons,
        memory=memory,
        scores={"review_item_id": item.pk, "reviewer": name, "kind": item.kind, "overturned": "REJECT"},
    )
    event = item.event
    if event is not None:
        MemoryEvent.objects.filter(pk=event.pk).update(
            status=EventStatus.RESOLVED,
            action=action,
            memory=memory,
            decided_layer=memory.layer,
            **reason_columns([*row_reasons(event), *reasons]),
            decided_at=timezone.now(),
        )
    audit_record(
        event_type=AuditEvent.REVIEW_OVERTURNED,
        actor=name,
        target=item,
        extra={"kind": item.kind, "auto_action": Action.REJECT, "memory_id": memory.pk, "note": note},
    )
    return Decision(
        action=action, layer=memory.layer, memory_id=memory.pk, event_id=item.event_id, **reason_columns(reasons), review_item_id=item.pk
    )
