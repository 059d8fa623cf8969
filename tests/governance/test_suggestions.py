"""Signals surface playbooks: an L3 signal written through the funnel records the L2
strategies and L4 templates that apply to its advertiser and category; suggestions are
listed by scope and expire with their signal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from governance.constants import SignalKind, SuggestionStatus
from governance.knowledge.selectors import suggestion_dict, suggestions_open
from governance.lifecycle.expire import memories_expire
from governance.models import Suggestion, Trace
from lingix_site.demo import demo_load_once
from memories.constants import Status
from memories.models import Memory

DOUBLE_11 = {
    "event": "双11预热",
    "category": "美妆",
    "signal": "CPM较上周上涨30%",
    "impact": "出价节奏按大促模板调整",
    "time_window": "2026-11-01 至 2026-11-11",
}


@pytest.fixture
def demo(db):
    report = demo_load_once()
    assert report["loaded"], report
    return report


def promotion_template() -> Memory:
    return Memory.objects.get(layer="L4", content__startswith="大促投放模板")


def test_a_double_11_signal_through_the_cli_suggests_the_promotion_template(demo, cli):
    code, decision, err = cli(
        "trigger",
        "environment_change",
        "--advertiser",
        "brand_B",
        "--source",
        "tool",
        "--summary",
        "双11预热期开始，美妆类目抖音信息流CPM较上周上涨30%，需要调整出价节奏",
        "--data",
        '{"event": "双11预热", "category": "美妆", "signal": "CPM上涨30%", '
        '"impact": "出价节奏按大促模板调整", "time_window": "2026-11-01 至 2026-11-11"}',
        "--json",
    )
    assert code == 0 and decision["action"] == "WRITE" and decision["layer"] == "L3", (decision, err)
    suggestion = Suggestion.objects.get(signal_id=decision["memory_id"])
    assert suggestion.kind == SignalKind.PROMOTION and suggestion.topic == "大促"
    view = suggestion_dict(suggestion)
    assert view["templates"][0]["id"] == promotion_template().pk
    assert "event:大促" in view["templates"][0]["shared_entities"]
    strategies = Memory.objects.filter(pk__in=[s["id"] for s in view["strategies"]])
    assert strategies and {m.layer for m in strategies} == {"L2"}
    # brand_B's own 大促 lesson and the global 双11/618 rhythm; never another brand's.
    assert all(m.advertiser in (None, "brand_B") for m in strategies)
    assert any("双11" in m.content for m in strategies)
    assert Trace.objects.filter(memory_id=decision["memory_id"], stage="suggestions", decision="suggested").exists()
    # The operator's CLI lists it too.
    code, listed, _ = cli("suggestions", "--advertiser", "brand_B", "--json")
    assert code == 0 and suggestion.pk in [item["id"] for item in listed["items"]]
    assert all(item["advertiser"] in (None, "brand_B") for item in listed["items"])


def test_demo_signals_get_playbooks_by_kind(demo):
    by_kind = {s.kind: s for s in Suggestion.objects.all()}
    assert set(by_kind) == {SignalKind.PROMOTION, SignalKind.COLD_START, SignalKind.ANOMALY}
    assert by_kind[SignalKind.COLD_START].templates.get().content.startswith("冷启动出价模板")
    assert by_kind[SignalKind.ANOMALY].templates.get().content.startswith("ROI anomaly playbook")
    # A balance alert names no event: nothing to suggest.
    balance = Memory.objects.get(content__contains="账户余额仅够2.5天")
    assert not Suggestion.objects.filter(signal=balance).exists()


def test_a_global_signal_only_suggests_global_playbooks(demo, trigger):
    decision = trigger(
        "environment_change",
        advertiser=None,
        source="tool",
        summary="全平台双11预热开始，CPM普遍上涨20%，出价需按大促节奏调整",
        data=DOUBLE_11 | {"category": ""},
    )
    assert decision.action == "WRITE", decision.reasons
    suggestion = Suggestion.objects.get(signal_id=decision.memory_id)
    assert suggestion.advertiser is None
    assert set(suggestion.strategies.values_list("advertiser", flat=True)) == {None}
    assert promotion_template() in suggestion.templates.all()


def test_suggestions_expire_with_their_signal(demo, trigger):
    decision = trigger(
        "environment_change",
        advertiser="brand_B",
        source="tool",
        summary="双11预热期开始，美妆CPM较上周上涨30%，需要调整出价节奏",
        data=DOUBLE_11 | {"ttl_hours": 2},
    )
    suggestion = Suggestion.objects.get(signal_id=decision.memory_id)
    assert suggestion.expires_at == Memory.objects.get(pk=decision.memory_id).expires_at
    assert suggestion in suggestions_open(advertisers=("brand_B",))

    report = memories_expire(now=suggestion.expires_at + timedelta(seconds=1))

    suggestion.refresh_from_db()
    assert suggestion.status == SuggestionStatus.EXPIRED and suggestion.closed_at is not None
    assert report["suggestions_expired"] >= 1
    assert suggestion not in suggestions_open(advertisers=("brand_B",))
    # A second run has nothing left to close.
    assert memories_expire(now=timezone.now() + timedelta(days=30))["suggestions_expired"] == 0


def test_a_playbook_archived_or_expired_after_the_suggestion_is_no_longer_offered(demo, cli):
    code, decision, err = cli(
        "trigger",
        "environment_change",
        "--advertiser",
        "brand_B",
        "--source",
        "tool",
        "--summary",
        "双11预热期开始，美妆类目抖音信息流CPM较上周上涨30%，需要调整出价节奏",
        "--data",
        '{"event": "双11预热", "category": "美妆", "signal": "CPM上涨30%", '
        '"impact": "出价节奏按大促模板调整", "time_window": "2026-11-01 至 2026-11-11"}',
        "--json",
    )
    assert code == 0 and decision["action"] == "WRITE", (decision, err)
    suggestion = Suggestion.objects.get(signal_id=decision["memory_id"])
    offered = suggestion_dict(suggestion)
    template = promotion_template()
    strategy = Memory.objects.get(pk=offered["strategies"][0]["id"])
    assert template.pk in [p["id"] for p in offered["templates"]]

    from governance.write.hard_rules import Authority, WriteOrigin
    from governance.write.memory import governed_lifecycle_transition, governed_set_status

    governed_set_status(
        memory=template,
        status=Status.ARCHIVED,
        authority=Authority(origin=WriteOrigin.ADMIN_EDIT, actor="operator_zhao", person=True, operator=True),
    )
    governed_lifecycle_transition(
        memory_ids=[strategy.pk],
        from_status=Status.ACTIVE,
        to_status=Status.EXPIRED,
        at=timezone.now(),
        authority=Authority.lifecycle("scheduler"),
    )

    code, listed, _ = cli("suggestions", "--advertiser", "brand_B", "--json")
    item = next(i for i in listed["items"] if i["id"] == suggestion.pk)
    assert template.pk not in [p["id"] for p in item["templates"]]
    assert strategy.pk not in [p["id"] for p in item["strategies"]]
    # The rest of the suggestion stands, and the record keeps every playbook it named.
    assert item["strategies"] or item["templates"]
    assert {template.pk, strategy.pk} <= {
        *suggestion.templates.values_list("id", flat=True),
        *suggestion.strategies.values_list("id", flat=True),
    }


def test_the_playbooks_of_a_signal_are_found_from_its_event_links_not_by_reading_every_memory(demo, trigger):
    """`memory__in` a query of memories made SQLite read every memory in scope on each L3
    write, under the write lock; the links are now joined to their memories."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "sqlite":
        pytest.skip("reads SQLite's query plans")
    with CaptureQueriesContext(connection) as captured:
        decision = trigger(
            "environment_change", advertiser="brand_A", source="tool", summary="双11预热开始，美妆CPM上涨30%", data=DOUBLE_11
        )
    assert decision.action == "WRITE", decision.reasons
    lookups = [q["sql"] for q in captured if q["sql"].startswith('SELECT "memories_memoryentity"."memory_id"') and "ORDER BY" in q["sql"]]
    assert lookups
    with connection.cursor() as cursor:
        for sql in lookups:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            plan = [str(row[-1]) for row in cursor.fetchall()]
            # The old form listed every active memory in a subquery ("LIST SUBQUERY", then a
            # search of memories by status) before it looked at a single link.
            assert plan[0].startswith("SEARCH memories_memoryentity") and not any("SUBQUERY" in step for step in plan), plan
