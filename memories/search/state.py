"""The search state (memories_searchstate: generation, epoch) and caches keyed by it.

On SQLite, triggers bump `generation` whenever a row search reads changes (a memory's
searched columns, an entity, an entity link, a relation, a memory delete: migration 0010
logs the deleted id under its generation). `epoch` no longer moves on a delete; a new
epoch still means "reload everything" to the vector index.
So a value derived from those tables stays right for as long as the committed state is the
one it was computed under, in every process: that is how the vector index (vectors.py)
decides what to reload, and what `StateCache` offers the keyword plan and the entity arm.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db import connection


def read_search_state() -> tuple[int, int]:
    """(generation, epoch) as this connection sees them; (0, 0) before the first write."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT generation, epoch FROM memories_searchstate WHERE id = 1")
        row = cursor.fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


class StateCache:
    """A dict of values computed from the search tables, emptied whenever the committed
    search state moves on.

    `current()` reads the state and returns the dict valid for it, or None when the cache
    must not be used: on PostgreSQL (no triggers keep the state there) and inside a
    transaction, where the state read may include our own uncommitted writes and a rollback
    would hand the same generation number to different rows. Callers read the state (through
    `current()`) before the data they store, so a value is never older than its key; one
    computed from newer data lands under a key the next search replaces."""

    # A store that is searched but never written keeps one state for good: past this many
    # values (distinct query tokens, say) the dict starts again rather than grow forever.
    MAX_VALUES = 50_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._values: dict[Any, Any] = {}

    def current(self) -> dict[Any, Any] | None:
        if connection.vendor != "sqlite" or connection.in_atomic_block:
            return None
        key = (connection.settings_dict["NAME"], *read_search_state())
        with self._lock:
            if key != self._key or len(self._values) > self.MAX_VALUES:
                self._key, self._values = key, {}
            return self._values

    def clear(self) -> None:
        with self._lock:
            self._key, self._values = None, {}
