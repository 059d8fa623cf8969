"""django-q2 task entry points: each is a thin wrapper over one service, run with the
clock of the moment. The schedules that call them are declared in the data migrations of
lingix_site/migrations/ (0001_schedules.py, and one migration per schedule added since)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from governance.knowledge.organise.backfill import memories_organise
from governance.lifecycle.evict import memories_decay_and_evict
from governance.lifecycle.expire import memories_expire
from governance.lifecycle.promote import memories_promote
from governance.lifecycle.reflection import reflection_run
from governance.metrics.snapshots import metric_snapshot_take
from governance.write.memory import governed_claims_backfill
from memories.lifecycle.backfill import embeddings_backfill
from memories.lifecycle.vector_log import vector_log_prune


def expire() -> dict[str, Any]:
    return memories_expire(now=timezone.now())


def promote() -> dict[str, Any]:
    return memories_promote(now=timezone.now())


def evict() -> dict[str, Any]:
    return memories_decay_and_evict(now=timezone.now())


def backfill() -> dict[str, Any]:
    return {**embeddings_backfill(now=timezone.now()), "claims": governed_claims_backfill()}


def reflect() -> dict[str, Any]:
    return reflection_run(actor="scheduler", now=timezone.now())


def snapshot() -> dict[str, Any]:
    return {"snapshot_id": metric_snapshot_take(now=timezone.now()).pk}


def organise() -> dict[str, Any]:
    return memories_organise(now=timezone.now())


def vector_log() -> dict[str, Any]:
    return vector_log_prune()
