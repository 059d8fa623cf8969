"""The offline classifier: each trigger type recognised from Chinese and English text,
and chatter refused before the funnel with its own trace."""

import pytest

from judges.offline import offline_classify

TEXTS = [
    ("user_feedback", "user", "用户纠正：brand_A 医药OTC类目出价不要超过1.5元"),
    ("user_feedback", "user", "The client corrected us: brand_E daily budget cap is 8000, not 5000"),
    ("strategy_execution", "tool", "brand_B 大促策略执行复盘：预算加倍后GMV目标100万实际130万，因为流量充足"),
    ("strategy_execution", "tool", "Campaign plan executed: after the bid raise ROI went from target 1.5 to actual 1.9 because reach grew"),
    ("environment_change", "tool", "系统监测到：双11大促期间美妆类目流量上涨，需调整出价"),
    ("environment_change", "tool", "A competitor launched a holiday promotion today; traffic costs are rising"),
    ("rule_update", "human", "公司规定：所有医药OTC账户日预算不得超过5000元"),
    ("rule_update", "human", "Compliance policy: all pharma OTC ads must never claim a cure"),
    ("anomaly_pattern", "tool", "brand_A 搜索广告ROI连续3天骤降40%，可能原因是竞品加价"),
    ("anomaly_pattern", "tool", "Anomaly: search CPA spiked 60% for three consecutive days"),
    ("performance_optimization", "tool", "A/B测试：仅调整出价时段后，CTR从2.0%提升到2.6%"),
    ("performance_optimization", "tool", "Optimization test: only the creative changed and CTR improved from 1.2% to 1.8%"),
    ("cross_domain_correlation", "tool", "美妆与母婴类目ROI联动，相关系数0.82，样本120个"),
    ("cross_domain_correlation", "tool", "Beauty search spend drives apparel feed conversions, correlation 0.7"),
    ("periodic_pattern", "tool", "过去6周每周五晚高峰CTR最高"),
    ("periodic_pattern", "tool", "Every weekend for the past four weeks, CPC dropped by 10%"),
]


@pytest.mark.parametrize("expected,source,text", TEXTS, ids=[f"{t[0]}-{i % 2 and 'en' or 'zh'}" for i, t in enumerate(TEXTS)])
def test_each_trigger_type_is_recognised(expected, source, text):
    out = offline_classify(text, source)
    assert out.trigger_type == expected, out
    assert out.confidence >= 0.5


@pytest.mark.parametrize(
    "text", ["你好", "好的，谢谢", "收到，明白了", "ok thanks", "Hello!", "got it", "今天天气不错，大家辛苦了", "Let's sync tomorrow"]
)
def test_chatter_is_not_classified(text):
    out = offline_classify(text, "user")
    assert out.trigger_type == "none" or out.confidence < 0.5


@pytest.mark.django_db
def test_low_confidence_rejects_before_the_funnel(ingest):
    d = ingest("今天天气不错，大家辛苦了", source="agent")
    assert d.action == "REJECT" and d.layer is None
    assert [s["stage"] for s in d.stages] == ["safety", "provenance", "classify", "decision"]
    assert "could not classify" in d.reasons[0]
