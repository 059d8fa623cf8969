"""The category trees in a real Chromium, in Chinese: collapsed on arrival, a reviewer opens
them level by level, sees each advertiser's tree beside the global one with counts and the
abstracts filed at each node (each once), and follows a node to its memories. Screenshots land in test-artifacts/organise_categories_zh.png and
organise_category_memories_zh.png."""

from __future__ import annotations

import pytest

from tests.conftest import staff_user
from tests.desk.conftest import BROWSER_MARKS, chromium_tab, import_demo, log_in, screenshot

PASSWORD = "类目-review-2026"

pytestmark = BROWSER_MARKS


@pytest.fixture
def demo_reviewer(transactional_db, django_user_model):
    import_demo("demo-categories", embed=False)
    return staff_user(django_user_model, "reviewer_li", "reviewer", password=PASSWORD)


@pytest.fixture
def page(live_server, demo_reviewer):
    with chromium_tab() as tab:
        yield tab


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_category_trees_in_the_admin(page, live_server):
    from memories.models import Category, Memory

    # Every demo memory was organised on its way in.
    assert not Memory.objects.filter(kind="").exists()
    assert not Memory.objects.filter(category_node__isnull=True).exists()
    assert not Memory.objects.filter(abstract_line="").exists()

    base = live_server.url
    log_in(page, base, "reviewer_li", PASSWORD, then="/admin/memories/category/")
    page.wait_for_selector("#category-tree")
    # Collapsed on arrival: one line per tree (each advertiser's and the global one).
    roots = page.locator("#category-tree > details")
    assert roots.count() == Category.objects.filter(parent__isnull=True).count()
    assert page.locator("#category-tree details[open]").count() == 0
    first_lines = page.locator("#category-tree > details > summary").all_inner_texts()
    assert any("医药OTC" in line and "brand_A" in line for line in first_lines)
    assert any("全局" in line for line in first_lines)
    screenshot(page, "organise_categories_zh.png")

    # The example of the issue: brand_A's 医药OTC › 冷启动 › 出价, opened level by level, with
    # its count and the abstracts of the memories filed there.
    cold_start = Category.objects.get(advertiser="brand_A", path="医药OTC › 冷启动 › 出价")
    assert cold_start.memory_count >= 1 and cold_start.parent.parent.path == "医药OTC"
    for node in (cold_start.parent.parent, cold_start.parent, cold_start):
        page.click(f'details[data-category="{node.pk}"] > summary')
    leaf = page.locator(f'details[data-category="{cold_start.pk}"]')
    assert leaf.evaluate("d => d.open")
    assert "条有效记忆" in leaf.locator("summary").inner_text()
    assert "医药OTC冷启动" in leaf.locator(".points").first.inner_text()
    # Each abstract once in the whole tree: a parent does not repeat its children's.
    page.evaluate("document.querySelectorAll('#category-tree details').forEach(d => d.open = true)")
    points = page.locator("#category-tree .points li").all_inner_texts()
    assert points and len(points) == len(set(points))

    # brand_A's tree only, then one node's memories: the memory desk filters to its subtree.
    page.goto(f"{base}/admin/memories/category/?advertiser=brand_A")
    page.wait_for_selector("#category-tree")
    scoped = page.locator("#category-tree > details").all()
    assert scoped and all(d.get_attribute("data-category") for d in scoped)
    assert {Category.objects.get(pk=int(d.get_attribute("data-category"))).advertiser for d in scoped} == {"brand_A"}
    node = Category.objects.get(advertiser="brand_A", path="医药OTC")
    page.click(f'details[data-category="{node.pk}"] > summary a[href*="category={node.pk}"]')
    page.wait_for_selector("#result_list")
    listed = page.locator("#result_list tbody tr").all_inner_texts()
    expected = Memory.objects.filter(category_node__advertiser="brand_A", category_node__path__startswith="医药OTC").count()
    assert len(listed) == expected == node.memory_count
    assert all(("语义" in r or "情景" in r) for r in listed)
    screenshot(page, "organise_category_memories_zh.png")
