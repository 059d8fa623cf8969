"""Stage ②c: the layer policy. Deterministic, and it overrides the judge. The hard
rules are code, not LayerPolicy fields, so no admin edit can switch them off:

- L1 accepts authoritative sources only (a human operator, a system rule update);
  anything else waits for a person;
- L4 accepts no outside writes at all;
- agent inference may not write L1 or L2;
- L3 needs a tool/system observation, an observation time and a TTL.
"""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from governance.language import signals as s
from governance.funnel.types import PASS, Candidate, StageOutcome
from governance.models import LayerPolicy
from memories.constants import Attribution as A
from memories.constants import Layer, Source

AUTHORITATIVE_SOURCES = {Source.HUMAN, Source.SYSTEM}
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


def l3_ttl_hours(policy: LayerPolicy | None) -> int:
    return (policy.default_ttl_hours if policy and policy.default_ttl_hours else 24)


def has_conditions(c: Candidate) -> bool:
    # A named category or channel is a scope too ("美妆与母婴类目…").
    return bool(c.data.get("conditions") or c.data.get("scope") or c.advertiser or c.business_line
                or s.has(s.CONDITION, c.content) or s.has(s.DOMAIN, c.content))


def _observed_at(c: Candidate):
    raw = c.data.get("observed_at") if isinstance(c.data, dict) else None
    parsed = parse_datetime(raw) if isinstance(raw, str) else None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    return parsed or timezone.now()


def layer_policy(c: Candidate, policies: dict[str, LayerPolicy]) -> StageOutcome:
    layer = c.layer
    scores = {"layer": layer, "source": c.source, "attribution": c.attribution}
    if layer == Layer.L4:
        return StageOutcome("layer_policy", "REJECT", ["L4 accepts no outside writes; only controlled promotion of mature L2 memories"], scores)
    if c.attribution == A.AGENT_INFERENCE and layer in {Layer.L1, Layer.L2}:
        return StageOutcome("layer_policy", "REJECT", [f"agent inference may not write {layer}"], scores)
    if layer == Layer.L1 and c.source not in AUTHORITATIVE_SOURCES:
        return StageOutcome("layer_policy", "PENDING_REVIEW", [f"L1 accepts authoritative sources only (human, system); source is {c.source}: a person must approve"], scores)
    if layer == Layer.L2 and not has_conditions(c):
        return StageOutcome("layer_policy", "PENDING_REVIEW", ["L2 needs conditions of validity (scope, advertiser or 'when/对于…' clause)"], scores)
    if layer == Layer.L3:
        if c.source not in OBSERVING_SOURCES:
            return StageOutcome("layer_policy", "PENDING_REVIEW", [f"L3 needs a tool or system observation; source is {c.source}"], scores)
        c.observed_at = _observed_at(c)
        ttl = l3_ttl_hours(policies.get(Layer.L3))
        c.expires_at = timezone.now() + timedelta(hours=ttl)
        scores.update(ttl_hours=ttl, observed_at=c.observed_at.isoformat(), expires_at=c.expires_at.isoformat())
        return StageOutcome("layer_policy", PASS, [f"L3 observation from {c.source}; expires in {ttl} h"], scores)
    return StageOutcome("layer_policy", PASS, [f"{layer} accepts {c.attribution} from {c.source}"], scores)
