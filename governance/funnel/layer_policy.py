"""The layer policy stage. Deterministic, and it overrides the judge. The hard rules
themselves live in governance.write.hard_rules (the write function checks them again); this
stage turns them into a decision, and adds the soft ones: L2 needs conditions of
validity, L3 a tool or system observation whose TTL has not already run out."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from governance.funnel.types import PASS, Candidate, StageOutcome
from governance.models import LayerPolicy
from governance.write.hard_rules import Authority, HardRule, l3_expires_at, l3_ttl_hours, layer_refusal
from memories.constants import Layer, Source
from textrules import signals as s
from textrules.reasons import Reason, ReasonCode

OBSERVING_SOURCES = {Source.TOOL, Source.SYSTEM, Source.HUMAN}

DEFAULT_LAYER = {
    "user_feedback": Layer.L2,
    "strategy_execution": Layer.L2,
    "environment_change": Layer.L3,
    "rule_update": Layer.L1,
    "anomaly_pattern": Layer.L3,
    "performance_optimization": Layer.L2,
    "cross_domain_correlation": Layer.L2,
    "periodic_pattern": Layer.L2,
}


def has_conditions(c: Candidate) -> bool:
    # A named category or channel is a scope too ("美妆与母婴类目…").
    return bool(
        c.data.get("conditions")
        or c.data.get("scope")
        or c.advertiser
        or c.business_line
        or s.has(s.CONDITION, c.content)
        or s.has(s.DOMAIN, c.content)
    )


def observed_at(c: Candidate, *, received: datetime) -> datetime:
    """When an L3 signal was observed: the event's own time if it gives one, else when
    the event arrived."""
    raw = c.data.get("observed_at") if isinstance(c.data, dict) else None
    parsed = parse_datetime(raw) if isinstance(raw, str) else None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    return parsed or received


def layer_policy(c: Candidate, policies: dict[str, LayerPolicy]) -> StageOutcome:
    layer = c.layer
    scores = {"layer": layer, "source": c.source, "attribution": c.attribution}
    now = timezone.now()
    if layer == Layer.L3:
        c.observed_at = observed_at(c, received=now)
    refusal = layer_refusal(
        layer=layer, source=c.source, attribution=c.attribution, authority=Authority.funnel("funnel"), observed_at=c.observed_at
    )
    if refusal is not None:
        scores["hard_rule"] = refusal.rule
        # Only an operator can still make an L1 write happen; every other hard rule is final.
        decision = "PENDING_REVIEW" if refusal.rule == HardRule.L1_AUTHORITATIVE else "REJECT"
        return StageOutcome("layer_policy", decision, [refusal.reason], scores)
    if layer == Layer.L2 and not has_conditions(c):
        return StageOutcome("layer_policy", "PENDING_REVIEW", [Reason.of(ReasonCode.L2_NEEDS_CONDITIONS)], scores)
    if layer == Layer.L3:
        if c.source not in OBSERVING_SOURCES:
            return StageOutcome("layer_policy", "PENDING_REVIEW", [Reason.of(ReasonCode.L3_NEEDS_OBSERVATION, source=c.source)], scores)
        ttl = l3_ttl_hours(policies.get(Layer.L3))
        c.expires_at = l3_expires_at(c.observed_at, ttl_hours=ttl)
        scores.update(ttl_hours=ttl, observed_at=c.observed_at.isoformat(), expires_at=c.expires_at.isoformat())
        if c.expires_at <= now:
            stale = Reason.of(ReasonCode.L3_STALE, observed=f"{c.observed_at:%Y-%m-%d %H:%M}", hours=ttl)
            return StageOutcome("layer_policy", "REJECT", [stale], scores)
        return StageOutcome("layer_policy", PASS, [Reason.of(ReasonCode.L3_ACCEPTED, source=c.source, hours=ttl)], scores)
    return StageOutcome(
        "layer_policy", PASS, [Reason.of(ReasonCode.LAYER_ACCEPTS, layer=layer, attribution=c.attribution, source=c.source)], scores
    )
