"""Decisions per second through the offline write funnel, and the guard's quality on
the labelled cases in tests/data/guard_cases.jsonl.

Throughput: a fresh throwaway database, the `offline` judge and the bundled embedder;
N synthetic Chinese/English events (user corrections, tool observations, strategy
results, suggestions, hedges, greetings, repeats) are sent one by one through
event_ingest / event_trigger, each in its own transaction with its traces and on-commit
embedding, exactly as the API would. decisions_per_s = N / wall time.

Quality: every labelled case runs in order through the same funnel in a fresh database;
"written" means WRITE or UPDATE. Precision and recall of "written" and the false writes
(written, labelled no_write) are reported, with every disagreement listed.

With --labelled, the labelled set in tests/data/funnel_cases.jsonl runs too, case by case
(each case's existing memory, if it has one, is created and everything is rolled back
after it): precision and recall of "written", false writes, accuracy per trigger type,
language and group, and the confusion between duplicate / contradiction / compatible.

    python -m bench.funnel --json [--events 300] [--store 50000] [--cases tests/data/guard_cases.jsonl] [--labelled]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench._common import REPO, Progress, emit, setup_throwaway_django

CASES = REPO / "tests" / "data" / "guard_cases.jsonl"
LABELLED = REPO / "tests" / "data" / "funnel_cases.jsonl"
ACTION_OF_LABEL = {"write": "WRITE", "update": "UPDATE", "review": "PENDING_REVIEW", "reject": "REJECT"}
RELATIONS = ("duplicate", "contradiction", "refinement", "compatible", "ambiguous")
# The claims set: new verticals, English and paraphrase, with a frozen test split (its README).
CLAIMS = REPO / "tests" / "data" / "claims"


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# A labelled observation is judged as it arrives, this long after it was observed.
ARRIVES_AFTER_OBSERVED = timedelta(hours=1)


def as_received(case: dict[str, Any]) -> dict[str, Any]:
    """The case with its observation time moved to ARRIVES_AFTER_OBSERVED before now.

    The labels say what the funnel should make of an event when it arrives; the cases carry
    fixed observation dates, and the L3 TTL counts from them, so run a few weeks later every
    observation would be refused as stale whatever else the funnel made of it. Staleness has
    its own test (tests/governance/test_write_path.py)."""
    from django.utils import timezone

    data = case.get("data")
    if not isinstance(data, dict) or not data.get("observed_at"):
        return case
    return {**case, "data": {**data, "observed_at": (timezone.now() - ARRIVES_AFTER_OBSERVED).isoformat()}}


def run_case(case: dict[str, Any]):
    from governance.intake.services import event_ingest, event_trigger

    case = as_received(case)
    common = {k: case[k] for k in ("advertiser", "source", "layer") if case.get(k) is not None}
    if case["kind"] == "ingest" and case.get("messages"):
        return event_ingest(messages=case["messages"], actor="bench", **common)
    if case["kind"] == "ingest":
        return event_ingest(text=case["text"], actor="bench", **common)
    return event_trigger(event_type=case["event_type"], summary=case.get("summary", ""), data=case.get("data"), actor="bench", **common)


def evaluate_cases(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the labelled cases in order (later cases may depend on earlier writes)."""
    tp = fp = fn = tn = 0
    rows, disagreements = [], []
    by_lang: dict[str, dict[str, int]] = {}
    for case in cases:
        decision = run_case(case)
        written = decision.action in {"WRITE", "UPDATE"}
        should = case["expected"] == "write"
        tp += written and should
        fp += written and not should
        fn += (not written) and should
        tn += (not written) and not should
        lang = by_lang.setdefault(case["lang"], {"cases": 0, "agree": 0})
        lang["cases"] += 1
        lang["agree"] += written == should
        rows.append({"id": case["id"], "expected": case["expected"], "action": decision.action, "layer": decision.layer})
        if written != should:
            disagreements.append(
                {"id": case["id"], "expected": case["expected"], "action": decision.action, "reasons": decision.reasons[:2]}
            )
    return {
        "cases": len(cases),
        "written": tp + fp,
        "should_write": tp + fn,
        "true_writes": tp,
        "false_writes": fp,
        "missed_writes": fn,
        "true_rejects": tn,
        "precision_written": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall_written": round(tp / (tp + fn), 4) if tp + fn else None,
        "accuracy": round((tp + tn) / len(cases), 4) if cases else None,
        "by_language": by_lang,
        "disagreements": disagreements,
        "results": rows,
    }


