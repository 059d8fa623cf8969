"""The dashboard block on the admin index. Data comes from governance.dashboard; this tag
only checks who may see it and hands the numbers and chart geometry to the template."""
from __future__ import annotations

from django import template

from governance.dashboard import ACTION_COLOURS, LAYER_COLOURS, dashboard_data, horizontal_bars, stacked_bars

register = template.Library()

DASHBOARD_PERMISSIONS = ("memories.view_memory", "governance.view_reviewitem")


@register.inclusion_tag("admin/lingix/dashboard.html", takes_context=True)
def lingix_dashboard(context):
    request = context["request"]
    if not all(request.user.has_perm(p) for p in DASHBOARD_PERMISSIONS):
        return {"visible": False}
    data = dashboard_data()
    return {
        "visible": True,
        "data": data,
        "layers_chart": horizontal_bars(data["memories"], colours=LAYER_COLOURS),
        "growth_chart": stacked_bars(data["growth"], colours=LAYER_COLOURS),
        "decisions_chart": stacked_bars(data["decisions"], colours={k.value if hasattr(k, "value") else k: v for k, v in ACTION_COLOURS.items()}),
        "queue_chart": horizontal_bars(data["review"]["buckets"], width=300),
        "queue_url": "admin:governance_reviewitem_changelist",
    }


@register.filter
def percent(value):
    if value is None or value == "":
        return "—"
    try:
        return f"{float(value) * 100:.1f}%"
    except (TypeError, ValueError):
        return value
