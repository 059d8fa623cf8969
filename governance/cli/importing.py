"""import: the trusted, audited bulk load (governance.imports) from a JSONL file."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from governance.imports import ImportFailed, memories_import
from memories.cli.base import CliError, Subcommand, progress_bar
from memories.services import embed_backfill


def _import_args(parser) -> None:
    parser.add_argument("file", help="JSONL file, one memory per line (see README: import format)")
    parser.add_argument("--dry-run", action="store_true", help="validate every line and report, write nothing")
    parser.add_argument("--no-embed", action="store_true", help="skip embedding now; run embed-backfill later")


def _import_run(args) -> dict[str, Any]:
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"no such file: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text") from None
    bar = progress_bar(len(lines), "importing")
    try:
        report = memories_import(lines=lines, actor="cli", dry_run=args.dry_run, embed=False, label=path.name, progress=bar.update)
    except ImportFailed as failed:
        bar.close()
        # All-or-nothing: report every problem, write nothing, exit non-zero.
        result = {"imported": 0, "skipped": 0, "errors": failed.errors}
        more = f" (and {len(failed.errors) - 1} more)" if len(failed.errors) > 1 else ""
        raise CliError(f"import refused, nothing written: {failed.errors[0]}{more}", result) from None
    bar.close()
    result = report.as_dict()
    if not args.dry_run and not args.no_embed and report.imported:
        ebar = progress_bar(report.imported, "embedding")
        result["embedded"] = embed_backfill(progress=ebar.update)["embedded"]
        ebar.close()
    return result


COMMANDS = [
    Subcommand("import", "trusted, all-or-nothing bulk load from JSONL (bypasses the judge, audited)", _import_args, _import_run),
]
