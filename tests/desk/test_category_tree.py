"""The category page's tree, read without a browser: each node lists its own most important
active memories, a handful at most, each as its abstract or the start of its text."""

from __future__ import annotations

import pytest

from desk.admin.categories import POINTS_PER_NODE, category_tree
from memories.constants import Status
from memories.models import Category
from memories.storage import memory_create


@pytest.mark.django_db
def test_each_node_shows_its_most_important_active_memories():
    root = Category.objects.create(advertiser="brand_A", name="医药OTC", path="医药OTC", depth=0)
    leaf = Category.objects.create(advertiser="brand_A", name="出价", path="医药OTC › 出价", parent=root, depth=1)
    long_text = "冷启动期出价先设 2.2 元，ROI 稳定后逐步下调；" * 10
    for n in range(POINTS_PER_NODE + 3):
        memory_create(
            layer="L2",
            content=f"{n}号规则 {long_text}",
            advertiser="brand_A",
            importance=float(n),
            embed=False,
            category_node=leaf,
        )
    memory_create(
        layer="L2",
        content="已归档 archived rule",
        advertiser="brand_A",
        importance=10.0,
        embed=False,
        category_node=leaf,
        status=Status.ARCHIVED,
    )
    memory_create(layer="L2", content="x", advertiser="brand_A", embed=False, category_node=root, abstract_line="根节点摘要 root abstract")

    (tree,) = category_tree([root, leaf])

    assert tree.category == root and tree.points == ["根节点摘要 root abstract"]
    (child,) = tree.children
    # The highest importance first, only POINTS_PER_NODE of them, the archived one left out,
    # and a long text cut to its start.
    assert [p.split("号")[0] for p in child.points] == [str(n) for n in range(POINTS_PER_NODE + 2, 2, -1)]
    assert all(len(p) == 60 for p in child.points)
    assert f"category={leaf.pk}" in child.memories_url
