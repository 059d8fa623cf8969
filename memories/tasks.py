"""django-q2 task entry points: each is a thin wrapper over one service, run with the
clock of the moment. The schedules that call them are declared in migration 0003."""
from __future__ import annotations

from typing import Any

from django.utils import timezone


def expire() -> dict[str, Any]:
    from memories.lifecycle.expire import memories_expire

    return memories_expire(now=timezone.now())


def promote() -> dict[str, Any]:
    from memories.lifecycle.promote import memories_promote

    return memories_promote(now=timezone.now())


def evict() -> dict[str, Any]:
    from memories.lifecycle.evict import memories_decay_and_evict

    return memories_decay_and_evict(now=timezone.now())


def backfill() -> dict[str, Any]:
    from memories.lifecycle.backfill import embeddings_backfill

    return embeddings_backfill(now=timezone.now())


def reflect() -> dict[str, Any]:
    from governance.reflection import reflection_run

    return reflection_run(actor="scheduler", now=timezone.now())


def snapshot() -> dict[str, Any]:
    from governance.snapshots import metric_snapshot_take

    return {"snapshot_id": metric_snapshot_take(now=timezone.now()).pk}
