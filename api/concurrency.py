"""How many expensive requests (embedding, search, the write funnel, reflection) one token
may have in flight at once. The rate limit in security.py counts requests per minute; it
cannot stop six slow requests arriving together from queueing every other tenant behind
them on the embedder, which serves one call at a time. This bound can.

The count lives in the process: with several web workers each allows the limit, so the
real bound is workers × limit. That is still per tenant, which is what keeps tenants apart.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from ninja.errors import HttpError

from api.models import ApiToken
from memories.metrics_registry import record_rate_limit_refusal

DEFAULT_CONCURRENCY = 2
RETRY_AFTER_SECONDS = 1

_lock = threading.Lock()
_in_flight: dict[int, int] = {}


class TooManyConcurrent(HttpError):
    """429 with Retry-After (added by errors.py) when a token already has its limit in flight."""

    def __init__(self, limit: int) -> None:
        super().__init__(429, f"this token already has {limit} expensive requests in progress; retry when one finishes")
        self.retry_after = RETRY_AFTER_SECONDS


def concurrency_limit() -> int:
    return max(1, int(getattr(settings, "MEMORY_API_CONCURRENCY", None) or DEFAULT_CONCURRENCY))


@contextmanager
def token_slot(token: ApiToken) -> Iterator[None]:
    """Hold one of the token's slots for the duration of the block, or refuse at once
    (waiting would tie up a web worker, which is the harm being prevented)."""
    limit = concurrency_limit()
    with _lock:
        busy = _in_flight.get(token.pk, 0)
        if busy >= limit:
            record_rate_limit_refusal(limit="concurrency")
            raise TooManyConcurrent(limit)
        _in_flight[token.pk] = busy + 1
    try:
        yield
    finally:
        with _lock:
            remaining = _in_flight.get(token.pk, 1) - 1
            if remaining > 0:
                _in_flight[token.pk] = remaining
            else:
                _in_flight.pop(token.pk, None)


def in_flight(token: ApiToken) -> int:
    with _lock:
        return _in_flight.get(token.pk, 0)
