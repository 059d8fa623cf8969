"""Times as people and programs read them: always in the configured zone (settings.TIME_ZONE),
always labelled. Machine output keeps ISO 8601 with the offset; human output adds the zone name."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone


def zone_name() -> str:
    return timezone.get_default_timezone_name()


def local_time(value: datetime) -> datetime:
    """An aware time in the configured zone (naive values are taken as already local)."""
    if timezone.is_naive(value):
        return timezone.make_aware(value, timezone.get_default_timezone())
    return timezone.localtime(value, timezone.get_default_timezone())


def iso_local(value: datetime | None) -> str | None:
    """ISO 8601 with the configured zone's offset, e.g. 2026-11-11T20:00:00+08:00."""
    return local_time(value).isoformat() if value else None


def _offset(local: datetime) -> str:
    raw = local.strftime("%z")
    return f"{raw[:3]}:{raw[3:]}"


def zone_label() -> str:
    """The configured zone and its current offset, e.g. Asia/Shanghai (UTC+08:00)."""
    return f"{zone_name()} (UTC{_offset(local_time(timezone.now()))})"


def display_local(value: datetime | None, *, seconds: bool = False) -> str:
    """For people: 2026-11-11 20:00 +08:00 (Asia/Shanghai)."""
    if not value:
        return "—"
    local = local_time(value)
    clock = local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    return f"{clock} {_offset(local)} ({zone_name()})"
