"""status, search, import, export, embed-backfill."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from memories.cli.base import CliError, Subcommand, parse_layers, progress_bar
from memories.presenters import memory_dict


# --- status ---------------------------------------------------------------------
def _status_args(parser) -> None:
    pass


def _status_run(args) -> dict[str, Any]:
    from lingix_site.status import system_status

    return system_status()


def _status_render(result: dict[str, Any]) -> str:
    lines = [f"provider: {result['provider']}"]
    lines.append("active memories: " + ", ".join(f"{k}={v}" for k, v in result["memories"].items()))
    lines.append("by status: " + ", ".join(f"{k}={v}" for k, v in result["by_status"].items()))
    emb = result["embeddings"]
    lines.append(f"embeddings: {emb['current']}/{result['total']} current ({emb['model']}, {emb['dimension']}d)")
    for key, value in result.items():
        if key not in {"provider", "memories", "by_status", "embeddings", "total"}:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


# --- search ---------------------------------------------------------------------
def _search_args(parser) -> None:
    parser.add_argument("query", help="what to look for (Chinese, English or both)")
    parser.add_argument("--advertiser", help="that advertiser's memories plus global ones; omit for every memory")
    parser.add_argument("--business-line", help="restrict to one business line (global rules always apply)")
    parser.add_argument("--layer", help="comma-separated layers, e.g. L1,L2")
    parser.add_argument("--top-k", type=int, default=5, help="how many results (1-50, default 5)")
    parser.add_argument("--mode", choices=["hybrid", "keyword", "vector"], default="hybrid", help="ranking mode (default hybrid)")
    parser.add_argument("--explain", action="store_true", help="show each result's component scores")


def _search_run(args) -> dict[str, Any]:
    from memories.selectors import MAX_TOP_K, memory_search

    if not 1 <= args.top_k <= MAX_TOP_K:
        raise CliError(f"--top-k must be between 1 and {MAX_TOP_K}")
    response = memory_search(
        query=args.query,
        advertisers=None if args.advertiser is None else (args.advertiser,),
        business_line=args.business_line,
        layers=parse_layers(args.layer),
        top_k=args.top_k,
        mode=args.mode,
    )
    return {
        "query": args.query,
        "results": [
            {**memory_dict(r.memory), "score": round(r.score, 4), "explain": r.explain} for r in response.results
        ],
        "timing_ms": {"embed": round(response.embed_ms, 2), "search": round(response.search_ms, 2)},
        "_explain": args.explain,
    }


def _search_render(result: dict[str, Any]) -> str:
    if not result["results"]:
        return "no matching memories"
    lines = []
    for i, r in enumerate(result["results"], start=1):
        scope = r["advertiser"] or "global"
        lines.append(f"{i}. [{r['layer']}·{scope}] #{r['id']} score={r['score']:.3f}  {r['content']}")
        if result.get("_explain"):
            lines.append("     " + " ".join(f"{k}={v}" for k, v in r["explain"].items()))
    return "\n".join(lines)


# --- import / export ------------------------------------------------------------
def _import_args(parser) -> None:
    parser.add_argument("file", help="JSONL file, one memory per line (see README: import format)")
    parser.add_argument("--dry-run", action="store_true", help="validate every line and report, write nothing")
    parser.add_argument("--no-embed", action="store_true", help="skip embedding now; run embed-backfill later")


def _import_run(args) -> dict[str, Any]:
    from memories.services import embed_backfill
    from memories.transfer import ImportFailed, memories_import

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
        raise CliError(f"import refused, nothing written: {failed.errors[0]}" + (f" (and {len(failed.errors) - 1} more)" if len(failed.errors) > 1 else ""), result) from None
    bar.close()
    result = report.as_dict()
    if not args.dry_run and not args.no_embed and report.imported:
        ebar = progress_bar(report.imported, "embedding")
        result["embedded"] = embed_backfill(progress=ebar.update)["embedded"]
        ebar.close()
    return result


def _export_args(parser) -> None:
    parser.add_argument("--output", help="write to this file instead of stdout")
    parser.add_argument("--advertiser", help="only this advertiser's memories")


def _export_run(args) -> dict[str, Any]:
    from memories.selectors import memories_for_export
    from memories.transfer import export_lines

    if args.output:
        count = 0
        with open(args.output, "w", encoding="utf-8") as handle:
            for line in export_lines(memories_for_export(advertiser=args.advertiser)):
                handle.write(line + "\n")
                count += 1
        return {"exported": count, "output": args.output}
    if args.json:
        raise CliError("export --json needs --output FILE (stdout is the JSONL stream otherwise)")
    count = 0
    for line in export_lines(memories_for_export(advertiser=args.advertiser)):
        sys.stdout.write(line + "\n")
        count += 1
    return {"exported": count, "_streamed": True}


# --- embed-backfill -------------------------------------------------------------
def _backfill_args(parser) -> None:
    parser.add_argument("--batch-size", type=int, default=64, help="texts per embedding call (default 64)")


def _backfill_run(args) -> dict[str, Any]:
    from memories.models import Memory
    from memories.services import embed_backfill, stale_embedding_q

    if not 1 <= args.batch_size <= 2048:
        raise CliError("--batch-size must be between 1 and 2048")
    bar = progress_bar(Memory.objects.filter(stale_embedding_q()).count(), "embedding")
    result = embed_backfill(batch_size=args.batch_size, progress=bar.update)
    bar.close()
    return result


def _seed_demo_run(args) -> dict[str, Any]:
    from memories.demo import demo_load_once

    return demo_load_once()


def _bootstrap_run(args) -> dict[str, Any]:
    from lingix_site.bootstrap import bootstrap

    return bootstrap()


def _bootstrap_render(result: dict[str, Any]) -> str:
    from lingix_site.bootstrap import login_instructions

    return login_instructions(result)


COMMANDS = [
    Subcommand("status", "counts by layer and status, embedding coverage, provider, schedules", _status_args, _status_run, _status_render),
    Subcommand("search", "hybrid keyword + vector retrieval", _search_args, _search_run, _search_render),
    Subcommand("import", "trusted, all-or-nothing bulk load from JSONL (bypasses the judge, audited)", _import_args, _import_run),
    Subcommand("export", "every memory and version as JSONL, in the import format", _export_args, _export_run),
    Subcommand("embed-backfill", "embed memories whose vector is missing or from another model", _backfill_args, _backfill_run),
    Subcommand("bootstrap", "first run: create the admin account and load demo data (both once)", _status_args, _bootstrap_run, _bootstrap_render),
    Subcommand("seed-demo", "load the bundled demo memories unless they were loaded before", _status_args, _seed_demo_run),
]
