"""Passage embedding with a per-process LRU cache.

The write funnel embeds each proposal to find its neighbours, and agents repeat themselves:
the same correction, the same observation again (the duplicate path), a retried request.
The stored memory's vector (written on commit) is the same text again when the proposal
was new. The bundled embedder gives the same bits for a text alone, again or in a batch,
so a kept vector is the one a new call would return (a remote model's may differ in the
last bits, which no threshold reads). Keyed by the
embedder's model, dimension and the exact text; PASSAGE_CACHE_SIZE entries are kept
(about 0.8 MB of 384-d vectors).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memories.embeddings import get_embedder

if TYPE_CHECKING:
    import numpy as np

PASSAGE_CACHE_SIZE = 512


class PassageVectorCache:
    def __init__(self, capacity: int = PASSAGE_CACHE_SIZE) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, int, str], np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dimension) float32 rows for `texts`, in order; the texts not kept are
        embedded in one batch."""
        import numpy as np

        embedder = get_embedder()
        keys = [(embedder.model_name, embedder.dimension, text) for text in texts]
        found: dict[tuple[str, int, str], np.ndarray] = {}
        with self._lock:
            for key in keys:
                vector = self._entries.get(key)
                if vector is not None:
                    self._entries.move_to_end(key)
                    found[key] = vector
            self.hits += sum(1 for key in keys if key in found)
        missing = list(dict.fromkeys(key for key in keys if key not in found))
        if missing:
            fresh = embedder.embed_passages([key[2] for key in missing])
            with self._lock:
                self.misses += len(missing)
                for key, vector in zip(missing, fresh, strict=True):
                    # One array handed to every caller: read-only, so none can change it.
                    kept = np.array(vector, dtype=np.float32)
                    kept.setflags(write=False)
                    found[key] = kept
                    self._entries[key] = kept
                    self._entries.move_to_end(key)
                while len(self._entries) > self.capacity:
                    self._entries.popitem(last=False)
        if not keys:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack([found[key] for key in keys])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


passage_vectors = PassageVectorCache()


def embed_passages_cached(texts: Sequence[str]) -> np.ndarray:
    return passage_vectors.embed(texts)
