"""/recall under a small token budget: whole memories in rank order (before) against
one-line abstracts first with the best expanded (after), over the same search results.

LoCoMo conversations are loaded as bench.locomo loads them (one memory per turn with
its two earlier turns as context, one advertiser per conversation, imported through
governance.write.imports, which makes the abstracts); every question is searched once with
memory_search and both renderers fill the same budget from the same ranked hits. A
question counts as recalled when a memory holding one of its evidence turns is in the
block, whatever detail it shows.

    python -m bench.recall_budget --json [--budget 300] [--conversations 3] [--top-k 20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench._common import Progress, emit, setup_throwaway_django
from bench.locomo import DEFAULT_DATA, TurnFormat, advertiser_for, build_store, load_locomo


def _measure(questions, dia_of: dict[int, str], *, budget: int, top_k: int, progress: Progress) -> dict[str, Any]:
    from django.utils import timezone

    from api.recall import render_block, render_tiered
    from memories.selectors import memory_search

    renderers = {"full (before)": render_block, "tiered (after)": render_tiered}
    sums: dict[str, dict[str, float]] = {
        name: {"memories": 0.0, "recalled": 0.0, "evidence_shown": 0.0, "tokens": 0.0, "expanded": 0.0} for name in renderers
    }
    ranked_recall = 0.0
    now = timezone.now()
    for n, q in enumerate(questions, start=1):
        response = memory_search(
            query=q.question, advertisers=(advertiser_for(q.conversation),), include_global=False, top_k=top_k, record_access=False
        )
        hits = [(r.memory, r.score) for r in response.results]
        gold = set(q.evidence)
        ranked_recall += any(dia_of.get(m.pk) in gold for m, _ in hits)
        for name, render in renderers.items():
            block = render(hits, budget_tokens=budget, now=now)
            shown = {dia_of.get(line.memory.pk) for line in block.lines}
            row = sums[name]
            row["memories"] += len(block.lines)
            row["recalled"] += bool(shown & gold)
            row["evidence_shown"] += len(shown & gold) / len(gold)
            row["tokens"] += block.tokens
            row["expanded"] += sum(1 for line in block.lines if line.detail != "line")
        if n % 200 == 0:
            progress(f"{n}/{len(questions)} questions")
    count = max(1, len(questions))
    table = {
        name: {
            "distinct_memories_per_block": round(row["memories"] / count, 3),
            "recall": round(row["recalled"] / count, 4),
            "evidence_coverage": round(row["evidence_shown"] / count, 4),
            "mean_tokens": round(row["tokens"] / count, 1),
            "memories_shown_beyond_one_line": round(row["expanded"] / count, 3),
        }
        for name, row in sums.items()
    }
    before, after = table["full (before)"], table["tiered (after)"]
    return {
        "budget_tokens": budget,
        "top_k": top_k,
        "questions": len(questions),
        "recall_of_ranked_hits": round(ranked_recall / count, 4),
        "results": table,
        "distinct_memories_ratio_after_over_before": round(
            after["distinct_memories_per_block"] / max(1e-9, before["distinct_memories_per_block"]), 3
        ),
        "recall_delta": round(after["recall"] - before["recall"], 4),
    }


def _render(doc: dict[str, Any]) -> str:
    lines = [
        f"/recall at {doc['budget_tokens']} tokens, top_k {doc['top_k']}, {doc['questions']} LoCoMo questions "
        f"(recall of the ranked hits: {doc['recall_of_ranked_hits']})",
        f"{'renderer':<16} {'memories/block':>14} {'recall':>8} {'evidence':>9} {'tokens':>7} {'expanded':>9}",
    ]
    for name, row in doc["results"].items():
        lines.append(
            f"{name:<16} {row['distinct_memories_per_block']:>14} {row['recall']:>8} {row['evidence_coverage']:>9} "
            f"{row['mean_tokens']:>7} {row['memories_shown_beyond_one_line']:>9}"
        )
    ratio = doc["distinct_memories_ratio_after_over_before"]
    lines.append(f"distinct memories after/before: {ratio}x; recall delta {doc['recall_delta']:+}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_budget", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"locomo10.json (default {DEFAULT_DATA})")
    parser.add_argument("--conversations", type=int, default=3, help="the first N conversations (default 3; 0 for all)")
    parser.add_argument("--limit-questions", type=int, default=None, help="only the first N usable questions")
    parser.add_argument("--budget", type=int, default=300, help="recall token budget (default 300)")
    parser.add_argument("--top-k", type=int, default=20, help="ranked hits both renderers choose from (default 20)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if not args.data.exists():
        sys.stderr.write(f"LoCoMo data not found at {args.data} (give --data)\n")
        return 2
    progress = Progress(quiet=args.quiet)
    setup_throwaway_django("recall-budget")
    turns, questions, _ = load_locomo(args.data, args.conversations or None)
    if args.limit_questions:
        questions = questions[: args.limit_questions]
    dia_of = build_store(turns, TurnFormat(), progress)
    progress(f"searching {len(questions)} questions")
    emit(_measure(questions, dia_of, budget=args.budget, top_k=args.top_k, progress=progress), args.json, _render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
