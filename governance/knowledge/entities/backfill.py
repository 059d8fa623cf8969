"""Entity links for memories written before links existed (or by a path that stored none):
the organise backfill calls `memories_link_backfill`, in short transactions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from governance.knowledge.entities.link import link_entities_bulk
from governance.models import MemoryEvent
from memories.lifecycle.db import atomic_batch, chunks
from memories.models import Memory


def memories_unlinked_ids() -> list[int]:
    return list(Memory.objects.filter(entity_links__isnull=True).order_by("id").values_list("id", flat=True))


def _link_chunk(ids: list[int]) -> int:
    # The event that wrote a memory names its trigger type, so its typed fields are read.
    trigger_types = dict(MemoryEvent.objects.filter(memory_id__in=ids).exclude(event_type="").values_list("memory_id", "event_type"))
    memories = list(Memory.objects.filter(pk__in=ids, entity_links__isnull=True).defer("embedding"))
    link_entities_bulk(memories, trigger_types=trigger_types)
    return len(memories)


def memories_link_backfill(*, batch_size: int = 200, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Link every memory that has no entity link yet. A memory that names no entity stays
    unlinked and is looked at again next run (cheap: offline extraction only)."""
    pending = memories_unlinked_ids()
    done = 0
    for chunk in chunks(pending, batch_size):
        done += atomic_batch(lambda chunk=chunk: _link_chunk(chunk))
        if progress:
            progress(len(chunk))
    return {"examined": done, "still_unlinked": len(memories_unlinked_ids())}
