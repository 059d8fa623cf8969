"""Validate the labelled claims set (stdlib only).

Run: python tests/data/claims/check.py
Checks required fields, allowed values, the frozen split rule, label consistency and
coverage, then prints counts. Exits 1 on any failure.
"""

import collections
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = {"zh", "en", "mixed"}
ACTIONS = {"write", "update", "review", "reject"}
KINDS = {"ingest", "trigger"}
STANCES = {"statement", "order", "correction", "question", "hypothetical", "hedge", "suggestion"}
SOURCES = {"user", "assistant", "agent", "tool", "human", "system"}
LAYERS = {"L1", "L2", "L3", "L4"}
RELATIONS = {"duplicate", "contradiction", "refinement", "compatible", "ambiguous"}
LEVERS = {"bid", "budget", "creative", "targeting", "schedule", "landing_page", "channel", "kpi_target", "compliance", "audience", "other"}
TRIGGERS = {
    "user_feedback",
    "strategy_execution",
    "environment_change",
    "rule_update",
    "anomaly_pattern",
    "performance_optimization",
    "cross_domain_correlation",
    "periodic_pattern",
}
GROUPS = {"value", "stance", "guard", "dialogue", "correction", "pair", "layer", "chitchat"}
SMALL = {"医药OTC", "美妆"}
MAIN = {"游戏", "教育", "汽车", "金融", "服饰", "食品", "旅游", "本地生活", "SaaS", "家居", "3C"}
VERTICALS = MAIN | SMALL
PAIR_ACTION = {
    "duplicate": {"reject"},
    "contradiction": {"update", "review"},
    "refinement": {"write"},
    "compatible": {"write"},
    "ambiguous": {"review"},
}
# coverage: tag -> minimum count over both files
NEED_TAGS = {
    "paraphrase": 20,
    "question": 10,
    "hypothetical": 10,
    "hedge": 10,
    "correction_number": 10,
    "correction_time": 8,
    "correction_polarity": 8,
    "lookalike": 20,
    "dialogue_assent": 8,
    "dialogue_no_assent": 8,
    "questioned_confirmation": 8,
    "sustained_anomaly": 8,
    "promo_signal": 8,
    "cold_start": 3,
    "english_preference": 10,
    "number_role": 15,
    "l1_change_human": 8,
    "secret": 3,
    "assistant_suggestion": 8,
    "l1_request_nonauthority": 4,
    "ambiguous": 15,
}

errors: list[str] = []


def err(msg):
    errors.append(msg)


def split_of(cid):
    return "test" if int(hashlib.sha256(cid.encode("utf-8")).hexdigest()[-1], 16) < 6 else "train"


