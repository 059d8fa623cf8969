"""Entity-arm ablation: the same store, the same queries, hybrid search with the entity arm
on (the product default) and off (entity_weight 0), in one run.

Two labelled Chinese ad-ops sets over the demo memories plus extra documents:
`zh_adops_queries.json` (written to choose the FTS tokenization, before the entity arm
existed) and `zh_adops_entity_queries.json` (queries that name advertisers, plans,
channels, metrics and time slots, often spelled unlike the documents). Every document is
imported through governance.write.imports, so its entity links come from the real write path.

    python -m bench.entities --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from bench._common import REPO, Progress, emit, setup_throwaway_django

DATA = Path(__file__).resolve().parent / "data"
SETS = {"tokenization_set": DATA / "zh_adops_queries.json", "entity_set": DATA / "zh_adops_entity_queries.json"}
DEMO = REPO / "lingix_site" / "fixtures" / "demo_memories.jsonl"
KS = (5, 10)


def load_documents() -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Import lines keyed by document id, and the queries of each set."""
    rows: list[dict[str, Any]] = []
    for i, line in enumerate(DEMO.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            rows.append({"key": f"demo-{i:02d}", **json.loads(line)})
    queries: dict[str, list[dict[str, Any]]] = {}
    for name, path in SETS.items():
        labelled = json.loads(path.read_text(encoding="utf-8"))
        for key, content in labelled["extra_documents"].items():
            if not any(r["key"] == key for r in rows):
                rows.append({"key": key, "layer": "L2", "content": content, "advertiser": None, "source": "tool", "importance": 5})
        queries[name] = labelled["queries"]
    return rows, queries


def build_store(rows: list[dict[str, Any]]) -> dict[int, str]:
    from governance.write.imports import memories_import
    from memories.embeddings.store import embed_backfill
    from memories.models import Memory

    lines = [json.dumps({k: v for k, v in row.items() if k != "key"}, ensure_ascii=False) for row in rows]
    memories_import(lines=lines, actor="bench.entities", label="bench-entities", embed=False)
    embed_backfill()
    by_content = {row["content"]: row["key"] for row in rows}
    return {pk: by_content[content] for pk, content in Memory.objects.values_list("id", "content")}


def evaluate(queries: list[dict[str, Any]], key_of: dict[int, str], config: Any) -> dict[str, Any]:
    from memories.selectors import memory_search

    totals = {"recall@5": 0.0, "recall@10": 0.0, "mrr@10": 0.0, "hit@10": 0.0}
    fired = 0
    for q in queries:
        response = memory_search(query=q["query"], top_k=max(KS), record_access=False, config=config)
        ranked = [key_of.get(r.memory.pk) for r in response.results]
        fired += any(r.explain.get("entity", 0.0) > 0 for r in response.results)
        relevant = set(q["relevant"])
        for k in KS:
            totals[f"recall@{k}"] += len(relevant & set(ranked[:k])) / len(relevant)
        totals["hit@10"] += 1.0 if relevant & set(ranked[:10]) else 0.0
        totals["mrr@10"] += next((1 / (i + 1) for i, key in enumerate(ranked[:10]) if key in relevant), 0.0)
    out = {k: round(v / len(queries), 4) for k, v in totals.items()}
    out["queries_with_entity_score"] = fired
    return out


def run(progress: Progress) -> dict[str, Any]:
    from memories.models import Entity, MemoryEntity, Relation
    from memories.search.hybrid import DEFAULT_RANKING

    rows, query_sets = load_documents()
    t0 = time.perf_counter()
    key_of = build_store(rows)
    progress(f"imported and linked {len(key_of)} documents in {time.perf_counter() - t0:.1f}s")
    off = replace(DEFAULT_RANKING, entity_weight=0.0)
    doc: dict[str, Any] = {
        "documents": len(key_of),
        "entities": Entity.objects.count(),
        "entity_links": MemoryEntity.objects.count(),
        "relations": Relation.objects.count(),
        "sets": {},
    }
    for name, queries in query_sets.items():
        on_row = evaluate(queries, key_of, DEFAULT_RANKING)
        off_row = evaluate(queries, key_of, off)
        doc["sets"][name] = {
            "queries": len(queries),
            "entities_on": on_row,
            "entities_off": off_row,
            "recall@10_delta": round(on_row["recall@10"] - off_row["recall@10"], 4),
        }
        progress(f"{name}: recall@10 on {on_row['recall@10']} off {off_row['recall@10']}")
    doc["config"] = {"ranking_on": asdict(DEFAULT_RANKING), "ranking_off_entity_weight": off.entity_weight}
    return doc


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"entity ablation: {doc['documents']} documents, {doc['entities']} entities, "
        f"{doc['entity_links']} links, {doc['relations']} relations",
        f"{'set':18} {'arm':4} {'R@5':>6} {'R@10':>6} {'MRR@10':>7} {'hit@10':>7} {'fired':>6} {'n':>4}",
    ]
    for name, row in doc["sets"].items():
        for arm in ("on", "off"):
            r = row[f"entities_{arm}"]
            lines.append(
                f"{name:18} {arm:4} {r['recall@5']:6.3f} {r['recall@10']:6.3f} {r['mrr@10']:7.3f} {r['hit@10']:7.3f} "
                f"{r['queries_with_entity_score']:6d} {row['queries']:4d}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.entities", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    progress = Progress(args.quiet)
    started = time.perf_counter()
    setup_throwaway_django("entities")
    doc = run(progress)
    doc["seconds"] = round(time.perf_counter() - started, 1)
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    sys.exit(main())
