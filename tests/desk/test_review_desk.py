"""The review queue, the event timeline and the dashboard, over items the real offline
funnel parked."""

import re

import pytest
from django.urls import reverse

from governance.models import AuditLog, MemoryEvent, ReviewItem, Trace
from governance.review.services import review_item_create
from memories.models import Memory

from .seed import CONTRADICTION, PARKED_L1, UPDATE_B, WRITTEN, seed_queue, seed_second_conflict


@pytest.fixture
def queue(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        written, conflict, parked = seed_queue()
    return {
        "memory": Memory.objects.get(pk=written.memory_id),
        "conflict": ReviewItem.objects.get(pk=conflict.review_item_id),
        "parked": ReviewItem.objects.get(pk=parked.review_item_id),
    }


def _decide(client, item, **data):
    return client.post(reverse("admin:governance_reviewitem_decide", args=[item.pk]), data, follow=True)


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context and "messages" in response.context else []


def test_queue_lists_open_items_first_oldest_first(reviewer_client, reviewer, queue):
    _decide(reviewer_client, queue["conflict"], decision="reject", note="证据不足，保持原结论")
    response = reviewer_client.get(reverse("admin:governance_reviewitem_changelist"))
    rows = list(response.context["cl"].result_list)
    statuses = [r.status for r in rows]
    assert statuses.index("rejected") > max(i for i, s in enumerate(statuses) if s == "open")
    open_rows = [r for r in rows if r.status == "open"]
    assert [r.created_at for r in open_rows] == sorted(r.created_at for r in open_rows)


def test_queue_filters(reviewer_client, queue):
    url = reverse("admin:governance_reviewitem_changelist")

    def ids(params):
        return {r.pk for r in reviewer_client.get(url, params).context["cl"].result_list}

    assert queue["conflict"].pk in ids({"kind__exact": "conflict"}) and queue["parked"].pk not in ids({"kind__exact": "conflict"})
    assert queue["parked"].pk in ids({"layer__exact": "L1"})
    assert ids({"advertiser": "brand_A"}) >= {queue["conflict"].pk}
    assert queue["parked"].pk in ids({"advertiser": "__global__"})


def test_detail_shows_candidate_beside_the_conflicting_memory_with_a_diff(reviewer_client, queue):
    item = queue["conflict"]
    page = reviewer_client.get(reverse("admin:governance_reviewitem_change", args=[item.pk])).content.decode()
    assert CONTRADICTION in page
    assert f'href="{reverse("admin:memories_memory_change", args=[queue["memory"].pk])}"' in page
    # the existing text loses 升到2.3 and the candidate gains 降到1.5
    assert re.search(r'<del class="lingix-del">[^<]*升[^<]*</del>', page)
    assert re.search(r'<ins class="lingix-ins">[^<]*降[^<]*</ins>', page)
    assert 'id="approve-button"' in page and 'id="reject-button"' in page
    assert reverse("admin:governance_memoryevent_change", args=[item.event_id]) in page


def test_approve_with_a_note_writes_through_the_funnel_and_records_the_reviewer(
    reviewer_client, reviewer, queue, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        written_b, parked_b = seed_second_conflict()
    item = ReviewItem.objects.get(pk=parked_b.review_item_id)
    response = _decide(reviewer_client, item, decision="approve", note="核对过投放数据，确认有效", decision_correct="no")
    assert any("Approved review item" in m for m in _messages(response))
    item.refresh_from_db()
    assert (item.status, item.reviewer_id, item.reviewer_name, item.note, item.decision_correct) == (
        "approved",
        reviewer.pk,
        "reviewer_li",
        "核对过投放数据，确认有效",
        None,  # nothing was decided automatically: a posted verdict on a parked conflict is not recorded
    )
    memory = Memory.objects.get(events=item.event)
    # The newer result replaces the old one as version 2 of the same chain.
    assert (memory.status, memory.layer, memory.content, memory.version) == ("active", "L2", UPDATE_B, 2)
    assert Memory.objects.get(pk=written_b.memory_id).status == "superseded"
    review_trace = Trace.objects.get(event=item.event, stage="review")
    assert "reviewer_li" in " ".join(review_trace.reasons)
    assert AuditLog.objects.filter(event_type="review.approved", actor="reviewer_li", target_id=str(item.pk)).exists()
    # a decided item shows its outcome instead of the buttons
    page = reviewer_client.get(reverse("admin:governance_reviewitem_change", args=[item.pk])).content.decode()
    assert 'id="review-outcome"' in page and 'id="approve-button"' not in page


def test_only_an_operator_approves_an_l1_rule(reviewer_client, operator_client, queue):
    item = queue["parked"]
    detail = reverse("admin:governance_reviewitem_change", args=[item.pk])
    reviewer_page = reviewer_client.get(detail).content.decode()
    assert 'id="operator-only"' in reviewer_page and 'id="approve-button"' not in reviewer_page
    assert 'id="reject-button"' in reviewer_page
    operator_page = operator_client.get(detail).content.decode()
    assert 'id="approve-button"' in operator_page and 'id="operator-only"' not in operator_page
    # The button is only a courtesy: a forged POST is refused by the service all the same.
    refused = _decide(reviewer_client, item, decision="approve", note="看起来没问题")
    assert any("only an operator may approve it" in m for m in _messages(refused))
    item.refresh_from_db()
    assert item.status == "open" and not Memory.objects.filter(content=PARKED_L1).exists()

    _decide(operator_client, item, decision="approve", note="已与合规部核对，规则生效")
    item.refresh_from_db()
    assert (item.status, item.reviewer_name) == ("approved", "operator_zhao")
    assert Memory.objects.get(content=PARKED_L1).layer == "L1"


def test_reject_needs_a_note(reviewer_client, queue):
    item = queue["conflict"]
    refused = _decide(reviewer_client, item, decision="reject", note="  ")
    assert any("needs a note" in m for m in _messages(refused))
    item.refresh_from_db()
    assert item.status == "open" and not AuditLog.objects.filter(event_type="review.rejected").exists()

    done = _decide(reviewer_client, item, decision="reject", note="与已验证的大促数据矛盾")
    assert any("Rejected review item" in m for m in _messages(done))
    item.refresh_from_db()
    assert (item.status, item.note, item.reviewer_name) == ("rejected", "与已验证的大促数据矛盾", "reviewer_li")
    assert queue["memory"].__class__.objects.get(pk=queue["memory"].pk).status == "active"  # the old fact stands


def test_nobody_approves_their_own_proposal(reviewer_client, reviewer, second_reviewer_client, queue):
    own = review_item_create(
        kind="pending_write",
        reason="人工提议：新增一条美妆投放经验",
        advertiser="brand_A",
        candidate={
            "content": "brand_A 美妆新品期优先投放短视频素材，CTR 高出 30%",
            "layer": "L2",
            "advertiser": "brand_A",
            "source": "human",
        },
        proposed_by="reviewer_li",
        proposed_by_user=reviewer,
    )
    page = reviewer_client.get(reverse("admin:governance_reviewitem_change", args=[own.pk])).content.decode()
    assert 'id="self-proposed"' in page and 'id="approve-button"' not in page

    refused = _decide(reviewer_client, own, decision="approve", note="我觉得可以")
    assert any("someone else has to decide it" in m for m in _messages(refused))
    own.refresh_from_db()
    assert own.status == "open"

    # bulk approve skips it as well
    reviewer_client.post(
        reverse("admin:governance_reviewitem_changelist"),
        {"action": "approve_selected", "_selected_action": [own.pk], "apply": "1", "note": ""},
    )
    own.refresh_from_db()
    assert own.status == "open"

    _decide(second_reviewer_client, own, decision="approve", note="复核通过")
    own.refresh_from_db()
    assert (own.status, own.reviewer_name) == ("approved", "reviewer_wang")


def test_bulk_reject_requires_a_note_and_bulk_approve_works(reviewer_client, operator_client, queue):
    url = reverse("admin:governance_reviewitem_changelist")
    both = [queue["conflict"].pk, queue["parked"].pk]
    confirm = reviewer_client.post(url, {"action": "reject_selected", "_selected_action": both})
    assert confirm.status_code == 200 and b'id="bulk-decide-form"' in confirm.content

    refused = reviewer_client.post(url, {"action": "reject_selected", "_selected_action": both, "apply": "1", "note": ""})
    assert refused.status_code == 200 and "needs a note" in refused.content.decode()
    assert set(ReviewItem.objects.filter(pk__in=both).values_list("status", flat=True)) == {"open"}

    reviewer_client.post(
        url, {"action": "reject_selected", "_selected_action": [queue["conflict"].pk], "apply": "1", "note": "批量驳回：数据口径不一致"}
    )
    # Bulk approval of the L1 rule is skipped for a reviewer and goes through for an operator.
    reviewer_client.post(url, {"action": "approve_selected", "_selected_action": [queue["parked"].pk], "apply": "1", "note": ""})
    assert ReviewItem.objects.get(pk=queue["parked"].pk).status == "open"
    operator_client.post(url, {"action": "approve_selected", "_selected_action": [queue["parked"].pk], "apply": "1", "note": ""})
    assert dict(ReviewItem.objects.filter(pk__in=both).values_list("pk", "status")) == {
        queue["conflict"].pk: "rejected",
        queue["parked"].pk: "approved",
    }


def test_event_page_shows_the_stage_timeline(reviewer_client, queue):
    event = MemoryEvent.objects.get(memory=queue["memory"])
    page = reviewer_client.get(reverse("admin:governance_memoryevent_change", args=[event.pk])).content.decode()
    assert 'id="stage-timeline"' in page and WRITTEN in page
    stages = list(event.traces.order_by("seq").values_list("stage", flat=True))
    assert len(stages) >= 4
    from desk.admin.reasons import stage_label

    positions = [
        page.index(f"<b>{seq}. {stage_label(stage)}</b>") for seq, stage in event.traces.order_by("seq").values_list("seq", "stage")
    ]
    assert positions == sorted(positions)  # in funnel order
    assert "offline" in page and " ms" in page


def test_dashboard_counts_follow_the_queue(reviewer_client, operator_client, queue):
    def kpi(page, name):
        return int(re.search(rf'id="kpi-{name}"><b data-n="(\d+)">', page).group(1))

    before = reviewer_client.get(reverse("admin:index")).content.decode()
    assert 'class="lingix-banner offline"' in before and "OFFLINE judge is active" in before
    assert before.count("<svg") >= 4 and 'id="guard-metrics"' in before and 'id="guardrail-metrics"' in before
    open_before, active_before = kpi(before, "open-reviews"), kpi(before, "active")

    _decide(operator_client, queue["parked"], decision="approve", note="确认")
    after = reviewer_client.get(reverse("admin:index")).content.decode()
    assert kpi(after, "open-reviews") == open_before - 1
    assert kpi(after, "active") == active_before + 1
    assert kpi(after, "decided-today") == 1


def test_dashboard_in_chinese(reviewer_client, queue):
    page = reviewer_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "当前使用离线判定引擎" in page and "各层有效记忆数" in page and "审核队列" in page


@pytest.mark.parametrize(
    "provider, key, banner, text",
    [
        ("openai", "sk-test-not-real", "llm", "gpt-4o-mini"),
        ("", None, "error", "MEMORY_LLM_PROVIDER=offline"),
    ],
)
def test_dashboard_names_the_judge(reviewer_client, settings, env, provider, key, banner, text):
    settings.MEMORY_LLM_PROVIDER = provider
    settings.MEMORY_JUDGE_MODEL = "gpt-4o-mini"
    env(MEMORY_LLM_API_KEY=key)
    page = reviewer_client.get(reverse("admin:index")).content.decode()
    assert f'class="lingix-banner {banner}"' in page and text in page
    assert "OFFLINE judge is active" not in page
    assert "sk-test-not-real" not in page  # the key itself is never shown
