"""Scheduled trim of the vector index's deletion log (SQLite's memories_vectordeletion).

The delete trigger adds a row per deleted memory for good; readers only need the newest
(memories/search/vectors.py, LOG_KEEP). The trim is a write, so it runs here, from
maintenance, and never from a search: a search that wrote would wait behind a writer for
up to the busy timeout, and fail on a read-only copy of the database."""

from __future__ import annotations

import logging
from typing import Any

from django.db import OperationalError, connection

from memories.lifecycle.db import is_busy
from memories.search import vectors

logger = logging.getLogger(__name__)


def vector_log_prune(*, keep: int | None = None) -> dict[str, Any]:
    """Keep the newest `keep` deletes (default LOG_KEEP) and a marker where the others were
    (vectors.prune_deletion_log). A busy database is reported, not raised: the log simply
    waits for the next run. PostgreSQL keeps no log (no search state, no shared file)."""
    if connection.vendor != "sqlite":
        return {"pruned": 0, "kept": 0, "skipped": f"{connection.display_name} keeps no vector deletion log: nothing to prune"}
    # Read at call time, not bound as a default: the limit is one number, kept in vectors.py.
    keep = vectors.LOG_KEEP if keep is None else keep
    try:
        pruned = vectors.prune_deletion_log(keep=keep)
    except OperationalError as exc:
        if not is_busy(exc):
            raise
        logger.warning("vector deletion log not pruned, database busy: %s", exc)
        return {"pruned": 0, "kept": _logged(), "keep": keep, "deferred": "database busy"}
    return {"pruned": pruned, "kept": _logged(), "keep": keep}


def _logged() -> int:
    """Deletes the log holds (its marker row, if any, is not one)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memories_vectordeletion WHERE memory_id >= 0")
        return int(cursor.fetchone()[0])