def pair_case(pair: dict[str, Any]) -> dict[str, Any]:
    """A relation pair of the claims set as a labelled case: its new proposal against its existing memory."""
    new = dict(pair["new"])
    return {
        **new,
        "id": pair["id"],
        "lang": pair["lang"],
        "group": "pair",
        "trigger": new.get("trigger") or new.get("event_type"),
        "expected": pair["expected"],
        "existing": pair["existing"],
        "relation": pair["relation"],
        "split": pair["split"],
        "batch": pair.get("batch", "main"),
        "note": pair.get("note", ""),
    }


def load_claims_cases(split: str) -> list[dict[str, Any]]:
    """The claims set's write cases and relation pairs of one split ("train" or the frozen "test")."""
    cases = [c for c in load_cases(CLAIMS / "write_cases.jsonl") if c["split"] == split]
    pairs = [pair_case(p) for p in load_cases(CLAIMS / "relation_pairs.jsonl") if p["split"] == split]
    return cases + pairs


def _existing_memory(case: dict[str, Any]):
    from memories.storage import memory_create

    old = dict(case["existing"])
    return memory_create(
        content=old.pop("content"),
        layer=old.pop("layer", "L2"),
        advertiser=old.pop("advertiser", None),
        embed=False,
        **{
            k: v
            for k, v in old.items()
            if k in {"source", "source_attribution", "grounding", "category", "business_line", "data", "importance"} and v not in (None, "")
        },
    )


