"""Layer policies (operators only, audited), read-only records, roles and the zh-hans admin."""

import pytest
from django.urls import reverse

from governance.models import AuditLog, LayerPolicy, MemoryEvent, Trace


def _policy_form(policy: LayerPolicy, **overrides):
    data = {
        "default_ttl_hours": policy.default_ttl_hours or "",
        "capacity_per_advertiser": policy.capacity_per_advertiser or "",
        "sampled_audit_rate": policy.sampled_audit_rate,
        "review_importance_below": policy.review_importance_below,
        "review_confidence_below": policy.review_confidence_below,
        "promotion_min_age_days": policy.promotion_min_age_days,
        "promotion_min_recalls": policy.promotion_min_recalls,
        "promotion_min_importance": policy.promotion_min_importance,
        "_save": "Save",
    }
    if policy.auto_promote:
        data["auto_promote"] = "on"
    data.update(overrides)
    return data


def test_operator_edits_a_policy_and_the_edit_is_audited(operator_client, policy):
    l3 = policy("L3", sampled_audit_rate=0.05)
    url = reverse("admin:governance_layerpolicy_change", args=[l3.pk])
    page = operator_client.get(url).content.decode()
    assert 'id="hard-rules"' in page and "TTL" in page and 'name="default_ttl_hours"' in page

    response = operator_client.post(url, _policy_form(l3, default_ttl_hours=48, sampled_audit_rate="0.2"))
    assert response.status_code == 302
    l3.refresh_from_db()
    assert (l3.default_ttl_hours, l3.sampled_audit_rate, l3.updated_by) == (48, 0.2, "operator_zhao")
    audit = AuditLog.objects.get(event_type="layer_policy.update")
    assert audit.actor == "operator_zhao" and audit.target_id == str(l3.pk)
    assert audit.extra_data["changes"] == {"default_ttl_hours": [24, 48], "sampled_audit_rate": [0.05, 0.2]}
    assert "24 → 48" in operator_client.get(url).content.decode()  # the page lists its own edits


def test_the_page_shows_each_layers_hard_rules_in_their_one_wording(operator_client):
    from django.utils.html import escape

    from governance.write.hard_rules import HardRule, hard_rules_for

    for layer in ("L1", "L2", "L3", "L4"):
        page = operator_client.get(reverse("admin:governance_layerpolicy_change", args=[LayerPolicy.objects.get(layer=layer).pk]))
        shown = page.content.decode().split('id="hard-rules"')[1].split("</ul>")[0]
        assert shown.count("<li>") == len(hard_rules_for(layer)) >= 1
        for rule in HardRule:
            assert (escape(str(rule.label)) in shown) == (rule in hard_rules_for(layer)), (layer, rule)
    assert hard_rules_for("L1") == [HardRule.L1_AUTHORITATIVE, HardRule.AGENT_INFERENCE_NEEDS_PERSON, HardRule.SCOPE]


def test_the_form_edits_exactly_the_tunable_fields(operator_client, operator):
    from governance.write.admin_edits import layer_policy_update
    from memories.exceptions import InvalidInput

    l2 = LayerPolicy.objects.get(layer="L2")
    page = operator_client.get(reverse("admin:governance_layerpolicy_change", args=[l2.pk])).content.decode()
    assert all(f'name="{name}"' in page for name in LayerPolicy.TUNABLE_FIELDS)
    assert 'name="layer"' not in page and 'name="updated_by"' not in page
    with pytest.raises(InvalidInput, match="not tunable: layer"):
        layer_policy_update(policy=l2, user=operator, changes={"layer": "L1"})
    assert LayerPolicy.objects.get(pk=l2.pk).layer == "L2"


def test_l3_always_keeps_a_ttl(operator_client):
    l3 = LayerPolicy.objects.get(layer="L3")
    response = operator_client.post(reverse("admin:governance_layerpolicy_change", args=[l3.pk]), _policy_form(l3, default_ttl_hours=""))
    assert response.status_code == 200 and "at least one hour" in response.content.decode()
    l3.refresh_from_db()
    assert l3.default_ttl_hours == 24 and not AuditLog.objects.exists()


def test_reviewer_sees_policies_but_cannot_change_them(reviewer_client):
    l2 = LayerPolicy.objects.get(layer="L2")
    before = l2.sampled_audit_rate
    url = reverse("admin:governance_layerpolicy_change", args=[l2.pk])
    page = reviewer_client.get(url)
    assert page.status_code == 200 and b'name="sampled_audit_rate"' not in page.content and b'id="hard-rules"' in page.content
    assert reviewer_client.post(url, _policy_form(l2, sampled_audit_rate="1.0")).status_code == 403
    l2.refresh_from_db()
    assert l2.sampled_audit_rate == before != 1.0


@pytest.mark.parametrize("model", ["auditlog", "memoryevent", "trace"])
def test_records_are_read_only_even_for_a_superuser(admin_client, model):
    from governance.audit import audit_record

    row = {
        "auditlog": lambda: audit_record(event_type="demo.event", actor="system", extra={"k": "出价"}),
        "memoryevent": lambda: MemoryEvent.objects.create(kind="ingest", raw_text="预算调整"),
        "trace": lambda: Trace.objects.create(stage="value", decision="PASS"),
    }[model]()
    assert admin_client.get(reverse(f"admin:governance_{model}_changelist")).status_code == 200
    assert admin_client.get(reverse(f"admin:governance_{model}_change", args=[row.pk])).status_code == 200
    assert admin_client.post(reverse(f"admin:governance_{model}_change", args=[row.pk]), {}).status_code == 403
    assert admin_client.get(reverse(f"admin:governance_{model}_add")).status_code == 403
    assert admin_client.post(reverse(f"admin:governance_{model}_delete", args=[row.pk]), {"post": "yes"}).status_code == 403
    assert type(row).objects.filter(pk=row.pk).exists()


def test_reviewer_cannot_see_tokens(reviewer_client, reviewer, operator_client):
    assert not reviewer.has_perm("api.view_apitoken") and not reviewer.has_perm("api.add_apitoken")
    assert reviewer_client.get(reverse("admin:api_apitoken_changelist")).status_code == 403
    assert reviewer_client.get(reverse("admin:api_apitoken_add")).status_code == 403
    index = reviewer_client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:api_apitoken_changelist") not in index
    assert operator_client.get(reverse("admin:api_apitoken_changelist")).status_code == 200


def test_roles(reviewer, operator):
    assert reviewer.has_perm("governance.change_reviewitem") and not reviewer.has_perm("memories.edit_l1_memory")
    assert not reviewer.has_perm("governance.change_layerpolicy")
    assert operator.has_perm("memories.edit_l1_memory") and operator.has_perm("governance.change_layerpolicy")
    assert operator.has_perm("api.add_apitoken")
    # "everything but user management"
    assert not operator.has_perm("auth.change_user") and not operator.has_perm("auth.add_group")


def test_admin_follows_the_users_language(reviewer_client, make_memory):
    make_memory("brand_A 美妆大促期间出价上调15%后 ROI 提升", advertiser="brand_A", business_line="美妆")
    url = reverse("admin:memories_memory_changelist")
    zh = reviewer_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "归档所选记忆" in zh and "业务线" in zh and "广告主" in zh and "全局（无广告主）" in zh
    en = reviewer_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Archive selected memories" in en and "归档所选记忆" not in en
