"""The project's hybrid search against LanceDB's indexed hybrid search, side by side.

Same data, same queries, one process, interleaved: the bench.latency corpus (100k
synthetic Chinese + English ad-ops memories over 20 advertisers, 10% global) and its 200
queries, three in four scoped to one advertiser plus global memories. LanceDB gets an
IVF-PQ vector index (cosine), its native full-text index and a bitmap index on the
advertiser, and the same advertiser pre-filter. Its full-text column holds the same
CJK-aware tokens our FTS5 index reads, space-separated, so both keyword sides see the same
words. Query vectors are embedded once up front and never timed; each round runs every
query on both engines, alternating which goes first, and a brute-force float32 scan of
the whole matrix is timed in the same loop as the floor.

Recall is measured outside the timed loop: the vector side of each engine (top 10 inside
the query's filter) against an exact float32 scan of the same rows.

lancedb is a bench-only extra (`pip install '.[bench]'`), never a runtime dependency.

    python -m bench.vs_lancedb --json [--size 100000] [--queries 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from bench._common import Progress, emit, every_core_blas, lancedb_version, percentile, setup_throwaway_django
from bench.corpus_cache import add_corpus_arguments


def _lance_table(rows: list[tuple], key: str, progress: Progress):
    """The LanceDB table for this corpus, built once and kept under .cache/issue14a."""
    import lancedb
    import numpy as np
    import pyarrow as pa

    from bench.corpus_cache import cache_path
    from memories.search.tokens import query_tokens

    path = cache_path(f"lance-{key}")
    db = lancedb.connect(str(path))
    if "memories" in db.table_names():
        existing = db.open_table("memories")
        # A run stopped while indexing leaves a table without all three indexes: rebuild it.
        if len(list(existing.list_indices())) >= 3:
            return existing
        db.drop_table("memories")
    progress(f"building the LanceDB table for {len(rows)} memories (IVF-PQ, FTS, bitmap)")
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = np.vstack([np.frombuffer(bytes(r[3]), dtype=np.float32) for r in rows])
    dim = matrix.shape[1]
    table = pa.table(
        {
            "id": pa.array(ids),
            "tokens": pa.array([" ".join(query_tokens(r[1])) for r in rows]),
            "advertiser": pa.array([r[2] for r in rows], type=pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), dim),
        }
    )
    tbl = db.create_table("memories", data=table)
    t0 = time.perf_counter()
    tbl.create_index(metric="cosine", vector_column_name="vector", index_type="IVF_PQ", num_partitions=256, num_sub_vectors=dim // 8)
    tbl.create_fts_index("tokens", base_tokenizer="whitespace", lower_case=True, stem=False, remove_stop_words=False, ascii_folding=False)
    tbl.create_scalar_index("advertiser", index_type="BITMAP")
    progress(f"LanceDB indexes built in {time.perf_counter() - t0:.1f}s")
    return tbl


def _lance_filter(advertiser: str | None) -> str | None:
    if advertiser is None:
        return None
    return f"(advertiser = '{advertiser}' OR advertiser IS NULL)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vs_lancedb", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--size", type=int, default=100_000, help="memories (default 100000, the bench.latency corpus)")
    parser.add_argument("--queries", type=int, default=200, help="searches per round (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; each is reported (default 3)")
    add_corpus_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.size < 1 or args.queries < 1 or args.rounds < 1:
        sys.stderr.write("bench.vs_lancedb: error: --size, --queries and --rounds must be positive\n")
        return 2
    lance_version = lancedb_version("bench.vs_lancedb")
    if lance_version is None:
        return 2

    progress = Progress(args.quiet)
    workdir = setup_throwaway_django("vslance")
    import numpy as np
    from django.db import connection

    from bench.corpus_cache import text_key
    from bench.latency import load_or_build_corpus, query_plan
    from memories.embeddings.query_cache import embed_query_cached
    from memories.search.filters import SearchFilter
    from memories.search.tokens import query_tokens
    from memories.search.vectors import vector_index
    from memories.selectors import memory_search

    load_or_build_corpus(args.size, args.base_texts, args.noise, workdir, progress)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, content, advertiser, embedding FROM memories_memory WHERE embedding IS NOT NULL ORDER BY id")
        rows = cursor.fetchall()
    key = text_key([str(r[0]) for r in rows[:50]], len(rows), args.base_texts, args.noise)
    table = _lance_table(rows, key, progress)
    matrix = np.vstack([np.frombuffer(bytes(r[3]), dtype=np.float32) for r in rows])
    del rows

    plan = query_plan(args.queries)
    vectors = {q: embed_query_cached(q).vector for q in {q for q, _ in plan}}  # up front, untimed; fills our LRU too
    texts = {q: " ".join(query_tokens(q)) for q in vectors}

    def ours(query: str, advertiser: str | None) -> float:
        t0 = time.perf_counter()
        response = memory_search(query=query, advertisers=(advertiser,) if advertiser else None, top_k=10, record_access=False)
        return (time.perf_counter() - t0) * 1000 - response.embed_ms

    def lance(query: str, advertiser: str | None) -> float:
        t0 = time.perf_counter()
        builder = table.search(query_type="hybrid").vector(vectors[query]).text(texts[query])
        where = _lance_filter(advertiser)
        if where:
            builder = builder.where(where, prefilter=True)
        builder.limit(10).to_list()
        return (time.perf_counter() - t0) * 1000

    def scan(query: str) -> float:
        with every_core_blas():
            t0 = time.perf_counter()
            scores = matrix @ vectors[query]
            top = np.argpartition(-scores, 10)[:10]
            top[np.argsort(-scores[top])]
            return (time.perf_counter() - t0) * 1000

    progress("warming up both engines")
    for query, advertiser in plan[:10]:
        ours(query, advertiser)
        lance(query, advertiser)
        scan(query)

    rounds = []
    pooled: dict[str, list[float]] = {"ours": [], "lance": [], "scan": []}
    for r in range(args.rounds):
        times: dict[str, list[float]] = {"ours": [], "lance": [], "scan": []}
        load_before = os.getloadavg()[0]
        for i, (query, advertiser) in enumerate(plan):
            if (i + r) % 2:
                times["ours"].append(ours(query, advertiser))
                times["lance"].append(lance(query, advertiser))
            else:
                times["lance"].append(lance(query, advertiser))
                times["ours"].append(ours(query, advertiser))
            times["scan"].append(scan(query))
        row = {name: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)} for name, v in times.items()}
        row["p95_ours_over_lance"] = round(row["ours"]["p95_ms"] / max(row["lance"]["p95_ms"], 1e-6), 3)
        row["p50_ours_over_lance"] = round(row["ours"]["p50_ms"] / max(row["lance"]["p50_ms"], 1e-6), 3)
        row["p95_ours_over_scan"] = round(row["ours"]["p95_ms"] / max(row["scan"]["p95_ms"], 1e-6), 3)
        row["load_average_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        rounds.append(row)
        for name, v in times.items():
            pooled[name].extend(v)
        progress(f"round {r + 1}: ours p95 {row['ours']['p95_ms']} ms, LanceDB p95 {row['lance']['p95_ms']} ms")

    progress("measuring vector recall@10 against the exact float32 scan")
    recall_ours: list[float] = []
    recall_lance: list[float] = []
    for query, advertiser in dict.fromkeys(plan):
        search_filter = SearchFilter.for_advertiser(advertiser)
        exact = {m for m, _ in vector_index.search(vectors[query], search_filter, 10, exact=True)}
        fast = {m for m, _ in vector_index.search(vectors[query], search_filter, 10)}
        builder = table.search(vectors[query]).select(["id"])
        where = _lance_filter(advertiser)
        if where:
            builder = builder.where(where, prefilter=True)
        theirs = {int(row["id"]) for row in builder.limit(10).to_list()}
        recall_ours.append(len(exact & fast) / max(len(exact), 1))
        recall_lance.append(len(exact & theirs) / max(len(exact), 1))

    summary = {name: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)} for name, v in pooled.items()}
    doc = {
        "size": len(matrix),
        "queries_per_round": len(plan),
        "rounds": rounds,
        "pooled": summary,
        "p95_ours_over_lance": round(summary["ours"]["p95_ms"] / max(summary["lance"]["p95_ms"], 1e-6), 3),
        "p50_ours_over_lance": round(summary["ours"]["p50_ms"] / max(summary["lance"]["p50_ms"], 1e-6), 3),
        "p95_ours_over_scan": round(summary["ours"]["p95_ms"] / max(summary["scan"]["p95_ms"], 1e-6), 3),
        "vector_recall_at_10": {
            "ours": round(float(np.mean(recall_ours)), 4),
            "lancedb_ivf_pq": round(float(np.mean(recall_lance)), 4),
            "distinct_query_filter_pairs": len(recall_ours),
        },
        "method": {
            "ours": "memory_search(mode=hybrid, top_k=10, record_access=False), wall time minus its (cached) query-embedding time",
            "lancedb": f"lancedb {lance_version}: hybrid query (vector + native FTS, default RRF), "
            "IVF_PQ cosine (256 partitions, dim/8 sub-vectors, default nprobes), FTS on the same CJK-aware tokens, "
            "BITMAP index on advertiser, pre-filter '(advertiser = X OR advertiser IS NULL)'",
            "scan": "unfiltered float32 matrix @ q over every vector, then the top 10 (the bench.latency floor)",
            "order": "interleaved per query, the engine that goes first alternating",
        },
    }
    emit(doc, args.json, render)
    return 0


def render(doc: dict[str, Any]) -> str:
    lines = [f"{'round':>6} {'ours p50':>9} {'ours p95':>9} {'lance p50':>10} {'lance p95':>10} {'scan p95':>9} {'p95 ratio':>10}"]
    for i, r in enumerate(doc["rounds"], start=1):
        lines.append(
            f"{i:6d} {r['ours']['p50_ms']:9.2f} {r['ours']['p95_ms']:9.2f} {r['lance']['p50_ms']:10.2f} "
            f"{r['lance']['p95_ms']:10.2f} {r['scan']['p95_ms']:9.2f} {r['p95_ours_over_lance']:10.3f}"
        )
    p = doc["pooled"]
    lines.append(
        f"{'all':>6} {p['ours']['p50_ms']:9.2f} {p['ours']['p95_ms']:9.2f} {p['lance']['p50_ms']:10.2f} "
        f"{p['lance']['p95_ms']:10.2f} {p['scan']['p95_ms']:9.2f} {doc['p95_ours_over_lance']:10.3f}"
    )
    recall = doc["vector_recall_at_10"]
    lines.append(f"vector recall@10 vs exact float32 scan: ours {recall['ours']}, LanceDB IVF-PQ {recall['lancedb_ivf_pq']}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
