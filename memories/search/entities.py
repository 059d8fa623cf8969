"""The entity arm of hybrid search: a query that names an entity (brand_A, 抖音信息流, ROI,
双11 …) also gets the memories linked to it, scored by how many of the query's entities
each memory is linked to (rarer entities count more) plus a bonus when the memory states
a relation between two of them. Scores are normalised to [0, 1]; hybrid.py mixes them in
as the `entity` component of the explanation.

On SQLite the entity table, each entity's link count and the links of the rare entities are
held in process per committed search state (memories.search.state: triggers move it on
every entity, link, relation and memory write), and the structured filter is applied to the
linked memories from the vector index's metadata, as the keyword side does; so a query that
names no stored entity costs one state read and no other query. Inside a transaction and on
PostgreSQL the arm reads the tables each time."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q
from django.db.models.expressions import RawSQL

from memories.constants import Status
from memories.entity_vocabulary import find_mentions
from memories.models import Entity, MemoryEntity, Relation
from memories.search.filters import SearchFilter
from memories.search.fts import filter_sql
from memories.search.state import StateCache

# An entity linked to more memories than this does not discriminate (出价 at 100k rows).
MAX_ENTITY_FREQUENCY = 2000
RELATION_BONUS = 0.5
MIN_NAME_CHARS = 2


@dataclass(frozen=True)
class QueryEntity:
    id: int
    kind: str
    name: str


@dataclass(frozen=True)
class _EntityTable:
    """Every stored entity, as the query side looks them up."""

    by_name: dict[tuple[str, str], int]
    by_id: dict[int, tuple[str, str]]
    # Lower-cased names of at least MIN_NAME_CHARS characters, for the substring match
    # that finds names the vocabulary does not know (LLM-extracted, unknown plan ids …).
    names: list[tuple[str, int]]


def _load_entity_table() -> _EntityTable:
    rows = list(Entity.objects.values_list("id", "kind", "name"))
    return _EntityTable(
        by_name={(kind, name): pk for pk, kind, name in rows},
        by_id={pk: (kind, name) for pk, kind, name in rows},
        names=[(name.lower(), pk) for pk, _, name in rows if len(name) >= MIN_NAME_CHARS],
    )


class _StoredEntities:
    """The entity table, held in process. With a state cache (SQLite, outside a
    transaction) it is read once per committed search state, which the entity triggers
    move on every entity, link and relation write; otherwise it is re-read when the
    table's last id or size moved."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._table = _EntityTable({}, {}, [])

    def get(self, cached: dict | None) -> _EntityTable:
        if cached is not None:
            table = cached.get("entities")
            if table is None:
                table = cached["entities"] = _load_entity_table()
            return table
        last = Entity.objects.order_by("-id").values_list("id", flat=True).first() or 0
        key = (last, Entity.objects.count())
        if key != self._key:
            self._table, self._key = _load_entity_table(), key
        return self._table


_stored_entities = _StoredEntities()
# Entity table, link counts and links of the entity arm, per committed search state.
_entity_cache = StateCache()


def _named(query: str, table: _EntityTable) -> list[QueryEntity]:
    ids = {table.by_name[(m.kind, m.name)] for m in find_mentions(query) if (m.kind, m.name) in table.by_name}
    low = (query or "").lower()
    ids.update(pk for name, pk in table.names if name in low)
    return [QueryEntity(pk, *table.by_id[pk]) for pk in sorted(ids, key=table.by_id.__getitem__)]  # the model's order


def query_entities(query: str) -> list[QueryEntity]:
    """Stored entities the query names: through the vocabulary (双十一 → 双11) and by the
    stored names themselves."""
    return _named(query, _stored_entities.get(_entity_cache.current()))


def _scope(search_filter: SearchFilter, prefix: str = "memory__") -> Q:
    if search_filter.as_of is not None:
        where, params = filter_sql(search_filter)
        q = Q(**{f"{prefix}id__in": RawSQL(f"SELECT m.id FROM memories_memory m WHERE {where}", params)})
    else:
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


