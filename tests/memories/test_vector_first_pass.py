"""The vector side's sign-code first pass and per-advertiser row index, on a small Chinese
ad-ops corpus embedded for real; and the query-embedding LRU cache with its reported cost.

The shortlist constants are lowered so that, on a corpus of a few hundred rows, the first
pass really discards most rows before the exact float32 rescoring (at the defaults every
row of so small a corpus would be rescored and the test would prove nothing)."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.db import connection
from django.utils import timezone

from bench.latency import synthetic_texts
from memories.embeddings import get_embedder
from memories.embeddings.query_cache import embed_query_cached, query_vectors
from memories.search import vectors
from memories.search.filters import SearchFilter
from memories.search.vectors import vector_index
from memories.selectors import memory_search

pytestmark = pytest.mark.django_db
# The in-process index holds vectors on SQLite only: PostgreSQL keeps them in pgvector alone
# (memories/migrations/0011_postgres_vector_single_copy.py) and searches there.
in_process_index = pytest.mark.skipif(connection.vendor != "sqlite", reason="the in-process vector index serves SQLite")

ADVERTISERS = ["brand_A", "brand_B", "brand_C", None]
QUERIES = [
    "冷启动期出价策略",
    "素材疲劳 更换素材",
    "大促 CPM 上涨 ROI",
    "夜间转化率偏低 降预算",
    "直播间投流 GMV",
    "oCPC 目标CPA",
    "抖音信息流 转化成本",
    "小红书 美妆",
    "bid multiplier weekend",
    "creative fatigue CTR",
    "医药OTC 出价",
    "学习期 首日预算",
]


_PASSAGES: dict[str, np.ndarray] = {}


@pytest.fixture
def corpus(db):
    """320 memories over three advertisers and global, imported through the governed
    import and given real passage embeddings (computed once per test module: embedding is
    the slow part, and the vectors of the same texts do not change between tests)."""
    import json

    from governance.write.imports import memories_import
    from memories.embeddings.store import embedding_text, memory_store_vectors
    from memories.models import Memory

    texts = synthetic_texts(320, seed=3)
    lines = [
        json.dumps(
            {"layer": "L2", "content": text, "advertiser": ADVERTISERS[i % 4], "category": "bench", "source": "tool"},
            ensure_ascii=False,
        )
        for i, text in enumerate(texts)
    ]
    memories_import(lines=lines, actor="test", label="first-pass", embed=False)
    memories = list(Memory.objects.order_by("id"))
    embedder = get_embedder()
    inputs = [embedding_text(m) for m in memories]
    missing = [t for t in inputs if t not in _PASSAGES]
    if missing:
        _PASSAGES.update(zip(missing, embedder.embed_passages(missing), strict=True))
    memory_store_vectors(memories, [_PASSAGES[t] for t in inputs], embedder.model_name)
    vector_index.invalidate()
    return texts


@pytest.fixture
def small_shortlist(monkeypatch):
    monkeypatch.setattr(vectors, "SHORTLIST_MIN", 80)
    monkeypatch.setattr(vectors, "SHORTLIST_PER_RESULT", 8)


def _ids(hits):
    return [memory_id for memory_id, _ in hits]


@in_process_index
@pytest.mark.parametrize("advertiser", [None, "brand_A", "brand_C"])
def test_first_pass_returns_the_exact_scans_top_k(corpus, small_shortlist, advertiser):
    embedder = get_embedder()
    search_filter = SearchFilter.for_advertiser(advertiser)
    in_scope = 320 if advertiser is None else 160
    assert in_scope > vectors.SHORTLIST_MIN  # the first pass really drops rows
    for query in QUERIES:
        vector = embedder.embed_query(query)
        fast = vector_index.search(vector, search_filter, 10)
        exact = vector_index.search(vector, search_filter, 10, exact=True)
        assert _ids(fast) == _ids(exact), query
        # Rescoring is exact: the same cosine for the same row.
        assert np.allclose([s for _, s in fast], [s for _, s in exact], atol=1e-6)


@in_process_index
def test_scoped_search_never_returns_another_advertisers_rows(corpus, small_shortlist):
    from memories.models import Memory

    owner = dict(Memory.objects.values_list("id", "advertiser"))
    embedder = get_embedder()
    for advertiser in ("brand_A", "brand_B", "brand_unknown"):
        for query in QUERIES[:6]:
            hits = vector_index.search(embedder.embed_query(query), SearchFilter.for_advertiser(advertiser), 50)
            assert {owner[mid] for mid in _ids(hits)} <= {advertiser, None}
    no_global = SearchFilter(advertisers=("brand_B",), include_global=False)
    hits = vector_index.search(embedder.embed_query("出价"), no_global, 50)
    assert hits and {owner[mid] for mid in _ids(hits)} == {"brand_B"}


@in_process_index
def test_scope_index_follows_new_and_moved_rows(corpus, small_shortlist, make_memory):
    from governance.write.hard_rules import Authority, WriteOrigin
    from governance.write.memory import governed_edit

    embedder = get_embedder()
    query = embedder.embed_query("双11 美妆 直播间出价翻倍")
    vector_index.search(query, SearchFilter.for_advertiser("brand_A"), 10)  # index loaded
    fresh = make_memory("双11 美妆直播间出价翻倍，ROI 维持 2.1", advertiser="brand_B")
    in_a = _ids(vector_index.search(query, SearchFilter.for_advertiser("brand_A"), 50))
    in_b = _ids(vector_index.search(query, SearchFilter.for_advertiser("brand_B"), 10))
    assert fresh.pk not in in_a and fresh.pk == in_b[0]
    # A row whose advertiser changes leaves the old scope's index (an admin correction).
    admin = Authority(origin=WriteOrigin.ADMIN_EDIT, actor="ops", person=True)
    governed_edit(memory=fresh, changes={"advertiser": "brand_C"}, authority=admin)
    assert fresh.pk not in _ids(vector_index.search(query, SearchFilter.for_advertiser("brand_B"), 50))
    assert fresh.pk == _ids(vector_index.search(query, SearchFilter.for_advertiser("brand_C"), 10))[0]


@in_process_index
def test_filters_still_apply_inside_the_scope(corpus, small_shortlist, make_memory):
    embedder = get_embedder()
    expired = make_memory(
        "医药OTC 冷启动出价 1.8 元（已过期）", layer="L3", advertiser="brand_A", expires_at=timezone.now() - timedelta(minutes=1)
    )
    hits = _ids(vector_index.search(embedder.embed_query("医药OTC 冷启动出价"), SearchFilter.for_advertiser("brand_A"), 50))
    assert expired.pk not in hits
    # brand_A's only L3 row has expired: nothing is left for that layer.
    l3_only = SearchFilter(advertisers=("brand_A",), layers=("L3",))
    assert vector_index.search(embedder.embed_query("医药OTC"), l3_only, 10) == []


def test_repeated_query_is_served_from_the_cache(corpus, settings):
    settings.MEMORY_QUERY_CACHE_SIZE = 8
    query_vectors.clear()
    first = memory_search(query="冷启动期 出价 ROI", advertisers=("brand_A",), top_k=5, record_access=False)
    second = memory_search(query="冷启动期 出价 ROI", advertisers=("brand_A",), top_k=5, record_access=False)
    assert first.query_embedding["cached"] is False and second.query_embedding["cached"] is True
    assert first.query_embedding["tokens"] == second.query_embedding["tokens"] > 0
    assert second.query_embedding["truncated"] is False
    assert [r.memory.pk for r in first.results] == [r.memory.pk for r in second.results]
    assert query_vectors.hits == 1 and query_vectors.misses == 1
    # The cached vector is the embedder's own.
    assert np.array_equal(embed_query_cached("冷启动期 出价 ROI").vector, get_embedder().embed_query("冷启动期 出价 ROI"))


def test_cache_evicts_least_recently_used_and_can_be_turned_off(db, settings):
    settings.MEMORY_QUERY_CACHE_SIZE = 2
    query_vectors.clear()
    for query in ("出价", "预算", "出价", "ROI"):  # 预算 is the least recent when ROI arrives
        embed_query_cached(query)
    assert len(query_vectors) == 2
    assert embed_query_cached("出价").cached is True
    assert embed_query_cached("预算").cached is False
    settings.MEMORY_QUERY_CACHE_SIZE = 0
    query_vectors.clear()
    assert embed_query_cached("出价").cached is False and embed_query_cached("出价").cached is False
    assert len(query_vectors) == 0


def test_long_query_cost_reports_the_cut(db, settings):
    settings.MEMORY_QUERY_CACHE_SIZE = 8
    query_vectors.clear()
    long_query = "双十一大促期间医药OTC类目的冷启动出价应该怎么调整，ROI 目标是多少？" * 20
    cost = embed_query_cached(long_query)
    assert cost.truncated is True and cost.tokens <= settings.MEMORY_EMBED_QUERY_TOKENS
    assert 0 < cost.chars < len(long_query)
    # Two queries that differ only past the cut share one entry.
    assert embed_query_cached(long_query + "补充说明").cached is True


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_kind_filter_holds_on_the_in_process_path(corpus, small_shortlist, make_memory, mode):
    from memories.constants import MemoryKind
    from memories.models import Memory

    assert Memory.objects.exclude(kind=MemoryKind.SEMANTIC).filter(advertiser="brand_A").exists()
    semantic = make_memory("医药OTC 冷启动出价规则：首日预算不低于 300 元", advertiser="brand_A", kind=MemoryKind.SEMANTIC)
    response = memory_search(
        query="医药OTC 冷启动出价 首日预算",
        advertisers=("brand_A",),
        kinds=(MemoryKind.SEMANTIC,),
        top_k=10,
        mode=mode,
        record_access=False,
    )
    assert semantic.pk in [r.memory.pk for r in response.results]
    assert {r.memory.kind for r in response.results} == {MemoryKind.SEMANTIC}
