from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone


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

    @property
    def organised(self) -> bool:
        return bool(self.kinds) or self.category_ids is not None

    @classmethod
    def for_advertiser(cls, advertiser: str | None, **kwargs) -> SearchFilter:
        return cls(advertisers=None if advertiser is None else (advertiser,), **kwargs)
