"""Keyword and vector candidates on PostgreSQL: full-text search over the tsvector of our
CJK-aware tokens (GIN), and pgvector cosine distance (HNSW for 384-d vectors)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from django.db import connection

from memories.search.backends import Others
from memories.search.filters import SearchFilter
from memories.search.fts import filter_sql
from memories.search.tokens import query_tokens

T = TypeVar("T")

HNSW_DIMENSION = 384
# The HNSW candidate list a search walks (pgvector's hnsw.ef_search), the smallest
# measured value with recall@10 >= 0.95. bench.pg_recall on 23,324 distinct real vectors
# (LoCoMo turns, their sentences and summaries, Chinese + English ad-ops text), 200 queries,
# no filter: ef 40 -> 0.83, 64 -> 0.86, 100 (the old default) -> 0.89, 200 -> 0.95,
# 400 -> 0.97; HNSW p95 stayed at about a quarter of the exact scan's at 200.
HNSW_EF_SEARCH = 200


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form of a float32 vector, exact: a float32 widened to a double and
    written by repr reads back as the same float32 (stored vectors must not drift)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"


def keyword_candidates(query: str, search_filter: SearchFilter, limit: int = 50, also: Others | None = None) -> list[tuple[int, float]]:
    """(memory id, ts_rank): the best `limit`, then the scores of those of the other arms'
    candidates (`also` returns them, already inside the filter) that matched but ranked
    lower."""
    tokens = query_tokens(query)
    if not tokens:
        return []
    # plainto_tsquery never raises on user text; OR-ing one per token mirrors the FTS5 query.
    ored = " || ".join(["plainto_tsquery('english', %s)"] * len(tokens))
    tsquery = f"WITH q AS (SELECT ({ored}) AS query) "
    rank = "SELECT m.id, ts_rank(m.search_tsv, q.query, 1) AS rank FROM memories_memory m, q WHERE m.search_tsv @@ q.query "
    where, params = filter_sql(search_filter)
    with connection.cursor() as cursor:
        cursor.execute(f"{tsquery}{rank}AND {where} ORDER BY rank DESC, m.id LIMIT %s", [*tokens, *params, limit])
        ranked = [(int(row[0]), float(row[1])) for row in cursor.fetchall()]
        wanted = set(also()).difference(memory_id for memory_id, _ in ranked) if also is not None else set()
        if wanted:
            cursor.execute(f"{tsquery}{rank}AND m.id = ANY(%s) AND {where}", [*tokens, sorted(wanted), *params])
            ranked += sorted(((int(row[0]), float(row[1])) for row in cursor.fetchall()), key=lambda row: -row[1])
    return ranked


def vector_candidates(
    query_vector: np.ndarray,
    search_filter: SearchFilter,
    limit: int,
    *,
    model_name: str,
    exact: bool = False,
    ef_search: int | None = None,
) -> list[tuple[int, float]]:
    """Nearest memories by cosine. 384-d vectors use the HNSW index (with pgvector's
    iterative scan, so a selective filter still fills `limit`); `exact=True` or any other
    dimension scans exactly."""
    dimension = int(query_vector.shape[0])
    where, params = filter_sql(search_filter)
    cast = f"::vector({dimension})"
    distance = f"(m.embedding_vec{cast} <=> %s{cast})"
    # "+ 0" turns the ORDER BY into an expression no index matches: an exact scan.
    order = f"{distance} + 0" if exact or dimension != HNSW_DIMENSION else distance
    dimension_clause = f"m.embedding_dim = {HNSW_DIMENSION}" if dimension == HNSW_DIMENSION else "m.embedding_dim = %s"
    sql = (
        f"SELECT m.id, 1 - {distance} AS cosine FROM memories_memory m "
        f"WHERE {dimension_clause} AND m.embedding_model = %s AND m.embedding_vec IS NOT NULL AND {where} "
        f"ORDER BY {order} LIMIT %s"
    )
    literal = vector_literal(query_vector)
    dimension_params = [] if dimension == HNSW_DIMENSION else [dimension]
    with connection.cursor() as cursor:
        cursor.execute("SET hnsw.iterative_scan = relaxed_order")
        ef = int(ef_search) if ef_search else max(HNSW_EF_SEARCH, limit * 4)
        cursor.execute(f"SET hnsw.ef_search = {max(10, min(1000, ef))}")
        cursor.execute(sql, [literal, *dimension_params, model_name, *params, literal, limit])
        rows = cursor.fetchall()
    results = [(int(row[0]), float(row[1])) for row in rows]
    results.sort(key=lambda item: item[1], reverse=True)  # relaxed_order may return slightly out of order
    return results


def vectors_for(memory_ids: list[int], *, model_name: str, dimension: int) -> dict[int, np.ndarray]:
    from memories.embeddings.store import stored_vectors

    return stored_vectors(memory_ids, model_name=model_name, dimension=dimension)


# The store's mean vector and bm25's corpus figures move slowly, and each is a scan of the
# whole table: a process keeps them this many seconds. Not inside a transaction, whose own
# writes (and a test's rolled-back ones) must not outlive it.
CORPUS_TTL_S = 60.0
_corpus_lock = threading.Lock()
_corpus: dict[tuple[Any, ...], tuple[float, Any]] = {}


def _cached(key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    if connection.in_atomic_block:
        return compute()
    key = (connection.settings_dict["NAME"], *key)
    now = time.monotonic()
    with _corpus_lock:
        hit = _corpus.get(key)
        if hit is not None and now - hit[0] < CORPUS_TTL_S:
            return cast(T, hit[1])
    value = compute()
    with _corpus_lock:
        _corpus[key] = (now, value)
    return value


# FTS5's bm25 constants, so one relevance floor means the same on both databases.
BM25_K1 = 1.2
BM25_B = 0.75


def bm25_scores(tokens: list[str], memory_ids: list[int]) -> dict[int, float]:
    """Okapi bm25 of each given memory for the query tokens (query_tokens' output), as FTS5
    computes it (idf floored at 1e-6), over the lexemes of search_tsv: ts_rank is a
    different scale, and the recall floor needs the absolute keyword evidence SQLite's bm25
    gives. A document's length is its count of distinct lexemes (a tsvector keeps no token
    count), and the average is taken the same way, so the length ratio means what FTS5's
    does. A memory that shares no lexeme with the tokens is left out, as FTS5 leaves out a
    row that does not match."""
    if not tokens or not memory_ids:
        return {}
    sql = f"""
        WITH q AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', %s))),
        stats AS (SELECT %s::float AS n, %s::float AS avgdl),
        df AS (
            SELECT q.lexeme, (SELECT count(*) FROM memories_memory m WHERE m.search_tsv @@ quote_literal(q.lexeme)::tsquery)::float AS df
            FROM q
        )
        SELECT m.id, sum(
            greatest(ln((stats.n - df.df + 0.5) / (df.df + 0.5)), 1e-6)
            * (coalesce(array_length(u.positions, 1), 1) * {BM25_K1 + 1})
            / (coalesce(array_length(u.positions, 1), 1) + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * length(m.search_tsv) / stats.avgdl))
        )
        FROM memories_memory m CROSS JOIN stats
        CROSS JOIN LATERAL unnest(m.search_tsv) AS u
        JOIN df ON df.lexeme = u.lexeme
        WHERE m.id = ANY(%s)
        GROUP BY m.id
    """
    n, avgdl = _cached(("corpus",), _corpus_figures)
    with connection.cursor() as cursor:
        cursor.execute(sql, [" ".join(tokens), n, avgdl, list(memory_ids)])
        return {int(mid): float(score) for mid, score in cursor.fetchall()}


def _corpus_figures() -> tuple[float, float]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), greatest(avg(length(search_tsv)), 1) FROM memories_memory")
        n, avgdl = cursor.fetchone()
    return float(n), float(avgdl)


def mean_vector(*, model_name: str, dimension: int) -> np.ndarray | None:
    """The mean of the stored vectors of one model: the centre a query's cosine to the
    store is measured from (what the in-process index keeps on SQLite)."""
    return _cached(("mean", model_name, dimension), lambda: _mean_vector(model_name, dimension))


def _mean_vector(model_name: str, dimension: int) -> np.ndarray | None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT avg(embedding_vec::vector({int(dimension)}))::text FROM memories_memory "
            "WHERE embedding_vec IS NOT NULL AND embedding_model = %s AND embedding_dim = %s",
            [model_name, dimension],
        )
        row = cursor.fetchone()
    if not row or row[0] is None:
        return None
    return np.array([float(x) for x in row[0].strip("[]").split(",")], dtype=np.float32)
