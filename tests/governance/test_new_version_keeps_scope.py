"""A new version keeps what the old one was about: business line, category and data
carry forward unless the proposal sets them, and importance is scored again."""

import pytest

from governance.models import ReviewItem
from governance.review.services import review_approve
from memories.models import Memory

pytestmark = pytest.mark.django_db

OLD = "用户说：brand_A 医药OTC冷启动期出价上限1.5元"


def _old(trigger):
    first = trigger(
        "user_feedback",
        summary=OLD,
        advertiser="brand_A",
        source="user",
        data={"category": "医药OTC", "business_line": "medical", "right_way": "出价上限1.5元"},
    )
    assert first.action == "WRITE", first.reasons
    return Memory.objects.get(pk=first.memory_id)


def _carried(old: Memory, new: Memory) -> None:
    assert new.supersedes_id == old.pk
    assert (new.business_line, new.category) == ("medical", "医药OTC")
    assert new.data.get("right_way") == "出价上限1.5元" or new.data
    assert new.importance != 5.0


def test_automatic_update_keeps_business_line_and_category(trigger, ingest):
    old = _old(trigger)
    new = ingest("用户确认纠正：brand_A 医药OTC冷启动期出价上限改为2元", advertiser="brand_A", source="user")
    assert new.action == "UPDATE", new.reasons
    _carried(old, Memory.objects.get(pk=new.memory_id))


def test_approved_update_keeps_business_line_and_category(trigger, ingest):
    old = _old(trigger)
    parked = ingest("用户说：brand_A 医药OTC冷启动期出价上限2元", advertiser="brand_A", source="user")
    assert parked.action == "PENDING_REVIEW", parked.reasons
    item = ReviewItem.objects.get(pk=parked.review_item_id)
    approved = review_approve(item=item, reviewer=None, reviewer_name="ops-lead")
    _carried(old, Memory.objects.get(pk=approved.memory_id))
