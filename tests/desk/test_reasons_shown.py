"""The desk shows reasons in the reader's language from their codes (the funnel's, a
reviewer's), audit event types by their labels, and a row from before codes as stored."""

import html
import re

import pytest
from django.urls import reverse
from django.utils import translation

from desk.admin.reasons import reason_shown
from governance.models import AuditLog, MemoryEvent, ReviewItem, Trace
from governance.reasons import review_item_reasons, row_reasons
from textrules.reasons import ReasonCode

from .seed import seed_queue

# Numbers a reviewer cannot use: evidence strengths, negation counts, cosines, confidences.
SCORES = re.compile(r"≤|cosine|negations|新证据不更强（|否定词数|检索得分|confidence \d|置信度 ?\d")


@pytest.fixture
def queue(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        written, conflict, parked = seed_queue()
    return written, ReviewItem.objects.get(pk=conflict.review_item_id), ReviewItem.objects.get(pk=parked.review_item_id)


def _page(client, url, language):
    # Quoted words (a note, a quote) are marked as data inside the sentence; read them as text.
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    return html.unescape(re.sub(r"<span data-user-data>(.*?)</span>", r"\1", page))


def _shown(reasons, language):
    with translation.override(language):
        return [reason_shown(r) for r in reasons]


def test_a_parked_items_reasons_are_shown_from_their_codes_in_both_languages(reviewer_client, queue):
    _, conflict, parked = queue
    for item in (conflict, parked):
        reasons = review_item_reasons(item)
        assert reasons and all(r.code != ReasonCode.TEXT for r in reasons), item.reason
        url = reverse("admin:governance_reviewitem_change", args=[item.pk])
        zh, en = _page(reviewer_client, url, "zh-hans"), _page(reviewer_client, url, "en")
        for line in _shown(reasons, "zh-hans"):
            assert line in zh and re.search(r"[\u4e00-\u9fff]", line), line
        for line in _shown(reasons, "en"):
            assert line in en, line
        assert not SCORES.search(zh) and not SCORES.search(en)
    # The L1 rule an agent relayed: the source is a label in Chinese, not the stored code.
    (why,) = _shown(review_item_reasons(parked)[:1], "zh-hans")
    assert why.startswith("L1 只接受权威来源") and "tool" not in why


def test_the_event_timeline_shows_each_stages_reasons_in_the_readers_language(reviewer_client, queue):
    written, _, _ = queue
    event = MemoryEvent.objects.get(pk=written.event_id)
    url = reverse("admin:governance_memoryevent_change", args=[event.pk])
    zh, en = _page(reviewer_client, url, "zh-hans"), _page(reviewer_client, url, "en")
    assert "未发现凭据" in zh and "no credentials found" not in zh
    assert "no credentials found" in en
    for trace in event.traces.all():
        for line in _shown(row_reasons(trace), "zh-hans"):
            assert line in zh, (trace.stage, line)


def test_a_row_from_before_codes_shows_its_stored_sentence(reviewer_client, db):
    event = MemoryEvent.objects.create(kind="ingest", raw_text="旧记录", action="REJECT", reasons=["legacy reason with cosine 0.93"])
    Trace.objects.create(event=event, stage="conflict", decision="REJECT", reasons=["legacy reason with cosine 0.93"])
    url = reverse("admin:governance_memoryevent_change", args=[event.pk])
    assert "legacy reason with cosine 0.93" in _page(reviewer_client, url, "zh-hans")


def test_a_reviewers_rejection_and_its_audit_row_read_in_chinese(reviewer_client, queue):
    _, conflict, _ = queue
    reviewer_client.post(
        reverse("admin:governance_reviewitem_decide", args=[conflict.pk]),
        {"decision": "reject", "note": "证据不足，保持原结论"},
        follow=True,
    )
    trace = Trace.objects.filter(event_id=conflict.event_id, stage="review").get()
    assert [r.code for r in row_reasons(trace)] == [ReasonCode.REJECTED, ReasonCode.NOTE]
    url = reverse("admin:governance_memoryevent_change", args=[conflict.event_id])
    zh = _page(reviewer_client, url, "zh-hans")
    assert "已拒绝" in zh and "备注：证据不足，保持原结论" in zh
    assert AuditLog.objects.filter(event_type="review.rejected").exists()
    # Visible text only: the filter links keep the code in their address.
    audit = re.sub(r"<[^>]+>", " ", _page(reviewer_client, reverse("admin:governance_auditlog_changelist"), "zh-hans"))
    assert "审核项已拒绝" in audit and "review.rejected" not in audit
    assert "review item rejected" in _page(reviewer_client, reverse("admin:governance_auditlog_changelist"), "en")


def test_a_conflicts_reason_names_the_lever_in_words(reviewer_client, django_capture_on_commit_callbacks):
    from lingix_site.demo import demo_load_once

    with django_capture_on_commit_callbacks(execute=True):
        report = demo_load_once()
    [conflict_id] = report["review_items"]["conflict"]
    url = reverse("admin:governance_reviewitem_change", args=[conflict_id])
    why = re.sub(r"<[^>]+>", " ", _page(reviewer_client, url, "zh-hans"))
    # The demo's correction of #10: the evening conversion rate, 35% → 5%, not "cvr 35% → cvr 5%".
    assert "转化率 35% → 转化率 5%" in why and "cvr" not in why.lower()
    english = re.sub(r"<[^>]+>", " ", _page(reviewer_client, url, "en"))
    assert "conversion rate 35% → conversion rate 5%" in english and "cvr" not in english.lower()
