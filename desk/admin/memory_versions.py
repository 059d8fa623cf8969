"""A memory's versions as a reviewer audits them: what each version changed from the one
before (a word diff), who decided it (governance.review.selectors.version_deciders: the
reviewer who approved it, the person who edited it, or the funnel on its own) and the note
they left."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from desk.admin.diff import diff_html
from desk.admin.list_cells import local_time_text, user_data
from governance.review.selectors import version_deciders
from governance.write.hard_rules import WriteOrigin
from memories.models import Memory
from memories.selectors import memory_history


@dataclass(frozen=True)
class VersionRow:
    memory: Memory
    decided_by: SafeString
    note: str
    when: str
    before_html: SafeString | str
    after_html: SafeString | str
    changed: bool


def _decider(version: Memory, decided: dict) -> SafeString:
    # The person's or token's name stays as recorded, marked as data inside the sentence.
    name = user_data(decided.get("by") or "—")
    origin = decided.get("origin")
    if origin in {WriteOrigin.APPROVAL, WriteOrigin.PROMOTION}:
        template = gettext("approved by %(name)s")
    elif origin == WriteOrigin.ADMIN_EDIT:
        template = gettext("edited by %(name)s")
    elif origin == WriteOrigin.IMPORT:
        template = gettext("trusted import by %(name)s")
    elif origin is None:
        return format_html("{}", gettext("no event recorded (source: %(source)s)") % {"source": version.get_source_display()})
    else:
        template = gettext("written automatically for %(name)s")
    return mark_safe(conditional_escape(template) % {"name": name})


def memory_versions(memory: Memory) -> list[VersionRow]:
    """Oldest first: each version beside the one before it."""
    chain = memory_history(memory=memory, advertisers=None)
    deciders = version_deciders(versions=chain)
    rows, previous = [], None
    for version in chain:
        decided = deciders.get(version.pk, {})
        if previous is None:
            before, after, changed = "", version.content, False
        else:
            before, after, _ratio = diff_html(previous.content, version.content)
            changed = previous.content != version.content
        rows.append(
            VersionRow(
                version, _decider(version, decided), decided.get("note", ""), local_time_text(version.valid_from), before, after, changed
            )
        )
        previous = version
    return rows
