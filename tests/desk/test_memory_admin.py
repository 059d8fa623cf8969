"""The memory desk: filters, history, provenance, and every write traced and audited."""

import pytest
from django.urls import reverse

from governance.models import AuditLog, MemoryEvent, Trace
from memories.embeddings.store import memory_vectors
from memories.models import Memory


def _form(memory: Memory, **overrides):
    data = {
        "content": memory.content,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "category": memory.category,
        "business_line": memory.business_line,
        "tier": memory.tier,
        "expires_at_0": "",
        "expires_at_1": "",
        "_save": "Save",
    }
    data.update(overrides)
    return data


def _change_url(memory: Memory) -> str:
    return reverse("admin:memories_memory_change", args=[memory.pk])


def _edit_url(memory: Memory) -> str:
    """Editing is an explicit action: the page opens read-only, ?edit=1 is the form."""
    return f"{_change_url(memory)}?edit=1"


@pytest.fixture
def l1_rule(make_memory):
    return make_memory(
        "医药OTC 广告素材不得出现“治愈”“根治”等绝对化用语", layer="L1", business_line="医药OTC", category="compliance", source="human"
    )


@pytest.fixture
def l2_strategy(make_memory):
    return make_memory(
        "brand_A 美妆大促期间出价上调15%后 ROI 从1.8升到2.3，适用于预算充足的场景",
        layer="L2",
        advertiser="brand_A",
        business_line="美妆",
        importance=6.0,
    )


def test_reviewer_cannot_edit_l1(reviewer_client, l1_rule):
    page = reviewer_client.get(_change_url(l1_rule))
    assert page.status_code == 200
    assert b'name="content"' not in page.content  # rendered read-only
    assert "绝对化用语" in page.content.decode()

    response = reviewer_client.post(_edit_url(l1_rule), _form(l1_rule, content="医药OTC 素材可以使用任何用语"))
    assert response.status_code == 403
    l1_rule.refresh_from_db()
    assert l1_rule.status == "active" and "绝对化用语" in l1_rule.content
    assert not AuditLog.objects.filter(event_type="memory.admin_edit").exists()


def test_operator_edits_l1_as_a_new_traced_version(operator_client, operator, l1_rule):
    new_text = "医药OTC 广告素材不得出现“治愈”“根治”“无副作用”等绝对化用语"
    response = operator_client.post(_edit_url(l1_rule), _form(l1_rule, content=new_text))
    assert response.status_code == 302, response.content.decode()[:2000]

    l1_rule.refresh_from_db()
    assert l1_rule.status == "superseded" and l1_rule.valid_to is not None
    new = Memory.objects.get(supersedes=l1_rule)
    assert (new.version, new.content, new.layer, new.source, new.status) == (2, new_text, "L1", "human", "active")
    assert new.business_line == "医药OTC" and new.category == "compliance"

    event = MemoryEvent.objects.get(kind="admin_edit")
    assert (event.actor, event.action, event.memory_id, event.raw_text) == ("operator_zhao", "UPDATE", new.pk, new_text)
    assert event.data["changes"]["content"] == [l1_rule.content, new_text]
    trace = Trace.objects.get(event=event)
    assert (trace.stage, trace.decision, trace.provider) == ("admin_edit", "UPDATE", "human")
    audit = AuditLog.objects.get(event_type="memory.admin_edit")
    assert (audit.actor, audit.target_id, audit.extra_data["previous_memory_id"]) == ("operator_zhao", str(new.pk), l1_rule.pk)

    # The new version's page shows the whole chain and links back to the edit event.
    page = operator_client.get(_change_url(new)).content.decode()
    assert "v1" in page and "v2" in page and "绝对化用语" in page
    assert reverse("admin:governance_memoryevent_change", args=[event.pk]) in page


def test_field_edit_stays_in_place_and_is_audited(reviewer_client, l2_strategy):
    response = reviewer_client.post(_edit_url(l2_strategy), _form(l2_strategy, importance="8.5"))
    assert response.status_code == 302
    l2_strategy.refresh_from_db()
    assert l2_strategy.importance == 8.5 and l2_strategy.version == 1 and l2_strategy.status == "active"
    audit = AuditLog.objects.get(event_type="memory.admin_edit")
    assert audit.actor == "reviewer_li" and audit.extra_data["changes"] == {"importance": [6.0, 8.5]}
    assert Trace.objects.filter(event__kind="admin_edit", memory=l2_strategy).count() == 1


def test_an_unchanged_save_writes_nothing(reviewer_client, l2_strategy):
    assert reviewer_client.post(_edit_url(l2_strategy), _form(l2_strategy)).status_code == 302
    assert not AuditLog.objects.exists() and not MemoryEvent.objects.exists()


