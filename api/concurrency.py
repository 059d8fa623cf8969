"""How many expensive requests (embedding, search, the write funnel, reflection) one token
may have in flight at once. The rate limit in security.py counts requests per minute; it
cannot stop six slow requests arriving together from queueing every other tenant behind
them on the embedder, which serves one call at a time. This bound can.

Where the count lives:
- PostgreSQL (several web workers, maybe several machines): the token's slots are
  session-level advisory locks, one key per (token, slot number). A request takes the
  first free slot with pg_try_advisory_lock and gives it back when it ends, so the bound
  holds across every worker that shares the database; a worker that dies loses its
  connection and with it its slots.
- SQLite (one machine, one web process): a count in the process. A deployment that ran
  several web processes on SQLite would allow processes × limit.
A process also remembers which slots its own threads hold, because PostgreSQL grants an
advisory lock again to the session that already holds it, and threads may share one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DatabaseError, connection
from ninja.errors import HttpError

from api.models import ApiToken
from memories.metrics_registry import record_rate_limit_refusal

DEFAULT_CONCURRENCY = 2
RETRY_AFTER_SECONDS = 1

_lock = threading.Lock()
_in_flight: dict[int, int] = {}
_held: set[tuple[int, int]] = set()
# The high 16 bits of every slot key ("LG"); the write locks use the two-key form, so the
# two families never meet.
_SLOT_NAMESPACE = 0x4C47


class TooManyConcurrent(HttpError):
    """429 with Retry-After (added by errors.py) when a token already has its limit in flight."""

    def __init__(self, limit: int) -> None:
        super().__init__(429, f"this token already has {limit} expensive requests in progress; retry when one finishes")
        self.retry_after = RETRY_AFTER_SECONDS


def concurrency_limit() -> int:
    return max(1, int(getattr(settings, "MEMORY_API_CONCURRENCY", None) or DEFAULT_CONCURRENCY))


def _slot_key(token_pk: int, slot: int) -> int:
    return (_SLOT_NAMESPACE << 48) | ((token_pk & 0xFFFFFFFFFF) << 8) | (slot & 0xFF)


def _take_shared_slot(token_pk: int, limit: int) -> int | None:
    """The first slot of the token no session holds, now held by this one; None if all are."""
    for slot in range(min(limit, 256)):
        with _lock:
            if (token_pk, slot) in _held:
                continue
            _held.add((token_pk, slot))
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_slot_key(token_pk, slot)])
            if cursor.fetchone()[0]:
                return slot
        with _lock:
            _held.discard((token_pk, slot))
    return None


def _give_back_shared_slot(token_pk: int, slot: int) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_slot_key(token_pk, slot)])
    except DatabaseError:
        # A broken connection cannot unlock; closing it ends the session and its locks.
        connection.close()
    finally:
        with _lock:
            _held.discard((token_pk, slot))


@contextmanager
def token_slot(token: ApiToken) -> Iterator[None]:
    """Hold one of the token's slots for the duration of the block, or refuse at once
    (waiting would tie up a web worker, which is the harm being prevented)."""
    limit = concurrency_limit()
    shared = connection.vendor == "postgresql"
    slot = None
    with _lock:
        busy = _in_flight.get(token.pk, 0)
        if busy >= limit:
            record_rate_limit_refusal(limit="concurrency")
            raise TooManyConcurrent(limit)
        _in_flight[token.pk] = busy + 1
    try:
        if shared:
            slot = _take_shared_slot(token.pk, limit)
            if slot is None:
                record_rate_limit_refusal(limit="concurrency")
                raise TooManyConcurrent(limit)
        yield
    finally:
        if slot is not None:
            _give_back_shared_slot(token.pk, slot)
        with _lock:
            remaining = _in_flight.get(token.pk, 1) - 1
            if remaining > 0:
                _in_flight[token.pk] = remaining
            else:
                _in_flight.pop(token.pk, None)


def in_flight(token: ApiToken) -> int:
    with _lock:
        return _in_flight.get(token.pk, 0)
