"""LoCoMo turn-level evidence retrieval through the real stack.

Each conversation becomes one advertiser (so the product's advertiser scoping keeps the
conversations apart); each turn becomes one memory imported through governance.write.imports and
embedded by the configured embedder; every question of categories 1–4 is searched with
memory_search in keyword, vector and hybrid mode. Evidence ids that name no turn are
dropped, and a question left without evidence is skipped.

    python -m bench.locomo --json [--data PATH] [--conversations N] [--limit-questions N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench._common import (
    REPO,
    LabelledQuery,
    Progress,
    RecallTally,
    emit,
    import_line,
    imported_store,
    parse_modes,
    score_queries,
    setup_throwaway_django,
)
from bench.ranking_variants import add_variant_arguments, rank_every_variant, ranking_with, variants_for_run

DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MODES = ("keyword", "vector", "hybrid", "deep")
KS = (5, 10)


@dataclass(frozen=True)
class TurnFormat:
    """How a turn is written into its memory. `context` earlier turns of the same session
    are appended after the turn itself (marked as context), so a reply like "Yes, last
    Tuesday!" carries what it answers; `dates` prefixes the session's date.

    Two earlier turns: the best of 0, 1 and 2 without dates (3 or more not measured).
    Full run, bench ranking, recall@10: hybrid 0.696 → 0.723, keyword 0.674 → 0.690,
    vector 0.538 → 0.613. On conversations 1–3, hybrid recall@10: context 0 0.657, 1
    0.726, 2 0.755; one following turn on top of context 1 0.732; dates on top of context
    1 0.734, on top of context 2 0.772. Issue 14 measured dates on both retrieval sets
    (bench.zh_adops too) and they helped both, so they are on by default: the session date
    is the turn's event time, never the import time (`--no-dates` leaves them out)."""

    context: int = 2
    following: int = 0
    dates: bool = True


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str
    session: int
    session_date: str


@dataclass
class Question:
    conversation: str
    question: str
    category: int
    evidence: list[str]


def _session_datetime(raw: str) -> datetime | None:
    """'1:56 pm on 8 May, 2023' → an aware datetime (UTC); None when unparseable."""
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def load_locomo(path: Path, conversations: int | None) -> tuple[dict[str, list[Turn]], list[Question], dict[str, int]]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    if conversations:
        samples = samples[:conversations]
    turns: dict[str, list[Turn]] = {}
    questions: list[Question] = []
    stats = {"questions_total": 0, "evidence_dropped": 0, "questions_skipped": 0}
    for sample in samples:
        conv = sample["conversation"]
        name = str(sample.get("sample_id") or f"conv-{len(turns)}")
        keys = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        conv_turns: list[Turn] = []
        for s in keys:
            for turn in conv.get(f"session_{s}") or []:
                conv_turns.append(
                    Turn(
                        dia_id=turn["dia_id"],
                        speaker=turn.get("speaker", ""),
                        text=turn.get("text", ""),
                        caption=turn.get("blip_caption", "") or "",
                        session=s,
                        session_date=conv.get(f"session_{s}_date_time", ""),
                    )
                )
        turns[name] = conv_turns
        known = {t.dia_id for t in conv_turns}
        for qa in sample["qa"]:
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            stats["questions_total"] += 1
            raw = [e for e in qa.get("evidence", []) if isinstance(e, str)]
            evidence = [e for e in dict.fromkeys(raw) if e in known]
            stats["evidence_dropped"] += len(raw) - len(evidence)
            if not evidence:
                stats["questions_skipped"] += 1
                continue
            questions.append(Question(conversation=name, question=str(qa["question"]), category=category, evidence=evidence))
    return turns, questions, stats


def turn_content(turns: list[Turn], index: int, fmt: TurnFormat) -> str:
    turn = turns[index]
    line = f"{turn.speaker}: {turn.text}"
    if turn.caption:
        line += f" [shares a photo: {turn.caption}]"
    if fmt.dates and turn.session_date:
        line = f"({turn.session_date}) {line}"
    before = [t for t in turns[max(0, index - fmt.context) : index] if t.session == turn.session] if fmt.context else []
    after = [t for t in turns[index + 1 : index + 1 + fmt.following] if t.session == turn.session]
    if before or after:
        line += "\n[context] " + " | ".join(f"{t.speaker}: {t.text}" for t in [*before, *after])
    return line


