"""The last two stages: commit the decision (memory write, reinforcement or parking),
then pick a deterministic sample of automatic decisions for human audit. Both run
inside the write transaction, after every other stage."""
from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import numpy as np
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from governance.constants import EventStatus, ReviewKind
from governance.funnel.pipeline import (
    FunnelContext,
    always,
    settle,
    stage_classify,
    stage_conflict,
    stage_guard_rules,
    stage_judge,
    stage_layer_policy,
    stage_safety,
    stage_validate,
    stage_value,
)
from governance.funnel.types import StageOutcome
from governance.models import LayerPolicy, MemoryEvent, ReviewItem
from memories.constants import Layer, Status, Tier
from memories.embeddings import get_embedder
from memories.models import Memory
from memories.services import memory_create, memory_reinforce, memory_store_vectors, memory_supersede

TIER_BY_LAYER = {Layer.L1: Tier.CORE, Layer.L2: Tier.WORKING, Layer.L3: Tier.PERIPHERAL, Layer.L4: Tier.CORE}


def l3_expiry():
    policy = LayerPolicy.objects.filter(layer=Layer.L3).first()
    hours = policy.default_ttl_hours if policy and policy.default_ttl_hours else 24
    return timezone.now() + timedelta(hours=hours)


def write_payload(*, payload: dict[str, Any], supersedes: Memory | None = None, derived_from: list[Memory] | None = None, vector=None) -> Memory:
    """Write a candidate as a memory: the one write path shared by the funnel and by
    reviewers' approvals. L3 gets its TTL here, at write time. `vector` is the
    candidate's embedding when the conflict stage already computed it (same text, same
    model), which saves embedding it a second time after commit."""
    layer = payload["layer"]
    observed = payload.get("observed_at")
    observed_at = parse_datetime(observed) if isinstance(observed, str) else None
    fields = dict(
        layer=layer,
        data=payload.get("data") or {},
        advertiser=payload.get("advertiser") or None,
        business_line=payload.get("business_line") or "",
        category=(payload.get("category") or "")[:64],
        source=payload.get("source") or "agent",
        source_attribution=payload.get("source_attribution") or "unknown",
        grounding=payload.get("grounding") or "unknown",
        importance=max(0.0, min(10.0, float(payload.get("importance", 5.0)))),
        confidence=max(0.0, min(1.0, float(payload.get("confidence", 0.5)))),
        tier=TIER_BY_LAYER.get(layer, Tier.WORKING),
        observed_at=observed_at if layer == Layer.L3 else None,
        expires_at=l3_expiry() if layer == Layer.L3 else None,
    )
    embed = vector is None
    if supersedes is not None and supersedes.status == Status.ACTIVE:
        memory = memory_supersede(old=supersedes, content=payload["content"], embed=embed, **fields)
    else:
        memory = memory_create(content=payload["content"], embed=embed, **fields)
    if vector is not None:
        memory_store_vectors([memory], [np.asarray(vector, dtype=np.float32)], get_embedder().model_name)
    if derived_from:
        memory.derived_from.add(*derived_from)
    return memory


def _review_kind(ctx: FunnelContext) -> str:
    conflict_parked = ctx.outcomes and ctx.outcomes[-1].stage == "conflict"
    return ReviewKind.CONFLICT if conflict_parked and ctx.candidate.conflict_kind == "contradiction" else ReviewKind.PENDING_WRITE


@always
def stage_commit(ctx: FunnelContext) -> StageOutcome:
    settle(ctx)
    c, event = ctx.candidate, ctx.event
    scores: dict[str, Any] = {}
    if ctx.final in {"WRITE", "UPDATE"}:
        supersedes = c.conflict_with if ctx.final == "UPDATE" else None
        ctx.memory = write_payload(payload=c.as_payload(), supersedes=supersedes, vector=c.probe)
        scores.update(memory_id=ctx.memory.pk, version=ctx.memory.version, importance=ctx.memory.importance)
        if ctx.memory.expires_at:
            scores["expires_at"] = ctx.memory.expires_at.isoformat()
        event.status = EventStatus.DECIDED
    elif ctx.final == "PENDING_REVIEW":
        ctx.review_item = ReviewItem.objects.create(
            kind=_review_kind(ctx), event=event, layer=c.layer or "", advertiser=c.advertiser,
            related_memory=c.conflict_with if c.conflict_kind == "contradiction" else None,
            reason="; ".join(ctx.reasons)[:2000], proposed_by=event.actor,
            payload={"candidate": c.as_payload() if c.layer else {**c.as_payload(), "layer": ""}, "auto_action": "PENDING_REVIEW", "reasons": ctx.reasons},
        )
        scores["review_item_id"] = ctx.review_item.pk
        event.status = EventStatus.PARKED
    else:
        if c.conflict_kind == "duplicate" and c.conflict_with is not None:
            memory_reinforce(memory=c.conflict_with)
            scores["reinforced"] = c.conflict_with.pk
        event.status = EventStatus.DECIDED
    event.action = ctx.final
    event.decided_layer = c.layer or ""
    event.reasons = ctx.reasons
    event.decided_at = timezone.now()
    event.memory = ctx.memory
    MemoryEvent.objects.filter(pk=event.pk).update(
        status=event.status, action=event.action, decided_layer=event.decided_layer or "", reasons=event.reasons,
        decided_at=event.decided_at, memory=event.memory, event_type=event.event_type,
    )
    return StageOutcome("decision", ctx.final, list(ctx.reasons), scores)


def audit_draw(event_id: int) -> float:
    """A fixed number in [0, 1) per event: the same event is always in or out of the sample."""
    digest = hashlib.sha256(f"sampled-audit:{event_id}".encode()).hexdigest()
    return int(digest[:8], 16) / 2**32


@always
def stage_sampled_audit(ctx: FunnelContext) -> StageOutcome | None:
    if ctx.final not in {"WRITE", "UPDATE", "REJECT"} or ctx.parked_by_provider:
        return None
    policy = ctx.policies.get(ctx.candidate.layer or Layer.L2)
    rate = policy.sampled_audit_rate if policy else 0.0
    draw = audit_draw(ctx.event.pk)
    if draw >= rate:
        return None
    item = ReviewItem.objects.create(
        kind=ReviewKind.SAMPLED_AUDIT, event=ctx.event, memory=ctx.memory, layer=ctx.candidate.layer or "",
        advertiser=ctx.candidate.advertiser, reason=f"sampled audit of an automatic {ctx.final}",
        proposed_by=ctx.event.actor,
        payload={"auto_action": ctx.final, "reasons": ctx.reasons, "candidate": ctx.candidate.as_payload()},
    )
    return StageOutcome("sampled_audit", "SAMPLED", [f"picked for human audit (draw {draw:.4f} < rate {rate})"], {"review_item_id": item.pk})


DEFAULT_PIPELINE = [
    stage_safety, stage_classify, stage_value, stage_guard_rules, stage_judge,
    stage_layer_policy, stage_conflict, stage_validate, stage_commit, stage_sampled_audit,
]
