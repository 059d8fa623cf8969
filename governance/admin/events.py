"""Events and their stage traces: read-only, with the stage timeline of one event."""
from __future__ import annotations

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from governance.admin.common import ReadOnlyAdmin, admin_link
from governance.models import MemoryEvent, Trace


class TraceInline(admin.TabularInline):
    model = Trace
    fk_name = "event"
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ("seq", "stage", "decision", "provider", "model", "prompt_version", "latency_ms")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "event_type", "source", "advertiser", "action", "decided_layer", "memory_link", "provider", "created_at")
    list_filter = ("action", "kind", "event_type", "source", "decided_layer", "provider")
    search_fields = ("raw_text", "summary", "advertiser", "actor", "session_id")
    date_hierarchy = "created_at"
    list_select_related = ("memory",)
    fieldsets = (
        (None, {"fields": ("kind", "event_type", "source", "actor", "advertiser", "business_line", "requested_layer")}),
        (_("Raw input"), {"fields": ("raw_text", "summary", "data", "idempotency_key", "session_id", "source_turns")}),
        (_("Decision"), {"fields": (
            "status", "action", "decided_layer", "reasons", "memory_link", "provider", "created_at", "decided_at",
        )}),
        (_("Stage timeline"), {"fields": ("timeline",)}),
    )
    readonly_fields = (
        "kind", "event_type", "source", "actor", "advertiser", "business_line", "requested_layer", "raw_text", "summary",
        "data", "idempotency_key", "status", "action", "decided_layer", "reasons", "memory_link", "provider", "created_at",
        "decided_at", "timeline", "session_id", "source_turns",
    )

    @admin.display(description=_("memory"))
    def memory_link(self, obj):
        return admin_link(obj.memory, f"#{obj.memory_id} {Truncator(obj.memory.content).chars(40)}" if obj.memory else None)

    @admin.display(description=_("stages"))
    def timeline(self, obj):
        traces = list(obj.traces.order_by("seq", "id"))
        total = sum(t.latency_ms for t in traces) or 1.0
        for trace in traces:
            trace.share = round(trace.latency_ms / total * 100, 1)
        review_items = list(obj.review_items.all())
        context = {"event": obj, "traces": traces, "total_ms": round(sum(t.latency_ms for t in traces), 2), "review_items": review_items}
        return render_to_string("admin/governance/memoryevent/timeline.html", context)


@admin.register(Trace)
class TraceAdmin(ReadOnlyAdmin):
    list_display = ("id", "event_link", "seq", "stage", "decision", "provider", "model", "prompt_version", "latency_ms", "created_at")
    list_filter = ("stage", "decision", "provider")
    search_fields = ("stage", "decision", "model")
    date_hierarchy = "created_at"
    list_select_related = ("event",)

    @admin.display(description=_("event"))
    def event_link(self, obj):
        return admin_link(obj.event, f"#{obj.event_id}" if obj.event_id else None)