def test_archive_and_restore_actions_go_through_services(reviewer_client, l2_strategy):
    url = reverse("admin:memories_memory_changelist")
    reviewer_client.post(url, {"action": "archive_selected", "_selected_action": [l2_strategy.pk]})
    l2_strategy.refresh_from_db()
    assert l2_strategy.status == "archived"
    reviewer_client.post(url, {"action": "restore_selected", "_selected_action": [l2_strategy.pk]})
    l2_strategy.refresh_from_db()
    assert l2_strategy.status == "active"
    assert list(AuditLog.objects.order_by("id").values_list("event_type", "actor")) == [
        ("memory.archive", "reviewer_li"),
        ("memory.restore", "reviewer_li"),
    ]
    assert list(Trace.objects.filter(memory=l2_strategy).order_by("id").values_list("stage", "decision")) == [
        ("admin_archive", "archived"),
        ("admin_restore", "active"),
    ]


def test_reviewer_cannot_archive_l1(reviewer_client, l1_rule, l2_strategy):
    url = reverse("admin:memories_memory_changelist")
    response = reviewer_client.post(url, {"action": "archive_selected", "_selected_action": [l1_rule.pk, l2_strategy.pk]}, follow=True)
    l1_rule.refresh_from_db()
    l2_strategy.refresh_from_db()
    assert l1_rule.status == "active" and l2_strategy.status == "archived"
    assert "may not change L1" in response.content.decode()


def test_restore_refuses_an_expired_fact(reviewer_client, make_memory):
    from datetime import timedelta

    from django.utils import timezone

    stale = make_memory(
        "brand_B 冷启动期 CTR 异常偏低 0.3%",
        layer="L3",
        advertiser="brand_B",
        source="tool",
        expires_at=timezone.now() - timedelta(hours=1),
        status="archived",
    )
    response = reviewer_client.post(
        reverse("admin:memories_memory_changelist"), {"action": "restore_selected", "_selected_action": [stale.pk]}, follow=True
    )
    stale.refresh_from_db()
    assert stale.status == "archived"
    assert "stale fact" in response.content.decode()


def test_reembed_action(reviewer_client, l2_strategy):
    Memory.objects.filter(pk=l2_strategy.pk).update(embedding=None, embedding_dim=0, embedding_model="")
    reviewer_client.post(reverse("admin:memories_memory_changelist"), {"action": "reembed_selected", "_selected_action": [l2_strategy.pk]})
    l2_strategy.refresh_from_db()
    assert l2_strategy.embedding_dim == 384 and memory_vectors([l2_strategy])[0] is not None
    assert AuditLog.objects.get(event_type="memory.reembed").extra_data["memory_ids"] == [l2_strategy.pk]


def test_filters_and_search(reviewer_client, l1_rule, l2_strategy, make_memory):
    global_l3 = make_memory("全站大促期间 CPM 普遍上涨 20%", layer="L3", source="tool", business_line="美妆")
    url = reverse("admin:memories_memory_changelist")

    def ids(params):
        response = reviewer_client.get(url, params)
        assert response.status_code == 200
        return {m.pk for m in response.context["cl"].result_list}

    assert ids({"layer__exact": "L1"}) == {l1_rule.pk}
    assert ids({"advertiser": "brand_A"}) == {l2_strategy.pk}
    assert ids({"advertiser": "__global__"}) == {l1_rule.pk, global_l3.pk}
    assert ids({"business_line": "美妆"}) == {l2_strategy.pk, global_l3.pk}
    assert ids({"source__exact": "tool"}) == {global_l3.pk}
    assert ids({"q": "ROI"}) == {l2_strategy.pk}
    assert ids({"status__exact": "archived"}) == set()


def test_no_add_and_no_delete(operator_client, l2_strategy):
    assert operator_client.get(reverse("admin:memories_memory_add")).status_code == 403
    assert operator_client.get(reverse("admin:memories_memory_delete", args=[l2_strategy.pk])).status_code == 403


def test_the_read_only_page_names_codes_and_marks_the_stores_words(reviewer_client, make_memory):
    memory = make_memory(
        "brand_A 医药OTC 冷启动期出价不超过 CPA 的 1.2 倍",
        layer="L2",
        advertiser="brand_A",
        category="user_feedback",
        business_line="medical",
    )
    page = reviewer_client.get(_change_url(memory), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    # A funnel write without a category files it under its trigger type; the desk names both codes.
    assert "用户反馈" in page and "医药（OTC）" in page
    assert "user_feedback" not in page and ">medical<" not in page
    assert f'<div class="lingix-content" data-user-data>{memory.content}</div>' in page
