"""One chat-completions call to an OpenAI-compatible endpoint, with our retry policy and
telemetry, and the JSON object read out of the answer. Every model-backed judge talks
through it.

429 and 5xx answers and connection failures are retried by the one retry policy
(judges/retry.py), each attempt counted in the trace; a timeout, an exhausted retry budget
or an empty answer raises ProviderUnavailable. The key comes from the configuration object
(lingix_config) when the client is built and is never logged or traced."""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from judges.base import ProviderAnswer, ProviderUnavailable, Telemetry
from judges.retry import RetryPolicy, call_with_retry
from lingix_config import config

logger = logging.getLogger(__name__)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def extract_json(text: str) -> Any:
    """The first JSON object in a model's answer (bare, or inside a ``` fence)."""
    cleaned = _FENCE.sub("", (text or "").strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start < 0 or end <= start:
            raise
        return json.loads(cleaned[start : end + 1])


def _retry_after(exc: BaseException) -> float | None:
    """The wait a 429 or 503 asked for (Retry-After, in seconds), if any."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value else None
    except ValueError:
        return None


class ChatJSONClient:
    """One chat-completions call with our retry policy and telemetry."""

    RETRY_STATUS = {429, 500, 502, 503, 504}

    def __init__(self, *, name: str, base_url: str, model: str, timeout: float, max_retries: int, api_key: str | None = None):
        self.name = name
        self.model = model
        self.timeout = timeout
        self.retry = RetryPolicy.from_config(retries=max_retries)
        # Imported here, not at the top: the openai package takes most of a second to load,
        # and every process that imports a judge (the admin, each `memory --help`) paid it.
        import openai

        # The client's own retries are off: ours count attempts and honour a capped Retry-After.
        self._client = openai.OpenAI(
            api_key=api_key if api_key is not None else (config().llm_api_key or "unused"),
            base_url=base_url,
            timeout=timeout,
            max_retries=0,
        )

    def _retryable(self, exc: BaseException) -> bool:
        import openai

        # A slow gateway stays slow (APITimeoutError is a connection error): park instead of
        # multiplying the wait. A body that is not a chat completion is not retried either.
        if isinstance(exc, openai.APITimeoutError):
            return False
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code in self.RETRY_STATUS
        return isinstance(exc, openai.APIConnectionError)

    def _reason(self, exc: BaseException) -> str:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return f"timeout after {self.timeout:g}s"
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}"
        if isinstance(exc, openai.APIConnectionError):
            return f"connection error: {type(exc).__name__}"
        return f"malformed response from the gateway ({type(exc).__name__})"

    def ask(self, *, messages: list[dict[str, str]], prompt_version: str, json_mode: bool = True) -> tuple[str, Telemetry]:
        telemetry = Telemetry(provider=self.name, model=self.model, prompt_version=prompt_version, attempts=0)
        started = time.perf_counter()
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}

        import openai

        def attempt() -> Any:
            telemetry.attempts += 1
            try:
                return self._client.chat.completions.create(**kwargs)
            except (ValueError, openai.OpenAIError) as exc:
                telemetry.notes.append(self._reason(exc))
                raise

        try:
            response = call_with_retry(
                attempt, policy=self.retry, retry_on=self._retryable, wait_hint=_retry_after, what=f"{self.name} chat call"
            )
        except (ValueError, openai.OpenAIError) as exc:
            telemetry.latency_ms = (time.perf_counter() - started) * 1000
            last_reason = self._reason(exc)
            logger.warning("%s judge unavailable after %d attempt(s): %s", self.name, telemetry.attempts, last_reason)
            raise ProviderUnavailable(f"{last_reason} after {telemetry.attempts} attempt(s)", telemetry) from None
        telemetry.latency_ms = (time.perf_counter() - started) * 1000
        usage = getattr(response, "usage", None)
        if usage is not None:
            telemetry.tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
            telemetry.tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
            price_in, price_out = config().token_prices
            telemetry.cost_usd = round(telemetry.tokens_in / 1000 * price_in + telemetry.tokens_out / 1000 * price_out, 8)
        choices = getattr(response, "choices", None) or []
        content = choices[0].message.content if choices and choices[0].message else None
        if not content:
            raise ProviderUnavailable("empty answer from the model", telemetry)
        return content, telemetry

    def ask_model(self, *, messages: list[dict[str, str]], prompt_version: str, schema: type[BaseModel]) -> ProviderAnswer:
        content, telemetry = self.ask(messages=messages, prompt_version=prompt_version)
        try:
            value = schema.model_validate(extract_json(content))
        except (json.JSONDecodeError, ValidationError, TypeError) as exc:
            first = str(exc).splitlines()[0][:160]
            raise ProviderUnavailable(f"malformed JSON from the model ({type(exc).__name__}: {first})", telemetry) from None
        return ProviderAnswer(value, telemetry)
