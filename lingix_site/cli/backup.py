"""backup and restore."""

from __future__ import annotations

from typing import Any

from memories.cli.base import CliError, Subcommand


def _backup_args(parser) -> None:
    parser.add_argument("file", help="new file to write (SQLite database file, or pg_dump custom format on PostgreSQL)")


def _backup_run(args) -> dict[str, Any]:
    from lingix_site.backup import database_backup

    return database_backup(path=args.file)


def _restore_args(parser) -> None:
    parser.add_argument("file", help="a file written by `memory backup`")
    parser.add_argument("--yes", action="store_true", help="confirm: every current memory, event and trace is replaced")


def _restore_run(args) -> dict[str, Any]:
    from lingix_site.backup import database_restore

    if not args.yes:
        raise CliError("restore replaces the whole database; add --yes to confirm")
    return database_restore(path=args.file, actor="cli")


COMMANDS = [
    Subcommand("backup", "consistent online backup of the whole database", _backup_args, _backup_run),
    Subcommand("restore", "replace the whole database with a backup (needs --yes)", _restore_args, _restore_run),
]
