"""Controlled promotion: mature L2 strategy memories become L4 skill templates.

This module is the only writer of L4. A memory is mature when, by the L2 row of
LayerPolicy (the policy of the layer it leaves):
- it is active (so not superseded, not expired, not archived),
- it is at least `promotion_min_age_days` old,
- it was recalled or reinforced at least `promotion_min_recalls` times in total,
- its importance is at least `promotion_min_importance`,
- its grounding is not `unsupported`,
- no open conflict review item involves it,
- it was not promoted before, and no promotion of it is waiting or was refused.

By default a promotion only opens a `promotion` review item that carries the template
as its candidate; the reviewer's approval writes it (governance.review.services.review_approve). With `auto_promote` set on the L2 policy the template is written
at once. Either way a MemoryEvent(kind=promotion) with its traces records what happened,
and the template links back to its source through `derived_from`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from governance.constants import Action, EventKind, EventStatus, ReviewKind, ReviewStatus
from governance.models import LayerPolicy, MemoryEvent, ReviewItem, Trace
from governance.reasons import reason_columns
from governance.review.services import review_item_create
from governance.write.hard_rules import Authority, WriteOrigin, mature_l2
from governance.write.memory import Proposal, governed_write, governed_write_lock
from memories.constants import Attribution, Layer, Source
from memories.exceptions import InvalidInput
from memories.lifecycle.db import atomic_batch
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

STAGE = "lifecycle.promote"
TEMPLATE_PREFIX = "策略模板："


def _policy():
    policy = LayerPolicy.objects.filter(layer=Layer.L2).first()
    if policy is None:
        raise InvalidInput("no L2 layer policy: run migrations")
    return policy


def promotion_candidates(*, now: datetime, policy=None) -> QuerySet[Memory]:
    policy = policy or _policy()
    conflicted = ReviewItem.objects.filter(kind=ReviewKind.CONFLICT, status=ReviewStatus.OPEN)
    promotion_settled = ReviewItem.objects.filter(
        kind=ReviewKind.PROMOTION, status__in=[ReviewStatus.OPEN, ReviewStatus.REJECTED], memory__isnull=False
    )
    return (
        mature_l2(Memory.objects.all(), now=now, policy=policy)
        .exclude(pk__in=conflicted.filter(memory__isnull=False).values("memory_id"))
        .exclude(pk__in=conflicted.filter(related_memory__isnull=False).values("related_memory_id"))
        .exclude(pk__in=promotion_settled.values("memory_id"))
        .exclude(pk__in=Memory.derived_from.through.objects.filter(from_memory__layer=Layer.L4).values("to_memory_id"))
        .order_by("-importance", "created_at", "id")
    )


def _criteria(memory: Memory, policy, now: datetime) -> dict[str, Any]:
    return {
        "age_days": round((now - memory.created_at).total_seconds() / 86400, 2),
        "min_age_days": policy.promotion_min_age_days,
        "recalls": memory.access_count,
        "reinforcements": memory.reinforcement_count,
        "min_recalls": policy.promotion_min_recalls,
        "importance": memory.importance,
        "min_importance": policy.promotion_min_importance,
        "grounding": memory.grounding,
    }


def template_content(source: Memory) -> str:
    content = source.content
    return content if content.startswith(TEMPLATE_PREFIX) else f"{TEMPLATE_PREFIX}{content}"


def template_candidate(source: Memory) -> dict[str, Any]:
    """The L4 memory a promotion writes, in the funnel's candidate shape, so an approval
    in the review queue and an automatic promotion write through the same path."""
    return {
        "content": template_content(source),
        "layer": Layer.L4,
        "advertiser": source.advertiser,
        "business_line": source.business_line,
        "category": source.category,
        "source": Source.SYSTEM,
        "source_attribution": Attribution.PROMOTION,
        "grounding": source.grounding,
        "confidence": source.confidence,
        "importance": source.importance,
        "data": {**(source.data or {}), "promoted_from": [source.pk]},
    }


def _write_template(*, source: Memory, actor: str) -> Memory:
    return governed_write(
        proposal=Proposal.from_payload(template_candidate(source)),
        authority=Authority.lifecycle(f"lifecycle:{actor}", origin=WriteOrigin.PROMOTION),
        derived_from=[source],
    )


def _event(*, source: Memory, actor: str, now: datetime, criteria: dict[str, Any], auto: bool):
    return MemoryEvent.objects.create(
        kind=EventKind.PROMOTION,
        source=Source.SYSTEM,
        actor=f"lifecycle:{actor}",
        advertiser=source.advertiser,
        business_line=source.business_line,
        requested_layer=Layer.L4,
        raw_text=source.content,
        summary=f"promote L2 #{source.pk} to an L4 template",
        data={"source_ids": [source.pk], "criteria": criteria},
        status=EventStatus.DECIDED if auto else EventStatus.PARKED,
        action=Action.WRITE if auto else Action.PENDING_REVIEW,
        decided_layer=Layer.L4,
        **reason_columns(
            [Reason.of(ReasonCode.PROMOTION_MATURE), Reason.of(ReasonCode.AUTO_PROMOTION if auto else ReasonCode.PROMOTION_WAITS)]
        ),
        provider="lifecycle",
        created_at=now,
        decided_at=now,
    )


def _promote_one(*, memory_id: int, policy, actor: str, now: datetime) -> dict[str, Any] | None:
    # Hold the source's scope, then re-read: a concurrent review, supersede, eviction or an
    # overlapping promotion run may have taken the memory out of the running since the
    # candidate query (a run that waited here sees the other's template and stops).
    scope = list(Memory.objects.filter(pk=memory_id).values_list("advertiser", flat=True))
    if not scope:
        return None
    governed_write_lock(advertiser=scope[0])
    source = promotion_candidates(now=now, policy=policy).filter(pk=memory_id).first()
    if source is None:
        return None
    criteria = _criteria(source, policy, now)
    auto = bool(policy.auto_promote)
    event = _event(source=source, actor=actor, now=now, criteria=criteria, auto=auto)
    Trace.objects.create(
        event=event,
        memory=source,
        seq=1,
        stage=STAGE,
        decision="eligible",
        scores=criteria,
        **reason_columns([Reason.of(ReasonCode.PROMOTION_ELIGIBLE), Reason.of(ReasonCode.NO_OPEN_CONFLICT)]),
        provider="lifecycle",
        created_at=now,
    )
    if auto:
        template = _write_template(source=source, actor=actor)
        event.memory = template
        event.save(update_fields=["memory"])
        Trace.objects.create(
            event=event,
            memory=template,
            seq=2,
            stage=STAGE,
            decision="WRITE",
            **reason_columns([Reason.of(ReasonCode.TEMPLATE_WRITTEN, id=template.pk, source_id=source.pk)]),
            provider="lifecycle",
            created_at=now,
        )
        return {"source_id": source.pk, "template_id": template.pk, "event_id": event.pk, "action": "WRITE"}
    item = review_item_create(
        kind=ReviewKind.PROMOTION,
        event=event,
        memory=source,
        layer=Layer.L4,
        advertiser=source.advertiser,
        reason=Reason.of(ReasonCode.PROMOTION_PROPOSED, id=source.pk),
        candidate=template_candidate(source),
        payload={"source_ids": [source.pk], "criteria": criteria},
        proposed_by=f"lifecycle:{actor}",
    )
    Trace.objects.create(
        event=event,
        memory=source,
        seq=2,
        stage=STAGE,
        decision="PENDING_REVIEW",
        **reason_columns([Reason.of(ReasonCode.PROMOTION_ITEM_OPENED, id=item.pk)]),
        provider="lifecycle",
        created_at=now,
    )
    return {"source_id": source.pk, "review_item_id": item.pk, "event_id": event.pk, "action": "PENDING_REVIEW"}


def memories_promote(*, now: datetime, actor: str = "scheduler", limit: int = 100) -> dict[str, Any]:
    policy = _policy()
    ids = list(promotion_candidates(now=now, policy=policy).values_list("id", flat=True)[:limit])
    outcomes = []
    for memory_id in ids:
        outcome = atomic_batch(lambda memory_id=memory_id: _promote_one(memory_id=memory_id, policy=policy, actor=actor, now=now))
        if outcome:
            outcomes.append(outcome)
    return {
        "candidates": len(ids),
        "promoted": sum(1 for o in outcomes if o["action"] == "WRITE"),
        "proposed": sum(1 for o in outcomes if o["action"] == "PENDING_REVIEW"),
        "auto_promote": bool(policy.auto_promote),
        "outcomes": outcomes[:50],
    }
