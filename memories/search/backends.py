"""The storage-specific half of retrieval, chosen by the database in use.

Ranking (fusion, adjustment, MMR) is the same everywhere; only where candidates come from
differs: SQLite uses FTS5 + bm25 and the in-process numpy matrix, PostgreSQL uses a GIN
tsvector index and pgvector HNSW."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Protocol

from django.db import connection

from memories.search.filters import SearchFilter
from memories.search.tokens import query_tokens

if TYPE_CHECKING:
    import numpy as np

#: Returns the other arms' candidates, whose keyword scores are wanted too. A function, so
#: that the keyword arm asks for them only when it needs them: the vector arm may still be
#: running on its worker thread meanwhile.
Others = Callable[[], Collection[int]]


class SearchBackend(Protocol):
    name: str

    def keyword_candidates(
        self, query: str, search_filter: SearchFilter, limit: int, also: Others | None = None
    ) -> list[tuple[int, float]]:
        """The best `limit` keyword matches, then the scores of those of the other arms'
        candidates (`also()`) that matched."""
        ...

    def vector_candidates(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int) -> list[tuple[int, float]]: ...

    def start_vector_candidates(
        self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int
    ) -> Callable[[], list[tuple[int, float]]]:
        """`vector_candidates`, possibly still running: call the result to wait for it."""
        ...

    def vectors_for(self, memory_ids: list[int]) -> dict[int, np.ndarray]: ...

    def metadata_for(self, memory_ids: list[int]) -> dict[int, tuple[float, float]]: ...

    def bm25(self, query: str, keyword_scores: dict[int, float]) -> dict[int, float]:
        """The bm25 of each memory for the query, given the keyword arm's own scores."""
        ...

    def bm25_among(self, tokens: list[str], memory_ids: list[int]) -> dict[int, float]:
        """The bm25 from the keyword index of each given memory that matches any of the
        query tokens (query_tokens' output), with the index's stemming; the others are left out."""
        ...

    def centre(self) -> np.ndarray | None:
        """The mean stored vector, or None when no vector is stored."""
        ...


class SQLiteBackend:
    name = "sqlite"

    def keyword_candidates(
        self, query: str, search_filter: SearchFilter, limit: int, also: Others | None = None
    ) -> list[tuple[int, float]]:
        from memories.search.fts import keyword_candidates

        return keyword_candidates(query, search_filter, limit=limit, also=also)

    def vector_candidates(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int) -> list[tuple[int, float]]:
        from memories.search.vectors import vector_index

        if search_filter.as_of is not None:
            # The index filters by today's statuses: the rows valid then come from SQL and
            # are scanned exactly (no sign-code shortlist).
            from memories.search.fts import filtered_ids

            return vector_index.search_among(query_vector, filtered_ids(search_filter), limit)
        return vector_index.search(query_vector, search_filter, limit)

    def start_vector_candidates(
        self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int
    ) -> Callable[[], list[tuple[int, float]]]:
        from memories.search.vectors import vector_index

        if search_filter.as_of is not None:
            hits = self.vector_candidates(query_vector, search_filter, limit)
            return lambda: hits
        return vector_index.search_soon(query_vector, search_filter, limit)

    def vectors_for(self, memory_ids: list[int]) -> dict[int, np.ndarray]:
        from memories.search.vectors import vector_index

        return vector_index.vectors_for(memory_ids)

    def metadata_for(self, memory_ids: list[int]) -> dict[int, tuple[float, float]]:
        from memories.search.vectors import vector_index

        found = vector_index.metadata_for(memory_ids)
        missing = [mid for mid in memory_ids if mid not in found]
        # A row written after the index's last refresh (a keyword hit in keyword mode).
        return {**found, **_metadata_from_rows(missing)} if missing else found

    def bm25(self, query: str, keyword_scores: dict[int, float]) -> dict[int, float]:
        return keyword_scores  # the FTS5 arm already scores by bm25

    def bm25_among(self, tokens: list[str], memory_ids: list[int]) -> dict[int, float]:
        from memories.search.fts import bm25_among

        return bm25_among(tokens, memory_ids)

    def centre(self) -> np.ndarray | None:
        from memories.search.vectors import vector_index

        return vector_index.centre()


def _metadata_from_rows(memory_ids: list[int]) -> dict[int, tuple[float, float]]:
    if not memory_ids:
        return {}
    from memories.models import Memory

    rows = Memory.objects.filter(id__in=memory_ids).values_list("id", "importance", "created_at")
    return {mid: (float(importance), created.timestamp()) for mid, importance, created in rows}


class PostgresBackend:
    name = "postgresql"

    def keyword_candidates(
        self, query: str, search_filter: SearchFilter, limit: int, also: Others | None = None
    ) -> list[tuple[int, float]]:
        from memories.search import postgres

        return postgres.keyword_candidates(query, search_filter, limit=limit, also=also)

    def vector_candidates(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int) -> list[tuple[int, float]]:
        from memories.embeddings import get_embedder
        from memories.search import postgres

        return postgres.vector_candidates(query_vector, search_filter, limit, model_name=get_embedder().model_name)

    def start_vector_candidates(
        self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int
    ) -> Callable[[], list[tuple[int, float]]]:
        # One connection, one statement at a time: answered before the keyword arm.
        hits = self.vector_candidates(query_vector, search_filter, limit)
        return lambda: hits

    def vectors_for(self, memory_ids: list[int]) -> dict[int, np.ndarray]:
        from memories.embeddings import get_embedder
        from memories.search import postgres

        embedder = get_embedder()
        return postgres.vectors_for(memory_ids, model_name=embedder.model_name, dimension=embedder.dimension)

    def metadata_for(self, memory_ids: list[int]) -> dict[int, tuple[float, float]]:
        return _metadata_from_rows(memory_ids)

    def bm25(self, query: str, keyword_scores: dict[int, float]) -> dict[int, float]:
        # The arm ranks by ts_rank, a scale of its own; bm25 only for the rows it matched.
        return self.bm25_among(query_tokens(query), [mid for mid, score in keyword_scores.items() if score > 0])

    def bm25_among(self, tokens: list[str], memory_ids: list[int]) -> dict[int, float]:
        from memories.search import postgres

        return postgres.bm25_scores(tokens, memory_ids)

    def centre(self) -> np.ndarray | None:
        from memories.embeddings import get_embedder
        from memories.search import postgres

        embedder = get_embedder()
        return postgres.mean_vector(model_name=embedder.model_name, dimension=embedder.dimension)


_BACKENDS = {"sqlite": SQLiteBackend(), "postgresql": PostgresBackend()}


def get_search_backend() -> SearchBackend:
    try:
        return _BACKENDS[connection.vendor]
    except KeyError:
        raise RuntimeError(f"no search backend for database vendor {connection.vendor!r}") from None
