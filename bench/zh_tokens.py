"""Which Chinese tokenization ranks better in the FTS5 keyword index: bigrams or jieba?

The labelled set (bench/data/zh_adops_queries.json) holds ad-ops queries over the demo
memories plus extra documents, some of them deliberate near-misses. Every variant indexes
the same documents in an in-memory FTS5 table with the product's tokenizer settings and
bm25, and queries with quoted tokens joined by OR, exactly like memories.search.fts; only
the way a run of Han characters becomes tokens differs.

    python -m bench.zh_tokens --json
"""

from __future__ import annotations

import argparse
import json
import logging
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._common import REPO, emit

DATA = Path(__file__).resolve().parent / "data" / "zh_adops_queries.json"
DEMO = REPO / "lingix_site" / "fixtures" / "demo_memories.jsonl"


def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def splitters() -> dict[str, tuple[Callable[[str], list[str]], Callable[[str], list[str]]]]:
    """name → (index-side splitter, query-side splitter) for one run of Han characters."""
    from memories.search.tokens import han_bigrams

    jieba = _jieba()
    return {
        "bigram": (han_bigrams, han_bigrams),
        "jieba": (jieba.lcut, jieba.lcut),
        "jieba_search": (jieba.lcut_for_search, jieba.lcut_for_search),
        "jieba_search_index+bigram_query": (lambda run: jieba.lcut_for_search(run) + han_bigrams(run), han_bigrams),
    }


def load_corpus(path: Path = DATA) -> tuple[dict[str, str], list[dict[str, Any]]]:
    labelled = json.loads(path.read_text(encoding="utf-8"))
    docs = {
        f"demo-{i:02d}": json.loads(line)["content"] for i, line in enumerate(DEMO.read_text(encoding="utf-8").splitlines()) if line.strip()
    }
    docs.update(labelled["extra_documents"])
    return docs, labelled["queries"]


def evaluate(docs: dict[str, str], queries: list[dict[str, Any]], index_split, query_split) -> dict[str, float]:
    from memories.search.tokens import query_tokens, text_tokens

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
    keys = list(docs)
    db.executemany(
        "INSERT INTO fts(rowid, content) VALUES (?, ?)", [(i + 1, " ".join(text_tokens(docs[k], index_split))) for i, k in enumerate(keys)]
    )
    totals = {"recall@5": 0.0, "recall@10": 0.0, "mrr@10": 0.0, "precision@3": 0.0}
    for q in queries:
        tokens = query_tokens(q["query"], query_split)
        ranked: list[str] = []
        if tokens:
            expression = " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)
            rows = db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10", (expression,)).fetchall()
            ranked = [keys[r[0] - 1] for r in rows]
        relevant = set(q["relevant"])
        totals["recall@5"] += len(relevant & set(ranked[:5])) / len(relevant)
        totals["recall@10"] += len(relevant & set(ranked[:10])) / len(relevant)
        totals["precision@3"] += len(relevant & set(ranked[:3])) / 3
        totals["mrr@10"] += next((1 / (i + 1) for i, k in enumerate(ranked) if k in relevant), 0.0)
    db.close()
    return {k: round(v / len(queries), 4) for k, v in totals.items()}


def run() -> dict[str, Any]:
    docs, queries = load_corpus()
    return {
        "variants": {name: evaluate(docs, queries, i, q) for name, (i, q) in splitters().items()},
        "documents": len(docs),
        "queries": len(queries),
        "data": str(DATA.relative_to(REPO)),
    }


def render(doc: dict[str, Any]) -> str:
    lines = [f"{doc['queries']} queries over {doc['documents']} documents (keyword only, FTS5 bm25)"]
    lines.append(f"{'variant':34} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'P@3':>6}")
    for name, m in doc["variants"].items():
        lines.append(f"{name:34} {m['recall@5']:6.3f} {m['recall@10']:6.3f} {m['mrr@10']:6.3f} {m['precision@3']:6.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.zh_tokens", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    emit(run(), args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
