"""The memory desk: browse, filter, correct and retire memories. Every write goes through
governance.write.admin_edits, which traces and audits it; nothing here updates rows itself."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.timezone import localtime
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from desk.admin.claims import claim_of, claim_rows
from desk.admin.entities import memory_entities
from desk.admin.filters import AdvertiserFilter, BusinessLineFilter, CategoryFilter
from desk.admin.list_cells import clamped, user_data
from desk.admin.memory_list import MemoryListColumns
from desk.admin.memory_versions import memory_versions
from desk.admin.reasons import business_line_label, choice
from governance.intake.selectors import memory_source
from governance.models import MemoryEvent
from governance.write.admin_edits import (
    ADMIN_EDITABLE_FIELDS,
    memory_admin_edit,
    memory_admin_reembed,
    memory_admin_set_status,
    memory_can_change,
)
from governance.write.erase import memory_erase
from memories.constants import MemoryKind, Status
from memories.exceptions import DomainError
from memories.models import Memory
from memories.selectors import memory_history

# A memory opens read-only; ?edit=1 is the explicit edit, a governed action that writes a
# new version (or changes a field in place) through governance.write.admin_edits.
EDIT_PARAM = "edit"

# The read-only page's fields that show stored words or codes through a display method.
READ_ONLY_SHOWN = {
    "content": "content_shown",
    "abstract_line": "abstract_line_shown",
    "abstract_paragraph": "abstract_paragraph_shown",
    "category": "category_shown",
    "business_line": "business_line_shown",
}


def _editing(request) -> bool:
    return request.GET.get(EDIT_PARAM) == "1"


class MemoryEditForm(forms.ModelForm):
    edit_note = forms.CharField(
        label=_("note for the record"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("Why you change it: kept with the new version and shown in the version history."),
    )

    class Meta:
        model = Memory
        fields: list[str] = []


@admin.register(Memory)
class MemoryAdmin(MemoryListColumns, admin.ModelAdmin):
    form = MemoryEditForm
    list_display = (
        "id",
        "layer_code",
        "kind_shown",
        "short_content",
        "scope",
        "category_path",
        "status_version",
        "importance_shown",
        "created_shown",
    )
    list_display_links = ("id", "short_content")
    list_filter = ("layer", "kind", "status", AdvertiserFilter, BusinessLineFilter, CategoryFilter, "source", "tier")
    search_fields = ("content", "advertiser", "category", "business_line")
    list_per_page = 50
    list_select_related = ("category_node",)
    date_hierarchy = "created_at"
    actions = ("archive_selected", "restore_selected", "reembed_selected", "erase_selected")
    readonly_fields = (
        "layer",
        "advertiser",
        "status",
        "version",
        "source",
        "source_attribution",
        "grounding",
        "observed_at",
        "valid_from",
        "valid_to",
        "access_count",
        "last_accessed_at",
        "reinforcement_count",
        "embedding_state",
        "data_shown",
        "created_at",
        "updated_at",
        "version_history",
        "claim_shown",
        "source_events",
        "source_turns",
        "entities",
        "kind",
        "category_path",
        "abstract_line",
        "abstract_paragraph",
    )
    fieldsets = (
        (None, {"fields": ("layer", "kind", "advertiser", "status", "content", "claim_shown")}),
        (_("Organisation"), {"fields": ("category_path", "abstract_line", "abstract_paragraph")}),
        (_("Quality and scope"), {"fields": ("importance", "confidence", "category", "business_line", "tier", "expires_at")}),
        (_("Entities"), {"fields": ("entities",)}),
        (
            _("Provenance"),
            {"fields": ("source", "source_attribution", "grounding", "observed_at", "source_events", "source_turns", "data_shown")},
        ),
        (_("Version history"), {"fields": ("version", "valid_from", "valid_to", "version_history")}),
        (_("Use"), {"fields": ("access_count", "last_accessed_at", "reinforcement_count", "embedding_state", "created_at", "updated_at")}),
    )

    def get_fieldsets(self, request, obj=None):
        editing = obj is not None and _editing(request)
        # A field not being edited shows the stored words as given, marked as data (see user_data).
        fieldsets = tuple(
            (
                title,
                {
                    **options,
                    "fields": tuple(
                        name if editing and name in ADMIN_EDITABLE_FIELDS else READ_ONLY_SHOWN.get(name, name) for name in options["fields"]
                    ),
                },
            )
            for title, options in self.fieldsets
        )
        if not editing:
            return fieldsets
        first = fieldsets[0]
        return ((first[0], {**first[1], "fields": (*first[1]["fields"], "edit_note")}), *fieldsets[1:])

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and not _editing(request):
            return [name for _title, options in self.get_fieldsets(request, obj) for name in options["fields"]]
        return [READ_ONLY_SHOWN.get(name, name) for name in self.readonly_fields]

    @admin.display(description=_("content"))
    def content_shown(self, obj):
        return format_html('<div class="lingix-content" data-user-data>{}</div>', obj.content)

    @admin.display(description=_("one-line abstract"))
    def abstract_line_shown(self, obj):
        return user_data(obj.abstract_line) if obj.abstract_line else "—"

    @admin.display(description=_("paragraph abstract"))
    def abstract_paragraph_shown(self, obj):
        return user_data(obj.abstract_paragraph) if obj.abstract_paragraph else "—"

    @admin.display(description=_("category"))
    def category_shown(self, obj):
        if not obj.category:
            return "—"
        # A funnel write without a category files the memory under its trigger type's code.
        label = choice(obj.category)
        return label if label != obj.category else user_data(obj.category)

    @admin.display(description=_("business line"))
    def business_line_shown(self, obj):
        return business_line_label(obj.business_line)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if request.method == "POST" and not _editing(request):
            return HttpResponseRedirect(request.path)  # only the edit page saves
        obj = self.get_object(request, object_id)
        can_edit = obj is not None and obj.status == Status.ACTIVE and self.has_change_permission(request, obj)
        extra_context = {**(extra_context or {}), "editing": _editing(request), "can_edit": can_edit}
        if not _editing(request):
            extra_context.update(
                # Django's "Change memory" would promise a form this page does not offer.
                title=gettext("Memory #%(id)s") % {"id": object_id},
                edit_url=f"{request.path}?{EDIT_PARAM}=1",
                show_save=False,
                show_save_and_continue=False,
                show_save_and_add_another=False,
                show_delete=False,
            )
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description=_("entities"))
    def entities(self, obj):
        return memory_entities(obj)

    # New memories come in through the funnel or a trusted import, never a bare form, and
    # nothing is deleted: archiving keeps the trail.
    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        if obj is None:
            return super().has_change_permission(request)
        return memory_can_change(user=request.user, memory=obj)

    def get_queryset(self, request):
        return super().get_queryset(request).defer("embedding")

    @admin.display(description=_("category (tree)"), ordering="category_node__path")
    def category_path(self, obj):
        if not obj.category_node_id:
            return "—"
        # Stored paths have no length bound: two lines at most, broken between levels, so a deep
        # path cannot push the list past the window.
        return clamped(obj.category_node.path, css="lingix-path", data=True)

    @admin.display(description=_("kind"), ordering="kind")
    def kind_shown(self, obj):
        if not obj.kind:
            return "—"
        label = _("episodic") if obj.kind == MemoryKind.EPISODIC else _("semantic")
        return format_html('<span class="lingix-nowrap kind-{}" title="{}">{}</span>', obj.kind, obj.get_kind_display(), label)

    @admin.display(description=_("embedding"))
    def embedding_state(self, obj):
        if not obj.embedding_dim:
            return _("missing (embed-backfill or the re-embed action will fill it)")
        return f"{obj.embedding_model} · {obj.embedding_dim}d"

    @admin.display(description=_("claim"))
    def claim_shown(self, obj):
        rows = claim_rows(claim_of(obj.claim, content=obj.content, advertiser=obj.advertiser, data=obj.data))
        return format_html(
            '<table class="lingix-claims" id="memory-claim">{}</table>',
            format_html_join("", '<tr id="claim-{}"><th>{}</th><td>{}</td></tr>', ((r.key, r.label, r.text) for r in rows)),
        )

    @admin.display(description=_("all versions"))
    def version_history(self, obj):
        rows = format_html_join(
            "",
            '<tr id="version-{}"{}><td><a href="{}">v{}</a> #{}<br><span class="quiet">{}</span></td><td>{}<br><span class="quiet">{}</span></td>'
            '<td>{}</td><td class="lingix-version-change">{}</td></tr>',
            (
                (
                    row.memory.version,
                    mark_safe(' class="current"') if row.memory.pk == obj.pk else "",
                    reverse("admin:memories_memory_change", args=[row.memory.pk]),
                    row.memory.version,
                    row.memory.pk,
                    row.memory.get_status_display(),
                    row.decided_by,
                    row.when,
                    user_data(row.note) if row.note else "—",
                    format_html(
                        '<div class="before" data-user-data>{}</div><div class="after" data-user-data>{}</div>',
                        row.before_html,
                        row.after_html,
                    )
                    if row.changed
                    else user_data(row.after_html),
                )
                for row in memory_versions(obj)
            ),
        )
        return format_html(
            '<table class="lingix-versions lingix-version-diff" id="version-diff"><thead><tr><th>{}</th><th>{}</th><th>{}</th>'
            "<th>{}</th></tr></thead><tbody>{}</tbody></table>",
            _("version"),
            _("who decided"),
            _("note"),
            _("change from the version before"),
            rows,
        )

    @admin.display(description=_("source events"))
    def source_events(self, obj):
        chain_ids = [m.pk for m in memory_history(memory=obj, advertisers=None)]
        events = MemoryEvent.objects.filter(memory_id__in=chain_ids).order_by("created_at")
        if not events:
            return _("none recorded (demo data or a trusted import without an event)")
        return format_html_join(
            "",
            '<div class="lingix-source-event"><a href="{}">#{} {} · {}</a> <span class="quiet">{} · {}</span><blockquote>{}</blockquote></div>',
            (
                (
                    reverse("admin:governance_memoryevent_change", args=[e.pk]),
                    e.pk,
                    e.get_kind_display(),
                    e.get_action_display() or e.get_status_display(),
                    user_data(e.actor) if e.actor else e.get_source_display(),
                    localtime(e.created_at).strftime("%Y-%m-%d %H:%M"),
                    user_data(Truncator(e.raw_text or e.summary or "").chars(300)),
                )
                for e in events
            ),
        )

    @admin.display(description=_("source turns"))
    def source_turns(self, obj):
        source = memory_source(memory=obj)
        if not source["turns"]:
            return _("not from a conversation")
        return format_html(
            '<div class="lingix-source-turns"><p class="quiet">{}</p>{}</div>',
            format_html(
                "{} {} · {} #{}",
                _("session"),
                user_data(source["session_id"]) if source["session_id"] else "—",
                _("event"),
                source["event_id"],
            ),
            render_to_string("admin/lingix/conversation.html", {"turns": source["turns"]}),
        )

    def save_model(self, request, obj, form, change):
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name in ADMIN_EDITABLE_FIELDS}
        # The form bound `obj` to the posted values; the service compares against the stored row.
        stored = Memory.objects.get(pk=obj.pk)
        result = memory_admin_edit(memory=stored, user=request.user, changes=changes, note=form.cleaned_data.get("edit_note") or "")
        request._lingix_result_pk = result.pk
        obj.pk = result.pk

    def save_related(self, request, form, formsets, change):
        pass  # derived_from is governed by promotion, not editable here

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except DomainError as exc:  # a hard rule or a bad edit: shown, never a 500
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(request.path)

    def response_change(self, request, obj):
        new_pk = getattr(request, "_lingix_result_pk", obj.pk)
        if new_pk != int(request.resolver_match.kwargs.get("object_id", new_pk)):
            self.message_user(request, _("Saved as a new version; the previous version is kept in the history."), messages.SUCCESS)
        return super().response_change(request, obj)

    def _each(self, request, queryset, apply, done_message):
        done, refused = 0, []
        for memory in queryset:
            try:
                apply(memory)
                done += 1
            except (DomainError, PermissionDenied) as exc:
                refused.append(str(exc))
        if done:
            self.message_user(request, done_message(done), messages.SUCCESS)
        for reason in refused[:10]:
            self.message_user(request, reason, messages.WARNING)

    @admin.action(description=_("Archive selected memories"), permissions=["change"])
    def archive_selected(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda m: memory_admin_set_status(memory=m, user=request.user, status=Status.ARCHIVED),
            lambda n: ngettext("Archived %d memory.", "Archived %d memories.", n) % n,
        )

    @admin.action(description=_("Restore selected memories"), permissions=["change"])
    def restore_selected(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda m: memory_admin_set_status(memory=m, user=request.user, status=Status.ACTIVE),
            lambda n: ngettext("Restored %d memory.", "Restored %d memories.", n) % n,
        )

    @admin.action(description=_("Re-embed selected memories"), permissions=["change"])
    def reembed_selected(self, request, queryset):
        n = memory_admin_reembed(memories=list(queryset.select_related(None).only("id")), user=request.user)
        self.message_user(request, ngettext("Re-embedded %d memory.", "Re-embedded %d memories.", n) % n, messages.SUCCESS)

    def has_erase_permission(self, request):
        # Erasing leaves a tombstone: the right to add one is the right to erase.
        return request.user.has_perm("memories.add_tombstone")

    @admin.action(description=_("Erase selected memories (all versions, leaves a tombstone)…"), permissions=["erase"])
    def erase_selected(self, request, queryset):
        form = EraseForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            erased, refused = 0, []
            for pk in list(queryset.values_list("pk", flat=True)):
                try:
                    erased += memory_erase(
                        memory_id=pk, reason=form.cleaned_data["reason"], actor=f"admin:{request.user.get_username()}"
                    ).as_dict()["erased"]
                except DomainError as exc:  # a version already erased with an earlier one in the selection
                    refused.append(str(exc))
            self.message_user(request, ngettext("Erased %d memory row.", "Erased %d memory rows.", erased) % erased, messages.SUCCESS)
            for reason in refused[:10]:
                self.message_user(request, reason, messages.WARNING)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Erase memories"),
            "opts": self.model._meta,
            "memories": list(queryset.defer("embedding")),
            "form": form if form.is_bound else EraseForm(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/memories/memory/erase_confirmation.html", context)


class EraseForm(forms.Form):
    reason = forms.CharField(label=_("reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}))
