"""The three-set ablation: every ranking variant on LoCoMo, the Chinese ad-ops set and the
Chinese conversational set, in one run.

A fusion change tuned on one set can cost another: the keyword-leaning weights chosen on
the ad-ops set, whose questions share vocabulary with its notes, need not carry to
conversational Chinese or English. This runs bench.locomo, bench.zh_adops and
bench.zh_chat one after the other with the same `--variants` (RankingConfig overrides,
the first one the baseline), reads their JSON, and reports recall@5 / recall@10 of the
hybrid mode per set and variant, the vector arm alone for reference, and whether each
variant holds: it is kept only when no set's recall@5 or recall@10 falls below the
baseline's.

    python -m bench.three_sets --json [--variants JSON] [--locomo-conversations N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._common import REPO, Progress, emit

SETS = ("locomo", "zh_adops", "zh_chat")
METRICS = ("recall@5", "recall@10")


def _run(module: str, args: list[str], progress: Progress) -> dict[str, Any]:
    progress(f"running bench.{module} {' '.join(args)}")
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", "--json", "--quiet", *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.{module} exited {done.returncode}: {done.stderr.strip().splitlines()[-1:] or ''}")
    return json.loads(done.stdout)


def _rows(name: str, doc: dict[str, Any], variants: list[str]) -> dict[str, Any]:
    """{variant: {"hybrid": {R@5, R@10}}, "vector": {...}} out of one bench's document."""
    if name == "locomo":
        by_variant = doc["variants"]["results"] if "variants" in doc and "results" in doc["variants"] else {variants[0]: doc}
    else:
        by_variant = doc["results"]
    out: dict[str, Any] = {}
    for variant in variants:
        modes = by_variant[variant]
        out[variant] = {mode: {m: modes[mode]["overall"][m] for m in METRICS} for mode in ("hybrid", "vector") if mode in modes}
    return out


def locomo_categories(doc: dict[str, Any], variants: list[str]) -> dict[str, Any]:
    by_variant = doc["variants"]["results"] if "variants" in doc and "results" in doc["variants"] else {variants[0]: doc}
    return {
        variant: {
            mode: {category: {m: row[m] for m in METRICS} for category, row in by_variant[variant][mode]["by_category"].items()}
            for mode in ("keyword", "vector", "hybrid")
            if mode in by_variant[variant]
        }
        for variant in variants
    }


def verdicts(table: dict[str, dict[str, Any]], variants: list[str]) -> dict[str, dict[str, Any]]:
    """Per variant after the first: the change in each set's hybrid recall and whether it holds."""
    base = variants[0]
    out: dict[str, dict[str, Any]] = {}
    for variant in variants[1:]:
        deltas = {name: {m: round(table[name][variant]["hybrid"][m] - table[name][base]["hybrid"][m], 4) for m in METRICS} for name in SETS}
        falls = [f"{name} {m}" for name, row in deltas.items() for m, d in row.items() if d < 0]
        out[variant] = {"deltas": deltas, "falls": falls, "kept": not falls}
    return out


def render(doc: dict[str, Any]) -> str:
    lines = ["Three-set ablation (hybrid mode; vector arm alone under the baseline): R@5 / R@10"]
    lines.append(f"{'variant':28} " + " ".join(f"{name:>15}" for name in SETS) + "  verdict")
    variants = list(doc["variants"])
    for variant in variants:
        cells = " ".join(
            f"{doc['table'][name][variant]['hybrid']['recall@5']:.3f}/{doc['table'][name][variant]['hybrid']['recall@10']:.3f}".rjust(15)
            for name in SETS
        )
        verdict = doc["verdicts"].get(variant)
        note = "baseline" if verdict is None else ("kept" if verdict["kept"] else "falls: " + ", ".join(verdict["falls"]))
        lines.append(f"{variant:28} {cells}  {note}")
    base = variants[0]
    cells = " ".join(
        f"{doc['table'][name][base]['vector']['recall@5']:.3f}/{doc['table'][name][base]['vector']['recall@10']:.3f}".rjust(15)
        for name in SETS
        if "vector" in doc["table"][name][base]
    )
    lines.append(f"{'vector arm alone':28} {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.three_sets", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--variants", default=None, help='named RankingConfig overrides as JSON {"name": {...}}; the first is the baseline')
    parser.add_argument("--locomo-data", type=Path, default=None, help="locomo10.json (default: bench.locomo's)")
    parser.add_argument("--locomo-conversations", type=int, default=None, help="only the first N LoCoMo conversations (default all)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    try:
        named = json.loads(args.variants) if args.variants else {"default": {}}
        if not isinstance(named, dict) or not named:
            raise ValueError("--variants takes a non-empty JSON object")
    except ValueError as exc:
        sys.stderr.write(f"bench.three_sets: error: {exc}\n")
        return 2
    variants = list(named)
    progress = Progress(args.quiet)
    started = time.perf_counter()
    common = ["--variants", json.dumps(named, ensure_ascii=False), "--variant-modes", "hybrid"]
    locomo_args = ["--modes", "keyword,vector,hybrid", *common]
    if args.locomo_data:
        locomo_args += ["--data", str(args.locomo_data)]
    if args.locomo_conversations:
        locomo_args += ["--conversations", str(args.locomo_conversations)]
    docs: dict[str, dict[str, Any]] = {}
    try:
        docs["locomo"] = _run("locomo", locomo_args, progress)
        docs["zh_adops"] = _run("zh_adops", ["--modes", "vector,hybrid", *common], progress)
        docs["zh_chat"] = _run("zh_chat", ["--modes", "vector,hybrid", *common], progress)
    except (RuntimeError, ValueError) as exc:
        sys.stderr.write(f"bench.three_sets: error: {exc}\n")
        return 1
    table = {name: _rows(name, docs[name], variants) for name in SETS}
    doc = {
        "variants": named,
        "table": table,
        "verdicts": verdicts(table, variants),
        # Recall per LoCoMo category, so a change aimed at one kind of question shows where it lands.
        "locomo_by_category": locomo_categories(docs["locomo"], variants),
        "sizes": {
            "locomo": {"questions": docs["locomo"]["questions"], "turns": docs["locomo"]["turns"]},
            "zh_adops": {"queries": docs["zh_adops"]["queries"], "memories": docs["zh_adops"]["memories"]},
            "zh_chat": {
                "queries": docs["zh_chat"]["queries"],
                "turns": docs["zh_chat"]["turns"],
                "distractors": docs["zh_chat"]["distractors"],
            },
        },
        "timing_s": round(time.perf_counter() - started, 1),
    }
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
