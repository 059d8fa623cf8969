"""What a reviewer compares: the candidate, the one memory it conflicts with (claim beside
claim, with a word diff), the conversation it came from, and the other nearest memories
for context (without a diff: an unrelated neighbour's strike-through says nothing)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from desk.admin.claims import (
    advertiser_names,
    claim_of,
    claim_rows,
    detail_shown,
    facet_label,
    matched_shown,
    relation_between,
    relation_label,
)
from desk.admin.diff import diff_html
from desk.admin.list_cells import plain_text
from desk.admin.reasons import review_reasons_shown
from governance.knowledge.entities.selectors import subject_identity
from governance.models import ReviewItem
from memories.constants import Status
from memories.models import Memory
from memories.selectors import memory_search


def review_candidate(item: ReviewItem) -> dict[str, Any]:
    """What approval would write, as the item recorded it ({} for an item that writes nothing)."""
    candidate = (item.payload or {}).get("candidate")
    return candidate if isinstance(candidate, dict) else {}


def review_candidate_text(item: ReviewItem) -> str:
    """What the reviewer is asked to accept, in the order the funnel records it."""
    payload = item.payload or {}
    for key in ("content", "candidate_content"):
        if isinstance(payload.get(key), str) and payload[key].strip():
            return payload[key]
    candidate = review_candidate(item)
    if isinstance(candidate.get("content"), str) and candidate["content"].strip():
        return candidate["content"]
    if item.memory is not None:
        return item.memory.content
    if item.event is not None:
        return item.event.summary or item.event.raw_text
    return "; ".join(plain_text(reason) for reason in review_reasons_shown(item))


def review_conflict_target(item: ReviewItem) -> Memory | None:
    """The existing memory the candidate contradicts: the one the funnel flagged, or the one
    approval would supersede."""
    if item.related_memory is not None:
        return item.related_memory
    supersedes = review_candidate(item).get("supersedes")
    return Memory.objects.filter(pk=supersedes).first() if supersedes else None


def _stage_relation(item: ReviewItem, target: Memory) -> dict[str, Any] | None:
    """The conflict stage's own verdict on this pair, as its trace recorded it."""
    if item.event_id is None:
        return None
    trace = item.event.traces.filter(stage="conflict").order_by("-seq").first()
    for related in (trace.scores or {}).get("related", []) if trace else []:
        if related.get("id") == target.pk and related.get("relation"):
            return {
                "relation": related["relation"],
                "facet": related.get("signal", ""),
                "detail": related.get("detail", ""),
                "matched": related.get("matched") or [],
            }
    return None


def review_claims(item: ReviewItem) -> dict[str, Any]:
    """The candidate's claim, and beside it the conflict target's with the relation between
    them and a word diff of the two texts (only against that target)."""
    candidate = review_candidate(item)
    text = review_candidate_text(item)
    advertiser = candidate.get("advertiser", item.advertiser)
    claim = claim_of(candidate.get("claim"), content=text, advertiser=advertiser, data=candidate.get("data"))
    target = review_conflict_target(item)
    if target is None:
        return {"candidate_rows": claim_rows(claim), "target": None}
    target_claim = claim_of(target.claim, content=target.content, advertiser=target.advertiser, data=target.data)
    relation = _stage_relation(item, target) or relation_between(
        claim, target_claim, identity=subject_identity(old_text=target.content, new_text=text, advertiser=advertiser)
    )
    decisive = {relation["facet"]} if relation.get("facet") else set()
    matched = relation.get("matched") or []
    names = advertiser_names(claims=[claim, target_claim], matched=matched)
    existing_html, candidate_html, ratio = diff_html(target.content, text)
    return {
        "candidate_rows": claim_rows(claim, decisive=decisive, names=names),
        "target": target,
        "target_rows": claim_rows(target_claim, decisive=decisive, names=names),
        "relation": relation_label(relation["relation"]),
        "facet": facet_label(relation["facet"]) if relation.get("facet") else "",
        "detail": detail_shown(relation.get("detail", "")),
        "matched": matched_shown(matched, names=names),
        "existing_html": existing_html,
        "candidate_html": candidate_html,
        "similarity": ratio,
    }


def review_turns(item: ReviewItem) -> dict[str, Any]:
    """The conversation the proposer sent, turn by turn: the event's turns (redacted when it
    was stored), or the turns a parked candidate carries."""
    event = item.event
    turns = list(event.source_turns or []) if event is not None else []
    if not turns:
        turns = [{"index": i, **t} for i, t in enumerate(review_candidate(item).get("turns") or []) if isinstance(t, dict)]
    return {"turns": turns, "session_id": getattr(event, "session_id", None) or ""}


def review_changed_since(item: ReviewItem) -> list[str]:
    """Warnings for the memories the item is about that changed after it opened: a sampled
    audit of a write a minute before it was superseded judges an old version."""
    warnings = []
    for memory in {m.pk: m for m in (item.memory, review_conflict_target(item)) if m is not None}.values():
        if memory.status == Status.ACTIVE:
            continue
        changed_at = memory.valid_to or memory.updated_at
        if changed_at is None or changed_at < item.created_at:
            continue
        successor = Memory.objects.filter(supersedes=memory).only("pk", "version").first()
        if successor is not None:
            warnings.append(
                gettext("Memory #%(id)s changed after this item opened: it is superseded by #%(new)s (version %(version)s).")
                % {"id": memory.pk, "new": successor.pk, "version": successor.version}
            )
        else:
            warnings.append(
                gettext("Memory #%(id)s changed after this item opened: it is now %(status)s.")
                % {"id": memory.pk, "status": memory.get_status_display()}
            )
    return warnings


def review_similar_memories(item: ReviewItem, candidate: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """Other active memories near the candidate in its scope (that advertiser plus global),
    for context; the conflict target has its own block and is not repeated here."""
    exclude = {pk for pk in (item.memory_id, getattr(review_conflict_target(item), "pk", None)) if pk}
    if not candidate.strip():
        return []
    advertisers = (item.advertiser,) if item.advertiser else ()
    response = memory_search(query=candidate, advertisers=advertisers, top_k=limit + len(exclude), record_access=False)
    return [{"memory": r.memory, "score": r.score} for r in response.results if r.memory.pk not in exclude][:limit]
