"""Reads the API needs beyond the memory selectors: review items inside a token's scope."""
from __future__ import annotations

from django.db.models import Q, QuerySet

from api.models import ApiToken
from memories.exceptions import NotFound


def _scoped(queryset: QuerySet, token: ApiToken) -> QuerySet:
    # Global review items (advertiser NULL) can change what every advertiser sees, so
    # only an all-advertiser token sees them.
    if token.all_advertisers:
        return queryset
    return queryset.filter(Q(advertiser__in=token.advertisers or []))


def review_items_for_token(*, token: ApiToken, limit: int = 50) -> list:
    from governance.constants import ReviewStatus
    from governance.models import ReviewItem

    queryset = ReviewItem.objects.filter(status=ReviewStatus.OPEN).order_by("created_at", "id")
    return list(_scoped(queryset, token)[:limit])


def review_item_for_token(*, token: ApiToken, item_id: int):
    from governance.models import ReviewItem

    item = _scoped(ReviewItem.objects.all(), token).filter(pk=item_id).first()
    if item is None:
        raise NotFound(f"review item {item_id} not found")
    return item
