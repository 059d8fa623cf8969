"""Reads of memories: search, lookups, status, export."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories.access import access_recorder
from memories.constants import Layer, Status
from memories.exceptions import NotFound
from memories.metrics_registry import SEARCH_LATENCY, timed
from memories.models import Category, Memory
from memories.search.filters import SearchFilter, valid_at, valid_at_sql
from memories.search.hybrid import DEFAULT_RANKING, Mode, RankingConfig, hybrid_search

MAX_TOP_K = 50
MAX_LIST = 500


@dataclass
class SearchResult:
    memory: Memory
    score: float
    explain: dict[str, float] = field(default_factory=dict)


@dataclass
class SearchResponse:
    results: list[SearchResult]
    embed_ms: float
    search_ms: float
    query_truncated: bool = False
    query_chars_embedded: int = 0
    query_embedding: dict = field(default_factory=dict)


def memory_search(
    *,
    query: str,
    advertisers: tuple[str, ...] | None = None,
    include_global: bool = True,
    business_line: str | None = None,
    layers: tuple[str, ...] | None = None,
    top_k: int = 5,
    mode: Mode = "hybrid",
    record_access: bool = True,
    config: RankingConfig = DEFAULT_RANKING,
    kinds: tuple[str, ...] | None = None,
    category: str | None = None,
    as_of: datetime | None = None,
) -> SearchResponse:
    """Hybrid retrieval inside the structured filter. `as_of` reads the past: the memories
    valid at that time (memories.search.filters.valid_at), versions and archived or expired
    rows included, through the exact SQL path; such a read does not count as an access. `advertisers=None` is the operator
    view; otherwise only those advertisers (plus global memories). `kinds` keeps episodic
    or semantic memories; `category` (a path such as 医药OTC › 冷启动) keeps that node and
    its subtree in the caller's trees."""
    from memories.category_selectors import category_ids_for_path

    search_filter = SearchFilter.at(
        as_of,
        advertisers=advertisers,
        include_global=include_global,
        business_line=business_line or None,
        layers=tuple(layers) if layers else None,
        kinds=tuple(kinds) if kinds else None,
        category_ids=category_ids_for_path(path=category, advertisers=advertisers) if category else None,
    )
    top_k = max(1, min(int(top_k), MAX_TOP_K))
    with timed(SEARCH_LATENCY, mode=mode):
        outcome = hybrid_search(query, search_filter, top_k=top_k, mode=mode, config=config)
    by_id = _result_rows([hit.memory_id for hit in outcome.hits])
    results = []
    for hit in outcome.hits:
        memory = by_id.get(hit.memory_id)
        # Re-check the filter on the row itself: the cache may lag a concurrent change.
        if memory is None or (as_of is not None and not valid_at(memory, as_of)):
            continue
        if as_of is None and (memory.status != Status.ACTIVE or (memory.expires_at is not None and memory.expires_at <= search_filter.now)):
            continue
        if advertisers is not None and memory.advertiser not in advertisers and not (include_global and memory.advertiser is None):
            continue
        results.append(SearchResult(memory=memory, score=hit.score, explain=hit.explain))
    if record_access and as_of is None:
        access_recorder.record([r.memory.pk for r in results])
    return SearchResponse(
        results=results,
        embed_ms=outcome.embed_ms,
        search_ms=outcome.search_ms,
        query_truncated=outcome.query_truncated,
        query_chars_embedded=outcome.query_chars_embedded,
        query_embedding=outcome.query_embedding,
    )


# The category node's fields that come with a result row (a result shows its path;
# str(node) reads the advertiser). They need no conversion from the database, so they can
# ride along as extra columns; the node's counts, summary and time load on access. In the
# model's field order, the order Model.from_db expects.
_NODE_FIELDS = tuple(f.name for f in Category._meta.concrete_fields if f.name in {"id", "advertiser", "name", "path", "parent", "depth"})


