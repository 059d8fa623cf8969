"""When /recall stays quiet: the relevance floor and the small-talk rule on the demo store.

The set (bench/data/recall_floor.jsonl, described in bench/data/recall_floor.md) holds
on-topic ad-ops questions with the demo memories they should recall, off-topic questions
and chit-chat, Chinese and English, with a frozen test split. Each query goes through what
/recall does (api.recall.should_retrieve, then memory_search or deep_search with top_k 8,
then memories.search.relevance against the mode's floor) in the operator's view.

Reported per split and mode:
- quiet: the share of off-topic and chit-chat turns with no memory injected (and each kind);
- recall@5 before: on-topic recall@5 of the plain search (no rule, no floor);
- recall@5 after: the same once the rule and the floor have had their say (a query they
  silence recalls nothing);
- the same two with the length norm off, to show what it changes;
- calibrated floor: the highest floor whose train recall@5 loss stays within 0.01, and the
  frozen split at that floor (memories.search.relevance.FLOORS says why it holds less).

    python -m bench.recall_floor --json [--modes fast,deep]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from bench._common import Progress, emit, setup_throwaway_django

DATA = Path(__file__).resolve().parent / "data" / "recall_floor.jsonl"
TOP_K = 8
MAX_RECALL_LOSS = 0.01


def split_of(query_id: str) -> str:
    return "test" if int(hashlib.sha256(query_id.encode()).hexdigest()[:8], 16) % 100 < 40 else "train"


def load_set() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    wrong = [row["id"] for row in rows if row["split"] != split_of(row["id"])]
    if wrong:
        raise SystemExit(f"bench.recall_floor: error: split disagrees with the hash rule for {wrong[:3]}")
    return rows


def _recall_at_5(row: dict[str, Any], ids: list[int]) -> float:
    relevant = set(row["relevant"])
    return len(relevant & set(ids[:5])) / len(relevant)


def measure(rows: list[dict[str, Any]], mode: str, progress: Progress) -> list[dict[str, Any]]:
    """Per query: the rule's verdict, the ranked ids and the best relevance with and without the length norm."""
    from api.recall import should_retrieve
    from memories.search.deep import deep_search
    from memories.search.relevance import relevance_of
    from memories.selectors import memory_search

    search = deep_search if mode == "deep" else memory_search
    measured = []
    for index, row in enumerate(rows):
        if index % 40 == 0:
            progress(f"{mode}: query {index + 1}/{len(rows)}")
        decision = should_retrieve(row["query"])
        response = search(query=row["query"], top_k=TOP_K, record_access=False)
        normed = relevance_of(query=row["query"], results=response.results, mode=mode)
        plain = relevance_of(query=row["query"], results=response.results, mode=mode, anchor=None)
        measured.append(
            {
                "row": row,
                "rule": decision.retrieve,
                "ids": [r.memory.pk for r in response.results],
                "best": normed.best,
                "best_plain": plain.best,
            }
        )
    return measured


def summarise(measured: list[dict[str, Any]], split: str, floor: float, key: str = "best") -> dict[str, Any]:
    rows = [m for m in measured if m["row"]["split"] == split]
    on = [m for m in rows if m["row"]["kind"] == "on_topic"]
    off = [m for m in rows if m["row"]["kind"] != "on_topic"]

    def injects(m: dict[str, Any]) -> bool:
        return m["rule"] and bool(m["ids"]) and m[key] >= floor

    quiet_by_kind = {}
    for kind in ("off_topic", "chitchat"):
        group = [m for m in off if m["row"]["kind"] == kind]
        quiet_by_kind[kind] = round(sum(not injects(m) for m in group) / len(group), 4) if group else None
    before = sum(_recall_at_5(m["row"], m["ids"]) for m in on) / len(on)
    after = sum(_recall_at_5(m["row"], m["ids"]) for m in on if injects(m)) / len(on)
    return {
        "queries": len(rows),
        "quiet": round(sum(not injects(m) for m in off) / len(off), 4),
        "quiet_by_kind": quiet_by_kind,
        "quiet_before": round(sum(not m["ids"] for m in off) / len(off), 4),
        "recall_at_5_before": round(before, 4),
        "recall_at_5_after": round(after, 4),
        "recall_loss": round(before - after, 4),
        "silenced_on_topic": [m["row"]["id"] for m in on if not injects(m)],
        "loud": [m["row"]["id"] for m in off if injects(m)],
    }


def calibrate(measured: list[dict[str, Any]], key: str = "best") -> float:
    """The highest floor whose train recall@5 loss stays within MAX_RECALL_LOSS."""
    candidates = sorted({round(m[key], 4) for m in measured if m["row"]["split"] == "train" and m["row"]["kind"] == "on_topic"})
    best = candidates[0] if candidates else 0.0
    for floor in candidates:
        if summarise(measured, "train", floor, key)["recall_loss"] <= MAX_RECALL_LOSS + 1e-9:
            best = floor
    return best


def build_store(progress: Progress) -> None:
    from governance.write.imports import memories_import
    from lingix_site.demo import DEMO_FILE
    from memories.embeddings.store import embed_backfill

    progress("importing the demo store")
    report = memories_import(
        lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="bench.recall_floor", label="demo", embed=False
    )
    if report.errors:
        raise SystemExit(f"bench.recall_floor: error: demo import failed: {report.errors[:3]}")
    embed_backfill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_floor", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--modes", default="fast,deep", help="comma-separated: fast, deep (default both)")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in {"fast", "deep"} for m in modes):
        print("bench.recall_floor: error: --modes takes fast, deep or both", file=sys.stderr)
        return 2
    progress = Progress()
    setup_throwaway_django("recall-floor")
    rows = load_set()
    build_store(progress)
    from memories.search.relevance import FLOORS, LENGTH_ANCHOR, SEMANTIC_WEIGHT

    result: dict[str, Any] = {
        "set": {"queries": len(rows), "test": sum(r["split"] == "test" for r in rows)},
        "relevance": {"semantic_weight": SEMANTIC_WEIGHT, "length_anchor": LENGTH_ANCHOR, "floors": FLOORS},
        "modes": {},
    }
    for mode in modes:
        measured = measure(rows, mode, progress)
        floor = FLOORS[mode]
        result["modes"][mode] = {
            "floor": floor,
            "calibrated_on_train": (calibrated := calibrate(measured)),
            "test": summarise(measured, "test", floor),
            # The frozen split at the train edge too, so a floor kept below it shows what it buys.
            "test_at_calibration": summarise(measured, "test", calibrated),
            "train": summarise(measured, "train", floor),
            "without_length_norm": {
                "calibrated_on_train": calibrate(measured, "best_plain"),
                "test": summarise(measured, "test", floor, "best_plain"),
            },
        }
    emit(result, args.json, render)
    return 0


def render(result: dict[str, Any]) -> str:
    lines = [f"{result['set']['queries']} queries, {result['set']['test']} in the frozen test split"]
    for mode, figures in result["modes"].items():
        test = figures["test"]
        lines.append(
            f"{mode}: floor {figures['floor']} (train calibration {figures['calibrated_on_train']}); test: quiet {test['quiet']:.3f} "
            f"(off-topic {test['quiet_by_kind']['off_topic']}, chit-chat {test['quiet_by_kind']['chitchat']}), "
            f"recall@5 {test['recall_at_5_before']:.3f} -> {test['recall_at_5_after']:.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
