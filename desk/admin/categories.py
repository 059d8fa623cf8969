"""The category trees: one per advertiser plus the global one, each node with its counts
and maintained summary, and a link to the memories under it. Read-only: the governed
write keeps the trees."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from desk.admin.common import ReadOnlyAdmin
from desk.admin.filters import AdvertiserFilter
from memories.models import Category


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    list_display = ("tree_name", "scope", "memory_count", "semantic_count", "episodic_count", "short_summary", "memories_link")
    list_display_links = None
    list_filter = (AdvertiserFilter, "depth")
    search_fields = ("path", "summary")
    ordering = ("advertiser", "path")
    list_per_page = 200
    readonly_fields = ("advertiser", "path", "parent", "depth", "memory_count", "semantic_count", "episodic_count", "summary", "updated_at")

    @admin.display(description=_("category"), ordering="path")
    def tree_name(self, obj):
        # Indent by depth so the ordered-by-path list reads as a tree.
        marker = "▸ " if obj.depth == 0 else "└ "
        return format_html(
            '<span class="lingix-tree" data-depth="{}" style="padding-left:{}em;white-space:nowrap">{}<b>{}</b></span>',
            obj.depth,
            obj.depth * 1.6,
            marker,
            obj.name,
        )

    @admin.display(description=_("scope"), ordering="advertiser")
    def scope(self, obj):
        return obj.advertiser or _("global")

    @admin.display(description=_("summary"))
    def short_summary(self, obj):
        return Truncator(obj.summary).chars(110)

    @admin.display(description=_("memories"))
    def memories_link(self, obj):
        url = reverse("admin:memories_memory_changelist") + "?" + urlencode({"category": obj.pk})
        return format_html('<a href="{}">{}</a>', url, _("show"))
