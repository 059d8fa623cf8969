"""status, bootstrap, seed-demo: the subcommands about the whole running site."""

from __future__ import annotations

import json
from typing import Any

from django.utils.dateparse import parse_datetime

from governance.metrics.status import status_overview
from lingix_site.bootstrap import bootstrap, login_instructions
from lingix_site.demo import demo_load_once
from memories.cli.base import Subcommand
from memories.timefmt import display_local, zone_label


# --- status ---------------------------------------------------------------------
def _status_args(parser) -> None:
    pass


def _status_run(args) -> dict[str, Any]:
    return status_overview(advertisers=None)


_SCHEDULE_EVERY = {"H": "hourly", "D": "daily", "W": "weekly", "M": "monthly", "Q": "quarterly", "Y": "yearly", "O": "once"}


def _schedule_cadence(schedule: dict[str, Any]) -> str:
    kind = schedule.get("schedule_type")
    if kind == "I" and schedule.get("minutes"):
        minutes = int(schedule["minutes"])
        return f"every {minutes // 60} h" if minutes % 60 == 0 else f"every {minutes} min"
    if kind == "C" and schedule.get("cron"):
        return f"cron {schedule['cron']}"
    return _SCHEDULE_EVERY.get(kind or "", kind or "?")


def _status_render(result: dict[str, Any]) -> str:
    provider = result["provider"]
    if result.get("provider_error"):
        provider += f"  ({result['provider_error']}; ingest and trigger refuse until one is set)"
    lines = [f"judge provider: {provider}"]
    lines.append("active memories: " + ", ".join(f"{k}={v}" for k, v in result["memories"].items()))
    lines.append("by status:       " + ", ".join(f"{k}={v}" for k, v in result["by_status"].items()))
    emb = result["embeddings"]
    lines.append(f"embeddings:      {emb['current']}/{result['total']} current ({emb['model']}, {emb['dimension']}d)")
    if result.get("expired_pending_sweep"):
        lines.append(f"expired, awaiting the next expiry run: {result['expired_pending_sweep']}")
    schedules = result.get("schedules") or []
    lines.append(f"schedules ({len(schedules)}, times in {zone_label()}):")
    width = max((len(s["name"]) for s in schedules), default=0)
    for schedule in schedules:
        next_run = display_local(parse_datetime(schedule["next_run"])) if schedule.get("next_run") else "not planned"
        lines.append(f"  {schedule['name']:<{width}}  {_schedule_cadence(schedule):<14}  next {next_run}")
    shown = {
        "provider",
        "provider_error",
        "memories",
        "by_status",
        "embeddings",
        "total",
        "schedules",
        "time_zone",
        "expired_pending_sweep",
        "scope",
    }
    for key, value in result.items():
        if key not in shown and not key.startswith("_"):
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def _seed_demo_run(args) -> dict[str, Any]:
    return demo_load_once()


def _bootstrap_run(args) -> dict[str, Any]:
    return bootstrap()


def _bootstrap_render(result: dict[str, Any]) -> str:
    return login_instructions(result)


COMMANDS = [
    Subcommand("status", "counts by layer and status, embedding coverage, provider, schedules", _status_args, _status_run, _status_render),
    Subcommand(
        "bootstrap", "first run: create the admin account and load demo data (both once)", _status_args, _bootstrap_run, _bootstrap_render
    ),
    Subcommand("seed-demo", "load the bundled demo memories unless they were loaded before", _status_args, _seed_demo_run),
]
