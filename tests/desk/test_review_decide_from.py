"""A review item a reviewer decides from in one read: what each decision will do, the
candidate's claim beside the memory it conflicts with, the conversation it came from, a
warning when the audited memory changed, and lists that answer without opening. Items
come from the real offline funnel, the real lifecycle jobs and the demo's own seeding."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from desk.admin.review_consequence import review_consequences
from governance.models import MemoryEvent, ReviewItem
from governance.review.services import review_item_create
from governance.write.admin_edits import memory_admin_edit
from lingix_site.demo import CONFLICT_TARGET, demo_load_once
from memories.models import Memory

from .seed import CONTRADICTION, seed_queue

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
ZH_QUERY = {"status__exact": "open"}


def _text(html: str) -> str:
    html = re.sub(r"(?s)<(script|style)\b.*?</\1>", "", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _block(html: str, element_id: str) -> str:
    """The text of the element with that id, up to the next card (enough for assertions)."""
    start = html.index(f'id="{element_id}"')
    return _text(html[start : start + 6000])


def _page(client, item, **headers) -> str:
    return client.get(reverse("admin:governance_reviewitem_change", args=[item.pk]), **headers).content.decode()


@pytest.fixture
def queue(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        written, conflict, parked = seed_queue()
    return {
        "memory": Memory.objects.get(pk=written.memory_id),
        "conflict": ReviewItem.objects.get(pk=conflict.review_item_id),
        "parked": ReviewItem.objects.get(pk=parked.review_item_id),
    }


@pytest.fixture
def demo(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        report = demo_load_once()
    assert report["loaded"], report
    return report


def test_conflict_says_which_version_approval_writes_and_what_it_closes(reviewer_client, queue):
    item, old = queue["conflict"], queue["memory"]
    page = _page(reviewer_client, item, **ZH)
    consequence = _block(page, "consequence-approve")
    assert f"批准后：写入 #{old.pk} 的第 2 版并关闭 #{old.pk} · L2 · brand_A" in consequence
    assert "驳回后：不写入任何内容" in _block(page, "consequence-reject")
    # before the buttons, and no "was the automatic decision right?" on a parked conflict
    assert page.index('id="review-consequence"') < page.index('id="approve-button"')
    assert 'id="auto-verdict"' not in page and 'name="decision_correct"' not in page

    english = _page(reviewer_client, item)
    assert f"After approval: writes version 2 of #{old.pk} and closes #{old.pk} · L2 · brand_A." in _text(english)


def test_parked_l1_rule_writes_a_new_global_memory(operator_client, queue):
    page = _page(operator_client, queue["parked"], **ZH)
    assert "批准后：写入新记忆 · L1 · 全局" in _block(page, "consequence-approve")


def test_claim_beside_the_conflict_target_with_a_word_diff_against_it_only(reviewer_client, queue):
    item, old = queue["conflict"], queue["memory"]
    page = _page(reviewer_client, item, **ZH)
    claims = page[page.index('id="review-claims"') : page.index('id="review-similar"')]
    # candidate and target side by side, row by row
    assert f'href="{reverse("admin:memories_memory_change", args=[old.pk])}"' in claims
    for row in ("subject", "lever", "value", "stance"):
        assert f'id="claim-{row}"' in claims
    assert "出价" in _block(claims, "claim-lever") and "ROI" in _block(claims, "claim-lever")
    # the relation the conflict stage found, decided by the value
    relation = _block(claims, "claim-relation")
    assert "矛盾" in relation and "取值" in relation and "1.5" in relation
    assert re.search(r'<tr id="claim-value" class="decisive">', claims)
    # a word diff: the old result struck out, the new one marked, as whole words
    diff = claims[claims.index('id="claim-diff"') :]
    assert re.search(r'<del class="lingix-del">[^<]*2\.3[^<]*</del>', diff)
    assert re.search(r'<ins class="lingix-ins">[^<]*1\.5[^<]*</ins>', diff)
    assert CONTRADICTION[:10] in _text(diff)
    # the other nearby memories carry no diff any more
    similar = page[page.index('id="review-similar"') :]
    assert "lingix-del" not in similar.split("</div>\n  </div>")[0]


def test_the_proposers_turns_read_as_a_conversation(reviewer_client, ingest, no_sampled_audit):
    decision = ingest(
        None,
        messages=[
            {"role": "user", "content": "brand_A 医药OTC 冷启动期能不能每天都调价？"},
            {"role": "assistant", "content": "建议 brand_A 医药OTC 冷启动期每天上调出价20%。"},
        ],
        advertiser="brand_A",
        actor="token:ops-agent",
    )
    event = MemoryEvent.objects.get(pk=decision.event_id)
    assert event.source_turns, decision.reasons
    item = review_item_create(kind="pending_write", reason="人工复核：助手的出价建议", event=event, advertiser="brand_A")
    page = _page(reviewer_client, item, **ZH)
    conversation = _block(page, "review-conversation")
    # the event keeps the turns the memory is about, at their place in the conversation
    assert "来源对话" in conversation and "助手 #1" in conversation
    assert "每天上调出价20%" in conversation


def test_sampled_audit_of_a_write_names_the_memory_and_warns_when_it_changed(
    reviewer_client, operator, trigger, set_audit_rate, django_capture_on_commit_callbacks
):
    set_audit_rate(1.0)
    decision = trigger(
        "user_feedback",
        advertiser="brand_A",
        source="user",
        layer="L2",
        business_line="美妆",
        summary="brand_A 美妆新品期短视频素材 CTR 比图文高30%，继续加投短视频",
        actor="token:ops-agent",
        data={"attitude": "确认有效", "correct_action": "加投短视频素材", "conditions": "美妆新品期"},
    )
    assert decision.action == "WRITE", decision.reasons
    item = ReviewItem.objects.get(kind="sampled_audit", event_id=decision.event_id)
    page = _page(reviewer_client, item, **ZH)
    assert f"确认后：自动“写入” #{decision.memory_id} 判定正确，记忆保持不变" in _block(page, "consequence-confirm")
    assert f"推翻后：归档 #{decision.memory_id}" in _block(page, "consequence-overturn")
    assert 'id="review-changed"' not in page and 'id="auto-verdict"' not in page

    # someone edits the audited memory a minute later: the audit now judges an old version
    memory = Memory.objects.get(pk=decision.memory_id)
    with django_capture_on_commit_callbacks(execute=True):
        newer = memory_admin_edit(
            memory=memory, user=operator, changes={"content": memory.content + "（仅限新品首发期）"}, note="补充适用范围"
        )
    changed = _block(_page(reviewer_client, item, **ZH), "review-changed")
    assert f"记忆 #{memory.pk} 在此审核项创建后已变化" in changed and f"#{newer.pk}" in changed


def test_queue_has_reason_and_conflict_target_columns(reviewer_client, queue):
    page = reviewer_client.get(reverse("admin:governance_reviewitem_changelist"), ZH_QUERY, **ZH).content.decode()
    header = _text(page[page.index("<thead>") : page.index("</thead>")])
    assert "原因" in header and "冲突对象" in header
    row = _text(page[page.index(f'value="{queue["conflict"].pk}"') :].split("</tr>")[0])
    assert f"与记忆 #{queue['memory'].pk} 矛盾" in row and f"#{queue['memory'].pk} · v1" in row


def test_event_list_shows_input_reason_and_the_kind_of_ingest(reviewer_client, ingest, no_sampled_audit):
    ingest(
        None,
        messages=[{"role": "user", "content": "brand_B 口红新品以后只投女性人群，男性人群不要投"}],
        advertiser="brand_B",
        actor="token:ops-agent",
    )
    ingest("brand_B 美妆大促期间预算上调20%，ROI 保持在3.0以上", advertiser="brand_B", actor="token:ops-agent")
    page = reviewer_client.get(reverse("admin:governance_memoryevent_changelist"), **ZH).content.decode()
    text = _text(page)
    assert "输入" in text and "原因" in text
    assert "摄入（对话消息）" in text and "摄入（自由文本）" in text
    assert "只投女性人群" in text and "ROI 保持在3.0以上" in text


def test_memory_page_reads_first_and_shows_each_version_with_its_approver(
    reviewer_client, second_reviewer_client, queue, django_capture_on_commit_callbacks
):
    from .seed import seed_second_conflict

    with django_capture_on_commit_callbacks(execute=True):
        written, parked = seed_second_conflict()
    item = ReviewItem.objects.get(pk=parked.review_item_id)
    second_reviewer_client.post(
        reverse("admin:governance_reviewitem_decide", args=[item.pk]), {"decision": "approve", "note": "新品数据已复核"}
    )
    item.refresh_from_db()
    newest = Memory.objects.get(supersedes_id=written.memory_id)
    url = reverse("admin:memories_memory_change", args=[newest.pk])
    page = reviewer_client.get(url, **ZH).content.decode()
    # read-only, with Edit as an explicit action
    assert 'name="content"' not in page and 'id="edit-memory"' in page and 'name="_save"' not in page
    assert "投放手段" in _block(page, "memory-claim")
    versions = page[page.index('id="version-diff"') :]
    row = versions[versions.index('id="version-2"') :].split("</tr>")[0]
    assert "由 reviewer_wang 批准" in _text(row) and "新品数据已复核" in _text(row)
    assert re.search(r'<del class="lingix-del">[^<]*2\.6[^<]*</del>', row) and re.search(r'<ins class="lingix-ins">[^<]*1\.7', row)
    editing = reviewer_client.get(f"{url}?edit=1", **ZH).content.decode()
    assert 'name="content"' in editing and 'name="edit_note"' in editing and 'id="editing-notice"' in editing


def test_demo_leaves_an_open_item_of_each_kind(demo, reviewer_client):
    opened = demo["review_items"]
    assert {kind: len(ids) for kind, ids in opened.items()} == {"conflict": 1, "sampled_audit": 1, "consolidation": 1, "promotion": 1}
    items = {kind: ReviewItem.objects.get(pk=ids[0]) for kind, ids in opened.items()}
    assert all(item.status == "open" for item in items.values())
    expected = {
        "conflict": f"批准后：写入 #{CONFLICT_TARGET} 的第 2 版并关闭 #{CONFLICT_TARGET} · L2 · brand_A",
        "promotion": "批准后：写入 L4 模板，来源 #9 · L4 · brand_A",
        "consolidation": "批准后：写入一条语义记忆，归纳自 3 条情景记忆（#36、#44、#45） · L2 · brand_B",
        "sampled_audit": "确认后：自动“驳回”",
    }
    for kind, item in items.items():
        page = _page(reviewer_client, item, **ZH)
        assert expected[kind] in _text(page[page.index('id="review-consequence"') :]), kind
    conflict = _page(reviewer_client, items["conflict"], **ZH)
    assert "来源对话" in conflict and 'id="claim-diff"' in conflict
    # the dashboard's way in counts them
    assert ReviewItem.objects.filter(status="open").count() == 4
    # a second seed-demo adds nothing
    assert demo_load_once()["loaded"] is False and ReviewItem.objects.count() == 4


def test_consequences_follow_what_approval_does(operator, demo):
    """The promised outcome is the one the review service produces."""
    from governance.review.services import review_approve

    for kind in ("promotion", "consolidation", "conflict"):
        item = ReviewItem.objects.get(pk=demo["review_items"][kind][0])
        with translation.override("en"):
            promised = review_consequences(item)[0].text
        decision = review_approve(item=item, reviewer=operator, reviewer_name=operator.get_username(), note="演示复核")
        written = Memory.objects.get(pk=decision.memory_id)
        assert f"· {written.layer} · {written.advertiser}" in promised, (kind, promised)
        if written.supersedes_id:
            assert f"writes version {written.version} of #{written.supersedes_id}" in promised
        else:
            assert "version" not in promised