def advertiser_for(conversation: str) -> str:
    return f"locomo-{conversation}"[:64]


def build_store(turns: dict[str, list[Turn]], fmt: TurnFormat, progress: Progress, reuse: bool = False) -> dict[int, str]:
    """Import every turn through the real import path and embed it; returns id → dia_id."""
    lines = []
    for conversation, conv_turns in turns.items():
        for i, turn in enumerate(conv_turns):
            when = _session_datetime(turn.session_date)
            lines.append(
                import_line(
                    layer="L2",
                    content=turn_content(conv_turns, i, fmt),
                    advertiser=advertiser_for(conversation),
                    source="user",
                    created_at=when.isoformat() if when else None,
                    data={"dia_id": turn.dia_id},
                )
            )
    total = len(lines)
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        if done[0] % 1024 < n or done[0] == total:
            progress(f"embedded {done[0]}/{total}")

    what = f"turns from {len(turns)} conversations"
    return imported_store("locomo", lines, key="dia_id", progress=progress, reuse=reuse, what=what, embed_progress=tick)


def evaluate(
    questions: list[Question],
    dia_of: dict[int, str],
    modes: tuple[str, ...],
    config: Any,
    progress: Progress,
) -> dict[str, Any]:
    labelled = [
        LabelledQuery(
            text=q.question,
            gold=set(q.evidence),
            buckets=("overall", q.category),
            advertisers=(advertiser_for(q.conversation),),
            include_global=False,
        )
        for q in questions
    ]
    per_mode: dict[str, Any] = {}
    for mode in modes:
        tally = RecallTally(KS, hit_at=10)

        def tick(n: int, mode: str = mode) -> None:
            if n % 250 == 0:
                progress(f"{mode}: {n}/{len(questions)} questions")

        run = score_queries(labelled, dia_of, mode=mode, top_k=max(KS), config=config, tally=tally, progress=tick)
        per_mode[mode] = {
            "overall": tally.summary("overall"),
            "by_category": {f"{c}-{CATEGORIES[c]}": tally.summary(c) for c in sorted(CATEGORIES) if c in tally},
            "search_ms_mean": round(sum(run.search_ms) / max(1, len(run.search_ms)), 2),
            # Whole call, query embedding included (deep mode embeds several sub-queries).
            "latency_ms": run.latency(),
        }
        if mode == "deep":
            # Which rewriter and reranker answered (the cross-encoder when MEMORY_RERANK_ENDPOINT
            # is set), and how often it failed and the fast result stood in.
            per_mode[mode].update(fallbacks=run.fallbacks, deep_hooks=run.deep_hooks)
        progress(f"{mode}: recall@10 {per_mode[mode]['overall']['recall@10']}")
    return per_mode


def bench_ranking(product_defaults: bool = False):
    """The ranking the benchmark uses: the product default (weights 0.4/0.6, no MMR
    duplicate cut-off, every candidate scored by both arms) with the FTS scoring budget
    lifted: that budget exists for 100k-row stores, this one has 5.9k rows, so scoring is
    left exact. `--product-defaults` keeps the budget too.

    Each memory carries its previous turns, so neighbouring memories are near-duplicates by
    construction; a duplicate cut-off (0.97) cost ~0.1 recall@10 on conversations 1–3.
    The fusion history is in docs/benchmarks/retrieval-quality.md."""
    from memories.search import fts
    from memories.search.hybrid import DEFAULT_RANKING

    if product_defaults:
        return DEFAULT_RANKING
    fts.SCORED_ROWS_BUDGET = 10**9
    return DEFAULT_RANKING


