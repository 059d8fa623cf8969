"""Where the vector index keeps its float32 vectors: a file every process of the machine
maps (`SharedVectors`), or, for a database that is not a file, the process's own array
(`LocalVectors`). Both address a vector by memory id (slot = id) and remember, per slot,
the search_rev of the row it was taken from, so they answer the same calls. A slot zeroed
for a deleted row holds minus the generation of the delete: older than any later write of
that id, and not counted among the slots that hold a vector (`held_ids`), so the next full
load does not take it for an orphan and zero it again.

The shared file, `<database file>.<model key>.vectors` (`shared_path`: the model's name
made safe for a file name, the dimension and a digest of both), one per embedding model:

    header (4096 bytes): magic, dimension, the highest rev written, the database's token
                         (memories_vectorfile, migration 0010), the embedding model's name
    slot i (8 + 4 x dim bytes, at 4096 + i x that): the rev (int64; 0 never written, minus
                         the delete's generation once zeroed) and the vector (float32)

Readers map it read-only (MAP_SHARED), so every process reads the same page-cache pages
and none holds a private copy. A process writes with pwrite under flock on the file, and
only committed rows (the caller reads them outside any transaction): a slot is written
only when its rev (its absolute value, for a zeroed slot) is older than the row's, so a
slower process never puts an older vector over a newer one, and writing the same row twice
writes the same bytes. A slot that is deleted is zeroed by the first process that sees the
delete and can write the file (the erased memory's vector does not stay in the file).

The file is replaced, never shrunk in place (another process's map of a shrunk file would
fault): a new file is written beside it and renamed over it when its header does not match
(another database's token, or a highest rev the database has not reached; another model
or dimension names another file, so meets this only in a file copied by hand). The token names the database's history: migration 0010 draws it, and
`memory restore` (lingix_site/backup.py) draws a new one on SQLite, so a file written on a
branch of history the restore threw away is never trusted, even once the restored
database's generation passes the file's highest rev. A database file copied back by hand
keeps its token: then only the highest rev tells, and only while the restored generation is
behind it; remove the `<database>.*.vectors` files after such a copy. A process that finds
its file replaced, missing or shorter than its map reloads.

Processes that embed with different models at the same time (during a change of model, or
a deployment that runs two) each keep their model's file and never touch the other's
header, so neither reloads because of the other. What the others need from one of them
(`tidy_other_files`): a delete it sees is zeroed in the other models' files too, and its
committed full loads zero there the slots of ids that are no rows any more (as in its own
file: a fresh `memory erase` process only loads in full) and remove the files of models no
memory is embedded with any more (and the one `<database>.vectors` of the layout before), so
a finished change of model leaves one file and no erased vector behind. Inside a transaction nothing is written: rows the file does
not hold yet are kept in the process (`overlay`) until they are committed."""

from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import logging
import mmap
import os
import re
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

HEADER = 4096
_MAGIC = b"LGXVEC01"
# magic, dim, (unused), highest rev written, token (32 hex chars), model (utf-8, 0-padded)
_HEAD = struct.Struct("<8sIIq32s256s")


def _slot_dtype(dim: int) -> np.dtype:
    return np.dtype([("rev", "<i8"), ("vec", "<f4", (dim,))])


