"""The organised view of memory: entities with the memories linked to them and the
relations those memories state, and the suggestions L3 signals raised. All read-only:
links are rebuilt by the write path, suggestions by signals and the expiry job."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin, admin_link
from desk.admin.list_cells import local_time, user_data
from desk.admin.readable import readable
from governance.models import Suggestion
from memories.constants import Status
from memories.models import Entity, Memory, Relation

MAX_ROWS = 200


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    change_form_template = "admin/lingix/data_title_change_form.html"
    list_display = ("name_shown", "kind", "memory_count", "relation_count")
    list_filter = ("kind",)
    search_fields = ("name",)
    list_per_page = 100
    fields = ("kind", "name_shown", "linked_memories", "relations")
    readonly_fields = fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(n_memories=Count("memory_links", distinct=True), n_relations=Count("relations_out", distinct=True))
        )

    @admin.display(description=_("name"), ordering="name")
    def name_shown(self, obj):
        return user_data(obj.name)

    @admin.display(description=_("memories"), ordering="n_memories")
    def memory_count(self, obj):
        return obj.n_memories

    @admin.display(description=_("relations as subject"), ordering="n_relations")
    def relation_count(self, obj):
        return obj.n_relations

    @admin.display(description=_("linked memories"))
    def linked_memories(self, obj):
        memories = Memory.objects.filter(entity_links__entity=obj).order_by("status", "layer", "-importance", "-id").distinct()[:MAX_ROWS]
        rows = format_html_join(
            "",
            '<tr class="entity-memory{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            (
                (
                    " inactive" if m.status != Status.ACTIVE else "",
                    admin_link(m, f"#{m.pk}"),
                    m.layer,
                    m.advertiser or _("global"),
                    m.get_status_display(),
                    user_data(Truncator(m.content).chars(90)),
                )
                for m in memories
            ),
        )
        head = format_html(
            "<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
            _("memory"),
            _("layer"),
            _("scope"),
            _("status"),
            _("content"),
        )
        return format_html('<table id="entity-memories">{}{}</table>', head, rows) if memories else "—"

    @admin.display(description=_("relations"))
    def relations(self, obj):
        rows = (Relation.objects.filter(subject=obj) | Relation.objects.filter(object=obj)).select_related("subject", "object")
        rows = rows.order_by("predicate", "object__name", "memory_id")[:MAX_ROWS]
        return (
            format_html_join(
                "",
                '<div class="entity-relation">({}, {}, {}) · {}</div>',
                (
                    (
                        user_data(r.subject.name),
                        r.get_predicate_display(),
                        user_data(r.object.name),
                        admin_link(r.memory, f"#{r.memory_id}"),
                    )
                    for r in rows
                ),
            )
            or "—"
        )


@admin.register(Suggestion)
class SuggestionAdmin(ReadOnlyAdmin):
    change_form_template = "admin/lingix/data_title_change_form.html"
    list_display = ("id", "topic_shown", "kind", "advertiser", "signal_link", "playbooks", "status", "created_shown", "expires_shown")
    list_filter = ("status", "kind")
    search_fields = ("topic", "advertiser", "signal__content")
    fields = (
        "kind",
        "topic_shown",
        "advertiser",
        "status",
        "signal_link",
        "playbooks",
        "reasons_shown",
        "created_at",
        "expires_at",
        "closed_at",
    )
    readonly_fields = fields

    @admin.display(description=_("created at"), ordering="created_at")
    def created_shown(self, obj):
        return local_time(obj.created_at)

    @admin.display(description=_("expires at"), ordering="expires_at")
    def expires_shown(self, obj):
        return local_time(obj.expires_at)

    @admin.display(description=_("topic"), ordering="topic")
    def topic_shown(self, obj):
        return user_data(obj.topic) if obj.topic else "—"

    @admin.display(description=_("signal"))
    def signal_link(self, obj):
        return admin_link(obj.signal, format_html("#{} {}", obj.signal_id, user_data(Truncator(obj.signal.content).chars(40))))

    @admin.display(description=_("why each playbook applies"))
    def reasons_shown(self, obj):
        return readable(obj.reasons)

    @admin.display(description=_("playbooks"))
    def playbooks(self, obj):
        memories = [*obj.templates.all(), *obj.strategies.all()]
        rows = ((m.layer, admin_link(m, user_data(Truncator(m.content).chars(40)))) for m in memories)
        return format_html_join("", '<span class="playbook">{} {}</span>', rows) or "—"


def memory_entities(memory: Memory) -> str:
    """The entity chips on a memory's page (used by MemoryAdmin)."""
    entities = Entity.objects.filter(memory_links__memory=memory).order_by("kind", "name")
    return (
        format_html_join(
            " ",
            '<span class="entity-chip" title="{}">{}</span>',
            ((e.get_kind_display(), admin_link(e, user_data(e.name))) for e in entities),
        )
        or "—"
    )
