"""A fresh install has no memories yet: every search mode answers with no results, through
the real migrations, embedder and in-process vector index."""

import pytest

from memories.selectors import memory_search

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_searching_an_empty_store_finds_nothing_and_does_not_fail(mode):
    response = memory_search(query="医药OTC 冷启动期 出价 ROI", advertisers=("brand_A",), mode=mode)
    assert response.results == []


def test_the_api_answers_an_empty_store_with_no_results(make_token, api_client):
    _, raw = make_token("agent-a-empty", ["brand_A"])
    response = api_client(raw).post("/search", {"query": "美妆 双11 预算", "mode": "deep"})
    assert response.status_code == 200 and response.json()["results"] == []
