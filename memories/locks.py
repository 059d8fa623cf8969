"""The locks a governed write holds while it decides and writes.

A governed decision reads two scopes: its own advertiser's memories and the global ones
(the conflict stage compares a proposal with both). So a write for brand_A holds brand_A
exclusively and the global scope shared: writers for brand_A queue behind each other,
writers for brand_A and brand_B run side by side, and a write of a global memory (which
every advertiser's decision may read) takes the global scope exclusively and waits for
all of them.

On PostgreSQL each scope is a transaction-scoped advisory lock (pg_advisory_xact_lock and
pg_advisory_xact_lock_shared), released at commit or rollback. On SQLite nothing is taken
here: IMMEDIATE transactions (lingix_site/settings.py) already hold the database's single
write lock from BEGIN to COMMIT, so every governed write waits for every other whatever its
scope, and governed throughput stays that of one writer. Narrower scopes help only on
PostgreSQL.

Take the locks first thing in the transaction and never call a model while holding them
(the funnel runs its model stages before the transaction opens)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable

# The first key of every two-key advisory lock taken here: "LGMX". Any constant works; it
# only has to be the same in every process.
_NAMESPACE = 0x4C474D58
_GLOBAL = 0


def scope_key(advertiser: str | None) -> int:
    """The advisory key of one scope: 0 for global, a 31-bit hash of the advertiser code
    otherwise (never 0). Two advertisers that share a hash merely wait for each other."""
    if advertiser is None:
        return _GLOBAL
    return (zlib.crc32(advertiser.encode("utf-8")) & 0x7FFFFFFF) or 1


def memory_write_lock(*, advertisers: Iterable[str | None]) -> None:
    """Hold the scopes of `advertisers` (None is the global scope) for the rest of the
    current transaction, so a decision taken inside it (e.g. "this contradicts #12,
    supersede it") is still true when it is written. Locks are taken in one order (global
    first, then advertisers by key) so two writers never wait for each other in a cycle."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    scopes = set(advertisers)
    global_mode = "pg_advisory_xact_lock" if None in scopes else "pg_advisory_xact_lock_shared"
    keys = sorted({scope_key(a) for a in scopes if a is not None})
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {global_mode}(%s, %s)", [_NAMESPACE, _GLOBAL])
        for key in keys:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_NAMESPACE, key])
