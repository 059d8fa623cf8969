"""Reads of the governance app: the review queue, events and their traces."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from governance.constants import ReviewKind, ReviewStatus, SuggestionStatus
from governance.models import MemoryEvent, ReviewItem, Suggestion
from memories.constants import Layer, Status
from memories.exceptions import InvalidInput, NotFound
from memories.models import Memory
from memories.selectors import memory_history
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


def event_get(*, event_id: int) -> MemoryEvent:
    event = MemoryEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise NotFound(f"event {event_id} not found")
    return event


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


def suggestions_open(*, advertisers: tuple[str, ...] | None = None, limit: int = 50) -> list[Suggestion]:
    """Open suggestions whose signal is still live, newest first. `advertisers=None` is the
    operator view; otherwise those advertisers' suggestions plus global ones."""
    now = timezone.now()
    qs = (
        Suggestion.objects.filter(status=SuggestionStatus.OPEN, signal__status=Status.ACTIVE)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .select_related("signal")
        .prefetch_related("strategies", "templates")
    )
    if advertisers is not None:
        qs = qs.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    return list(qs.order_by("-created_at", "-id")[: max(1, min(int(limit), MAX_QUEUE))])


def suggestion_dict(suggestion: Suggestion) -> dict[str, Any]:
    """A suggestion with its signal and its live playbooks, the best-matching first. A
    playbook archived, expired or replaced by a newer version since the suggestion was
    made is left out: an agent would act on it. (The admin's suggestion page still lists
    every playbook recorded, as an audit record.)"""
    reasons = suggestion.reasons or {}
    now = timezone.now()

    def playbook(memory: Memory) -> dict[str, Any]:
        why = reasons.get(str(memory.pk), {})
        return {
            "id": memory.pk,
            "layer": memory.layer,
            "content": memory.content,
            "advertiser": memory.advertiser,
            "category": memory.category,
            "score": why.get("score", 0.0),
            "shared_entities": why.get("shared", []),
        }

    def ranked(memories: Any) -> list[dict[str, Any]]:
        live = (m for m in memories.all() if m.status == Status.ACTIVE and (m.expires_at is None or m.expires_at > now))
        return sorted((playbook(m) for m in live), key=lambda p: (-p["score"], p["id"]))

    signal = suggestion.signal
    return {
        "id": suggestion.pk,
        "kind": suggestion.kind,
        "topic": suggestion.topic,
        "advertiser": suggestion.advertiser,
        "status": suggestion.status,
        "created_at": suggestion.created_at.isoformat(),
        "expires_at": suggestion.expires_at.isoformat() if suggestion.expires_at else None,
        "signal": {
            "id": signal.pk,
            "layer": signal.layer,
            "content": signal.content,
            "advertiser": signal.advertiser,
            "category": signal.category,
            "expires_at": signal.expires_at.isoformat() if signal.expires_at else None,
        },
        "strategies": ranked(suggestion.strategies),
        "templates": ranked(suggestion.templates),
    }


def memory_source(*, memory, advertisers: tuple[str, ...] | None = None) -> dict[str, Any]:
    """What a memory came from: the conversation turns (session id, indices, redacted
    text) kept by the event that wrote it, else that event's raw input. A version made by
    an admin edit or an UPDATE without turns of its own points back along its chain."""
    chain = memory_history(memory=memory)
    older_first = [m.pk for m in chain if m.version <= memory.version]
    # This version first, then the versions it replaced, newest to oldest.
    order = [memory.pk, *reversed([pk for pk in older_first if pk != memory.pk])]
    events = MemoryEvent.objects.filter(memory_id__in=order)
    if advertisers is not None:
        # A global memory is readable by every tenant, the conversation of another tenant's
        # event behind it (an operator's approval) is not.
        events = events.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    events = list(events.order_by("id"))
    ranked = sorted(events, key=lambda e: (order.index(e.memory_id), e.pk))
    chosen = next((e for e in ranked if e.source_turns), None) or next((e for e in ranked if e.raw_text or e.summary), None)
    if chosen is None:
        return {"memory_id": memory.pk, "session_id": None, "turns": [], "raw_text": None, "event_id": None}
    return {
        "memory_id": memory.pk,
        "session_id": chosen.session_id,
        "turns": [
            {"index": int(t.get("index", i)), "role": str(t.get("role", "")), "content": str(t.get("content", ""))}
            for i, t in enumerate(chosen.source_turns or [])
        ],
        "raw_text": chosen.raw_text or chosen.summary or None,
        "event_id": chosen.pk,
    }
