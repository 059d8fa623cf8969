from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class EmbeddingError(RuntimeError):
    """The embedder could not produce vectors (unreachable server, wrong dimension…)."""


class Embedder(ABC):
    """Turns text into L2-normalised float32 vectors. Queries and stored passages may be
    embedded differently (e5 models expect `query:` / `passage:` prefixes)."""

    #: Stored beside every vector; a different value means the vector is stale.
    model_name: str
    dimension: int

    @abstractmethod
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dimension) float32, rows normalised."""

    @abstractmethod
    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, normalised."""


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)
