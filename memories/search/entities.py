"""The entity arm of hybrid search: a query that names an entity (brand_A, 抖音信息流, ROI,
双11 …) also gets the memories linked to it, scored by how many of the query's entities
each memory is linked to (rarer entities count more) plus a bonus when the memory states
a relation between two of them. Scores are normalised to [0, 1]; hybrid.py mixes them in
as the `entity` component of the explanation."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q

from memories.constants import Status
from memories.entity_vocabulary import find_mentions
from memories.models import Entity, MemoryEntity, Relation
from memories.search.filters import SearchFilter

# An entity linked to more memories than this does not discriminate (出价 at 100k rows).
MAX_ENTITY_FREQUENCY = 2000
RELATION_BONUS = 0.5
MIN_NAME_CHARS = 2


@dataclass(frozen=True)
class QueryEntity:
    id: int
    kind: str
    name: str


class _StoredNames:
    """Names of stored entities the vocabulary does not know (LLM-extracted, unknown plan
    ids …), re-read when the entity table changes."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._names: list[tuple[str, int]] = []

    def get(self) -> list[tuple[str, int]]:
        last = Entity.objects.order_by("-id").values_list("id", flat=True).first() or 0
        key = (last, Entity.objects.count())
        if key != self._key:
            rows = Entity.objects.values_list("id", "name")
            self._names = [(name.lower(), pk) for pk, name in rows if len(name) >= MIN_NAME_CHARS]
            self._key = key
        return self._names


_stored_names = _StoredNames()


def query_entities(query: str) -> list[QueryEntity]:
    """Stored entities the query names: through the vocabulary (双十一 → 双11) and by the
    stored names themselves."""
    mentions = find_mentions(query)
    wanted = Q(pk__in=[])
    for mention in mentions:
        wanted |= Q(kind=mention.kind, name=mention.name)
    ids = set(Entity.objects.filter(wanted).values_list("id", flat=True)) if mentions else set()
    low = (query or "").lower()
    ids.update(pk for name, pk in _stored_names.get() if name in low)
    return [QueryEntity(pk, kind, name) for pk, kind, name in Entity.objects.filter(pk__in=ids).values_list("id", "kind", "name")]


def _scope(search_filter: SearchFilter, prefix: str = "memory__") -> Q:
    q = Q(**{f"{prefix}status": Status.ACTIVE}) & (
        Q(**{f"{prefix}expires_at__isnull": True}) | Q(**{f"{prefix}expires_at__gt": search_filter.now})
    )
    if search_filter.advertisers is not None:
        scoped = Q(**{f"{prefix}advertiser__in": list(search_filter.advertisers)})
        if search_filter.include_global:
            scoped |= Q(**{f"{prefix}advertiser__isnull": True})
        q &= scoped
    if search_filter.business_line:
        q &= Q(**{f"{prefix}business_line": search_filter.business_line}) | Q(**{f"{prefix}business_line": ""})
    if search_filter.layers:
        q &= Q(**{f"{prefix}layer__in": list(search_filter.layers)})
    # The organisation filters (episodic/semantic kind, category tree nodes), when present.
    if search_filter.kinds:
        q &= Q(**{f"{prefix}kind__in": list(search_filter.kinds)})
    if search_filter.category_ids is not None:
        q &= Q(**{f"{prefix}category_node_id__in": list(search_filter.category_ids)})
    return q


def entity_candidates(query: str, search_filter: SearchFilter, limit: int) -> tuple[dict[int, float], list[QueryEntity]]:
    """memory id → entity score in [0, 1] (best first, at most `limit`), and the query's entities."""
    entities = query_entities(query)
    if not entities:
        return {}, []
    scope = _scope(search_filter)
    # Store-wide link counts (read from the (entity, memory) index alone): an entity's
    # rarity is a property of the store, and counting inside the scope would join every
    # link of a common entity such as 出价 with its memory row.
    frequency = dict(
        MemoryEntity.objects.filter(entity_id__in=[e.id for e in entities])
        .values_list("entity_id").annotate(n=Count("id")).values_list("entity_id", "n")
    )
    useful = [e.id for e in entities if 0 < frequency.get(e.id, 0) <= MAX_ENTITY_FREQUENCY]
    if not useful:
        return {}, entities
    weight = {eid: 1.0 / math.log2(2 + frequency[eid]) for eid in useful}
    raw: dict[int, float] = defaultdict(float)
    for memory_id, entity_id in MemoryEntity.objects.filter(scope, entity_id__in=useful).values_list("memory_id", "entity_id"):
        raw[memory_id] += weight[entity_id]
    if len(useful) > 1:
        related = Relation.objects.filter(scope, subject_id__in=useful, object_id__in=useful).values_list("memory_id", flat=True)
        for memory_id in set(related):
            raw[memory_id] += RELATION_BONUS * max(weight.values())
    if not raw:  # the structured filter (a kind, an empty category) kept none of the linked memories
        return {}, entities
    top = max(raw.values())
    best = sorted(raw.items(), key=lambda row: (-row[1], -row[0]))[:limit]
    return {mid: score / top for mid, score in best}, entities
