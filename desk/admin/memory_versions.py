"""A memory's versions as a reviewer audits them: what each version changed from the one
before (a word diff), who decided it (the reviewer who approved it, the person who edited
it, or the funnel that wrote it without a person) and the note they left."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import SafeString
from django.utils.translation import gettext

from desk.admin.diff import diff_html
from desk.admin.list_cells import local_time_text
from governance.constants import AuditEvent, EventKind, ReviewKind
from governance.models import AuditLog, MemoryEvent
from governance.reasons import row_reasons
from memories.models import Memory
from memories.selectors import memory_history
from textrules.reasons import ReasonCode


@dataclass(frozen=True)
class VersionRow:
    memory: Memory
    decided_by: str
    note: str
    when: str
    before_html: SafeString | str
    after_html: SafeString | str
    changed: bool


def _note_of(event: MemoryEvent) -> str:
    return next((str(r.params.get("note", "")) for r in row_reasons(event) if r.code == ReasonCode.NOTE), "")


def _decider(version: Memory) -> tuple[str, str]:
    """(who decided this version, their note)."""
    # The approval that wrote it, as the review services audit it (an item without an event
    # has no trace to read); confirming a sampled audit only said an automatic write was right.
    approval = (
        AuditLog.objects.filter(event_type__in=[AuditEvent.REVIEW_APPROVED, AuditEvent.REVIEW_OVERTURNED], extra_data__memory_id=version.pk)
        .exclude(event_type=AuditEvent.REVIEW_APPROVED, extra_data__kind=ReviewKind.SAMPLED_AUDIT)
        .order_by("-created_at", "-id")
        .first()
    )
    if approval is not None:
        return gettext("approved by %(name)s") % {"name": approval.actor or "—"}, str(approval.extra_data.get("note") or "")
    event = MemoryEvent.objects.filter(memory=version).order_by("id").first()
    if event is None:
        return gettext("no event recorded (source: %(source)s)") % {"source": version.get_source_display()}, ""
    if event.kind == EventKind.ADMIN_EDIT:
        return gettext("edited by %(name)s") % {"name": event.actor or "—"}, _note_of(event)
    if event.kind == EventKind.IMPORT:
        return gettext("trusted import by %(name)s") % {"name": event.actor or "—"}, ""
    return gettext("written automatically for %(name)s") % {"name": event.actor or event.get_source_display()}, ""


def memory_versions(memory: Memory) -> list[VersionRow]:
    """Oldest first: each version beside the one before it."""
    rows, previous = [], None
    for version in memory_history(memory=memory, advertisers=None):
        who, note = _decider(version)
        if previous is None:
            before, after, changed = "", version.content, False
        else:
            before, after, _ratio = diff_html(previous.content, version.content)
            changed = previous.content != version.content
        rows.append(VersionRow(version, who, note, local_time_text(version.valid_from), before, after, changed))
        previous = version
    return rows
