"""The operator's system-wide overview for `memory status` (the API scopes it per token)."""
from __future__ import annotations

from typing import Any


def system_status() -> dict[str, Any]:
    from api.status import status_overview

    return status_overview(advertisers=None)
