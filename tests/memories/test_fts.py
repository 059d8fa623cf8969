"""The FTS5 keyword index: created by migration, kept in sync by triggers, never broken by input."""
import pytest
from django.db import connection

from memories.models import Memory
from memories.search.filters import SearchFilter
from memories.search.backends import get_search_backend
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


HOSTILE = ['"', "a-b", 'x" (AND', "NEAR(", "*", "", "   ", "AND OR NOT", "col:value", "^出价", "出价*", "''", "\x00", "😀" * 10, "预算 " * 3000]


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
