"""The last door before the database for the governance rows whose text is composed
by many hands (traces, audit entries, review items, distillation runs) and for category
names and summaries: whatever built the row, its strings pass the one scan
(textrules.safety) on save. Services still scan at intake, where a credential can be
refused outright; this catches what a later change, a model's answer or a reviewer's
note would carry in unnoticed. Rows written with bulk_create are built by
governance.traces.trace_row, which scans them itself."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import pre_save

from textrules.safety import redact, scan_data

# model label -> (text fields, JSON fields)
GUARDED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "governance.Trace": (("decision",), ("reasons", "scores")),
    "governance.AuditLog": (("actor", "target_id"), ("extra_data",)),
    "governance.ReviewItem": (("reason", "note", "proposed_by", "reviewer_name"), ("payload",)),
    "governance.DistillRun": (("session_id", "actor"), ("result",)),
    "governance.Suggestion": (("topic",), ("reasons",)),
    "memories.Category": (("name", "path", "summary"), ()),
}


def _scrub(sender: Any, instance: Any, **_: Any) -> None:
    texts, blobs = GUARDED[sender._meta.label]
    for name in texts:
        value = getattr(instance, name)
        if isinstance(value, str) and value:
            setattr(instance, name, redact(value))
    for name in blobs:
        value = getattr(instance, name)
        if value:
            setattr(instance, name, scan_data(value)[0])


def connect() -> None:
    from django.apps import apps

    for label in GUARDED:
        pre_save.connect(_scrub, sender=apps.get_model(label), dispatch_uid=f"safety-net:{label}")
