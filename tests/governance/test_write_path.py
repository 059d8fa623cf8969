"""The hard layer rules hold on every path into memory: the funnel, approvals from the
admin, the CLI and the API, admin edits, trusted imports and promotion. Items parked the
way an outage used to park them (before any rule ran) are refused when approved."""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from api.services import api_token_create
from governance.constants import ReviewKind, ReviewStatus
from governance.models import LayerPolicy, ReviewItem
from governance.review.services import review_approve, review_item_create
from governance.write.hard_rules import Authority, HardRuleViolation, WriteOrigin, l3_ttl_hours
from governance.write.imports import ImportFailed, memories_import
from governance.write.memory import Proposal, governed_write
from memories.constants import Layer, Status
from memories.models import Memory
from tests.fakes.openai_server import error

pytestmark = pytest.mark.django_db

# What an agent sent during the outage: an L4 template, and an inference with figures
# that appear nowhere in its data.
L4_PROPOSAL = {
    "content": "策略模板：医药OTC冷启动三阶段出价，前三天保守出价",
    "layer": "L4",
    "trigger_type": "strategy_execution",
    "advertiser": "brand_A",
    "source": "agent",
    "source_attribution": "unknown",
    "data": {},
}
INFERENCE_PROPOSAL = {
    "content": "brand_A 感冒药计划下调出价10%后ROI提升到3.8，效果明显",
    "layer": "L2",
    "trigger_type": "strategy_execution",
    "advertiser": "brand_A",
    "source": "agent",
    "data": {},
}


def _parked(candidate: dict) -> ReviewItem:
    """A pending_write item as the funnel left it when the gateway failed before any rule ran."""
    return review_item_create(
        kind=ReviewKind.PENDING_WRITE,
        reason="openai judge unavailable: HTTP 500; parked, nothing written",
        candidate=candidate,
        advertiser=candidate["advertiser"],
        proposed_by="token:agent-a",
    )


def _still_open(item: ReviewItem) -> None:
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN
    assert not Memory.objects.filter(layer__in=[Layer.L4, Layer.L2], advertiser="brand_A").exists()


# --- the funnel -------------------------------------------------------------------------
@pytest.fixture
def gateway_down(openai_gateway):
    openai_gateway.route("prompt:", error(500), times=None)
    return openai_gateway


def test_funnel_refuses_l4_before_asking_a_failing_gateway(gateway_down, trigger):
    d = trigger("strategy_execution", summary=L4_PROPOSAL["content"], layer="L4", advertiser="brand_A", source="agent")
    assert d.action == "REJECT" and "L4" in d.reasons[0]
    assert [s["stage"] for s in d.stages][:2] == ["safety", "provenance"]
    assert gateway_down.requests_to("/chat/completions") == []
    assert not Memory.objects.exists() and not ReviewItem.objects.exists()


def test_funnel_refuses_agent_inference_into_l2_before_any_model(gateway_down, trigger):
    d = trigger("strategy_execution", summary="推测：brand_A 维生素计划加价后转化会更好", layer="L2", advertiser="brand_A", source="agent")
    assert d.action == "REJECT" and any("agent inference" in r for r in d.reasons)
    assert gateway_down.requests_to("/chat/completions") == []


def test_funnel_l3_ttl_counts_from_the_observation_time(trigger):
    observed = timezone.now() - timedelta(hours=5)
    d = trigger(
        "environment_change",
        summary="双12预热期抖音信息流CPM上涨25%，持续观察中",
        advertiser="brand_A",
        source="tool",
        data={"observed_at": observed.isoformat(), "signal": "CPM上涨25%", "impact": "出价需上调"},
    )
    assert d.action == "WRITE", d.reasons
    memory = Memory.objects.get(pk=d.memory_id)
    assert memory.observed_at == observed.replace(microsecond=observed.microsecond)
    assert memory.expires_at == observed + timedelta(hours=l3_ttl_hours())


