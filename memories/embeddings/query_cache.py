"""Query embedding with a per-process LRU cache, and what each embedding cost.

Agents ask the same things again and again (the same campaign, the same rule), and a query
embedding is the slowest step of a search on a busy two-core machine. So query vectors
are kept, keyed by the embedder's model and the text it actually reads (after the cut to
the query token budget, so two queries that differ only past the cut share an entry).
MEMORY_QUERY_CACHE_SIZE entries are kept (default 1024, about 1.6 MB of 384-d vectors);
0 turns the cache off.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from memories.embeddings import get_embedder

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class QueryEmbedding:
    vector: np.ndarray
    #: Wall time of this call: the embedder's work on a miss, the look-up on a hit.
    ms: float
    cached: bool
    #: Tokens the embedder reads (after the cut), prefix and special tokens included.
    tokens: int
    truncated: bool
    chars: int

    def cost(self) -> dict[str, float | bool | int]:
        """The figures a search response reports about its query embedding."""
        return {"ms": round(self.ms, 3), "cached": self.cached, "tokens": self.tokens, "truncated": self.truncated, "chars": self.chars}


class QueryVectorCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, int, str], tuple[np.ndarray, int]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def capacity() -> int:
        return max(0, int(getattr(settings, "MEMORY_QUERY_CACHE_SIZE", 1024)))

    def embed(self, query: str) -> QueryEmbedding:
        import numpy as np

        started = time.perf_counter()
        embedder = get_embedder()
        fitted = embedder.fit_query(query)
        key = (embedder.model_name, embedder.dimension, fitted.text)
        capacity = self.capacity()
        if capacity:
            with self._lock:
                found = self._entries.get(key)
                if found is not None:
                    self._entries.move_to_end(key)
                    self.hits += 1
            if found is not None:
                vector, tokens = found
                return QueryEmbedding(vector, (time.perf_counter() - started) * 1000, True, tokens, fitted.truncated, fitted.chars)
        vector = embedder.embed_query(fitted.text)
        # The cache hands out one array to every caller: make it read-only so none can change it.
        vector = np.array(vector, dtype=np.float32)
        vector.setflags(write=False)
        tokens = embedder.count_tokens(fitted.text, is_query=True)
        if capacity:
            with self._lock:
                self.misses += 1
                self._entries[key] = (vector, tokens)
                self._entries.move_to_end(key)
                while len(self._entries) > capacity:
                    self._entries.popitem(last=False)
        return QueryEmbedding(vector, (time.perf_counter() - started) * 1000, False, tokens, fitted.truncated, fitted.chars)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


query_vectors = QueryVectorCache()


def embed_query_cached(query: str) -> QueryEmbedding:
    return query_vectors.embed(query)
