"""The search's parallel parts: the vector arm on its worker thread beside the keyword arm,
the other arms' candidates handed to the keyword arm late, BLAS held to one thread, and the
result rows read in one statement with their category paths."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.embeddings import get_embedder
from memories.embeddings.store import memory_vectors
from memories.models import Category
from memories.search import vectors
from memories.search.backends import SQLiteBackend, get_search_backend
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


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the in-process index holds vectors on SQLite; PostgreSQL keeps them in pgvector only"
)
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


def test_the_keyword_arm_asks_for_the_other_arms_after_its_bm25_statement(store):
    backend = get_search_backend()
    given = backend.keyword_candidates("出价 预算", SearchFilter(), 1, also=lambda: store)
    asked_after: list[list[str]] = []

    def late():
        asked_after.append([q["sql"] for q in queries.captured_queries])
        return store

    with CaptureQueriesContext(connection) as queries:
        assert backend.keyword_candidates("出价 预算", SearchFilter(), 1, also=late) == given
    assert len(asked_after) == 1
    if connection.vendor == "sqlite":
        assert any("bm25(" in sql for sql in asked_after[0])
    assert len(given) > 1, "the other arms' candidates were scored"


def test_another_requests_write_during_a_search_never_reloads_the_index_backwards():
    # The entity arm refreshes the index; if it ran while the keyword arm's statement still
    # held its read snapshot, it would read an older search state than another thread had
    # already loaded and reload all rows. The script makes that other thread write then.
    if connection.vendor != "sqlite":
        pytest.skip("a SQLite read snapshot; the script builds its own SQLite database")
    script = Path(__file__).parent / "scripts" / "snapshot_race.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["hits"] > 0
    assert "full" not in report["fetches"], report
    assert report["fetches"] == ["since"], report  # only the other request's own refresh


def test_hybrid_search_ranks_as_the_arms_one_after_another_would(store, monkeypatch):
    queries = [("出价 预算", None), ("出价怎么调", ("brand_A",)), ("素材 CPM", ("brand_B",))]
    concurrent = [memory_search(query=q, advertisers=a, top_k=10, record_access=False) for q, a in queries]

    def inline(self, query_vector, search_filter, limit):
        hits = self.vector_candidates(query_vector, search_filter, limit)
        return lambda: hits

    monkeypatch.setattr(SQLiteBackend, "start_vector_candidates", inline)
    sequential = [memory_search(query=q, advertisers=a, top_k=10, record_access=False) for q, a in queries]
    for one, other in zip(concurrent, sequential, strict=True):
        assert [(r.memory.pk, r.explain) for r in one.results] == [(r.memory.pk, r.explain) for r in other.results]
        # Equal but for the recency factor's clock, a moment later in the second run.
        assert [r.score for r in one.results] == pytest.approx([r.score for r in other.results], rel=1e-6)
    assert all(response.results for response in concurrent)
    assert all(r.memory.advertiser in ("brand_A", None) for r in concurrent[1].results)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_searches_with_a_worker_and_lock_of_its_own():
    vectors._worker().submit(lambda: None).result()  # the parent's worker exists
    read, write = os.pipe()
    with vector_index._lock:  # as if the parent's worker were mid-search at the fork
        pid = os.fork()
        if pid == 0:  # the child: never returns to pytest
            try:
                with vector_index._lock:
                    answer = vectors._worker().submit(lambda: threading.current_thread().name).result(timeout=10)
                # The lock was held at the fork, perhaps mid-refresh: the child reloads.
                os.write(write, f"{answer}|{vector_index._rows is None}".encode())
            finally:
                os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    answer = os.read(read, 100).decode()
    os.close(read)
    assert os.WIFEXITED(status) and answer.startswith("vector-search") and answer.endswith("|True")


def _refresh_in_another_thread() -> threading.Thread:
    def refresh():
        try:
            vector_index.refresh()
        finally:
            connection.close()

    thread = threading.Thread(target=refresh, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_refresh_with_nothing_new_does_not_wait_for_a_running_search(make_memory):
    if connection.vendor != "sqlite":
        pytest.skip("the in-process index follows SQLite's trigger-kept search state")
    make_memory("冷启动阶段先用成本上限出价", advertiser="brand_A")
    vector_index.refresh()  # committed, outside any transaction: the index is clean
    with vector_index._lock:  # a search holds the index
        quick = _refresh_in_another_thread()
        quick.join(timeout=10)
        assert not quick.is_alive(), "a refresh with nothing new must not wait for the lock"

    fresh = make_memory("素材疲劳时先换素材", advertiser="brand_A")
    with vector_index._lock:
        waiting = _refresh_in_another_thread()
        waiting.join(timeout=0.5)
        assert waiting.is_alive(), "a refresh with a new row to load must wait for the lock"
    waiting.join(timeout=10)
    assert not waiting.is_alive()
    assert fresh.pk in {m for m, _ in vector_index.search(get_embedder().embed_query("素材"), SearchFilter(), 10)}


@pytest.mark.parametrize(
    "first",
    [
        # numpy loaded before Django's settings (as a script or a bench may do) sizes its
        # BLAS pool from the environment alone; starting Django must still hold it to one.
        "import numpy, django; django.setup();",
        # Django starts without numpy (so --help does not load it); the search loads it later.
        "import django, sys; django.setup(); assert 'numpy' not in sys.modules; import numpy;",
    ],
    ids=["numpy-first", "django-first"],
)
def test_blas_runs_on_one_thread_whatever_was_imported_first(first):
    probe = (
        first + "from threadpoolctl import threadpool_info;"
        "print(sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    env["DJANGO_SETTINGS_MODULE"] = "lingix_site.test_settings"
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env, cwd=Path(__file__).resolve().parents[2]
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[1]"


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
    assert memory_vectors([rows[filed.pk]])[0] is not None


def test_search_results_show_the_category_path(make_memory):
    node = Category.objects.create(advertiser=None, name="出价", path="通用 › 出价", depth=1)
    make_memory("大促当天出价上调，预算翻倍", category_node=node)
    results = memory_search(query="大促 出价", top_k=5, record_access=False).results
    assert [r.memory.category_node.path for r in results] == ["通用 › 出价"]
