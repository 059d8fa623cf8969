"""Deep search offline: sub-queries through the real hybrid search, fusion, the feature
rerank, scope, and the fallback contract for injected hooks."""

import pytest

from memories.search.deep import OFFLINE_HOOKS, DeepHookFailure, DeepHooks, deep_search, offline_rewrite
from memories.selectors import memory_search

pytestmark = pytest.mark.django_db


@pytest.fixture
def adops(make_memory):
    rows = {
        "bid": make_memory("巨量千川投放感冒灵颗粒时把竞价从30元上调到36元，跑量提升20%，ROI稳定在2.1。", advertiser="brand_A"),
        "budget": make_memory("感冒灵颗粒在抖音信息流的日预算上限定为3万元，超过后边际ROI跌破1.5。", advertiser="brand_A"),
        "red": make_memory("小红书聚光投放布洛芬缓释胶囊，晚上8点到11点转化率最高。", advertiser="brand_A"),
        "other": make_memory("巨量千川投放丝绒口红把竞价上调10%，GMV增长12%。", advertiser="brand_B"),
        "rule": make_memory("同一计划每天调价不超过3次，每次幅度不超过20%。", layer="L1", source="human"),
    }
    for i in range(6):
        make_memory(f"抖音信息流第{i}批素材CTR为{2 + i}.1%，口播形式点击率更高。", advertiser="brand_A")
    return rows


def _ids(response):
    return [r.memory.pk for r in response.results]


def test_deep_finds_a_note_asked_for_in_other_words(adops):
    response = deep_search(query="感冒灵 Qianchuan bid 调整效果", advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["rewriter"] == "offline" and "fallback" not in response.deep
    assert len(response.deep["subqueries"]) >= 2
    assert adops["bid"].pk in _ids(response)
    assert response.results[0].explain["deep_rank"] == 1
    assert [r.score for r in response.results] == sorted((r.score for r in response.results), reverse=True)


def test_deep_respects_advertiser_scope(adops):
    for query in ("千川 出价", "口红 bid", "RED 投放时段"):
        response = deep_search(query=query, advertisers=("brand_A",), top_k=10, record_access=False)
        assert all(r.memory.advertiser in ("brand_A", None) for r in response.results)
        assert adops["other"].pk not in _ids(response)


def test_failing_hook_answers_with_the_fast_result_and_says_why(adops):
    def broken(_query):
        raise DeepHookFailure("timeout", "gateway took too long")

    hooks = DeepHooks(name="test", rewrite=broken, rerank=OFFLINE_HOOKS.rerank)
    response = deep_search(query="千川 出价", advertisers=("brand_A",), top_k=5, record_access=False, hooks=hooks)
    fast = memory_search(query="千川 出价", advertisers=("brand_A",), top_k=5, record_access=False)
    assert response.deep["fallback"] == "timeout"
    assert _ids(response) == _ids(fast)


def test_reranker_can_only_reorder_its_candidates(adops):
    def rerank(_query, candidates):
        # An invented id and the last candidate first: the invented one must vanish.
        return [999_999, candidates[-1].memory_id]

    hooks = DeepHooks(name="test", rewrite=offline_rewrite, rerank=rerank)
    response = deep_search(query="感冒灵 预算", advertisers=("brand_A",), top_k=10, record_access=False, hooks=hooks)
    ids = _ids(response)
    assert 999_999 not in ids
    assert len(ids) == len(set(ids))
    assert response.results[0].explain["deep_rank"] == 1


def test_cli_deep_mode(adops, cli):
    code, out, _ = cli("search", "感冒灵 千川 bid", "--advertiser", "brand_A", "--mode", "deep", "--json")
    assert code == 0
    assert out["mode"] == "deep" and out["deep"]["rewriter"] == "offline"
    assert adops["bid"].pk in [r["id"] for r in out["results"]]
