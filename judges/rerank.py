"""A cross-encoder behind the de-facto `/rerank` API (Jina, SiliconFlow, Cohere, Voyage;
vLLM and Infinity serve it for a local model):

    POST <endpoint>  {"model": str, "query": str, "documents": [str, ...], "top_n": int}
    Authorization: Bearer <key>
    200  {"results": [{"index": int, "relevance_score": float}, ...]}   (Voyage: "data")

One attempt, inside the caller's timeout: deep search is interactive and answers with the
fast result when this fails, so a retry would only make the user wait twice. Every failure
raises RerankUnavailable with a short reason (timeout, unavailable, malformed) and a detail
that names what went wrong without quoting the server's body: an error page can echo the
request, and the request carries the key. The key is passed in by the caller (who reads it
from the environment through lingix_config) and is never logged or kept in a message.

The standard library's urllib, not an HTTP package: the call is one POST, and nothing
beyond what the openai client already pulls in has to be declared for it."""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from textrules.strict_json import UnsafeJson, strict_loads

logger = logging.getLogger(__name__)

# A rerank answer is a few dozen numbers; more than this is not one (and is not read whole).
MAX_ANSWER_BYTES = 1 << 20


class RerankFailure(StrEnum):
    """Why the cross-encoder gave no order; the values are deep search's fallback reasons."""

    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    MALFORMED = "malformed"


class RerankUnavailable(Exception):
    """The endpoint gave no usable scores. `detail` is short and holds no key or body text."""

    def __init__(self, reason: RerankFailure, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class RerankHit(BaseModel):
    # Strict: "0.9" or true is not a score, 1.0 is not an index; NaN and infinities are refused.
    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="ignore")

    index: int = Field(ge=0)
    relevance_score: float


class RerankAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    results: list[RerankHit] | None = None
    data: list[RerankHit] | None = None

    @model_validator(mode="after")
    def _one_list(self) -> RerankAnswer:
        if self.results is None and self.data is None:
            raise ValueError("neither `results` nor `data`")
        return self

    @property
    def hits(self) -> list[RerankHit]:
        return self.results if self.results is not None else (self.data or [])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # urllib copies every header, Authorization included, to wherever a redirect points.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def read_scores(body: bytes, document_count: int) -> dict[int, float]:
    """The answer's scores by document index, every index in range and named once;
    RerankUnavailable(MALFORMED) otherwise. Indexes the answer leaves out are absent (a
    server may answer fewer than top_n)."""
    try:
        answer = RerankAnswer.model_validate(strict_loads(body))
    except UnsafeJson as exc:
        raise RerankUnavailable(RerankFailure.MALFORMED, f"not JSON ({type(exc).__name__})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "$"
        # The message and location only: pydantic's text quotes the offending value.
        raise RerankUnavailable(RerankFailure.MALFORMED, f"{where}: {first['msg']}"[:160]) from None
    hits = answer.hits
    if document_count and not hits:
        raise RerankUnavailable(RerankFailure.MALFORMED, "no scores")
    scores: dict[int, float] = {}
    for hit in hits:
        if hit.index >= document_count:
            raise RerankUnavailable(RerankFailure.MALFORMED, f"index {hit.index} out of range ({document_count} documents)")
        if hit.index in scores:
            raise RerankUnavailable(RerankFailure.MALFORMED, f"index {hit.index} scored twice")
        scores[hit.index] = hit.relevance_score
    return scores


class RerankClient:
    """Scores documents against a query through one `/rerank` call."""

    def __init__(self, *, endpoint: str, model: str, timeout: float, api_key: str = "") -> None:
        # urllib would also open file:// and ftp:// addresses; only HTTP speaks this API.
        if not endpoint.lower().startswith(("http://", "https://")):
            raise ValueError("the rerank endpoint must be an http:// or https:// URL")
        self.endpoint = endpoint
        self.model = model
        self.timeout = timeout
        self._api_key = api_key

    def __repr__(self) -> str:
        # The endpoint stays out too: some providers take the key in its query string.
        return f"RerankClient(model={self.model!r}, timeout={self.timeout:g})"

    def scores(self, query: str, documents: list[str]) -> dict[int, float]:
        """Relevance of each document to the query, by index into `documents`."""
        if not documents:
            return {}
        payload = {"model": self.model, "query": query, "documents": documents, "top_n": len(documents)}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(payload, ensure_ascii=False).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                body = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            exc.close()
            raise self._fail(RerankFailure.UNAVAILABLE, f"HTTP {exc.code}") from None
        except TimeoutError:
            raise self._fail(RerankFailure.TIMEOUT, f"no answer within {self.timeout:g}s") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._fail(RerankFailure.TIMEOUT, f"no answer within {self.timeout:g}s") from None
            raise self._fail(RerankFailure.UNAVAILABLE, f"connection error: {type(exc.reason).__name__}") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:  # a reset connection, a broken status line, a bad URL
            raise self._fail(RerankFailure.UNAVAILABLE, f"connection error: {type(exc).__name__}") from None
        if len(body) > MAX_ANSWER_BYTES:
            raise self._fail(RerankFailure.MALFORMED, "answer too large")
        try:
            return read_scores(body, len(documents))
        except RerankUnavailable as exc:
            raise self._fail(exc.reason, exc.detail) from None

    def _fail(self, reason: RerankFailure, detail: str) -> RerankUnavailable:
        logger.warning("rerank endpoint (%s) gave no scores: %s", self.model, detail)
        return RerankUnavailable(reason, detail)
