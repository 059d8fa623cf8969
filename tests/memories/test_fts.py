"""The FTS5 keyword index: created by migration, kept in sync by triggers, never broken by input."""

import pytest
from django.db import connection

from memories.models import Memory
from memories.search.backends import get_search_backend
from memories.search.filters import SearchFilter
from memories.search.tokens import fts_match_expression, text_tokens

pytestmark = pytest.mark.django_db


def _fts_ids(query: str) -> set[int]:
    return {mid for mid, _ in get_search_backend().keyword_candidates(query, SearchFilter(), 100)}


def test_migration_creates_keyword_index_and_triggers():
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name, type FROM sqlite_master WHERE name LIKE 'memories_memory_%'")
            names = {name: kind for name, kind in cursor.fetchall()}
            assert names["memories_memory_fts"] == "table"
            for trigger in ("memories_memory_fts_ai", "memories_memory_fts_ad", "memories_memory_fts_au", "memories_memory_gen_au"):
                assert names[trigger] == "trigger"
        else:
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = 'memories_memory'::regclass AND NOT tgisinternal")
            assert "memories_memory_tsv" in {row[0] for row in cursor.fetchall()}
            cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories_memory'")
            indexes = dict(cursor.fetchall())
            assert "USING gin (search_tsv)" in indexes["mem_search_tsv_gin"]
            assert "USING hnsw" in indexes["mem_embedding_hnsw_384"]


def test_cjk_tokens_are_bigrams_and_latin_words_lowercased():
    assert text_tokens("分时段出价 ROI") == ["分时", "时段", "段出", "出价", "roi"]
    assert text_tokens("价") == ["价"]


@pytest.mark.parametrize("word", ["出价", "预算", "大促"])
def test_two_character_chinese_words_match(make_memory, word):
    hit = make_memory(f"医药OTC冷启动阶段的{word}需要保守")
    make_memory("完全无关的英文 memory about weather")
    assert hit.pk in _fts_ids(word)


def test_index_follows_create_update_delete_and_queryset_update(make_memory):
    memory = make_memory("双十二大促预算翻倍")
    assert memory.pk in _fts_ids("大促")

    memory.content = "春节期间出价下调"
    memory.save()
    assert memory.pk not in _fts_ids("大促")
    assert memory.pk in _fts_ids("出价")

    Memory.objects.filter(pk=memory.pk).update(content="周末预算上调20%")
    assert memory.pk not in _fts_ids("出价")
    assert memory.pk in _fts_ids("预算")

    pk = memory.pk
    memory.delete()
    assert pk not in _fts_ids("预算")
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO memories_memory_fts(memories_memory_fts, rank) VALUES ('integrity-check', 1)")


HOSTILE = [
    '"',
    "a-b",
    'x" (AND',
    "NEAR(",
    "*",
    "",
    "   ",
    "AND OR NOT",
    "col:value",
    "^出价",
    "出价*",
    "''",
    "\x00",
    "😀" * 10,
    "预算 " * 3000,
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(make_memory, query):
    make_memory("出价 a b value col NEAR")
    result = get_search_backend().keyword_candidates(query, SearchFilter(), 10)
    assert isinstance(result, list)


def test_match_expression_quotes_every_token():
    assert fts_match_expression('x" (NEAR a-b') == '"x" OR "near" OR "b"'
    assert fts_match_expression("") is None


def test_bm25_ranks_the_denser_match_first(make_memory):
    dense = make_memory("出价策略：分时段出价，夜间出价上调")
    sparse = make_memory("预算分配说明，其中提到一次出价和很多其他无关内容内容内容内容")
    ranked = [mid for mid, _ in get_search_backend().keyword_candidates("出价", SearchFilter(), 10)]
    assert ranked.index(dense.pk) < ranked.index(sparse.pk)


def _ranked(query: str, budget: int) -> list[int]:
    from memories.search.fts import keyword_candidates

    return [mid for mid, _ in keyword_candidates(query, SearchFilter(), limit=50, budget=budget)]


sqlite_only = pytest.mark.skipif(connection.vendor != "sqlite", reason="the scoring budget belongs to the FTS5 backend")


@sqlite_only
def test_under_the_budget_ranking_is_exact_bm25(make_memory):
    for text in ["分时段出价策略", "大促预算翻倍", "出价上调10%", "ROI目标3.0", "预算出价双控"]:
        make_memory(text)
    for query in ["出价 预算", "大促 ROI", "分时段出价"]:
        assert _ranked(query, budget=10_000) == _ranked(query, budget=50)


@sqlite_only
def test_over_the_budget_common_tokens_give_way_to_rare_ones(make_memory):
    common = [make_memory(f"第{i}次出价复盘：出价正常") for i in range(6)]
    rare = make_memory("冷启动期出价保守，积累转化")
    # 出价 matches 7 rows, 冷启 1: with room to score only 3 rows, the query keeps 冷启 (and
    # 启动) and drops 出价, so the cold-start memory is the only keyword candidate.
    assert _ranked("冷启动 出价", budget=3) == [rare.pk]
    assert set(_ranked("冷启动 出价", budget=100)) == {rare.pk, *(m.pk for m in common)}


@sqlite_only
def test_one_token_over_the_budget_scores_its_newest_matches(make_memory):
    rows = [make_memory(f"出价记录{i}：出价调整") for i in range(8)]
    ranked = _ranked("出价", budget=3)
    assert set(ranked) <= {m.pk for m in rows[-4:]} and len(ranked) >= 3
