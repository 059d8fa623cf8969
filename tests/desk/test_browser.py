"""A reviewer's morning in a real Chromium: log in, work the queue, check the result in
the memory list, in `memory search` and on the dashboard. Screenshots land in
test-artifacts/ (git-ignored)."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

import pytest

from governance.models import ReviewItem
from tests.conftest import staff_user

from .conftest import ARTIFACTS, BROWSER_MARKS, chromium_tab, import_demo, log_in, screenshot
from .seed import CONTRADICTION, PARKED_L1, UPDATE_B, WRITTEN, seed_queue, seed_second_conflict

PASSWORD = "晨检-review-2026"

pytestmark = BROWSER_MARKS


@pytest.fixture
def morning(transactional_db, django_user_model):
    # Background knowledge, so the dashboard and the similarity panel have something to show.
    import_demo("demo-browser", embed=True)
    written, conflict, parked = seed_queue()
    _, update_b = seed_second_conflict()
    staff_user(django_user_model, "reviewer_li", "reviewer", password=PASSWORD)
    return {
        "conflict": ReviewItem.objects.get(pk=conflict.review_item_id),
        "parked": ReviewItem.objects.get(pk=parked.review_item_id),
        "update": ReviewItem.objects.get(pk=update_b.review_item_id),
    }


@pytest.fixture
def page(live_server, morning):
    with chromium_tab(viewport={"width": 1440, "height": 1000}) as tab:
        yield tab


def _kpi(page, name: str) -> int:
    return int(page.inner_text(f"#kpi-{name} b"))


def _memory_search_cli(query: str) -> list[dict]:
    from django.core.management import call_command

    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        call_command("memory", "search", query, "--json", "--top-k", "5")
    assert exit_info.value.code == 0
    return json.loads(out.getvalue())["results"]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_reviewers_morning(page, live_server, morning):
    base = live_server.url
    conflict, parked, update = morning["conflict"], morning["parked"], morning["update"]

    # 1. log in as a reviewer; the dashboard is the admin home, in Chinese, with the offline banner
    log_in(page, base, "reviewer_li", PASSWORD)
    page.wait_for_selector("#lingix-dashboard")
    assert "离线判定引擎" in page.inner_text("#provider-banner")
    active_before, open_before = _kpi(page, "active"), _kpi(page, "open-reviews")
    l1_before = _kpi(page, "L1")
    assert open_before >= 2
    screenshot(page, "admin-dashboard-before.png", full_page=True)

    # 2. open the queue: open items first, oldest first
    page.click("#kpi-open-reviews a")
    page.wait_for_selector("#result_list")
    first_rows = page.locator("#result_list tbody tr").all_inner_texts()
    assert any(PARKED_L1[:12] in row for row in first_rows) and any(CONTRADICTION[:12] in row for row in first_rows)
    # the reason and the conflict target answer without opening the item
    assert "原因" in page.inner_text("#result_list thead") and "冲突对象" in page.inner_text("#result_list thead")
    conflict_row = page.inner_text(f"#result_list tbody tr:has(a[href*='/governance/reviewitem/{conflict.pk}/change/'])")
    target = conflict.related_memory_id
    assert f"与记忆 #{target} 矛盾" in conflict_row and f"#{target} · v1" in conflict_row

    # 3. the relayed compliance rule: a reviewer may read it but not approve it (operators write L1)
    page.click(f"#result_list a[href*='/governance/reviewitem/{parked.pk}/change/']")
    page.wait_for_selector("#review-detail")
    assert PARKED_L1 in page.inner_text("#review-candidate")
    assert page.locator("#approve-button").count() == 0 and page.locator("#reject-button").count() == 1
    assert "operator（运营）" in page.inner_text("#operator-only")
    parked.refresh_from_db()
    assert parked.status == "open"

    # ... the newer lipstick result, parked against the older one: approve it with a note
    page.goto(f"{base}/admin/governance/reviewitem/{update.pk}/change/")
    page.wait_for_selector("#review-detail")
    assert UPDATE_B in page.inner_text("#review-candidate")
    old = update.payload["candidate"]["supersedes"]
    # what approval will do, before the button; nothing was decided automatically, so no verdict to give
    assert f"批准后：写入 #{old} 的第 2 版并关闭 #{old} · L2 · brand_A" in page.inner_text("#consequence-approve")
    assert page.locator("#id_decision_correct").count() == 0
    page.fill("#id_note", "新品数据已复核，以最新结果为准")
    page.click("#approve-button")
    page.wait_for_selector(".messagelist .success")
    update.refresh_from_db()
    assert (update.status, update.reviewer_name, update.note) == ("approved", "reviewer_li", "新品数据已复核，以最新结果为准")

    # 4. the contradiction: its claim beside the claim of the memory it contradicts, the deciding
    # part marked, and a word diff against that memory only
    page.goto(f"{base}/admin/governance/reviewitem/{conflict.pk}/change/")
    page.wait_for_selector("#review-claims")
    claims = page.inner_text("#review-claims")
    assert WRITTEN in claims.replace("\n", "") or "升到2.3" in claims
    assert "矛盾" in page.inner_text("#claim-relation") and page.locator("#claim-value.decisive").count() == 1
    assert page.locator("#claim-diff del.lingix-del").count() >= 1 and page.locator("#claim-diff ins.lingix-ins").count() >= 1
    assert page.locator("#review-similar del.lingix-del").count() == 0
    screenshot(page, "admin-review-detail.png", full_page=True)

    # 5. reject without a note: refused, still open
    page.click("#reject-button")
    page.wait_for_selector(".messagelist .error")
    assert "驳回必须填写备注" in page.inner_text(".messagelist")
    conflict.refresh_from_db()
    assert conflict.status == "open"

    # ... then with a note
    page.fill("#id_note", "与已验证的大促数据矛盾，保留原结论")
    page.click("#reject-button")
    page.wait_for_selector(".messagelist .success")
    conflict.refresh_from_db()
    assert (conflict.status, conflict.reviewer_name) == ("rejected", "reviewer_li")

    # 6. the approved result is in the memory list, as version 2 of its chain ...
    page.goto(f"{base}/admin/memories/memory/?q=口红新品")
    page.wait_for_selector("#result_list")
    rows = page.locator("#result_list tbody tr").all_inner_texts()
    assert any("降到1.7" in row and "L2" in row for row in rows), rows

    # its page links back to the event, whose timeline ends with the reviewer's decision
    page.click("#result_list tbody tr:has-text('降到1.7') a[href*='/memories/memory/']")
    page.wait_for_selector(".lingix-source-event")
    assert "v2" in page.inner_text(".lingix-versions")
    # read-only, with Edit as an explicit action; each version beside the one before, with its approver
    assert page.locator("textarea[name=content]").count() == 0 and page.locator("#edit-memory").count() == 1
    newest = page.inner_text("#version-diff #version-2")
    assert "由 reviewer_li 批准" in newest and "新品数据已复核" in newest
    assert page.locator("#version-2 del.lingix-del").count() >= 1 and page.locator("#version-2 ins.lingix-ins").count() >= 1
    screenshot(page, "admin-memory-detail.png", full_page=True)
    page.click(f".lingix-source-event a[href*='/governance/memoryevent/{update.event_id}/change/']")
    page.wait_for_selector("#stage-timeline")
    timeline = page.inner_text("#stage-timeline")
    # Stage names and verdicts in the reader's language: "→ 待审核", then the reviewer's "人工审核 → 更新".
    assert "→ 待审核" in timeline and "人工审核 → 更新" in timeline and "reviewer_li" in timeline
    screenshot(page, "admin-event-timeline.png", full_page=True)

    # ... and `memory search` finds it in the same database
    results = _memory_search_cli("brand_A 口红新品首发期出价")
    assert results and UPDATE_B in [r["content"] for r in results[:3]]

    # 7. the dashboard moved: the same active count (v2 replaced v1), L1 untouched, two fewer open items
    page.goto(f"{base}/admin/")
    page.wait_for_selector("#lingix-dashboard")
    assert _kpi(page, "active") == active_before
    assert _kpi(page, "L1") == l1_before
    assert _kpi(page, "open-reviews") == open_before - 2
    assert _kpi(page, "decided-today") == 2
    guard = page.inner_text("#guard-metrics")
    assert re.search(r"已处理的待审项\s+2", guard), guard
    screenshot(page, "admin-dashboard-after.png", full_page=True)

    for name in ("admin-dashboard-before.png", "admin-review-detail.png", "admin-event-timeline.png", "admin-dashboard-after.png"):
        assert (ARTIFACTS / name).stat().st_size > 10_000
