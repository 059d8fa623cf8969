"""The tunable numbers of the funnel and the model clients, read from the environment at
call time so tests and operators can change them without touching settings.py."""

from __future__ import annotations

import os


def env_float(name: str, default: float) -> float:
    """The variable as a number; unset, empty or not a number means `default`."""
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def duplicate_cosine() -> float:
    """Cosine at or above which a candidate with the same numbers and polarity repeats a memory."""
    return env_float("MEMORY_DUPLICATE_COSINE", 0.95)


def related_cosine() -> float:
    """Cosine at or above which two memories talk about the same thing (contradiction check)."""
    return env_float("MEMORY_RELATED_COSINE", 0.92)


def classify_min_confidence() -> float:
    return env_float("MEMORY_CLASSIFY_MIN_CONFIDENCE", 0.5)


def max_text_chars() -> int:
    return int(env_float("MEMORY_MAX_TEXT_CHARS", 8000))


def llm_backoff_seconds() -> float:
    """The first retry's wait on a gateway error; each further retry doubles it."""
    return env_float("MEMORY_LLM_BACKOFF_SECONDS", 0.5)


def token_prices() -> tuple[float, float]:
    """Prices per 1k tokens in and out, for traces' cost column; zero unless the operator sets them."""
    return env_float("MEMORY_LLM_PRICE_IN_PER_1K", 0.0), env_float("MEMORY_LLM_PRICE_OUT_PER_1K", 0.0)
