"""Short write transactions that survive a busy database.

The web server and qcluster share one SQLite file. IMMEDIATE transactions make writers
queue on the busy timeout, so a lock error only surfaces when a writer waited longer
than that; then retrying the whole (short, idempotent) batch is the right answer."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import OperationalError, connection, transaction

logger = logging.getLogger(__name__)

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
    for attempt in range(1, attempts + 1):
        try:
            with transaction.atomic():
                return fn()
        except OperationalError as exc:
            if not is_busy(exc) or attempt == attempts:
                raise
            delay = base_delay * (2 ** (attempt - 1)) * (1 + random.random())
            logger.warning("database busy, retrying batch in %.2fs (attempt %d): %s", delay, attempt, exc)
            time.sleep(delay)
    raise AssertionError("unreachable")


def chunks(ids: list[int], size: int = BATCH_SIZE):
    for start in range(0, len(ids), max(1, size)):
        yield ids[start : start + size]
