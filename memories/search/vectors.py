"""Cosine search over an in-process matrix of normalised float32 vectors.

A search reads few bytes: a one-bit-per-dimension sign code of every row (48 bytes for
384 dimensions, a 32nd of the float32 row) ranks the rows in scope by Hamming distance,
and only a shortlist of the closest is rescored exactly in float32. The codes are stored
column by column (one uint64 array per 64 dimensions) so the first pass is a handful of
vectorised XOR + popcount sweeps. Rows are indexed by advertiser, so a scoped search
touches only its advertisers' rows and the global ones. `search(..., exact=True)` is the
plain float32 scan, kept as the reference the fast path is measured against.

Every process keeps one `VectorIndex`. Before each search it reads the one-row search
state (generation, epoch) kept by triggers: a new generation means rows changed and only
those rows (search_rev > last seen) are reloaded; a new epoch (a delete) means a full
reload. So writes from another process (web, qcluster, CLI) are seen on the next search.
The structured filter is evaluated with numpy on metadata arrays held beside the matrix.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC

import numpy as np
from django.db import connection

from memories.constants import LAYER_CODES, Status
from memories.embeddings import get_embedder
from memories.search.filters import SearchFilter
from memories.search.fts import organised_ids
from memories.search.state import read_search_state

_NO_EXPIRY = np.inf
_GLOBAL = -1

# Rows rescored exactly after the sign-code pass: at least SHORTLIST_MIN, or
# SHORTLIST_PER_RESULT per requested result. On the bench.latency corpus (100k rows, 50
# noisy copies of each of 2,000 real texts, the hardest case for one-bit codes) the vector
# side's top 10 matched the exact float32 scan's at 0.966 with 1,000 rows rescored, 0.987
# with 2,000, 0.995 with 3,000 and 0.998 with 4,000; bench.latency and bench.vs_lancedb
# report that recall in every run. 4,000 rows are 4% of the matrix's bytes.
SHORTLIST_MIN = 4000
SHORTLIST_PER_RESULT = 64
_COLUMNS = (
    "SELECT id, embedding, embedding_model, embedding_dim, status, expires_at, advertiser, business_line, layer, importance, created_at "
)
_PER_ROW = ("matrix", "has_vector", "active", "expires", "advertiser", "business_line", "layer", "importance", "created")


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
    # Ranking metadata, so fusion needs no extra query (both columns bump search_rev).
    importance: np.ndarray
    created: np.ndarray


def sign_codes(matrix: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """(words, n) uint64: bit d of row i is set when matrix[i, d] > centre[d].

    Centring first matters: embeddings share a large common direction, and the signs of
    raw components would be nearly the same for every row."""
    n, dim = matrix.shape
    packed = np.packbits(matrix > centre, axis=1)
    width = -(-dim // 64) * 8
    if packed.shape[1] != width:
        packed = np.pad(packed, ((0, 0), (0, width - packed.shape[1])))
    return np.ascontiguousarray(packed.view(np.uint64).reshape(n, width // 8).T)


def _kth_smallest(distance: np.ndarray, k: int) -> int:
    """The k-th smallest of small non-negative integer distances, by counting: a histogram
    of a few hundred bins (the code width) is cheaper than a partial sort of 100k values, and keeping every
    row tied at the cut (instead of an arbitrary few of them) can only add candidates."""
    return int(np.searchsorted(np.cumsum(np.bincount(distance)), k))


def hamming(codes: np.ndarray, query_code: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Hamming distance (uint16) from the query's code to every row's (or to `rows` only)."""
    n = codes.shape[1] if rows is None else len(rows)
    distance = np.zeros(n, dtype=np.uint16)
    word = np.empty(n, dtype=np.uint64)
    ones = np.empty(n, dtype=np.uint8)
    for w in range(codes.shape[0]):
        column = codes[w] if rows is None else codes[w][rows]
        np.bitwise_xor(column, query_code[w], out=word)
        np.bitwise_count(word, out=ones)
        np.add(distance, ones, out=distance)
    return distance


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
        # First-pass codes (see sign_codes) and, per advertiser code, the rows it owns.
        self._centre = np.zeros(0, dtype=np.float32)
        self._codes_bits = np.zeros((0, 0), dtype=np.uint64)
        self._scope_rows: dict[int, np.ndarray] = {}
        self._sorted_ids: np.ndarray | None = None
        self._sorted_rows = np.zeros(0, dtype=np.int64)
        # (generation, epoch, model, dim) the rows reflect, when nothing is tentative: the
        # lock-free check at the start of refresh. None while a refresh is changing them.
        self._clean: tuple[int, int, str, int] | None = None

    # -- loading ---------------------------------------------------------------
    def _code(self, vocab: str, value: str | None) -> int:
        if value is None:
            return _GLOBAL
        table = self._codes[vocab]
        if value not in table:
            table[value] = len(table)
        return table[value]

    def _fetch(self, since: int | None) -> list[tuple]:
        sql = _COLUMNS + "FROM memories_memory"
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
            importance=np.array([float(row[9] or 0) for row in raw], dtype=np.float64),
            created=np.array([_timestamp(row[10]) for row in raw], dtype=np.float64),
        )

    def _fetch_ids(self, ids: set[int]) -> list[tuple]:
        found: list[tuple] = []
        ordered = sorted(ids)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            with connection.cursor() as cursor:
                cursor.execute(
                    _COLUMNS + f"FROM memories_memory WHERE id IN ({', '.join(['%s'] * len(chunk))})",
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
        generation, epoch = read_search_state()
        in_transaction = connection.in_atomic_block
        if not in_transaction and self._clean == (generation, epoch, embedder.model_name, embedder.dimension):
            # Nothing moved: no need to wait for the lock, which a search running on the
            # worker thread (search_soon) may hold for a millisecond or two. One attribute,
            # set last and cleared first under the lock, so this never sees half a refresh.
            return
        with self._lock:
            if not in_transaction:
                # Read again now that the lock is ours: another thread may have loaded a
                # newer state while we waited, and the number read before would then look
                # like a step back and force a full reload.
                generation, epoch = read_search_state()
            self._clean = None
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
                self._sorted_ids = None
                self._build_first_pass()
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
            if not in_transaction and not self._tentative_ids and not self._tentative_all:
                self._clean = (generation, epoch, self._model, self._dim)

    def _build_first_pass(self) -> None:
        rows = self._rows
        assert rows is not None
        with_vector = rows.matrix[rows.has_vector]
        self._centre = with_vector.mean(axis=0).astype(np.float32) if len(with_vector) else np.zeros(self._dim, dtype=np.float32)
        self._codes_bits = sign_codes(rows.matrix, self._centre)
        self._regroup_scopes()

    def _regroup_scopes(self) -> None:
        rows = self._rows
        assert rows is not None
        order = np.argsort(rows.advertiser, kind="stable")
        codes, starts = np.unique(rows.advertiser[order], return_index=True)
        ends = [*starts[1:], len(order)] if len(starts) else []  # an empty store has no scope to close
        self._scope_rows = {int(code): order[start:end] for code, start, end in zip(codes, starts, ends, strict=True)}

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
        regroup = False
        for k, memory_id in enumerate(changed.ids):
            at = self._row_of.get(int(memory_id))
            if at is None:
                fresh.append(k)
                continue
            moved = rows.advertiser[at] != changed.advertiser[k]
            for name in _PER_ROW:
                getattr(rows, name)[at] = getattr(changed, name)[k]
            self._codes_bits[:, at] = sign_codes(changed.matrix[k : k + 1], self._centre)[:, 0]
            regroup = regroup or moved
        if fresh:
            take = np.array(fresh, dtype=np.int64)
            start = len(rows.ids)
            for name in ("ids", *_PER_ROW):
                setattr(rows, name, np.concatenate([getattr(rows, name), getattr(changed, name)[take]]))
            for offset, memory_id in enumerate(changed.ids[take]):
                self._row_of[int(memory_id)] = start + offset
            self._codes_bits = np.concatenate([self._codes_bits, sign_codes(changed.matrix[take], self._centre)], axis=1)
            if not regroup:
                added = np.arange(start, len(rows.ids), dtype=np.int64)
                for code in np.unique(rows.advertiser[added]):
                    mine = added[rows.advertiser[added] == code]
                    before = self._scope_rows.get(int(code))
                    self._scope_rows[int(code)] = mine if before is None else np.concatenate([before, mine])
        if regroup:
            self._regroup_scopes()

    # -- querying ----------------------------------------------------------------
    def _scope(self, search_filter: SearchFilter) -> np.ndarray | None:
        """Rows the filter's advertiser scope may see (sorted), or None for every row."""
        if search_filter.advertisers is None:
            return None
        codes = [self._codes["advertiser"].get(a) for a in search_filter.advertisers]
        if search_filter.include_global:
            codes.append(_GLOBAL)
        parts = [self._scope_rows[c] for c in dict.fromkeys(codes) if c is not None and c in self._scope_rows]
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))

    def mask(
        self, search_filter: SearchFilter, scope: np.ndarray | None = None, *, in_scope: bool = True, need_vector: bool = True
    ) -> np.ndarray:
        """Which rows pass the structured filter: of `scope` when given (a mask over those
        rows), else of every row. `in_scope`: the rows given already belong to the filter's
        advertisers (they came from the per-advertiser index), so that check is skipped."""
        rows = self._rows
        assert rows is not None

        def column(values: np.ndarray) -> np.ndarray:
            return values if scope is None else values[scope]

        keep = column(rows.active) & (column(rows.expires) > search_filter.now.timestamp())
        if need_vector:
            keep &= column(rows.has_vector)
        if (scope is None or not in_scope) and search_filter.advertisers is not None:
            allowed = [self._codes["advertiser"].get(a, -2) for a in search_filter.advertisers]
            if search_filter.include_global:
                allowed.append(_GLOBAL)
            table = np.zeros(len(self._codes["advertiser"]) + 1, dtype=bool)
            for code in allowed:
                if code != -2:
                    table[code + 1] = True
            keep &= table[column(rows.advertiser) + 1]
        if search_filter.business_line:
            code = self._codes["business_line"].get(search_filter.business_line, -2)
            lines = column(rows.business_line)
            keep &= (lines == code) | (lines == 0)
        if search_filter.layers:
            keep &= np.isin(column(rows.layer), np.array([LAYER_CODES.index(layer) for layer in search_filter.layers], dtype=np.int8))
        if search_filter.organised:
            keep &= np.isin(column(rows.ids), np.array(organised_ids(search_filter), dtype=np.int64))
        return keep

    def search(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int, *, exact: bool = False) -> list[tuple[int, float]]:
        """(memory id, cosine) of the `limit` nearest rows inside the filter, best first."""
        self.refresh()
        return self._search_loaded(query_vector, search_filter, limit, exact=exact)

    def search_soon(self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int) -> Callable[[], list[tuple[int, float]]]:
        """Start `search` and return the function that waits for its result.

        The sweep and the rescoring run on a worker thread, so that the caller can run the
        keyword arm meanwhile: numpy and SQLite both release the GIL while they work. What
        needs the database (the refresh, and the organisation filter's id list) happens
        here first, in the caller's thread, since a connection belongs to its thread."""
        self.refresh()
        if search_filter.organised:
            hits = self._search_loaded(query_vector, search_filter, limit)
            return lambda: hits
        return _worker().submit(self._search_loaded, query_vector, search_filter, limit).result

    def _search_loaded(
        self, query_vector: np.ndarray, search_filter: SearchFilter, limit: int, *, exact: bool = False
    ) -> list[tuple[int, float]]:
        with self._lock:
            rows = self._rows
            # None only if invalidated since the caller's refresh (a restore): no rows to rank.
            if rows is None or not len(rows.ids) or limit < 1:
                return []
            if exact:
                at = np.flatnonzero(self.mask(search_filter))
            else:
                scope = self._scope(search_filter)
                keep = self.mask(search_filter, scope)
                at = np.flatnonzero(keep) if scope is None else scope[keep]
            if not len(at):
                return []
            shortlist_size = max(SHORTLIST_MIN, SHORTLIST_PER_RESULT * limit)
            if not exact and len(at) > shortlist_size:
                at = self._shortlist(query_vector, at, shortlist_size, whole=scope is None and len(at) * 2 > len(rows.ids))
            scores = rows.matrix[at] @ query_vector
            limit = min(limit, len(at))
            top = np.argpartition(-scores, limit - 1)[:limit]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(int(rows.ids[i]), float(s)) for i, s in zip(at[top], scores[top], strict=True)]

    def _shortlist(self, query_vector: np.ndarray, at: np.ndarray, size: int, whole: bool) -> np.ndarray:
        """The rows of `at` whose sign codes are nearest the query's (sorted): every row at a
        distance below the `size`-th smallest, and all the rows tied at it."""
        query_code = sign_codes(query_vector[None, :].astype(np.float32), self._centre)[:, 0]
        if whole:
            # Most rows are in: one sweep over every code, the excluded pushed to the end.
            distance = hamming(self._codes_bits, query_code)
            if len(at) != len(distance):
                excluded = np.ones(len(distance), dtype=bool)
                excluded[at] = False
                # One past the largest possible distance: last, and the histogram stays
                # as small as the code is wide.
                distance[excluded] = self._codes_bits.shape[0] * 64 + 1
            return np.flatnonzero(distance <= _kth_smallest(distance, size))
        distance = hamming(self._codes_bits, query_code, at)
        return at[distance <= _kth_smallest(distance, size)]

    def vectors_for(self, memory_ids: list[int]) -> dict[int, np.ndarray]:
        """The cached vectors of some memories (those without a current vector are absent)."""
        with self._lock:
            rows = self._rows
            if rows is None:
                return {}
            return {memory_id: rows.matrix[at] for memory_id, at in self._held(memory_ids) if rows.has_vector[at]}

    def _held(self, memory_ids: list[int]) -> list[tuple[int, int]]:
        """(memory id, row) of the ids the index holds; call with the lock held."""
        return [(memory_id, at) for memory_id in memory_ids if (at := self._row_of.get(memory_id)) is not None]

    def admit(self, memory_ids: list[int], search_filter: SearchFilter, *, refresh: bool = True) -> list[bool] | None:
        """For each id, whether its row passes the structured filter (with or without a
        vector), from the cache brought up to date first (`refresh=False`: a further batch
        of the same read, just refreshed); None when an id is unknown to the cache (the
        caller then asks the database)."""
        if refresh:
            self.refresh()
        with self._lock:
            if self._rows is None:
                return None
            wanted = np.asarray(memory_ids, dtype=np.int64)
            if not len(wanted):
                return []
            # Vectorised id -> row look-up (a dict look-up per id cost more than the filter).
            sorted_ids, order = self._id_order()
            slot = np.minimum(np.searchsorted(sorted_ids, wanted), len(sorted_ids) - 1)
            if not len(sorted_ids) or not np.array_equal(sorted_ids[slot], wanted):
                return None
            return self.mask(search_filter, order[slot], in_scope=False, need_vector=False).tolist()

    def _id_order(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids sorted, row of each): rebuilt only when rows were added since."""
        rows = self._rows
        assert rows is not None
        if self._sorted_ids is None or len(self._sorted_ids) != len(rows.ids):
            order = np.argsort(rows.ids, kind="stable")
            self._sorted_ids, self._sorted_rows = rows.ids[order], order
        return self._sorted_ids, self._sorted_rows

    def metadata_for(self, memory_ids: list[int]) -> dict[int, tuple[float, float]]:
        """(importance, created timestamp) of the memories the index holds, as fusion needs
        them; read from the cache brought up to date first, so no extra query is made."""
        self.refresh()
        with self._lock:
            rows = self._rows
            if rows is None:
                return {}
            return {memory_id: (float(rows.importance[at]), float(rows.created[at])) for memory_id, at in self._held(memory_ids)}

    def search_among(self, query_vector: np.ndarray, memory_ids: list[int], limit: int) -> list[tuple[int, float]]:
        """(memory id, cosine) of the `limit` nearest of the given ids, exactly: the vector
        arm of an as-of read, whose rows the caller chose in SQL (the index knows only
        today's statuses; it holds every row's vector, superseded and archived ones too)."""
        self.refresh()
        with self._lock:
            rows = self._rows
            if rows is None or limit < 1:
                return []
            at = np.array([row for _, row in self._held(memory_ids) if rows.has_vector[row]], dtype=np.int64)
            if not len(at):
                return []
            scores = rows.matrix[at] @ query_vector
            limit = min(limit, len(at))
            top = np.argpartition(-scores, limit - 1)[:limit]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(int(rows.ids[i]), float(s)) for i, s in zip(at[top], scores[top], strict=True)]

    def centre(self) -> np.ndarray | None:
        """The mean stored vector (of the first full load: what the sign codes are centred
        on), or None before any vector is loaded. Its cosine to a query is the query's
        average cosine to the store, the baseline memories.search.relevance measures from."""
        self.refresh()
        with self._lock:
            if self._rows is None or not len(self._centre) or not self._centre.any():
                return None
            return self._centre.copy()

    def invalidate(self) -> None:
        with self._lock:
            self._clean = None
            self._rows = None
            self._scope_rows = {}
            self._sorted_ids = None
            self._epoch = -1


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    """The process's search thread. One is enough: searches take the index lock in turn."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vector-search")
        return _pool


def _after_fork_in_child() -> None:
    # A forked child (a qcluster worker) inherits no threads, but it does inherit locks in
    # whatever state the parent's threads left them: the worker may have held the index
    # lock mid-search. Start the child with fresh ones and a pool of its own.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()
    if vector_index._lock.locked():
        # Held by a parent thread at the fork: perhaps a refresh halfway through patching
        # the arrays. Load everything afresh rather than trust them.
        vector_index._rows, vector_index._clean, vector_index._epoch = None, None, -1
    vector_index._lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _timestamp(value) -> float:
    """Seconds since the epoch for a stored date-time. Django stores UTC; SQLite hands it
    back naive (a datetime or a string), which must not be read as local time."""
    from datetime import datetime

    from django.utils.dateparse import parse_datetime

    parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
    if parsed is None:
        return _NO_EXPIRY
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


vector_index = VectorIndex()
