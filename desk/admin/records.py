"""Append-only records: the audit log, reflection reports and metric snapshots."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin
from desk.admin.readable import readable
from governance.models import AuditLog, MetricSnapshot, ReflectionReport


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "event_type", "actor", "target_type", "target_link", "extra_excerpt")
    list_filter = ("event_type", "target_type")
    search_fields = ("event_type", "actor", "target_id")
    date_hierarchy = "created_at"

    @admin.display(description=_("target"))
    def target_link(self, obj):
        if not obj.target_type or not obj.target_id:
            return "—"
        app_label, _dot, model_name = obj.target_type.partition(".")
        try:
            url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.target_id])
        except Exception:  # a target type with no admin page is shown as text
            return f"{obj.target_type} #{obj.target_id}"
        return format_html('<a href="{}">#{}</a>', url, obj.target_id)

    @admin.display(description=_("details"))
    def extra_excerpt(self, obj):
        return readable(obj.extra_data)

    def get_fields(self, request, obj=None):
        return ("created_at", "event_type", "actor", "target_type", "target_link", "extra_excerpt")

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)


@admin.register(ReflectionReport)
class ReflectionReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "window_days", "summary")


@admin.register(MetricSnapshot)
class MetricSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("taken_at",)
