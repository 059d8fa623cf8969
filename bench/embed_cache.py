"""A disk cache of vectors for the retrieval benchmarks.

Ablations rank the same texts many times: re-embedding 5.9k LoCoMo turns costs minutes on
these shared cores and changes nothing. The cache sits in front of the real embedder (a
miss calls it, a hit returns the vector it produced before), keyed by the embedder's model
name, the side (passage or query) and the exact text, in a SQLite file under .cache/.
`--no-embed-cache` on a benchmark turns it off."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np

from bench._common import REPO

DEFAULT_DIR = REPO / ".cache" / "issue14b-bench-embeddings"


def _key(model: str, side: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x00{side}\x00{text}".encode()).hexdigest()


def install(directory: Path = DEFAULT_DIR) -> None:
    """Wrap the process's embedder (memories.embeddings.get_embedder) with the cache."""
    from memories.embeddings import get_embedder

    embedder = get_embedder()
    if getattr(embedder, "_bench_cache", False):
        return
    directory.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(directory / "vectors.sqlite3", check_same_thread=False)
    db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, data BLOB)")
    lock = threading.Lock()
    model = embedder.model_name
    passage_vectors, query_vector = embedder._passage_vectors, embedder._query_vector

    def lookup(keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                rows = db.execute(f"SELECT key, data FROM vec WHERE key IN ({','.join('?' * len(chunk))})", chunk)
                found.update({k: np.frombuffer(blob, dtype=np.float32) for k, blob in rows})
        return found

    def store(pairs: list[tuple[str, np.ndarray]]) -> None:
        with lock:
            db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)", [(k, v.astype(np.float32).tobytes()) for k, v in pairs])
            db.commit()

    def cached_passages(texts: list[str]) -> np.ndarray:
        keys = [_key(model, "passage", t) for t in texts]
        found = lookup(keys)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            fresh = passage_vectors([texts[i] for i in missing])
            store([(keys[i], fresh[j]) for j, i in enumerate(missing)])
            found.update({keys[i]: fresh[j] for j, i in enumerate(missing)})
        return np.vstack([found[k] for k in keys]) if keys else passage_vectors([])

    def cached_query(text: str) -> np.ndarray:
        key = _key(model, "query", text)
        hit = lookup([key]).get(key)
        if hit is None:
            hit = query_vector(text)
            store([(key, hit)])
        return hit

    embedder._passage_vectors = cached_passages  # type: ignore[method-assign]
    embedder._query_vector = cached_query  # type: ignore[method-assign]
    embedder._bench_cache = True  # type: ignore[attr-defined]
