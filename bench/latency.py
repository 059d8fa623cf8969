"""Search latency and import throughput at scale, through the real stack.

For each size N: N synthetic Chinese + English ad-ops memories are imported through
governance.write.imports (timed: import_per_s), given vectors, and searched with
memory_search in hybrid mode. Search time excludes query embedding, which is timed on
its own (embed_*_ms).

Embedding 100k texts with the bundled model would take most of an hour on two cores, so
only a few thousand distinct texts are embedded for real; every memory gets the vector of
one of them plus a little Gaussian noise (re-normalised), written straight to the
embedding column. The vector search therefore scans a realistic 100k × 384 matrix, and
keyword search runs over the full 100k-row FTS5 index.

    python -m bench.latency --json [--sizes 10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from datetime import timedelta
from typing import Any, cast

from bench._common import Progress, emit, every_core_blas, percentile, setup_throwaway_django
from bench.corpus_cache import add_corpus_arguments

ADVERTISERS = [f"brand_{c}" for c in "ABCDEFGHIJKLMNOPQRST"]
BUSINESS_LINES = ["", "", "beauty", "pharma_otc", "ecommerce", "games", "education"]
LAYERS = ["L1", "L2", "L2", "L2", "L3", "L4"]

_ZH_SUBJECTS = ["医药OTC", "美妆", "母婴", "3C数码", "食品饮料", "在线教育", "手游", "本地生活", "家居", "汽车"]
_ZH_CHANNELS = ["抖音信息流", "快手", "微信朋友圈", "百度搜索", "小红书", "B站", "腾讯广点通", "巨量千川", "淘宝直通车", "京东快车"]
_ZH_ACTIONS = [
    "出价上调{p}%后转化成本下降{q}%",
    "预算在{h}点后集中消耗，建议分时段出价",
    "冷启动期前{d}天不宜频繁调价，否则学习期重置",
    "大促期间CPM上涨{p}%，ROI跌破{r}需降低出价",
    "素材疲劳周期约{d}天，CTR下降{q}%后需更换素材",
    "oCPC二阶段目标CPA控制在{c}元以内效果最稳",
    "定向25-35岁女性人群ROI达到{r}，优于通投",
    "夜间{h}点至凌晨转化率偏低，建议降低预算{p}%",
    "周末流量成本上涨，出价系数建议设为{r}",
    "新计划首日预算不低于{c}元才能顺利过学习期",
    "竞品投放加大导致点击成本上升{p}%",
    "直播间投流在晚间{h}点转化最好，GMV提升{q}%",
]
_EN_ACTIONS = [
    "raising the bid by {p}% cut CPA by {q}% on {ch}",
    "budget pacing: spend concentrates after {h}:00, use dayparting",
    "during the first {d} days of cold start avoid bid changes",
    "ROI dropped below {r} when CPM rose {p}% during the promotion",
    "creative fatigue shows after {d} days; CTR fell {q}%",
    "lookalike audiences reached ROI {r} versus {q}% lower for broad targeting",
    "keep target CPA under {c} yuan in the second oCPC stage",
    "weekend traffic costs rise; set the bid multiplier to {r}",
]


def synthetic_texts(n: int, seed: int = 7) -> list[str]:
    """n distinct memory texts, about one in four in English."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        slots = {
            "p": rng.randint(5, 60),
            "q": rng.randint(3, 45),
            "h": rng.randint(0, 23),
            "d": rng.randint(2, 14),
            "r": round(rng.uniform(0.8, 4.5), 1),
            "c": rng.randint(20, 400),
            "ch": rng.choice(_ZH_CHANNELS),
        }
        if rng.random() < 0.25:
            text = f"{rng.choice(_ZH_SUBJECTS)} / {rng.choice(ADVERTISERS)}: " + rng.choice(_EN_ACTIONS).format(**slots)
        else:
            text = f"{rng.choice(_ZH_SUBJECTS)}在{slots['ch']}：" + rng.choice(_ZH_ACTIONS).format(**slots)
            if rng.random() < 0.3:
                text += f"（{rng.choice(ADVERTISERS)}，第{rng.randint(1, 52)}周复盘）"
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


