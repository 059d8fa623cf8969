"""What every desk page shares: a link to an object's admin page, and the read-only base
for append-only records."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html


def admin_link(obj, label: str | None = None) -> str:
    if obj is None:
        return "—"
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label or str(obj))


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only records: visible to whoever may view them, changeable by nobody."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