def test_funnel_refuses_an_l3_observation_older_than_its_ttl(trigger):
    stale = timezone.now() - timedelta(hours=l3_ttl_hours() + 1)
    d = trigger(
        "environment_change",
        summary="昨日大促期间美妆类目CPC上涨30%",
        advertiser="brand_B",
        source="tool",
        data={"observed_at": stale.isoformat(), "signal": "CPC上涨30%", "impact": "预算需上调"},
    )
    assert d.action == "REJECT" and "stale" in d.reasons[0]


# --- approvals: service/CLI, admin, API ---------------------------------------------------
@pytest.mark.parametrize("candidate", [L4_PROPOSAL, INFERENCE_PROPOSAL], ids=["l4", "agent-inference-l2"])
def test_cli_approval_of_an_outage_parked_item_is_refused(candidate, capsys, django_user_model):
    django_user_model.objects.create_superuser(username="admin", password="pw")  # the account `make run` creates
    item = _parked(candidate)
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "review", "approve", str(item.pk), "--json")
    err = capsys.readouterr().err
    assert exit_info.value.code != 0 and err.count("\n") == 1 and "Traceback" not in err
    _still_open(item)


@pytest.mark.parametrize("candidate", [L4_PROPOSAL, INFERENCE_PROPOSAL], ids=["l4", "agent-inference-l2"])
def test_admin_approval_of_an_outage_parked_item_is_refused(candidate, operator_client):
    item = _parked(candidate)
    response = operator_client.post(
        reverse("admin:governance_reviewitem_decide", args=[item.pk]), {"decision": "approve", "note": "看起来没问题"}, follow=True
    )
    assert response.status_code == 200
    messages = " ".join(str(m) for m in response.context["messages"])
    assert "L4" in messages or "number-backed" in messages
    _still_open(item)


