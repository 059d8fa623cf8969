"""Cosine search over the normalised float32 vectors of every memory.

A search reads few bytes: a one-bit-per-dimension sign code of every row (48 bytes for
384 dimensions, a 32nd of the float32 row) ranks the rows in scope by Hamming distance,
and only a shortlist of the closest is rescored exactly in float32. The codes are stored
column by column (one uint64 array per 64 dimensions) so the first pass is a handful of
vectorised XOR + popcount sweeps. Rows are indexed by advertiser, so a scoped search
touches only its advertisers' rows and the global ones. `search(..., exact=True)` is the
plain float32 scan, kept as the reference the fast path is measured against.

One index per machine, not per process. On a SQLite file database the float32 vectors
(1.5 KB of the about 1.6 KB a row costs) live in `<database>.<model key>.vectors`, which
every process maps read-only and shares through the page cache (memories/search/vector_file.py: layout,
locking, and why a slower process never writes an older vector over a newer one). Each
process keeps only what is small and its own: the metadata arrays the structured filter
reads (status, expiry, advertiser, business line, layer, importance, creation time: about
45 bytes a row), the sign codes (48 bytes a row, centred on this process's mean vector,
which is why they are not in the file: a shared centre would have to be agreed and
the codes rewritten whenever it moved) and the row of each id. A ':memory:' or
shared-cache test database has no file to put beside it: there the vectors stay in the
process (`LocalVectors`), as they do if the file cannot be opened.

Before each search the index reads the one-row search state (generation, epoch) kept by
triggers. A new generation means rows changed: the rows with search_rev above the last
generation seen are read with their vectors (written to the file by whichever process
reads them first), and the memories deleted since are read from the deletion log the
delete trigger fills (migration 0010) and dropped, their slots zeroed; nothing is reloaded
in full. A search only reads the log: maintenance trims it (`prune_deletion_log`, run by
`memory maintain --task vector-log` and its schedule, memories/lifecycle/vector_log.py: the
newest LOG_KEEP deletes stay, with a marker where the others were). A full load happens
on a process's first search, a new epoch, a generation that went back (a restored
database), another embedding model or dimension, a file replaced, removed or cut short, or
a process so far behind that the log no longer holds every delete it has not seen; it reads
the metadata and only the vectors the file does not hold.
Writes from another process (web, qcluster, CLI) are seen on the next search.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import numpy as np
from django.db import DatabaseError, connection, transaction

from memories.constants import LAYER_CODES, Status
from memories.embeddings import get_embedder
from memories.search.filters import SearchFilter
from memories.search.fts import organised_ids
from memories.search.state import read_search_state
from memories.search.vector_file import LocalVectors, SharedVectors, erase_orphans, shared_path, tidy_other_files

logger = logging.getLogger(__name__)

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
    "SELECT id, search_rev, {blob}, embedding IS NOT NULL AND embedding_model = %s AND embedding_dim = %s, "
    "status, expires_at, advertiser, business_line, layer, importance, created_at "
)
_PER_ROW = ("has_vector", "active", "expires", "advertiser", "business_line", "layer", "importance", "created")
_FIELDS = ("ids", *_PER_ROW)
# Rows converted, vectors read or scored at a time: bounds what a load or an exact scan
# holds in this process (3 MB of vectors at 384 dimensions). Larger slices cost resident
# memory for good: at 10,000 rows (15 MB) an extra worker kept about 16 MB more after its
# load, the allocator holding on to the freed slices.
_CHUNK = 2048
# Deleted rows are taken out of the arrays once there are this many (or a 16th of the rows).
_COMPACT_MIN = 4096
# The deletion log keeps the newest LOG_KEEP deletes (16 bytes each) after each maintenance
# prune (memories/lifecycle/vector_log.py): a process fewer deletes behind catches up from
# the log, one further behind loads in full (1.1 s for an extra worker at 100k memories over the shared file,
# docs/benchmarks/search-speed.md), once, like a worker that has just started.
LOG_KEEP = 10_000
# memory_id of the row a prune leaves in the log, under the newest generation it removed.
_PRUNED = -1


@dataclass
class _Rows:
    ids: np.ndarray
    has_vector: np.ndarray
    active: np.ndarray
    expires: np.ndarray
    advertiser: np.ndarray
    business_line: np.ndarray
    layer: np.ndarray
    # Ranking metadata, so fusion needs no extra query (both columns bump search_rev).
    importance: np.ndarray
    created: np.ndarray


def _empty_rows() -> _Rows:
    empty = np.zeros(0)
    return _Rows(
        ids=empty.astype(np.int64),
        has_vector=empty.astype(bool),
        active=empty.astype(bool),
        expires=empty,
        advertiser=empty.astype(np.int32),
        business_line=empty.astype(np.int32),
        layer=empty.astype(np.int8),
        importance=empty,
        created=empty,
    )


def _file_identity() -> tuple[str, int]:
    """(token, generation) of the database, which the shared vector file must match."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT token FROM memories_vectorfile WHERE id = 1), (SELECT generation FROM memories_searchstate WHERE id = 1)"
        )
        token, generation = cursor.fetchone()
    if token is None:
        raise DatabaseError("memories_vectorfile holds no token")
    return str(token), int(generation or 0)


