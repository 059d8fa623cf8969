"""The memory list's columns: content clamped to two lines (all of it on hover), the
scope in one cell, status with its version, times in the configured zone."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import clamped, local_time
from desk.admin.readable import readable
from desk.admin.reasons import business_line_label


class MemoryListColumns:
    @admin.display(description=_("layer"), ordering="layer")
    def layer_code(self, obj):
        return format_html('<span class="lingix-layer layer-{}" title="{}">{}</span>', obj.layer, obj.get_layer_display(), obj.layer)

    @admin.display(description=_("content"))
    def short_content(self, obj):
        return clamped(obj.content, css="lingix-wide", data=True)

    @admin.display(description=_("scope"), ordering="advertiser")
    def scope(self, obj):
        who = obj.advertiser or gettext("global")
        if obj.business_line:
            # A business line's label is a phrase ("consumer electronics (3C)"): on one line it
            # widened the column past the window in English, so it wraps to two lines at most.
            return format_html(
                '<span class="lingix-nowrap">{}</span>{}',
                who,
                clamped(business_line_label(obj.business_line), css="quiet lingix-scope-line"),
            )
        return format_html('<span class="lingix-nowrap">{}</span>', who)

    @admin.display(description=_("status"), ordering="status")
    def status_version(self, obj):
        return format_html(
            '<span class="lingix-badge status-{}">{}</span> <span class="quiet">v{}</span>',
            obj.status,
            obj.get_status_display(),
            obj.version,
        )

    @admin.display(description=_("importance"), ordering="importance")
    def importance_shown(self, obj):
        return f"{obj.importance:.1f}"

    @admin.display(description=_("created at"), ordering="created_at")
    def created_shown(self, obj):
        return local_time(obj.created_at)

    @admin.display(description=_("data"))
    def data_shown(self, obj):
        return readable(obj.data)
