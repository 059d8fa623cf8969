"""Consolidation: when several episodic memories of one scope and category agree (three
cold starts that all lifted ROI), reflection proposes one semantic memory that states
what they show. Like a promotion, it is an event with a trace and a review item; a
reviewer's approval writes it through the governed write, linked to its episodes by
`derived_from`. Nothing is written without that approval."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from governance.constants import Action, EventKind, EventStatus, ReviewKind, ReviewStatus
from governance.models import MemoryEvent, ReviewItem, Trace
from governance.reasons import reason_columns
from memories.constants import Attribution, Grounding, Layer, MemoryKind, Source, Status
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

STAGE = "reflection.consolidate"
ACTOR = "reflection"
MIN_EPISODES = 3
MAX_PROPOSALS = 50

_UP = re.compile(
    r"提升|提高|增长|上涨|上升|高于|超过|超出|达到|达成|翻倍|改善|"
    r"\bincrease|\bimprov|\bhigher\b|\brose\b|\bgrew\b|\bbeat\b",
    re.IGNORECASE | re.ASCII,
)
_DOWN = re.compile(
    r"下降|下跌|降低|低于|未达|失败|亏损|恶化|骤降|"
    r"\bdecrease|\bdrop|\blower\b|\bfell\b|\bmissed\b|\bfailed\b",
    re.IGNORECASE | re.ASCII,
)
OUTCOME_WORDS = {"up": "结果均为提升/达标", "down": "结果均为下降/未达标"}


@dataclass(frozen=True)
class Agreement:
    key: str
    advertiser: str | None
    category_path: str
    outcome: str
    episodes: list[Memory]


def outcome_of(text: str) -> str | None:
    """ "up" or "down" when the episode's wording points one way only."""
    up, down = bool(_UP.search(text)), bool(_DOWN.search(text))
    if up == down:
        return None
    return "up" if up else "down"


def find_agreements(*, min_episodes: int = MIN_EPISODES) -> list[Agreement]:
    """Groups of at least `min_episodes` active episodic memories with the same scope,
    category node and outcome that no semantic memory consolidates yet."""
    groups: dict[tuple, list[Memory]] = defaultdict(list)
    episodes = (
        Memory.objects.filter(status=Status.ACTIVE, kind=MemoryKind.EPISODIC, layer__in=[Layer.L2, Layer.L3], category_node__isnull=False)
        .select_related("category_node")
        .defer("embedding")
        .order_by("id")
    )
    for memory in episodes:
        outcome = outcome_of(memory.content)
        if outcome:
            groups[(memory.advertiser, memory.category_node_id, outcome)].append(memory)
    consolidated = set(
        Memory.derived_from.through.objects.filter(from_memory__kind=MemoryKind.SEMANTIC, from_memory__status=Status.ACTIVE).values_list(
            "to_memory_id", flat=True
        )
    )
    found = []
    for (advertiser, node_id, outcome), members in groups.items():
        fresh = [m for m in members if m.pk not in consolidated]
        if len(fresh) < min_episodes:
            continue
        ids = sorted(m.pk for m in fresh)
        key = f"consolidation:{advertiser or 'global'}:{node_id}:{outcome}:{','.join(map(str, ids))}"
        found.append(Agreement(key=key, advertiser=advertiser, category_path=fresh[0].category_node.path, outcome=outcome, episodes=fresh))
    return found[:MAX_PROPOSALS]


def semantic_candidate(agreement: Agreement) -> dict[str, Any]:
    """The semantic memory an approval writes, in the funnel's candidate shape."""
    points = "；".join((m.abstract_line or m.content)[:80] for m in agreement.episodes[:4])
    content = f"{agreement.category_path}：{len(agreement.episodes)} 条同类经验{OUTCOME_WORDS[agreement.outcome]}。依据：{points}"
    first = agreement.episodes[0]
    return {
        "content": content,
        "layer": Layer.L2,
        "kind": MemoryKind.SEMANTIC,
        "advertiser": agreement.advertiser,
        "business_line": first.business_line,
        "category": first.category,
        "source": Source.SYSTEM,
        "source_attribution": Attribution.AGENT_INFERENCE,
        "grounding": Grounding.GROUNDED,
        "confidence": 0.7,
        "importance": round(min(10.0, max(m.importance for m in agreement.episodes)), 3),
        "data": {"consolidated_from": [m.pk for m in agreement.episodes], "outcome": agreement.outcome},
    }


def _already_proposed() -> set[str]:
    return {
        (item.payload or {}).get("key")
        for item in ReviewItem.objects.filter(kind=ReviewKind.CONSOLIDATION, status__in=[ReviewStatus.OPEN, ReviewStatus.REJECTED]).only(
            "payload"
        )
    }


def consolidations_propose(*, now: datetime, actor: str = ACTOR, min_episodes: int = MIN_EPISODES) -> list[dict[str, Any]]:
    """Open one consolidation review item per new agreement (inside the caller's
    transaction); returns what was proposed or already waiting."""
    from governance.review.services import review_item_create

    known = _already_proposed()
    outcomes = []
    for agreement in find_agreements(min_episodes=min_episodes):
        source_ids = [m.pk for m in agreement.episodes]
        if agreement.key in known:
            outcomes.append({"key": agreement.key, "source_ids": source_ids, "status": "already proposed"})
            continue
        candidate = semantic_candidate(agreement)
        event = MemoryEvent.objects.create(
            kind=EventKind.CONSOLIDATION,
            source=Source.SYSTEM,
            actor=actor,
            advertiser=agreement.advertiser,
            business_line=candidate["business_line"],
            requested_layer=Layer.L2,
            raw_text=candidate["content"],
            summary=f"consolidate {len(source_ids)} episodes of {agreement.category_path} into a semantic memory",
            data={"source_ids": source_ids, "outcome": agreement.outcome},
            status=EventStatus.PARKED,
            action=Action.PENDING_REVIEW,
            decided_layer=Layer.L2,
            provider="reflection",
            created_at=now,
            decided_at=now,
            **reason_columns(
                [
                    Reason.of(ReasonCode.EPISODES_AGREE, count=len(source_ids), category=agreement.category_path),
                    Reason.of(ReasonCode.CONSOLIDATION_NEEDS_PERSON),
                ]
            ),
        )
        item = review_item_create(
            kind=ReviewKind.CONSOLIDATION,
            event=event,
            memory=agreement.episodes[0],
            layer=Layer.L2,
            advertiser=agreement.advertiser,
            reason=Reason.of(
                ReasonCode.CONSOLIDATION_PROPOSED, count=len(source_ids), category=agreement.category_path, outcome=agreement.outcome
            ),
            candidate=candidate,
            payload={"key": agreement.key, "source_ids": source_ids, "category_path": agreement.category_path},
            proposed_by=actor,
        )
        Trace.objects.create(
            event=event,
            memory=agreement.episodes[0],
            seq=1,
            stage=STAGE,
            decision="PENDING_REVIEW",
            scores={"episodes": len(source_ids), "outcome": agreement.outcome, "review_item_id": item.pk},
            **reason_columns([Reason.of(ReasonCode.EPISODES_SHARE, ids=[f"#{i}" for i in source_ids])]),
            provider="reflection",
            created_at=now,
        )
        outcomes.append(
            {
                "key": agreement.key,
                "source_ids": source_ids,
                "review_item_id": item.pk,
                "event_id": event.pk,
                "status": "proposed",
                "content": candidate["content"][:200],
            }
        )
    return outcomes
