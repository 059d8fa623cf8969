"""Chinese ad-ops retrieval through the real stack: recall@5, recall@10 and MRR.

The set (bench/data/zh_adops_retrieval.json, built by bench/data/zh_adops_build.py) holds
ad-ops notes of eight advertisers plus global rules and labelled queries: paraphrases, two
short terms (出价, 预算, 大促), Chinese mixed with English, queries answered by a global rule
inside an advertiser's scope, operator-view queries and queries that name a month only the
memory's event time carries. Memories are imported through governance.write.imports with their
event time as created_at and embedded by the configured embedder; each query is searched
with memory_search in the scope it names (that advertiser plus global memories, or every
memory when it names none).

    python -m bench.zh_adops --json [--modes keyword,vector,hybrid,deep]
        [--no-dates] [--ranking JSON] [--variants JSON]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench._common import (
    LabelledQuery,
    Progress,
    RecallTally,
    emit,
    import_line,
    imported_store,
    parse_modes,
    render_by_kind,
    score_queries,
    setup_throwaway_django,
)
from bench.ranking_variants import add_variant_arguments, rank_every_variant, variants_for_run

DATA = Path(__file__).resolve().parent / "data" / "zh_adops_retrieval.json"
MODES = ("keyword", "vector", "hybrid", "deep")
KS = (5, 10)


def dated_content(content: str, created_at: str) -> str:
    """The memory's event date written into its text, the way an importer that knows when
    a note was observed writes it."""
    when = datetime.fromisoformat(created_at)
    return f"（{when.year}年{when.month}月{when.day}日）{content}"


def build_store(memories: list[dict[str, Any]], dates: bool, progress: Progress, reuse: bool = True) -> dict[int, str]:
    """Import the set's notes (dated when `dates`) and embed them; returns id → key."""
    lines = [
        import_line(
            layer=m["layer"],
            content=dated_content(m["content"], m["created_at"]) if dates else m["content"],
            advertiser=m["advertiser"],
            source="human",
            created_at=m["created_at"],
            data={"key": m["key"]},
        )
        for m in memories
    ]
    return imported_store("zh_adops", lines, key="key", progress=progress, reuse=reuse, what="memories")


def evaluate(queries: list[dict[str, Any]], key_of: dict[int, str], mode: str, config: Any) -> dict[str, Any]:
    tally = RecallTally(KS, mrr=True)
    labelled = [
        LabelledQuery(
            text=q["query"],
            gold=set(q["gold"]),
            buckets=("overall", q["kind"]),
            advertisers=(q["advertiser"],) if q["advertiser"] else None,
        )
        for q in queries
    ]
    run = score_queries(labelled, key_of, mode=mode, top_k=max(KS), config=config, tally=tally)
    return {
        "overall": tally.summary("overall"),
        "by_kind": {kind: tally.summary(kind) for kind in sorted(tally.buckets(), key=str) if kind != "overall"},
        "latency_ms": run.latency(),
        **({"fallbacks": run.fallbacks, "deep_hooks": run.deep_hooks} if mode == "deep" else {}),
    }


def render(doc: dict[str, Any]) -> str:
    return render_by_kind(
        f"Chinese ad-ops retrieval: {doc['queries']} queries over {doc['memories']} memories (dates in text: {doc['dates']})",
        doc["results"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.zh_adops", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--data", type=Path, default=DATA, help=f"the labelled set (default {DATA})")
    parser.add_argument("--modes", default="keyword,vector,hybrid,deep", help="comma-separated subset of " + ",".join(MODES))
    parser.add_argument("--dates", action="store_true", help="write each memory's event date into its text (the default)")
    parser.add_argument("--no-dates", action="store_true", help="leave the event date out of each memory's text")
    add_variant_arguments(parser)
    parser.add_argument("--no-store-cache", action="store_true", help="import afresh (default: reuse an identical imported store)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    modes = parse_modes("bench.zh_adops", args.modes, MODES)
    if modes is None:
        return 2
    try:
        doc_in = json.loads(args.data.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"bench.zh_adops: error: {exc}\n")
        return 2
    progress = Progress(args.quiet)
    started = time.perf_counter()
    setup_throwaway_django("zh-adops")
    variants = variants_for_run("bench.zh_adops", args)
    if variants is None:
        return 2
    dates = not args.no_dates
    key_of = build_store(doc_in["memories"], dates, progress, reuse=not args.no_store_cache)

    def rank(mode: str, config: Any) -> dict[str, Any]:
        result = evaluate(doc_in["queries"], key_of, mode, config)
        progress(f"{mode}: recall@10 {result['overall']['recall@10']}")
        return result

    results = rank_every_variant(variants, modes, args.variant_modes, rank)
    from memories.embeddings import get_embedder

    doc = {
        "memories": len(doc_in["memories"]),
        "queries": len(doc_in["queries"]),
        "dates": dates,
        "results": results,
        "variants": variants,
        "embedder": get_embedder().model_name,
        "timing_s": round(time.perf_counter() - started, 1),
    }
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
