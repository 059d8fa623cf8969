"""Organise memories written before kinds, categories and abstracts existed: the same
decisions the governed write makes, for every row that lacks one of them, in short
transactions, then one refresh of every category touched."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db.models import Q

from governance.knowledge.entities.backfill import memories_link_backfill
from governance.knowledge.organise import category_refresh, organise_fields
from governance.models import MemoryEvent
from governance.write.memory import governed_organise
from memories.lifecycle.db import atomic_batch, chunks
from memories.models import Memory


def unorganised_q() -> Q:
    return Q(kind="") | Q(category_node__isnull=True) | Q(abstract_line="")


def memories_unorganised_count() -> int:
    return Memory.objects.filter(unorganised_q()).count()


def _organise_chunk(ids: list[int], touched: set[int]) -> int:
    memories = list(Memory.objects.filter(pk__in=ids).defer("embedding"))
    # The event that wrote a memory names its trigger type; the typed fields then read its data.
    trigger_types = dict(MemoryEvent.objects.filter(memory_id__in=ids).exclude(event_type="").values_list("memory_id", "event_type"))
    for memory in memories:
        organised = organise_fields(
            content=memory.content,
            layer=memory.layer,
            advertiser=memory.advertiser,
            trigger_type=trigger_types.get(memory.pk, ""),
            data=memory.data,
            category=memory.category,
            business_line=memory.business_line,
            kind=memory.kind,
        )
        governed_organise(memory=memory, **organised.model_fields())
        touched.update(n for n in (organised.node.pk, memory.category_node_id) if n)
    return len(memories)


def memories_organise(
    *, now: datetime | None = None, batch_size: int = 200, progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Give every memory lacking a kind, a category or abstracts all three, and entity links
    to every memory that has none. A kind that is
    already set is kept (a person or a consolidation may have set it)."""
    pending = list(Memory.objects.filter(unorganised_q()).order_by("id").values_list("id", flat=True))
    touched: set[int] = set()
    done = 0
    for chunk in chunks(pending, batch_size):
        done += atomic_batch(lambda chunk=chunk: _organise_chunk(chunk, touched))
        if progress:
            progress(len(chunk))
    refreshed = atomic_batch(lambda: category_refresh(touched)) if touched else 0
    # Entity links are part of being organised; memories from before links existed get theirs here.
    links = memories_link_backfill(batch_size=batch_size)
    return {"organised": done, "categories_refreshed": refreshed, "remaining": memories_unorganised_count(), "entities": links}
