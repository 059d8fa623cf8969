"""The review queue's columns: what a reviewer needs to pick the next item, no more."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import clamped, local_time, local_time_text
from desk.admin.reasons import reasons_joined, review_reasons_shown
from desk.admin.review_compare import review_candidate_text, review_conflict_target
from governance.constants import ReviewStatus


class ReviewListColumns:
    @admin.display(description=_("kind"), ordering="kind")
    def kind_badge(self, obj):
        if obj.status == ReviewStatus.OPEN:
            return format_html('<span class="lingix-badge kind-{}">{}</span>', obj.kind, obj.get_kind_display())
        return format_html(
            '<span class="lingix-badge kind-{}">{}</span><div class="quiet lingix-status-{}">{}</div>',
            obj.kind,
            obj.get_kind_display(),
            obj.status,
            obj.get_status_display(),
        )

    @admin.display(description=_("layer"), ordering="layer")
    def layer_code(self, obj):
        if not obj.layer:
            return "—"
        return format_html('<span class="lingix-layer layer-{}" title="{}">{}</span>', obj.layer, obj.get_layer_display(), obj.layer)

    @admin.display(description=_("candidate"))
    def candidate(self, obj):
        return clamped(review_candidate_text(obj), css="lingix-wide", data=True)

    @admin.display(description=_("reason"))
    def reason_column(self, obj):
        return clamped(reasons_joined(review_reasons_shown(obj)))

    @admin.display(description=_("conflicts with"))
    def target_column(self, obj):
        target = review_conflict_target(obj)
        if target is None:
            return "—"
        return format_html(
            '<a href="{}" class="lingix-nowrap">#{} · v{}</a>{}',
            reverse("admin:memories_memory_change", args=[target.pk]),
            target.pk,
            target.version,
            clamped(target.content, lines=1, data=True),
        )

    @admin.display(description=_("scope"), ordering="advertiser")
    def scope(self, obj):
        return obj.advertiser or gettext("global")

    @admin.display(description=_("waiting"), ordering="created_at")
    def waiting(self, obj):
        if obj.status != ReviewStatus.OPEN:
            return format_html('<span class="quiet">{} {}</span>', gettext("decided"), local_time(obj.decided_at))
        return format_html('<span title="{}">{}</span>', local_time_text(obj.created_at), timesince(obj.created_at, timezone.now()))

    @admin.display(description=_("proposed by → reviewer"))
    def people(self, obj):
        proposer = obj.proposed_by or "—"
        if obj.reviewer_name:
            return format_html(
                '<span class="lingix-nowrap">{}</span><br><span class="lingix-nowrap">→ {}</span>', proposer, obj.reviewer_name
            )
        return format_html('<span class="lingix-nowrap">{}</span>', proposer)
