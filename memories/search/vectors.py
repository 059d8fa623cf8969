"""Exact cosine search over an in-process matrix of normalised float32 vectors.

Every process keeps one `VectorIndex`. Before each search it reads the one-row search
state (generation, epoch) kept by triggers: a new generation means rows changed and only
those rows (search_rev > last seen) are reloaded; a new epoch (a delete) means a full
reload. So writes from another process (web, qcluster, CLI) are seen on the next search.
The structured filter is evaluated with numpy on metadata arrays held beside the matrix.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from django.db import connection

from memories.constants import LAYER_CODES, Status
from memories.embeddings import get_embedder
from memories.search.filters import SearchFilter
from memories.search.fts import organised_ids

_NO_EXPIRY = np.inf
_GLOBAL = -1


@dataclass
class _Rows:
    ids: np.ndarray
    matrix: np.ndarray
    has_vector: np.ndarray
    active: np.ndarray
    expires: np.ndarray
    advertiser: np.ndarray
    business_line: np.ndarray
    layer: np.ndarray


class VectorIndex:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._epoch = -1
        self._model = ""
        self._dim = 0
        self._rows: _Rows | None = None
        self._row_of: dict[int, int] = {}
        self._codes: dict[str, dict[str, int]] = {"advertiser": {}, "business_line": {"": 0}}
        self._tentative_ids: set[int] = set()
        self._tentative_all = False

    # -- loading ---------------------------------------------------------------
    def _code(self, vocab: str, value: str | None) -> int:
        if value is None:
            return _GLOBAL
        table = self._codes[vocab]
        if value not in table:
            table[value] = len(table)
        return table[value]

    def _fetch(self, since: int | None) -> list[tuple]:
        sql = (
            "SELECT id, embedding, embedding_model, embedding_dim, status, expires_at, advertiser, business_line, layer "
            "FROM memories_memory"
        )
        params: list = []
        if since is not None:
            sql += " WHERE search_rev > %s"
            params.append(since)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _convert(self, raw: list[tuple]) -> _Rows:
        n = len(raw)
        matrix = np.zeros((n, self._dim), dtype=np.float32)
        has_vector = np.zeros(n, dtype=bool)
        for i, row in enumerate(raw):
            blob, model, dim = row[1], row[2], row[3]
            if blob is not None and model == self._model and dim == self._dim:
                matrix[i] = np.frombuffer(bytes(blob), dtype=np.float32)
                has_vector[i] = True
        expires = np.full(n, _NO_EXPIRY)
        for i, row in enumerate(raw):
            if row[5] is not None:
                expires[i] = _timestamp(row[5])
        return _Rows(
            ids=np.array([row[0] for row in raw], dtype=np.int64),
            matrix=matrix,
            has_vector=has_vector,
            active=np.array([row[4] == Status.ACTIVE for row in raw], dtype=bool),
            expires=expires,
            advertiser=np.array([self._code("advertiser", row[6]) for row in raw], dtype=np.int32),
            business_line=np.array([self._code("business_line", row[7] or "") for row in raw], dtype=np.int32),
            layer=np.array([LAYER_CODES.index(row[8]) if row[8] in LAYER_CODES else -1 for row in raw], dtype=np.int8),
        )

    def _state(self) -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT generation, epoch FROM memories_searchstate WHERE id = 1")
            row = cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def _fetch_ids(self, ids: set[int]) -> list[tuple]:
        found: list[tuple] = []
        ordered = sorted(ids)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT id, embedding, embedding_model, embedding_dim, status, expires_at, advertiser, business_line, layer "
                    f"FROM memories_memory WHERE id IN ({', '.join(['%s'] * len(chunk))})",
                    chunk,
                )
                found.extend(cursor.fetchall())
        return found

    def refresh(self) -> None:
        """Bring the cache up to date with the database.

        Inside a transaction the generation we read may include our own uncommitted
        writes, and a rollback would reuse those numbers. So the cursor we advance
        (`_generation`) only ever comes from reads outside a transaction; rows seen
        inside one are remembered as tentative and re-read (or dropped) afterwards."""
        embedder = get_embedder()
        generation, epoch = self._state()
        in_transaction = connection.in_atomic_block
        with self._lock:
            model_changed = (embedder.model_name, embedder.dimension) != (self._model, self._dim)
            needs_full = (
                model_changed
                or self._rows is None
                or epoch != self._epoch
                or generation < self._generation
                or self._tentative_all
                or (in_transaction and self._generation < 0)
            )
            if needs_full:
                self._model, self._dim = embedder.model_name, embedder.dimension
                self._codes = {"advertiser": {}, "business_line": {"": 0}}
                raw = self._fetch(None)
                self._rows = self._convert(raw)
                self._row_of = {int(i): k for k, i in enumerate(self._rows.ids)}
                self._tentative_ids = set()
                self._tentative_all = in_transaction
            else:
                raw = self._fetch(self._generation) if generation != self._generation else []
                if not in_transaction and self._tentative_ids:
                    recheck = self._tentative_ids - {int(row[0]) for row in raw}
                    rechecked = self._fetch_ids(recheck)
                    self._drop(recheck - {int(row[0]) for row in rechecked})
                    raw = raw + rechecked
                if raw:
                    self._patch(self._convert(raw))
                if in_transaction:
                    self._tentative_ids.update(int(row[0]) for row in raw)
                else:
                    self._tentative_ids = set()
            if not in_transaction:
                self._generation, self._epoch = generation, epoch
            elif needs_full:
                self._generation, self._epoch = -1, epoch

    def _drop(self, ids: set[int]) -> None:
        """Rows that vanished (a rolled-back insert): never match them again."""
        rows = self._rows
        assert rows is not None
        for memory_id in ids:
            at = self._row_of.get(memory_id)
            if at is not None:
                rows.active[at] = False
                rows.has_vector[at] = False

    def _patch(self, changed: _Rows) -> None:
        rows = self._rows
        assert rows is not None
        fresh = []
        for k, memory_id in enumerate(changed.ids):
            at = self._row_of.get(int(memory_id))
            if at is None:
                fresh.append(k)
                continue
            for name in ("matrix", "has_vector", "active", "expires", "advertiser", "business_line", "layer"):
                getattr(rows, name)[at] = getattr(changed, name)[k]
        if fresh:
            take = np.array(fresh, dtype=np.int64)
            start = len(rows.ids)
            for name in ("ids", "matrix", "has_vector", "active", "expires", "advertiser", "business_line", "layer"):
                setattr(rows, name, np.concatenate([getattr(rows, name), getattr(changed, name)[take]]))
            for offset, memory_id in enumerate(changed.ids[take]):
                self._row_of[int(memory_id)] = start + offset

    # -- querying ----------------------------------------------------------------
    def mask(self, search_filter: SearchFilter) -> np.ndarray:
        rows = self._rows
        assert rows is not None
        keep = rows.active & rows.has_vector & (rows.expires > search_filter.now.timestamp())
        if search_filter.advertisers is not None:
            allowed = [self._codes["advertiser"].get(a, -2) for a in search_filter.advertisers]
            if search_filter.include_global:
                allowed.append(_GLOBAL)
            # A lookup table indexed by code is one gather; np.isin sorts on every call.
            table = np.zeros(len(self._codes["advertiser"]) + 1, dtype=bool)
            for code in allowed:
                if code != -2:
                    table[code + 1] = True
            keep &= table[rows.advertiser + 1]
        if search_filter.business_line:
            code = self._codes["business_line"].get(search_filter.business_line, -2)
            keep &= (rows.business_line == code) | (rows.business_line == 0)
        if search_filter.layers:
            keep &= np.isin(rows.layer, np.array([LAYER_CODES.index(l) for l in search_filter.layers], dtype=np.int8))
        if search_filter.organised:
            keep &= np.isin(rows.ids, np.array(organised_ids(search_filter), dtype=np.int64))
        return keep

    def search(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int) -> list[tuple[int, float]]:
        self.refresh()
        with self._lock:
            rows = self._rows
            assert rows is not None
            if not len(rows.ids):
                return []
            keep = self.mask(search_filter)
            count = int(keep.sum())
            if count == 0:
                return []
            # The scan is memory-bound (100k x 384 float32 is 150 MB): when the filter keeps
            # a minority of rows, gathering them first reads far less than scoring them all.
            if count * 3 < len(keep):
                at = np.flatnonzero(keep)
                scores = rows.matrix[at] @ query_vector
            else:
                at = None
                scores = rows.matrix @ query_vector
                scores[~keep] = -np.inf
            limit = min(limit, count)
            top = np.argpartition(-scores, limit - 1)[:limit]
            top = top[np.argsort(-scores[top])]
            where = top if at is None else at[top]
            return [(int(rows.ids[i]), float(s)) for i, s in zip(where, scores[top])]

    def vectors_for(self, memory_ids: list[int]) -> dict[int, np.ndarray]:
        """The cached vectors of some memories (those without a current vector are absent)."""
        with self._lock:
            rows = self._rows
            if rows is None:
                return {}
            out = {}
            for memory_id in memory_ids:
                at = self._row_of.get(memory_id)
                if at is not None and rows.has_vector[at]:
                    out[memory_id] = rows.matrix[at]
            return out

    def invalidate(self) -> None:
        with self._lock:
            self._rows = None
            self._epoch = -1


def _timestamp(value) -> float:
    """Seconds since the epoch for a stored date-time. Django stores UTC; SQLite hands it
    back naive (a datetime or a string), which must not be read as local time."""
    from datetime import datetime, timezone as dt_timezone

    from django.utils.dateparse import parse_datetime

    parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
    if parsed is None:
        return _NO_EXPIRY
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt_timezone.utc)
    return parsed.timestamp()


vector_index = VectorIndex()
