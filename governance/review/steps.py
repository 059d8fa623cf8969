"""The steps every review decision shares, whichever service makes it (approve, reject,
overturn an audit): lock the open item, check who decides, re-run the deterministic
rules on a parked candidate, resolve the item, and add the review row to the trace."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from governance.constants import ReviewStatus
from governance.funnel import pipeline as p
from governance.funnel import validate as validate_stage
from governance.funnel.errors import ReviewNotOpen, RuleRefusedApproval, SelfReviewForbidden
from governance.funnel.rules import deterministic_refusals
from governance.models import LayerPolicy, ReviewItem, Trace
from governance.traces import trace_create
from memories.exceptions import InvalidInput
from memories.models import Memory
from textrules.reasons import Reason


def review_item_lock_open(item: ReviewItem) -> ReviewItem:
    fresh = ReviewItem.objects.select_for_update().get(pk=item.pk)
    if fresh.status != ReviewStatus.OPEN:
        raise ReviewNotOpen(f"review item {fresh.pk} is already {fresh.status}")
    return fresh


def review_reviewer_check(item: ReviewItem, reviewer, reviewer_name: str) -> str:
    name = (reviewer_name or getattr(reviewer, "get_username", lambda: "")() or "").strip()
    if not name:
        raise InvalidInput("a reviewer name is required")
    names = {name}
    if reviewer is not None:
        names.add(reviewer.get_username())
    if (reviewer is not None and item.proposed_by_user_id == reviewer.pk) or (item.proposed_by and item.proposed_by in names):
        raise SelfReviewForbidden(f"{name} proposed review item {item.pk} and may not decide it")
    return name


def review_trace_add(item: ReviewItem, *, decision: str, reasons: list[Reason], memory: Memory | None, scores: dict[str, Any]) -> None:
    if item.event_id is None:
        return
    seq = (Trace.objects.filter(event_id=item.event_id).order_by("-seq").values_list("seq", flat=True).first() or 0) + 1
    trace_create(event_id=item.event_id, memory=memory, seq=seq, stage="review", decision=decision, reasons=reasons, scores=scores)


def review_item_resolve(item: ReviewItem, *, status: str, reviewer, name: str, note: str, decision_correct: bool | None) -> None:
    item.status = status
    item.reviewer = reviewer if getattr(reviewer, "pk", None) else None
    item.reviewer_name = name[:150]
    item.note = note
    item.decision_correct = decision_correct
    item.decided_at = timezone.now()
    item.save(update_fields=["status", "reviewer", "reviewer_name", "note", "decision_correct", "decided_at"])


def review_candidate_recheck(item: ReviewItem, candidate: dict[str, Any]) -> dict[str, Any]:
    """The deterministic rules run again on a parked candidate: an outage may have parked
    it before they ran, and a person's approval does not make an unconfirmed suggestion,
    a hedge or an ungrounded figure true. A candidate parked before the quality stage gets
    its importance scored now, rather than written with the default."""
    c = p.candidate_from_payload(candidate)
    reasons = deterministic_refusals(c)
    if reasons:
        raise RuleRefusedApproval(f"review item {item.pk} cannot be approved: " + "; ".join(r.english() for r in reasons))
    traces = {t.stage: t.scores for t in item.event.traces.all()} if item.event else {}
    if "validate" in traces:
        return candidate
    c.grounding = candidate.get("grounding") or c.grounding
    met = int((traces.get("value") or {}).get("met", 0) or 0)
    policy = LayerPolicy.objects.filter(layer=c.layer).first()
    importance = validate_stage.validate(c, policy, met).scores["importance"]
    return {**candidate, "importance": importance}
