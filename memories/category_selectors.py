"""Reads of the category trees: a node's subtree, the nodes a path names inside a
caller's scope, and the tree itself with counts and summaries."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import Q

from memories.models import PATH_SEPARATOR, Category

_SPLIT = re.compile(r"\s*(?:›|>|/|»)\s*")


def normalise_path(raw: str) -> str:
    """ "医药OTC/冷启动", "医药OTC > 冷启动" and "医药OTC › 冷启动" name the same node."""
    return PATH_SEPARATOR.join(part for part in _SPLIT.split(raw.strip()) if part)


def subtree_q(node: Category, prefix: str = "category_node__") -> Q:
    """Rows (memories with prefix "category_node__", nodes with "") in `node`'s subtree."""
    scope = Q(**{f"{prefix}advertiser": node.advertiser}) if node.advertiser is not None else Q(**{f"{prefix}advertiser__isnull": True})
    return scope & (Q(**{f"{prefix}path": node.path}) | Q(**{f"{prefix}path__startswith": node.path + PATH_SEPARATOR}))


def _scope_q(advertisers: tuple[str, ...] | None, include_global: bool = True) -> Q:
    if advertisers is None:
        return Q()
    scoped = Q(advertiser__in=advertisers)
    return scoped | Q(advertiser__isnull=True) if include_global else scoped


def category_ids_for_path(*, path: str, advertisers: tuple[str, ...] | None) -> tuple[int, ...]:
    """Every node at `path` or under it, in the caller's trees (their advertisers and the
    global tree). An unknown path gives no ids, so the search finds nothing."""
    wanted = normalise_path(path)
    if not wanted:
        return ()
    nodes = Category.objects.filter(_scope_q(advertisers)).filter(Q(path=wanted) | Q(path__startswith=wanted + PATH_SEPARATOR))
    return tuple(nodes.values_list("id", flat=True))


def category_tree(*, advertisers: tuple[str, ...] | None, include_global: bool = True) -> list[dict[str, Any]]:
    """The trees in scope, one entry per tree (global first), nodes nested by path."""
    nodes = list(Category.objects.filter(_scope_q(advertisers, include_global)).order_by("advertiser", "path"))
    by_id: dict[int, dict[str, Any]] = {}
    trees: dict[str | None, list[dict[str, Any]]] = {}
    for node in sorted(nodes, key=lambda n: (n.depth, n.path)):
        entry = {
            "id": node.pk,
            "name": node.name,
            "path": node.path,
            "depth": node.depth,
            "memory_count": node.memory_count,
            "episodic_count": node.episodic_count,
            "semantic_count": node.semantic_count,
            "summary": node.summary,
            "updated_at": node.updated_at.isoformat() if node.updated_at else None,
            "children": [],
        }
        by_id[node.pk] = entry
        parent = by_id.get(node.parent_id) if node.parent_id else None
        if parent is not None:
            parent["children"].append(entry)
        else:
            trees.setdefault(node.advertiser, []).append(entry)
    order = sorted(trees, key=lambda a: (a is not None, a or ""))
    return [{"advertiser": a, "scope": a or "global", "categories": trees[a]} for a in order]
