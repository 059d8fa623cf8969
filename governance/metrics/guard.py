"""Guard quality and guardrail figures, computed from stored rows only (for the
dashboard, the API and MetricSnapshot)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Count
from django.utils import timezone

from governance.constants import Action, ReviewKind, ReviewStatus
from governance.models import MemoryEvent, ReviewItem
from memories.models import Memory


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def guard_metrics() -> dict[str, Any]:
    """Precision and recall of automatic writes, and the false-rejection rate, from the
    sampled audits people have decided. An audited WRITE/UPDATE judged right is a true
    write, judged wrong a false write; an audited REJECT judged wrong is a missed write."""
    rows = ReviewItem.objects.filter(kind=ReviewKind.SAMPLED_AUDIT, decision_correct__isnull=False).exclude(status=ReviewStatus.OPEN)
    tp = fp = tn = fn = 0
    for payload, correct in rows.values_list("payload", "decision_correct"):
        auto = (payload or {}).get("auto_action")
        if auto in {Action.WRITE, Action.UPDATE}:
            tp, fp = tp + bool(correct), fp + (not correct)
        elif auto == Action.REJECT:
            tn, fn = tn + bool(correct), fn + (not correct)
    parked = ReviewItem.objects.filter(kind__in=[ReviewKind.PENDING_WRITE, ReviewKind.CONFLICT]).exclude(status=ReviewStatus.OPEN)
    return {
        "audited": tp + fp + tn + fn,
        "true_writes": tp,
        "false_writes": fp,
        "true_rejects": tn,
        "false_rejects": fn,
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "false_rejection_rate": _ratio(fn, fn + tn),
        "parked_reviewed": parked.count(),
        "parked_approved": parked.filter(status=ReviewStatus.APPROVED).count(),
        "open_reviews": ReviewItem.objects.filter(status=ReviewStatus.OPEN).count(),
    }


def guardrail_metrics(window_days: int = 7) -> dict[str, Any]:
    """REJECT rate of decisions and the growth of memory over the last `window_days`."""
    window_days = max(1, int(window_days))
    now = timezone.now()
    start = now - timedelta(days=window_days)
    by_action = {a.value: 0 for a in Action}
    for row in MemoryEvent.objects.filter(created_at__gte=start).exclude(action="").values("action").annotate(n=Count("id")):
        by_action[row["action"]] = row["n"]
    decided = sum(by_action.values())
    created = Memory.objects.filter(created_at__gte=start).count()
    before = Memory.objects.filter(created_at__lt=start).count()
    return {
        "window_days": window_days,
        "decisions": decided,
        "by_action": by_action,
        "reject_rate": _ratio(by_action[Action.REJECT], decided),
        "pending_rate": _ratio(by_action[Action.PENDING_REVIEW], decided),
        "memories_created": created,
        "memories_before_window": before,
        "growth_rate": _ratio(created, before) if before else None,
        "growth_per_day": round(created / window_days, 3),
    }
