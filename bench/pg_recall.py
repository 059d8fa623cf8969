"""PostgreSQL HNSW recall@10 against ef_search, on distinct real vectors.

bench.scale measures HNSW on near-copies (one real vector plus noise per row), where the
exact top 10 is a choice among equals and recall says little. Here every row is a
distinct real text embedded by the bundled model: the LoCoMo dialogue turns
(/work/shared/data/locomo10.json, read in place), the sentences of the longer turns, the
session observations and summaries, and distinct synthetic Chinese + English ad-ops
memories with their clause-level splits. Vectors are embedded once and cached under
.cache/issue14a. Queries are LoCoMo questions and ad-ops queries, embedded as queries.

For each ef_search the same queries go through the project's PostgreSQL backend
(memories.search.postgres.vector_candidates, HNSW with iterative scan) and the exact scan;
recall@10 is the overlap of the two top 10s.

    python -m bench.pg_recall --json [--min-texts 20000]    # re-runs itself under scripts/with_postgres.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import Progress, add_database_url_from_env, emit, percentile, setup_postgres_django, throwaway_postgres
from bench.scale import QUERIES as SCALE_QUERIES

LOCOMO = Path("/work/shared/data/locomo10.json")
EF_VALUES = (10, 20, 40, 64, 100, 200, 400)
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*")
_ZH_CLAUSE = re.compile(r"[，,：:]")

# bench.scale's ad-ops queries, then five more.
ZH_QUERIES = [
    *SCALE_QUERIES,
    "小红书 素材 点击率",
    "双11 CPM 上涨",
    "新计划 学习期 预算",
    "竞品投放 点击成本",
    "抖音信息流 转化成本",
]


def real_texts(min_texts: int) -> tuple[list[str], list[str]]:
    """(distinct corpus texts, query texts)."""
    from bench.latency import synthetic_texts

    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    seen: set[str] = set()
    texts: list[str] = []

    def add(text: str) -> None:
        text = " ".join(str(text).split())
        if len(text) >= 8 and text not in seen:
            seen.add(text)
            texts.append(text)

    questions: list[str] = []
    for sample in data:
        conversation = sample["conversation"]
        for key, turns in conversation.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            for turn in turns:
                add(f"{turn['speaker']}: {turn['text']}")
                sentences = [s for s in _SENTENCE.split(turn["text"]) if s.strip()]
                if len(sentences) > 1:
                    for sentence in sentences:
                        add(sentence)
        for block in ("observation", "session_summary", "event_summary"):
            for value in (sample.get(block) or {}).values():
                for item in value.values() if isinstance(value, dict) else [value]:
                    for line in item if isinstance(item, list) else [item]:
                        add(line[0] if isinstance(line, list) and line else line)
        questions.extend(qa["question"] for qa in sample["qa"])
    # Chinese + English ad-ops memories and their clauses fill the rest.
    want = max(0, min_texts - len(texts))
    for text in synthetic_texts(int(want * 0.6) + 10, seed=29):
        add(text)
        for clause in _ZH_CLAUSE.split(text):
            add(clause)
        if len(texts) >= min_texts:
            break
    return texts, questions


def _load(vectors: np.ndarray, progress: Progress) -> float:
    from django.db import connection

    from bench.scale import _copy_rows, move_into_memories

    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_vectors")
        cursor.execute("CREATE UNLOGGED TABLE bench_vectors (id bigint, v vector(384))")
        raw = cursor.cursor if hasattr(cursor, "cursor") else cursor
        for start in range(0, len(vectors), 20_000):
            _copy_rows(raw, start + 1, vectors[start : start + 20_000].astype(np.float32))
        move_into_memories(cursor, "'L2'", "'pg recall bench row ' || id")
        progress("building the HNSW index (the migration's definition)")
        cursor.execute("SET maintenance_work_mem = '1GB'")
        started = time.perf_counter()
        cursor.execute(
            "CREATE INDEX mem_embedding_hnsw_384 ON memories_memory USING hnsw "
            "((embedding_vec::vector(384)) vector_cosine_ops) WHERE embedding_dim = 384"
        )
        build_s = time.perf_counter() - started
        cursor.execute("ANALYZE memories_memory")
        cursor.execute("DROP TABLE bench_vectors")
    return build_s


def _measure(queries: np.ndarray, ef_search: int | None, advertiser: str | None, model: str) -> dict[str, Any]:
    from django.utils import timezone

    from bench.scale import probe_hnsw
    from memories.search.filters import SearchFilter

    search_filter = SearchFilter.for_advertiser(advertiser, now=timezone.now())
    probes = [probe_hnsw(q, search_filter, model, ef_search) for q in queries]
    approx_ms, exact_ms = [p.hnsw_ms for p in probes], [p.exact_ms for p in probes]
    recalls = [p.recall_at_10 for p in probes]
    return {
        "ef_search": ef_search if ef_search is not None else "default",
        "recall_at_10": round(float(np.mean(recalls)), 4),
        "hnsw_p50_ms": round(percentile(approx_ms, 50), 2),
        "hnsw_p95_ms": round(percentile(approx_ms, 95), 2),
        "exact_p50_ms": round(percentile(exact_ms, 50), 2),
        "exact_p95_ms": round(percentile(exact_ms, 95), 2),
        "hnsw_p95_over_exact_p95": round(percentile(approx_ms, 95) / max(percentile(exact_ms, 95), 1e-9), 3),
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench.pg_recall", description=__doc__.splitlines()[0])
    parser.add_argument("--min-texts", type=int, default=20_000, help="distinct real texts in the corpus (default 20000)")
    parser.add_argument("--queries", type=int, default=200, help="query texts (default 200)")
    parser.add_argument("--embed-only", action="store_true", help="embed and cache the corpus, then stop (no PostgreSQL needed)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_database_url_from_env(parser)
    args = parser.parse_args(argv)
    if not LOCOMO.exists():
        sys.stderr.write(f"bench.pg_recall: error: {LOCOMO} not found\n")
        return 2
    if not args.embed_only:
        # It loads its rows into memories_memory: never in the database DATABASE_URL names unless told.
        rerun = throwaway_postgres("bench.pg_recall", argv, args, parser)
        if rerun is not None:
            return rerun
    progress = Progress(args.quiet)
    if args.embed_only:
        from bench._common import setup_throwaway_django

        setup_throwaway_django("pgrecall")
    else:
        setup_postgres_django()
    from bench.corpus_cache import cached_passages
    from memories.embeddings import get_embedder

    embedder = get_embedder()
    texts, questions = real_texts(args.min_texts)
    progress(f"{len(texts)} distinct texts; embedding (cached under .cache/issue14a)")

    def embed(batch: list[str]) -> np.ndarray:
        from tqdm import tqdm

        # Similar lengths batched together: a batch costs about its longest text times its size.
        order = sorted(range(len(batch)), key=lambda i: len(batch[i]))
        out = np.zeros((len(batch), embedder.dimension), dtype=np.float32)
        for start in tqdm(range(0, len(batch), 64), desc="embedding", file=sys.stderr, disable=args.quiet):
            take = order[start : start + 64]
            out[take] = embedder.embed_passages([batch[i] for i in take])
        return out

    vectors = cached_passages(texts, embedder.model_name, embed, "pg-recall-corpus")
    english = args.queries * 3 // 4
    query_texts = (questions[:: max(1, len(questions) // english)][:english] + ZH_QUERIES * 4)[: args.queries]

    def embed_queries(batch: list[str]) -> np.ndarray:
        return np.vstack([embedder.embed_query(t) for t in batch])

    queries = cached_passages(query_texts, embedder.model_name, embed_queries, "pg-recall-queries")
    distinct = len({v.tobytes() for v in vectors})
    if args.embed_only:
        progress(f"cached {len(vectors)} vectors ({distinct} distinct) and {len(queries)} queries")
        return 0
    build_s = _load(vectors, progress)
    progress("measuring")
    model = embedder.model_name
    _measure(queries[:10], None, None, model)  # warm the index pages
    table = {
        "no_filter": [_measure(queries, ef, None, model) for ef in (*EF_VALUES, None)],
        "advertiser_filter": [_measure(queries, ef, "brand_3", model) for ef in (40, 64, 100, None)],
    }
    from memories.search.postgres import HNSW_EF_SEARCH

    doc = {
        "rows": len(vectors),
        "distinct_vectors": distinct,
        "queries": len(queries),
        "hnsw_build_s": round(build_s, 1),
        "default_ef_search": HNSW_EF_SEARCH,
        **table,
        "method": "vector_candidates(limit=10) through the PostgreSQL backend; recall@10 = overlap with the exact scan's top 10",
    }
    emit(doc, args.json, render)
    return 0


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"{doc['rows']} rows ({doc['distinct_vectors']} distinct), {doc['queries']} queries, default ef_search {doc['default_ef_search']}"
    ]
    for view in ("no_filter", "advertiser_filter"):
        lines.append(f"{view}: {'ef':>8} {'recall@10':>9} {'p50':>7} {'p95':>7} {'exact95':>8}")
        for r in doc[view]:
            lines.append(
                f"{'':{len(view) + 1}} {r['ef_search']!s:>8} {r['recall_at_10']:9.4f} "
                f"{r['hnsw_p50_ms']:7.2f} {r['hnsw_p95_ms']:7.2f} {r['exact_p95_ms']:8.2f}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
