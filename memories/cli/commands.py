"""search, list, export, embed-backfill: the subcommands that only read memories or fill their vectors."""

from __future__ import annotations

import sys
from typing import Any

from memories.cli.base import CliError, Subcommand, one_line, parse_layers, progress_bar
from memories.presenters import memory_dict


# --- search ---------------------------------------------------------------------
def _search_args(parser) -> None:
    parser.add_argument("query", help="what to look for (Chinese, English or both)")
    parser.add_argument("--advertiser", help="that advertiser's memories plus global ones; omit for every memory")
    parser.add_argument("--business-line", help="restrict to one business line (global rules always apply)")
    parser.add_argument("--layer", help="comma-separated layers, e.g. L1,L2")
    parser.add_argument("--top-k", type=int, default=5, help="how many results (1-50, default 5)")
    parser.add_argument(
        "--mode",
        choices=["hybrid", "fast", "keyword", "vector", "deep"],
        default="hybrid",
        help="hybrid (= fast, the default), keyword or vector alone, or deep: the query rewritten into sub-queries, "
        "their results fused and reranked (by the gateway model when one is configured, else offline rules)",
    )
    parser.add_argument("--explain", action="store_true", help="show each result's component scores")
    parser.add_argument("--kind", help="episodic (what happened), semantic (what holds), or both comma-separated")
    parser.add_argument("--category", help="a category path and everything under it, e.g. '医药OTC › 冷启动' or 医药OTC/冷启动")
    parser.add_argument("--as-of", help="ISO-8601 time: search the memories as they were then (e.g. 2026-11-11T12:00+08:00)")


