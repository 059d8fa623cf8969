"""Reads of the review queue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q, QuerySet

from governance.constants import AuditEvent, EventKind, ReviewKind, ReviewStatus
from governance.models import AuditLog, MemoryEvent, ReviewItem
from governance.reasons import row_reasons
from governance.write.hard_rules import WriteOrigin
from memories.constants import Layer
from memories.exceptions import InvalidInput, NotFound
from memories.models import Memory
from memories.timefmt import iso_local
from textrules.reasons import ReasonCode

MAX_QUEUE = 500


def review_queue(
    *,
    status: str | None = ReviewStatus.OPEN,
    kind: str | None = None,
    advertisers: tuple[str, ...] | None = None,
    limit: int = 50,
) -> QuerySet[ReviewItem]:
    """Review items, oldest first. `advertisers=None` is the operator view; otherwise
    only those advertisers' items plus global ones."""
    if status is not None and status not in {c.value for c in ReviewStatus}:
        raise InvalidInput(f"unknown review status {status!r}")
    qs = ReviewItem.objects.select_related("event", "memory", "related_memory").order_by("created_at", "id")
    if status is not None:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    if advertisers is not None:
        qs = qs.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    return qs[: max(1, min(int(limit), MAX_QUEUE))]


def review_item_get(*, item_id: int, advertisers: tuple[str, ...] | None = None) -> ReviewItem:
    qs = ReviewItem.objects.select_related("event", "memory")
    if advertisers is not None:
        qs = qs.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    item = qs.filter(pk=item_id).first()
    if item is None:
        raise NotFound(f"review item {item_id} not found")
    return item


def review_writes_l1(item: ReviewItem) -> bool:
    """Whether approving the item would write an L1 core rule, which only an operator may."""
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        return False
    return ((item.payload or {}).get("candidate") or {}).get("layer") == Layer.L1


def review_item_dict(item: ReviewItem) -> dict[str, Any]:
    candidate = (item.payload or {}).get("candidate") or {}
    return {
        "id": item.pk,
        "kind": item.kind,
        "status": item.status,
        "layer": item.layer or None,
        "advertiser": item.advertiser,
        "reason": item.reason,
        "needs_operator": review_writes_l1(item),
        "content": candidate.get("content") or (item.memory.content if item.memory else ""),
        "auto_action": (item.payload or {}).get("auto_action"),
        "event_id": item.event_id,
        "memory_id": item.memory_id,
        "related_memory_id": item.related_memory_id,
        "proposed_by": item.proposed_by,
        "reviewer": item.reviewer_name or None,
        "note": item.note,
        "decision_correct": item.decision_correct,
        "created_at": iso_local(item.created_at),
        "decided_at": iso_local(item.decided_at),
    }


# What kind of event wrote a version, when no person's review decided it.
_EVENT_ORIGIN = {EventKind.ADMIN_EDIT: WriteOrigin.ADMIN_EDIT, EventKind.IMPORT: WriteOrigin.IMPORT}


def version_deciders(*, versions: Sequence[Memory]) -> dict[int, dict[str, Any]]:
    """Who decided each version, by id: the reviewer whose approval wrote it (or who
    overturned an automatic refusal), the person who edited it, the operator who imported
    it, or the funnel on its own; with the note they left. Confirming a sampled audit is
    not deciding (it said an automatic write was right): memory_reviews lists those.

    Each entry: origin (a WriteOrigin, or None when no event was recorded), by, note, at,
    review_item_id, event_id."""
    ids = [v.pk for v in versions]
    approvals: dict[int, AuditLog] = {}
    audits = (
        AuditLog.objects.filter(event_type__in=[AuditEvent.REVIEW_APPROVED, AuditEvent.REVIEW_OVERTURNED], extra_data__memory_id__in=ids)
        .exclude(event_type=AuditEvent.REVIEW_APPROVED, extra_data__kind=ReviewKind.SAMPLED_AUDIT)
        .order_by("created_at", "id")
    )
    for row in audits:
        approvals[int(row.extra_data["memory_id"])] = row  # the latest approval wins
    events: dict[int, MemoryEvent] = {}
    for event in MemoryEvent.objects.filter(memory_id__in=ids).order_by("-id"):
        events[event.memory_id] = event  # the first event that wrote it wins
    out: dict[int, dict[str, Any]] = {}
    for version in versions:
        approval, event = approvals.get(version.pk), events.get(version.pk)
        if approval is not None:
            out[version.pk] = {
                "origin": WriteOrigin.PROMOTION if approval.extra_data.get("kind") == ReviewKind.PROMOTION else WriteOrigin.APPROVAL,
                "by": approval.actor,
                "note": str(approval.extra_data.get("note") or ""),
                "at": iso_local(approval.created_at),
                "review_item_id": int(approval.target_id) if approval.target_id.isdigit() else None,
                "event_id": getattr(event, "pk", None),
            }
        elif event is not None:
            note = next((str(r.params.get("note", "")) for r in row_reasons(event) if r.code == ReasonCode.NOTE), "")
            out[version.pk] = {
                "origin": _EVENT_ORIGIN.get(event.kind, WriteOrigin.FUNNEL),
                "by": event.actor,
                "note": note,
                "at": iso_local(event.decided_at or event.created_at),
                "review_item_id": None,
                "event_id": event.pk,
            }
        else:
            out[version.pk] = {"origin": None, "by": "", "note": "", "at": None, "review_item_id": None, "event_id": None}
    return out


def memory_reviews(*, memory_ids: Sequence[int]) -> list[ReviewItem]:
    """The review items about these memories, open or decided, oldest first: the item that
    parked, promoted or audited one, a conflict one was the target of, and the items of the
    events that wrote them."""
    about = Q(memory_id__in=memory_ids) | Q(related_memory_id__in=memory_ids) | Q(event__memory_id__in=memory_ids)
    return list(ReviewItem.objects.filter(about).distinct().order_by("created_at", "id"))
