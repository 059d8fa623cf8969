"""Reads of the review queue."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from governance.constants import ReviewKind, ReviewStatus
from governance.models import ReviewItem
from memories.constants import Layer
from memories.exceptions import InvalidInput, NotFound
from memories.timefmt import iso_local

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
