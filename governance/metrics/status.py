"""The service overview behind `memory status` (every advertiser) and `GET /api/v1/status`
(scoped to the token's advertisers plus global memories)."""

from __future__ import annotations

from typing import Any


def status_overview(*, advertisers: tuple[str, ...] | None) -> dict[str, Any]:
    """Memory counts inside `advertisers` (plus global memories; None: every advertiser),
    the judge provider and the schedules. Provider and schedules are the same for every
    tenant and say nothing about another tenant's data."""
    from django_q.models import Schedule

    from judges.config import ProviderNotConfigured, resolve_provider_name
    from memories.selectors import memory_status_counts
    from memories.timefmt import iso_local, zone_name

    status = memory_status_counts(advertisers=advertisers)
    try:
        status["provider"] = resolve_provider_name()
    except ProviderNotConfigured as exc:
        # Status is read-only: it reports the missing judge instead of refusing to run.
        status["provider"] = "none"
        status["provider_error"] = str(exc)
    status["time_zone"] = zone_name()
    status["schedules"] = [
        {
            "name": s.name,
            "func": s.func,
            "schedule_type": s.schedule_type,
            "minutes": s.minutes,
            "cron": s.cron or None,
            "next_run": iso_local(s.next_run),
        }
        for s in Schedule.objects.order_by("name")
    ]
    return status
