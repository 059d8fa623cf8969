from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from memories.metrics_registry import EMBEDDING_LATENCY, timed

if TYPE_CHECKING:
    import numpy as np


class EmbeddingError(RuntimeError):
    """The embedder could not produce vectors (unreachable server, wrong dimension…)."""


# A query is embedded while the caller waits, so it gets a tighter budget than the model's
# window. Measured on two cores busy with other work: a full 512-token window took ~5 s,
# 128 tokens ~0.8 s, 96 tokens ~0.6 s (about 160 Chinese characters, enough for the
# sentence or two a search query carries).
QUERY_TOKEN_BUDGET = 96


@dataclass(frozen=True)
class FittedText:
    """The part of a text the embedder will read, and whether anything was cut."""

    text: str
    truncated: bool

    @property
    def chars(self) -> int:
        return len(self.text)


class Embedder(ABC):
    """Turns text into L2-normalised float32 vectors. Queries and stored passages may be
    embedded differently (e5 models expect `query:` / `passage:` prefixes).

    Input is cut to `token_limit` before embedding (queries to the smaller
    QUERY_TOKEN_BUDGET): text past the model's window costs another full pass each and
    changes the vector little, and one long text must not hold the embedder for seconds."""

    #: Stored beside every vector; a different value means the vector is stale.
    model_name: str
    dimension: int
    #: Tokens the model reads in one pass, special tokens and prefix included.
    token_limit: int

    @abstractmethod
    def count_tokens(self, text: str, *, is_query: bool) -> int:
        """Tokens the model would be fed for `text` (an upper estimate where exactness is not available)."""

    @abstractmethod
    def _passage_vectors(self, texts: list[str]) -> np.ndarray:
        """(n, dimension) float32, rows normalised, for texts that fit the window."""

    @abstractmethod
    def _query_vector(self, text: str) -> np.ndarray:
        """(dimension,) float32, normalised, for a query that fits the budget."""

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dimension) float32, rows normalised; each text cut by fit_passage first."""
        with timed(EMBEDDING_LATENCY, kind="passages", model=self.model_name):
            return self._passage_vectors([self.fit_passage(text).text for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, normalised; the text cut by fit_query first."""
        with timed(EMBEDDING_LATENCY, kind="query", model=self.model_name):
            return self._query_vector(self.fit_query(text).text)

    def fit(self, text: str, *, max_tokens: int, is_query: bool) -> FittedText:
        """The longest prefix of `text` that fits in `max_tokens` (binary search on the
        character count; token counts grow with the prefix)."""
        if self.count_tokens(text, is_query=is_query) <= max_tokens:
            return FittedText(text=text, truncated=False)
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if self.count_tokens(text[:middle], is_query=is_query) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        return FittedText(text=text[:low], truncated=True)

    def fit_query(self, text: str) -> FittedText:
        budget = int(getattr(settings, "MEMORY_EMBED_QUERY_TOKENS", 0) or QUERY_TOKEN_BUDGET)
        return self.fit(text, max_tokens=min(budget, self.token_limit), is_query=True)

    def fit_passage(self, text: str) -> FittedText:
        return self.fit(text, max_tokens=self.token_limit, is_query=False)


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)
