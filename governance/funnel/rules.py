"""The deterministic guard rules. No model is asked; these decide alone, and they run
before any model call they can precede (provenance before classification, content
rules before value and judge), so an outage can only park what they let through.

They also derive the source attribution, which the layer policy later relies on: a
judge's opinion about attribution is recorded but never grants a layer."""
from __future__ import annotations

from django.utils import timezone

from governance.funnel import signals as s
from governance.hard_rules import Authority, HardRule, layer_refusal
from governance.funnel.types import PASS, Candidate, StageOutcome
from memories.constants import Attribution as A
from memories.constants import Layer, Source


def derive_attribution(c: Candidate) -> str:
    text = c.content
    confirmed = s.has(s.CONFIRMATION, text)
    if c.source == Source.HUMAN:
        return A.HUMAN_CONFIG
    if c.source == Source.SYSTEM:
        return A.RULE_UPDATE if c.trigger_type == "rule_update" else A.TOOL_OBSERVATION
    if c.source == Source.TOOL:
        return A.TOOL_OBSERVATION
    if c.source == Source.USER:
        if s.has(s.ASSISTANT_VOICE, text) and not confirmed:
            return A.ASSISTANT_SUGGESTION
        return A.USER_CONFIRMED if confirmed else A.USER_STATED
    # assistant / agent: whose claim is it really?
    if confirmed:
        return A.USER_CONFIRMED
    if s.has(s.USER_VOICE, text):
        return A.USER_STATED
    if c.source == Source.ASSISTANT or s.has(s.ASSISTANT_VOICE, text) or s.has(s.SUGGESTION, text):
        return A.ASSISTANT_SUGGESTION
    claimed = s.numbers(text)
    if claimed and c.data:
        match = s.match_numbers(claimed, s.numbers_in_data(c.data))
        if not match.unmatched:
            return A.TOOL_OBSERVATION  # every figure it states comes from the system's data
    return A.AGENT_INFERENCE


def number_conclusion(text: str) -> bool:
    return bool(s.numbers(text)) and (s.has(s.EFFECT, text) or s.has(s.METRIC, text))


def _layer_refusal(c: Candidate) -> str | None:
    """A hard layer rule an automatic write would break (L1 without authority parks later,
    in the layer policy, so it is not a refusal here)."""
    if not c.layer:
        return None
    refusal = layer_refusal(layer=c.layer, source=c.source, attribution=c.attribution, authority=Authority.funnel("funnel"),
                            observed_at=timezone.now())
    if refusal is None or refusal.rule == HardRule.L1_AUTHORITATIVE:
        return None
    return refusal.reason


def provenance_rules(c: Candidate) -> StageOutcome:
    """Before any model is asked: whose claim is it, and may it go where it asks to?"""
    c.attribution = derive_attribution(c)
    reasons: list[str] = []
    suggestions = s.hits(s.SUGGESTION, c.content) + s.hits(s.ASSISTANT_VOICE, c.content)
    if suggestions and c.attribution == A.ASSISTANT_SUGGESTION:
        reasons.append(f"assistant suggestion without a user confirmation signal ({suggestions[0]!r})")
    layer_reason = _layer_refusal(c)
    if layer_reason:
        reasons.append(layer_reason)
    scores: dict[str, object] = {"attribution": c.attribution, "layer": c.layer,
                                 "signals": {"suggestion": suggestions[:2], "confirmed": s.has(s.CONFIRMATION, c.content)}}
    if reasons:
        return StageOutcome("provenance", "REJECT", reasons, scores)
    return StageOutcome("provenance", PASS, [f"attribution {c.attribution}; no provenance rule fired"], scores)


def content_rules(c: Candidate) -> StageOutcome:
    """After classification, still without a model: hedged claims, figures with no
    grounding, and the layer rules for a layer the trigger type chose."""
    c.attribution = derive_attribution(c)  # the trigger type may be known only now
    reasons: list[str] = []
    scores: dict[str, object] = {"attribution": c.attribution, "layer": c.layer}
    text = c.content
    hedges = [] if c.trigger_type == "anomaly_pattern" else s.is_hedged(text)
    if hedges:
        reasons.append(f"tentative statement, not a settled preference or fact ({hedges[0]!r})")
    layer_reason = _layer_refusal(c)
    if layer_reason:
        reasons.append(layer_reason)
    if c.attribution in {A.AGENT_INFERENCE, A.ASSISTANT_SUGGESTION} and number_conclusion(text):
        match = s.match_numbers(s.numbers(text), s.numbers_in_data(c.data))
        scores["numbers"] = {"claimed": match.claimed[:8], "matched": match.matched[:8]}
        if not match.matched:
            reasons.append("a number-backed conclusion with no grounding in the event's data")
    scores["signals"] = {"hedge": hedges[:2]}
    if reasons:
        return StageOutcome("guard_rules", "REJECT", reasons, scores)
    return StageOutcome("guard_rules", PASS, [f"no deterministic rule fired (attribution {c.attribution})"], scores)


def deterministic_refusals(c: Candidate) -> list[str]:
    """The reasons the deterministic rules refuse a candidate, for an approval that runs
    them again. The layer rules are left to the write function, which knows who approves."""
    layer = c.layer
    c.layer = ""
    try:
        reasons = [r for outcome in (provenance_rules(c), content_rules(c)) if outcome.decision != PASS for r in outcome.reasons]
    finally:
        c.layer = layer
    return reasons
