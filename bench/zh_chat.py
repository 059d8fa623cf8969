"""Chinese everyday-conversation retrieval through the real stack: recall@5, recall@10, MRR.

The set (bench/data/zh_chat.txt, described in bench/data/zh_chat.md) is ten hand-written
chats between friends and family (travel, family, cooking, study, health, moving, pets, a
job change, a wedding, a hobby), three dated sessions each, and 167 questions with their
evidence turns. Nothing in it is about advertising, so it checks that a ranking tuned on
the ad-ops set carries over to conversational Chinese.

Each turn becomes one memory, written the way bench.locomo writes a LoCoMo turn: the
session date first, the speaker and the words, then the two earlier turns of the same
session as context. All ten chats share one scope (one advertiser) with the 1,610 notes of
the Chinese ad-ops set (bench/data/zh_adops_retrieval.json) as distractors: one user's
memory holding work notes and personal chats. A question must find its turns among all of
them, so a ranking that leans on shared everyday words (预算, 时候, 多少) pays for it here.
`--no-distractors` leaves the ad-ops notes out (252 turns only: every mode is near 0.96).

    python -m bench.zh_chat --json [--modes keyword,vector,hybrid,deep] [--variants JSON]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
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

DATA = Path(__file__).resolve().parent / "data" / "zh_chat.txt"
MODES = ("keyword", "vector", "hybrid", "deep")
KINDS = ("single", "multi", "temporal", "open")
KS = (5, 10)
SCOPE = "zh-chat"
CONTEXT_TURNS = 2
# The chats are dated in Beijing time.
BEIJING = timezone(timedelta(hours=8))


@dataclass
class ChatTurn:
    key: str  # "<conversation>:<session>:<turn>"
    speaker: str
    text: str
    session: int
    when: datetime


@dataclass
class ChatQuery:
    conversation: str
    query: str
    kind: str
    gold: list[str] = field(default_factory=list)


def load_chats(path: Path) -> tuple[dict[str, list[ChatTurn]], list[ChatQuery]]:
    """Parse the set's line format; a malformed line raises ValueError naming its number."""
    chats: dict[str, list[ChatTurn]] = {}
    queries: list[ChatQuery] = []
    name, session, when, turn_no = "", 0, None, 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#") and not line.startswith("## "):
            continue
        if line.startswith("= "):
            name = line[2:].split(":", 1)[0].strip()
            chats[name], session = [], 0
        elif line.startswith("## "):
            when = datetime.strptime(line[3:].strip(), "%Y-%m-%d %H:%M").replace(tzinfo=BEIJING)
            session, turn_no = session + 1, 0
        elif line.startswith("? "):
            text, kind, gold = (part.strip() for part in line[2:].split("|"))
            keys = [f"{name}:{ref}" for ref in gold.split()]
            known = {t.key for t in chats.get(name, [])}
            if kind not in KINDS or not keys or not set(keys) <= known:
                raise ValueError(f"line {number}: bad query kind or evidence: {line}")
            queries.append(ChatQuery(conversation=name, query=text, kind=kind, gold=keys))
        else:
            match = re.fullmatch(r"([^:：]{1,8})[:：]\s*(.+)", line)
            if not (match and name and when):
                raise ValueError(f"line {number}: not a turn of a dated session: {line}")
            turn_no += 1
            chats[name].append(ChatTurn(key=f"{name}:{session}:{turn_no}", speaker=match[1], text=match[2], session=session, when=when))
    return chats, queries


def turn_content(turns: list[ChatTurn], index: int) -> str:
    """As bench.locomo.turn_content with its defaults (date, speaker, two earlier turns of the
    session as context), in Chinese."""
    turn = turns[index]
    line = f"（{turn.when.year}年{turn.when.month}月{turn.when.day}日）{turn.speaker}：{turn.text}"
    before = [t for t in turns[max(0, index - CONTEXT_TURNS) : index] if t.session == turn.session]
    if before:
        line += "\n[上文] " + " | ".join(f"{t.speaker}：{t.text}" for t in before)
    return line


