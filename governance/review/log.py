"""Review decisions in the admin's "Recent actions": each decision a person makes (in the
admin, or through the CLI as their account) also becomes a django.contrib.admin LogEntry,
beside its AuditLog row and trace, in the same transaction. API tokens are not accounts,
so their decisions stay in the audit log and traces only."""

from __future__ import annotations

from django.contrib.admin.models import CHANGE, LogEntry

from governance.models import ReviewItem


def review_log_entry(*, item: ReviewItem, reviewer, message: str) -> LogEntry | None:
    if reviewer is None or getattr(reviewer, "pk", None) is None:
        return None
    entries = LogEntry.objects.log_actions(
        reviewer.pk, ReviewItem.objects.filter(pk=item.pk), CHANGE, change_message=message[:500], single_object=True
    )
    return entries