class LocalVectors:
    """The process's own array, slot = id: ':memory:' and shared-cache test databases,
    whose rows no other process can read, or a file that could not be opened."""

    shared = False

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._revs = np.zeros(0, dtype=np.int64)

    def current(self) -> bool:
        return True

    def reserve(self, top: int) -> None:
        """Room for ids up to `top` at once, so a full load copies the array only once."""
        self._grow(top)

    def _grow(self, top: int) -> None:
        if top >= len(self._revs):
            size = max(top + 1, len(self._revs) * 5 // 4)
            matrix = np.zeros((size, self.dim), dtype=np.float32)
            matrix[: len(self._matrix)] = self._matrix
            revs = np.zeros(size, dtype=np.int64)
            revs[: len(self._revs)] = self._revs
            self._matrix, self._revs = matrix, revs

    def revs(self, ids: np.ndarray) -> np.ndarray:
        """The rev of the vector each slot holds (0: none, or not a committed one)."""
        held = np.zeros(len(ids), dtype=np.int64)
        inside = ids < len(self._revs)
        held[inside] = np.maximum(self._revs[ids[inside]], 0)
        return held

    def put(self, ids: np.ndarray, revs: np.ndarray, vectors: np.ndarray, *, committed: bool) -> None:
        if not len(ids):
            return
        self._grow(int(ids.max()))
        self._matrix[ids] = vectors
        # A row seen inside a transaction may be rolled back and its rev reused: hold it
        # as older than any committed rev, so a full reload reads it again.
        self._revs[ids] = revs if committed else -1

    def erase(self, ids: np.ndarray, revs: np.ndarray) -> None:
        """Zero the slots of deleted rows, marked as the shared file marks them (minus the
        delete's generation), so held_ids leaves them out."""
        inside = ids < len(self._revs)
        self._matrix[ids[inside]] = 0.0
        self._revs[ids[inside]] = -revs[inside]

    def take(self, ids: np.ndarray) -> np.ndarray:
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        inside = ids < len(self._revs)
        out[inside] = self._matrix[ids[inside]]
        return out

    def forget(self, ids: np.ndarray) -> None:
        self.erase(ids, np.zeros(len(ids), dtype=np.int64))

    def held_ids(self) -> np.ndarray:
        """The ids of the slots holding a committed vector (not zeroed since)."""
        return np.flatnonzero(self._revs > 0)

    def close(self) -> None:
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)


