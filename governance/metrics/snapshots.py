"""Periodic metric snapshots: one row per run, the dashboard's time series.

Each row stores counts as they were at `now`, so a chart over snapshots shows how the
memory and the queue evolved even after rows change status later."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count

from governance.constants import ReviewStatus
from governance.models import MemoryEvent, MetricSnapshot, ReviewItem
from memories.constants import Layer, Status, Tier
from memories.lifecycle.db import atomic_batch
from memories.models import Memory


def _memory_counts() -> dict[str, Any]:
    by_layer = {layer.value: 0 for layer in Layer}
    by_status = {status.value: 0 for status in Status}
    by_tier = {tier.value: 0 for tier in Tier}
    for row in Memory.objects.values("layer", "status").annotate(n=Count("id")):
        by_status[row["status"]] += row["n"]
        if row["status"] == Status.ACTIVE:
            by_layer[row["layer"]] += row["n"]
    for row in Memory.objects.filter(status=Status.ACTIVE).values("tier").annotate(n=Count("id")):
        by_tier[row["tier"]] += row["n"]
    return {"active_by_layer": by_layer, "by_status": by_status, "active_by_tier": by_tier, "total": sum(by_status.values())}


def metrics_collect(*, now: datetime) -> dict[str, Any]:
    from governance.metrics.guard import guard_metrics, guardrail_metrics
    from memories.embeddings.store import stale_embedding_q

    since = now - timedelta(hours=24)
    actions = dict(
        MemoryEvent.objects.filter(created_at__gt=since, created_at__lte=now, action__gt="")
        .values_list("action")
        .annotate(n=Count("id"))
        .values_list("action", "n")
    )
    open_reviews = dict(
        ReviewItem.objects.filter(status=ReviewStatus.OPEN).values_list("kind").annotate(n=Count("id")).values_list("kind", "n")
    )
    memories = _memory_counts()
    missing = Memory.objects.filter(stale_embedding_q()).count()
    return {
        "memories": memories,
        "embeddings_missing_or_stale": missing,
        "events_24h": actions,
        "open_reviews": open_reviews,
        "guard": guard_metrics(),
        "guardrail": guardrail_metrics(),
    }


def metric_snapshot_take(*, now: datetime) -> MetricSnapshot:
    metrics = metrics_collect(now=now)
    return atomic_batch(lambda: MetricSnapshot.objects.create(taken_at=now, metrics=metrics))