def render(doc: dict[str, Any]) -> str:
    lines = [f"LoCoMo turn retrieval: {doc['questions']} questions, {doc['turns']} turns, {doc['conversations']} conversations"]
    lines.append(f"{'mode':8} {'scope':16} {'R@5':>6} {'R@10':>6} {'hit@10':>6} {'n':>5}")
    for mode in (*MODES, "hybrid_entities_off"):
        if mode not in doc:
            continue
        rows = [("overall", doc[mode]["overall"]), *doc[mode]["by_category"].items()]
        for scope, row in rows:
            lines.append(f"{mode:8} {scope:16} {row['recall@5']:6.3f} {row['recall@10']:6.3f} {row['hit@10']:6.3f} {row['questions']:5d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"locomo10.json (default {DEFAULT_DATA})")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--limit-questions", type=int, default=None, help="only the first N usable questions")
    parser.add_argument(
        "--context",
        type=int,
        default=None,
        help=f"earlier turns of the session kept as context in each memory (default {TurnFormat.context})",
    )
    parser.add_argument("--following", type=int, default=None, help="later turns of the session kept as context in each memory")
    parser.add_argument("--dates", action="store_true", help="prefix each memory with its session date (the default)")
    parser.add_argument("--no-dates", action="store_true", help="leave the session date out of each memory")
    parser.add_argument("--modes", default="keyword,vector,hybrid", help="comma-separated subset of keyword,vector,hybrid,deep")
    add_variant_arguments(parser)
    parser.add_argument("--question-shard", default=None, help="I/N: rank only questions I, I+N, … (split a long run over processes)")
    parser.add_argument("--no-store-cache", action="store_true", help="import the turns afresh (default: reuse an identical store)")
    parser.add_argument("--product-defaults", action="store_true", help="rank with the product's DEFAULT_RANKING and FTS budget")
    parser.add_argument(
        "--entity-ablation",
        action="store_true",
        help="also run hybrid with the entity arm off (entity_weight 0) in the same run: key hybrid_entities_off",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    if not args.data.is_file():
        sys.stderr.write(f"bench.locomo: error: no data file at {args.data} (use --data PATH)\n")
        return 2
    modes = parse_modes("bench.locomo", args.modes, MODES)
    if modes is None:
        return 2
    fmt = TurnFormat()
    if args.context is not None:
        fmt = replace(fmt, context=max(0, args.context))
    if args.following is not None:
        fmt = replace(fmt, following=max(0, args.following))
    if args.no_dates:
        fmt = replace(fmt, dates=False)

    progress = Progress(args.quiet)
    started = time.perf_counter()
    setup_throwaway_django("locomo")
    variants = variants_for_run("bench.locomo", args)
    if variants is None:
        return 2
    try:
        turns, questions, stats = load_locomo(args.data, args.conversations)
    except (OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"bench.locomo: error: cannot read {args.data}: {exc}\n")
        return 2
    if args.limit_questions:
        questions = questions[: args.limit_questions]
    if args.question_shard:
        try:
            index, count = (int(part) for part in args.question_shard.split("/"))
            if not 0 <= index < count:
                raise ValueError
        except ValueError:
            sys.stderr.write("bench.locomo: error: --question-shard takes I/N with 0 <= I < N\n")
            return 2
        questions = questions[index::count]
    t0 = time.perf_counter()
    dia_of = build_store(turns, fmt, progress, reuse=not args.no_store_cache)
    index_s = time.perf_counter() - t0

    from memories.embeddings import get_embedder
    from memories.search import fts

    base = bench_ranking(args.product_defaults)
    t0 = time.perf_counter()
    by_variant = rank_every_variant(
        variants, modes, args.variant_modes, lambda mode, config: evaluate(questions, dia_of, (mode,), config, progress)[mode], base
    )
    config = ranking_with(next(iter(variants.values())), base)
    if args.entity_ablation and "hybrid" in modes:
        first = next(iter(by_variant.values()))
        first["hybrid_entities_off"] = evaluate(questions, dia_of, ("hybrid",), replace(config, entity_weight=0.0), progress)["hybrid"]
    # The first variant's modes stay at the top level (the shape callers already read).
    doc: dict[str, Any] = dict(next(iter(by_variant.values())))
    if len(by_variant) > 1 or "default" not in by_variant:
        doc["variants"] = {"overrides": variants, "results": by_variant}
    doc.update(
        {
            "questions": len(questions),
            "turns": sum(len(t) for t in turns.values()),
            "conversations": len(turns),
            "data_stats": stats,
            "config": {
                "turn_format": asdict(fmt),
                "ranking": asdict(config),
                "fts_scored_rows_budget": fts.SCORED_ROWS_BUDGET,
                "embedder": get_embedder().model_name,
                "scope": "one advertiser per conversation, include_global=False",
                "categories": CATEGORIES,
            },
            "timing_s": {
                "index_and_embed": round(index_s, 1),
                "search": round(time.perf_counter() - t0, 1),
                "total": round(time.perf_counter() - started, 1),
            },
        }
    )
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
