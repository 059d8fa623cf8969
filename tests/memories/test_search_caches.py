"""The in-process caches of search (memories.search.state): the keyword plan's document
frequencies and recency windows, and the entity arm's entity table, link counts and links.

They are used only outside a transaction, so these tests commit for real
(transaction=True). Each checks that the cache was really filled, then that the next search
after a write, a delete or a link change made by SQL alone (as another process would, no
Python hook involved) sees the new state."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from governance.write.hard_rules import Authority, WriteOrigin
from governance.write.memory import Proposal, governed_write
from memories.models import Entity, Memory, MemoryEntity
from memories.search import entities as entity_arm
from memories.search import fts
from memories.search.entities import entity_candidates
from memories.search.filters import SearchFilter
from memories.search.fts import keyword_candidates

# Committed for real; available_apps makes the flush after each test leave content types
# alone, so a later test that restores serialized data (the browser tests) finds no
# re-created rows under new ids, whichever order the files run in.
pytestmark = [
    pytest.mark.django_db(transaction=True, available_apps=list(settings.INSTALLED_APPS)),
    # PostgreSQL keeps no search state and the caches stay off there (StateCache.current).
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the state caches belong to the SQLite backend"),
]

OPERATOR = Authority(origin=WriteOrigin.APPROVAL, actor="test", person=True, operator=True)


@pytest.fixture(autouse=True)
def fresh_caches():
    # A flushed test database starts its generation again from 0: a value cached in an
    # earlier test could carry the same key.
    fts._plan_cache.clear()
    entity_arm._entity_cache.clear()
    yield
    fts._plan_cache.clear()
    entity_arm._entity_cache.clear()


def write(content: str, **fields) -> Memory:
    fields.setdefault("layer", "L2")
    fields.setdefault("source", "tool")
    return governed_write(proposal=Proposal(content=content, **fields), authority=OPERATOR)


def _keyword_ids(query: str, budget: int | None = None) -> list[int]:
    return [mid for mid, _ in keyword_candidates(query, SearchFilter(), 50, budget=budget)]


def _entity_ids(query: str, search_filter: SearchFilter | None = None) -> set[int]:
    return set(entity_candidates(query, search_filter or SearchFilter(), 60)[0])


def test_a_token_counted_absent_is_found_after_a_write(make_memory):
    make_memory("冷启动期间不要频繁调价")
    assert _keyword_ids("双十二") == []
    assert any(key[:2] == ("df", "双十") for key in fts._plan_cache.current())  # the zero count was cached
    memory = make_memory("双十二预热期预算翻倍")
    assert _keyword_ids("双十二") == [memory.pk]


def test_keyword_plan_follows_update_and_delete(make_memory):
    memory = make_memory("夜间转化率偏低，降低预算")
    assert _keyword_ids("转化率") == [memory.pk]
    Memory.objects.filter(pk=memory.pk).update(content="周末流量成本上涨")
    assert _keyword_ids("转化率") == []
    assert _keyword_ids("周末") == [memory.pk]
    other = make_memory("周末出价系数设为1.2")
    assert set(_keyword_ids("周末")) == {memory.pk, other.pk}
    Memory.objects.filter(pk=memory.pk).delete()
    assert _keyword_ids("周末") == [other.pk]


def test_cached_recency_window_moves_with_new_rows(make_memory):
    """A token matching more rows than the budget is scored over its newest matches only;
    the cached window must not hide rows written after it was computed."""
    rows = [make_memory(f"出价策略第{i}版") for i in range(5)]
    window = set(_keyword_ids("出价", budget=2))
    assert window == {m.pk for m in rows[-3:]}  # the rows from the budget-th newest match on
    assert any(key[0] == "window" for key in fts._plan_cache.current())
    newer = [make_memory(f"出价复盘第{i}次") for i in range(2)]
    assert set(_keyword_ids("出价", budget=2)) == {rows[-1].pk, *(m.pk for m in newer)}


def test_inside_a_transaction_the_plan_sees_uncommitted_rows_and_forgets_them_after_rollback(make_memory):
    make_memory("素材疲劳周期约7天")
    assert _keyword_ids("直播间") == []

    class Rollback(Exception):
        pass

    with pytest.raises(Rollback), transaction.atomic():
        memory = make_memory("直播间投流晚间转化最好")
        assert _keyword_ids("直播间") == [memory.pk]
        raise Rollback
    assert _keyword_ids("直播间") == []


def test_entity_arm_sees_new_links_memories_and_entities():
    first = write("双11当天爆发期提价30%", advertiser="brand_A")
    assert _entity_ids("双十一怎么出价") == {first.pk}
    assert entity_arm._entity_cache.current()  # filled by that search
    second = write("双十一预热期CPM上涨", advertiser="brand_B")
    assert _entity_ids("双十一怎么出价") == {first.pk, second.pk}
    # A plan id the vocabulary cannot know becomes an entity with the write that names it.
    assert _entity_ids("plan_zz_042 效果") == set()
    planned = write("plan_zz_042 首日预算 300 元", advertiser="brand_A")
    assert planned.pk in _entity_ids("plan_zz_042 效果")


def test_entity_arm_sees_a_link_written_by_sql_alone(make_memory):
    """No memory row changes: only the entity triggers can tell another process."""
    memory = make_memory("首日预算不低于300元", advertiser="brand_A")  # the storage layer links nothing
    target = write("双11当天提价", advertiser="brand_A")
    assert _entity_ids("双11") == {target.pk}
    entity = Entity.objects.get(kind="time_slot", name="双11")
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO memories_memoryentity(memory_id, entity_id, origin) VALUES (%s, %s, 'offline')", [memory.pk, entity.pk])
    assert _entity_ids("双11") == {target.pk, memory.pk}
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM memories_memoryentity WHERE memory_id = %s", [target.pk])
        cursor.execute("DELETE FROM memories_relation WHERE memory_id = %s", [target.pk])
    assert _entity_ids("双11") == {memory.pk}
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO memories_entity(kind, name, created_at) VALUES ('plan', 'plan_sql_007', '2026-01-01')")
        cursor.execute(
            "INSERT INTO memories_memoryentity(memory_id, entity_id, origin) "
            "SELECT %s, id, 'offline' FROM memories_entity WHERE name = 'plan_sql_007'",
            [memory.pk],
        )
    assert _entity_ids("plan_sql_007") == {memory.pk}


def test_entity_arm_applies_the_filter_to_cached_links():
    mine = write("双11当天提价30%", advertiser="brand_A")
    theirs = write("双11当天降价", advertiser="brand_C")
    scoped = SearchFilter(advertisers=("brand_A",))
    assert _entity_ids("双11", scoped) == {mine.pk}
    assert MemoryEntity.objects.filter(memory=theirs).exists()
    Memory.objects.filter(pk=mine.pk).update(advertiser="brand_C")  # the row moves, its links do not
    assert _entity_ids("双11", scoped) == set()
    Memory.objects.filter(pk=theirs.pk).delete()
    assert _entity_ids("双11") == {mine.pk}


def test_a_repeated_entity_search_reads_no_entity_table():
    write("双11当天爆发期提价30%", advertiser="brand_A")
    assert _entity_ids("双11")
    with CaptureQueriesContext(connection) as queries:
        assert _entity_ids("双11")
        assert _entity_ids("weather report") == set()  # names no entity at all
    assert not [q["sql"] for q in queries.captured_queries if "memories_entity" in q["sql"] or "memoryentity" in q["sql"]]


def test_a_cache_that_outgrows_its_bound_starts_again(make_memory, monkeypatch):
    from memories.search.state import StateCache

    monkeypatch.setattr(StateCache, "MAX_VALUES", 3)
    memory = make_memory("素材疲劳周期约7天 CTR 下降")
    for word in ("素材", "疲劳", "周期", "ctr"):
        assert memory.pk in _keyword_ids(word)
    assert len(fts._plan_cache.current()) <= 4


def test_every_table_the_caches_read_moves_the_search_state():
    # A later migration that makes SQLite rebuild one of these tables drops its triggers
    # without an error (0005 had to restore 0002's); the caches would then miss other
    # processes' writes. So the triggers are checked by name.
    expected = {
        f"{table}_gen_{suffix}"
        for table in ("memories_entity", "memories_memoryentity", "memories_relation")
        for suffix in ("ai", "au", "ad")
    }
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        present = {row[0] for row in cursor.fetchall()}
    assert expected <= present


def test_cached_entity_links_pass_every_filter_the_table_path_does():
    """The cached path filters links through the vector index; inside a transaction the arm
    joins the tables instead. Both must keep the same memories for every kind of filter."""
    from datetime import timedelta

    from django.utils import timezone

    write("双11当天美妆提价30%", advertiser="brand_A", business_line="beauty")
    write("双11医药OTC不提价", advertiser="brand_A", business_line="pharma_otc", layer="L1", source="human")
    expiring = write(
        "双11预热期CPM上涨", advertiser="brand_B", layer="L3", observed_at=timezone.now(), expires_at=timezone.now() + timedelta(hours=2)
    )
    write("双11全站通用规则：大促前一周锁定预算", layer="L1", source="human")
    write("双11复盘：直播间晚间转化最好", advertiser="brand_A", kind="episodic")
    filters = [
        SearchFilter(),
        SearchFilter(advertisers=("brand_A",)),
        SearchFilter(advertisers=("brand_A",), include_global=False),
        SearchFilter(advertisers=("brand_B",), now=timezone.now() + timedelta(hours=3)),  # its L3 note has expired
        SearchFilter(business_line="beauty"),
        SearchFilter(layers=("L1",)),
        SearchFilter(kinds=("episodic",)),
        SearchFilter(advertisers=()),
    ]
    _entity_ids("双11")  # loads the entity table and 双11's links into the cache
    for search_filter in filters:
        with CaptureQueriesContext(connection) as queries:
            cached = _entity_ids("双11", search_filter)
        # Answered from the cached links: no link or relation table was read.
        assert not [q["sql"] for q in queries.captured_queries if "memoryentity" in q["sql"] or "relation" in q["sql"]]
        with transaction.atomic():
            from_tables = _entity_ids("双11", search_filter)
        assert cached == from_tables, search_filter
    assert expiring.pk in _entity_ids("双11", SearchFilter(advertisers=("brand_B",)))
    assert expiring.pk not in _entity_ids("双11", SearchFilter(advertisers=("brand_B",), now=timezone.now() + timedelta(hours=3)))
