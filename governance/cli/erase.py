"""erase: remove a memory's words (every version) or a whole advertiser's, leaving
tombstones (governance.write.erase)."""

from __future__ import annotations

from typing import Any

from governance.write.erase import advertiser_erase, memory_erase
from memories.cli.base import CliError, Subcommand


def _erase_args(parser) -> None:
    parser.add_argument("id", nargs="?", type=int, help="the memory to erase (any of its versions)")
    parser.add_argument("--advertiser", help="erase everything of this advertiser instead of one memory")
    parser.add_argument("--reason", required=True, help="why (a client's request, a secret found): kept on the tombstone")
    parser.add_argument("--as", dest="actor", default="cli", help="who is erasing, for the tombstone and the audit log (default: cli)")


def _erase_run(args) -> dict[str, Any]:
    if (args.id is None) == (args.advertiser is None):
        raise CliError("give either a memory id or --advertiser A, not both")
    actor = f"cli:{args.actor}" if args.actor != "cli" else "cli"
    if args.advertiser is not None:
        return advertiser_erase(advertiser=args.advertiser, reason=args.reason, actor=actor).as_dict()
    return memory_erase(memory_id=args.id, reason=args.reason, actor=actor).as_dict()


def _erase_render(result: dict[str, Any]) -> str:
    lines = [f"erased {result['erased']} memories"]
    lines += [
        f"  tombstone #{t['id']}: {t['layer']} memory #{t['memory_id']} v{t['version']} ({t['advertiser'] or 'global'})"
        for t in result["tombstones"]
    ]
    if result.get("unreadable_task_payloads"):
        lines.append(
            f"  {result['unreadable_task_payloads']} django-q task payload(s) could not be unpickled, so were not checked for the"
            f" erased words: tasks {', '.join(result['unreadable_task_ids'])} (delete them in the admin, Django Q > Tasks)"
        )
    storage = result.get("storage") or {}
    if storage.get("vendor") == "sqlite" and not (storage.get("vacuumed") and storage.get("wal_truncated")):
        lines.append("  the database file was not compacted (busy): run VACUUM on it when the service is quiet (docs/erasure.md)")
    return "\n".join(lines)


COMMANDS = [
    Subcommand(
        "erase",
        "remove a memory's words (all versions) or a whole advertiser's from every table; leaves a tombstone",
        _erase_args,
        _erase_run,
        _erase_render,
    ),
]
