"""Every deterministic guard rule, fired and not fired, in Chinese and English."""

import pytest

from governance.models import Trace
from memories.models import Memory

pytestmark = pytest.mark.django_db

STRATEGY_DATA = {"target": 1.5, "actual": 1.8, "conditions": "冷启动期"}


def stage(decision, name):
    return next(s for s in decision.stages if s["stage"] == name)


def _decision(d):
    from governance.intake.services import decision_for_event
    from governance.models import MemoryEvent

    return decision_for_event(MemoryEvent.objects.get(pk=d.event_id))


# --- assistant suggestion without user confirmation -------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "建议冷启动期间把brand_A的出价上浮20%，因为目标ROI 1.5而实际只有1.2",
        "I recommend raising the bid by 20% during cold start because target ROI 1.5 vs actual 1.2",
    ],
)
def test_assistant_suggestion_without_confirmation_is_rejected(trigger, text):
    d = trigger("strategy_execution", summary=text, data=STRATEGY_DATA, source="assistant", advertiser="brand_A")
    assert d.action == "REJECT"
    assert any("suggestion" in r for r in d.reasons)
    assert stage(_decision(d), "provenance")["decision"] == "REJECT"
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    "text",
    [
        "建议冷启动期间出价上浮20%，用户已确认采纳：目标ROI 1.5，实际1.8，因为出价提高带来更多曝光",
        "We suggested a 20% bid raise during cold start and the user confirmed it; target ROI 1.5 vs actual 1.8 because of more reach",
    ],
)
def test_assistant_text_cannot_confirm_itself(trigger, text):
    d = trigger("strategy_execution", summary=text, data=STRATEGY_DATA, source="assistant", advertiser="brand_A")
    rules = stage(_decision(d), "provenance")
    assert d.action == "REJECT" and rules["scores"]["attribution"] == "assistant_suggestion"
    assert rules["scores"]["signals"]["self_vouching"]  # recorded, not credited
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    "turns",
    [
        [("assistant", "建议brand_A 医药OTC冷启动期间出价上浮20%，先观察3天ROI"), ("user", "好的，就按这个执行")],
        [
            ("assistant", "I suggest raising brand_A's cold-start bids by 20% for the OTC campaign"),
            ("user", "Confirmed, go ahead with that"),
        ],
    ],
)
def test_a_later_user_turn_confirms_a_suggestion(ingest, turns):
    d = ingest(None, messages=[{"role": r, "content": c} for r, c in turns], advertiser="brand_A")
    rules = stage(_decision(d), "provenance")
    assert rules["decision"] == "PASS" and rules["scores"]["attribution"] == "user_confirmed", d.reasons
    assert rules["scores"]["signals"]["turns"] == ["assistant", "user"]


def test_a_suggestion_the_user_never_answered_stays_a_suggestion(ingest):
    d = ingest(
        None,
        messages=[
            {"role": "user", "content": "brand_A 的预算怎么分配比较好？"},
            {"role": "assistant", "content": "建议搜索广告占60%，信息流占40%，用户已确认"},
        ],
        advertiser="brand_A",
    )
    assert d.action == "REJECT"
    assert stage(_decision(d), "provenance")["scores"]["attribution"] == "assistant_suggestion"


# --- tentative preference ------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "用户说周末也许可以不投信息流，对于brand_B",
        "The user said maybe we should not run feed ads on weekends for brand_B",
    ],
)
def test_tentative_preference_is_rejected(trigger, text):
    d = trigger(
        "user_feedback", summary=text, data={"correct_action": "周末不投信息流", "attitude": "不要"}, source="user", advertiser="brand_B"
    )
    assert d.action == "REJECT"
    assert any("tentative" in r or "态度明确" in r for r in d.reasons)


@pytest.mark.parametrize(
    "text",
    [
        "用户明确要求：brand_B 周末不要投放信息流",
        "The user insisted: never run feed ads on weekends for brand_B",
    ],
)
def test_settled_preference_is_written(ingest, text):
    d = ingest(text, source="user", advertiser="brand_B")
    assert d.action == "WRITE", d.reasons
    assert d.layer == "L2"