@functools.cache
def _result_sql_head() -> str:
    # Every memory column but the vector: it is not part of a result, and leaving it out
    # skips 1.5 kB per row (the model loads it on access, as defer() would).
    quote = connection.ops.quote_name
    memory_columns = [f"m.{quote(f.column)}" for f in Memory._meta.concrete_fields if f.name != "embedding"]
    node_columns = [f"c.{quote(Category._meta.get_field(name).column)} AS {quote('node_' + name)}" for name in _NODE_FIELDS]
    node_key = quote(Memory._meta.get_field("category_node").column)
    return (
        f"SELECT {', '.join(memory_columns + node_columns)} FROM {quote(Memory._meta.db_table)} m "
        f"LEFT JOIN {quote(Category._meta.db_table)} c ON c.{quote(Category._meta.pk.column)} = m.{node_key} "
        f"WHERE m.{quote(Memory._meta.pk.column)} IN "
    )


def _result_rows(ids: list[int]) -> dict[int, Memory]:
    """The hits' rows, each with its category node. One raw SELECT, no ORDER BY (the hits
    give the order): compiling the equivalent ORM query (select_related, defer, in_bulk)
    took longer than running it, and a second query for the nodes cost as much again."""
    if not ids:
        return {}
    rows = {}
    attnames = [Category._meta.get_field(name).attname for name in _NODE_FIELDS]
    for memory in Memory.objects.raw(_result_sql_head() + f"({', '.join(['%s'] * len(ids))})", ids):
        node = [memory.__dict__.pop("node_" + name) for name in _NODE_FIELDS]
        if memory.category_node_id is not None and node[0] is not None:
            memory.category_node = Category.from_db(connection.alias, attnames, node)
        rows[memory.pk] = memory
    return rows


def memory_get(*, memory_id: int, advertisers: tuple[str, ...] | None = None) -> Memory:
    """One memory, if the caller's scope may read it (their advertisers or global)."""
    queryset = Memory.objects.all()
    if advertisers is not None:
        queryset = queryset.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    memory = queryset.filter(pk=memory_id).first()
    if memory is None:
        raise NotFound(f"memory {memory_id} not found")
    return memory


@dataclass
class MemoryPage:
    memories: list[Memory]
    total: int  # how many matched before `limit` cut the list


def memories_list(
    *,
    layers: tuple[str, ...] | None = None,
    advertisers: tuple[str, ...] | None = None,
    include_global: bool = True,
    statuses: tuple[str, ...] | None = None,
    kinds: tuple[str, ...] | None = None,
    category: str | None = None,
    as_of: datetime | None = None,
    limit: int = 50,
) -> MemoryPage:
    """Memories newest first, inside the same structured filter a search uses.

    Without `as_of` the rows as they are now, `statuses=None` meaning the active ones. With
    `as_of` the rows valid at that time (memories.search.filters.valid_at_sql, so a version
    superseded since is listed and its successor is not); `statuses` then narrows by the
    status a row has today. `advertisers=None` is the operator's view of every advertiser;
    a tuple lists those advertisers, plus global memories when include_global is set."""
    rows = Memory.objects.select_related("category_node").defer("embedding")
    if as_of is not None:
        where, params = valid_at_sql(connection.ops.quote_name(Memory._meta.db_table), as_of)
        rows = rows.filter(RawSQL(where, params, output_field=BooleanField()))
        if statuses:
            rows = rows.filter(status__in=statuses)
    else:
        rows = rows.filter(status__in=statuses or (Status.ACTIVE,))
    if layers:
        rows = rows.filter(layer__in=layers)
    if advertisers is not None:
        scope = Q(advertiser__in=advertisers)
        rows = rows.filter(scope | Q(advertiser__isnull=True) if include_global else scope)
    if kinds:
        rows = rows.filter(kind__in=kinds)
    if category:
        from memories.category_selectors import category_ids_for_path

        rows = rows.filter(category_node_id__in=category_ids_for_path(path=category, advertisers=advertisers))
    limit = max(1, min(int(limit), MAX_LIST))
    return MemoryPage(memories=list(rows.order_by("-created_at", "-id")[:limit]), total=rows.count())


def memory_history(*, memory: Memory, advertisers: tuple[str, ...] | None) -> list[Memory]:
    """Every version of the chain `memory` belongs to that the caller's scope may read,
    oldest first. `advertisers=None` is the operator's view; otherwise a version of another
    advertiser is left out, so a chain that crossed scopes (an old trusted import could
    make one) never shows one tenant's words to another."""
    return [version for version in _version_chain(memory) if _readable(version, advertisers)]


