"""The retention score and tier moves, as pure functions of a memory's numbers."""

from datetime import timedelta

import pytest

from memories.constants import Layer, Tier
from memories.lifecycle.retention import (
    DEFAULT_RETENTION,
    TIER_SHAPE,
    next_tier,
    retention_of,
    weibull_survival,
)
from tests.clock import T0


def score(*, days_idle=0.0, tier="working", importance=5.0, confidence=0.8, recalls=0, reinforcements=0):
    return retention_of(
        tier=tier,
        importance=importance,
        confidence=confidence,
        access_count=recalls,
        reinforcement_count=reinforcements,
        created_at=T0 - timedelta(days=days_idle),
        last_accessed_at=None,
        now=T0,
    )


def test_tier_shapes_are_the_tuned_ones():
    assert TIER_SHAPE == {Tier.CORE: 0.8, Tier.WORKING: 1.0, Tier.PERIPHERAL: 1.3}


def test_weibull_is_one_half_at_the_half_life_for_every_shape():
    for shape in (0.8, 1.0, 1.3):
        assert weibull_survival(30, half_life_days=30, shape=shape) == pytest.approx(0.5)
        assert weibull_survival(0, half_life_days=30, shape=shape) == 1.0


def test_core_keeps_a_heavier_tail_than_peripheral_past_the_half_life():
    old = {tier: weibull_survival(120, half_life_days=30, shape=TIER_SHAPE[tier]) for tier in TIER_SHAPE}
    assert old[Tier.CORE] > old[Tier.WORKING] > old[Tier.PERIPHERAL]
    # …and before the half-life the order flips: peripheral holds, core starts fading early.
    young = {tier: weibull_survival(5, half_life_days=30, shape=TIER_SHAPE[tier]) for tier in TIER_SHAPE}
    assert young[Tier.PERIPHERAL] > young[Tier.WORKING] > young[Tier.CORE]


def test_retention_falls_with_idle_time_and_rises_with_importance_and_use():
    assert score(days_idle=1).score > score(days_idle=40).score > score(days_idle=200).score
    assert score(days_idle=40, importance=9).recency > score(days_idle=40, importance=2).recency
    assert score(importance=9).score > score(importance=2).score
    assert score(recalls=5).score > score(recalls=0).score


def test_a_reinforcement_counts_more_than_a_recall():
    assert score(reinforcements=2).frequency > score(recalls=2).frequency
    assert score(reinforcements=2).uses == pytest.approx(score(recalls=4).uses)


def test_a_recent_recall_restarts_the_decay():
    created = T0 - timedelta(days=300)
    idle = retention_of(
        tier="working",
        importance=5,
        confidence=0.8,
        access_count=1,
        reinforcement_count=0,
        created_at=created,
        last_accessed_at=None,
        now=T0,
    )
    recalled = retention_of(
        tier="working",
        importance=5,
        confidence=0.8,
        access_count=1,
        reinforcement_count=0,
        created_at=created,
        last_accessed_at=T0 - timedelta(days=1),
        now=T0,
    )
    assert recalled.idle_days == pytest.approx(1)
    assert recalled.score > idle.score


def test_tiers_move_up_with_use_and_down_with_neglect():
    busy = score(days_idle=1, importance=8, recalls=20)
    assert next_tier(layer=Layer.L2, tier=Tier.WORKING, retention=busy) == Tier.CORE
    forgotten = score(days_idle=200, importance=3, confidence=0.5)
    assert next_tier(layer=Layer.L2, tier=Tier.WORKING, retention=forgotten) == Tier.PERIPHERAL
    assert next_tier(layer=Layer.L2, tier=Tier.CORE, retention=forgotten) == Tier.WORKING
    revived = score(days_idle=0, importance=5, recalls=4)
    assert next_tier(layer=Layer.L2, tier=Tier.PERIPHERAL, retention=revived) == Tier.WORKING


def test_tiers_do_not_move_without_reason():
    ordinary = score(days_idle=10, importance=6, recalls=1)
    assert next_tier(layer=Layer.L2, tier=Tier.WORKING, retention=ordinary) == Tier.WORKING
    # Not idle long enough to be demoted, however low the score.
    young_low = score(days_idle=50, importance=0, confidence=0)
    assert young_low.score < DEFAULT_RETENTION.peripheral_below_score
    assert young_low.idle_days < DEFAULT_RETENTION.peripheral_min_idle_days
    assert next_tier(layer=Layer.L2, tier=Tier.WORKING, retention=young_low) == Tier.WORKING
    # A core memory that is still strong stays core (the gap between thresholds).
    strong = score(days_idle=5, importance=8, recalls=12)
    assert next_tier(layer=Layer.L2, tier=Tier.CORE, retention=strong) == Tier.CORE


def test_l1_rules_never_change_tier():
    forgotten = score(days_idle=900, importance=1, confidence=0.1)
    assert next_tier(layer=Layer.L1, tier=Tier.WORKING, retention=forgotten) == Tier.WORKING
    busy = score(days_idle=0, importance=10, recalls=50)
    assert next_tier(layer=Layer.L1, tier=Tier.WORKING, retention=busy) == Tier.WORKING
