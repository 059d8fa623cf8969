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
    text) kept by the event that wrote this version, else that event's raw input. Only a
    version no event wrote (an admin edit) points back along its chain: a version written
    from text never shows the turns an older version came from."""
    chain = memory_history(memory=memory, advertisers=advertisers)
    older_first = [m.pk for m in chain if m.version <= memory.version]
    # This version first, then the versions it replaced, newest to oldest.
    order = [memory.pk, *reversed([pk for pk in older_first if pk != memory.pk])]
    events = MemoryEvent.objects.filter(memory_id__in=order)
    if advertisers is not None:
        # A global memory is readable by every tenant, the conversation of another tenant's
        # event behind it (an operator's approval) is not.
        events = events.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    events = list(events.order_by("id"))
    own = [e for e in events if e.source_turns or e.raw_text or e.summary]
    nearest = min((order.index(e.memory_id) for e in own), default=None)
    mine = [e for e in own if order.index(e.memory_id) == nearest]
    chosen = next((e for e in mine if e.source_turns), None) or next(iter(mine), None)
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