def distractor_lines() -> list[str]:
    """The ad-ops set's notes, dated as bench.zh_adops writes them, moved into this scope."""
    from bench.zh_adops import DATA as ADOPS_DATA
    from bench.zh_adops import dated_content

    notes = json.loads(ADOPS_DATA.read_text(encoding="utf-8"))["memories"]
    return [
        import_line(
            layer=note["layer"],
            content=dated_content(note["content"], note["created_at"]),
            advertiser=SCOPE,
            source="human",
            created_at=note["created_at"],
            data={"key": f"adops:{note['key']}"},
        )
        for note in notes
    ]


def build_store(chats: dict[str, list[ChatTurn]], progress: Progress, reuse: bool = True, distractors: bool = True) -> dict[int, str]:
    """Import every turn (and the distractors) through the governed import path and embed
    them; returns id → key."""
    lines = [
        import_line(
            layer="L2",
            content=turn_content(turns, i),
            advertiser=SCOPE,
            source="user",
            created_at=turn.when.isoformat(),
            data={"key": turn.key},
        )
        for turns in chats.values()
        for i, turn in enumerate(turns)
    ]
    if distractors:
        lines += distractor_lines()
    what = f"memories ({len(chats)} chats{' and the ad-ops notes' if distractors else ''})"
    return imported_store("zh_chat", lines, key="key", progress=progress, reuse=reuse, what=what)


def evaluate(queries: list[ChatQuery], key_of: dict[int, str], mode: str, config: Any) -> dict[str, Any]:
    tally = RecallTally(KS, mrr=True)
    labelled = [
        LabelledQuery(text=q.query, gold=set(q.gold), buckets=("overall", q.kind), advertisers=(SCOPE,), include_global=False)
        for q in queries
    ]
    run = score_queries(labelled, key_of, mode=mode, top_k=max(KS), config=config, tally=tally)
    return {
        "overall": tally.summary("overall"),
        "by_kind": {kind: tally.summary(kind) for kind in KINDS if kind in tally},
        "latency_ms": run.latency(),
        "per_query_recall@10": [round(s["recall@10"], 4) for s in run.per_query],
        **({"fallbacks": run.fallbacks, "deep_hooks": run.deep_hooks} if mode == "deep" else {}),
    }


def render(doc: dict[str, Any]) -> str:
    return render_by_kind(
        f"Chinese conversational retrieval: {doc['queries']} queries over {doc['turns']} turns of {doc['chats']} chats"
        f" and {doc['distractors']} distractor notes",
        doc["results"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.zh_chat", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--data", type=Path, default=DATA, help=f"the chats and questions (default {DATA})")
    parser.add_argument("--modes", default="keyword,vector,hybrid", help="comma-separated subset of " + ",".join(MODES))
    add_variant_arguments(parser)
    parser.add_argument("--no-store-cache", action="store_true", help="import afresh (default: reuse an identical imported store)")
    parser.add_argument("--no-distractors", action="store_true", help="leave the ad-ops notes out of the scope")
    parser.add_argument("--per-query", action="store_true", help="keep each query's recall@10 in the JSON (for paired comparisons)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    modes = parse_modes("bench.zh_chat", args.modes, MODES)
    if modes is None:
        return 2
    try:
        chats, queries = load_chats(args.data)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"bench.zh_chat: error: {exc}\n")
        return 2
    progress = Progress(args.quiet)
    started = time.perf_counter()
    setup_throwaway_django("zh-chat")
    variants = variants_for_run("bench.zh_chat", args)
    if variants is None:
        return 2
    key_of = build_store(chats, progress, reuse=not args.no_store_cache, distractors=not args.no_distractors)

    def rank(mode: str, config: Any) -> dict[str, Any]:
        result = evaluate(queries, key_of, mode, config)
        if not args.per_query:
            result.pop("per_query_recall@10")
        progress(f"{mode}: recall@5 {result['overall']['recall@5']} recall@10 {result['overall']['recall@10']}")
        return result

    results = rank_every_variant(variants, modes, args.variant_modes, rank)
    from memories.embeddings import get_embedder

    doc = {
        "chats": len(chats),
        "turns": sum(len(t) for t in chats.values()),
        "queries": len(queries),
        "distractors": len(key_of) - sum(len(t) for t in chats.values()),
        "results": results,
        "variants": variants,
        "embedder": get_embedder().model_name,
        "timing_s": round(time.perf_counter() - started, 1),
    }
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