QUERIES = [
    "出价",
    "预算",
    "大促 ROI",
    "冷启动出价策略",
    "素材疲劳 更换",
    "分时段出价",
    "医药OTC 合规",
    "美妆 新品 ROI",
    "直播间投流 晚间",
    "oCPC 目标CPA",
    "周末 出价系数",
    "学习期 预算",
    "CPM上涨 降低出价",
    "女性人群 定向",
    "bid increase CPA",
    "creative fatigue CTR",
    "cold start bid changes",
    "weekend bid multiplier",
    "ROI below promotion CPM",
    "brand_A 预算 ROI",
    "抖音信息流 转化成本",
    "小红书 素材",
    "夜间 转化率 预算",
    "竞品 点击成本",
    "GMV 提升",
    "lookalike audiences ROI",
    "dayparting budget pacing",
    "首日预算 学习期",
]


def _mature_template_sources(rows: list[dict[str, Any]]) -> dict[str | None, str]:
    """Make the L4 rows valid under the trusted import's lineage rule: a template derives
    only from a mature L2 memory of its own scope, judged on the line's recorded fields.
    Per template scope, the first L2 row of that scope is given the age, uses, importance
    and grounding the L2 policy asks for; a template whose scope has no L2 row in the batch
    moves to the scope of one that has (a small sample may leave a scope without L2).
    Returns each template scope's source content (unique within the batch)."""
    from django.utils import timezone

    from governance.models import LayerPolicy

    policy = LayerPolicy.objects.get(layer="L2")
    l2_rows = [r for r in rows if r["layer"] == "L2"]
    first_l2: dict[str | None, dict[str, Any]] = {}
    for r in l2_rows:
        first_l2.setdefault(r["advertiser"], r)
    sources: dict[str | None, str] = {}
    if not l2_rows:
        # Nothing to promote from: the batch's would-be templates stay strategy memories.
        for r in rows:
            r["layer"] = "L2" if r["layer"] == "L4" else r["layer"]
        return sources
    for i, r in enumerate(x for x in rows if x["layer"] == "L4"):
        if r["advertiser"] not in first_l2:
            r["advertiser"] = l2_rows[i % len(l2_rows)]["advertiser"]
        source = first_l2[r["advertiser"]]
        if r["advertiser"] not in sources:
            old = timezone.now() - timedelta(days=policy.promotion_min_age_days + 30)
            source["created_at"] = old.isoformat()
            source["access_count"] = policy.promotion_min_recalls
            source["importance"] = max(source["importance"], math.ceil(policy.promotion_min_importance))
            source["grounding"] = "grounded"
            sources[r["advertiser"]] = source["content"]
    return sources


def import_synthetic(texts: list[str], n: int, rng: random.Random, progress: Progress) -> float:
    """Import n memories through governance.write.imports; returns memories per second."""
    from governance.write.imports import memories_import

    rows = []
    for i in range(n):
        rows.append(
            {
                "layer": rng.choice(LAYERS),
                "content": texts[i % len(texts)] if i < len(texts) else f"{texts[i % len(texts)]} #{i}",
                "advertiser": None if rng.random() < 0.1 else rng.choice(ADVERTISERS),
                "business_line": rng.choice(BUSINESS_LINES),
                "category": "bench",
                "source": "tool",
                "importance": rng.randint(1, 10),
                # No TTL surprises: L3 rows get an explicit far expiry so all stay searchable.
                "expires_at": "2099-01-01T00:00:00+00:00",
            }
        )
    sources = _mature_template_sources(rows)
    # L4 templates must name the L2 memory they were promoted from, so they load second.
    started = time.perf_counter()
    first = [r for r in rows if r["layer"] != "L4"]
    memories_import(lines=[json.dumps(r, ensure_ascii=False) for r in first], actor="bench.latency", embed=False, label=f"latency-{n}")
    templates = [r for r in rows if r["layer"] == "L4"]
    if templates:
        from memories.hashing import content_hash
        from memories.models import Memory

        ids = dict(
            Memory.objects.filter(layer="L2", content_hash__in=[content_hash(c) for c in sources.values()])
            .order_by("id")
            .values_list("content_hash", "id")
        )
        lines = [
            json.dumps({**r, "derived_from": [ids[content_hash(sources[cast(str | None, r["advertiser"])])]]}, ensure_ascii=False)
            for r in templates
        ]
        memories_import(lines=lines, actor="bench.latency", embed=False, label=f"latency-{n}-templates")
    elapsed = time.perf_counter() - started
    progress(f"imported {n} memories in {elapsed:.1f}s")
    return n / elapsed