def parse_as_of(raw: str | None):
    """An ISO-8601 time (UTC when it has no offset), or None."""
    from datetime import UTC, datetime

    if not raw:
        return None
    try:
        value = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise CliError(f"--as-of must be an ISO-8601 time such as 2026-11-11 or 2026-11-11T12:00+08:00, got {raw!r}") from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _parse_kinds(raw: str | None) -> tuple[str, ...] | None:
    from memories.constants import MemoryKind

    if not raw:
        return None
    kinds = tuple(dict.fromkeys(k.strip().lower() for k in raw.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in MemoryKind.values]
    if unknown or not kinds:
        raise CliError(f"--kind must be episodic, semantic or both, got {raw!r}")
    return kinds


def _search_run(args) -> dict[str, Any]:
    from memories.selectors import MAX_TOP_K, memory_search

    if not args.query.strip():
        raise CliError('the query is empty; give the words to look for, e.g. memory search "双11 出价"')
    if not 1 <= args.top_k <= MAX_TOP_K:
        raise CliError(f"--top-k must be between 1 and {MAX_TOP_K}")
    scope = {
        "advertisers": None if args.advertiser is None else (args.advertiser,),
        "business_line": args.business_line,
        "layers": parse_layers(args.layer),
        "top_k": args.top_k,
        "kinds": _parse_kinds(args.kind),
        "category": args.category,
        "as_of": parse_as_of(args.as_of),
    }
    if args.mode == "deep":
        from memories.search.deep import deep_search

        response = deep_search(query=args.query, **scope)
        extra = {"mode": "deep", "deep": response.deep}
    else:
        mode = "hybrid" if args.mode == "fast" else args.mode
        response = memory_search(query=args.query, mode=mode, **scope)
        extra = {"mode": mode}
    if scope["as_of"] is not None:
        extra["as_of"] = scope["as_of"].isoformat()
    return {
        **extra,
        "query": args.query,
        "results": [{**memory_dict(r.memory), "score": round(r.score, 4), "explain": r.explain} for r in response.results],
        "timing_ms": {"embed": round(response.embed_ms, 2), "search": round(response.search_ms, 2)},
        "query_embedding": response.query_embedding,
        "_explain": args.explain,
    }


def _search_render(result: dict[str, Any]) -> str:
    if not result["results"]:
        return "no matching memories"
    lines = []
    deep = result.get("deep") or {}
    if deep.get("fallback"):
        lines.append(f"(deep mode fell back to the fast result: {deep['fallback']})")
    for i, r in enumerate(result["results"], start=1):
        scope = r["advertiser"] or "global"
        kind = f"·{r['kind']}" if r.get("kind") else ""
        lines.append(f"{i}. [{r['layer']}·{scope}{kind}] #{r['id']} score={r['score']:.3f}  {r['content']}")
        if result.get("_explain"):
            lines.append("     " + " ".join(f"{k}={v}" for k, v in r["explain"].items()))
    return "\n".join(lines)


# --- list -----------------------------------------------------------------------
def _list_args(parser) -> None:
    parser.add_argument("--layer", help="comma-separated layers, e.g. L1,L2")
    parser.add_argument("--advertiser", help="that advertiser's memories plus global ones; omit for every memory")
    parser.add_argument("--without-global", action="store_true", help="with --advertiser: leave the global memories out")
    parser.add_argument(
        "--status",
        help="comma-separated statuses (active, pending_review, superseded, expired, archived) or all; "
        "default active, or every status with --as-of",
    )
    parser.add_argument("--kind", help="episodic (what happened), semantic (what holds), or both comma-separated")
    parser.add_argument("--category", help="a category path and everything under it, e.g. '医药OTC › 冷启动' or 医药OTC/冷启动")
    parser.add_argument("--as-of", help="ISO-8601 time: the memories valid then (a version superseded since, not its successor)")
    parser.add_argument("--limit", type=int, default=50, help="at most this many, newest first (1-500, default 50)")


def _parse_statuses(raw: str | None) -> tuple[str, ...] | None:
    from memories.constants import Status

    if not raw or raw.strip().lower() == "all":
        return None if not raw else tuple(Status.values)
    statuses = tuple(dict.fromkeys(s.strip().lower() for s in raw.split(",") if s.strip()))
    unknown = [s for s in statuses if s not in Status.values]
    if unknown or not statuses:
        raise CliError(f"unknown status {(unknown or [raw])[0]!r}; use {', '.join(Status.values)} or all (comma-separated)")
    return statuses


def _list_run(args) -> dict[str, Any]:
    from memories.selectors import MAX_LIST, memories_list

    if not 1 <= args.limit <= MAX_LIST:
        raise CliError(f"--limit must be between 1 and {MAX_LIST}")
    if args.without_global and args.advertiser is None:
        raise CliError("--without-global needs --advertiser A")
    as_of = parse_as_of(args.as_of)
    page = memories_list(
        layers=parse_layers(args.layer),
        advertisers=None if args.advertiser is None else (args.advertiser,),
        include_global=not args.without_global,
        statuses=_parse_statuses(args.status),
        kinds=_parse_kinds(args.kind),
        category=args.category,
        as_of=as_of,
        limit=args.limit,
    )
    return {
        **({"as_of": as_of.isoformat()} if as_of is not None else {}),
        "items": [memory_dict(m) for m in page.memories],
        "total": page.total,
    }


def _list_render(result: dict[str, Any]) -> str:
    if not result["items"]:
        return "no memories match" + (f" (as of {result['as_of']})" if "as_of" in result else "")
    lines = [
        f"#{m['id']:<6} {m['layer']}  {m['advertiser'] or 'global':<12} {m['status']:<14} v{m['version']:<3} {one_line(m['content'])}"
        for m in result["items"]
    ]
    if result["total"] > len(result["items"]):
        lines.append(f"({len(result['items'])} of {result['total']}, newest first; --limit N shows more)")
    return "\n".join(lines)


# --- export ------------------------------------------------------------
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


def _export_render(result: dict[str, Any]) -> str:
    return f"exported {result['exported']} memories (every version) to {result['output']}"


# --- embed-backfill -------------------------------------------------------------
def _backfill_args(parser) -> None:
    parser.add_argument("--batch-size", type=int, default=64, help="texts per embedding call (default 64)")


def _backfill_run(args) -> dict[str, Any]:
    from memories.embeddings.store import embed_backfill, stale_embedding_q
    from memories.models import Memory

    if not 1 <= args.batch_size <= 2048:
        raise CliError("--batch-size must be between 1 and 2048")
    bar = progress_bar(Memory.objects.filter(stale_embedding_q()).count(), "embedding")
    result = embed_backfill(batch_size=args.batch_size, progress=bar.update)
    bar.close()
    return result


COMMANDS = [
    Subcommand("search", "hybrid keyword + vector retrieval", _search_args, _search_run, _search_render),
    Subcommand("list", "memories, one line each (layer, advertiser, status, kind, category, --as-of)", _list_args, _list_run, _list_render),
    Subcommand("export", "every memory and version as JSONL, in the import format", _export_args, _export_run, _export_render),
    Subcommand("embed-backfill", "embed memories whose vector is missing or from another model", _backfill_args, _backfill_run),
]
