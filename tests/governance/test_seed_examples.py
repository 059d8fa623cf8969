"""Every example of the spec's quick start and demo scenarios, through the real funnel."""

import pytest

from governance.models import Trace
from memories.models import Memory

pytestmark = pytest.mark.django_db

QUICK_START_TEXT = "本次医药OTC冷启动计划用三阶段出价策略，目标ROI 3.0，实际做到3.4"
QUICK_START_DATA = {
    "plan_id": "plan_001",
    "category": "医药OTC",
    "business_line": "medical",
    "strategy_used": "三阶段冷启动",
    "target_metric": {"roi": 3.0},
    "actual_metric": {"roi": 3.4, "cpc": 2.8},
    "duration_days": 21,
}


def _importance_from_validator(decision) -> float:
    return Trace.objects.get(event_id=decision.event_id, stage="validate").scores["importance"]


def test_quick_start_ingest_is_written_to_l2(ingest):
    # The task system reports the plan's outcome: a tool observation.
    decision = ingest(QUICK_START_TEXT, advertiser="brand_A", source="tool")
    assert decision.action == "WRITE", decision.reasons
    assert decision.layer == "L2"
    memory = Memory.objects.get(pk=decision.memory_id)
    assert memory.importance == _importance_from_validator(decision)
    value = Trace.objects.get(event_id=decision.event_id, stage="value")
    assert value.scores["met"] == 3
    assert Trace.objects.get(event_id=decision.event_id, stage="classify").scores["trigger_type"] == "strategy_execution"


def test_quick_start_trigger_is_written_to_l2_with_its_fields(trigger):
    decision = trigger(
        "strategy_execution", advertiser="brand_A", summary="医药OTC冷启动计划完成三周投放", data=QUICK_START_DATA, source="tool"
    )
    assert decision.action == "WRITE", decision.reasons
    assert decision.layer == "L2"
    memory = Memory.objects.get(pk=decision.memory_id)
    assert memory.importance == _importance_from_validator(decision) and memory.importance >= 5
    assert (memory.category, memory.business_line, memory.data["target_metric"]) == ("医药OTC", "medical", {"roi": 3.0})
    value = Trace.objects.get(event_id=decision.event_id, stage="value")
    assert value.scores["met"] == 3
    assert value.scores["data"]["fields"]["actual_metric"] == {"roi": 3.4, "cpc": 2.8}
    assert value.scores["data"]["unknown_keys"] == []
    assert "compared=roi" in value.scores["criteria"]["target_vs_actual"]["evidence"]


def test_quick_start_search_finds_the_written_strategy(trigger):
    written = trigger(
        "strategy_execution", advertiser="brand_A", summary="医药OTC冷启动计划完成三周投放", data=QUICK_START_DATA, source="tool"
    )
    from memories.selectors import memory_search

    response = memory_search(query="医药OTC冷启动出价策略", advertisers=("brand_A",), business_line="medical", top_k=4)
    assert written.memory_id in [r.memory.pk for r in response.results]


def test_unknown_keys_are_kept_and_listed(trigger):
    decision = trigger(
        "strategy_execution",
        advertiser="brand_A",
        summary="医药OTC冷启动计划完成三周投放",
        data={**QUICK_START_DATA, "owner": "投放一组", "target_metric": None, "target_roi": 3.0},
        source="tool",
    )
    assert decision.action == "WRITE", decision.reasons
    value = Trace.objects.get(event_id=decision.event_id, stage="value")
    assert value.scores["data"]["unknown_keys"] == ["owner"]
    assert value.scores["data"]["fields"]["target_metric"] == {"roi": 3.0}
    assert Memory.objects.get(pk=decision.memory_id).data["owner"] == "投放一组"


def test_demo_user_correction_is_written_and_recalled(ingest):
    decision = ingest("用户纠正：brand_A 医药OTC类目冷启动期出价不要超过1.5元，以后按这个执行", advertiser="brand_A", source="user")
    assert decision.action == "WRITE" and decision.layer == "L2", decision.reasons
    from memories.selectors import memory_search

    hits = memory_search(query="医药OTC冷启动出价上限", advertisers=("brand_A",), top_k=3).results
    assert hits and hits[0].memory.pk == decision.memory_id


def test_demo_guard_rejects_an_unconfirmed_suggestion(ingest):
    decision = ingest("建议把brand_A医药OTC类目的预算提高30%", advertiser="brand_A", source="assistant")
    assert decision.action == "REJECT" and decision.memory_id is None


def test_demo_realtime_fact_gets_a_ttl(trigger):
    decision = trigger(
        "environment_change",
        advertiser="brand_A",
        source="tool",
        summary="618大促期间医药OTC类目CPM上涨35%，需提前上调出价",
        data={"event": "618大促", "time_window": "6月1日至6月18日", "signal": "CPM上涨35%", "impact": "出价上调10%"},
    )
    assert decision.action == "WRITE" and decision.layer == "L3", decision.reasons
    assert Memory.objects.get(pk=decision.memory_id).expires_at is not None


def test_demo_stronger_correction_is_a_new_version(ingest):
    old = ingest("用户说：brand_A 医药OTC冷启动期出价上限1.5元", advertiser="brand_A", source="user")
    new = ingest("用户确认纠正：brand_A 医药OTC冷启动期出价上限改为2元", advertiser="brand_A", source="user")
    assert old.action == "WRITE" and new.action == "UPDATE", new.reasons
    assert Memory.objects.get(pk=new.memory_id).supersedes_id == old.memory_id


def test_demo_l4_takes_no_outside_write(ingest):
    decision = ingest("用户确认：brand_A 医药OTC冷启动三阶段出价模板", advertiser="brand_A", source="user", layer="L4")
    assert decision.action == "REJECT" and decision.memory_id is None


def test_default_agent_source_free_text_is_agent_inference(ingest):
    """The CLI's default source is `agent`; figures an agent states without data behind
    them are its own inference, which may not write L2."""
    free = ingest(QUICK_START_TEXT, advertiser="brand_A")
    assert free.action == "REJECT" and any("agent inference" in r for r in free.reasons)


def test_default_agent_source_structured_trigger_is_written(trigger):
    decision = trigger("strategy_execution", advertiser="brand_A", summary="医药OTC冷启动计划完成三周投放", data=QUICK_START_DATA)
    assert decision.action == "WRITE", decision.reasons
