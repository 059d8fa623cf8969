"""The review desk as a new ad-ops reviewer meets it, in a real Chromium at 1,440 × 900, once
in Chinese and once in English: a dashboard that leads into the queue, lists that fit the
screen, the next-item flow that keeps its filter, a success message naming what changed,
sampled-audit verdicts that say what they do (overturning an automatic REJECT writes the
memory), and the event timeline in the reader's language with readable fields.
Screenshots land in test-artifacts/ (git-ignored)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from governance.models import LayerPolicy, MemoryEvent, ReviewItem, Trace
from memories.models import Memory
from tests.conftest import staff_user

from .conftest import BROWSER_MARKS, VIEWPORT, chromium_tab, import_demo, log_in, screenshot
from .seed import UPDATE_B, seed_queue, seed_second_conflict

PASSWORD = "晨检-review-2026"
REFUSED = "brand_B 医药OTC 每周一上午信息流点击率偏高"

# English that must not be left on a Chinese page: stored codes, stage verdicts, reason phrases, reprs.
ENGLISH_LEFT = re.compile(
    r"\b(PASS|REJECT|WRITE|UPDATE|PENDING_REVIEW|SAMPLED|active|superseded|sampled_audit|pending_write|user_stated|user_feedback|"
    r"periodic_pattern|attribution|criterion|criteria|confidence|contradicts|compatible|duplicate|approved by|rejected by|"
    r"no credentials|importance \d)\b"
)
REPR = re.compile(r"\[\"|\[\'|\{\'|\{\"|\[\(|\bTrue\b|\bFalse\b|\bNone\b")

LOCALES = {
    "zh": {
        "locale": "zh-CN",
        "start": "开始审核",
        "next": "下一项",
        "supersedes": "取代",
        "confirm": "确认自动决策",
        "overturn_write": "推翻并写入",
        "overturn_keep": "推翻，但保持拒绝",
        "written": "已写入 L2",
        "zone": "时间时区",
    },
    "en": {
        "locale": "en-US",
        "start": "Start reviewing",
        "next": "Next item",
        "supersedes": "supersedes",
        "confirm": "Confirm the automatic decision",
        "overturn_write": "Overturn and write",
        "overturn_keep": "Overturn, keep refused",
        "written": "written to L2",
        "zone": "Times in",
    },
}

pytestmark = BROWSER_MARKS


def _audited_refusal():
    """A weekly pattern seen once: the value stage refuses it, and the L2 policy samples it for audit."""
    from governance.intake.services import event_trigger

    LayerPolicy.objects.update(sampled_audit_rate=1.0)
    decision = event_trigger(
        event_type="periodic_pattern",
        advertiser="brand_B",
        source="user",
        layer="L2",
        business_line="医药OTC",
        summary=REFUSED,
        actor="token:ops-agent",
        data={"period": "weekly"},
    )
    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    assert decision.action == "REJECT", decision.reasons
    return ReviewItem.objects.get(event_id=decision.event_id, kind="sampled_audit")


@pytest.fixture
def desk(transactional_db, django_user_model):
    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    import_demo("demo-desk", embed=True)
    written, conflict, parked = seed_queue()
    written_b, update_b = seed_second_conflict()
    audit = _audited_refusal()
    staff_user(django_user_model, "reviewer_li", "reviewer", password=PASSWORD)
    return {
        "conflict": ReviewItem.objects.get(pk=conflict.review_item_id),
        "parked": ReviewItem.objects.get(pk=parked.review_item_id),
        "update": ReviewItem.objects.get(pk=update_b.review_item_id),
        "older_b": written_b.memory_id,
        "audit": audit,
    }


@pytest.fixture(params=["zh", "en"])
def lang(request):
    return request.param


@pytest.fixture
def page(live_server, desk, lang):
    with chromium_tab(locale=LOCALES[lang]["locale"]) as tab:
        yield tab


def _shot(page, name: str, lang: str, *, full_page: bool = False) -> Path:
    path = screenshot(page, f"desk-{name}-{lang}.png", full_page=full_page)
    assert path.stat().st_size > 10_000
    return path


def _fits_the_screen(page) -> None:
    """No horizontal scrolling at 1,440 px, and every column header inside the window."""
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    results = page.locator("#changelist .results")
    assert results.evaluate("r => r.scrollWidth <= r.clientWidth"), results.evaluate("r => [r.scrollWidth, r.clientWidth]")
    for box in [h.bounding_box() for h in page.locator("#result_list thead th").all()]:
        assert box is not None and box["x"] + box["width"] <= VIEWPORT["width"], box


def _rows_are_short(page, *, max_px: int = 80) -> None:
    """Content is clamped: no row is taller than about two lines of text plus padding."""
    heights = page.evaluate("[...document.querySelectorAll('#result_list tbody tr')].map(r => r.getBoundingClientRect().height)")
    assert heights and max(heights) <= max_px, heights


def _no_english_left(text: str) -> None:
    assert not ENGLISH_LEFT.search(text), ENGLISH_LEFT.search(text).group(0) + " in: " + text[:2000]
    assert not REPR.search(text), text[max(0, REPR.search(text).start() - 300) : REPR.search(text).end() + 200]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_review_desk(page, live_server, desk, lang):
    base, words = live_server.url, LOCALES[lang]
    update, audit = desk["update"], desk["audit"]

    # The dashboard leads: full width, the queue, its age and a way in at the top.
    log_in(page, base, "reviewer_li", PASSWORD)
    page.wait_for_selector("#review-hero")
    _shot(page, "dashboard", lang)
    hero = page.locator("#review-hero")
    assert hero.bounding_box()["width"] >= 1300
    assert int(page.inner_text("#hero-open")) == ReviewItem.objects.filter(status="open").count() >= 4
    assert page.inner_text("#hero-oldest").strip()
    assert words["start"] in page.inner_text("#start-reviewing")
    assert words["zone"] in page.inner_text("#time-zone-label") and "Asia/Shanghai (UTC+08:00)" in page.inner_text("#time-zone-label")
    assert page.locator("#lingix-dashboard").bounding_box()["width"] >= 1300
    _shot(page, "dashboard", lang)
    if lang == "zh":
        _no_english_left(page.inner_text("#review-hero") + page.inner_text("#chart-layers") + page.inner_text("#chart-queue"))

    # The memory list fits the screen, two lines per memory at most, the full text on hover.
    page.goto(f"{base}/admin/memories/memory/")
    page.wait_for_selector("#result_list")
    _fits_the_screen(page)
    _rows_are_short(page)
    first = page.locator("#result_list .lingix-clamp").first
    assert first.get_attribute("title") and first.get_attribute("title") == first.text_content()
    assert page.evaluate("document.documentElement.scrollHeight") < 4000
    _shot(page, "memory-list", lang)
    if lang == "zh":
        _no_english_left(page.inner_text("#result_list tbody"))

    # Start reviewing: the oldest open item, with the "open" filter carried along.
    page.goto(f"{base}/admin/")
    page.click("#start-reviewing")
    page.wait_for_selector("#review-detail")
    assert "_changelist_filters=status__exact" in page.url
    oldest = ReviewItem.objects.filter(status="open").order_by("created_at", "id").first()
    assert f"/reviewitem/{oldest.pk}/change/" in page.url

    # "Next item" walks the filtered queue until the lipstick update.
    seen = {oldest.pk}
    while f"/reviewitem/{update.pk}/change/" not in page.url:
        assert words["next"] in page.inner_text("#next-item")
        page.click("#next-item")
        page.wait_for_selector("#review-detail")
        current = int(re.search(r"/reviewitem/(\d+)/change/", page.url).group(1))
        assert current not in seen and ReviewItem.objects.get(pk=current).status == "open"
        seen.add(current)
        assert "_changelist_filters=status__exact" in page.url
    _shot(page, "review-item", lang, full_page=True)
    if lang == "zh":
        _no_english_left(page.inner_text("#review-why") + page.inner_text("#review-candidate h3"))

    # Approve: back on the list with the filter kept, and the message says what changed.
    page.fill("#id_note", "新品数据已复核，以最新结果为准")
    page.click("#approve-button")
    page.wait_for_selector(".messagelist .success")
    assert "status__exact=open" in page.url and "/reviewitem/" in page.url and "/change/" not in page.url
    update.refresh_from_db()
    new = Memory.objects.get(pk=update.event.memory_id)
    assert new.supersedes_id == desk["older_b"] and new.content == UPDATE_B
    message = page.inner_text(".messagelist .success")
    assert f"#{new.pk} {words['supersedes']} #{desk['older_b']}" in message, message
    assert page.locator("#message-next-item").count() == 1
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == ReviewItem.objects.filter(status="open").count()
    _fits_the_screen(page)
    _rows_are_short(page, max_px=90)
    _shot(page, "queue", lang)
    if lang == "zh":
        _no_english_left(page.inner_text("#result_list tbody"))

    # A sampled audit of an automatic REJECT: three verdicts, each saying what it does.
    page.goto(f"{base}/admin/governance/reviewitem/{audit.pk}/change/?_changelist_filters=status__exact%3Dopen")
    page.wait_for_selector("#decide-form")
    verdicts = page.inner_text("#decide-form")
    for label in (words["confirm"], words["overturn_write"], words["overturn_keep"]):
        assert label in verdicts
    assert page.locator("#approve-button").count() == 0 and page.locator("#reject-button").count() == 0
    _shot(page, "audit-item", lang, full_page=True)
    if lang == "zh":
        _no_english_left(page.inner_text("#review-candidate"))

    # Overturn and write: the refused memory is written, with the reviewer in its trace.
    page.fill("#id_note", "周一上午点击率偏高已连续出现，值得记录")
    page.click("#overturn_write-button")
    page.wait_for_selector(".messagelist .success")
    audit.refresh_from_db()
    written = Memory.objects.get(content=REFUSED)
    assert (audit.status, audit.decision_correct, audit.memory_id) == ("approved", False, written.pk)
    assert f"#{written.pk} {words['written']}" in page.inner_text(".messagelist .success")
    review_trace = Trace.objects.get(event_id=audit.event_id, stage="review")
    assert review_trace.scores["reviewer"] == "reviewer_li"

    # The event's timeline: stage names, verdicts and reasons in the reader's language, fields not reprs.
    page.goto(f"{base}/admin/governance/memoryevent/{audit.event_id}/change/")
    page.wait_for_selector("#stage-timeline")
    for details in page.locator("details.lingix-scores").all():
        details.evaluate("d => d.open = true")
    timeline = page.inner_text("#stage-timeline")
    assert "reviewer_li" in timeline and f"#{written.pk}" in timeline
    assert not REPR.search(timeline), timeline[max(0, REPR.search(timeline).start() - 300) : REPR.search(timeline).end() + 200]
    if lang == "zh":
        _no_english_left(timeline + page.inner_text("fieldset:has(.field-reasons_shown)"))
        assert "人工审核" in timeline and "周期规律" in timeline
    else:
        assert "human review" in timeline and "overturned by reviewer reviewer_li" in timeline
    _shot(page, "event-timeline", lang, full_page=True)

    # The written memory's page: its data as labelled fields, its source event linked.
    page.goto(f"{base}/admin/memories/memory/{written.pk}/change/")
    page.wait_for_selector(".lingix-source-event")
    data = page.inner_text(".field-data_shown")
    assert "weekly" in data and not REPR.search(data)
    _shot(page, "memory-detail", lang, full_page=True)
    assert MemoryEvent.objects.get(pk=audit.event_id).action == "WRITE"
