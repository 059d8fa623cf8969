"""Which judge runs. Nothing starts without an explicit choice (CONTRACT.md)."""
from __future__ import annotations

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