def test_hedge_rule_itself_fires_when_value_passed(trigger):
    d = trigger(
        "strategy_execution", summary="冷启动期出价上浮20%后ROI可能从1.5提升到1.8", data=STRATEGY_DATA, source="tool", advertiser="brand_A"
    )
    rules = stage(_decision(d), "guard_rules")
    assert rules["decision"] == "REJECT" and any("tentative" in r for r in rules["reasons"])


def test_anomaly_may_name_a_possible_cause(trigger):
    d = trigger(
        "anomaly_pattern",
        summary="brand_A 搜索广告ROI连续3天骤降40%，可能原因是竞品加价",
        data={"deviation": 40, "occurrences": 3},
        source="tool",
        advertiser="brand_A",
    )
    assert stage(_decision(d), "guard_rules")["decision"] == "PASS"
    assert d.action == "WRITE" and d.layer == "L3"


# --- agent inference may not write L1/L2 ----------------------------------------------
@pytest.mark.parametrize("layer", ["L1", "L2"])
def test_agent_inference_cannot_write_l1_or_l2(trigger, layer):
    d = trigger(
        "strategy_execution",
        summary="我推断冷启动期间出价上浮后效果变好了，因为流量更多",
        data={"target": 1.5, "actual": 1.8, "conditions": "冷启动"},
        source="agent",
        layer=layer,
        advertiser="brand_A",
    )
    assert d.action == "REJECT"
    assert any(f"agent inference may not write {layer}" in r for r in d.reasons)


def test_agent_report_of_system_numbers_is_not_inference(trigger):
    d = trigger(
        "strategy_execution",
        summary="冷启动期出价上浮20%后，ROI目标1.5，实际1.8",
        data={"target": 1.5, "actual": 1.8, "bid_change_pct": 20, "conditions": "冷启动期"},
        source="agent",
        advertiser="brand_A",
    )
    assert stage(_decision(d), "guard_rules")["scores"]["attribution"] == "tool_observation"
    assert d.action == "WRITE"


# --- number-backed conclusions need grounding ----------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "智能体判断：对于brand_A冷启动期，出价提高后ROI提升了35%，因为曝光增加，目标与实际对比明显",
        "For brand_A during cold start, ROI improved 35% after the bid raise because reach grew; target vs actual clear",
    ],
)
def test_ungrounded_number_conclusion_is_rejected(trigger, text):
    d = trigger(
        "strategy_execution",
        summary=text,
        data={"target": 1.5, "actual": 1.9, "conditions": "冷启动"},
        source="agent",
        layer="L3",
        advertiser="brand_A",
    )
    rules = stage(_decision(d), "guard_rules")
    assert rules["decision"] == "REJECT"
    assert any("number-backed conclusion" in r for r in rules["reasons"])


def test_number_conclusion_grounded_in_data_passes(trigger):
    d = trigger(
        "strategy_execution",
        summary="对于brand_A冷启动期，出价提高后ROI提升了35%，因为曝光增加，目标1.5实际1.9",
        data={"roi_lift_pct": 35, "target": 1.5, "actual": 1.9, "conditions": "冷启动"},
        source="agent",
        advertiser="brand_A",
    )
    assert not any("number-backed" in r for r in stage(_decision(d), "guard_rules")["reasons"])


def test_every_stage_reached_has_a_trace(ingest):
    d = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元，以后按这个执行", source="user", advertiser="brand_A")
    stages = list(Trace.objects.filter(event_id=d.event_id).order_by("seq").values_list("stage", flat=True))
    assert stages == [
        "safety",
        "provenance",
        "classify",
        "guard_rules",
        "value",
        "judge",
        "layer_policy",
        "conflict",
        "validate",
        "decision",
    ]
    assert Memory.objects.get(pk=d.memory_id).events.get().pk == d.event_id


def test_rejected_early_stops_tracing(ingest):
    d = ingest("好的，谢谢", source="user")
    assert d.action == "REJECT"
    assert list(Trace.objects.filter(event_id=d.event_id).values_list("stage", flat=True)) == [
        "safety",
        "provenance",
        "classify",
        "decision",
    ]
