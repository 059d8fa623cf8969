"""The lock a governed write holds while it decides and writes."""

from __future__ import annotations

# Any constant works; it only has to be the same in every process.
_WRITE_LOCK_KEY = 0x4C474D58  # "LGMX"


def memory_write_lock() -> None:
    """Serialise governed writes for the rest of the current transaction, so a decision
    taken inside it (e.g. "this contradicts #12, supersede it") is still true when it is
    written. SQLite's IMMEDIATE transactions already hold the one write lock; PostgreSQL
    takes a transaction-scoped advisory lock."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITE_LOCK_KEY])
