"""Which judge runs. Nothing starts without an explicit choice (CONTRACT.md)."""
from __future__ import annotations

import functools
import hashlib
import os

from django.conf import settings

PROVIDERS = ("openai", "offline")

NOT_CONFIGURED_MESSAGE = (
    "no LLM provider configured: set MEMORY_LLM_API_KEY (OpenAI-compatible gateway) "
    "or MEMORY_LLM_PROVIDER=offline (built-in deterministic judge)"
)


class ProviderNotConfigured(RuntimeError):
    pass


def resolve_provider_name() -> str:
    """'openai' or 'offline'; raises ProviderNotConfigured with the one-line message."""
    explicit = (settings.MEMORY_LLM_PROVIDER or "").strip().lower()
    if explicit:
        if explicit not in PROVIDERS:
            raise ProviderNotConfigured(
                f"MEMORY_LLM_PROVIDER={explicit!r} is not a provider; use 'openai' or 'offline'"
            )
        if explicit == "openai" and not os.environ.get("MEMORY_LLM_API_KEY"):
            raise ProviderNotConfigured("MEMORY_LLM_PROVIDER=openai needs MEMORY_LLM_API_KEY in the environment")
        return explicit
    if os.environ.get("MEMORY_LLM_API_KEY"):
        return "openai"
    raise ProviderNotConfigured(NOT_CONFIGURED_MESSAGE)


# --- funnel tuning ------------------------------------------------------------
# Read from the environment at call time so tests and operators can change them
# without touching settings.py.
def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def duplicate_cosine() -> float:
    """Cosine at or above which a candidate with the same numbers and polarity repeats a memory."""
    return _env_float("MEMORY_DUPLICATE_COSINE", 0.95)


def related_cosine() -> float:
    """Cosine at or above which two memories talk about the same thing (contradiction check)."""
    return _env_float("MEMORY_RELATED_COSINE", 0.92)


def classify_min_confidence() -> float:
    return _env_float("MEMORY_CLASSIFY_MIN_CONFIDENCE", 0.5)


def max_text_chars() -> int:
    return int(_env_float("MEMORY_MAX_TEXT_CHARS", 8000))


# Prices per 1k tokens, for traces' cost column; zero unless the operator sets them.
def token_prices() -> tuple[float, float]:
    return _env_float("MEMORY_LLM_PRICE_IN_PER_1K", 0.0), _env_float("MEMORY_LLM_PRICE_OUT_PER_1K", 0.0)


def get_provider():
    """The provider for classification and value checks (and judging, unless DoubtMem is set)."""
    name = resolve_provider_name()
    if name == "offline":
        from governance.providers.offline import OfflineProvider

        return OfflineProvider()
    key_digest = hashlib.sha256(os.environ.get("MEMORY_LLM_API_KEY", "").encode()).hexdigest()
    return _openai_judge(settings.MEMORY_LLM_BASE_URL, settings.MEMORY_JUDGE_MODEL, float(settings.MEMORY_LLM_TIMEOUT),
                         int(settings.MEMORY_LLM_MAX_RETRIES), _env_float("MEMORY_LLM_BACKOFF_SECONDS", 0.5), key_digest)


@functools.lru_cache(maxsize=8)
def _openai_judge(base_url: str, model: str, timeout: float, max_retries: int, backoff: float, key_digest: str):
    """One client per configuration, so HTTP connections to the gateway are reused.
    The key's digest is part of the cache key only so that a rotated key builds a new client."""
    from governance.providers.openai_judge import OpenAIJudge

    return OpenAIJudge(base_url=base_url, model=model, timeout=timeout, max_retries=max_retries)


def get_judge(base=None):
    """The judge step's provider: the local DoubtMem model when its URL is set."""
    base = base or get_provider()
    doubtmem_url = os.environ.get("MEMORY_DOUBTMEM_BASE_URL", "") or getattr(settings, "MEMORY_DOUBTMEM_BASE_URL", "")
    if doubtmem_url:
        from governance.providers.doubtmem import DoubtMemJudge

        return DoubtMemJudge(
            base_url=doubtmem_url,
            model=os.environ.get("MEMORY_DOUBTMEM_MODEL", "") or settings.MEMORY_DOUBTMEM_MODEL,
            timeout=settings.MEMORY_LLM_TIMEOUT,
            max_retries=settings.MEMORY_LLM_MAX_RETRIES,
            fallback=base,
        )
    return base