class SharedVectors:
    """The vectors of one database in `<database>.vectors`, mapped read-only, written under
    flock. `identity()` reads (token, committed generation) from the database; it is called
    with the file lock held, outside any transaction."""

    shared = True

    def __init__(self, path: Path, model: str, dim: int, identity: Callable[[], tuple[str, int]]) -> None:
        self.path = path
        self.model = model
        self.dim = dim
        self._identity = identity
        self._dtype = _slot_dtype(dim)
        self._fd = -1
        self._pid = 0
        self._ino = 0
        self._map: mmap.mmap | None = None
        self._mapped_ino = 0
        self._slots = np.zeros(0, dtype=self._dtype)
        # Vectors of rows seen inside a transaction, not yet in the file (id -> vector).
        self.overlay: dict[int, np.ndarray] = {}
        self._open()

    # -- the file ----------------------------------------------------------------
    def _open(self) -> None:
        mode = 0o600
        database = self.path.with_suffix("")
        if database.exists():
            mode = database.stat().st_mode & 0o666
        self._close_fd()
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, mode)
        self._pid = os.getpid()
        self._ino = os.fstat(self._fd).st_ino
        try:
            with self._locked():
                pass  # checks the header, and writes a fresh one when it does not match
            self._remap()
        except BaseException:
            self._close_fd()  # the caller falls back to the process's own array
            raise

    def _close_fd(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = -1

    def close(self) -> None:
        # Views handed out may still point into the map: drop our reference and let the
        # last view unmap it, rather than close it under them.
        self._map, self._slots = None, np.zeros(0, dtype=self._dtype)
        self._close_fd()

    def current(self) -> bool:
        """The path still names the file we map, and it is not shorter than our map."""
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            return False
        if named.st_ino != self._ino:
            return False
        mapped = len(self._map) if self._map is not None else 0
        return named.st_size >= mapped

    def _header(self) -> tuple[bytes, int, int, str, str]:
        raw = os.pread(self._fd, _HEAD.size, 0)
        if len(raw) < _HEAD.size:
            return b"", 0, 0, "", ""
        magic, dim, _, high, token, model = _HEAD.unpack(raw)
        return magic, dim, high, token.decode("ascii", "replace"), model.rstrip(b"\0").decode("utf-8", "replace")

    def _write_header(self, fd: int, high: int, token: str) -> None:
        head = _HEAD.pack(_MAGIC, self.dim, 0, high, token.encode("ascii")[:32], self.model.encode("utf-8")[:256])
        os.pwrite(fd, head.ljust(HEADER, b"\0"), 0)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the file's lock, on the file the path names now, with a header that fits this
        database and model (a fresh, empty file replaces one that does not)."""
        if self._pid != os.getpid():
            # A forked child shares the parent's open file description, and with it the
            # parent's flock: a lock of its own needs a descriptor of its own.
            self._pid = 0
            self._close_fd()
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._pid, self._ino = os.getpid(), os.fstat(self._fd).st_ino
        while True:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                named = os.stat(self.path).st_ino
            except FileNotFoundError:
                named = -1
            if named == os.fstat(self._fd).st_ino:
                break
            # Replaced (or removed) while we waited: lock the file the path names now.
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._close_fd()
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._ino = os.fstat(self._fd).st_ino
        try:
            token, generation = self._identity()
            magic, dim, high, held_token, model = self._header()
            if (magic, dim, held_token, model) != (_MAGIC, self.dim, token, self.model) or high > generation:
                self._replace(token)
            yield
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _replace(self, token: str) -> None:
        """Put an empty file with our header in place of the current one (lock held). The old
        file is renamed over, not truncated: processes that still map it keep valid pages."""
        spare = self.path.with_name(self.path.name + f".new-{os.getpid()}")
        fd = os.open(spare, os.O_RDWR | os.O_CREAT | os.O_TRUNC, os.fstat(self._fd).st_mode & 0o666)
        try:
            self._write_header(fd, 0, token)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.replace(spare, self.path)
        except BaseException:
            os.close(fd)
            raise
        logger.info("vector file %s started afresh", self.path)
        old = self._fd
        self._fd, self._ino = fd, os.fstat(fd).st_ino
        fcntl.flock(old, fcntl.LOCK_UN)
        os.close(old)

    def _remap(self) -> None:
        size = os.fstat(self._fd).st_size
        count = max(0, (size - HEADER) // self._dtype.itemsize)
        ino = os.fstat(self._fd).st_ino
        if self._map is not None and len(self._map) == size and self._mapped_ino == ino:
            return
        self._mapped_ino = ino
        self._map = mmap.mmap(self._fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ) if size else None
        self._slots = (
            np.ndarray((count,), dtype=self._dtype, buffer=self._map, offset=HEADER)
            if self._map is not None and count
            else np.zeros(0, dtype=self._dtype)
        )

    def reserve(self, top: int) -> None:
        """Nothing to do: the file grows as slots are written."""

    def sync(self) -> None:
        """Map what other processes appended since (the file only grows in place)."""
        held = os.fstat(self._fd)
        if held.st_size != (len(self._map) if self._map is not None else 0) or held.st_ino != self._mapped_ino:
            self._remap()

    # -- slots -------------------------------------------------------------------
    def revs(self, ids: np.ndarray) -> np.ndarray:
        """The rev of the vector each slot holds (0: none, never written or zeroed)."""
        self.sync()
        held = np.zeros(len(ids), dtype=np.int64)
        inside = ids < len(self._slots)
        held[inside] = np.maximum(self._slots["rev"][ids[inside]], 0)
        return held

    def put(self, ids: np.ndarray, revs: np.ndarray, vectors: np.ndarray, *, committed: bool) -> None:
        if not len(ids):
            return
        if not committed:
            for memory_id, vector in zip(ids.tolist(), vectors, strict=True):
                self.overlay[memory_id] = np.array(vector, dtype=np.float32)
            return
        for memory_id in ids.tolist():
            self.overlay.pop(memory_id, None)
        try:
            self._write(ids, revs, np.asarray(vectors, dtype=np.float32))
        except OSError as exc:
            # A full disk must not fail the search: keep these vectors in the process.
            logger.warning("vector file %s not written (%s): %d vectors kept in process", self.path, exc, len(ids))
            for memory_id, vector in zip(ids.tolist(), vectors, strict=True):
                self.overlay[memory_id] = np.array(vector, dtype=np.float32)

    def erase(self, ids: np.ndarray, revs: np.ndarray) -> None:
        """Zero the slots of deleted rows (`revs`: the generation of each delete), marking
        each with minus that generation."""
        for memory_id in ids.tolist():
            self.overlay.pop(memory_id, None)
        self.sync()
        inside = ids < len(self._slots)
        if inside.any():
            try:
                self._write(ids[inside], -revs[inside], np.zeros((int(inside.sum()), self.dim), dtype=np.float32))
            except OSError as exc:
                # The rows are dropped from the index all the same; the next process to
                # load in full zeroes what is left (see VectorIndex._load_all).
                logger.warning("vector file %s: deleted slots not zeroed (%s)", self.path, exc)

    def forget(self, ids: np.ndarray) -> None:
        for memory_id in ids.tolist():
            self.overlay.pop(memory_id, None)

    def held_ids(self) -> np.ndarray:
        """The ids of the slots holding a vector: written, and not zeroed since (a zeroed
        slot's rev is negative). Only the slots in the file's written extents are read: a
        store with a few high ids has a file of holes, and reading a hole through the map
        fills the page cache with zeros (11 rows up to id 1,000,000: 1.4 GB and 5.7 s)."""
        self.sync()
        held = [start + np.flatnonzero(self._slots["rev"][start:end] > 0) for start, end in self._written_slots()]
        return np.unique(np.concatenate(held)) if held else np.zeros(0, dtype=np.int64)

    def _written_slots(self) -> list[tuple[int, int]]:
        """[start, end) ranges of the slots that overlap the file's data extents (SEEK_DATA /
        SEEK_HOLE); every slot where the file system cannot tell."""
        count, width = len(self._slots), self._dtype.itemsize
        end_byte = HEADER + count * width
        ranges: list[tuple[int, int]] = []
        offset = HEADER
        while offset < end_byte:
            try:
                start = os.lseek(self._fd, offset, os.SEEK_DATA)
                stop = os.lseek(self._fd, start, os.SEEK_HOLE)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # nothing but a hole after `offset`
                    break
                return [(0, count)]
            if start >= end_byte:
                break
            ranges.append(((start - HEADER) // width, min(count, -(-(stop - HEADER) // width))))
            offset = stop
        return ranges

    def _write(self, ids: np.ndarray, revs: np.ndarray, vectors: np.ndarray) -> None:
        order = np.argsort(ids, kind="stable")
        ids, revs, vectors = ids[order], revs[order], vectors[order]
        with self._locked():
            size = os.fstat(self._fd).st_size
            need = HEADER + (int(ids[-1]) + 1) * self._dtype.itemsize
            if need > size:
                os.ftruncate(self._fd, need)  # grows only; the new slots read as zeros
            self._remap()
            # The guard: only slots older than the row we hold (read under the lock). A
            # zeroed slot and a zeroing carry minus the generation of the delete: compared
            # by magnitude, the same delete never writes twice and a later write goes over.
            fresh = np.abs(self._slots["rev"][ids]) < np.abs(revs)
            if not fresh.any():
                return
            ids, revs, vectors = ids[fresh], revs[fresh], vectors[fresh]
            records = np.zeros(len(ids), dtype=self._dtype)
            records["rev"], records["vec"] = revs, vectors
            data = records.tobytes()
            width = self._dtype.itemsize
            # One pwrite per run of consecutive ids: a cold file is written in a few calls.
            breaks = np.flatnonzero(np.diff(ids) != 1) + 1
            for start, end in zip([0, *breaks.tolist()], [*breaks.tolist(), len(ids)], strict=True):
                os.pwrite(self._fd, data[start * width : end * width], HEADER + int(ids[start]) * width)
            magic, dim, high, token, model = self._header()
            top = int(np.abs(revs).max())
            if top > high:
                os.pwrite(self._fd, struct.pack("<q", top), 16)

    def take(self, ids: np.ndarray) -> np.ndarray:
        self.sync()
        inside = ids < len(self._slots)
        if inside.all():
            out = self._slots["vec"][ids]
        else:
            out = np.zeros((len(ids), self.dim), dtype=np.float32)
            out[inside] = self._slots["vec"][ids[inside]]
        if self.overlay:
            for k, memory_id in enumerate(ids.tolist()):
                vector = self.overlay.get(memory_id)
                if vector is not None:
                    out[k] = vector
        return out


def file_key(model: str, dim: int) -> str:
    """The part of the file's name that names the model and dimension: readable, with no
    dot (so another database's files never look like ours), and a digest of the exact
    name, so two models that read alike still get two files."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", model).strip("-")[:64] or "model"
    digest = hashlib.sha256(f"{model}\0{dim}".encode()).hexdigest()[:8]
    return f"{slug}-{dim}-{digest}"


def shared_path(database_name: object, model: str, dim: int) -> Path | None:
    """`<database>.<model key>.vectors` for a SQLite database that is a file; None for
    ':memory:' and the shared-cache in-memory databases tests use."""
    name = str(database_name or "")
    if not name or name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
        return None
    path = Path(name)
    if not path.is_file():
        return None
    return path.with_name(f"{path.name}.{file_key(model, dim)}.vectors")


def other_files(database: Path, mine: Path) -> list[Path]:
    """The vector files of this database for other models (or dimensions), and the one
    file of the layout before files were named by model (`<database>.vectors`)."""
    pattern = re.compile(re.escape(database.name) + r"\.[A-Za-z0-9_-]+-\d+-[0-9a-f]{8}\.vectors")
    found = [p for p in database.parent.glob(glob.escape(database.name) + ".*.vectors") if pattern.fullmatch(p.name) and p != mine]
    legacy = database.with_name(database.name + ".vectors")
    return sorted([*found, legacy] if legacy.is_file() else found)


def file_header(path: Path) -> tuple[str, str, int] | None:
    """(token, model, dimension) a vector file records; None for a file that is not one."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(_HEAD.size)
    except OSError:
        return None
    if len(raw) < _HEAD.size:
        return None
    magic, dim, _, _, token, model = _HEAD.unpack(raw)
    if magic != _MAGIC:
        return None
    return token.decode("ascii", "replace"), model.rstrip(b"\0").decode("utf-8", "replace"), int(dim)


def erase_orphans(store: LocalVectors | SharedVectors, live_ids: np.ndarray, generation: int) -> int:
    """Zero the slots of ids the store holds that are not rows any more (`live_ids`, read at
    `generation`): deletes no process saw. Only slots older than `generation` are zeroed (the
    guard in SharedVectors._write): a row another process inserted since is not ours to
    zero. Returns how many slots were orphans."""
    orphans = np.setdiff1d(store.held_ids(), live_ids, assume_unique=True)
    if len(orphans):
        store.erase(orphans, np.full(len(orphans), generation, dtype=np.int64))
    return len(orphans)


def tidy_other_files(
    database: Path,
    mine: Path,
    identity: Callable[[], tuple[str, int]],
    in_use: Callable[[str, int], bool],
    deleted: tuple[np.ndarray, np.ndarray] | None = None,
    live: tuple[np.ndarray, int] | None = None,
) -> list[Path]:
    """Look after the files of this database kept for other models: remove the one of the
    old layout and those of models no row is embedded with any more (`in_use`), and zero
    the slots of `deleted` (ids, generation of each delete) in the others, so an erased
    memory's vector does not stay in a file no process of ours maps. `live` (every row's id,
    the generation they were read at), given by a committed full load: zero in the others
    the slots of ids that are no rows any more (erase_orphans), as the load does in its own
    file, since a fresh process loads in full and has no deletes to pass. Returns the files
    removed. A process of the other model that still maps a removed file sees it gone and
    loads afresh, writing a new one."""
    removed = []
    token = identity()[0]
    for path in other_files(database, mine):
        header = file_header(path)
        legacy = path.name == database.name + ".vectors"
        if not legacy and (header is None or header[0] != token):
            continue  # not this database's history: another process's business
        if legacy or header is None or not in_use(header[1], header[2]):
            path.unlink(missing_ok=True)
            removed.append(path)
            logger.info("vector file %s removed: no memory is embedded with its model", path)
            continue
        if (deleted is not None and len(deleted[0])) or live is not None:
            try:
                other = SharedVectors(path, header[1], header[2], identity)
            except OSError as exc:
                logger.warning("vector file %s: deleted slots not zeroed (%s)", path, exc)
                continue
            try:
                if deleted is not None and len(deleted[0]):
                    other.erase(*deleted)
                if live is not None:
                    erase_orphans(other, *live)
            finally:
                other.close()
    return removed
