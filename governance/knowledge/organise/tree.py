"""The category trees: one per advertiser plus the global one. Nodes are created on
first use; each node's counts and summary cover it and everything under it and are
recomputed whenever a governed write or status change touches a memory inside it."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from functools import reduce

from django.db.models import Count
from django.utils import timezone

from memories.category_selectors import subtree_q
from memories.constants import MemoryKind, Status
from memories.models import PATH_SEPARATOR, Category, Memory

SUMMARY_POINTS = 3
SUMMARY_CHARS = 400


def category_node_for(*, advertiser: str | None, path: list[str], cache: dict[tuple, Category] | None = None) -> Category:
    """The node at `path` in the advertiser's tree (global when None), created with its
    ancestors if missing. A bulk caller (an import) passes a `cache` it keeps for the
    length of its transaction."""
    key = (advertiser, tuple(path))
    if cache is not None and key in cache:
        return cache[key]
    parent = None
    for depth in range(len(path)):
        full = PATH_SEPARATOR.join(path[: depth + 1])
        node = (
            Category.objects.filter(advertiser=advertiser, path=full).first()
            if advertiser is not None
            else Category.objects.filter(advertiser__isnull=True, path=full).first()
        )
        if node is None:
            node = Category.objects.create(advertiser=advertiser, name=path[depth][:64], path=full[:255], parent=parent, depth=depth)
        parent = node
    assert parent is not None
    if cache is not None:
        cache[key] = parent
    return parent


def category_subtree_ids(node: Category) -> list[int]:
    return list(Category.objects.filter(subtree_q(node, prefix="")).values_list("id", flat=True))


def _summary(node: Category, active: Iterable[Memory], counts: dict[str, int], total: int) -> str:
    if not total:
        return "暂无有效记忆。"
    head = f"{total} 条有效记忆（语义 {counts.get(MemoryKind.SEMANTIC, 0)} · 情景 {counts.get(MemoryKind.EPISODIC, 0)}）。"
    points = [m.abstract_line or m.content[:60] for m in active]
    body = "要点：" + "；".join(points) if points else ""
    text = head + body
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


# Semantic knowledge first (what holds), then the most important, then the newest; the id
# settles rows imported in one instant, so the summary does not change between refreshes.
SUMMARY_ORDER = ("-kind", "-importance", "-created_at", "-id")


def _rank(m: Memory) -> tuple[str, float, object, int]:
    return (m.kind, m.importance, m.created_at, m.pk)


def category_refresh(node_ids: Iterable[int]) -> int:
    """Recompute counts and summary of these nodes and all their ancestors.

    It runs in every governed write, under the write lock, so it reads each node's own
    memories through the (category_node, status, kind, importance, created_at) index and adds
    the subtrees up here: one counting query over the index, and one seek of the top points per
    node, instead of matching every memory of the vertical by path once per level."""
    todo: dict[int, Category] = {}
    for node in Category.objects.filter(pk__in=set(node_ids)).select_related("parent", "parent__parent"):
        current: Category | None = node
        while current is not None and current.pk not in todo:
            todo[current.pk] = current
            current = current.parent
    if not todo:
        return 0
    roots = [node for node in todo.values() if node.parent_id is None]
    under = Category.objects.filter(reduce(operator.or_, (subtree_q(root, prefix="") for root in roots))).only("id", "path", "advertiser")
    nodes = list(under)
    counts: dict[int, dict[str, int]] = {}
    for row in (
        Memory.objects.filter(category_node__in=[n.pk for n in nodes], status=Status.ACTIVE)
        .values("category_node", "kind")
        .annotate(n=Count("id"))
    ):
        counts.setdefault(row["category_node"], {})[row["kind"]] = row["n"]
    tops: dict[int, list[Memory]] = {}
    for n in nodes:
        if counts.get(n.pk):
            own = Memory.objects.filter(category_node=n.pk, status=Status.ACTIVE).order_by(*SUMMARY_ORDER)
            tops[n.pk] = list(own.only("kind", "importance", "created_at", "abstract_line", "content")[:SUMMARY_POINTS])
    for node in todo.values():
        members = [
            n.pk
            for n in nodes
            if n.advertiser == node.advertiser and (n.path == node.path or n.path.startswith(node.path + PATH_SEPARATOR))
        ]
        by_kind: dict[str, int] = {}
        for pk in members:
            for kind, count in counts.get(pk, {}).items():
                by_kind[kind] = by_kind.get(kind, 0) + count
        total = sum(by_kind.values())
        top = sorted((m for pk in members for m in tops.get(pk, [])), key=_rank, reverse=True)[:SUMMARY_POINTS]
        Category.objects.filter(pk=node.pk).update(
            memory_count=total,
            episodic_count=by_kind.get(MemoryKind.EPISODIC, 0),
            semantic_count=by_kind.get(MemoryKind.SEMANTIC, 0),
            summary=_summary(node, top, by_kind, total),
            updated_at=timezone.now(),
        )
    return len(todo)


def memories_refresh_categories(memory_ids: Iterable[int]) -> int:
    nodes = Memory.objects.filter(pk__in=list(memory_ids), category_node__isnull=False).values_list("category_node_id", flat=True)
    return category_refresh(set(nodes))
