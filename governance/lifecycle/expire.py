"""L3 expiry: real-time signals past their TTL become `expired`.

They stay in the table for audit (and in export); search already hides anything past
expires_at, and this job makes the status say so."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count

from governance.knowledge.suggestions import suggestions_expire
from governance.models import Trace
from governance.reasons import reason_columns
from governance.write.hard_rules import Authority
from governance.write.memory import governed_lifecycle_transition
from memories.constants import Layer, Status
from memories.lifecycle.db import BATCH_SIZE, atomic_batch
from memories.models import Memory
from memories.timefmt import iso_local
from textrules.reasons import Reason, ReasonCode

STAGE = "lifecycle.expire"


def memories_expire(*, now: datetime, batch_size: int = BATCH_SIZE, actor: str = "scheduler") -> dict[str, Any]:
    """Expire every active memory whose expires_at has passed, batch by batch; each batch
    is one short transaction holding its status change and its trace row."""
    expired_ids: list[int] = []
    by_layer: dict[str, int] = {}
    batches = 0
    while True:
        due = list(
            Memory.objects.filter(status=Status.ACTIVE, expires_at__isnull=False, expires_at__lte=now)
            .order_by("expires_at", "id")
            .values_list("id", flat=True)[:batch_size]
        )
        if not due:
            break

        def expire_batch(due: list[int] = due) -> list[int]:
            # The selection above may be stale: a concurrent supersede, review or another
            # expiry run may have moved a row since. Only the rows this transition changed
            # are reported and traced, so overlapping runs record each expiry once.
            moved = governed_lifecycle_transition(
                memory_ids=due,
                from_status=Status.ACTIVE,
                to_status=Status.EXPIRED,
                at=now,
                authority=Authority.lifecycle(actor),
                expired_by=now,
                extra={"valid_to": now},
            )
            if not moved:
                return []
            layers = dict(Memory.objects.filter(pk__in=moved).values_list("layer").annotate(n=Count("id")).values_list("layer", "n"))
            Trace.objects.create(
                stage=STAGE,
                decision="expired",
                **reason_columns([Reason.of(ReasonCode.EXPIRED_AT, when=iso_local(now)), Reason.of(ReasonCode.RUN_BY, actor=actor)]),
                scores={"count": len(moved), "memory_ids": moved, "by_layer": layers},
                created_at=now,
            )
            for layer, n in layers.items():
                by_layer[layer] = by_layer.get(layer, 0) + n
            return moved

        done = atomic_batch(expire_batch)
        batches += 1
        expired_ids.extend(done)
        if len(due) < batch_size:
            break
    return {
        "expired": len(expired_ids),
        "suggestions_expired": suggestions_expire(now=now, actor=actor),
        "by_layer": {layer: by_layer.get(layer, 0) for layer in (Layer.L1, Layer.L2, Layer.L3, Layer.L4) if by_layer.get(layer)},
        "batches": batches,
        "memory_ids": expired_ids[:50],
    }