def load(name):
    rows = []
    with open(HERE / name, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    err(f"{name}:{n}: bad JSON ({e})")
    return rows


def check_body(where, b, *, need_trigger_field):
    kind = b.get("kind")
    if kind not in KINDS:
        err(f"{where}: kind {kind!r}")
    if b.get("source") not in SOURCES:
        err(f"{where}: source {b.get('source')!r}")
    if b.get("layer") is not None and b["layer"] not in LAYERS:
        err(f"{where}: layer {b['layer']!r}")
    if kind == "ingest":
        has_text, has_msgs = bool(b.get("text")), bool(b.get("messages"))
        if has_text == has_msgs:
            err(f"{where}: ingest needs exactly one of text / messages")
        for m in b.get("messages") or []:
            if m.get("role") not in {"user", "assistant"} or not m.get("content"):
                err(f"{where}: bad message {m!r}")
    elif kind == "trigger":
        if b.get("event_type") not in TRIGGERS or "summary" not in b or not isinstance(b.get("data"), dict):
            err(f"{where}: trigger needs event_type, summary and data")
        if need_trigger_field and b.get("trigger") != b.get("event_type"):
            err(f"{where}: trigger field differs from event_type")
    if need_trigger_field and b.get("trigger") is not None and b["trigger"] not in TRIGGERS:
        err(f"{where}: trigger {b.get('trigger')!r}")


def check_existing(where, e):
    for k in ("content", "layer", "advertiser", "source"):
        if k not in e:
            err(f"{where}: existing lacks {k}")
    if e.get("layer") not in LAYERS or e.get("source") not in SOURCES:
        err(f"{where}: existing layer/source")


# Later batches, written after the first, each with its own id stem ("b2": wc2-, rp2-).
BATCHES = {"b2": "2"}


def common(where, r, prefix, seen):
    batch = r.get("batch")
    if batch is not None and batch not in BATCHES:
        err(f"{where}: batch {batch!r}")
    prefix = prefix[:-1] + BATCHES.get(batch, "") + "-"
    if not r.get("id", "").startswith(prefix):
        err(f"{where}: id must start with {prefix}")
    if r.get("id") in seen:
        err(f"{where}: duplicate id")
    seen.add(r.get("id"))
    if r.get("lang") not in LANGS:
        err(f"{where}: lang {r.get('lang')!r}")
    if r.get("vertical") not in VERTICALS:
        err(f"{where}: vertical {r.get('vertical')!r}")
    if r.get("expected") not in ACTIONS:
        err(f"{where}: expected {r.get('expected')!r}")
    if r.get("split") != split_of(r.get("id", "")):
        err(f"{where}: split must be {split_of(r.get('id', ''))} (sha256(id) last hex digit < 6 -> test)")
    if not isinstance(r.get("tags"), list) or not r.get("note"):
        err(f"{where}: tags (list) and note are required")


def check_cases(rows):
    seen = set()
    for r in rows:
        w = r.get("id", "?")
        common(w, r, "wc-", seen)
        for k in ("group", "stance", "source"):
            if k not in r:
                err(f"{w}: lacks {k}")
        if r.get("group") not in GROUPS:
            err(f"{w}: group {r.get('group')!r}")
        if r.get("stance") not in STANCES:
            err(f"{w}: stance {r.get('stance')!r}")
        check_body(w, r, need_trigger_field=True)
        if ("existing" in r) != ("relation" in r):
            err(f"{w}: existing and relation go together")
        if "existing" in r:
            check_existing(w, r["existing"])
            if r["relation"] not in RELATIONS:
                err(f"{w}: relation {r['relation']!r}")
            elif r["expected"] not in PAIR_ACTION[r["relation"]] and r["stance"] not in {"question", "hypothetical", "hedge"}:
                err(f"{w}: {r['relation']} cannot lead to {r['expected']}")
        # label rules that hold whatever the text says
        if r.get("stance") in {"question", "hypothetical", "hedge"} and r["expected"] != "reject":
            err(f"{w}: a {r['stance']} is never written")
        if "secret" in r["tags"] and r["expected"] != "reject":
            err(f"{w}: secrets are never stored")
        if r.get("layer") == "L4" and r["expected"] != "reject":
            err(f"{w}: L4 is never written from outside")
        if r.get("layer") == "L1" and r.get("source") not in {"human", "system"} and r["expected"] != "review":
            err(f"{w}: L1 from {r.get('source')} goes to review")
        if "dialogue_assent" in r["tags"] and r["expected"] != "write":
            err(f"{w}: assent in a user turn is written")
        if r.get("messages") and r["expected"] == "write" and not any(m["role"] == "user" for m in r["messages"]):
            err(f"{w}: a dialogue without a user turn cannot be written")
        if r.get("source") == "assistant" and r["expected"] == "write":
            err(f"{w}: assistant text alone never confirms")


def check_pairs(rows):
    seen = set()
    for r in rows:
        w = r.get("id", "?")
        common(w, r, "rp-", seen)
        if r.get("relation") not in RELATIONS:
            err(f"{w}: relation {r.get('relation')!r}")
            continue
        if r.get("lever") not in LEVERS:
            err(f"{w}: lever {r.get('lever')!r}")
        if not isinstance(r.get("subject_same"), bool):
            err(f"{w}: subject_same must be a bool")
        check_existing(w, r.get("existing", {}))
        n = r.get("new", {})
        if "advertiser" not in n:
            err(f"{w}: new lacks advertiser")
        check_body(w + ".new", n, need_trigger_field=False)
        if r["expected"] not in PAIR_ACTION[r["relation"]]:
            err(f"{w}: {r['relation']} cannot lead to {r['expected']}")
        if r["relation"] in {"duplicate", "contradiction", "refinement"} and not r["subject_same"]:
            err(f"{w}: {r['relation']} needs the same subject")
        if r["relation"] == "ambiguous" and r["subject_same"]:
            err(f"{w}: ambiguous means the sameness is not established")
        e = r.get("existing", {})
        if r["relation"] == "contradiction" and r["expected"] == "update":
            if e.get("layer") == "L1" or e.get("source") == "human" or n.get("layer") == "L1":
                err(f"{w}: a human/L1 rule is never updated automatically")
            if e.get("source") != n.get("source"):
                err(f"{w}: update needs the same source authority")


def coverage(cases, pairs):
    if len(cases) < 320:
        err(f"write cases: {len(cases)} < 320")
    if len(pairs) < 160:
        err(f"relation pairs: {len(pairs)} < 160")
    for name, rows in (("write_cases", cases), ("relation_pairs", pairs)):
        vc = collections.Counter(r["vertical"] for r in rows)
        main = [v for v in vc if v in MAIN]
        if len(main) < 8:
            err(f"{name}: only {len(main)} verticals beyond 医药OTC/美妆")
        if main and max(vc[v] for v in main) > 1.5 * min(vc[v] for v in main):
            err(f"{name}: verticals are not spread evenly")
        if sum(vc[v] for v in SMALL) > 0.1 * len(rows):
            err(f"{name}: too many 医药OTC/美妆 items")
        share = sum(r["lang"] in {"en", "mixed"} for r in rows) / max(len(rows), 1)
        if share < 0.30:
            err(f"{name}: English or mixed share {share:.0%} < 30%")
        for key in ("vertical", "lang"):
            for val in {r[key] for r in rows}:
                if not any(r[key] == val and r["split"] == "test" for r in rows):
                    err(f"{name}: {key} {val} has no test item")
    tags = collections.Counter(t for r in cases + pairs for t in r["tags"])
    for t, n in NEED_TAGS.items():
        if tags[t] < n:
            err(f"coverage: tag {t} has {tags[t]} < {n}")
    for lang in ("zh", "en"):
        if not any("paraphrase" in r["tags"] and r["lang"] == lang for r in cases + pairs):
            err(f"coverage: no {lang} paraphrase")
    stances = collections.Counter(r["stance"] for r in cases)
    for s in STANCES:
        if stances[s] < 5:
            err(f"coverage: stance {s} has {stances[s]} cases")
    if not any(r.get("messages") for r in cases):
        err("coverage: no role-tagged dialogue")
    return tags


def table(title, counter):
    print(f"  {title}: " + ", ".join(f"{k}={v}" for k, v in sorted(counter.items(), key=lambda kv: str(kv[0]))))


def main():
    cases, pairs = load("write_cases.jsonl"), load("relation_pairs.jsonl")
    check_cases(cases)
    check_pairs(pairs)
    tags = coverage(cases, pairs)
    for name, rows in (("write_cases.jsonl", cases), ("relation_pairs.jsonl", pairs)):
        share = sum(r["lang"] in {"en", "mixed"} for r in rows) / max(len(rows), 1)
        print(f"{name}: {len(rows)} items, {share:.1%} English or mixed")
        table("split", collections.Counter(r["split"] for r in rows))
        table("expected", collections.Counter(r["expected"] for r in rows))
        table("expected x split", collections.Counter(f"{r['expected']}/{r['split']}" for r in rows))
        table("lang", collections.Counter(r["lang"] for r in rows))
        table("lang x split", collections.Counter(f"{r['lang']}/{r['split']}" for r in rows))
        table("vertical", collections.Counter(r["vertical"] for r in rows))
        table("vertical x split", collections.Counter(f"{r['vertical']}/{r['split']}" for r in rows))
        if rows is cases:
            table("stance", collections.Counter(r["stance"] for r in rows))
            table("kind", collections.Counter("messages" if r.get("messages") else r["kind"] for r in rows))
        else:
            table("relation", collections.Counter(r["relation"] for r in rows))
            table("relation x split", collections.Counter(f"{r['relation']}/{r['split']}" for r in rows))
            table("lever", collections.Counter(r["lever"] for r in rows))
    table("coverage tags (both files)", tags)
    if errors:
        print(f"\nFAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  - " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
