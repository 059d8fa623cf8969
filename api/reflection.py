"""Bridge to the reflection service, which is built with the lifecycle jobs. Until it is
importable the endpoint answers 503 with a clear message instead of failing."""

from __future__ import annotations

from typing import Any

from ninja.errors import HttpError


def run_reflection(*, actor: str) -> dict[str, Any]:
    try:
        from governance.lifecycle.reflection import reflection_run
    except ImportError:
        raise HttpError(503, "reflection is not available in this build") from None
    return reflection_run(actor=actor)
