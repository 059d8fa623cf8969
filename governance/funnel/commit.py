"""The last two stages: commit the decision (memory write, reinforcement or parking),
then pick a deterministic sample of automatic decisions for human audit. Both run
inside the write transaction, after every other stage."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from django.utils import timezone

from governance.constants import EventStatus, ReviewKind
from governance.funnel.model_relations import stage_relations
from governance.funnel.pipeline import (
    FunnelContext,
    always,
    settle,
    stage_classify,
    stage_conflict,
    stage_guard_rules,
    stage_judge,
    stage_layer_policy,
    stage_provenance,
    stage_safety,
    stage_validate,
    stage_value,
)
from governance.funnel.types import StageOutcome
from governance.models import MemoryEvent, ReviewItem
from governance.reasons import reason_columns, review_reason_columns
from governance.write.hard_rules import Authority
from governance.write.memory import Proposal, governed_reinforce, governed_write
from memories.constants import Layer
from textrules.reasons import Reason, ReasonCode


def _review_kind(ctx: FunnelContext) -> str:
    conflict_parked = ctx.outcomes and ctx.outcomes[-1].stage == "conflict"
    return ReviewKind.CONFLICT if conflict_parked and ctx.candidate.conflict_kind == "contradiction" else ReviewKind.PENDING_WRITE


@always
def stage_commit(ctx: FunnelContext) -> StageOutcome:
    # Timed like the other stages: it runs under the write lock, so its time is the lock's.
    started = time.perf_counter()
    settle(ctx)
    c, event = ctx.candidate, ctx.event
    scores: dict[str, Any] = {}
    if ctx.final in {"WRITE", "UPDATE"}:
        supersedes = c.conflict_with if ctx.final == "UPDATE" else None
        ctx.memory = governed_write(
            proposal=Proposal.from_payload(c.as_payload()),
            authority=Authority.funnel(event.actor),
            # A new version may inherit a category the probe was not embedded with.
            supersedes=supersedes,
            vector=c.probe if supersedes is None else None,
        )
        scores.update(memory_id=ctx.memory.pk, version=ctx.memory.version, importance=ctx.memory.importance)
        if ctx.memory.expires_at:
            scores["expires_at"] = ctx.memory.expires_at.isoformat()
        event.status = EventStatus.DECIDED
    elif ctx.final == "PENDING_REVIEW":
        ctx.review_item = ReviewItem.objects.create(
            kind=_review_kind(ctx),
            event=event,
            layer=c.layer or "",
            advertiser=c.advertiser,
            related_memory=c.conflict_with if c.conflict_kind == "contradiction" else None,
            **review_reason_columns(ctx.reasons),
            proposed_by=event.actor,
            payload={
                "candidate": c.as_payload() if c.layer else {**c.as_payload(), "layer": ""},
                "auto_action": "PENDING_REVIEW",
                **reason_columns(ctx.reasons),
            },
        )
        scores["review_item_id"] = ctx.review_item.pk
        event.status = EventStatus.PARKED
    else:
        if c.conflict_kind == "duplicate" and c.conflict_with is not None:
            governed_reinforce(memory=c.conflict_with, authority=Authority.funnel(event.actor))
            scores["reinforced"] = c.conflict_with.pk
        event.status = EventStatus.DECIDED
    event.action = ctx.final
    event.decided_layer = c.layer or ""
    columns = reason_columns(ctx.reasons)
    event.reasons, event.reason_codes = columns["reasons"], columns["reason_codes"]
    event.decided_at = timezone.now()
    event.memory = ctx.memory
    MemoryEvent.objects.filter(pk=event.pk).update(
        status=event.status,
        action=event.action,
        decided_layer=event.decided_layer or "",
        **columns,
        decided_at=event.decided_at,
        memory=event.memory,
        event_type=event.event_type,
    )
    outcome = StageOutcome("decision", ctx.final, list(ctx.reasons), scores)
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


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
        kind=ReviewKind.SAMPLED_AUDIT,
        event=ctx.event,
        memory=ctx.memory,
        layer=ctx.candidate.layer or "",
        advertiser=ctx.candidate.advertiser,
        **review_reason_columns([Reason.of(ReasonCode.SAMPLED_AUDIT_OF, action=ctx.final)]),
        proposed_by=ctx.event.actor,
        payload={"auto_action": ctx.final, **reason_columns(ctx.reasons), "candidate": ctx.candidate.as_payload()},
    )
    return StageOutcome(
        "sampled_audit",
        "SAMPLED",
        [Reason.of(ReasonCode.PICKED_FOR_AUDIT)],
        {"review_item_id": item.pk, "draw": round(draw, 4), "rate": rate},
    )


# Deterministic stages come before every stage that may call a model.
DEFAULT_PIPELINE = [
    stage_safety,
    stage_provenance,
    stage_classify,
    stage_guard_rules,
    stage_value,
    stage_judge,
    stage_relations,
    stage_layer_policy,
    stage_conflict,
    stage_validate,
    stage_commit,
    stage_sampled_audit,
]
