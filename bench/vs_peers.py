"""The project's retrieval against what a user would pick instead, on the same LoCoMo data.

Every system ranks the same memories (the LoCoMo turns as bench.locomo imports them: date,
speaker, words and two earlier turns of context) with the same vectors (the ones the
project stored for those turns, and the project's own query vector for each question), one
conversation at a time, top 10:

- project: memory_search in hybrid mode with bench.locomo's ranking (the product default,
  FTS scoring budget lifted);
- BM25: LanceDB's native full-text search alone, over the same CJK-aware tokens the
  project's keyword index reads (memories/search/tokens.py), space-separated;
- cosine: an exact float32 scan of the stored vectors (what mem0 OSS does offline);
- LanceDB hybrid: flat (exact) cosine plus its native full-text search, fused by its
  default reciprocal-rank reranker;
- the same two (`bm25_native`, `lancedb_hybrid_native`) with LanceDB's own default
  tokenizer (English stemming, stop words out) over the raw turn text and question, the
  way a LanceDB user would set it up: it splits no Chinese, but stems English.

Per question, the difference of recall@k between the project and each peer is
bootstrapped (resampling questions) into a 95% confidence interval. Recall@5 and @10 are
reported overall and per LoCoMo category.

lancedb is a bench-only extra (`pip install '.[bench]'`), never a runtime dependency.

    python -m bench.vs_peers --json [--data PATH] [--conversations N] [--bootstrap 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench._common import Progress, emit, lancedb_version, setup_throwaway_django
from bench.locomo import CATEGORIES, DEFAULT_DATA, KS, TurnFormat, advertiser_for, bench_ranking, build_store, load_locomo

SYSTEMS = ("project", "bm25", "cosine", "lancedb_hybrid", "bm25_native", "lancedb_hybrid_native")
PEERS = SYSTEMS[1:]


def _lance_table(rows: list[tuple], workdir: Path):
    """A throwaway LanceDB table of the turns: no vector index (an exact scan, as the
    project's at this size), the native FTS index on the project's tokens."""
    import lancedb
    import numpy as np
    import pyarrow as pa

    from memories.search.tokens import fts_document

    matrix = np.vstack([np.frombuffer(bytes(r[3]), dtype=np.float32) for r in rows])
    table = pa.table(
        {
            "id": pa.array([r[0] for r in rows], type=pa.int64()),
            "tokens": pa.array([fts_document(r[1]) for r in rows]),
            "text": pa.array([r[1] for r in rows]),
            "advertiser": pa.array([r[2] for r in rows], type=pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), matrix.shape[1]),
        }
    )
    db = lancedb.connect(str(workdir / "lance"))
    tbl = db.create_table("turns", data=table)
    tbl.create_fts_index("tokens", base_tokenizer="whitespace", lower_case=True, stem=False, remove_stop_words=False, ascii_folding=False)
    tbl.create_fts_index("text")
    return tbl


def bootstrap_ci(diff: list[float], resamples: int, seed: int = 7) -> dict[str, float]:
    """Mean of the per-question differences and its 95% percentile-bootstrap interval."""
    import numpy as np

    values = np.asarray(diff, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": round(float(values.mean()), 4), "ci95_low": round(float(low), 4), "ci95_high": round(float(high), 4)}


def render(doc: dict[str, Any]) -> str:
    lines = [f"LoCoMo side by side: {doc['questions']} questions, {doc['turns']} turns, {doc['conversations']} conversations"]
    cats = list(doc["systems"]["project"]["by_category"])
    lines.append(f"{'system':22} {'R@5':>6} {'R@10':>6}  " + "  ".join(f"{c[:14]:>14}" for c in cats) + "   (R@5/R@10)")
    for name, row in doc["systems"].items():
        per = "  ".join(f"{row['by_category'][c]['recall@5']:.3f}/{row['by_category'][c]['recall@10']:.3f}".rjust(14) for c in cats)
        lines.append(f"{name:22} {row['overall']['recall@5']:6.3f} {row['overall']['recall@10']:6.3f}  {per}")
    lines.append("project minus peer, per question, mean [95% bootstrap CI]:")
    for peer, by_k in doc["differences"].items():
        cells = "  ".join(f"R@{k[7:]} {d['mean']:+.3f} [{d['ci95_low']:+.3f}, {d['ci95_high']:+.3f}]" for k, d in by_k.items())
        lines.append(f"  vs {peer:22} {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vs_peers", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"locomo10.json (default {DEFAULT_DATA})")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations (default all)")
    parser.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--no-store-cache", action="store_true", help="import the turns afresh (default: reuse an identical store)")
    parser.add_argument("--no-embed-cache", action="store_true", help="embed every text afresh (default: reuse cached vectors)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.bootstrap < 100:
        sys.stderr.write("bench.vs_peers: error: --bootstrap takes at least 100 resamples\n")
        return 2
    if not args.data.is_file():
        sys.stderr.write(f"bench.vs_peers: error: no data file at {args.data} (use --data PATH)\n")
        return 2
    lance_version = lancedb_version("bench.vs_peers")
    if lance_version is None:
        return 2

    progress = Progress(args.quiet)
    started = time.perf_counter()
    workdir = setup_throwaway_django("vs-peers")
    if not args.no_embed_cache:
        from bench import embed_cache

        embed_cache.install()
    import numpy as np
    from django.db import connection

    from memories.embeddings import get_embedder
    from memories.embeddings.query_cache import embed_query_cached
    from memories.search.query import prepare_query
    from memories.search.tokens import query_tokens
    from memories.selectors import memory_search

    try:
        turns, questions, stats = load_locomo(args.data, args.conversations)
    except (OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"bench.vs_peers: error: cannot read {args.data}: {exc}\n")
        return 2
    dia_of = build_store(turns, TurnFormat(), progress, reuse=not args.no_store_cache)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, content, advertiser, embedding FROM memories_memory WHERE embedding IS NOT NULL ORDER BY id")
        rows = cursor.fetchall()
    progress(f"building the LanceDB table of {len(rows)} turns")
    table = _lance_table(rows, workdir)
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = np.vstack([np.frombuffer(bytes(r[3]), dtype=np.float32) for r in rows])
    rows_of: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(0, dtype=np.int64))
    for advertiser in {r[2] for r in rows}:
        rows_of[advertiser] = np.array([i for i, r in enumerate(rows) if r[2] == advertiser], dtype=np.int64)
    del rows
    config = bench_ranking()

    def lance_ids(query: Any, advertiser: str) -> list[int]:
        hits = query.where(f"advertiser = '{advertiser}'", prefilter=True).limit(max(KS)).to_list()
        return [int(hit["id"]) for hit in hits]

    recall: dict[str, dict[int, list[float]]] = {name: {k: [] for k in KS} for name in SYSTEMS}
    categories: list[int] = []
    for n, q in enumerate(questions, start=1):
        advertiser = advertiser_for(q.conversation)
        vector = embed_query_cached(prepare_query(q.question).vector_text).vector
        text = " ".join(query_tokens(q.question))
        scope = rows_of[advertiser]
        order = scope[np.argsort(-(matrix[scope] @ vector), kind="stable")[: max(KS)]]
        ranked = {
            "project": [
                r.memory.pk
                for r in memory_search(
                    query=q.question,
                    advertisers=(advertiser,),
                    include_global=False,
                    top_k=max(KS),
                    mode="hybrid",
                    record_access=False,
                    config=config,
                ).results
            ],
            "bm25": lance_ids(table.search(text, query_type="fts", fts_columns="tokens"), advertiser) if text else [],
            "cosine": ids[order].tolist(),
            "lancedb_hybrid": lance_ids(table.search(query_type="hybrid", fts_columns="tokens").vector(vector).text(text), advertiser)
            if text
            else ids[order].tolist(),
            "bm25_native": lance_ids(table.search(q.question, query_type="fts", fts_columns="text"), advertiser),
            "lancedb_hybrid_native": lance_ids(
                table.search(query_type="hybrid", fts_columns="text").vector(vector).text(q.question), advertiser
            ),
        }
        gold = set(q.evidence)
        for name, found in ranked.items():
            dias = [dia_of.get(pk) for pk in found]
            for k in KS:
                recall[name][k].append(len(gold & set(dias[:k])) / len(gold))
        categories.append(q.category)
        if n % 200 == 0:
            progress(f"{n}/{len(questions)} questions")

    def summary(values: dict[int, list[float]]) -> dict[str, Any]:
        def row(mask: list[bool]) -> dict[str, Any]:
            out: dict[str, Any] = {
                f"recall@{k}": round(float(np.mean([v for v, m in zip(values[k], mask, strict=True) if m])), 4) for k in KS
            }
            out["questions"] = sum(mask)
            return out

        return {
            "overall": row([True] * len(categories)),
            "by_category": {f"{c}-{CATEGORIES[c]}": row([x == c for x in categories]) for c in sorted(set(categories))},
        }

    doc = {
        "questions": len(questions),
        "turns": len(dia_of),
        "conversations": len(turns),
        "data_stats": stats,
        "systems": {name: summary(recall[name]) for name in SYSTEMS},
        "differences": {
            peer: {
                f"recall@{k}": bootstrap_ci([a - b for a, b in zip(recall["project"][k], recall[peer][k], strict=True)], args.bootstrap)
                for k in KS
            }
            for peer in PEERS
        },
        "config": {
            "embedder": get_embedder().model_name,
            "lancedb": lance_version,
            "bootstrap_resamples": args.bootstrap,
            "scope": "one conversation per query (the project: one advertiser per conversation; the peers: the same rows)",
        },
        "timing_s": round(time.perf_counter() - started, 1),
    }
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
