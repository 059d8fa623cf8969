"""Embeddings from any OpenAI-compatible `/embeddings` endpoint, through the openai client."""

from __future__ import annotations

import numpy as np

from judges.retry import RetryPolicy, call_with_retry
from memories.embeddings.base import Embedder, EmbeddingError, normalise_rows


class OpenAIEmbedder(Embedder):
    # text-embedding-3's input limit. Without the server's tokenizer the count is an
    # estimate that errs long: two tokens per character covers CJK text.
    token_limit = 8191

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: str,
        dimension: int | None = None,
        batch_size: int = 64,
        timeout: float = 20.0,
        max_retries: int | None = None,
    ) -> None:
        """`max_retries` None means MEMORY_LLM_MAX_RETRIES; the waits follow the one retry policy (judges/retry.py)."""
        import openai

        self._openai = openai
        # Retries are ours (with backoff and a clear final error), not the client's.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=0)
        self._model = model
        self.model_name = f"openai/{model}"
        self._expected_dimension = dimension
        self.dimension = dimension or 0
        self._batch_size = max(1, batch_size)
        self._retry = RetryPolicy.from_config(retries=max_retries)

    def _retryable(self, exc: BaseException) -> bool:
        return isinstance(exc, (self._openai.RateLimitError, self._openai.InternalServerError, self._openai.APIConnectionError))

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            response = call_with_retry(
                lambda: self._client.embeddings.create(model=self._model, input=texts),
                policy=self._retry,
                retry_on=self._retryable,
                what="embedding request",
            )
        except self._openai.APIError as exc:
            if self._retryable(exc):
                raise EmbeddingError(f"embedding server failed after {self._retry.attempts} attempts: {type(exc).__name__}") from None
            raise EmbeddingError(f"embedding request refused: {type(exc).__name__}") from None
        vectors = np.array([item.embedding for item in sorted(response.data, key=lambda d: d.index)], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbeddingError("embedding server returned the wrong number of vectors")
        if self._expected_dimension and vectors.shape[1] != self._expected_dimension:
            raise EmbeddingError(
                f"embedding dimension {vectors.shape[1]} does not match MEMORY_EMBEDDING_DIMENSIONS={self._expected_dimension}"
            )
        if self.dimension and vectors.shape[1] != self.dimension:
            raise EmbeddingError(f"embedding dimension changed from {self.dimension} to {vectors.shape[1]}")
        self.dimension = int(vectors.shape[1])
        return normalise_rows(vectors)

    def count_tokens(self, text: str, *, is_query: bool) -> int:
        return 2 * len(text)

    def _passage_vectors(self, texts: list[str]) -> np.ndarray:
        chunks = [self._request(list(texts[i : i + self._batch_size])) for i in range(0, len(texts), self._batch_size)]
        if not chunks:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack(chunks)

    def _query_vector(self, text: str) -> np.ndarray:
        return self._request([text])[0]
