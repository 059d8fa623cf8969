"""Stage ②a: the deterministic guard rules. No model is asked; these decide alone.

They also derive the source attribution from the declared source and the text, which
the layer policy later relies on: a judge's opinion about attribution is recorded but
never grants a layer."""
from __future__ import annotations

from governance.language import signals as s
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


def guard_rules(c: Candidate) -> StageOutcome:
    c.attribution = derive_attribution(c)
    reasons: list[str] = []
    scores: dict[str, object] = {"attribution": c.attribution, "layer": c.layer}
    text = c.content

    suggestions = s.hits(s.SUGGESTION, text) + s.hits(s.ASSISTANT_VOICE, text)
    if suggestions and c.attribution == A.ASSISTANT_SUGGESTION:
        reasons.append(f"assistant suggestion without a user confirmation signal ({suggestions[0]!r})")
    hedges = [] if c.trigger_type == "anomaly_pattern" else s.is_hedged(text)
    if hedges:
        reasons.append(f"tentative statement, not a settled preference or fact ({hedges[0]!r})")
    if c.attribution == A.AGENT_INFERENCE and c.layer in {Layer.L1, Layer.L2}:
        reasons.append(f"agent inference may not write {c.layer}")
    if c.layer == Layer.L4:
        reasons.append("L4 accepts no outside writes; only controlled promotion of mature L2 memories")
    if c.attribution in {A.AGENT_INFERENCE, A.ASSISTANT_SUGGESTION} and number_conclusion(text):
        match = s.match_numbers(s.numbers(text), s.numbers_in_data(c.data))
        scores["numbers"] = {"claimed": match.claimed[:8], "matched": match.matched[:8]}
        if not match.matched:
            reasons.append("a number-backed conclusion with no grounding in the event's data")
    scores["signals"] = {"suggestion": suggestions[:2], "hedge": hedges[:2], "confirmed": s.has(s.CONFIRMATION, text)}
    if reasons:
        return StageOutcome("guard_rules", "REJECT", reasons, scores)
    return StageOutcome("guard_rules", PASS, [f"no deterministic rule fired (attribution {c.attribution})"], scores)
