"""Memory vectors: which memories lack a current one, computing and storing them (after
commit, or in a backfill), and reading them back. Derived data, so not a governed change.

Each vector is stored once. SQLite keeps float32 bytes in `embedding` (what the vector
index in memories/search/vectors.py reads). PostgreSQL keeps pgvector's `embedding_vec`
(the column its HNSW index and the exact scan read) and leaves `embedding` NULL: a second
copy would make every row 1.8 times as large (docs/benchmarks/scale-out.md). So no code
outside this module reads `Memory.embedding` for a vector: it calls memory_vectors."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django.db import connection, connections, transaction
from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

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
    """The one place an embedding is written, with the model and dimension that made it:
    float32 bytes on SQLite, pgvector's column on PostgreSQL (the bytes stay NULL)."""
    import numpy as np

    postgres = connection.vendor == "postgresql"
    with transaction.atomic():
        for memory, vector in zip(memories, vectors, strict=True):
            vector = np.asarray(vector, dtype=np.float32)
            if postgres:
                from memories.search.postgres import vector_literal

                # `embedding` is left out of the SET list, so its trigger does not fire.
                with connection.cursor() as cursor:
                    cursor.execute(
                        "UPDATE memories_memory SET embedding_vec = %s::vector, embedding_model = %s, embedding_dim = %s WHERE id = %s",
                        [vector_literal(vector), model_name, int(vector.shape[0]), memory.pk],
                    )
                continue
            Memory.objects.filter(pk=memory.pk).update(
                embedding=vector.tobytes(),
                embedding_model=model_name,
                embedding_dim=int(vector.shape[0]),
            )


# Chunks of ids per query: well under every backend's parameter limit.
_READ_CHUNK = 5000


# The attribute with_vectors gives each row: its pgvector column in pgvector's binary form, or None.
_VECTOR_ATTR = "stored_vector"
# pgvector's own binary form (two int16 headers, then big-endian float32s): as exact as real[],
# and numpy decodes it at once, where real[] comes back as text turned into Python floats
# (24 vectors of 384 by id: 2.5 ms against 4.1 ms, measured in one run).
_PG_VECTOR = "vector_send({table}embedding_vec)"


def _pg_vector(value: Any) -> np.ndarray:
    import numpy as np

    return np.frombuffer(bytes(value), dtype=">f4", offset=4).astype(np.float32)


def with_vectors(queryset: QuerySet[Memory]) -> QuerySet[Memory]:
    """`queryset` with each row's vector read in the same query, for memory_vectors. On
    PostgreSQL that is pgvector's column beside the row's fields (else memory_vectors reads
    it in a query of its own); on SQLite the vector is a field of the row already, so the
    queryset is returned as it is (load `embedding` with it)."""
    db = connections[queryset.db]
    if db.vendor != "postgresql":
        return queryset
    column = _PG_VECTOR.format(table=f"{db.ops.quote_name(Memory._meta.db_table)}.")
    return queryset.annotate(**{_VECTOR_ATTR: RawSQL(column, ())})


def memory_vectors(memories: Sequence[Memory]) -> list[np.ndarray | None]:
    """The stored vector of each memory (float32), None where it has none. On SQLite the
    bytes come from the rows themselves (load `embedding` with them: a deferred field costs
    a query per row); on PostgreSQL from rows read through with_vectors, and for any other
    rows from `embedding_vec`, in one query per 5,000 rows."""
    import numpy as np

    if connection.vendor != "postgresql":
        return [None if m.embedding is None else np.frombuffer(bytes(m.embedding), dtype=np.float32) for m in memories]
    unread = [m.pk for m in memories if _VECTOR_ATTR not in m.__dict__]
    found = stored_vectors(unread) if unread else {}
    vectors: list[np.ndarray | None] = []
    for m in memories:
        if _VECTOR_ATTR not in m.__dict__:
            vectors.append(found.get(m.pk))
            continue
        value = m.__dict__[_VECTOR_ATTR]
        vectors.append(None if value is None else _pg_vector(value))
    return vectors


def stored_vectors(memory_ids: Sequence[int], *, model_name: str | None = None, dimension: int | None = None) -> dict[int, np.ndarray]:
    """Vectors by memory id, read from the database (only those of `model_name` and
    `dimension` when given); memories without one are left out."""
    import numpy as np

    postgres = connection.vendor == "postgresql"
    column = _PG_VECTOR.format(table="") if postgres else "embedding"
    where = "embedding_vec IS NOT NULL" if postgres else "embedding IS NOT NULL"
    extra: list[Any] = []
    if model_name is not None:
        where += " AND embedding_model = %s"
        extra.append(model_name)
    if dimension is not None:
        where += " AND embedding_dim = %s"
        extra.append(int(dimension))
    ids = [int(i) for i in memory_ids]
    found: dict[int, np.ndarray] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(ids), _READ_CHUNK):
            chunk = ids[start : start + _READ_CHUNK]
            if postgres:
                cursor.execute(f"SELECT id, {column} FROM memories_memory WHERE id = ANY(%s) AND {where}", [chunk, *extra])
            else:
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(f"SELECT id, {column} FROM memories_memory WHERE id IN ({marks}) AND {where}", [*chunk, *extra])
            for mid, value in cursor.fetchall():
                found[int(mid)] = _pg_vector(value) if postgres else np.frombuffer(bytes(value), dtype=np.float32)
    return found


def stale_embedding_q() -> Q:
    """Memories without the current embedder's vector. memory_store_vectors writes a vector
    only together with the model and dimension that made it, and a row never embedded has
    model "", so those two columns tell it alone. Written as four ranges so that the
    (embedding_model, embedding_dim) index answers it: "not equal" would scan the table, and
    the funnel asks on every decision."""
    embedder = get_embedder()
    model, dimension = embedder.model_name, embedder.dimension
    return (
        Q(embedding_model__lt=model)
        | Q(embedding_model__gt=model)
        | Q(embedding_model=model, embedding_dim__lt=dimension)
        | Q(embedding_model=model, embedding_dim__gt=dimension)
    )


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
