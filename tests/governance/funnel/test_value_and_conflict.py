"""8 trigger types × 3 value criteria (met / one missing), and the conflict stage."""

import pytest

from governance.models import MemoryEvent, Trace
from memories.models import Memory

pytestmark = pytest.mark.django_db

# (event_type, source, summary that meets all three, data, summary missing one criterion, the missing key)
CASES = [
    ("user_feedback", "user", "用户纠正：brand_A 出价不要超过1.5元", {}, "用户纠正：brand_A 那个不太对", "concrete_action"),
    (
        "strategy_execution",
        "tool",
        "冷启动期出价上浮20%后，ROI目标1.5实际1.8，因为曝光增加",
        {"target": 1.5, "actual": 1.8},
        "出价上浮20%后，ROI目标1.5实际1.8，因为曝光增加",
        "conditions",
    ),
    (
        "environment_change",
        "tool",
        "系统监测到双11大促期间美妆流量上涨，需调整出价",
        {},
        "系统监测到美妆流量上涨，需调整出价",
        "time_bound",
    ),
    (
        "rule_update",
        "human",
        "公司规定：所有医药OTC账户日预算不得超过5000元",
        {},
        "公司规定：医药OTC账户预算大约5000元左右比较好",
        "hard_constraint",
    ),
    (
        "anomaly_pattern",
        "tool",
        "Search ROI dropped 45% for 3 consecutive days due to a competitor bid war",
        {},
        "Search ROI dropped 45% yesterday due to a competitor bid war",
        "not_one_off",
    ),
    (
        "performance_optimization",
        "tool",
        "仅调整出价时段后，CTR从2.0%提升到2.6%",
        {"before": 2.0, "after": 2.6},
        "调整出价时段和创意后，CTR从2.0%提升到2.6%",
        "single_variable",
    ),
    (
        "cross_domain_correlation",
        "tool",
        "美妆与母婴类目ROI联动，相关系数0.82，样本120个，已排除大促影响",
        {},
        "美妆与母婴类目ROI联动，相关系数0.82，样本120个",
        "confounders_excluded",
    ),
    ("periodic_pattern", "tool", "过去6周每周五晚高峰CTR最高，建议周五加价", {}, "今天周五晚高峰CTR最高，建议周五加价", "repeated"),
]


@pytest.mark.parametrize("event_type,source,good,data,bad,missing", CASES, ids=[c[0] for c in CASES])
def test_all_three_criteria_needed(trigger, event_type, source, good, data, bad, missing):
    passed = trigger(event_type, summary=good, data=data, source=source, advertiser="brand_A")
    value = Trace.objects.get(event_id=passed.event_id, stage="value")
    assert value.decision == "PASS", value.scores
    assert value.scores["met"] == 3
    failed = trigger(
        event_type, summary=bad, data={k: v for k, v in data.items() if k not in {"conditions"}}, source=source, advertiser="brand_A"
    )
    trace = Trace.objects.get(event_id=failed.event_id, stage="value")
    assert trace.decision == "REJECT" and failed.action == "REJECT"
    assert trace.scores["criteria"][missing]["met"] is False
    assert failed.memory_id is None


# --- conflict ------------------------------------------------------------------------
def test_duplicate_is_rejected_and_reinforces(ingest):
    first = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    again = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元。", source="user", advertiser="brand_A")
    assert first.action == "WRITE"
    assert again.action == "REJECT" and any(f"duplicate of memory #{first.memory_id}" in r for r in again.reasons)
    assert Memory.objects.get(pk=first.memory_id).reinforcement_count == 1
    assert Memory.objects.count() == 1


def test_similarity_finds_neighbours_but_never_decides(ingest, env):
    # Even with a related-cosine threshold nothing reaches, the same claim in other words is a repeat.
    env(MEMORY_RELATED_COSINE="0.9999")
    ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    again = ingest("用户反馈：brand_A 的医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert again.action == "REJECT", again.reasons


def test_other_advertisers_memories_are_not_duplicates(ingest):
    ingest("用户纠正：医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    other = ingest("用户纠正：医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_B")
    assert other.action == "WRITE"


def test_stronger_contradiction_becomes_a_new_version(ingest, trigger):
    old = ingest("用户说：brand_A 冷启动期出价上限1.5元", source="user", advertiser="brand_A")
    assert old.action == "WRITE"
    new = ingest("用户确认纠正：brand_A 冷启动期出价上限改为2元", source="user", advertiser="brand_A")
    assert new.action == "UPDATE", new.reasons
    fresh = Memory.objects.get(pk=new.memory_id)
    assert fresh.version == 2 and fresh.supersedes_id == old.memory_id
    assert Memory.objects.get(pk=old.memory_id).status == "superseded"


def test_weaker_contradiction_goes_to_review(ingest):
    first = ingest("用户确认：brand_A 冷启动期出价上限1.5元", source="user", advertiser="brand_A")
    weaker = ingest("用户说：brand_A 冷启动期出价上限2元", source="user", advertiser="brand_A")
    assert weaker.action == "PENDING_REVIEW", weaker.reasons
    from governance.models import ReviewItem

    item = ReviewItem.objects.get(pk=weaker.review_item_id)
    assert item.kind == "conflict" and item.related_memory_id == first.memory_id
    assert Memory.objects.get(pk=first.memory_id).status == "active"


def test_l1_is_never_overwritten_automatically(ingest):
    ingest("平台规定：医药OTC类目所有广告出价不得超过2元", source="human")
    new = ingest("平台规定：医药OTC类目所有广告出价不得超过3元", source="human")
    assert new.action == "PENDING_REVIEW" and any("L1 is never overwritten" in r for r in new.reasons)
    assert Memory.objects.filter(layer="L1").count() == 1


def test_validator_scores_importance(trigger):
    strong = trigger(
        "strategy_execution",
        summary="冷启动期出价上浮20%后，ROI目标1.5实际1.8，因为曝光增加",
        data={"target": 1.5, "actual": 1.8, "bid_change_pct": 20, "occurrences": 3},
        source="tool",
        advertiser="brand_A",
    )
    weak = trigger("user_feedback", summary="用户说对于brand_B不要投这个渠道", source="user", advertiser="brand_B")
    s, w = Memory.objects.get(pk=strong.memory_id), Memory.objects.get(pk=weak.memory_id)
    assert 0 <= w.importance < s.importance <= 10
    dims = Trace.objects.get(event_id=strong.event_id, stage="validate").scores
    assert set(dims) >= {"completeness", "specificity", "grounding", "source_reliability", "actionability", "importance"}
    assert MemoryEvent.objects.get(pk=strong.event_id).memory_id == s.pk
