"""Organised knowledge: what kind a memory is (episodic or semantic), where it sits in
the category trees, and its three abstracts. The governed write
(governance.write.memory) calls `organise_fields` for every memory it writes; the
backfill (`memory maintain --task organise`) calls it for memories written before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from governance.knowledge.organise.abstracts import Abstracts, make_abstracts
from governance.knowledge.organise.categories import category_path
from governance.knowledge.organise.kinds import KindDecision, decide_kind
from governance.knowledge.organise.tree import category_node_for, category_refresh, category_subtree_ids, memories_refresh_categories
from memories.constants import MemoryKind
from memories.models import Category

__all__ = [
    "Abstracts",
    "KindDecision",
    "Organised",
    "category_node_for",
    "category_path",
    "category_refresh",
    "category_subtree_ids",
    "decide_kind",
    "make_abstracts",
    "memories_refresh_categories",
    "organise_fields",
]


@dataclass(frozen=True)
class Organised:
    kind: KindDecision
    path: list[str]
    node: Category
    abstracts: Abstracts

    def model_fields(self) -> dict[str, Any]:
        return {
            "kind": self.kind.kind,
            "category_node": self.node,
            "abstract_line": self.abstracts.line[:240],
            "abstract_paragraph": self.abstracts.paragraph,
        }


def organise_fields(
    *,
    content: str,
    layer: str,
    advertiser: str | None,
    trigger_type: str = "",
    data: dict[str, Any] | None = None,
    category: str = "",
    business_line: str = "",
    kind: str = "",
    node_cache: dict[tuple, Category] | None = None,
) -> Organised:
    """Kind, category node (created if new) and abstracts for one memory. A `kind` the
    writer already knows (a semantic memory consolidated by reflection) is kept."""
    decision = (
        KindDecision(kind, "set by the writer")
        if kind in MemoryKind.values
        else decide_kind(content=content, layer=layer, trigger_type=trigger_type, data=data)
    )
    path = category_path(content=content, layer=layer, trigger_type=trigger_type, data=data, category=category, business_line=business_line)
    node = category_node_for(advertiser=advertiser, path=path, cache=node_cache)
    return Organised(kind=decision, path=path, node=node, abstracts=make_abstracts(content))
