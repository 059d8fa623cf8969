"""Plain-dict views of memories, shared by the CLI, the API and export."""

from __future__ import annotations

from typing import Any

from memories.models import Memory
from memories.timefmt import iso_local as _iso


def memory_dict(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.pk,
        "layer": memory.layer,
        "content": memory.content,
        "advertiser": memory.advertiser,
        "business_line": memory.business_line,
        "category": memory.category,
        "kind": memory.kind,
        "category_path": memory.category_node.path if memory.category_node_id else "",
        "abstract": memory.abstract_line,
        "source": memory.source,
        "source_attribution": memory.source_attribution,
        "grounding": memory.grounding,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "status": memory.status,
        "tier": memory.tier,
        "version": memory.version,
        "created_at": _iso(memory.created_at),
        "expires_at": _iso(memory.expires_at),
        "data": memory.data,
    }
