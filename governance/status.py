"""The system overview shared by `memory status` and `GET /api/v1/status`."""
from __future__ import annotations

from typing import Any


def system_status() -> dict[str, Any]:
    from django_q.models import Schedule

    from governance.providers.config import resolve_provider_name
    from memories.selectors import memory_status_counts

    status = memory_status_counts()
    status["provider"] = resolve_provider_name()
    status["schedules"] = [
        {"name": s.name, "func": s.func, "next_run": s.next_run.isoformat() if s.next_run else None}
        for s in Schedule.objects.order_by("name")
    ]
    return status
