"""Reads behind the admin dashboard, and the geometry of its inline SVG charts (no
JavaScript: the template only places rectangles whose sizes are computed here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.db.models import Count, Min
from django.db.models.functions import TruncDate
from django.utils import timezone

from governance.constants import Action, ReviewStatus
from governance.models import MemoryEvent, ReviewItem
from memories.constants import Layer, Status
from memories.models import Memory

LAYER_COLOURS = {"L1": "#8e44ad", "L2": "#2980b9", "L3": "#e67e22", "L4": "#27ae60"}
ACTION_COLOURS = {
    Action.WRITE: "#27ae60",
    Action.UPDATE: "#2980b9",
    Action.REJECT: "#c0392b",
    Action.PENDING_REVIEW: "#f39c12",
}
# Open review items by how long they have waited.
AGE_BUCKETS: list[tuple[str, timedelta | None]] = [
    ("< 1h", timedelta(hours=1)),
    ("1–24h", timedelta(hours=24)),
    ("1–3d", timedelta(days=3)),
    ("3–7d", timedelta(days=7)),
    ("> 7d", None),
]


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    colour: str
    title: str


def _days(days: int, today: date) -> list[date]:
    return [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]


def _per_day(queryset, *, field: str, key: str, since: datetime) -> dict[tuple[date, str], int]:
    tz = timezone.get_current_timezone()
    rows = queryset.filter(**{f"{field}__gte": since}).annotate(day=TruncDate(field, tzinfo=tz)).values("day", key).annotate(n=Count("id"))
    return {(row["day"], row[key]): row["n"] for row in rows}


def memory_growth(*, days: int = 14, now: datetime | None = None) -> list[dict[str, Any]]:
    """Memories created per day and layer over the last `days` days (every status: growth
    is what the funnel let in, whatever happened to it since)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    since = now - timedelta(days=days)
    counts = _per_day(Memory.objects.all(), field="created_at", key="layer", since=since)
    return [{"day": day, "counts": {layer.value: counts.get((day, layer.value), 0) for layer in Layer}} for day in _days(days, today)]


def decisions_by_action(*, days: int = 14, now: datetime | None = None) -> list[dict[str, Any]]:
    now = now or timezone.now()
    today = timezone.localdate(now)
    since = now - timedelta(days=days)
    counts = _per_day(MemoryEvent.objects.exclude(action=""), field="created_at", key="action", since=since)
    return [{"day": day, "counts": {action.value: counts.get((day, action.value), 0) for action in Action}} for day in _days(days, today)]


def review_queue_age(*, now: datetime | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    open_items = ReviewItem.objects.filter(status=ReviewStatus.OPEN)
    buckets = {label: 0 for label, _ in AGE_BUCKETS}
    for created_at in open_items.values_list("created_at", flat=True):
        age = now - created_at
        for label, limit in AGE_BUCKETS:
            if limit is None or age < limit:
                buckets[label] += 1
                break
    oldest = open_items.aggregate(oldest=Min("created_at"))["oldest"]
    by_kind = dict(open_items.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    return {
        "open": sum(buckets.values()),
        "buckets": buckets,
        "by_kind": by_kind,
        "oldest_hours": round((now - oldest).total_seconds() / 3600, 1) if oldest else None,
        "decided_today": ReviewItem.objects.filter(decided_at__date=timezone.localdate(now)).count(),
    }


def provider_in_use() -> dict[str, Any]:
    """Which judge decides right now. The offline judge is a deterministic stand-in and must
    be impossible to mistake for an LLM, hence the flag the banner keys on."""
    from django.conf import settings

    from judges.config import ProviderNotConfigured, resolve_provider_name

    try:
        name = resolve_provider_name()
    except ProviderNotConfigured as exc:
        return {"name": None, "error": str(exc), "offline": False}
    info: dict[str, Any] = {"name": name, "error": "", "offline": name == "offline"}
    if name == "openai":
        info["model"] = settings.MEMORY_JUDGE_MODEL
        info["base_url"] = settings.MEMORY_LLM_BASE_URL
    if settings.MEMORY_DOUBTMEM_BASE_URL:
        info["doubtmem_model"] = settings.MEMORY_DOUBTMEM_MODEL
    return info


def guard_and_guardrail_metrics(*, window_days: int = 14) -> dict[str, Any]:
    from governance.metrics.guard import guard_metrics, guardrail_metrics

    return {"guard": guard_metrics(), "guardrail": guardrail_metrics(window_days=window_days)}


def dashboard_data(*, days: int = 14, now: datetime | None = None) -> dict[str, Any]:
    from memories.selectors import memory_status_counts

    now = now or timezone.now()
    counts = memory_status_counts()
    return {
        "days": days,
        "memories": counts["memories"],
        "by_status": counts["by_status"],
        "total": counts["total"],
        "embeddings": counts["embeddings"],
        "active_total": sum(counts["memories"].values()),
        "pending_review_memories": counts["by_status"].get(Status.PENDING_REVIEW, 0),
        "growth": memory_growth(days=days, now=now),
        "decisions": decisions_by_action(days=days, now=now),
        "review": review_queue_age(now=now),
        "provider": provider_in_use(),
        "metrics": guard_and_guardrail_metrics(window_days=days),
    }


# --- chart geometry -------------------------------------------------------------------
def stacked_bars(
    rows: list[dict[str, Any]], *, colours: dict[str, str], width: float = 560, height: float = 140, gap: float = 4
) -> dict[str, Any]:
    """One stacked column per row (a day), segments in the order of `colours`."""
    peak = max((sum(row["counts"].values()) for row in rows), default=0) or 1
    slot = width / max(len(rows), 1)
    bars: list[Bar] = []
    labels = []
    for index, row in enumerate(rows):
        x = index * slot + gap / 2
        top = height
        for key, colour in colours.items():
            n = row["counts"].get(key, 0)
            if not n:
                continue
            h = n / peak * height
            top -= h
            bars.append(
                Bar(
                    x=round(x, 1),
                    y=round(top, 1),
                    width=round(slot - gap, 1),
                    height=round(h, 1),
                    colour=colour,
                    title=f"{row['day']:%m-%d} {key}: {n}",
                )
            )
        labels.append({"x": round(x + (slot - gap) / 2, 1), "text": f"{row['day']:%m-%d}", "total": sum(row["counts"].values())})
    return {"bars": bars, "labels": labels, "width": width, "height": height, "peak": peak, "legend": colours}


def horizontal_bars(
    values: dict[str, int], *, colours: dict[str, str] | None = None, width: float = 360, row_height: float = 22
) -> dict[str, Any]:
    peak = max(values.values(), default=0) or 1
    rows = []
    for index, (label, n) in enumerate(values.items()):
        rows.append(
            {
                "label": label,
                "value": n,
                "y": index * row_height,
                "width": round(n / peak * width, 1),
                "colour": (colours or {}).get(label, "#417690"),
                "text_y": index * row_height + row_height * 0.7,
            }
        )
    return {"rows": rows, "width": width, "height": len(rows) * row_height, "bar_height": row_height - 6}
