"""What a reviewer compares: the candidate text of an item and the memories nearest to it."""

from __future__ import annotations

from typing import Any

from desk.admin.diff import diff_html
from desk.admin.reasons import review_reasons_shown
from governance.models import ReviewItem
from memories.selectors import memory_search


def review_candidate_text(item: ReviewItem) -> str:
    """What the reviewer is asked to accept, in the order the funnel records it."""
    payload = item.payload or {}
    for key in ("content", "candidate_content"):
        if isinstance(payload.get(key), str) and payload[key].strip():
            return payload[key]
    candidate = payload.get("candidate")
    if isinstance(candidate, dict) and isinstance(candidate.get("content"), str):
        return candidate["content"]
    if item.memory is not None:
        return item.memory.content
    if item.event is not None:
        return item.event.summary or item.event.raw_text
    return "; ".join(review_reasons_shown(item))


def review_similar_memories(item: ReviewItem, candidate: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """The memories a reviewer should compare with: the one the funnel flagged, then the
    nearest active ones in the same scope (that advertiser plus global)."""
    exclude = {item.memory_id} if item.memory_id else set()
    picked: list[tuple[Any, float | None]] = []
    if item.related_memory is not None:
        picked.append((item.related_memory, None))
        exclude.add(item.related_memory_id)
    if candidate.strip():
        advertisers = (item.advertiser,) if item.advertiser else ()
        response = memory_search(query=candidate, advertisers=advertisers, top_k=limit + len(exclude), record_access=False)
        for result in response.results:
            if result.memory.pk not in exclude and len(picked) < limit:
                picked.append((result.memory, result.score))
                exclude.add(result.memory.pk)
    out = []
    for memory, score in picked:
        left, right, ratio = diff_html(memory.content, candidate)
        out.append(
            {
                "memory": memory,
                "score": score,
                "existing_html": left,
                "candidate_html": right,
                "similarity": ratio,
                "flagged": score is None,
            }
        )
    return out
