"""Retention: how much a memory is still worth keeping, and which tier it belongs in.

The score blends three parts, each in [0, 1]:
- recency, a Weibull survival curve over the days since the memory was last used (or
  created). The shape depends on the tier: core (0.8) has a heavy tail and fades slowly
  once old, peripheral (1.3) drops off quickly after its half-life. Importance stretches
  the half-life, so an important memory fades more slowly;
- frequency, a saturating curve over recalls plus reinforcements (a reinforcement is
  independent evidence that the memory holds, so it weighs more than a recall);
- intrinsic value, importance × confidence.

Pure functions only: the evict job reads rows, scores them here and decides."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memories.constants import Layer, Tier

TIER_SHAPE = {Tier.CORE: 0.8, Tier.WORKING: 1.0, Tier.PERIPHERAL: 1.3}


@dataclass(frozen=True)
class RetentionConfig:
    half_life_days: float = 30.0
    # importance 10 doubles the half-life, importance 0 leaves it as is
    importance_half_life_gain: float = 1.0
    recency_weight: float = 0.4
    frequency_weight: float = 0.3
    intrinsic_weight: float = 0.3
    reinforcement_weight: float = 2.0
    # uses (recalls + weighted reinforcements) at which frequency reaches 1 - 1/e
    frequency_scale: float = 8.0
    # tier moves
    core_min_uses: int = 10
    core_min_score: float = 0.7
    core_keep_score: float = 0.5
    peripheral_below_score: float = 0.2
    peripheral_min_idle_days: float = 60.0
    working_again_score: float = 0.35
    working_again_uses: int = 3


DEFAULT_RETENTION = RetentionConfig()


@dataclass(frozen=True)
class Retention:
    score: float
    recency: float
    frequency: float
    intrinsic: float
    idle_days: float
    uses: float

    def as_dict(self) -> dict[str, float]:
        return {
            "retention": round(self.score, 4),
            "recency": round(self.recency, 4),
            "frequency": round(self.frequency, 4),
            "intrinsic": round(self.intrinsic, 4),
            "idle_days": round(self.idle_days, 2),
            "uses": round(self.uses, 2),
        }


def weibull_survival(age_days: float, *, half_life_days: float, shape: float) -> float:
    """S(t) = exp(-(t/λ)^k), with λ chosen so that S(half_life) = 1/2."""
    if age_days <= 0:
        return 1.0
    scale = half_life_days / math.log(2) ** (1.0 / shape)
    return math.exp(-((age_days / scale) ** shape))


def retention_of(
    *,
    tier: str,
    importance: float,
    confidence: float,
    access_count: int,
    reinforcement_count: int,
    created_at: datetime,
    last_accessed_at: datetime | None,
    now: datetime,
    config: RetentionConfig = DEFAULT_RETENTION,
) -> Retention:
    anchor = max(created_at, last_accessed_at) if last_accessed_at else created_at
    idle_days = max(0.0, (now - anchor).total_seconds() / 86400.0)
    importance = min(10.0, max(0.0, float(importance)))
    half_life = config.half_life_days * (1.0 + config.importance_half_life_gain * importance / 10.0)
    recency = weibull_survival(idle_days, half_life_days=half_life, shape=TIER_SHAPE.get(tier, 1.0))
    uses = float(access_count) + config.reinforcement_weight * float(reinforcement_count)
    frequency = 1.0 - math.exp(-uses / config.frequency_scale)
    intrinsic = (importance / 10.0) * min(1.0, max(0.0, float(confidence)))
    score = config.recency_weight * recency + config.frequency_weight * frequency + config.intrinsic_weight * intrinsic
    return Retention(score=score, recency=recency, frequency=frequency, intrinsic=intrinsic, idle_days=idle_days, uses=uses)


def memory_retention(memory, *, now: datetime, config: RetentionConfig = DEFAULT_RETENTION) -> Retention:
    return retention_of(
        tier=memory.tier,
        importance=memory.importance,
        confidence=memory.confidence,
        access_count=memory.access_count,
        reinforcement_count=memory.reinforcement_count,
        created_at=memory.created_at,
        last_accessed_at=memory.last_accessed_at,
        now=now,
        config=config,
    )


def next_tier(*, layer: str, tier: str, retention: Retention, config: RetentionConfig = DEFAULT_RETENTION) -> str:
    """Where a memory belongs now. The thresholds leave a gap between moving up and moving
    down, so a memory near a boundary does not flip tier on every run."""
    if layer == Layer.L1:
        # Core rules are not subject to decay: they hold until a person changes them.
        return tier
    if tier == Tier.CORE:
        return Tier.WORKING if retention.score < config.core_keep_score else Tier.CORE
    if tier == Tier.PERIPHERAL:
        if retention.score >= config.working_again_score and retention.uses >= config.working_again_uses:
            return Tier.WORKING
        return Tier.PERIPHERAL
    if retention.uses >= config.core_min_uses and retention.score >= config.core_min_score:
        return Tier.CORE
    if retention.score < config.peripheral_below_score and retention.idle_days >= config.peripheral_min_idle_days:
        return Tier.PERIPHERAL
    return Tier.WORKING