def prune_deletion_log(*, keep: int = LOG_KEEP) -> int:
    """Remove all but the newest `keep` deletes from the log (memories_vectordeletion) and
    leave in their place one marker row (memory_id -1) under the newest generation removed.
    Returns how many deletes went.

    The database does not know how far behind each process is, so it cannot tell which rows
    no reader needs. The marker lets a reader tell instead: a process that last saw a
    generation older than the marker's reads the marker among the rows after it, knows some
    deletes are missing, and loads in full (VectorIndex.refresh), which reads the rows that
    exist and zeroes the file's slots of the others. A reader at or past the marker needs
    none of the rows removed. The prune and its marker commit together, and a reader reads
    the log in one statement, so no reader sees the deletes gone without the marker."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT rev FROM memories_vectordeletion WHERE memory_id != %s ORDER BY rev DESC LIMIT 1 OFFSET %s", [_PRUNED, keep])
        row = cursor.fetchone()
        if row is None:
            return 0
        horizon = int(row[0])
        cursor.execute("SELECT count(*) FROM memories_vectordeletion WHERE rev <= %s AND memory_id != %s", [horizon, _PRUNED])
        removed = int(cursor.fetchone()[0])
        cursor.execute("DELETE FROM memories_vectordeletion WHERE rev <= %s", [horizon])
        cursor.execute("INSERT INTO memories_vectordeletion(memory_id, rev) VALUES (%s, %s)", [_PRUNED, horizon])
    return removed


def _model_in_use(model: str, dim: int) -> bool:
    """Whether some memory is embedded with this model and dimension."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM memories_memory WHERE embedding IS NOT NULL AND embedding_model = %s AND embedding_dim = %s LIMIT 1",
            [model, dim],
        )
        return cursor.fetchone() is not None


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
        self._database = ""
        self._rows: _Rows | None = None
        self._store: LocalVectors | SharedVectors = LocalVectors(0)
        # Row of each memory id (-1: not held): a dense array, since ids are dense.
        self._row_by_id = np.full(0, -1, dtype=np.int64)
        # Rows of deleted memories, no longer matched and dropped from the arrays in bulk.
        self._dead: set[int] = set()
        self._codes: dict[str, dict[str, int]] = {"advertiser": {}, "business_line": {"": 0}}
        self._tentative_ids: set[int] = set()
        self._tentative_all = False
        # First-pass codes (see sign_codes) and, per advertiser code, the rows it owns.
        self._centre = np.zeros(0, dtype=np.float32)
        self._codes_bits = np.zeros((0, 0), dtype=np.uint64)
        self._scope_rows: dict[int, np.ndarray] = {}
        self._sorted_ids: np.ndarray | None = None
        self._sorted_rows = np.zeros(0, dtype=np.int64)
        # (database, generation, epoch, model, dim) the rows reflect, when nothing is
        # tentative: the lock-free check at the start of refresh. None while a refresh is
        # changing them.
        self._clean: tuple[str, int, int, str, int] | None = None
        # How the index was brought up to date, for tests and benches: "full" loads,
        # "incremental" ones, the rows "deleted" from it without a reload, and the vectors
        # a full load had to read from the database ("vectors_read": the shared file lacked them).
        self.loads: Counter[str] = Counter()

    @property
    def shared(self) -> bool:
        """Whether the vectors live in the machine's shared file (not this process)."""
        return self._store.shared

    # -- loading ---------------------------------------------------------------
    def _code(self, vocab: str, value: str | None) -> int:
        if value is None:
            return _GLOBAL
        table = self._codes[vocab]
        if value not in table:
            table[value] = len(table)
        return table[value]

    def _fetch(self, since: int | None, vectors: bool = True) -> Iterator[list[tuple]]:
        """The rows changed after generation `since` (None: every row), with their vectors
        or without (a full load over a shared file that holds them reads only metadata).
        Chunk by chunk, so 100k rows never sit in Python objects at once."""
        sql = _COLUMNS.format(blob="embedding" if vectors else "NULL") + "FROM memories_memory"
        params: list = [self._model, self._dim]
        if since is not None:
            sql += " WHERE search_rev > %s"
            params.append(since)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            while chunk := cursor.fetchmany(_CHUNK):
                yield chunk

    def _fetch_ids(self, ids: Iterable[int]) -> list[tuple]:
        found: list[tuple] = []
        ordered = sorted(ids)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            with connection.cursor() as cursor:
                cursor.execute(
                    _COLUMNS.format(blob="embedding") + f"FROM memories_memory WHERE id IN ({', '.join(['%s'] * len(chunk))})",
                    [self._model, self._dim, *chunk],
                )
                found.extend(cursor.fetchall())
        return found

    def _deleted_since(self, since: int) -> dict[int, int] | None:
        """memory id -> generation of its delete, for the deletes after `since` (the log the
        delete trigger of migration 0010 fills; SQLite only, as the search state is); None
        when the log was pruned past `since` (see prune_deletion_log): some of those deletes
        are gone from it, and only a full load is sure to drop them."""
        if connection.vendor != "sqlite":
            return {}
        with connection.cursor() as cursor:
            # One statement, one snapshot: a prune commits its marker and its deletes together.
            cursor.execute("SELECT memory_id, max(rev) FROM memories_vectordeletion WHERE rev > %s GROUP BY memory_id", [since])
            found = {int(memory_id): int(rev) for memory_id, rev in cursor.fetchall()}
        return None if _PRUNED in found else found

    def _convert(self, raw: list[tuple]) -> tuple[_Rows, np.ndarray, np.ndarray | None]:
        """The rows' metadata, their search_rev, and their vectors when the rows carry them
        (zeros for a row without a vector of the current model)."""
        n = len(raw)
        has_vector = np.array([bool(row[3]) for row in raw], dtype=bool)
        vectors = None
        if any(row[2] is not None for row in raw):
            vectors = np.zeros((n, self._dim), dtype=np.float32)
            for i, row in enumerate(raw):
                if has_vector[i] and row[2] is not None:
                    vectors[i] = np.frombuffer(bytes(row[2]), dtype=np.float32)
                else:
                    has_vector[i] = False
        expires = np.full(n, _NO_EXPIRY)
        for i, row in enumerate(raw):
            if row[5] is not None:
                expires[i] = _timestamp(row[5])
        rows = _Rows(
            ids=np.array([row[0] for row in raw], dtype=np.int64),
            has_vector=has_vector,
            active=np.array([row[4] == Status.ACTIVE for row in raw], dtype=bool),
            expires=expires,
            advertiser=np.array([self._code("advertiser", row[6]) for row in raw], dtype=np.int32),
            business_line=np.array([self._code("business_line", row[7] or "") for row in raw], dtype=np.int32),
            layer=np.array([LAYER_CODES.index(row[8]) if row[8] in LAYER_CODES else -1 for row in raw], dtype=np.int8),
            importance=np.array([float(row[9] or 0) for row in raw], dtype=np.float64),
            created=np.array([_timestamp(row[10]) for row in raw], dtype=np.float64),
        )
        return rows, np.array([int(row[1] or 0) for row in raw], dtype=np.int64), vectors

    def _open_store(self) -> LocalVectors | SharedVectors:
        """The shared file beside a SQLite file database; the process's own array otherwise
        (or when the file cannot be used: the search still works, per process)."""
        self._store.close()
        path = shared_path(connection.settings_dict["NAME"], self._model, self._dim) if connection.vendor == "sqlite" else None
        if path is not None:
            try:
                store = SharedVectors(path, self._model, self._dim, _file_identity)
            except (OSError, DatabaseError) as exc:
                logger.warning("vector index kept in process: %s cannot be used (%s)", path, exc)
            else:
                return store
        return LocalVectors(self._dim)

    def _tidy_other_files(self, deleted: tuple[np.ndarray, np.ndarray] | None, live: tuple[np.ndarray, int] | None = None) -> None:
        """The files other models keep beside ours (vector_file.tidy_other_files): a full
        load removes those no row needs and, committed, zeroes in the others the ids that
        are no rows any more (`live`); a delete is zeroed in the others too."""
        path = shared_path(connection.settings_dict["NAME"], self._model, self._dim)
        if path is None:
            return
        try:
            tidy_other_files(Path(connection.settings_dict["NAME"]), path, _file_identity, _model_in_use, deleted, live)
        except (OSError, DatabaseError) as exc:
            logger.warning("vector files of other models beside %s not tidied (%s)", path, exc)

    def refresh(self) -> None:
        """Bring the cache up to date with the database.

        Inside a transaction the generation we read may include our own uncommitted
        writes, and a rollback would reuse those numbers. So the cursor we advance
        (`_generation`) only ever comes from reads outside a transaction; rows seen
        inside one are remembered as tentative and re-read (or dropped) afterwards, and
        their vectors stay in the process until then (the shared file holds only
        committed rows)."""
        embedder = get_embedder()
        database = str(connection.settings_dict["NAME"])
        generation, epoch = read_search_state()
        in_transaction = connection.in_atomic_block
        if (
            not in_transaction
            and self._clean == (database, generation, epoch, embedder.model_name, embedder.dimension)
            and self._store.current()
        ):
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
            needs_full = (
                (embedder.model_name, embedder.dimension, database) != (self._model, self._dim, self._database)
                or self._rows is None
                or epoch != self._epoch
                or generation < self._generation
                or self._tentative_all
                or (in_transaction and self._generation < 0)
                or not self._store.current()
            )
            deleted: dict[int, int] = {}
            if not needs_full and generation != self._generation:
                logged = self._deleted_since(self._generation)
                if logged is None:
                    needs_full = True
                    self.loads["log_pruned"] += 1
                else:
                    deleted = logged
            if needs_full:
                self._model, self._dim, self._database = embedder.model_name, embedder.dimension, database
                self._load_all(committed=not in_transaction, generation=generation)
                self._tentative_ids = set()
                self._tentative_all = in_transaction
                self.loads["full"] += 1
            elif generation != self._generation or self._tentative_ids:
                self._load_changes(generation, in_transaction, deleted)
                self.loads["incremental"] += 1
            if not in_transaction:
                self._generation, self._epoch = generation, epoch
            elif needs_full:
                self._generation, self._epoch = -1, epoch
            if not in_transaction and not self._tentative_ids and not self._tentative_all:
                self._clean = (database, generation, epoch, self._model, self._dim)

    def _load_all(self, *, committed: bool, generation: int) -> None:
        """Every row's metadata from the database; the vectors from the shared file, reading
        from the database (and writing to the file) only those it does not hold yet, and
        zeroing the slots of rows deleted while no process was there to see it."""
        self._codes = {"advertiser": {}, "business_line": {"": 0}}
        self._rows = None
        self._store = self._open_store()
        # A new file (or the process's own array) holds nothing: read the vectors in the
        # same pass. Otherwise read metadata only, then the vectors the file lacks, by id.
        cold = not len(self._store.held_ids())
        with connection.cursor() as cursor:
            cursor.execute("SELECT max(id) FROM memories_memory")
            self._store.reserve(int(cursor.fetchone()[0] or 0))
        parts = []
        for chunk in self._fetch(None, vectors=cold):
            some, some_revs, vectors = self._convert(chunk)
            if vectors is not None:
                keep = some.has_vector
                self._store.put(some.ids[keep], some_revs[keep], vectors[keep], committed=committed)
                self.loads["vectors_read"] += int(keep.sum())
            parts.append((some, some_revs))
        rows = _Rows(*(np.concatenate([getattr(p[0], f) for p in parts]) for f in _FIELDS)) if parts else _empty_rows()
        revs = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        del parts
        missing = rows.ids[rows.has_vector & (self._store.revs(rows.ids) < revs)] if not cold else rows.ids[:0]
        self.loads["vectors_read"] += len(missing)
        for start in range(0, len(missing), _CHUNK):
            fetched, fetched_revs, vectors = self._convert(self._fetch_ids(missing[start : start + _CHUNK].tolist()))
            if vectors is not None:
                keep = fetched.has_vector
                self._store.put(fetched.ids[keep], fetched_revs[keep], vectors[keep], committed=committed)
        if committed:
            # Only slots older than the generation read first: a row another process
            # inserted since is not ours to zero.
            erase_orphans(self._store, rows.ids, generation)
        if self._store.shared:
            # The other models' files: deletes no process of theirs has seen are zeroed
            # there too (a fresh `memory erase` process only ever loads in full).
            self._tidy_other_files(None, (rows.ids, generation) if committed else None)
        self._rows = rows
        self._index_rows()
        self._dead = set()
        self._build_first_pass()

    def _index_rows(self) -> None:
        rows = self._rows
        assert rows is not None
        top = int(rows.ids.max()) + 1 if len(rows.ids) else 0
        self._row_by_id = np.full(top, -1, dtype=np.int64)
        self._row_by_id[rows.ids] = np.arange(len(rows.ids), dtype=np.int64)
        self._sorted_ids = None

    def _load_changes(self, generation: int, in_transaction: bool, deleted: dict[int, int]) -> None:
        """Rows deleted (`deleted`: read from the log by the caller) or changed after the
        generation last seen, and rows seen tentatively inside a transaction that has ended
        since: patched in place, no full reload."""
        raw = [row for chunk in self._fetch(self._generation) for row in chunk] if generation != self._generation else []
        if not in_transaction and self._tentative_ids:
            recheck = self._tentative_ids - {int(row[0]) for row in raw}
            rechecked = self._fetch_ids(recheck)
            vanished = recheck - {int(row[0]) for row in rechecked}
            self._drop(vanished)
            self._store.forget(np.fromiter(vanished, dtype=np.int64, count=len(vanished)))
            raw = raw + rechecked
        # A row read now exists now, whatever the log says of an earlier delete of its id.
        gone = {memory_id: rev for memory_id, rev in deleted.items() if memory_id not in {int(row[0]) for row in raw}}
        if gone:
            ids = np.fromiter(gone, dtype=np.int64, count=len(gone))
            self._drop(set(gone))
            if in_transaction:
                # The delete may yet be rolled back: look again once the transaction ends.
                self._tentative_ids.update(gone)
                self._store.forget(ids)
            else:
                revs = np.fromiter(gone.values(), dtype=np.int64, count=len(gone))
                self._store.erase(ids, revs)
                if self._store.shared:
                    self._tidy_other_files((ids, revs))
            self.loads["deleted"] += len(gone)
        if raw:
            changed, revs, vectors = self._convert(raw)
            if vectors is None:
                vectors = np.zeros((len(raw), self._dim), dtype=np.float32)
            keep = changed.has_vector
            self._store.put(changed.ids[keep], revs[keep], vectors[keep], committed=not in_transaction)
            self._patch(changed, vectors)
        if in_transaction:
            self._tentative_ids.update(int(row[0]) for row in raw)
        else:
            self._tentative_ids = set()
        if len(self._dead) > max(_COMPACT_MIN, len(self._rows.ids) // 16 if self._rows is not None else 0):
            self._compact()

    def _build_first_pass(self) -> None:
        """The centre and every row's sign code, read from the store a chunk at a time (a
        whole-matrix expression would copy the shared file into this process)."""
        rows = self._rows
        assert rows is not None
        with_vector = rows.ids[rows.has_vector]
        total = np.zeros(self._dim, dtype=np.float64)
        for start in range(0, len(with_vector), _CHUNK):
            total += self._store.take(with_vector[start : start + _CHUNK]).sum(axis=0, dtype=np.float64)
        self._centre = (total / len(with_vector)).astype(np.float32) if len(with_vector) else np.zeros(self._dim, dtype=np.float32)
        width = -(-self._dim // 64)
        self._codes_bits = np.zeros((width, len(rows.ids)), dtype=np.uint64)
        for start in range(0, len(rows.ids), _CHUNK):
            self._codes_bits[:, start : start + _CHUNK] = sign_codes(self._store.take(rows.ids[start : start + _CHUNK]), self._centre)
        self._regroup_scopes()

    def _regroup_scopes(self) -> None:
        rows = self._rows
        assert rows is not None
        order = np.argsort(rows.advertiser, kind="stable")
        codes, starts = np.unique(rows.advertiser[order], return_index=True)
        ends = [*starts[1:], len(order)] if len(starts) else []  # an empty store has no scope to close
        self._scope_rows = {int(code): order[start:end] for code, start, end in zip(codes, starts, ends, strict=True)}

    def _rows_of(self, memory_ids: np.ndarray) -> np.ndarray:
        """The row of each id, -1 for an id the index does not hold."""
        at = np.full(len(memory_ids), -1, dtype=np.int64)
        inside = (memory_ids >= 0) & (memory_ids < len(self._row_by_id))
        at[inside] = self._row_by_id[memory_ids[inside]]
        return at

    def _drop(self, ids: set[int]) -> None:
        """Rows that vanished (deleted, or an insert rolled back): never match them again.
        They keep their place until the next compaction, so a rolled-back delete that
        brings a row back finds it where it was."""
        rows = self._rows
        assert rows is not None
        if not ids:
            return
        at = self._rows_of(np.fromiter(ids, dtype=np.int64, count=len(ids)))
        at = at[at >= 0]
        rows.active[at] = False
        rows.has_vector[at] = False
        self._dead.update(int(i) for i in rows.ids[at])

    def _compact(self) -> None:
        """Take the rows of deleted memories out of every array (no database read)."""
        rows = self._rows
        assert rows is not None
        keep = ~np.isin(rows.ids, np.fromiter(self._dead, dtype=np.int64, count=len(self._dead)))
        self._rows = _Rows(*(getattr(rows, f)[keep] for f in _FIELDS))
        self._codes_bits = np.ascontiguousarray(self._codes_bits[:, keep])
        self._dead = set()
        self._index_rows()
        self._regroup_scopes()

    def _patch(self, changed: _Rows, vectors: np.ndarray) -> None:
        rows = self._rows
        assert rows is not None
        codes = sign_codes(vectors, self._centre)
        at = self._rows_of(changed.ids)
        held = np.flatnonzero(at >= 0)
        if len(held):
            moved = bool((rows.advertiser[at[held]] != changed.advertiser[held]).any())
            for name in _PER_ROW:
                getattr(rows, name)[at[held]] = getattr(changed, name)[held]
            self._codes_bits[:, at[held]] = codes[:, held]
            self._dead.difference_update(changed.ids[held].tolist())
        else:
            moved = False
        fresh = np.flatnonzero(at < 0)
        if len(fresh):
            start = len(rows.ids)
            for name in _FIELDS:
                setattr(rows, name, np.concatenate([getattr(rows, name), getattr(changed, name)[fresh]]))
            top = int(changed.ids[fresh].max()) + 1
            if top > len(self._row_by_id):
                grown = np.full(max(top, len(self._row_by_id) * 5 // 4), -1, dtype=np.int64)
                grown[: len(self._row_by_id)] = self._row_by_id
                self._row_by_id = grown
            self._row_by_id[changed.ids[fresh]] = np.arange(start, len(rows.ids), dtype=np.int64)
            self._codes_bits = np.concatenate([self._codes_bits, codes[:, fresh]], axis=1)
            if not moved:
                added = np.arange(start, len(rows.ids), dtype=np.int64)
                for code in np.unique(rows.advertiser[added]):
                    mine = added[rows.advertiser[added] == code]
                    before = self._scope_rows.get(int(code))
                    self._scope_rows[int(code)] = mine if before is None else np.concatenate([before, mine])
        if moved:
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
            scores = self._score(at, query_vector)
            limit = min(limit, len(at))
            top = np.argpartition(-scores, limit - 1)[:limit]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(int(rows.ids[i]), float(s)) for i, s in zip(at[top], scores[top], strict=True)]

    def _score(self, at: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
        """Cosine of the query to each of these rows, read from the store a chunk at a time."""
        rows = self._rows
        assert rows is not None
        # Up to 8,192 rows (12 MB at 384 dimensions) in one read: a shortlist is SHORTLIST_MIN
        # rows or SHORTLIST_PER_RESULT per result, plus the rows tied at its cut, so it often
        # passes SHORTLIST_MIN a little; larger sets (an exact scan) go a chunk at a time.
        if len(at) <= 4 * _CHUNK:
            return self._store.take(rows.ids[at]) @ query_vector
        scores = np.empty(len(at), dtype=np.float32)
        for start in range(0, len(at), _CHUNK):
            scores[start : start + _CHUNK] = self._store.take(rows.ids[at[start : start + _CHUNK]]) @ query_vector
        return scores

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
            held = [(memory_id, at) for memory_id, at in self._held(memory_ids) if rows.has_vector[at]]
            if not held:
                return {}
            taken = self._store.take(np.array([rows.ids[at] for _, at in held], dtype=np.int64))
            return {memory_id: taken[k] for k, (memory_id, _) in enumerate(held)}

    def _held(self, memory_ids: list[int]) -> list[tuple[int, int]]:
        """(memory id, row) of the ids the index holds; call with the lock held."""
        at = self._rows_of(np.asarray(memory_ids, dtype=np.int64))
        return [(memory_id, int(row)) for memory_id, row in zip(memory_ids, at.tolist(), strict=True) if row >= 0]

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
            scores = self._score(at, query_vector)
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
