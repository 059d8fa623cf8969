"""Reflection: stale memories, contradictions and repeated rejects become review items
and a stored report."""

from datetime import timedelta

import pytest

from governance.constants import ReviewKind, ReviewStatus
from governance.intake.services import event_ingest
from governance.lifecycle.reflection import reflect, reflection_report_dict
from governance.models import ReflectionReport, ReviewItem
from memories.models import Memory
from tests.clock import T0


@pytest.fixture
def remember(make_memory):
    def _make(content, *, advertiser="brand_A", layer="L2", days_old=5, importance=6.0, **fields):
        return make_memory(
            content,
            layer=layer,
            advertiser=advertiser,
            importance=importance,
            source=fields.pop("source", "tool"),
            created_at=T0 - timedelta(days=days_old),
            embed=False,
            **fields,
        )

    return _make


def findings(report):
    return report.findings


# --- stale ---------------------------------------------------------------------------
def test_unused_low_importance_memories_older_than_the_window_are_stale(remember):
    stale = remember("brand_C 耳机品类试投开屏广告，效果一般", advertiser="brand_C", days_old=45, importance=3)
    remember("brand_C 数码品类周末转化率比工作日高18%", advertiser="brand_C", days_old=45, importance=8)  # important
    recalled = remember("brand_C 开学季预算提升40%后订单量增长55%", advertiser="brand_C", days_old=45, importance=3)
    Memory.objects.filter(pk=recalled.pk).update(access_count=2, last_accessed_at=T0 - timedelta(days=3))
    reinforced = remember("brand_C 品牌词CPC 1.2元", advertiser="brand_C", days_old=45, importance=3)
    Memory.objects.filter(pk=reinforced.pk).update(reinforcement_count=1)
    remember("brand_C 新品首周测试素材", advertiser="brand_C", days_old=10, importance=3)  # younger than the window
    remember("Agent 不得擅自暂停在投计划", layer="L1", advertiser=None, days_old=400, importance=2, source="human")  # L1

    report = reflect(now=T0, window_days=30)

    assert [f["memory_id"] for f in findings(report)["stale"]] == [stale.pk]
    item = ReviewItem.objects.get(kind=ReviewKind.REFLECTION, memory=stale)
    assert item.payload["finding"] == "stale" and item.status == ReviewStatus.OPEN


def test_a_longer_window_means_fewer_stale_memories(remember):
    remember("brand_C 耳机品类试投开屏广告，效果一般", advertiser="brand_C", days_old=45, importance=3)
    assert len(findings(reflect(now=T0, window_days=60))["stale"]) == 0
    assert len(findings(reflect(now=T0 + timedelta(days=30), window_days=60))["stale"]) == 1


# --- contradictions --------------------------------------------------------------------
def test_same_claim_with_different_numbers_is_a_contradiction(remember):
    a = remember("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高35%")
    b = remember("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高12%")

    [finding] = findings(reflect(now=T0))["contradictions"]

    assert {finding["memory_id"], finding["related_memory_id"]} == {a.pk, b.pk}
    assert finding["type"] == "value" and "35" in finding["detail"] and "12" in finding["detail"]
    item = ReviewItem.objects.get(kind=ReviewKind.REFLECTION, payload__finding="contradiction")
    assert {item.memory_id, item.related_memory_id} == {a.pk, b.pk}


def test_opposite_direction_and_negation_are_contradictions(remember):
    remember("brand_B 大促前3天降低出价15%蓄水，大促当天再放量", advertiser="brand_B")
    remember("brand_B 大促前3天提高出价15%蓄水，大促当天再放量", advertiser="brand_B")
    remember("brand_B 口红类目投放男性人群，性别定向选择全部", advertiser="brand_B")
    remember("brand_B 口红类目不投放男性人群，性别定向选择全部", advertiser="brand_B")

    kinds = sorted(f["type"] for f in findings(reflect(now=T0))["contradictions"])

    assert kinds == ["direction", "polarity"]


def test_different_scopes_and_unrelated_claims_do_not_contradict(remember):
    remember("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高35%")
    remember("brand_B 偏好晚间20点-23点加大出价，该时段转化率比白天高12%", advertiser="brand_B")
    remember("brand_A 维生素品类在周一上午9-11点CTR最高，适合安排新素材首发")
    remember("brand_A 预算分配：搜索广告占60%、信息流占40%时整体ROI最高（3.1）")
    assert findings(reflect(now=T0))["contradictions"] == []


