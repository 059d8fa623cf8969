"""Retention tiers and capacity eviction with a controllable clock."""

from datetime import timedelta

from governance.lifecycle.evict import EVICT_STAGE, TIER_STAGE, memories_decay_and_evict, memories_evict, memories_retier
from governance.models import Trace
from memories.constants import Status, Tier
from memories.models import Memory
from tests.clock import T0


def strategy(make_memory, content, *, advertiser="brand_A", layer="L2", days_old=10, importance=6.0, recalls=0, **fields):
    memory = make_memory(
        content,
        layer=layer,
        advertiser=advertiser,
        importance=importance,
        confidence=0.8,
        source=fields.pop("source", "tool"),
        created_at=T0 - timedelta(days=days_old),
        embed=False,
        **fields,
    )
    if recalls:
        Memory.objects.filter(pk=memory.pk).update(access_count=recalls, last_accessed_at=T0 - timedelta(days=1))
    return memory


def test_over_capacity_archives_the_lowest_retention_only(make_memory, policy):
    policy("L2", capacity_per_advertiser=3)
    keep_busy = strategy(make_memory, "brand_A 晚间20点-23点加大出价，转化率高35%", recalls=12, importance=8)
    keep_new = strategy(make_memory, "brand_A 人群包定向后ROI提升到2.9", days_old=1, importance=7)
    keep_mid = strategy(make_memory, "brand_A 维生素品类周一上午CTR最高", days_old=20, importance=6, recalls=2)
    drop_old = strategy(make_memory, "brand_A 三个月前的素材测试结论", days_old=120, importance=3)
    drop_older = strategy(make_memory, "brand_A 半年前的出价实验", days_old=200, importance=2)
    before = Memory.objects.count()

    report = memories_evict(now=T0)

    assert report["archived"] == 2
    assert set(report["memory_ids"]) == {drop_old.pk, drop_older.pk}
    statuses = dict(Memory.objects.values_list("id", "status"))
    assert statuses[drop_old.pk] == statuses[drop_older.pk] == Status.ARCHIVED
    assert {statuses[m.pk] for m in (keep_busy, keep_new, keep_mid)} == {Status.ACTIVE}
    assert Memory.objects.count() == before  # nothing deleted
    traces = Trace.objects.filter(stage=EVICT_STAGE)
    assert {t.memory_id for t in traces} == {drop_old.pk, drop_older.pk}
    assert all(t.decision == "archived" and "retention" in t.scores for t in traces)
    [scope] = report["scopes"]
    assert (scope["layer"], scope["advertiser"], scope["active"], scope["capacity"]) == ("L2", "brand_A", 5, 3)


def test_at_or_under_capacity_nothing_is_archived(make_memory, policy):
    policy("L2", capacity_per_advertiser=3)
    for i in range(3):
        strategy(make_memory, f"brand_A 策略{i}：提价10%", days_old=300, importance=1)
    # Another advertiser's memories never count against brand_A.
    for i in range(2):
        strategy(make_memory, f"brand_B 策略{i}：降价15%", advertiser="brand_B", days_old=300, importance=1)
    assert memories_evict(now=T0)["archived"] == 0
    assert not Memory.objects.exclude(status=Status.ACTIVE).exists()


def test_capacity_is_per_layer_and_global_memories_are_a_scope_of_their_own(make_memory, policy):
    policy("L2", capacity_per_advertiser=1)
    policy("L3", capacity_per_advertiser=None)
    strategy(make_memory, "通用：学习期内调价间隔不少于24小时", advertiser=None, importance=6)
    strategy(make_memory, "通用：素材疲劳周期约7-10天", advertiser=None, importance=4, days_old=90)
    strategy(make_memory, "brand_A 唯一的一条策略", importance=2, days_old=400)
    for i in range(3):
        strategy(make_memory, f"brand_A 实时信号{i}", layer="L3", importance=1, days_old=50)

    report = memories_evict(now=T0)

    assert report["archived"] == 1
    archived = Memory.objects.get(status=Status.ARCHIVED)
    assert archived.advertiser is None and "素材疲劳" in archived.content


def test_l1_is_never_evicted_whatever_the_policy_says(make_memory, policy):
    policy("L1", capacity_per_advertiser=1)
    for i in range(4):
        strategy(make_memory, f"合规规则{i}：医药OTC素材禁止绝对化用语", layer="L1", source="human", importance=1, days_old=900)
    assert memories_evict(now=T0)["archived"] == 0
    assert memories_decay_and_evict(now=T0 + timedelta(days=900))["archived"] == 0
    assert set(Memory.objects.values_list("status", flat=True)) == {Status.ACTIVE}
    assert set(Memory.objects.values_list("tier", flat=True)) == {Tier.WORKING}


def test_retier_moves_up_and_down_and_traces_each_move(make_memory):
    busy = strategy(make_memory, "brand_B 大促前3天降价蓄水，大促当天提价30%", advertiser="brand_B", importance=8, recalls=15)
    forgotten = strategy(make_memory, "brand_C 去年的耳机素材测试", advertiser="brand_C", importance=2, days_old=250)
    revived = strategy(make_memory, "brand_A 儿童用药素材改用医生科普形式", importance=6, recalls=5, tier=Tier.PERIPHERAL)
    steady = strategy(make_memory, "brand_A 搜索60%信息流40%时ROI最高", importance=6, days_old=5, recalls=1)

    report = memories_retier(now=T0)

    tiers = dict(Memory.objects.values_list("id", "tier"))
    assert tiers[busy.pk] == Tier.CORE
    assert tiers[forgotten.pk] == Tier.PERIPHERAL
    assert tiers[revived.pk] == Tier.WORKING
    assert tiers[steady.pk] == Tier.WORKING
    assert report["moved"] == 3
    assert report["moves"] == {"working->core": 1, "working->peripheral": 1, "peripheral->working": 1}
    moves = {t.memory_id: t.decision for t in Trace.objects.filter(stage=TIER_STAGE)}
    assert moves == {busy.pk: "working->core", forgotten.pk: "working->peripheral", revived.pk: "peripheral->working"}
    # Nothing left to move: a second run writes nothing.
    assert memories_retier(now=T0)["moved"] == 0
    assert Trace.objects.filter(stage=TIER_STAGE).count() == 3


def test_a_core_memory_left_alone_long_enough_drops_back(make_memory):
    core = strategy(make_memory, "brand_A 偏好晚间加大出价", importance=6, recalls=12, tier=Tier.CORE)
    assert memories_retier(now=T0)["moved"] == 0
    memories_retier(now=T0 + timedelta(days=400))
    core.refresh_from_db()
    assert core.tier == Tier.WORKING


def test_eviction_only_ever_touches_active_memories(make_memory, policy):
    policy("L2", capacity_per_advertiser=1)
    old = strategy(make_memory, "brand_A 第一版策略 ROI 2.0", importance=2, days_old=300)
    Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED)
    strategy(make_memory, "brand_A 第二版策略 ROI 2.6", importance=2, days_old=300)
    assert memories_evict(now=T0)["archived"] == 0
    old.refresh_from_db()
    assert old.status == Status.SUPERSEDED
