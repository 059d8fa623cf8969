"""L3 expiry with a controllable clock."""

from datetime import timedelta

import pytest

from governance.lifecycle.expire import STAGE, memories_expire
from governance.models import Trace
from memories.constants import Status
from memories.models import Memory
from memories.selectors import memory_search
from tests.clock import T0


@pytest.fixture
def signals(make_memory):
    def _make(content, hours, **fields):
        fields.setdefault("source", "tool")
        return make_memory(
            content, layer="L3", advertiser="brand_A", expires_at=T0 + timedelta(hours=hours), created_at=T0 - timedelta(hours=1), **fields
        )

    return _make


def test_l3_past_its_ttl_expires_and_one_before_it_stays(signals):
    due = signals("brand_A 感冒药计划今日ROI异常下降到1.2，疑似落地页加载超时", hours=-1)
    later = signals("brand_A 双十二预热期CPM较上周上涨约25%", hours=+2)

    report = memories_expire(now=T0)

    assert report["expired"] == 1 and report["by_layer"] == {"L3": 1}
    due.refresh_from_db()
    later.refresh_from_db()
    assert due.status == Status.EXPIRED and due.valid_to == T0
    assert later.status == Status.ACTIVE
    # Three hours on, the second one goes too.
    assert memories_expire(now=T0 + timedelta(hours=3))["expired"] == 1
    later.refresh_from_db()
    assert later.status == Status.EXPIRED


def test_expiry_is_exactly_at_expires_at(signals):
    memory = signals("brand_B 账户余额仅够2.5天消耗，已触发充值提醒", hours=0)
    assert memories_expire(now=T0 - timedelta(seconds=1))["expired"] == 0
    assert memories_expire(now=T0)["expired"] == 1
    memory.refresh_from_db()
    assert memory.status == Status.EXPIRED


def test_expired_rows_are_kept_and_never_found(signals):
    signals("brand_A 落地页加载超时导致ROI骤降", hours=-5)
    memories_expire(now=T0)
    assert Memory.objects.filter(status=Status.EXPIRED).count() == 1  # kept for audit
    assert memory_search(query="落地页加载超时", mode="keyword").results == []


def test_each_batch_writes_a_trace_naming_its_memories(signals):
    made = [signals(f"brand_A 计划{i}号 ROI 异常波动", hours=-i - 1) for i in range(5)]

    report = memories_expire(now=T0, batch_size=2)

    assert report["expired"] == 5 and report["batches"] == 3
    traces = list(Trace.objects.filter(stage=STAGE).order_by("id"))
    assert [t.scores["count"] for t in traces] == [2, 2, 1]
    assert sorted(i for t in traces for i in t.scores["memory_ids"]) == sorted(m.pk for m in made)
    assert all(t.event_id is None and t.decision == "expired" for t in traces)


def test_a_second_run_changes_nothing_and_traces_nothing(signals):
    signals("brand_C 竞品今日上线大额优惠券", hours=-1)
    memories_expire(now=T0)
    before = Trace.objects.count()
    assert memories_expire(now=T0 + timedelta(minutes=10))["expired"] == 0
    assert Trace.objects.count() == before


def test_only_active_memories_expire(signals):
    archived = signals("brand_A 旧的实时信号，已归档", hours=-1)
    Memory.objects.filter(pk=archived.pk).update(status=Status.ARCHIVED)
    permanent = signals("没有TTL的记录不会过期", hours=0)
    Memory.objects.filter(pk=permanent.pk).update(expires_at=None)
    assert memories_expire(now=T0 + timedelta(days=365))["expired"] == 0
    archived.refresh_from_db()
    assert archived.status == Status.ARCHIVED
