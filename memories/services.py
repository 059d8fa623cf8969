"""Writes to memories. Governance decides *whether* to write; these functions do the
writing, keep the version chain and the embedding right, and nothing else."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from memories.constants import Attribution, Grounding, Source, Status, Tier
from memories.embeddings import EmbeddingError, get_embedder
from memories.exceptions import StaleMemory
from memories.hashing import content_hash
from memories.models import Memory

logger = logging.getLogger(__name__)


def embedding_text(memory: Memory) -> str:
    """What the embedder sees: the content, plus the category for context."""
    return f"{memory.category}: {memory.content}" if memory.category else memory.content


def memory_create(
    *,
    layer: str,
    content: str,
    data: dict[str, Any] | None = None,
    advertiser: str | None = None,
    business_line: str = "",
    category: str = "",
    source: str = Source.AGENT,
    source_attribution: str = Attribution.UNKNOWN,
    grounding: str = Grounding.UNKNOWN,
    importance: float = 5.0,
    confidence: float = 0.5,
    status: str = Status.ACTIVE,
    tier: str = Tier.WORKING,
    observed_at: datetime | None = None,
    expires_at: datetime | None = None,
    created_at: datetime | None = None,
    embed: bool = True,
    kind: str = "",
    category_node: Any = None,
    abstract_line: str = "",
    abstract_paragraph: str = "",
) -> Memory:
    memory = Memory(
        kind=kind,
        category_node=category_node,
        abstract_line=abstract_line,
        abstract_paragraph=abstract_paragraph,
        layer=layer,
        content=content.strip(),
        data=data or {},
        advertiser=advertiser or None,
        business_line=business_line or "",
        category=category or "",
        source=source,
        source_attribution=source_attribution,
        grounding=grounding,
        importance=float(importance),
        confidence=float(confidence),
        status=status,
        tier=tier,
        observed_at=observed_at,
        expires_at=expires_at,
        content_hash=content_hash(content),
    )
    if created_at is not None:
        memory.created_at = created_at
        memory.valid_from = created_at
    memory.full_clean(exclude=["embedding", "content_hash"])
    memory.save()
    if embed:
        schedule_embedding([memory.pk])
    return memory


# Any constant works; it only has to be the same in every process.
_WRITE_LOCK_KEY = 0x4C474D58  # "LGMX"


def memory_write_lock() -> None:
    """Serialise governed writes for the rest of the current transaction, so a decision
    taken inside it (e.g. "this contradicts #12, supersede it") is still true when it is
    written. SQLite's IMMEDIATE transactions already hold the one write lock; PostgreSQL
    takes a transaction-scoped advisory lock."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITE_LOCK_KEY])


@transaction.atomic
def memory_supersede(*, old: Memory, content: str, embed: bool = True, **fields: Any) -> Memory:
    """Close `old` and create version n+1 that points back to it (a governed UPDATE)."""
    old = Memory.objects.select_for_update().get(pk=old.pk)
    if old.status != Status.ACTIVE:
        raise StaleMemory(f"memory {old.pk} is {old.status} now; only an active memory can be superseded")
    now = timezone.now()
    inherited = {
        "layer": old.layer,
        "advertiser": old.advertiser,
        "business_line": old.business_line,
        "category": old.category,
        "data": old.data,
        "tier": old.tier,
        "kind": old.kind,
        "category_node": old.category_node,
    }
    inherited.update(fields)
    new = memory_create(content=content, embed=embed, **inherited)
    Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED, valid_to=now)
    Memory.objects.filter(pk=new.pk).update(version=old.version + 1, supersedes=old, valid_from=now)
    new.refresh_from_db()
    return new


def memory_set_status(*, memory: Memory, status: str) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(status=status, updated_at=timezone.now())
    memory.refresh_from_db()
    return memory


def memory_set_organisation(*, memory: Memory, kind: str, category_node: Any, abstract_line: str, abstract_paragraph: str) -> None:
    """Store what governance decided about a memory's kind, category and abstracts
    (the backfill of memories written before these existed)."""
    Memory.objects.filter(pk=memory.pk).update(
        kind=kind, category_node=category_node, abstract_line=abstract_line, abstract_paragraph=abstract_paragraph
    )


def memory_reinforce(*, memory: Memory) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(reinforcement_count=F("reinforcement_count") + 1, updated_at=timezone.now())
    memory.refresh_from_db()
    return memory


def schedule_embedding(memory_ids: list[int]) -> None:
    """Embed after the surrounding transaction commits, so a slow or failing embedder can
    never roll back (or hold the write lock of) a governed write. A failure leaves the row
    for embed-backfill."""
    from django.conf import settings

    if not settings.MEMORY_EMBED_ON_WRITE:
        return

    def run() -> None:
        try:
            embed_memories(memory_ids)
        except EmbeddingError as exc:
            logger.warning("embedding deferred to backfill: %s", exc)

    transaction.on_commit(run)


def embed_memories(memory_ids: Iterable[int]) -> int:
    embedder = get_embedder()
    memories = list(Memory.objects.filter(pk__in=list(memory_ids)).only("id", "content", "category"))
    if not memories:
        return 0
    vectors = embedder.embed_passages([embedding_text(m) for m in memories])
    memory_store_vectors(memories, vectors, embedder.model_name)
    return len(memories)


def memory_store_vectors(memories: list[Memory], vectors: np.ndarray | list[np.ndarray], model_name: str) -> None:
    """The one place an embedding is written: float32 bytes, with the model and dimension
    that made it (PostgreSQL's trigger mirrors the bytes into the pgvector column)."""
    with transaction.atomic():
        for memory, vector in zip(memories, vectors, strict=True):
            Memory.objects.filter(pk=memory.pk).update(
                embedding=np.asarray(vector, dtype=np.float32).tobytes(),
                embedding_model=model_name,
                embedding_dim=int(vector.shape[0]),
            )


def stale_embedding_q() -> Q:
    embedder = get_embedder()
    return Q(embedding__isnull=True) | ~Q(embedding_model=embedder.model_name) | ~Q(embedding_dim=embedder.dimension)


def embed_backfill(*, batch_size: int = 64, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Embed every memory whose vector is missing or came from another model."""
    embedder = get_embedder()
    pending = list(Memory.objects.filter(stale_embedding_q()).order_by("id").values_list("id", flat=True))
    done = 0
    for start in range(0, len(pending), max(1, batch_size)):
        chunk = pending[start : start + batch_size]
        memories = list(Memory.objects.filter(pk__in=chunk).only("id", "content", "category"))
        vectors = embedder.embed_passages([embedding_text(m) for m in memories])
        memory_store_vectors(memories, vectors, embedder.model_name)
        done += len(memories)
        if progress:
            progress(len(memories))
    return {"embedded": done, "model": embedder.model_name, "dimension": embedder.dimension}


def memories_record_access(memory_ids: list[int], *, at: datetime | None = None) -> None:
    if not memory_ids:
        return
    Memory.objects.filter(pk__in=memory_ids).update(access_count=F("access_count") + 1, last_accessed_at=at or timezone.now())