def test_a_memory_that_reverses_a_core_rule_is_found_as_the_funnel_would_park_it(remember):
    # Written before the funnel compared every layer with the L1 rules: reflection reads the
    # pair as the funnel now does, against the advertiser's rules and the global ones.
    rule = remember("brand_A 信用卡广告不投夜间22点后", layer="L1", source="human")
    global_rule = remember("医药OTC广告素材不得出现“根治”字样", layer="L1", source="human", advertiser=None)
    said = remember("brand_A 信用卡广告夜间22点后也可以投", source="user")
    allowed = remember("brand_A 医药OTC广告素材可以使用“根治”字样", source="user")
    remember("brand_B 信用卡广告夜间22点后也可以投", advertiser="brand_B", source="user")

    pairs = {(f["memory_id"], f["related_memory_id"]) for f in findings(reflect(now=T0))["contradictions"]}

    assert pairs == {(rule.pk, said.pk), (global_rule.pk, allowed.pk)}


def test_the_demo_set_has_no_false_contradictions(demo_memories):
    report = reflect(now=T0 + timedelta(days=1))
    assert findings(report)["contradictions"] == []
    assert findings(report)["stale"] == []  # nothing is older than the window yet


# --- repeated rejects ------------------------------------------------------------------
SUGGESTION = "建议把 brand_A 感冒药的晚间出价提高20%，这样ROI会更好。"


def test_an_agent_repeating_a_rejected_suggestion_is_flagged(db, django_capture_on_commit_callbacks):
    from django.utils import timezone

    for _ in range(3):
        assert event_ingest(text=SUGGESTION, advertiser="brand_A", source="assistant", actor="token:agent-x").action == "REJECT"
    event_ingest(text=SUGGESTION, advertiser="brand_A", source="assistant", actor="token:agent-y")

    report = reflect(now=timezone.now() + timedelta(seconds=1))

    [finding] = findings(report)["repeated_rejects"]
    assert (finding["actor"], finding["count"], finding["pattern"]) == ("token:agent-x", 3, "same_proposal")
    assert SUGGESTION in finding["text"]
    assert ReviewItem.objects.filter(kind=ReviewKind.REFLECTION, payload__finding="repeated_reject").count() == 1


def test_two_rejects_are_not_a_pattern_and_old_ones_fall_out_of_the_window(db):
    from django.utils import timezone

    for _ in range(2):
        event_ingest(text=SUGGESTION, advertiser="brand_A", source="assistant", actor="token:agent-x")
    assert findings(reflect(now=timezone.now() + timedelta(seconds=1)))["repeated_rejects"] == []
    event_ingest(text=SUGGESTION, advertiser="brand_A", source="assistant", actor="token:agent-x")
    assert len(findings(reflect(now=timezone.now() + timedelta(seconds=1)))["repeated_rejects"]) == 1
    assert findings(reflect(now=timezone.now() + timedelta(days=31)))["repeated_rejects"] == []


# --- the report ----------------------------------------------------------------------
def test_the_report_is_stored_and_items_are_not_duplicated(remember):
    remember("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高35%")
    remember("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高12%")
    remember("brand_C 耳机品类试投开屏广告，效果一般", advertiser="brand_C", days_old=45, importance=3)

    first = reflect(now=T0)
    second = reflect(now=T0 + timedelta(hours=1))

    assert ReflectionReport.objects.count() == 2
    assert len(first.findings["review_items_created"]) == 2
    assert second.findings["review_items_created"] == []  # still open: not opened twice
    assert second.findings["counts"] == {"stale": 1, "contradictions": 1, "repeated_rejects": 0}
    assert ReviewItem.objects.filter(kind=ReviewKind.REFLECTION).count() == 2
    # The later report still points the reviewer at the items already open.
    linked = {(f["review_item_id"], f["review_item_status"]) for f in second.findings["stale"] + second.findings["contradictions"]}
    assert linked == {(pk, "open") for pk in first.findings["review_items_created"]}
    as_dict = reflection_report_dict(second)
    assert as_dict["report_id"] == second.pk and "1 stale, 1 contradictions" in as_dict["summary"]


def test_a_settled_finding_rests_for_one_window_then_can_be_raised_again(remember):
    remember("brand_C 耳机品类试投开屏广告，效果一般", advertiser="brand_C", days_old=45, importance=3)
    reflect(now=T0, window_days=30)
    ReviewItem.objects.filter(kind=ReviewKind.REFLECTION).update(status=ReviewStatus.APPROVED, decided_at=T0)
    assert reflect(now=T0 + timedelta(days=1), window_days=30).findings["review_items_created"] == []
    assert len(reflect(now=T0 + timedelta(days=31), window_days=30).findings["review_items_created"]) == 1
