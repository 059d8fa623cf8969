"""Refuse to start long-running processes without an explicit judge provider."""

from __future__ import annotations

import sys


def require_provider_or_exit(what: str) -> None:
    from judges.config import ProviderNotConfigured, resolve_provider_name

    try:
        resolve_provider_name()
    except ProviderNotConfigured as exc:
        sys.stderr.write(f"lingix {what} not started: {exc}\n")
        raise SystemExit(1) from None
