"""Retention decay and capacity eviction.

Two steps, both traced per memory:
1. retier: every active memory outside L1 moves between peripheral, working and core by
   its retention score and use;
2. evict: where an advertiser's active memories in a layer exceed that layer's
   `capacity_per_advertiser`, the lowest-retention ones are archived (never deleted) until
   the count is back at capacity. L1 is never evicted. Global memories (no advertiser)
   count as one scope of their own."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Count

from governance.models import LayerPolicy, Trace
from governance.reasons import reason_columns
from governance.write.hard_rules import Authority
from governance.write.memory import governed_lifecycle_transition, governed_retier
from memories.constants import Layer, Status
from memories.lifecycle.db import BATCH_SIZE, atomic_batch, chunks
from memories.lifecycle.retention import DEFAULT_RETENTION, RetentionConfig, memory_retention, next_tier
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

TIER_STAGE = "lifecycle.tier"
EVICT_STAGE = "lifecycle.evict"
_SCORING_FIELDS = (
    "id",
    "layer",
    "advertiser",
    "tier",
    "importance",
    "confidence",
    "access_count",
    "reinforcement_count",
    "created_at",
    "last_accessed_at",
)


def memories_retier(*, now: datetime, config: RetentionConfig = DEFAULT_RETENTION, batch_size: int = BATCH_SIZE) -> dict[str, Any]:
    ids = list(Memory.objects.filter(status=Status.ACTIVE).exclude(layer=Layer.L1).order_by("id").values_list("id", flat=True))
    moves: dict[str, int] = defaultdict(int)
    for chunk in chunks(ids, batch_size):
        planned = []
        for memory in Memory.objects.filter(pk__in=chunk, status=Status.ACTIVE).only(*_SCORING_FIELDS):
            retention = memory_retention(memory, now=now, config=config)
            target = next_tier(layer=memory.layer, tier=memory.tier, retention=retention, config=config)
            if target != memory.tier:
                planned.append((memory.pk, memory.tier, target, retention))
        if not planned:
            continue

        def apply(planned=planned) -> int:
            traces = []
            for memory_id, old, new, retention in planned:
                # Only if nobody moved it meanwhile (an overlapping run traces it instead).
                if governed_retier(memory_id=memory_id, from_tier=old, to_tier=new, at=now, authority=Authority.lifecycle("scheduler")):
                    traces.append(
                        Trace(
                            memory_id=memory_id,
                            stage=TIER_STAGE,
                            decision=f"{old}->{new}",
                            scores=retention.as_dict(),
                            **reason_columns([_tier_reason(old, new)]),
                            created_at=now,
                        )
                    )
            Trace.objects.bulk_create(traces)
            for trace in traces:
                moves[trace.decision] += 1
            return len(traces)

        atomic_batch(apply)
    return {"evaluated": len(ids), "moved": sum(moves.values()), "moves": dict(moves)}


def _tier_reason(old: str, new: str) -> Reason:
    order = ["peripheral", "working", "core"]
    code = ReasonCode.TIER_UP if order.index(new) > order.index(old) else ReasonCode.TIER_DOWN
    return Reason.of(code, from_tier=old, to_tier=new)


def _capacities() -> dict[str, int]:
    return {
        policy.layer: policy.capacity_per_advertiser
        for policy in LayerPolicy.objects.exclude(layer=Layer.L1).exclude(capacity_per_advertiser__isnull=True)
    }


def memories_evict(*, now: datetime, config: RetentionConfig = DEFAULT_RETENTION, batch_size: int = BATCH_SIZE) -> dict[str, Any]:
    capacities = _capacities()
    archived: list[int] = []
    scopes: list[dict[str, Any]] = []
    for layer, capacity in sorted(capacities.items()):
        over = Memory.objects.filter(status=Status.ACTIVE, layer=layer).values("advertiser").annotate(n=Count("id")).filter(n__gt=capacity)
        for row in over:
            advertiser = row["advertiser"]
            scope = Memory.objects.filter(status=Status.ACTIVE, layer=layer, advertiser=advertiser)
            scored = sorted(
                ((memory_retention(m, now=now, config=config), m.pk) for m in scope.only(*_SCORING_FIELDS)),
                key=lambda pair: (pair[0].score, pair[1]),
            )
            excess = len(scored) - capacity
            victims = scored[:excess]
            cutoff = victims[-1][0].score if victims else None
            scope_archived = 0
            why = reason_columns(
                [
                    Reason.of(ReasonCode.OVER_CAPACITY, layer=layer, scope=advertiser or "global", count=len(scored), capacity=capacity),
                    Reason.of(ReasonCode.LOWEST_RETENTION),
                ]
            )
            for start in range(0, len(victims), batch_size):
                batch = victims[start : start + batch_size]

                def archive(batch=batch, why=why) -> int:
                    retentions = {memory_id: retention for retention, memory_id in batch}
                    moved = governed_lifecycle_transition(
                        memory_ids=list(retentions),
                        from_status=Status.ACTIVE,
                        to_status=Status.ARCHIVED,
                        at=now,
                        authority=Authority.lifecycle("scheduler"),
                        extra={"valid_to": now},
                    )
                    traces = [
                        Trace(
                            memory_id=memory_id,
                            stage=EVICT_STAGE,
                            decision="archived",
                            scores=retentions[memory_id].as_dict(),
                            **why,
                            created_at=now,
                        )
                        for memory_id in moved
                    ]
                    Trace.objects.bulk_create(traces)
                    archived.extend(t.memory_id for t in traces)
                    return len(traces)

                scope_archived += atomic_batch(archive)
            scopes.append(
                {
                    "layer": layer,
                    "advertiser": advertiser,
                    "active": len(scored),
                    "capacity": capacity,
                    "archived": scope_archived,
                    "cutoff_retention": round(cutoff, 4) if cutoff is not None else None,
                }
            )
    return {"archived": len(archived), "scopes": scopes, "memory_ids": archived[:50]}


def memories_decay_and_evict(*, now: datetime, config: RetentionConfig = DEFAULT_RETENTION) -> dict[str, Any]:
    """The scheduled `evict` job: retier first, so eviction scores see the current tiers."""
    tiers = memories_retier(now=now, config=config)
    eviction = memories_evict(now=now, config=config)
    return {"tiers": tiers, **eviction}
