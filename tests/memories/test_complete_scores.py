"""Every fused candidate is scored by both arms: a vector candidate outside the keyword
arm's top list still gets its keyword score (bm25 on SQLite, ts_rank on PostgreSQL), on the
same scale as the keyword list's own."""

import pytest

from memories.search.backends import get_search_backend
from memories.search.filters import SearchFilter
from memories.search.hybrid import RankingConfig
from memories.selectors import memory_search

pytestmark = pytest.mark.django_db

NOTES = [
    "出价 出价 出价：大促当天出价上调",
    "冷启动阶段先用成本上限出价，稳定后再放开预算",
    "医药OTC 新计划出价不要超过行业均值的1.2倍",
    "brand_A 夜间分时段出价系数 0.8，白天 1.1",
    "直播间投流的出价跟着在线人数调，人少时降出价",
    "素材疲劳时先换素材，不要急着调整出价",
]
# Notes without 出价: a word in half the store or more has no bm25 weight at all.
OTHER = [
    "周末女性人群定向效果好",
    "素材每两周更新一次",
    "CPM 上涨时先看竞争对手的投放",
    "落地页加载超过3秒转化掉一半",
    "小红书笔记种草要配合搜索词",
    "双11 前两周开始蓄水",
    "医药OTC 文案不能写疗效",
    "直播间晚上8点在线人数最高",
]


def test_other_arms_candidates_get_the_keyword_lists_scores(make_memory):
    ids = [make_memory(text).pk for text in NOTES]
    for text in OTHER:
        make_memory(text)
    other = make_memory("周末男性人群定向效果一般").pk
    backend = get_search_backend()
    full = dict(backend.keyword_candidates("出价 预算", SearchFilter(), 50))
    assert set(full) == set(ids)
    top_two = backend.keyword_candidates("出价 预算", SearchFilter(), 2, also=lambda: [*ids, other])
    # The best two first, then every other matching candidate with the score it has in the
    # full list; a candidate that matches no word of the query stays unscored.
    assert [memory_id for memory_id, _ in top_two[:2]] == list(full)[:2]
    assert dict(top_two) == pytest.approx(full)
    assert other not in dict(top_two)


def test_vector_candidates_outside_the_keyword_top_are_scored(make_memory):
    for text in NOTES + OTHER:
        make_memory(text)
    # One candidate per arm: the keyword arm's is the note with both words, the vector
    # arm's the short one that repeats 出价 and never says 预算.
    narrow = RankingConfig(candidates=1, entity_weight=0.0)
    keyword_top = memory_search(query="出价 预算", top_k=1, mode="keyword", config=narrow).results[0].memory.pk
    response = memory_search(query="出价 预算", top_k=10, config=narrow)
    vector_only = [r for r in response.results if r.memory.pk != keyword_top]
    assert vector_only, "the two arms agreed; the test needs them apart"
    for result in response.results:
        assert result.explain["keyword"] > 0, result.memory.content

    one_arm_scores = RankingConfig(candidates=1, entity_weight=0.0, complete_keyword_scores=False)
    partial = memory_search(query="出价 预算", top_k=10, config=one_arm_scores)
    assert [r.explain["keyword"] for r in partial.results if r.memory.pk != keyword_top] == [0.0]