def attach_vectors(base: Any, noise: float, rng_seed: int, progress: Progress) -> None:
    """Give every memory a vector: a real embedding of one of the base texts plus noise."""
    import numpy as np
    from django.db import connection, transaction

    from memories.embeddings import get_embedder

    embedder = get_embedder()
    rng = np.random.default_rng(rng_seed)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM memories_memory WHERE embedding IS NULL ORDER BY id")
        ids = [row[0] for row in cursor.fetchall()]
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        picks = base[np.arange(start, start + len(chunk)) % len(base)]
        vectors = picks + rng.normal(0.0, noise, size=picks.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(
                "UPDATE memories_memory SET embedding = %s, embedding_model = %s, embedding_dim = %s WHERE id = %s",
                [
                    (v.astype(np.float32).tobytes(), embedder.model_name, embedder.dimension, mid)
                    for v, mid in zip(vectors, chunk, strict=True)
                ],
            )
    progress(f"attached vectors to {len(ids)} memories")


class _TimedEmbedder:
    """Wraps the real embedder's query call to add up its CPU time, so search CPU time can
    be reported without it (wall time already comes back as SearchResponse.embed_ms)."""

    def __init__(self, embedder) -> None:
        self.cpu_ms = 0.0
        self._inner = embedder.embed_query
        embedder.embed_query = self._embed_query

    def _embed_query(self, text: str):
        started = time.process_time()
        try:
            return self._inner(text)
        finally:
            self.cpu_ms += (time.process_time() - started) * 1000


def query_plan(queries: int, seed: int = 11) -> list[tuple[str, str | None]]:
    """The timed searches: (query text, advertiser or None). Three in four are scoped to one
    advertiser (plus global memories); every fourth is the operator's unscoped view."""
    rng = random.Random(seed)
    return [(QUERIES[i % len(QUERIES)], rng.choice(ADVERTISERS) if i % 4 != 3 else None) for i in range(queries)]


def base_vectors(texts: list[str], base_count: int):
    """Real passage embeddings of the first base_count texts (cached under .cache/issue14a)."""
    from bench.corpus_cache import cached_passages
    from memories.embeddings import get_embedder

    embedder = get_embedder()
    return cached_passages(texts[:base_count], embedder.model_name, embedder.embed_passages, "latency-base")


def load_or_build_corpus(n: int, base_count: int, noise: float, workdir, progress: Progress) -> None:
    """Put the n-memory bench.latency corpus in the throwaway database: a copy of the cached
    file when there is one, otherwise built exactly as `bench.latency --sizes n` builds it
    (governed import, then vectors) and cached for the next run."""
    from django.db import connection

    from bench.corpus_cache import corpus_db_path, save_db
    from memories.embeddings import get_embedder

    target = workdir / "bench.db"
    cached = corpus_db_path(n, base_count, noise, 11, get_embedder().model_name)
    if cached.exists():
        connection.close()
        save_db(cached, target)
        # The cached file may predate newer migrations: bring its schema up to date.
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        progress(f"corpus of {n} memories copied from {cached.name}")
        return
    texts = synthetic_texts(n)
    base = base_vectors(texts, min(base_count, len(texts)))
    import_synthetic(texts, n, random.Random(11), progress)
    attach_vectors(base, noise, n, progress)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA optimize")
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    save_db(target, cached)
    progress(f"corpus cached as {cached.name}")


def _measure(queries: int, rng: random.Random, progress: Progress) -> dict[str, Any]:
    import os

    from memories.embeddings import get_embedder
    from memories.selectors import memory_search

    embedder = get_embedder()
    timer = _TimedEmbedder(embedder)
    # Warm-up: loads the vector matrix and the SQLite page cache, as a running server would.
    t0 = time.perf_counter()
    memory_search(query="预算", top_k=10, record_access=False)
    load_s = time.perf_counter() - t0
    for query in QUERIES[:5]:
        memory_search(query=query, advertisers=("brand_A",), top_k=10, record_access=False)
    search_ms: list[float] = []
    search_cpu_ms: list[float] = []
    embed_ms: list[float] = []
    by_kind: dict[str, list[float]] = {"advertiser": [], "operator": []}
    load_before = os.getloadavg()[0]
    for query, advertiser in query_plan(queries):
        scoped = advertiser is not None
        embed_cpu_before = timer.cpu_ms
        c0 = time.process_time()
        t0 = time.perf_counter()
        response = memory_search(
            query=query,
            advertisers=(advertiser,) if scoped else None,
            top_k=10,
            record_access=False,
        )
        total_ms = (time.perf_counter() - t0) * 1000
        search_cpu_ms.append((time.process_time() - c0) * 1000 - (timer.cpu_ms - embed_cpu_before))
        search_ms.append(total_ms - response.embed_ms)
        embed_ms.append(response.embed_ms)
        by_kind["advertiser" if scoped else "operator"].append(total_ms - response.embed_ms)
    return {
        "search_p50_ms": round(percentile(search_ms, 50), 2),
        "search_p95_ms": round(percentile(search_ms, 95), 2),
        "search_p99_ms": round(percentile(search_ms, 99), 2),
        "search_max_ms": round(max(search_ms), 2),
        "search_p95_ms_advertiser_scoped": round(percentile(by_kind["advertiser"], 95), 2),
        "search_p95_ms_operator_view": round(percentile(by_kind["operator"], 95), 2),
        "embed_p50_ms": round(percentile(embed_ms, 50), 2),
        "embed_p95_ms": round(percentile(embed_ms, 95), 2),
        "embed_p99_ms": round(percentile(embed_ms, 99), 2),
        "end_to_end_p95_ms": round(percentile([a + b for a, b in zip(search_ms, embed_ms, strict=True)], 95), 2),
        # CPU time of the same searches: what they cost when the machine is not shared.
        "search_cpu_p50_ms": round(percentile(search_cpu_ms, 50), 2),
        "search_cpu_p95_ms": round(percentile(search_cpu_ms, 95), 2),
        "search_cpu_p99_ms": round(percentile(search_cpu_ms, 99), 2),
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cold_first_search_s": round(load_s, 2),
        "queries": queries,
    }


def _numpy_scan_baseline(queries: int) -> dict[str, float]:
    """The floor the issue compares against, in this run: a brute-force cosine scan of the
    whole N × dim float32 matrix (matrix @ q, then the top 10), with no filter, no keyword
    side and no fusion. Query vectors are embedded up front and not timed."""
    import numpy as np
    from django.db import connection

    from memories.embeddings import get_embedder

    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding FROM memories_memory WHERE embedding IS NOT NULL")
        matrix = np.vstack([np.frombuffer(bytes(row[0]), dtype=np.float32) for row in cursor.fetchall()])
    vectors = [get_embedder().embed_query(QUERIES[i % len(QUERIES)]) for i in range(min(queries, len(QUERIES)))]

    def scan(vector):
        scores = matrix @ vector
        top = np.argpartition(-scores, 10)[:10] if len(scores) > 10 else np.arange(len(scores))
        return top[np.argsort(-scores[top])]

    timings = []
    with every_core_blas():
        for vector in vectors[:5]:  # warm-up, as the product search gets
            scan(vector)
        for i in range(queries):
            t0 = time.perf_counter()
            scan(vectors[i % len(vectors)])
            timings.append((time.perf_counter() - t0) * 1000)
    return {"numpy_scan_p50_ms": round(percentile(timings, 50), 2), "numpy_scan_p95_ms": round(percentile(timings, 95), 2)}


def vector_recall(queries: int) -> dict[str, float]:
    """The vector side's recall@10 against the exact float32 scan of the same rows, inside
    each query's filter, over the distinct (query, advertiser) pairs of the timed plan."""
    from memories.embeddings.query_cache import embed_query_cached
    from memories.search.filters import SearchFilter
    from memories.search.vectors import vector_index

    recalls = []
    for query, advertiser in dict.fromkeys(query_plan(queries)):
        vector = embed_query_cached(query).vector
        search_filter = SearchFilter.for_advertiser(advertiser)
        exact = {m for m, _ in vector_index.search(vector, search_filter, 10, exact=True)}
        fast = {m for m, _ in vector_index.search(vector, search_filter, 10)}
        recalls.append(len(exact & fast) / max(len(exact), 1))
    return {"vector_recall_at_10": round(sum(recalls) / max(len(recalls), 1), 4), "vector_recall_pairs": len(recalls)}


def extra_worker(database: str, in_process: bool) -> dict[str, Any]:
    """Run in a subprocess (`--extra-worker`): one more process of the service on the bench's
    database, as a new web or qcluster worker starts. Its memory is read after Django and
    the embedder are loaded and again after the vector index is loaded and a few searches
    ran (the fast path a worker serves), then its index load time. `in_process` keeps the
    vectors in the process (memories/search/vector_file.py's LocalVectors, the per-process
    design) instead of mapping the shared file: the comparison, in the same run."""
    import os

    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "lingix_site.settings"
    import django

    django.setup()
    from bench._common import process_memory_mb
    from memories.embeddings import get_embedder
    from memories.search import vectors
    from memories.search.filters import SearchFilter

    if in_process:
        vectors.shared_path = lambda *_: None  # type: ignore[assignment]
    plan = query_plan(20)
    queries = [get_embedder().embed_query(query) for query, _ in plan]
    before = process_memory_mb()
    t0 = time.perf_counter()
    vectors.vector_index.refresh()
    load_s = time.perf_counter() - t0
    for vector, (_, advertiser) in zip(queries, plan, strict=True):
        vectors.vector_index.search(vector, SearchFilter.for_advertiser(advertiser), 10)
    after = process_memory_mb()
    assert before is not None and after is not None
    return {
        "vectors": "in process" if in_process else "shared file",
        "index_load_s": round(load_s, 2),
        "vectors_read_from_db": vectors.vector_index.loads["vectors_read"],
        "before_index": before,
        "after_index": after,
        **{f"index_{key}": round(after[key] - before[key], 1) for key in ("rss_mb", "pss_mb", "private_mb")},
    }


def worker_memory(progress: Progress) -> dict[str, Any]:
    """An extra worker's memory with the shared vector file and with the vectors in its own
    process, while this process (which loaded the index first) keeps its own map open."""
    import subprocess

    from django.db import connection

    from bench._common import REPO

    database = str(connection.settings_dict["NAME"])
    out: dict[str, Any] = {}
    for in_process in (False, True):
        done = subprocess.run(
            [sys.executable, "-m", "bench.latency", "--extra-worker", database, *(["--in-process"] if in_process else [])],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"extra worker failed: {done.stderr[-1500:]}")
        report = json.loads(done.stdout.strip().splitlines()[-1])
        out["in_process" if in_process else "shared_file"] = report
        progress(
            f"extra worker ({report['vectors']}): index load {report['index_load_s']} s, "
            f"+{report['index_rss_mb']} MB RSS, +{report['index_pss_mb']} MB PSS, +{report['index_private_mb']} MB private"
        )
    return out


def delete_refresh() -> dict[str, Any]:
    """What a delete costs the index: the refresh after one memory is deleted (the deleted id
    read from the log and dropped), against a full reload of the same index, same run."""
    from django.db import connection

    from memories.search.vectors import vector_index
    from memories.storage import memories_delete

    vector_index.refresh()
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM memories_memory WHERE supersedes_id IS NULL")
        (victim,) = cursor.fetchone()
    full_before = vector_index.loads["full"]
    memories_delete(memory_ids=[victim])
    t0 = time.perf_counter()
    vector_index.refresh()
    after_delete_ms = (time.perf_counter() - t0) * 1000
    assert vector_index.loads["full"] == full_before, "a delete must not reload the index in full"
    vector_index.invalidate()
    t0 = time.perf_counter()
    vector_index.refresh()
    full_ms = (time.perf_counter() - t0) * 1000
    return {
        "refresh_after_delete_ms": round(after_delete_ms, 2),
        "full_reload_ms": round(full_ms, 1),
        "vectors_shared": vector_index.shared,
    }


def _row(
    n: int, rate: float | None, results: list[dict[str, Any]], args: argparse.Namespace, rng: random.Random, progress: Progress
) -> dict[str, Any]:
    """One measurement at size n: the timed searches, then the float32 scan and the vector
    recall in the same process."""
    previous = [r["n"] for r in results if r["n"] != n]
    row = {
        "n": n,
        **_measure(args.queries, rng, progress),
        "import_per_s": round(rate, 1) if rate is not None else None,
        "import_batch": n - (previous[-1] if previous else 0),
    }
    row.update(_numpy_scan_baseline(args.queries))
    # Like for like: the unfiltered operator-view searches against the unfiltered scan.
    row["operator_search_p95_over_numpy_scan_p95"] = round(row["search_p95_ms_operator_view"] / max(row["numpy_scan_p95_ms"], 1e-6), 2)
    row["search_p95_over_numpy_scan_p95"] = round(row["search_p95_ms"] / max(row["numpy_scan_p95_ms"], 1e-6), 2)
    row.update(vector_recall(args.queries))
    if n == max(args.size_list):
        row["extra_worker"] = worker_memory(progress)
        row.update(delete_refresh())
    progress(
        f"n={n}: search p95 {row['search_p95_ms']} ms (operator view {row['search_p95_ms_operator_view']} ms), "
        f"float32 scan p95 {row['numpy_scan_p95_ms']} ms, vector recall@10 {row['vector_recall_at_10']}"
    )
    return row


def render(doc: dict[str, Any]) -> str:
    lines = [f"{'n':>8} {'p50':>7} {'p95':>7} {'p99':>7} {'embed50':>8} {'import/s':>9} {'numpy95':>8} {'op95/np95':>9} {'vec R@10':>8}"]
    for r in doc["results"]:
        lines.append(
            f"{r['n']:8d} {r['search_p50_ms']:7.2f} {r['search_p95_ms']:7.2f} {r['search_p99_ms']:7.2f} "
            f"{r['embed_p50_ms']:8.2f} {r['import_per_s'] or 0:9.0f} {r['numpy_scan_p95_ms']:8.2f} "
            f"{r['operator_search_p95_over_numpy_scan_p95']:9.2f} {r['vector_recall_at_10']:8.4f}"
        )
    lines.append("search times exclude query embedding; " + doc["method"]["vectors"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated memory counts (default 10000,100000)")
    parser.add_argument("--queries", type=int, default=200, help="timed searches per size (default 200)")
    add_corpus_arguments(parser)
    parser.add_argument(
        "--reuse-corpus",
        action="store_true",
        help="search a cached copy of the corpus (.cache/issue14a, built on first use) instead of importing it; "
        "one size only, and import_per_s is then not measured",
    )
    parser.add_argument("--rounds", type=int, default=1, help="measure the searches this many times per size, each reported (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--extra-worker", metavar="DATABASE", help=argparse.SUPPRESS)
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.extra_worker:
        print(json.dumps(extra_worker(args.extra_worker, args.in_process)))
        return 0
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        sys.stderr.write("bench.latency: error: --sizes takes comma-separated integers, e.g. 10000,100000\n")
        return 2
    if not sizes or min(sizes) < 1 or args.queries < 1 or args.base_texts < 1:
        sys.stderr.write("bench.latency: error: sizes, --queries and --base-texts must be positive\n")
        return 2

    args.size_list = sizes
    progress = Progress(args.quiet)
    if args.reuse_corpus and len(sizes) != 1:
        sys.stderr.write("bench.latency: error: --reuse-corpus takes exactly one size, e.g. --sizes 100000\n")
        return 2
    if args.rounds < 1:
        sys.stderr.write("bench.latency: error: --rounds must be positive\n")
        return 2
    workdir = setup_throwaway_django("latency")
    from django.db import connection

    from memories.embeddings import get_embedder

    rng = random.Random(11)
    texts = synthetic_texts(max(sizes))
    base_count = min(args.base_texts, len(texts))
    progress(f"embedding {base_count} distinct texts with {get_embedder().model_name}")
    # Timed on a sample so the figure stays honest when the base vectors come from the cache.
    sample = texts[:64]
    t0 = time.perf_counter()
    get_embedder().embed_passages(sample)
    passage_per_s = len(sample) / (time.perf_counter() - t0)
    base = base_vectors(texts, base_count)

    results = []
    imported = 0
    for n in sizes:
        if args.reuse_corpus:
            load_or_build_corpus(n, base_count, args.noise, workdir, progress)
            rate = None
        else:
            # Sizes grow in one database: import only the difference, time it as its own batch.
            rate = import_synthetic(texts[imported:n], n - imported, rng, progress)
            imported = n
            attach_vectors(base, args.noise, n, progress)
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA optimize")
        for _ in range(args.rounds):
            results.append(_row(n, rate, results, args, rng, progress))
    doc = {
        "results": results,
        "method": {
            "memories": "synthetic Chinese + English ad-ops texts over 20 advertisers, 10% global, mixed layers and business lines",
            "import": "governance.write.imports.memories_import (validation + one transaction + FTS/generation triggers), embed=False",
            "vectors": f"{base_count} distinct texts embedded for real, reused with Gaussian noise sd={args.noise}, re-normalised",
            "search": "memory_search(mode=hybrid, top_k=10, record_access=False); 3 in 4 queries scoped to one advertiser",
            "search_ms": "wall time of memory_search minus its query-embedding time",
            "search_cpu_ms": "process CPU time of memory_search minus the embedder's CPU time (OMP_NUM_THREADS=1)",
            "numpy_scan_ms": "baseline in the same run: unfiltered matrix @ q over every stored vector, then the top 10",
            "vector_recall_at_10": "vector side (sign-code pass + exact rescoring) vs the exact float32 scan, same filter, top 10",
            "extra_worker": "largest size only: a new process on the same database, memory (/proc/self: VmRSS, smaps_rollup Pss and "
            "Private_*) after Django + embedder and again after the vector index is loaded and 20 searches ran; shared_file maps "
            "the model's <database>.*.vectors, in_process holds the vectors itself (the per-process design); this bench process keeps its map open",
            "refresh_after_delete_ms": "largest size only: the refresh after one memory is deleted, against full_reload_ms, same index",
            "passage_embed_per_s": round(passage_per_s, 1),
        },
    }
    emit(doc, args.json, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
