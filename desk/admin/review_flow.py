"""Working through the queue: the list filter a reviewer came from survives a decision,
the next open item in that same filtered list is one click away, and the message after
a decision says what changed in memory."""

from __future__ import annotations

import copy
from urllib.parse import urlencode

from django.http import HttpRequest, QueryDict
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext

from desk.admin.review_decision import Verdict
from governance.constants import Action, ReviewKind, ReviewStatus
from governance.funnel.types import Decision
from governance.models import ReviewItem
from memories.constants import Status
from memories.models import Memory

FILTERS = "_changelist_filters"


def kept_filters(request: HttpRequest) -> str:
    """The changelist query string the reviewer came from (Django's own convention)."""
    return request.POST.get(FILTERS) or request.GET.get(FILTERS) or ""


def changelist_url(filters: str) -> str:
    url = reverse("admin:governance_reviewitem_changelist")
    return f"{url}?{filters}" if filters else url


def change_url(item_pk: int, filters: str) -> str:
    url = reverse("admin:governance_reviewitem_change", args=[item_pk])
    return f"{url}?{urlencode({FILTERS: filters})}" if filters else url


def _filtered_open(model_admin, request: HttpRequest, filters: str):
    """The open items of the list as the reviewer filtered it, in the list's order."""
    fake = copy.copy(request)
    fake.GET = QueryDict(filters)
    try:
        queryset = model_admin.get_changelist_instance(fake).get_queryset(fake)
    except Exception:  # a stale or hand-edited filter: fall back to the whole open queue
        queryset = model_admin.get_queryset(request)
    return queryset.filter(status=ReviewStatus.OPEN)


def next_open_item(model_admin, request: HttpRequest, *, after: ReviewItem | None, filters: str) -> ReviewItem | None:
    """The open item that follows `after` in the filtered list, wrapping to the first."""
    pks = list(_filtered_open(model_admin, request, filters).values_list("pk", flat=True)[:1000])
    if after is not None and after.pk in pks:
        index = pks.index(after.pk)
        pks = pks[index + 1 :] + pks[:index]
    elif after is not None:
        pks = [pk for pk in pks if pk != after.pk]
    return ReviewItem.objects.filter(pk=pks[0]).first() if pks else None


def _memory_change(memory: Memory) -> str:
    if memory.supersedes_id:
        return gettext("#%(new)s supersedes #%(old)s in %(layer)s") % {"new": memory.pk, "old": memory.supersedes_id, "layer": memory.layer}
    return gettext("memory #%(new)s written to %(layer)s") % {"new": memory.pk, "layer": memory.layer}


def decision_message(*, item: ReviewItem, verdict: str, decision: Decision) -> str:
    """One sentence: which item, what the reviewer said, what changed in memory."""
    memory = Memory.objects.filter(pk=decision.memory_id).first() if decision.memory_id else None
    auto = Action((item.payload or {}).get("auto_action") or Action.REJECT).label if item.kind == ReviewKind.SAMPLED_AUDIT else ""
    values = {"id": item.pk, "auto": auto}
    if verdict == Verdict.OVERTURN_WRITE and memory is not None:
        values["change"] = _memory_change(memory)
        return gettext("Review item #%(id)s: automatic %(auto)s overturned; %(change)s.") % values
    if verdict == Verdict.CONFIRM or (verdict == Verdict.APPROVE and item.kind == ReviewKind.SAMPLED_AUDIT):
        return gettext("Review item #%(id)s: automatic %(auto)s confirmed; memory unchanged.") % values
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        audited = item.memory
        if audited is not None and audited.status == Status.ARCHIVED:
            values["memory"] = audited.pk
            return gettext("Review item #%(id)s: automatic %(auto)s overturned; memory #%(memory)s archived.") % values
        return gettext("Review item #%(id)s: automatic %(auto)s marked wrong; nothing written.") % values
    if verdict == Verdict.APPROVE and memory is not None:
        values["change"] = _memory_change(memory)
        return gettext("Approved review item #%(id)s: %(change)s.") % values
    if verdict == Verdict.APPROVE:
        return gettext("Approved review item #%(id)s; memory unchanged.") % values
    return gettext("Rejected review item #%(id)s: nothing written.") % values


def with_next_link(message: str, next_item: ReviewItem | None, filters: str) -> str:
    if next_item is None:
        return format_html("{} {}", message, gettext("The queue is empty."))
    return format_html(
        '{} <a href="{}" id="message-next-item">{} #{} →</a>',
        message,
        change_url(next_item.pk, filters),
        gettext("Next item"),
        next_item.pk,
    )
