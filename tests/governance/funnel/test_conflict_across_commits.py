"""The conflict stage must see memories committed by earlier requests, on every backend.
(Inside one test transaction every cache reloads anyway; committed data is the real case.)"""

import pytest

from governance.intake.services import event_ingest
from governance.models import LayerPolicy
from memories.models import Memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_later_contradiction_is_caught_after_commits():
    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    # An unrelated fact first, so the process has searched (and cached) before `first` exists.
    other = event_ingest(text="用户确认：brand_A 口红素材只投女性人群", advertiser="brand_A", source="user", actor="token:a")
    assert other.action == "WRITE", other.reasons
    first = event_ingest(text="用户纠正：brand_A 感冒药计划出价不要超过1.5元", advertiser="brand_A", source="user", actor="token:a")
    assert first.action == "WRITE", first.reasons
    Memory.objects.filter(pk=first.memory_id).update(access_count=1)  # a committed write the index must not depend on
    second = event_ingest(text="用户纠正：brand_A 感冒药计划出价不要超过1.2元", advertiser="brand_A", source="user", actor="token:a")
    assert second.action in ("UPDATE", "PENDING_REVIEW"), second.reasons
    assert any(f"#{first.memory_id}" in reason for reason in second.reasons), second.reasons
