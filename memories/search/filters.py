from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from memories.constants import Status


@dataclass(frozen=True)
class SearchFilter:
    """The structured part of a search, applied before any ranking.

    advertisers=None is the operator's view (every advertiser). A list means: those
    advertisers, plus global memories (advertiser NULL) when include_global is set.
    """

    advertisers: tuple[str, ...] | None = None
    include_global: bool = True
    business_line: str | None = None
    layers: tuple[str, ...] | None = None
    # Organisation filters: episodic/semantic, and category tree nodes (a node and its
    # subtree are expanded to ids by the caller).
    kinds: tuple[str, ...] | None = None
    category_ids: tuple[int, ...] | None = None
    now: datetime = field(default_factory=timezone.now)
    # A read of the past: the memories valid at this time (see valid_at_sql), not the
    # active ones. `now` is then the same time, so recency is measured from it.
    as_of: datetime | None = None

    @property
    def organised(self) -> bool:
        return bool(self.kinds) or self.category_ids is not None

    @classmethod
    def at(cls, as_of: datetime | None, **kwargs) -> SearchFilter:
        """A filter for now (as_of None) or for a time in the past."""
        return cls(now=as_of or timezone.now(), as_of=as_of, **kwargs)

    @classmethod
    def for_advertiser(cls, advertiser: str | None, **kwargs) -> SearchFilter:
        return cls(advertisers=None if advertiser is None else (advertiser,), **kwargs)


# What "valid at t" means for a stored row, in SQL and in Python (the two must agree):
# its validity had begun (valid_from <= t) and not ended (valid_to > t; a row archived or
# expired before valid_to was recorded on status changes ends at its last update), an L3
# fact had not expired (expires_at > t), and it was never a parked proposal.
_ENDED = (Status.ARCHIVED.value, Status.EXPIRED.value, Status.SUPERSEDED.value)


def valid_at_sql(alias: str, at: datetime) -> tuple[str, list]:
    statuses = ", ".join(["%s"] * len(_ENDED))
    sql = (
        f"{alias}.status <> %s AND {alias}.valid_from <= %s "
        f"AND ({alias}.valid_to > %s OR ({alias}.valid_to IS NULL AND ({alias}.status NOT IN ({statuses}) OR {alias}.updated_at > %s))) "
        f"AND ({alias}.expires_at IS NULL OR {alias}.expires_at > %s)"
    )
    return sql, [Status.PENDING_REVIEW.value, at, at, *_ENDED, at, at]


def valid_at(memory, at: datetime) -> bool:
    if memory.status == Status.PENDING_REVIEW or memory.valid_from > at:
        return False
    if memory.expires_at is not None and memory.expires_at <= at:
        return False
    if memory.valid_to is not None:
        return memory.valid_to > at
    return memory.status not in _ENDED or memory.updated_at > at