@pytest.mark.parametrize("candidate", [L4_PROPOSAL, INFERENCE_PROPOSAL], ids=["l4", "agent-inference-l2"])
def test_api_approval_of_an_outage_parked_item_is_refused(candidate):
    item = _parked(candidate)
    _, raw = api_token_create(name="desk", advertisers=["brand_A"], can_review=True, created_by_name="test")
    response = Client().post(
        f"/api/v1/review/{item.pk}/approve",
        data=json.dumps({"note": "ok"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 403 and "detail" in response.json()
    _still_open(item)


def test_approval_of_a_confirmed_parked_l2_still_writes_it_with_a_fresh_importance():
    item = _parked(
        {
            "content": "用户明确要求：brand_A 医药OTC类目出价不要超过1.5元",
            "layer": "L2",
            "trigger_type": "user_feedback",
            "advertiser": "brand_A",
            "source": "user",
            "category": "医药OTC",
            "business_line": "medical",
            "data": {},
        }
    )
    d = review_approve(item=item, reviewer=None, reviewer_name="ops_zhao", operator=True)
    memory = Memory.objects.get(pk=d.memory_id)
    assert (memory.layer, memory.category, memory.business_line) == ("L2", "医药OTC", "medical")
    assert memory.importance != 5.0  # scored, not the default a parked candidate carried


# --- admin edit -----------------------------------------------------------------------------
def test_admin_content_edit_of_an_l4_template_is_refused(make_memory, operator_client):
    template = make_memory("策略模板：大促蓄水期降价10%", layer="L4", source="system", source_attribution="promotion")
    # The page opens read-only; ?edit=1 is the explicit edit, the only page that saves.
    url = reverse("admin:memories_memory_change", args=[template.pk]) + "?edit=1"
    page = operator_client.get(url)
    form = page.context["adminform"].form
    data = {name: (form.initial.get(name) if form.initial.get(name) is not None else "") for name in form.fields}
    data.update(content="策略模板：大促蓄水期降价30%", edit_note="运营直接改模板 figure")
    response = operator_client.post(url, data, follow=True)
    assert Memory.objects.filter(layer=Layer.L4).count() == 1
    assert Memory.objects.get(pk=template.pk).content == "策略模板：大促蓄水期降价10%"
    assert "L4" in " ".join(str(m) for m in response.context["messages"])


# --- import ---------------------------------------------------------------------------------
def test_import_refuses_an_l4_line_not_derived_from_l2_naming_the_line():
    lines = [
        json.dumps({"layer": "L2", "content": "brand_A 冷启动期出价上浮20%，ROI达标", "advertiser": "brand_A"}, ensure_ascii=False),
        json.dumps({"layer": "L4", "content": "策略模板：冷启动出价上浮20%", "source": "system"}, ensure_ascii=False),
    ]
    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=lines, actor="ops_zhao", embed=False)
    assert failed.value.errors == ["line 2: an L4 template must be derived from an existing L2 memory"]
    assert not Memory.objects.exists()


def test_import_l3_ttl_counts_from_the_line_observation_time():
    observed = timezone.now() - timedelta(hours=3)
    line = json.dumps(
        {"layer": "L3", "content": "618预热期美妆类目CPM上涨18%", "source": "tool", "observed_at": observed.isoformat()}, ensure_ascii=False
    )
    memories_import(lines=[line], actor="ops_zhao", embed=False)
    memory = Memory.objects.get()
    assert memory.expires_at == memory.observed_at + timedelta(hours=l3_ttl_hours())


# --- promotion ------------------------------------------------------------------------------
def test_promotion_of_an_immature_l2_is_refused(make_memory):
    young = make_memory("brand_A 冷启动期出价上浮20%，ROI达标", layer="L2", advertiser="brand_A", importance=9)
    proposal = Proposal(
        content="策略模板：冷启动出价上浮20%", layer=Layer.L4, advertiser="brand_A", source="system", source_attribution="promotion"
    )
    with pytest.raises(HardRuleViolation):
        governed_write(proposal=proposal, authority=Authority.lifecycle("scheduler", origin=WriteOrigin.PROMOTION), derived_from=[young])
    assert not Memory.objects.filter(layer=Layer.L4).exists()


def test_promotion_approval_after_the_source_was_archived_is_refused(make_memory):
    source = make_memory("brand_A 冷启动期出价上浮20%，连续三次ROI达标", layer="L2", advertiser="brand_A", importance=9)
    Memory.objects.filter(pk=source.pk).update(created_at=timezone.now() - timedelta(days=90), access_count=20)
    item = review_item_create(
        kind=ReviewKind.PROMOTION,
        reason="mature",
        memory=source,
        proposed_by="lifecycle:scheduler",
        candidate={
            "content": "策略模板：冷启动出价上浮20%",
            "layer": "L4",
            "source": "system",
            "source_attribution": "promotion",
            "advertiser": "brand_A",
        },
    )
    Memory.objects.filter(pk=source.pk).update(status=Status.ARCHIVED)
    with pytest.raises(HardRuleViolation):
        review_approve(item=item, reviewer=None, reviewer_name="ops_zhao", operator=True)
    assert not Memory.objects.filter(layer=Layer.L4).exists()


def test_l1_is_written_by_the_funnel_only_from_an_authoritative_source():
    proposal = Proposal(content="医药OTC广告禁止出现“根治”字样", layer=Layer.L1, source="agent", source_attribution="user_stated")
    with pytest.raises(HardRuleViolation):
        governed_write(proposal=proposal, authority=Authority.funnel("token:agent-a"))
    operator = Authority(origin=WriteOrigin.APPROVAL, actor="ops_zhao", person=True, operator=True)
    approved = governed_write(proposal=proposal, authority=operator)
    assert approved.layer == Layer.L1
    assert LayerPolicy.objects.filter(layer=Layer.L1).exists()


def test_import_refuses_a_line_holding_a_credential_and_masks_personal_data():
    token = "xoxb-" + "1234567890-0987654321-" + "AbCdEfGhIjKlMnOpQrStUvWx"
    lines = [json.dumps({"layer": "L2", "content": f"brand_A 投放机器人的Slack令牌是{token}", "advertiser": "brand_A"}, ensure_ascii=False)]
    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=lines, actor="ops_zhao", embed=False)
    assert failed.value.errors[0].startswith("line 1:") and token not in " ".join(failed.value.errors)
    memories_import(
        lines=[
            json.dumps(
                {"layer": "L2", "content": "brand_A 对接人手机号13812345678，周一复盘ROI", "advertiser": "brand_A"}, ensure_ascii=False
            )
        ],
        actor="ops_zhao",
        embed=False,
    )
    assert "13812345678" not in Memory.objects.get().content
