"""Stage ④: five weighted quality dimensions → importance 0–10. Importance feeds
ranking and retention; below the layer's review threshold the write waits for a person."""

from __future__ import annotations

from governance.funnel.types import PASS, Candidate, StageOutcome
from governance.models import LayerPolicy
from textrules import signals as s
from textrules.reasons import Reason, ReasonCode

WEIGHTS = {"completeness": 0.20, "specificity": 0.20, "grounding": 0.25, "source_reliability": 0.20, "actionability": 0.15}

_GROUNDING = {"grounded": 1.0, "weakly_grounded": 0.6, "unknown": 0.4, "unsupported": 0.0}
_RELIABILITY = {
    "human_config": 1.0,
    "rule_update": 1.0,
    "tool_observation": 0.9,
    "user_confirmed": 0.85,
    "user_stated": 0.7,
    "assistant_suggestion": 0.3,
    "agent_inference": 0.3,
    "unknown": 0.2,
}


def dimensions(c: Candidate, criteria_met: int) -> dict[str, float]:
    t = c.content
    specific = [
        bool(s.numbers(t)),
        s.has(s.METRIC, t),
        s.has(s.ACTION, t),
        bool(c.advertiser or c.business_line or c.category or c.trigger_type),
    ]
    actionable = (
        1.0
        if (s.has(s.ACTION, t) or s.has(s.HARD_CONSTRAINT, t) or s.has(s.DECISION_IMPACT, t))
        else (0.6 if s.has(s.CONDITION, t) else 0.3)
    )
    if len(t.strip()) < 8:
        actionable *= 0.5
    return {
        "completeness": round(0.7 * criteria_met / 3 + 0.3 * (1.0 if c.data else 0.5), 3),
        "specificity": round(sum(specific) / len(specific), 3),
        "grounding": _GROUNDING.get(c.grounding, 0.4),
        "source_reliability": _RELIABILITY.get(c.attribution, 0.2),
        "actionability": round(actionable, 3),
    }


def validate(c: Candidate, policy: LayerPolicy | None, criteria_met: int) -> StageOutcome:
    dims = dimensions(c, criteria_met)
    score = sum(WEIGHTS[k] * v for k, v in dims.items())
    c.importance = round(10 * score, 2)
    scores = {**dims, "importance": c.importance}
    threshold = policy.review_importance_below if policy else 3.0
    if c.importance < threshold:
        return StageOutcome(
            "validate",
            "PENDING_REVIEW",
            [Reason.of(ReasonCode.IMPORTANCE_LOW, importance=c.importance, layer=c.layer, threshold=threshold)],
            scores,
        )
    return StageOutcome("validate", PASS, [Reason.of(ReasonCode.IMPORTANCE, importance=c.importance)], scores)
