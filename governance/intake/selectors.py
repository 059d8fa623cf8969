"""Reads of events and of the turns a memory came from."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from governance.models import MemoryEvent
from memories.exceptions import NotFound
from memories.selectors import memory_history

MAX_QUEUE = 500


def event_get(*, event_id: int) -> MemoryEvent:
    event = MemoryEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise NotFound(f"event {event_id} not found")
    return event


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
