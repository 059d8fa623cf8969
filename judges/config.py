"""Which judge runs, and the factory that builds it. Nothing starts without an explicit
choice (CONTRACT.md). This module imports the judges, each when it is first built (a
process that only asks which provider is configured, such as `memory --help` or the
admin starting up, loads none of them); none of them imports it."""

from __future__ import annotations

import functools
import hashlib
from typing import TYPE_CHECKING

from django.conf import settings

from lingix_config import config

if TYPE_CHECKING:
    from judges.base import JudgeProvider
    from judges.openai_judge import OpenAIJudge

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
            raise ProviderNotConfigured(f"MEMORY_LLM_PROVIDER={explicit!r} is not a provider; use 'openai' or 'offline'")
        if explicit == "openai" and not config().llm_api_key:
            raise ProviderNotConfigured("MEMORY_LLM_PROVIDER=openai needs MEMORY_LLM_API_KEY in the environment")
        return explicit
    if config().llm_api_key:
        return "openai"
    raise ProviderNotConfigured(NOT_CONFIGURED_MESSAGE)


def get_provider() -> JudgeProvider:
    """The provider for classification and value checks (and judging, unless DoubtMem is set)."""
    name = resolve_provider_name()
    if name == "offline":
        from judges.offline import OfflineProvider

        return OfflineProvider()
    key_digest = hashlib.sha256(config().llm_api_key.encode()).hexdigest()
    return _openai_judge(
        settings.MEMORY_LLM_BASE_URL,
        settings.MEMORY_JUDGE_MODEL,
        float(settings.MEMORY_LLM_TIMEOUT),
        int(settings.MEMORY_LLM_MAX_RETRIES),
        config().memory_llm_backoff_seconds,
        key_digest,
    )


@functools.lru_cache(maxsize=8)
def _openai_judge(base_url: str, model: str, timeout: float, max_retries: int, backoff: float, key_digest: str) -> OpenAIJudge:
    """One client per configuration, so HTTP connections to the gateway are reused.
    The key's digest is part of the cache key only so that a rotated key builds a new client."""
    from judges.openai_judge import OpenAIJudge

    return OpenAIJudge(base_url=base_url, model=model, timeout=timeout, max_retries=max_retries)


def get_judge(base: JudgeProvider | None = None) -> JudgeProvider:
    """The judge step's provider: the local DoubtMem model when its URL is set."""
    base = base or get_provider()
    doubtmem_url = settings.MEMORY_DOUBTMEM_BASE_URL
    if doubtmem_url:
        from judges.doubtmem import DoubtMemJudge

        return DoubtMemJudge(
            base_url=doubtmem_url,
            model=settings.MEMORY_DOUBTMEM_MODEL,
            timeout=settings.MEMORY_LLM_TIMEOUT,
            max_retries=settings.MEMORY_LLM_MAX_RETRIES,
            fallback=base,
        )
    return base
