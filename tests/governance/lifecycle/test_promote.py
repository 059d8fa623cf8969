"""L2 → L4 promotion: criteria from LayerPolicy, review by default, auto on request."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from governance.constants import EventKind, ReviewKind, ReviewStatus
from governance.lifecycle.promote import STAGE, memories_promote, promotion_candidates
from governance.models import MemoryEvent, ReviewItem, Trace
from governance.review.services import review_approve, review_item_create, review_reject
from memories.constants import Attribution, Layer, Status
from memories.models import Memory
from tests.clock import T0

STRATEGY = "医药OTC冷启动采用三阶段出价：前3天保守出价积累转化，第4-7天逐步提价10%；目标ROI 3.0，实际达到3.4"


@pytest.fixture
def mature(make_memory, policy):
    policy("L2", promotion_min_age_days=14, promotion_min_recalls=3, promotion_min_importance=7.0, auto_promote=False)

    def _make(content=STRATEGY, *, days_old=30, recalls=5, reinforcements=0, importance=8.0, **fields):
        memory = make_memory(
            content,
            layer="L2",
            advertiser=fields.pop("advertiser", "brand_A"),
            business_line="medical",
            category="医药OTC",
            source="tool",
            grounding=fields.pop("grounding", "grounded"),
            importance=importance,
            confidence=0.8,
            created_at=T0 - timedelta(days=days_old),
            embed=False,
            **fields,
        )
        Memory.objects.filter(pk=memory.pk).update(access_count=recalls, reinforcement_count=reinforcements)
        memory.refresh_from_db()
        return memory

    return _make


def reviewer():
    return get_user_model().objects.create_user(username="reviewer_li", password="x" * 12)


def test_a_mature_l2_opens_a_promotion_review_item_by_default(mature):
    source = mature()

    report = memories_promote(now=T0)

    assert (report["candidates"], report["proposed"], report["promoted"]) == (1, 1, 0)
    assert not Memory.objects.filter(layer=Layer.L4).exists()  # nothing written before review
    item = ReviewItem.objects.get(kind=ReviewKind.PROMOTION)
    assert item.memory_id == source.pk and item.layer == Layer.L4 and item.status == ReviewStatus.OPEN
    assert item.payload["candidate"]["layer"] == "L4" and STRATEGY in item.payload["candidate"]["content"]
    event = MemoryEvent.objects.get(kind=EventKind.PROMOTION)
    assert event.action == "PENDING_REVIEW" and item.event_id == event.pk
    assert list(Trace.objects.filter(event=event).values_list("stage", "decision")) == [(STAGE, "eligible"), (STAGE, "PENDING_REVIEW")]
    # Proposed once: the next run leaves it to the reviewer.
    assert memories_promote(now=T0 + timedelta(days=1))["candidates"] == 0


def test_approving_the_item_writes_an_l4_template_linked_to_its_source(mature):
    source = mature()
    memories_promote(now=T0)
    item = ReviewItem.objects.get(kind=ReviewKind.PROMOTION)

    decision = review_approve(item=item, reviewer=reviewer(), reviewer_name="reviewer_li")

    template = Memory.objects.get(pk=decision.memory_id)
    assert template.layer == Layer.L4 and template.status == Status.ACTIVE
    assert list(template.derived_from.values_list("id", flat=True)) == [source.pk]
    assert template.source_attribution == Attribution.PROMOTION
    assert MemoryEvent.objects.get(pk=item.event_id).memory_id == template.pk
    source.refresh_from_db()
    assert source.status == Status.ACTIVE  # the evidence stays
    assert memories_promote(now=T0 + timedelta(days=2))["candidates"] == 0  # never promoted twice


def test_a_rejected_promotion_is_not_proposed_again(mature):
    mature()
    memories_promote(now=T0)
    review_reject(
        item=ReviewItem.objects.get(kind=ReviewKind.PROMOTION),
        reviewer=reviewer(),
        reviewer_name="reviewer_li",
        note="只在冷启动期有效，不够通用",
    )
    assert memories_promote(now=T0 + timedelta(days=30))["candidates"] == 0
    assert not Memory.objects.filter(layer=Layer.L4).exists()


def test_auto_promote_writes_the_template_at_once(mature, policy):
    policy("L2", auto_promote=True)
    source = mature()

    report = memories_promote(now=T0)

    assert (report["promoted"], report["proposed"]) == (1, 0)
    template = Memory.objects.get(layer=Layer.L4)
    assert template.content.startswith("策略模板：") and template.advertiser == "brand_A"
    assert list(template.derived_from.all()) == [source]
    assert template.data["promoted_from"] == [source.pk]
    event = MemoryEvent.objects.get(kind=EventKind.PROMOTION)
    assert (event.action, event.memory_id) == ("WRITE", template.pk)
    assert Trace.objects.filter(event=event, decision="WRITE", memory=template).exists()
    assert not ReviewItem.objects.filter(kind=ReviewKind.PROMOTION).exists()
    assert memories_promote(now=T0 + timedelta(days=1))["candidates"] == 0


@pytest.mark.parametrize(
    "why, fields",
    [
        ("too young", {"days_old": 13}),
        ("too few recalls", {"recalls": 2}),
        ("not important enough", {"importance": 6.9}),
        ("unsupported", {"grounding": "unsupported"}),
    ],
)
def test_each_criterion_blocks_promotion(mature, why, fields):
    mature(**fields)
    assert memories_promote(now=T0)["candidates"] == 0, why


def test_the_boundaries_are_inclusive_and_reinforcements_count(mature):
    mature(days_old=14, recalls=1, reinforcements=2, importance=7.0)
    assert memories_promote(now=T0)["candidates"] == 1


def test_policy_thresholds_are_read_from_layer_policy(mature, policy):
    mature(days_old=5, recalls=1, importance=5.0)
    assert memories_promote(now=T0)["candidates"] == 0
    policy("L2", promotion_min_age_days=3, promotion_min_recalls=1, promotion_min_importance=5.0)
    assert memories_promote(now=T0)["candidates"] == 1


def test_superseded_archived_and_other_layers_are_never_promoted(mature, make_memory):
    old = mature()
    Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED)
    archived = mature("brand_A 晚间20点-23点加大出价，转化率比白天高35%，适用于工作日")
    Memory.objects.filter(pk=archived.pk).update(status=Status.ARCHIVED)
    l1 = mature("所有计划的单日预算调整幅度不得超过原预算的50%")
    Memory.objects.filter(pk=l1.pk).update(layer=Layer.L1)
    assert memories_promote(now=T0)["candidates"] == 0


def test_an_open_conflict_blocks_promotion_until_it_is_settled(mature):
    source = mature()
    other = mature("医药OTC冷启动第4-7天应逐步降价10%；目标ROI 3.0，实际2.1", recalls=0)
    conflict = review_item_create(kind=ReviewKind.CONFLICT, reason="出价方向相反", memory=other, related_memory=source)
    assert promotion_candidates(now=T0).count() == 0
    ReviewItem.objects.filter(pk=conflict.pk).update(status=ReviewStatus.REJECTED)
    assert list(promotion_candidates(now=T0)) == [source]


def test_the_review_path_and_the_auto_path_write_the_same_template(mature, policy):
    first = mature()
    memories_promote(now=T0)
    approved = Memory.objects.get(
        pk=review_approve(
            item=ReviewItem.objects.get(kind=ReviewKind.PROMOTION), reviewer=reviewer(), reviewer_name="reviewer_li"
        ).memory_id
    )
    policy("L2", auto_promote=True)
    second = mature("brand_B 大促前3天降低出价15%蓄水，大促当天提价30%；目标ROI 3.5，实际4.1", advertiser="brand_B")
    memories_promote(now=T0)
    auto = Memory.objects.get(layer=Layer.L4, advertiser="brand_B")
    for field in ("layer", "source", "source_attribution", "grounding", "category", "business_line"):
        assert getattr(approved, field) == getattr(auto, field), field
    assert approved.content == "策略模板：" + first.content and auto.content == "策略模板：" + second.content
