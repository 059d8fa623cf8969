"""Working the queue without a browser: the filter survives a decision, the item page links
the next open item of the same filtered list, the message names what changed, and a sampled
audit offers verdicts that say what they do."""

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from governance.intake.services import event_trigger
from governance.models import LayerPolicy, ReviewItem
from memories.models import Memory

from .seed import seed_queue, seed_second_conflict

OPEN = urlencode({"status__exact": "open"})


@pytest.fixture
def queue(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        LayerPolicy.objects.update(sampled_audit_rate=0.0)
        written, conflict, parked = seed_queue()
        written_b, update_b = seed_second_conflict()
        LayerPolicy.objects.update(sampled_audit_rate=1.0)
        refused = event_trigger(
            event_type="periodic_pattern",
            advertiser="brand_B",
            source="user",
            layer="L2",
            business_line="医药OTC",
            summary="brand_B 医药OTC 每周一上午信息流点击率偏高",
            actor="token:ops-agent",
            data={"period": "weekly"},
        )
        LayerPolicy.objects.update(sampled_audit_rate=0.0)
    assert refused.action == "REJECT"
    return {
        "conflict": ReviewItem.objects.get(pk=conflict.review_item_id),
        "update": ReviewItem.objects.get(pk=update_b.review_item_id),
        "older_b": written_b.memory_id,
        "audit": ReviewItem.objects.get(event_id=refused.event_id, kind="sampled_audit"),
    }


def _change(item, filters=OPEN):
    return reverse("admin:governance_reviewitem_change", args=[item.pk]) + "?" + urlencode({"_changelist_filters": filters})


def test_item_page_links_the_next_open_item_of_the_filtered_list(reviewer_client, queue):
    page = reviewer_client.get(_change(queue["conflict"])).content.decode()
    assert 'id="next-item"' in page and 'name="_changelist_filters" value="status__exact=open"' in page
    next_pk = ReviewItem.objects.filter(status="open").exclude(pk=queue["conflict"].pk).order_by("created_at", "id").first().pk
    assert f"/reviewitem/{next_pk}/change/?_changelist_filters=status__exact%3Dopen" in page


def test_a_decision_keeps_the_filter_and_names_what_changed(reviewer_client, queue):
    url = reverse("admin:governance_reviewitem_decide", args=[queue["update"].pk])
    response = reviewer_client.post(url, {"decision": "approve", "note": "以最新结果为准", "_changelist_filters": "status__exact=open"})
    assert response.status_code == 302 and response["Location"].endswith("/governance/reviewitem/?status__exact=open")
    new = Memory.objects.get(supersedes_id=queue["older_b"])
    followed = reviewer_client.get(response["Location"])
    messages = [str(m) for m in followed.context["messages"]]
    assert any(f"#{new.pk} supersedes #{queue['older_b']} in L2" in m and "Next item" in m for m in messages), messages


def test_sampled_audit_offers_verdicts_that_say_what_they_do(reviewer_client, queue):
    page = reviewer_client.get(_change(queue["audit"])).content.decode()
    for verdict in ("confirm", "overturn_write", "overturn_keep"):
        assert f'id="{verdict}-button"' in page
    assert 'id="approve-button"' not in page and 'id="reject-button"' not in page

    url = reverse("admin:governance_reviewitem_decide", args=[queue["audit"].pk])
    refused = reviewer_client.post(url, {"decision": "overturn_keep", "note": ""}, follow=True)
    assert any("note" in str(m) for m in refused.context["messages"])
    queue["audit"].refresh_from_db()
    assert queue["audit"].status == "open"

    reviewer_client.post(url, {"decision": "overturn_write", "note": "值得记录"})
    queue["audit"].refresh_from_db()
    assert (queue["audit"].status, queue["audit"].decision_correct) == ("approved", False)
    assert Memory.objects.filter(content="brand_B 医药OTC 每周一上午信息流点击率偏高", status="active").exists()


def test_dashboard_leads_into_the_oldest_open_item(reviewer_client, queue):
    page = reviewer_client.get(reverse("admin:index")).content.decode()
    oldest = ReviewItem.objects.filter(status="open").order_by("created_at", "id").first()
    assert 'id="start-reviewing"' in page and _change(oldest).replace("&", "&amp;") in page
    assert 'id="time-zone-label"' in page and "Asia/Shanghai (UTC+08:00)" in page
