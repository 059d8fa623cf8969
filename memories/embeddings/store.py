"""Memory vectors: which memories lack a current one, computing and storing them (after
commit, or in a backfill). Derived data, so not a governed change."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Q

from memories.embeddings import EmbeddingError, get_embedder
from memories.embeddings.passage_cache import embed_passages_cached
from memories.models import Memory

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)


def embedding_text(memory: Memory) -> str:
    """What the embedder sees: the content, plus the category for context."""
    return f"{memory.category}: {memory.content}" if memory.category else memory.content


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
    # Often embedded moments ago: a proposal's probe, or the same text written before.
    vectors = embed_passages_cached([embedding_text(m) for m in memories])
    memory_store_vectors(memories, vectors, embedder.model_name)
    return len(memories)


def memory_store_vectors(memories: list[Memory], vectors: np.ndarray | list[np.ndarray], model_name: str) -> None:
    """The one place an embedding is written: float32 bytes, with the model and dimension
    that made it (PostgreSQL's trigger mirrors the bytes into the pgvector column)."""
    import numpy as np

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
