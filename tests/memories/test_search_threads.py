"""The search's parallel parts: the vector arm on its worker thread beside the keyword arm,
the other arms' candidates handed to the keyword arm late, BLAS held to one thread, and the
result rows read in one statement with their category paths."""
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from threadpoolctl import threadpool_info

from memories.embeddings import get_embedder
from memories.models import Category
from memories.search import vectors
from memories.search.backends import get_search_backend
from memories.search.filters import SearchFilter
from memories.search.vectors import VectorIndex, vector_index
from memories.selectors import _result_rows, memory_search

pytestmark = pytest.mark.django_db

NOTES = [
    ("brand_A", "冷启动阶段先用成本上限出价，稳定后再放开预算"),
    ("brand_A", "brand_A 夜间分时段出价系数 0.8，白天 1.1"),
    ("brand_B", "医药OTC 新计划出价不要超过行业均值的1.2倍"),
    ("brand_B", "直播间投流的出价跟着在线人数调，人少时降出价"),
    (None, "素材疲劳时先换素材，不要急着调整出价"),
    (None, "双11 前两周开始蓄水，CPM 上涨时先看竞争对手"),
]


@pytest.fixture
def store(make_memory):
    return [make_memory(text, advertiser=advertiser).pk for advertiser, text in NOTES]


@pytest.fixture
def search_threads(monkeypatch):
    """Names of the threads the index's search ran on (the real search still runs)."""
    seen: list[str] = []
    real = VectorIndex._search_loaded

    def recording(self, *args, **kwargs):
        seen.append(threading.current_thread().name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(VectorIndex, "_search_loaded", recording)
    return seen


@pytest.mark.parametrize("advertisers", [None, ("brand_A",), ("brand_B",)])
def test_the_worker_threads_vector_search_equals_the_inline_one(store, search_threads, advertisers):
    query = get_embedder().embed_query("出价怎么调")
    search_filter = SearchFilter(advertisers=advertisers)
    inline = vector_index.search(query, search_filter, 10)
    later = vector_index.search_soon(query, search_filter, 10)
    assert later() == inline
    assert inline and {m for m, _ in inline} <= set(store)
    assert search_threads[0] == threading.current_thread().name
    assert search_threads[1].startswith("vector-search")


def test_an_organisation_filter_is_searched_in_the_callers_thread(store, search_threads):
    # Its id list is read from the database, and a connection belongs to its thread.
    query = get_embedder().embed_query("出价")
    hits = vector_index.search_soon(query, SearchFilter(kinds=("episodic", "semantic")), 10)()
    assert search_threads == [threading.current_thread().name]
    assert {m for m, _ in hits} <= set(store)


def test_the_keyword_arm_takes_the_other_arms_when_its_own_rows_are_in(store):
    backend = get_search_backend()
    given = backend.keyword_candidates("出价 预算", SearchFilter(), 1, also=store)
    calls = []

    def late():
        calls.append(1)
        return store

    assert backend.keyword_candidates("出价 预算", SearchFilter(), 1, also=late) == given
    assert calls == [1]
    assert len(given) > 1, "the other arms' candidates were scored"


def test_a_hybrid_search_ranks_the_same_twice_and_keeps_to_its_scope(store):
    first = memory_search(query="出价 预算", advertisers=("brand_A",), top_k=10, record_access=False)
    second = memory_search(query="出价 预算", advertisers=("brand_A",), top_k=10, record_access=False)
    assert [r.memory.pk for r in first.results] == [r.memory.pk for r in second.results]
    assert first.results and all(r.memory.advertiser in ("brand_A", None) for r in first.results)
    assert all(r.explain["vector"] > 0 for r in first.results)


def test_the_worker_is_made_again_in_a_forked_child(monkeypatch):
    parent = vectors._worker()
    assert vectors._worker() is parent
    # A forked child inherits the parent's executor object but none of its threads.
    monkeypatch.setattr(vectors, "_pool", (-1, parent))
    child = vectors._worker()
    assert child is not parent
    assert child.submit(lambda: 42).result() == 42


def test_blas_runs_on_one_thread_in_the_service():
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas, "numpy's BLAS is loaded"
    assert {pool["num_threads"] for pool in blas} == {1}


def test_result_rows_come_with_their_category_path_in_one_statement(make_memory):
    node = Category.objects.create(advertiser="brand_A", name="出价", path="医药OTC › 冷启动 › 出价", depth=2)
    filed = make_memory("冷启动期前三天不宜频繁调价", advertiser="brand_A", category_node=node)
    loose = make_memory("周末女性人群定向效果好", advertiser="brand_A")
    with CaptureQueriesContext(connection) as queries:
        rows = _result_rows([filed.pk, loose.pk, 10**9])
        assert rows[filed.pk].category_node.path == "医药OTC › 冷启动 › 出价"
        assert rows[loose.pk].category_node is None
    assert len(queries.captured_queries) == 1
    assert set(rows) == {filed.pk, loose.pk}
    assert rows[filed.pk].content == "冷启动期前三天不宜频繁调价"
    assert rows[filed.pk].created_at == filed.created_at
    # The vector and the node's other fields load on access, as deferred fields do.
    assert "embedding" in rows[filed.pk].get_deferred_fields()
    assert rows[filed.pk].category_node.depth == 2
    assert rows[filed.pk].embedding is not None


def test_search_results_show_the_category_path(make_memory):
    node = Category.objects.create(advertiser=None, name="出价", path="通用 › 出价", depth=1)
    make_memory("大促当天出价上调，预算翻倍", category_node=node)
    results = memory_search(query="大促 出价", top_k=5, record_access=False).results
    assert [r.memory.category_node.path for r in results] == ["通用 › 出价"]
