"""One chat-completions call to an OpenAI-compatible endpoint, with our retry policy and
telemetry, and the JSON object read out of the answer. Every model-backed judge talks
through it.

429 and 5xx answers and connection failures are retried with exponential backoff (our
own loop, so every attempt is counted in the trace); a timeout, an exhausted retry
budget or an empty answer raises ProviderUnavailable. The key is read from the
environment when the client is built and is never logged or traced."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from typing import Any

import openai
from pydantic import BaseModel, ValidationError

from judges.base import ProviderAnswer, ProviderUnavailable, Telemetry
from lingix_config.tuning import llm_backoff_seconds, token_prices

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


class ChatJSONClient:
    """One chat-completions call with our retry policy and telemetry."""

    RETRY_STATUS = {429, 500, 502, 503, 504}

    def __init__(self, *, name: str, base_url: str, model: str, timeout: float, max_retries: int, api_key: str | None = None):
        self.name = name
        self.model = model
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.backoff = llm_backoff_seconds()
        # The client's own retries are off: ours count attempts and honour a capped Retry-After.
        self._client = openai.OpenAI(
            api_key=api_key if api_key is not None else (os.environ.get("MEMORY_LLM_API_KEY") or "unused"),
            base_url=base_url,
            timeout=timeout,
            max_retries=0,
        )

    def _sleep_for(self, attempt: int, exc: Exception | None) -> float:
        delay = self.backoff * (2**attempt)
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), 10.0))
            except ValueError:
                pass
        return delay

    def ask(self, *, messages: list[dict[str, str]], prompt_version: str, json_mode: bool = True) -> tuple[str, Telemetry]:
        telemetry = Telemetry(provider=self.name, model=self.model, prompt_version=prompt_version, attempts=0)
        started = time.perf_counter()
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        last_reason = ""
        for attempt in range(self.max_retries + 1):
            telemetry.attempts = attempt + 1
            try:
                response = self._client.chat.completions.create(**kwargs)
            except openai.APITimeoutError:
                last_reason = f"timeout after {self.timeout:g}s"
                telemetry.notes.append(last_reason)
                break  # a slow gateway stays slow; park instead of multiplying the wait
            except openai.APIStatusError as exc:
                last_reason = f"HTTP {exc.status_code}"
                telemetry.notes.append(last_reason)
                if exc.status_code in self.RETRY_STATUS and attempt < self.max_retries:
                    time.sleep(self._sleep_for(attempt, exc))
                    continue
                break
            except openai.APIConnectionError as exc:
                last_reason = f"connection error: {type(exc).__name__}"
                telemetry.notes.append(last_reason)
                if attempt < self.max_retries:
                    time.sleep(self._sleep_for(attempt, exc))
                    continue
                break
            except (ValueError, openai.OpenAIError) as exc:
                # A body that is not a chat completion at all (an HTML error page, broken JSON).
                last_reason = f"malformed response from the gateway ({type(exc).__name__})"
                telemetry.notes.append(last_reason)
                break
            telemetry.latency_ms = (time.perf_counter() - started) * 1000
            usage = getattr(response, "usage", None)
            if usage is not None:
                telemetry.tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
                telemetry.tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
                price_in, price_out = token_prices()
                telemetry.cost_usd = round(telemetry.tokens_in / 1000 * price_in + telemetry.tokens_out / 1000 * price_out, 8)
            choices = getattr(response, "choices", None) or []
            content = choices[0].message.content if choices and choices[0].message else None
            if not content:
                raise ProviderUnavailable("empty answer from the model", telemetry)
            return content, telemetry
        telemetry.latency_ms = (time.perf_counter() - started) * 1000
        logger.warning("%s judge unavailable after %d attempt(s): %s", self.name, telemetry.attempts, last_reason)
        raise ProviderUnavailable(f"{last_reason} after {telemetry.attempts} attempt(s)", telemetry)

    def ask_model(self, *, messages: list[dict[str, str]], prompt_version: str, schema: type[BaseModel]) -> ProviderAnswer:
        content, telemetry = self.ask(messages=messages, prompt_version=prompt_version)
        try:
            value = schema.model_validate(extract_json(content))
        except (json.JSONDecodeError, ValidationError, TypeError) as exc:
            first = str(exc).splitlines()[0][:160]
            raise ProviderUnavailable(f"malformed JSON from the model ({type(exc).__name__}: {first})", telemetry) from None
        return ProviderAnswer(value, telemetry)
