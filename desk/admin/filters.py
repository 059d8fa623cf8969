"""List filters shared by the memory desk and the review queue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import user_data
from desk.admin.reasons import business_line_label


class AdvertiserFilter(admin.SimpleListFilter):
    title = _("advertiser")
    parameter_name = "advertiser"
    GLOBAL = "__global__"

    def lookups(self, request, model_admin):
        scoped = model_admin.get_queryset(request).exclude(advertiser__isnull=True)
        names = scoped.values_list("advertiser", flat=True).distinct().order_by("advertiser")
        return [(self.GLOBAL, _("global (no advertiser)"))] + [(name, name) for name in names]

    def queryset(self, request, queryset):
        if self.value() == self.GLOBAL:
            return queryset.filter(advertiser__isnull=True)
        if self.value():
            return queryset.filter(advertiser=self.value())
        return queryset


class BusinessLineFilter(admin.SimpleListFilter):
    title = _("business line")
    parameter_name = "business_line"

    def lookups(self, request, model_admin):
        lined = model_admin.get_queryset(request).exclude(business_line="")
        names = lined.values_list("business_line", flat=True).distinct().order_by("business_line")
        return [(name, business_line_label(name)) for name in names]

    def queryset(self, request, queryset):
        return queryset.filter(business_line=self.value()) if self.value() else queryset


class CategoryFilter(admin.SimpleListFilter):
    """A category node and everything under it (linked from the category trees)."""

    title = _("category (tree)")
    parameter_name = "category"

    def lookups(self, request, model_admin):
        from memories.models import Category

        nodes = Category.objects.order_by("advertiser", "path")[:300]
        return [(str(node.pk), format_html("{}: {}", node.advertiser or gettext("global"), user_data(node.path))) for node in nodes]

    def queryset(self, request, queryset):
        from memories.category_selectors import subtree_q
        from memories.models import Category

        if not self.value() or not str(self.value()).isdigit():
            return queryset
        node = Category.objects.filter(pk=int(self.value())).first()
        return queryset.filter(subtree_q(node)) if node else queryset.none()


def labelled_filter(field: str, title: Any, label: Callable[[str], Any]) -> type[admin.SimpleListFilter]:
    """A filter over a field's stored codes that shows each code as `label` names it."""

    class LabelledFilter(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request, model_admin):
            values = model_admin.get_queryset(request).order_by(field).values_list(field, flat=True).distinct()
            return [(value, label(value)) for value in values if value not in (None, "")]

        def queryset(self, request, queryset):
            return queryset.filter(**{field: self.value()}) if self.value() not in (None, "") else queryset

    LabelledFilter.title = title
    return LabelledFilter
