"""maintain, reflect: run the scheduled jobs once, now."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memories.cli.base import CliError, Subcommand, plain_text

TASKS = ("expire", "promote", "evict", "backfill", "organise", "snapshot", "vector-log")


def _as_of(raw: str | None) -> datetime:
    from django.utils import timezone
    from django.utils.dateparse import parse_datetime

    if not raw:
        return timezone.now()
    try:
        when = parse_datetime(raw)
    except ValueError:
        when = None
    if when is None:
        raise CliError(f"--as-of {raw!r} is not an ISO-8601 date-time (e.g. 2026-12-31T09:00:00+08:00)")
    return when if timezone.is_aware(when) else timezone.make_aware(when)


def _run_task(name: str, now: datetime) -> dict[str, Any]:
    if name == "expire":
        from governance.lifecycle.expire import memories_expire

        return memories_expire(now=now, actor="cli")
    if name == "promote":
        from governance.lifecycle.promote import memories_promote

        return memories_promote(now=now, actor="cli")
    if name == "evict":
        from governance.lifecycle.evict import memories_decay_and_evict

        return memories_decay_and_evict(now=now)
    if name == "backfill":
        from governance.write.memory import governed_claims_backfill
        from memories.lifecycle.backfill import embeddings_backfill

        return {**embeddings_backfill(now=now), "claims": governed_claims_backfill()}
    if name == "organise":
        from governance.knowledge.organise.backfill import memories_organise, memories_unorganised_count
        from memories.cli.base import progress_bar

        with progress_bar(memories_unorganised_count(), "organising") as bar:
            return memories_organise(now=now, progress=bar.update)
    if name == "vector-log":
        from memories.lifecycle.vector_log import vector_log_prune

        return vector_log_prune()
    from governance.metrics.snapshots import metric_snapshot_take

    return {"snapshot_id": metric_snapshot_take(now=now).pk}


def _maintain_args(parser) -> None:
    parser.add_argument(
        "--task",
        choices=[*TASKS, "all"],
        default="all",
        help=(
            "which job to run (default all); organise gives memories written before kinds, categories and abstracts existed all three; "
            "vector-log trims the vector index's deletion log (SQLite; a search never writes it), keeping the newest deletes"
        ),
    )
    parser.add_argument("--as-of", help="evaluate as if it were this ISO-8601 time (drills; default now)")


def _maintain_run(args) -> dict[str, Any]:
    now = _as_of(args.as_of)
    names = TASKS if args.task == "all" else (args.task,)
    result: dict[str, Any] = {}
    failed = []
    for name in names:
        try:
            result[name] = _run_task(name, now)
        except Exception as exc:  # one failing job must not hide the others' results
            first_line = str(exc).splitlines()[0] if str(exc) else ""
            result[name] = {"error": f"{type(exc).__name__}: {first_line}"}
            failed.append(name)
    if failed:
        raise CliError(f"{', '.join(failed)} failed: {result[failed[0]]['error']}", result)
    return result


def _maintain_render(result: dict[str, Any]) -> str:
    lines = []
    for name, outcome in result.items():
        shown = {k: v for k, v in outcome.items() if k != "memory_ids"}
        lines.append(f"{name}:")
        lines.extend(f"  {line}" for line in plain_text(shown).splitlines())
    return "\n".join(lines)


def _reflect_args(parser) -> None:
    parser.add_argument("--window-days", type=int, default=None, help="how far back to look (default 30)")
    parser.add_argument("--as-of", help="evaluate as if it were this ISO-8601 time (drills; default now)")


def _reflect_run(args) -> dict[str, Any]:
    from governance.lifecycle.reflection import reflection_run

    if args.window_days is not None and not 1 <= args.window_days <= 3650:
        raise CliError("--window-days must be between 1 and 3650")
    return reflection_run(actor="cli", now=_as_of(args.as_of), window_days=args.window_days)


def _reflect_render(result: dict[str, Any]) -> str:
    lines = [f"reflection report #{result['report_id']}: {result['summary']}"]
    for finding in result.get("stale", []):
        lines.append(f"  stale #{finding['memory_id']} [{finding['layer']}] idle {finding['idle_days']}d: {finding['content'][:60]}")
    for finding in result.get("contradictions", []):
        lines.append(f"  contradiction #{finding['memory_id']} ↔ #{finding['related_memory_id']} ({finding['type']}: {finding['detail']})")
    for finding in result.get("repeated_rejects", []):
        lines.append(f"  repeated reject by {finding['actor']} ×{finding['count']}: {finding.get('text') or finding.get('reason')}")
    for finding in result.get("consolidations", []):
        where = f"review item #{finding['review_item_id']}" if finding.get("review_item_id") else finding["status"]
        lines.append(f"  consolidation of #{', #'.join(map(str, finding['source_ids']))} → semantic ({where})")
    return "\n".join(lines)


COMMANDS = [
    Subcommand("maintain", "run the scheduled lifecycle jobs once, now", _maintain_args, _maintain_run, _maintain_render),
    Subcommand(
        "reflect", "one reflection pass: stale memories, contradictions, repeated rejects", _reflect_args, _reflect_run, _reflect_render
    ),
]
