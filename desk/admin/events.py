"""Events and their stage traces: read-only, with the stage timeline of one event."""

from __future__ import annotations

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin, admin_link
from desk.admin.list_cells import clamped
from desk.admin.readable import readable, reasons_list
from desk.admin.reasons import decision_label, get_language_is_zh, row_reasons_shown, stage_label
from governance.constants import EventKind
from governance.knowledge.distill.services import DISTILL_KEY_PREFIX
from governance.models import MemoryEvent, Trace


def event_kind_label(event: MemoryEvent) -> str:
    """The kind as a reader names it: one ingest kind covers free text, a role-tagged
    conversation and each candidate a session distillation sent, which read differently."""
    if event.kind == EventKind.INGEST and (event.idempotency_key or "").startswith(DISTILL_KEY_PREFIX):
        return str(_("session distillation"))
    if event.kind == EventKind.INGEST and event.source_turns:
        return str(_("ingest (conversation)"))
    return event.get_kind_display()


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
    list_display = (
        "id",
        "kind_shown",
        "input_excerpt",
        "action",
        "reason_excerpt",
        "decided_layer",
        "advertiser",
        "memory_link",
        "created_at",
    )
    list_filter = ("action", "kind", "event_type", "source", "decided_layer", "provider")
    search_fields = ("raw_text", "summary", "advertiser", "actor", "session_id")
    date_hierarchy = "created_at"
    list_select_related = ("memory",)
    fieldsets = (
        (None, {"fields": ("kind_shown", "event_type", "source", "actor", "advertiser", "business_line", "requested_layer")}),
        (_("Raw input"), {"fields": ("raw_text", "summary", "data_shown", "idempotency_key", "session_id", "conversation")}),
        (
            _("Decision"),
            {
                "fields": (
                    "status",
                    "action",
                    "decided_layer",
                    "reasons_shown",
                    "memory_link",
                    "provider",
                    "created_at",
                    "decided_at",
                )
            },
        ),
        (_("Stage timeline"), {"fields": ("timeline",)}),
    )
    readonly_fields = (
        "kind_shown",
        "event_type",
        "source",
        "actor",
        "advertiser",
        "business_line",
        "requested_layer",
        "raw_text",
        "summary",
        "data_shown",
        "idempotency_key",
        "status",
        "action",
        "decided_layer",
        "reasons_shown",
        "memory_link",
        "provider",
        "created_at",
        "decided_at",
        "timeline",
        "session_id",
        "conversation",
    )

    @admin.display(description=_("kind"), ordering="kind")
    def kind_shown(self, obj):
        return event_kind_label(obj)

    @admin.display(description=_("input"))
    def input_excerpt(self, obj):
        return clamped(obj.summary or obj.raw_text, css="lingix-wide")

    @admin.display(description=_("reason"))
    def reason_excerpt(self, obj):
        return clamped(("；" if get_language_is_zh() else "; ").join(row_reasons_shown(obj)))

    @admin.display(description=_("memory"))
    def memory_link(self, obj):
        return admin_link(obj.memory, f"#{obj.memory_id} {Truncator(obj.memory.content).chars(40)}" if obj.memory else None)

    @admin.display(description=_("source turns"))
    def conversation(self, obj):
        if not obj.source_turns:
            return _("not from a conversation")
        return render_to_string("admin/lingix/conversation.html", {"turns": obj.source_turns})

    @admin.display(description=_("data"))
    def data_shown(self, obj):
        return readable(obj.data)

    @admin.display(description=_("reasons"))
    def reasons_shown(self, obj):
        return reasons_list(row_reasons_shown(obj))

    @admin.display(description=_("stages"))
    def timeline(self, obj):
        traces = list(obj.traces.order_by("seq", "id"))
        for trace in traces:
            trace.stage_shown, trace.decision_shown = stage_label(trace.stage), decision_label(trace.decision)
            trace.reasons_shown, trace.scores_shown = row_reasons_shown(trace), readable(trace.scores)
        total = sum(t.latency_ms for t in traces) or 1.0
        for trace in traces:
            trace.share = round(trace.latency_ms / total * 100, 1)
        review_items = list(obj.review_items.all())
        context = {"event": obj, "traces": traces, "total_ms": round(sum(t.latency_ms for t in traces), 2), "review_items": review_items}
        return render_to_string("admin/governance/memoryevent/timeline.html", context)


@admin.register(Trace)
class TraceAdmin(ReadOnlyAdmin):
    list_display = ("id", "event_link", "seq", "stage_shown", "decision_shown", "reasons_excerpt", "provider", "latency_ms", "created_at")
    list_filter = ("stage", "decision", "provider")
    search_fields = ("stage", "decision", "model")
    date_hierarchy = "created_at"
    list_select_related = ("event",)

    @admin.display(description=_("stage"), ordering="stage")
    def stage_shown(self, obj):
        return stage_label(obj.stage)

    @admin.display(description=_("decision"), ordering="decision")
    def decision_shown(self, obj):
        return decision_label(obj.decision)

    @admin.display(description=_("reasons"))
    def reasons_excerpt(self, obj):
        return clamped(("；" if get_language_is_zh() else "; ").join(row_reasons_shown(obj)))

    def get_fields(self, request, obj=None):
        return (
            "event_link",
            "seq",
            "stage_shown",
            "decision_shown",
            "reasons_shown",
            "scores_shown",
            "provider",
            "model",
            "prompt_version",
            "latency_ms",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "created_at",
        )

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    @admin.display(description=_("reasons"))
    def reasons_shown(self, obj):
        return reasons_list(row_reasons_shown(obj))

    @admin.display(description=_("scores"))
    def scores_shown(self, obj):
        return readable(obj.scores)

    @admin.display(description=_("event"))
    def event_link(self, obj):
        return admin_link(obj.event, f"#{obj.event_id}" if obj.event_id else None)
