"""The service overview behind `memory status` (every advertiser) and `GET /api/v1/status`
(scoped to the token's advertisers plus global memories)."""
from __future__ import annotations

from typing import Any


def status_overview(*, advertisers: tuple[str, ...] | None) -> dict[str, Any]:
    """Memory counts inside `advertisers` (plus global memories; None: every advertiser),
    the judge provider and the schedules. Provider and schedules are the same for every
    tenant and say nothing about another tenant's data."""
    from django_q.models import Schedule

    from governance.providers.config import resolve_provider_name
    from memories.selectors import memory_status_counts

    status = memory_status_counts(advertisers=advertisers)
    status["provider"] = resolve_provider_name()
    status["schedules"] = [
        {"name": s.name, "func": s.func, "next_run": s.next_run.isoformat() if s.next_run else None}
        for s in Schedule.objects.order_by("name")
    ]
    return status