def _detected_relation(decision, existing_id: int | None) -> str:
    """What the conflict stage concluded about the case's existing memory: one of the three
    outcomes, or "not reached" when an earlier stage decided."""
    conflict = next((s for s in decision.stages if s["stage"] == "conflict"), None)
    if conflict is None:
        return "not reached"
    for row in conflict["scores"].get("related", []):
        if row["id"] == existing_id:
            return row["relation"]
    return "compatible"  # not even related: nothing to conflict with


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def evaluate_labelled(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Each case on its own: its existing memory (if any) is created, the proposal runs
    through the real funnel, and everything is rolled back before the next case."""
    from django.db import transaction

    tp = fp = fn = tn = beside = agree = 0
    by: dict[str, dict[str, dict[str, int]]] = {"trigger_type": {}, "language": {}, "group": {}, "batch": {}}
    confusion = {e: {d: 0 for d in (*RELATIONS, "not reached")} for e in RELATIONS}
    wrong, rows = [], []
    for case in cases:
        with transaction.atomic():
            existing = _existing_memory(case) if case.get("existing") else None
            decision = run_case(case)
            relation = _detected_relation(decision, existing.pk if existing else None) if existing else None
            transaction.set_rollback(True)
        label = case["expected"]
        written = decision.action in {"WRITE", "UPDATE"}
        should = label in {"write", "update"}
        ok = decision.action == ACTION_OF_LABEL[label]
        tp += written and should
        fn += (not written) and should
        tn += (not written) and not should
        # A write the label did not ask for, or a write beside the memory it should replace.
        false_write = written and (not should or (label == "update" and decision.action == "WRITE"))
        fp += false_write
        beside += label == "update" and decision.action == "WRITE"
        agree += ok
        for axis, key in (
            ("trigger_type", case.get("trigger") or "none"),
            ("language", case["lang"]),
            ("group", case["group"]),
            ("batch", case.get("batch", "main")),
        ):
            cell = by[axis].setdefault(key, {"cases": 0, "agree": 0})
            cell["cases"] += 1
            cell["agree"] += ok
        if case.get("relation"):
            confusion[case["relation"]][relation or "not reached"] += 1
        rows.append({"id": case["id"], "expected": label, "action": decision.action, "relation": relation})
        if not ok or (case.get("relation") and relation != case["relation"]):
            wrong.append(
                {
                    "id": case["id"],
                    "expected": label,
                    "action": decision.action,
                    "expected_relation": case.get("relation"),
                    "relation": relation,
                    "reasons": decision.reasons[:2],
                    "note": case.get("note", ""),
                }
            )
    for axis in by.values():
        for cell in axis.values():
            cell["accuracy"] = _rate(cell["agree"], cell["cases"])
    contradictions = confusion["contradiction"]
    return {
        "cases": len(cases),
        "chinese_share": _rate(sum(c["lang"] == "zh" for c in cases), len(cases)),
        "decided_as_labelled": _rate(agree, len(cases)),
        "written": tp + fp,
        "should_write": tp + fn,
        "true_writes": tp,
        "false_writes": fp,
        "written_beside": beside,
        "missed_writes": fn,
        "true_rejects": tn,
        "precision_written": _rate(tp, tp + fp),
        "recall_written": _rate(tp, tp + fn),
        "relation_confusion": confusion,
        "contradictions_caught": f"{contradictions['contradiction']}/{sum(contradictions.values())}",
        "contradictions_reinforced": contradictions["duplicate"],
        "accuracy": by,
        "wrong": wrong,
        "results": rows,
    }


_ZH = [
    ("ingest", "user", "用户纠正：{adv} {cat}类目出价不要超过{x}元，以后按这个执行"),
    ("ingest", "user", "用户明确要求：{adv} 周末不要投放{ch}"),
    ("ingest", "assistant", "建议把{adv}{cat}类目的预算提高{p}%"),
    ("ingest", "user", "用户说可能下周要给{adv}加预算"),
    ("ingest", "user", "好的，谢谢"),
    ("ingest", "tool", "系统监测到：大促期间{cat}类目流量上涨{p}%，需调整出价"),
    ("ingest", "human", "公司规定：所有{cat}账户日预算不得超过{b}元"),
    ("trigger", "tool", "冷启动期出价上浮{p}%后，ROI目标{x}实际{y}，因为曝光增加"),
]
_EN = [
    ("ingest", "user", "The user insisted: never run {ch} ads on weekends for {adv}"),
    ("ingest", "assistant", "I recommend increasing the budget by {p}% for {adv}"),
    ("ingest", "user", "thanks, got it"),
    ("trigger", "tool", "During cold start a {p}% bid raise lifted ROI from target {x} to actual {y} because reach grew"),
]


def synthetic_events(n: int, seed: int = 11) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cats, chs = ["医药OTC", "美妆", "母婴", "食品", "3C"], ["信息流", "搜索", "直播", "短视频"]
    events = []
    for _ in range(n):
        kind, source, template = rng.choice(_ZH * 3 + _EN)
        x = round(rng.uniform(0.8, 2.0), 1)
        text = template.format(
            adv=f"brand_{rng.choice('ABCDEFGH')}",
            cat=rng.choice(cats),
            ch=rng.choice(chs),
            x=x,
            y=round(x + rng.uniform(0.1, 0.9), 1),
            p=rng.choice([10, 15, 20, 30]),
            b=rng.choice([3000, 5000, 8000]),
        )
        advertiser = f"brand_{rng.choice('ABCDEFGH')}" if source != "human" else None
        if kind == "ingest":
            events.append({"kind": "ingest", "text": text, "source": source, "advertiser": advertiser})
        else:
            nums = [float(v) for v in re.findall(r"\d+(?:\.\d+)?", text)]
            events.append(
                {
                    "kind": "trigger",
                    "event_type": "strategy_execution",
                    "summary": text,
                    "source": source,
                    "advertiser": advertiser,
                    "data": {"target": nums[-2], "actual": nums[-1], "bid_change_pct": nums[0]},
                }
            )
    return events


def render_labelled(q: dict[str, Any]) -> list[str]:
    lines = [
        f"labelled set: {q['cases']} cases ({q['chinese_share']:.0%} Chinese), decided as labelled {q['decided_as_labelled']:.1%}",
        f"  written: precision {q['precision_written']} recall {q['recall_written']}, false writes {q['false_writes']} (beside {q['written_beside']}), missed {q['missed_writes']}",
        f"  contradictions caught {q['contradictions_caught']}, reinforced {q['contradictions_reinforced']}",
        "  relation confusion (labelled → detected): "
        + "; ".join(f"{e}: " + ", ".join(f"{d} {n}" for d, n in row.items() if n) for e, row in q["relation_confusion"].items()),
    ]
    for axis in ("trigger_type", "language", "group", "batch"):
        lines.append(f"  by {axis}: " + ", ".join(f"{k} {v['agree']}/{v['cases']}" for k, v in sorted(q["accuracy"][axis].items())))
    lines += [
        f"  wrong: {w['id']} expected {w['expected']}{'/' + w['expected_relation'] if w['expected_relation'] else ''} got {w['action']}"
        f"{'/' + str(w['relation']) if w['expected_relation'] else ''}: {w['reasons'][:1]}"
        for w in q["wrong"]
    ]
    return lines


def fill_store(size: int, progress: Progress) -> int:
    """Grow the store to `size` memories: 200 governed decisions, then SQL copies of the
    memories they wrote (each with its own text hash and no version link), so a run shows
    what one decision costs beside a large store. Returns the memories held."""
    from django.db import connection, transaction

    from memories.models import Memory

    for event in synthetic_events(200, seed=3):
        run_case(event)
    columns = ", ".join(f'"{f.column}"' for f in Memory._meta.concrete_fields if f.column != "id")
    copied = columns.replace('"content_hash"', "lower(hex(randomblob(32)))").replace('"supersedes_id"', "NULL")
    held = Memory.objects.count()
    while 0 < held < size:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO memories_memory ({columns}) SELECT {copied} FROM memories_memory ORDER BY id LIMIT %s",
                [min(held, size - held)],
            )
        held = Memory.objects.count()
        progress(f"store: {held} memories")
    return held


def throughput(n: int, progress: Progress, store: int = 0) -> dict[str, Any]:
    from django.db import connection
    from django.db.models import Avg, Count

    from governance.models import MemoryEvent, Trace

    held = fill_store(store, progress) if store else 0
    events = synthetic_events(n)
    run_case(events[0])  # load the embedder (and the vector index of a filled store) outside the timed region
    MemoryEvent.objects.all().delete()
    started = time.perf_counter()
    for i, event in enumerate(events, start=1):
        run_case(event)
        if connection.in_atomic_block:  # pragma: no cover - the services commit their own work
            raise RuntimeError("funnel left a transaction open")
        if i % 100 == 0:
            progress(f"{i}/{n} decisions")
    elapsed = time.perf_counter() - started
    actions = {row["action"]: row["n"] for row in MemoryEvent.objects.values("action").annotate(n=Count("id"))}
    stages = {row["stage"]: round(row["ms"], 3) for row in Trace.objects.values("stage").annotate(ms=Avg("latency_ms")).order_by("stage")}
    return {
        "events": n,
        "store": held,
        "seconds": round(elapsed, 3),
        "decisions_per_s": round(n / elapsed, 2),
        "ms_per_decision": round(1000 * elapsed / n, 3),
        "actions": actions,
        "mean_stage_latency_ms": stages,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--events", type=int, default=300, help="synthetic events for the throughput run (default 300)")
    parser.add_argument("--cases", type=Path, default=CASES, help="labelled cases (JSONL)")
    parser.add_argument(
        "--labelled",
        action="store_true",
        help=f"also run the labelled set ({LABELLED.relative_to(REPO)}): precision/recall, per-type and per-language accuracy, relation confusion",
    )
    parser.add_argument("--labelled-cases", type=Path, default=LABELLED, help="the labelled set (JSONL)")
    parser.add_argument(
        "--claims",
        action="store_true",
        help="also run the claims set (tests/data/claims): its train split and, reported apart, its frozen test split",
    )
    parser.add_argument(
        "--store",
        type=int,
        default=0,
        help="time the decisions beside a store grown to this many memories (copies of governed ones; default: an empty store)",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    progress = Progress(quiet=args.quiet)
    setup_throwaway_django("funnel")
    from django.conf import settings
    from django.db import transaction

    # The funnel as deployed: embeddings run when the write commits.
    settings.MEMORY_EMBED_ON_WRITE = True
    from governance.models import LayerPolicy
    from memories.models import Memory

    progress("labelled cases")
    quality = evaluate_cases(load_cases(args.cases))
    labelled = None
    if args.labelled:
        progress("labelled set, case by case")
        with transaction.atomic():
            Memory.objects.all().delete()
        labelled = evaluate_labelled(load_cases(args.labelled_cases))
    claims = None
    if args.claims:
        claims = {}
        for split in ("train", "test"):
            progress(f"claims set, {split} split")
            with transaction.atomic():
                Memory.objects.all().delete()
            claims[split] = evaluate_labelled(load_claims_cases(split))
    with transaction.atomic():
        Memory.objects.all().delete()
    LayerPolicy.objects.update(sampled_audit_rate=0.05)
    progress(f"throughput over {args.events} events")
    speed = throughput(args.events, progress, store=args.store)
    document = {"provider": "offline", "throughput": speed, "labelled": quality}
    if labelled is not None:
        document["labelled_set"] = labelled
    if claims is not None:
        document["claims_set"] = claims

    def render(doc: dict[str, Any]) -> str:
        s, q = doc["throughput"], doc["labelled"]
        lines = [
            f"offline funnel: {s['decisions_per_s']} decisions/s ({s['ms_per_decision']} ms each, {s['events']} events, store of {s['store']})",
            f"labelled set: {q['cases']} cases, precision(written)={q['precision_written']} recall(written)={q['recall_written']} false writes={q['false_writes']}",
        ]
        lines += [f"  disagree: {d['id']} expected {d['expected']} got {d['action']}: {d['reasons'][:1]}" for d in q["disagreements"]]
        if "labelled_set" in doc:
            lines += render_labelled(doc["labelled_set"])
        for split, report in (doc.get("claims_set") or {}).items():
            lines.append(f"claims set, {split} split{' (frozen)' if split == 'test' else ''}:")
            lines += render_labelled(report)
        return "\n".join(lines)

    emit(document, args.json, render)
    return 0


if __name__ == "__main__":
    sys.exit(main())
