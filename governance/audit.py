"""The one way to append to the audit log. Its details are scrubbed of credentials and
personal data like every other stored text: an audit row outlives the change it records."""

from __future__ import annotations

from typing import Any

from governance.constants import AuditEvent
from governance.models import AuditLog
from textrules.safety import redact, scan_data


def audit_record(*, event_type: AuditEvent, actor: str = "", target: Any = None, extra: dict[str, Any] | None = None) -> AuditLog:
    target_type = target._meta.label_lower if target is not None and hasattr(target, "_meta") else ""
    target_id = str(getattr(target, "pk", "") or "") if target is not None else ""
    clean_extra, _ = scan_data(extra or {})
    return AuditLog.objects.create(
        event_type=event_type, actor=redact(actor or ""), target_type=target_type, target_id=target_id, extra_data=clean_extra
    )