def memory_status_counts(*, advertisers: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Counts by layer and status and embedding coverage. `advertisers=None` is the
    operator's whole system; a tuple limits every figure to those advertisers plus global
    memories, so a tenant's view does not move when another tenant writes."""
    from memories.embeddings import get_embedder
    from memories.embeddings.store import stale_embedding_q

    now = timezone.now()
    rows = Memory.objects.all()
    if advertisers is not None:
        rows = rows.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    by_layer = {layer.value: 0 for layer in Layer}
    by_status: dict[str, int] = {status.value: 0 for status in Status}
    for row in rows.values("layer", "status").annotate(n=Count("id")):
        by_status[row["status"]] = by_status.get(row["status"], 0) + row["n"]
        if row["status"] == Status.ACTIVE:
            by_layer[row["layer"]] += row["n"]
    total = rows.count()
    stale = rows.filter(stale_embedding_q()).count()
    embedder = get_embedder()
    return {
        "scope": {"advertisers": "all"} if advertisers is None else {"advertisers": sorted(advertisers), "global": True},
        "memories": by_layer,
        "by_status": by_status,
        "total": total,
        "expired_pending_sweep": rows.filter(status=Status.ACTIVE, expires_at__lte=now).count(),
        "embeddings": {
            "model": embedder.model_name,
            "dimension": embedder.dimension,
            "current": total - stale,
            "missing_or_stale": stale,
            "coverage": round((total - stale) / total, 4) if total else 1.0,
        },
    }


def advertiser_spellings(*, codes: Iterable[str]) -> dict[str, str]:
    """The store's spelling (brand_A) of each advertiser code given in any case (claims keep
    brand_a), keyed by the lower-cased code: one read per distinct advertiser, however many
    claims on a page name it. A code stored in more than one spelling gets its newest
    memory's; a code the store does not hold is left out."""
    spellings: dict[str, str] = {}
    for code in sorted({c.lower() for c in codes if c}):
        stored = Memory.objects.filter(advertiser__iexact=code).values_list("advertiser", flat=True).first()
        if stored:
            spellings[code] = stored
    return spellings


def memories_for_export(*, advertiser: str | None = None) -> Iterator[Memory]:
    queryset = Memory.objects.order_by("id").select_related("category_node").prefetch_related("derived_from")
    if advertiser is not None:
        queryset = queryset.filter(advertiser=advertiser)
    yield from queryset.iterator(chunk_size=500)


def _version_chain(memory: Memory) -> list[Memory]:
    """Every version of `memory`'s chain, oldest first (a looped chain is cut where it loops)."""
    root = memory
    seen = {memory.pk}
    while root.supersedes_id is not None and root.supersedes_id not in seen:
        seen.add(root.supersedes_id)
        root = Memory.objects.get(pk=root.supersedes_id)
    chain = [root]
    while (nxt := Memory.objects.filter(supersedes_id=chain[-1].pk).first()) is not None and nxt.pk not in {m.pk for m in chain}:
        chain.append(nxt)
    return chain


def _readable(memory: Memory, advertisers: tuple[str, ...] | None) -> bool:
    return advertisers is None or memory.advertiser is None or memory.advertiser in advertisers


def memory_as_of(*, memory: Memory, at: datetime, advertisers: tuple[str, ...] | None = None) -> Memory:
    """The version of `memory`'s chain that was valid at `at` (an archived memory before its
    archive time, an L3 fact before it expired); NotFound when none was."""
    for version in _version_chain(memory):
        if valid_at(version, at) and _readable(version, advertisers):
            return version
    raise NotFound(f"memory {memory.pk} had no valid version at {at.isoformat()}")


def memory_history_as_of(*, memory: Memory, at: datetime, advertisers: tuple[str, ...] | None = None) -> list[Memory]:
    """The versions of the chain that existed by `at` and the scope may read, oldest first."""
    return [v for v in _version_chain(memory) if v.valid_from <= at and _readable(v, advertisers)]
