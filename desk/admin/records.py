"""Append-only records: the audit log, reflection reports and metric snapshots."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin
from desk.admin.filters import labelled_filter
from desk.admin.list_cells import user_data
from desk.admin.readable import readable
from governance.models import AuditLog, MetricSnapshot, ReflectionReport


def model_label(target_type: str) -> str:
    """An audit row's target ("governance.reviewitem") as the model's name in the reader's language."""
    if not target_type:
        return "—"
    try:
        return str(apps.get_model(target_type)._meta.verbose_name)
    except (LookupError, ValueError):
        return target_type


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "event_type", "actor_shown", "target_type_shown", "target_link", "extra_excerpt")
    list_filter = ("event_type", labelled_filter("target_type", _("target type"), model_label))
    search_fields = ("event_type", "actor", "target_id")
    date_hierarchy = "created_at"

    @admin.display(description=_("actor"), ordering="actor")
    def actor_shown(self, obj):
        return user_data(obj.actor) if obj.actor else "—"

    @admin.display(description=_("target type"), ordering="target_type")
    def target_type_shown(self, obj):
        return model_label(obj.target_type)

    @admin.display(description=_("target"))
    def target_link(self, obj):
        if not obj.target_type or not obj.target_id:
            return "—"
        app_label, _dot, model_name = obj.target_type.partition(".")
        try:
            url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.target_id])
        except Exception:  # a target type with no admin page is shown as text
            return f"{model_label(obj.target_type)} #{obj.target_id}"
        return format_html('<a href="{}">#{}</a>', url, obj.target_id)

    @admin.display(description=_("details"))
    def extra_excerpt(self, obj):
        return readable(obj.extra_data)

    def get_fields(self, request, obj=None):
        return ("created_at", "event_type", "actor_shown", "target_type_shown", "target_link", "extra_excerpt")

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)


@admin.register(ReflectionReport)
class ReflectionReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "window_days", "summary_shown")
    fields = ("created_at", "window_days", "summary_shown", "findings_shown")
    readonly_fields = fields

    @admin.display(description=_("summary"))
    def summary_shown(self, obj):
        # Rendered from the findings' counts: the stored summary is the CLI's English line.
        findings = obj.findings or {}
        counts = findings.get("counts") or {}
        return gettext(
            "%(stale)s stale, %(contradictions)s contradictions, %(rejects)s repeated rejections in %(days)s days; "
            "%(opened)s review items opened, %(consolidations)s consolidations proposed or waiting"
        ) % {
            "stale": counts.get("stale", 0),
            "contradictions": counts.get("contradictions", 0),
            "rejects": counts.get("repeated_rejects", 0),
            "days": obj.window_days,
            "opened": len(findings.get("review_items_created") or []),
            "consolidations": len(findings.get("consolidations") or []),
        }

    @admin.display(description=_("findings"))
    def findings_shown(self, obj):
        return readable(obj.findings)


@admin.register(MetricSnapshot)
class MetricSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("taken_at",)
    fields = ("taken_at", "metrics_shown")
    readonly_fields = fields

    @admin.display(description=_("metrics"))
    def metrics_shown(self, obj):
        return readable(obj.metrics)
