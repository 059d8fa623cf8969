"""The one way to append to the audit log."""
from __future__ import annotations

from typing import Any

from governance.models import AuditLog


def audit_record(*, event_type: str, actor: str = "", target: Any = None, extra: dict[str, Any] | None = None) -> AuditLog:
    target_type = target._meta.label_lower if target is not None and hasattr(target, "_meta") else ""
    target_id = str(getattr(target, "pk", "") or "") if target is not None else ""
    return AuditLog.objects.create(
        event_type=event_type, actor=actor or "", target_type=target_type, target_id=target_id, extra_data=extra or {}
    )
