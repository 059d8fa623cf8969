"""Events and their stage traces: read-only, with the stage timeline of one event."""

from __future__ import annotations

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin, admin_link
from desk.admin.filters import labelled_filter
from desk.admin.list_cells import clamped, user_data
from desk.admin.readable import readable, reasons_list
from desk.admin.reasons import (
    business_line_label,
    decision_label,
    provider_label,
    reasons_joined,
    row_reasons_shown,
    stage_label,
)
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
    list_filter = ("action", "kind", "event_type", "source", "decided_layer", labelled_filter("provider", _("provider"), provider_label))
    search_fields = ("raw_text", "summary", "advertiser", "actor", "session_id")
    date_hierarchy = "created_at"
    list_select_related = ("memory",)
    fieldsets = (
        (None, {"fields": ("kind_shown", "event_type", "source", "actor_shown", "advertiser", "business_line_shown", "requested_layer")}),
        (
            _("Raw input"),
            {"fields": ("raw_text_shown", "summary_shown", "data_shown", "idempotency_key_shown", "session_id_shown", "conversation")},
        ),
        (
            _("Decision"),
            {
                "fields": (
                    "status",
                    "action",
                    "decided_layer",
                    "reasons_shown",
                    "memory_link",
                    "provider_shown",
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
        "actor_shown",
        "advertiser",
        "business_line_shown",
        "requested_layer",
        "raw_text_shown",
        "summary_shown",
        "data_shown",
        "idempotency_key_shown",
        "status",
        "action",
        "decided_layer",
        "reasons_shown",
        "memory_link",
        "provider_shown",
        "created_at",
        "decided_at",
        "timeline",
        "session_id_shown",
        "conversation",
    )

    # What the caller sent and who sent it are shown as given, marked as data.
    @admin.display(description=_("actor"))
    def actor_shown(self, obj):
        return user_data(obj.actor) if obj.actor else "—"

    @admin.display(description=_("raw text"))
    def raw_text_shown(self, obj):
        return format_html('<div class="lingix-content" data-user-data>{}</div>', obj.raw_text) if obj.raw_text else "—"

    @admin.display(description=_("summary"))
    def summary_shown(self, obj):
        return user_data(obj.summary) if obj.summary else "—"

    @admin.display(description=_("idempotency key"))
    def idempotency_key_shown(self, obj):
        return user_data(obj.idempotency_key) if obj.idempotency_key else "—"

    @admin.display(description=_("session"))
    def session_id_shown(self, obj):
        return user_data(obj.session_id) if obj.session_id else "—"

    @admin.display(description=_("business line"))
    def business_line_shown(self, obj):
        return business_line_label(obj.business_line)

    @admin.display(description=_("provider"))
    def provider_shown(self, obj):
        return provider_label(obj.provider)

    @admin.display(description=_("kind"), ordering="kind")
    def kind_shown(self, obj):
        return event_kind_label(obj)

    @admin.display(description=_("input"))
    def input_excerpt(self, obj):
        return clamped(obj.summary or obj.raw_text, css="lingix-wide", data=True)

    @admin.display(description=_("reason"))
    def reason_excerpt(self, obj):
        return clamped(reasons_joined(row_reasons_shown(obj)))

    @admin.display(description=_("memory"))
    def memory_link(self, obj):
        return (
            admin_link(obj.memory, format_html("#{} {}", obj.memory_id, user_data(Truncator(obj.memory.content).chars(40))))
            if obj.memory
            else "—"
        )

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
            trace.provider_shown = provider_label(trace.provider)
        total = sum(t.latency_ms for t in traces) or 1.0
        for trace in traces:
            trace.share = round(trace.latency_ms / total * 100, 1)
        review_items = list(obj.review_items.all())
        context = {"event": obj, "traces": traces, "total_ms": round(sum(t.latency_ms for t in traces), 2), "review_items": review_items}
        return render_to_string("admin/governance/memoryevent/timeline.html", context)


@admin.register(Trace)
class TraceAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "event_link",
        "seq",
        "stage_shown",
        "decision_shown",
        "reasons_excerpt",
        "provider_shown",
        "latency_ms",
        "created_at",
    )
    list_filter = (
        labelled_filter("stage", _("stage"), stage_label),
        labelled_filter("decision", _("decision"), decision_label),
        labelled_filter("provider", _("provider"), provider_label),
    )
    search_fields = ("stage", "decision", "model")
    date_hierarchy = "created_at"
    list_select_related = ("event",)

    @admin.display(description=_("stage"), ordering="stage")
    def stage_shown(self, obj):
        return stage_label(obj.stage)

    @admin.display(description=_("decision"), ordering="decision")
    def decision_shown(self, obj):
        return decision_label(obj.decision)

    @admin.display(description=_("provider"), ordering="provider")
    def provider_shown(self, obj):
        return provider_label(obj.provider)

    @admin.display(description=_("reasons"))
    def reasons_excerpt(self, obj):
        return clamped(reasons_joined(row_reasons_shown(obj)))

    def get_fields(self, request, obj=None):
        return (
            "event_link",
            "seq",
            "stage_shown",
            "decision_shown",
            "reasons_shown",
            "scores_shown",
            "provider_shown",
            "model_shown",
            "prompt_version_shown",
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

    # A model's and a prompt's version are names the judge reports, shown as recorded.
    @admin.display(description=_("model"))
    def model_shown(self, obj):
        return user_data(obj.model) if obj.model else "—"

    @admin.display(description=_("prompt version"))
    def prompt_version_shown(self, obj):
        return user_data(obj.prompt_version) if obj.prompt_version else "—"

    @admin.display(description=_("scores"))
    def scores_shown(self, obj):
        return readable(obj.scores)

    @admin.display(description=_("event"))
    def event_link(self, obj):
        return admin_link(obj.event, f"#{obj.event_id}" if obj.event_id else None)
