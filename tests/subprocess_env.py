"""The environment for a Lingix process a test starts (CLI, server, benchmark)."""

from __future__ import annotations

import os


def isolated_env(**overrides: str) -> dict[str, str]:
    """This process's environment without any Lingix, Django or database setting (the
    test runner's own, e.g. the PostgreSQL suite's DATABASE_URL, must not leak into a
    child that has its own database), plus `overrides`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "DJANGO_", "DATABASE_URL"))}
    # The local settings file `make run` leaves behind must not decide what a test child sees.
    env["LINGIX_ENV_FILE"] = ""
    env.update(overrides)
    return env
