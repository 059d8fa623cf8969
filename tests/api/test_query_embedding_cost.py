"""/search and /recall report what embedding their query cost, and a repeated query is
served from the per-process LRU cache."""

import pytest

from memories.embeddings.query_cache import query_vectors

pytestmark = pytest.mark.django_db


def test_search_reports_embedding_cost_and_cache_hit(demo_memories, brand_a, settings):
    settings.MEMORY_QUERY_CACHE_SIZE = 16
    query_vectors.clear()
    first = brand_a.post("/search", {"query": "美妆 大促 ROI 出价"}).json()
    second = brand_a.post("/search", {"query": "美妆 大促 ROI 出价"}).json()
    cost = first["query_embedding"]
    assert cost["cached"] is False and cost["tokens"] > 0 and cost["truncated"] is False and cost["ms"] >= 0
    assert second["query_embedding"]["cached"] is True
    assert second["query_embedding"]["tokens"] == cost["tokens"]
    assert [r["id"] for r in first["results"]] == [r["id"] for r in second["results"]]


def test_recall_reports_a_cut_query_embedding(demo_memories, brand_a, settings):
    settings.MEMORY_QUERY_CACHE_SIZE = 16
    query_vectors.clear()
    body = brand_a.post("/recall", {"query": "医药OTC 冷启动出价怎么定？" * 60, "force": True}).json()
    assert body["query_embedding"]["truncated"] is True
    assert body["query_embedding"]["tokens"] <= settings.MEMORY_EMBED_QUERY_TOKENS
