"""Short write transactions that survive a busy database.

The web server and qcluster share one SQLite file. IMMEDIATE transactions make writers
queue on the busy timeout, so a lock error only surfaces when a writer waited longer
than that; then retrying the whole (short, idempotent) batch is the right answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from django.db import OperationalError, connection, transaction

from judges.retry import RetryPolicy, call_with_retry

T = TypeVar("T")
BATCH_SIZE = 200


def is_busy(exc: OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def atomic_batch(fn: Callable[[], T], *, attempts: int = 4, base_delay: float = 0.2) -> T:
    """Run fn in its own transaction, retrying the whole batch when the database is busy.
    Inside an outer transaction a retry cannot help (the outer one holds or lost the
    lock), so the error propagates to whoever owns that transaction."""
    if connection.in_atomic_block:
        with transaction.atomic():
            return fn()

    def once() -> T:
        with transaction.atomic():
            return fn()

    # The lock is local and short-lived, so its numbers are its own, not the gateway's.
    policy = RetryPolicy(attempts=attempts, first_wait=base_delay, max_wait=5.0)
    return call_with_retry(once, policy=policy, retry_on=_busy_error, what="write batch (database busy)")


def _busy_error(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and is_busy(exc)


def chunks(ids: list[int], size: int = BATCH_SIZE) -> Iterator[list[int]]:
    for start in range(0, len(ids), max(1, size)):
        yield ids[start : start + size]
