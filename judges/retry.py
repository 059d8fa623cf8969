"""The one retry policy: a few attempts with exponential backoff and jitter.

The chat client (judges, deep search's gateway calls) and the OpenAI-compatible embedder
retry with `RetryPolicy.from_config()` (MEMORY_LLM_MAX_RETRIES, MEMORY_LLM_BACKOFF_SECONDS,
MEMORY_LLM_BACKOFF_MAX_SECONDS); SQLite's "database is locked" retry in
memories/lifecycle/db.py uses the same helper with its own numbers and predicate. Each
caller says which errors are worth another attempt; any other error, and the last one,
reach the caller unchanged."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from lingix_config import config

T = TypeVar("T")
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int
    """Calls in all, the first one included (at least 1)."""
    first_wait: float
    """Seconds before the second call; each later wait doubles it."""
    max_wait: float
    """Longest single wait, a server's own Retry-After included."""

    @classmethod
    def from_config(cls, *, retries: int | None = None) -> RetryPolicy:
        """The gateway policy; `retries` replaces MEMORY_LLM_MAX_RETRIES (a search call makes none)."""
        settings = config()
        retries = settings.memory_llm_max_retries if retries is None else retries
        return cls(
            attempts=1 + max(0, int(retries)),
            first_wait=settings.memory_llm_backoff_seconds,
            max_wait=settings.memory_llm_backoff_max_seconds,
        )

    def wait_before(self, retry: int, *, at_least: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (1 for the second call). The jitter adds
        up to half again, so clients that failed together do not come back together."""
        delay = self.first_wait * 2 ** (retry - 1) * (1 + random.random() / 2)
        if at_least is not None:
            delay = max(delay, at_least)
        return min(delay, self.max_wait)


def call_with_retry(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    retry_on: Callable[[BaseException], bool],
    wait_hint: Callable[[BaseException], float | None] | None = None,
    what: str = "call",
) -> T:
    """fn's result, calling it again while it raises an error `retry_on` accepts and the
    policy has attempts left. `wait_hint` may name a wait the failed call asked for
    (a Retry-After header): the wait is at least that, within the policy's cap."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hint = wait_hint(exc) if wait_hint is not None and exc is not None else None
        return policy.wait_before(state.attempt_number, at_least=hint)

    def log(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait_s = state.next_action.sleep if state.next_action else 0.0
        # The error's kind only: its text may quote a server's answer, and with it a key.
        kind = type(exc).__name__ + (f" {exc.status_code}" if hasattr(exc, "status_code") else "")
        logger.warning("%s failed (attempt %d of %d), retrying in %.2fs: %s", what, state.attempt_number, policy.attempts, wait_s, kind)

    retrying = Retrying(
        stop=stop_after_attempt(max(1, policy.attempts)),
        wait=wait,
        retry=retry_if_exception(retry_on),
        before_sleep=log,
        reraise=True,
    )
    return retrying(fn)
