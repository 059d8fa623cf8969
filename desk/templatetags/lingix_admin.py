"""The dashboard block on the admin index. Data comes from desk.dashboard; this tag
only checks who may see it and hands the numbers and chart geometry to the template."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import zone_label
from desk.admin.reasons import choice
from desk.admin.review_start import review_start
from desk.dashboard import ACTION_COLOURS, LAYER_COLOURS, dashboard_data, horizontal_bars, stacked_bars
from governance.constants import ReviewKind
from governance.knowledge.selectors import suggestion_dict, suggestions_open
from memories.constants import Status

register = template.Library()

DASHBOARD_PERMISSIONS = ("memories.view_memory", "governance.view_reviewitem")


@register.inclusion_tag("admin/lingix/dashboard.html", takes_context=True)
def lingix_dashboard(context):
    request = context["request"]
    if not all(request.user.has_perm(p) for p in DASHBOARD_PERMISSIONS):
        return {"visible": False}
    data = dashboard_data()
    decisions = stacked_bars(data["decisions"], colours={k.value if hasattr(k, "value") else k: v for k, v in ACTION_COLOURS.items()})
    return {
        "start": review_start(),
        # Memory statuses that hold any memory: a "pending review 0" beside a queue of review
        # items read as a contradiction (memories wait in review only as L1 proposals).
        "status_rows": [(Status(k).label if k in Status.values else k, number(n), k, n) for k, n in data["by_status"].items() if n],
        "kind_rows": [(ReviewKind(k).label if k in ReviewKind.values else k, number(n)) for k, n in data["review"]["by_kind"].items()],
        "kind_counts": [(k, n) for k, n in data["review"]["by_kind"].items()],
        "kpi": {
            "active": number(data["active_total"]),
            "layers": [(layer, number(n), n) for layer, n in data["memories"].items()],
            "open": number(data["review"]["open"]),
            "decided_today": number(data["review"]["decided_today"]),
            "total": number(data["total"]),
            "embedded": number(data["embeddings"]["current"]),
        },
        "visible": True,
        "data": data,
        "layers_chart": horizontal_bars(data["memories"], colours=LAYER_COLOURS),
        "growth_chart": stacked_bars(data["growth"], colours=LAYER_COLOURS),
        "decisions_chart": {**decisions, "legend": {choice(k): colour for k, colour in decisions["legend"].items()}},
        "queue_chart": horizontal_bars(data["review"]["buckets"], width=300),
        "queue_url": "admin:governance_reviewitem_changelist",
        "guard_rows": metric_rows(data["metrics"]["guard"]),
        "guardrail_rows": metric_rows(data["metrics"]["guardrail"]),
        "suggestions": [suggestion_dict(s) for s in suggestions_open(limit=6)],
    }


# Ratios the metrics services return as 0..1 fractions.
RATIO_KEYS = {"precision", "recall", "false_rejection_rate", "reject_rate", "pending_rate", "growth_rate"}


METRIC_LABELS = {
    "audited": _("sampled decisions reviewed"),
    "true_writes": _("writes judged right"),
    "false_writes": _("writes judged wrong"),
    "true_rejects": _("rejects judged right"),
    "false_rejects": _("rejects judged wrong"),
    "precision": _("precision of writes"),
    "recall": _("recall of writes"),
    "false_rejection_rate": _("false rejection rate"),
    "parked_reviewed": _("parked items decided"),
    "parked_approved": _("parked items approved"),
    "open_reviews": _("open review items"),
    "window_days": _("window (days)"),
    "decisions": _("decisions"),
    "by_action": _("by action"),
    "reject_rate": _("share rejected"),
    "pending_rate": _("share sent to review"),
    "memories_created": _("memories created"),
    "memories_before_window": _("memories before the window"),
    "growth_rate": _("growth rate"),
    "growth_per_day": _("new memories per day"),
}


def number(value: int | float) -> str:
    """A count with thousands separators (12,480); a non-integer with one decimal (3.6)."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def metric_rows(metrics: dict) -> list[tuple[str, str, bool]]:
    """(name, shown value, is a headline ratio) for a metrics dict."""
    rows = []
    for key, value in metrics.items():
        if value is None:
            shown = "—"
        elif key in RATIO_KEYS:
            shown = f"{float(value) * 100:.1f}%"
        elif isinstance(value, dict):
            shown = " · ".join(f"{choice(k)} {number(v) if isinstance(v, (int, float)) else v}" for k, v in value.items())
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            shown = number(value)
        else:
            shown = str(value)
        rows.append((METRIC_LABELS.get(key, key), shown, key in RATIO_KEYS))
    return rows


@register.simple_tag
def lingix_time_zone() -> str:
    """The configured zone with its offset, e.g. Asia/Shanghai (UTC+08:00)."""
    return zone_label()
