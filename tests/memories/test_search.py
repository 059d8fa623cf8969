"""Hybrid retrieval over the real embedder: scoping, expiry, explain, cache freshness."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.constants import Status
from memories.models import Memory
from memories.selectors import memory_search

pytestmark = pytest.mark.django_db


def _ids(response):
    return [r.memory.pk for r in response.results]


def test_advertiser_search_finds_own_memory_with_keyword(demo_memories):
    response = memory_search(query="出价", advertisers=("brand_A",), top_k=10)
    assert response.results
    advertisers = {r.memory.advertiser for r in response.results}
    assert advertisers <= {"brand_A", None}
    assert any(r.memory.advertiser == "brand_A" and "出价" in r.memory.content for r in response.results)


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_brand_a_never_sees_brand_b(demo_memories, mode):
    for query in ["brand_B 口红", "美妆 新品 ROI", "预算", "lipstick women targeting"]:
        response = memory_search(query=query, advertisers=("brand_A",), top_k=50, mode=mode)
        assert all(r.memory.advertiser in ("brand_A", None) for r in response.results)


def test_operator_view_sees_every_advertiser(demo_memories):
    response = memory_search(query="预算", top_k=50)
    assert {"brand_A", "brand_B", "brand_C"} <= {r.memory.advertiser for r in response.results}


def test_expired_l3_hidden_before_any_job_runs(make_memory):
    past = make_memory("双十二大促CPM上涨25%", layer="L3", expires_at=timezone.now() - timedelta(minutes=1))
    live = make_memory("双十二大促CPM上涨30%", layer="L3", expires_at=timezone.now() + timedelta(hours=5))
    for mode in ("hybrid", "keyword", "vector"):
        ids = _ids(memory_search(query="大促 CPM", top_k=10, mode=mode))
        assert past.pk not in ids
        assert live.pk in ids
    assert Memory.objects.get(pk=past.pk).status == Status.ACTIVE


def test_results_explain_their_scores(demo_memories):
    response = memory_search(query="冷启动出价", top_k=3)
    first = response.results[0]
    for key in ("vector", "keyword", "fused", "importance", "recency"):
        assert key in first.explain
    assert first.score > 0


def test_layer_and_business_line_filters(demo_memories):
    response = memory_search(query="出价", layers=("L4",), top_k=10)
    assert response.results and all(r.memory.layer == "L4" for r in response.results)
    response = memory_search(query="预算", business_line="beauty", top_k=20)
    assert all(r.memory.business_line in ("beauty", "") for r in response.results)


def test_search_records_access(demo_memories):
    response = memory_search(query="口红", advertisers=("brand_B",), top_k=2)
    memory = Memory.objects.get(pk=response.results[0].memory.pk)
    assert memory.access_count == 1 and memory.last_accessed_at is not None


def test_vector_cache_sees_writes_made_behind_its_back(make_memory):
    make_memory("信息流素材疲劳周期约为7天")
    memory_search(query="素材疲劳", top_k=5, mode="vector")
    fresh = make_memory("抖音直播间投流在晚间9点转化最好")
    assert fresh.pk in _ids(memory_search(query="直播间投流 晚间", top_k=5, mode="vector"))
    # An update done outside our services (a raw queryset update) is seen too.
    Memory.objects.filter(pk=fresh.pk).update(status=Status.ARCHIVED)
    assert fresh.pk not in _ids(memory_search(query="直播间投流 晚间", top_k=5, mode="vector"))


def test_empty_and_huge_queries_do_not_fail(demo_memories):
    assert memory_search(query="", top_k=5).results == []
    assert isinstance(memory_search(query="预算" * 5000, top_k=5).results, list)
