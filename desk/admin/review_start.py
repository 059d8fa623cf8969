"""The dashboard's way into the queue: how much waits, for how long, and a link to the
item that has waited longest (with the "open" filter, so the next-item button and the
list after a decision stay on open items)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince

from desk.admin.list_cells import local_time_text
from governance.constants import ReviewStatus
from governance.models import ReviewItem

OPEN_FILTER = urlencode({"status__exact": ReviewStatus.OPEN})


def review_start() -> dict[str, Any]:
    open_items = ReviewItem.objects.filter(status=ReviewStatus.OPEN).order_by("created_at", "id")
    first = open_items.first()
    list_url = f"{reverse('admin:governance_reviewitem_changelist')}?{OPEN_FILTER}"
    if first is None:
        return {"open": 0, "list_url": list_url, "url": None}
    return {
        "open": open_items.count(),
        "list_url": list_url,
        "url": f"{reverse('admin:governance_reviewitem_change', args=[first.pk])}?{urlencode({'_changelist_filters': OPEN_FILTER})}",
        "oldest_age": timesince(first.created_at, timezone.now()),
        "oldest_at": local_time_text(first.created_at),
        "first": first,
    }
