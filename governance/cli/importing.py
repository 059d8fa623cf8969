"""import: the trusted, audited bulk load (governance.write.imports) from a JSONL file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from governance.write.imports import ImportFailed, memories_import
from memories.cli.base import CliError, Subcommand, progress_bar
from memories.embeddings.store import embed_backfill


def _import_args(parser) -> None:
    parser.add_argument("file", help="JSONL file, one memory per line (see docs/cli.md: import format)")
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
        raise CliError(import_refusal_message(failed.errors), result) from None
    bar.close()
    result = report.as_dict()
    if not args.dry_run and not args.no_embed and report.imported:
        ebar = progress_bar(report.imported, "embedding")
        result["embedded"] = embed_backfill(progress=ebar.update)["embedded"]
        ebar.close()
    return result


def import_refusal_message(errors: list[str]) -> str:
    """Every problem, one per line, so the operator can fix the file in one pass."""
    if len(errors) == 1:
        return f"import refused, nothing written: {errors[0]}"
    return f"import refused, nothing written; {len(errors)} problems:\n" + "\n".join(f"  {e}" for e in errors)


def _import_render(result: dict[str, Any]) -> str:
    verb = "would import" if result.get("dry_run") else "imported"
    lines = [f"{verb} {result['imported']} memories, skipped {result['skipped']} already present"]
    if "embedded" in result:
        lines.append(f"embedded {result['embedded']}")
    if result.get("dry_run"):
        lines.append("dry run: nothing was written")
    lines.extend(f"  note: {e}" for e in result.get("errors") or [])
    return "\n".join(lines)


COMMANDS = [
    Subcommand(
        "import", "trusted, all-or-nothing bulk load from JSONL (bypasses the judge, audited)", _import_args, _import_run, _import_render
    ),
]
