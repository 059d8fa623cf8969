"""The audit trail is complete: every write that reaches L1 (whatever path), every review
decision (also in the admin's recent actions), every policy and token change."""

import pytest
from django.contrib.admin.models import LogEntry

from governance.models import AuditLog, LayerPolicy, ReviewItem
from governance.review.selectors import review_item_get
from governance.review.services import review_approve, review_reject
from governance.write.hard_rules import Authority, WriteOrigin
from governance.write.memory import governed_set_status
from memories.models import Memory

pytestmark = pytest.mark.django_db

COMPANY_RULE = "公司规定：所有医药OTC账户日预算不得超过5000元"
PLATFORM_RULE = "平台规定：医药OTC类目所有广告出价不得超过2元"
BEAUTY_RULE = "平台规定：美妆类目双11期间单条素材日预算不得超过3万元"


def test_a_funnel_write_to_l1_is_audited_with_its_origin(ingest):
    decision = ingest(COMPANY_RULE, source="human", layer="L1", actor="cli:ops")
    assert decision.action == "WRITE" and decision.layer == "L1", decision
    row = AuditLog.objects.get(event_type="memory.l1_write", target_id=str(decision.memory_id))
    assert row.actor == "cli:ops" and row.extra_data["origin"] == WriteOrigin.FUNNEL
    assert row.extra_data["content"] == COMPANY_RULE and row.target_type == "memories.memory"
    # An L2 write is traced in its event, not in the audit log.
    plain = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A", actor="token:a")
    assert plain.action == "WRITE" and plain.layer == "L2"
    assert not AuditLog.objects.filter(target_id=str(plain.memory_id), target_type="memories.memory").exists()


def test_an_archived_l1_rule_is_audited(ingest, operator):
    decision = ingest(COMPANY_RULE, source="human", layer="L1", actor="cli:ops")
    memory = Memory.objects.get(pk=decision.memory_id)
    governed_set_status(
        memory=memory,
        status="archived",
        authority=Authority(origin=WriteOrigin.ADMIN_EDIT, actor="operator_zhao", person=True, operator=True),
    )
    row = AuditLog.objects.get(event_type="memory.l1_status", target_id=str(memory.pk))
    assert row.extra_data["from"] == "active" and row.extra_data["to"] == "archived" and row.actor == "operator_zhao"


def test_review_decisions_reach_the_audit_log_and_recent_actions(ingest, operator, django_capture_on_commit_callbacks):
    approved = review_item_get(item_id=ingest(PLATFORM_RULE, source="user", actor="token:agent-1").review_item_id)
    rejected = review_item_get(item_id=ingest(BEAUTY_RULE, source="user", actor="token:agent-1").review_item_id)
    with django_capture_on_commit_callbacks(execute=True):
        decision = review_approve(item=approved, reviewer=operator, reviewer_name="operator_zhao", note="合规部确认")
        review_reject(item=rejected, reviewer=operator, reviewer_name="operator_zhao", note="用户转述，不是平台规定")

    assert AuditLog.objects.filter(event_type="review.approved", target_id=str(approved.pk), actor="operator_zhao").exists()
    assert AuditLog.objects.filter(event_type="review.rejected", target_id=str(rejected.pk), actor="operator_zhao").exists()
    # The approval wrote an L1 rule: that write is audited too, as a person's approval.
    l1 = AuditLog.objects.get(event_type="memory.l1_write", target_id=str(decision.memory_id))
    assert l1.extra_data["origin"] == WriteOrigin.APPROVAL and l1.extra_data["person"] is True

    # The admin dashboard's "Recent actions" lists the reviewer's own LogEntry rows.
    entries = {e.object_id: e for e in LogEntry.objects.filter(user=operator)}
    assert set(entries) == {str(approved.pk), str(rejected.pk)}
    assert f"memory #{decision.memory_id}" in entries[str(approved.pk)].get_change_message()
    assert "用户转述" in entries[str(rejected.pk)].get_change_message()
    assert entries[str(rejected.pk)].content_type.model_class() is ReviewItem


def test_an_api_token_decision_is_audited_without_a_log_entry(ingest):
    item = review_item_get(item_id=ingest(PLATFORM_RULE, source="user", actor="token:agent-1").review_item_id)
    review_reject(item=item, reviewer=None, reviewer_name="token:reviewer-a", note="不是平台规定")
    assert AuditLog.objects.filter(event_type="review.rejected", actor="token:reviewer-a").exists()
    assert not LogEntry.objects.exists()


def test_policy_and_token_changes_are_audited(operator):
    from api.services import api_token_create, api_token_revoke
    from governance.write.admin_edits import layer_policy_update

    policy = LayerPolicy.objects.get(layer="L3")
    layer_policy_update(policy=policy, user=operator, changes={"default_ttl_hours": 48})
    row = AuditLog.objects.get(event_type="layer_policy.update")
    assert row.actor == "operator_zhao" and row.extra_data["changes"]["default_ttl_hours"][1] == 48

    token, _ = api_token_create(name="agent-d11", advertisers=["brand_A"], can_review=True, created_by_name="operator_zhao")
    api_token_revoke(token=token, actor="operator_zhao")
    created = AuditLog.objects.get(event_type="api_token.created", target_id=str(token.pk))
    assert created.extra_data["can_review"] is True and created.extra_data["advertisers"] == ["brand_A"]
    assert AuditLog.objects.filter(event_type="api_token.revoked", target_id=str(token.pk), actor="operator_zhao").exists()


def test_the_dashboard_lists_the_reviewers_decisions_under_recent_actions(ingest, operator):
    from django.test import Client

    item = review_item_get(item_id=ingest(PLATFORM_RULE, source="user", actor="token:agent-1").review_item_id)
    client = Client()
    client.force_login(operator)
    assert "None available" in client.get("/admin/").content.decode()
    review_reject(item=item, reviewer=operator, reviewer_name="operator_zhao", note="用户转述，不是平台规定")
    page = client.get("/admin/").content.decode()
    recent = page.split('id="recent-actions-module"', 1)[1]
    assert "None available" not in recent and f"/admin/governance/reviewitem/{item.pk}/change/" in recent
