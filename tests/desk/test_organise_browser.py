"""The organised view in a real Chromium, as a reviewer: the dashboard panel shows the
playbooks a 双11 signal surfaced, and an entity's page lists the memories linked to it.
Screenshots land in test-artifacts/ (git-ignored)."""

from __future__ import annotations

import pytest

from tests.conftest import staff_user
from tests.desk.conftest import BROWSER_MARKS, chromium_tab, import_demo, log_in, screenshot

PASSWORD = "整理-review-2026"

pytestmark = BROWSER_MARKS


@pytest.fixture
def organised(transactional_db, django_user_model, django_capture_on_commit_callbacks):
    from governance.intake.services import event_trigger

    import_demo("demo-organise", embed=True)
    with django_capture_on_commit_callbacks(execute=True):
        decision = event_trigger(
            event_type="environment_change",
            advertiser="brand_B",
            source="tool",
            summary="双11预热期开始，美妆类目抖音信息流CPM较上周上涨30%，需要调整出价节奏",
            data={
                "event": "双11预热",
                "category": "美妆",
                "signal": "CPM上涨30%",
                "impact": "出价节奏按大促模板调整",
                "time_window": "2026-11-01 至 2026-11-11",
            },
        )
    assert decision.action == "WRITE", decision.reasons
    staff_user(django_user_model, "reviewer_zhou", "reviewer", password=PASSWORD)
    return decision


@pytest.fixture
def page(live_server, organised):
    with chromium_tab() as tab:
        yield tab


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_signal_surfaces_playbooks_and_an_entity_lists_its_memories(page, live_server, organised):
    from memories.models import Entity, Memory

    base = live_server.url
    template = Memory.objects.get(layer="L4", content__startswith="大促投放模板")
    log_in(page, base, "reviewer_zhou", PASSWORD)

    # The dashboard panel: the new 双11 signal with the 大促 template first among its templates.
    page.wait_for_selector("#suggestions-panel")
    card = page.locator("#suggestions-panel [data-suggestion]").filter(has_text=f"L3 #{organised.memory_id}")
    assert card.count() == 1
    assert f"L4 #{template.pk}" in card.locator(".playbook-template").first.inner_text()
    page.locator("#suggestions-panel").scroll_into_view_if_needed()
    screenshot(page.locator("#suggestions-panel"), "organise_suggestions_zh.png")

    # The entity list, filtered to events, then the 大促 entity and the memories linked to it.
    page.goto(f"{base}/admin/memories/entity/?kind__exact=event")
    page.wait_for_selector("#result_list")
    promotion = Entity.objects.get(kind="event", name="大促")
    page.click(f"#result_list a[href*='/memories/entity/{promotion.pk}/change/']")
    page.wait_for_selector("#entity-memories")
    listed = page.inner_text("#entity-memories")
    assert f"#{template.pk}" in listed and f"#{organised.memory_id}" in listed
    linked = Memory.objects.filter(entity_links__entity=promotion).count()
    assert page.locator("#entity-memories tr.entity-memory").count() == linked >= 4
    assert "大促" in page.inner_text(".field-relations")
    assert screenshot(page, "organise_entity_zh.png").stat().st_size > 10_000

    # The memory page shows its entity chips, each a link back to the entity.
    page.goto(f"{base}/admin/memories/memory/{template.pk}/change/")
    chips = page.locator(".field-entities .entity-chip")
    assert chips.count() >= 2 and "大促" in page.inner_text(".field-entities")