def _per_entity(cached: dict | None, tag: str, entity_ids: list[int], load) -> dict[int, object]:
    """`load(ids)` → {entity id: value} for the ids not cached yet under `tag`."""
    found = {eid: cached[(tag, eid)] for eid in entity_ids if (tag, eid) in cached} if cached is not None else {}
    missing = [eid for eid in entity_ids if eid not in found]
    if missing:
        loaded = load(missing)
        for eid in missing:
            found[eid] = loaded.get(eid)
            if cached is not None:
                cached[(tag, eid)] = found[eid]
    return found


def _link_counts(ids: list[int]) -> dict[int, int]:
    # Store-wide link counts (read from the (entity, memory) index alone): an entity's
    # rarity is a property of the store, and counting inside the scope would join every
    # link of a common entity such as 出价 with its memory row.
    counts = MemoryEntity.objects.filter(entity_id__in=ids).values_list("entity_id").annotate(n=Count("id"))
    return dict(counts.values_list("entity_id", "n"))


def _links(ids: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {eid: [] for eid in ids}
    for entity_id, memory_id in MemoryEntity.objects.filter(entity_id__in=ids).values_list("entity_id", "memory_id"):
        out[entity_id].append(memory_id)
    return out


def _relations_from(ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {eid: [] for eid in ids}
    for subject_id, object_id, memory_id in Relation.objects.filter(subject_id__in=ids).values_list("subject_id", "object_id", "memory_id"):
        out[subject_id].append((object_id, memory_id))
    return out


def _scoped_links(useful: list[int], search_filter: SearchFilter, cached: dict | None) -> tuple[list[tuple[int, int]], list[int]] | None:
    """(memory id, entity id) links of the useful entities and the memories stating a
    relation between two of them, inside the filter: from the cache, the filter applied by
    the vector index's in-process metadata; None when that cannot be done here (no cache,
    or a memory the index does not know yet)."""
    if cached is None:
        return None
    from memories.search.vectors import vector_index

    links = _per_entity(cached, "links", useful, _links)
    pairs = [(memory_id, eid) for eid in useful for memory_id in links[eid]]
    related: list[int] = []
    if len(useful) > 1:
        relations = _per_entity(cached, "relations", useful, _relations_from)
        wanted = set(useful)
        related = list(dict.fromkeys(m for eid in useful for obj, m in relations[eid] if obj in wanted))
    ids = list(dict.fromkeys([m for m, _ in pairs] + related))
    if not ids:
        return [], []
    admitted = vector_index.admit(ids, search_filter)
    if admitted is None:
        return None
    allowed = {mid for mid, ok in zip(ids, admitted, strict=True) if ok}
    return [(m, e) for m, e in pairs if m in allowed], [m for m in related if m in allowed]


def entity_candidates(query: str, search_filter: SearchFilter, limit: int) -> tuple[dict[int, float], list[QueryEntity]]:
    """memory id → entity score in [0, 1] (best first, at most `limit`), and the query's entities."""
    cached = _entity_cache.current()
    entities = _named(query, _stored_entities.get(cached))
    if not entities:
        return {}, []
    frequency = _per_entity(cached, "count", [e.id for e in entities], _link_counts)
    useful = [e.id for e in entities if 0 < (frequency[e.id] or 0) <= MAX_ENTITY_FREQUENCY]
    if not useful:
        return {}, entities
    weight = {eid: 1.0 / math.log2(2 + frequency[eid]) for eid in useful}
    # The cached links are filtered by today's statuses: a read of the past asks the table.
    found = None if search_filter.as_of else _scoped_links(useful, search_filter, cached)
    if found is None:
        scope = _scope(search_filter)
        links = list(MemoryEntity.objects.filter(scope, entity_id__in=useful).values_list("memory_id", "entity_id"))
        related = (
            set(Relation.objects.filter(scope, subject_id__in=useful, object_id__in=useful).values_list("memory_id", flat=True))
            if len(useful) > 1
            else set()
        )
    else:
        links, related = found[0], set(found[1])
    raw: dict[int, float] = defaultdict(float)
    for memory_id, entity_id in links:
        raw[memory_id] += weight[entity_id]
    for memory_id in related:
        raw[memory_id] += RELATION_BONUS * max(weight.values())
    if not raw:  # the structured filter (a kind, an empty category) kept none of the linked memories
        return {}, entities
    top = max(raw.values())
    best = sorted(raw.items(), key=lambda row: (-row[1], -row[0]))[:limit]
    return {mid: score / top for mid, score in best}, entities
