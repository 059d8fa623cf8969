"""Reuse a benchmark's imported and embedded store across runs.

Importing 5.9k LoCoMo turns through the governed import path takes minutes on these shared
cores, and ablations of the ranking rank the same store again and again. The first run
builds the store for real and keeps a copy of the SQLite file (SQLite's backup API) under
.cache/; a later run whose import lines, migrations and embedder are identical restores
that copy instead of importing again. `--no-store-cache` on a benchmark always builds."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from bench._common import REPO

DEFAULT_DIR = REPO / ".cache" / "issue14b-bench-stores"


def _fingerprint(lines: list[str]) -> str:
    from memories.embeddings import get_embedder

    migrations = sorted(str(p.relative_to(REPO)) for p in REPO.glob("*/migrations/0*.py"))
    digest = hashlib.sha256()
    for part in (*lines, *migrations, get_embedder().model_name):
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:24]


def _copy(source: str | Path, target: str | Path) -> None:
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def restore_or_build(
    label: str, lines: list[str], build: Callable[[], None], progress: Callable[[str], None], directory: Path = DEFAULT_DIR
) -> None:
    """Restore the cached store for exactly these import lines into the throwaway database,
    or run `build` and keep a copy of what it made."""
    from django.db import connection

    cached = directory / f"{label}-{_fingerprint(lines)}.sqlite3"
    live = connection.settings_dict["NAME"]
    if cached.exists():
        connection.close()
        _copy(cached, live)
        progress(f"restored the imported, embedded store from {cached.name}")
        return
    build()
    connection.close()
    directory.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".partial")
    _copy(live, partial)
    partial.replace(cached)
