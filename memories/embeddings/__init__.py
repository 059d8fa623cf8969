"""Pick the embedder from settings, once per process."""

from __future__ import annotations

import threading

from django.conf import settings

from lingix_config import config
from memories.embeddings.base import Embedder, EmbeddingError

__all__ = ["Embedder", "EmbeddingError", "get_embedder", "reset_embedder"]

_lock = threading.Lock()
_embedder: Embedder | None = None


def _build() -> Embedder:
    provider = settings.MEMORY_EMBEDDING_PROVIDER
    if provider == "local":
        from memories.embeddings.local import LocalE5Embedder

        return LocalE5Embedder(num_threads=settings.MEMORY_EMBED_THREADS)
    if provider == "openai":
        from memories.embeddings.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(
            model=settings.MEMORY_EMBEDDING_MODEL,
            base_url=settings.MEMORY_EMBEDDING_BASE_URL,
            # From the configuration object, so the key never sits in Django's settings.
            api_key=config().llm_api_key,
            dimension=settings.MEMORY_EMBEDDING_DIMENSIONS,
            batch_size=settings.MEMORY_EMBEDDING_BATCH_SIZE,
            timeout=settings.MEMORY_LLM_TIMEOUT,
        )
    raise EmbeddingError(f"unknown MEMORY_EMBEDDING_PROVIDER={provider!r} (use 'local' or 'openai')")


def get_embedder() -> Embedder:
    global _embedder
    if _embedder is None:
        with _lock:
            if _embedder is None:
                _embedder = _build()
    return _embedder


def reset_embedder() -> None:
    """Forget the cached embedder (tests switch providers with override_settings)."""
    global _embedder
    with _lock:
        _embedder = None
    from memories.embeddings.passage_cache import passage_vectors
    from memories.embeddings.query_cache import query_vectors

    query_vectors.clear()
    passage_vectors.clear()
