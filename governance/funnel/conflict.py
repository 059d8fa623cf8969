"""Stage ③: does it repeat or contradict what is already known? Decided on claims
(governance.funnel.relation).

A duplicate is refused and reinforces the memory it repeats. A contradiction becomes a
versioned UPDATE when the new evidence is stronger than the old; otherwise a person
decides. A change whose subject cannot be told apart from the old one's is parked for a
person, never superseded. L1 is never overwritten automatically. A refinement or a
compatible statement is written beside what is known.

With a gateway, the relations the model gave before the transaction are put on the
neighbours read here (governance.funnel.model_relations), within the hard rules; a
verdict of the model that disputes what the rules read is parked for a person."""

from __future__ import annotations

from governance.funnel import model_relations
from governance.funnel.related import find_related
from governance.funnel.trigger_schemas import SCHEMAS, parse_trigger_data
from governance.funnel.types import PASS, Candidate, StageOutcome
from memories.constants import Attribution, Grounding, Layer
from memories.hashing import content_hash
from textrules import signals as s
from textrules.claims import Facet
from textrules.evidence import Volume, evidence_volume, outweighs
from textrules.reasons import Reason
from textrules.reasons import ReasonCode as C

_ATTRIBUTION_STRENGTH = {
    "human_config": 4,
    "rule_update": 4,
    "promotion": 3,
    "import": 3,
    "tool_observation": 3,
    "user_confirmed": 3,
    "user_stated": 2,
    "assistant_suggestion": 0,
    "agent_inference": 0,
    "unknown": 1,
}
_GROUNDING_STRENGTH = {"grounded": 3, "weakly_grounded": 2, "unknown": 1, "unsupported": 0}


def evidence_strength(*, attribution: str, grounding: str, correction: bool = False) -> int:
    # An explicit correction ("纠正", "from now on") is newer testimony about the same fact.
    return _ATTRIBUTION_STRENGTH.get(attribution, 1) + _GROUNDING_STRENGTH.get(grounding, 1) + (1 if correction else 0)


def _volume(text: str, data: dict | None) -> dict[Volume, float]:
    """What an observation rests on: the sample, cycles and days its data states under any
    trigger schema's names for them ("impressions", "weeks_observed", "duration"), else its words."""
    stated: dict[str, float] = {}
    for trigger_type in SCHEMAS:
        parsed = parse_trigger_data(trigger_type, data)
        for name in ("sample_size", "cycles_observed", "duration_days"):
            value = parsed.get(name)
            if name not in stated and isinstance(value, int | float) and value > 0:
                stated[name] = float(value)
    return evidence_volume(text, sample=stated.get("sample_size"), cycles=stated.get("cycles_observed"), days=stated.get("duration_days"))


def _signal(r: dict) -> list[str]:
    """The part of the claim that decided, and what it was before and after, for a reason."""
    return [r.get("signal", "")] + ([r["detail"]] if r.get("detail") else [])


_MODEL_KEYS = (
    "source",
    "rules_relation",
    "model_relation",
    "model_facet",
    "model_reason",
    "overruled",
    "claims_relation",
    "learned_relation",
    "learned_p",
    "doubted",
)


def conflict(c: Candidate) -> StageOutcome:
    return model_relations.stamp(_conflict(c), c.relation_answer)


def _conflict(c: Candidate) -> StageOutcome:
    related = find_related(c, refresh=True)
    # An exact repeat settles it; otherwise a contradiction outranks a near-duplicate: reversing one
    # memory while resembling another must not reinforce.
    exact_repeat = bool(related) and related[0]["memory"].content_hash == content_hash(c.content)
    related, relation_scores = model_relations.overlay(c, related)
    scores: dict = {
        "related": [
            {
                "id": r["memory"].pk,
                "cosine": r["cosine"],
                "relation": r["relation"],
                "signal": r.get("signal", ""),
                "detail": r.get("detail", ""),
                "matched": r.get("matched", []),
                **{k: r[k] for k in _MODEL_KEYS if k in r},
            }
            for r in related
        ],
        **relation_scores,
    }
    if exact_repeat:
        related = related[:1]
    for r in related:
        old = r["memory"]
        if r["relation"] not in {"contradiction", "ambiguous"}:
            continue
        c.conflict_with, c.conflict_kind = old, "contradiction"
        scores.update(relation=r["relation"], signal=r.get("signal", ""), contradicts=old.pk)
        signal = _signal(r)
        if r.get("disputed"):
            reason = Reason.of(C.RELATION_DISPUTED, id=old.pk, model=r["model_relation"], rules=r["rules_relation"], signal=signal)
            return StageOutcome("conflict", "PENDING_REVIEW", [reason], scores)
        if r.get("doubted"):
            reason = Reason.of(
                C.RELATION_DOUBTED,
                id=old.pk,
                rules=r["claims_relation"],
                learned=r["learned_relation"],
                p=f"{r['learned_p']:.0%}",
                signal=signal,
            )
            return StageOutcome("conflict", "PENDING_REVIEW", [reason], scores)
        if r["relation"] == "ambiguous":
            # One side names a part of the subject the other leaves open: superseding could
            # erase a rule about something else, so a person decides.
            part = r.get("signal", "")
            if part == Facet.IDENTITY:
                # Two names for the subject, nothing known ties or parts them: the reviewer is asked that.
                reason = Reason.of(C.IDENTITY_UNCLEAR, id=old.pk, names=r.get("detail", ""))
                return StageOutcome("conflict", "PENDING_REVIEW", [reason], scores)
            if part == Facet.METRIC:
                # A judgement and a reported move of one metric: they may disagree, and the rules cannot tell.
                return StageOutcome("conflict", "PENDING_REVIEW", [Reason.of(C.FINDINGS_UNCOMPARED, id=old.pk, signal=signal)], scores)
            if part == Facet.UNREAD:
                # Nothing read in common: neither a repeat to reinforce nor a rule to write beside.
                return StageOutcome("conflict", "PENDING_REVIEW", [Reason.of(C.TOO_LITTLE_IN_COMMON, id=old.pk)], scores)
            return StageOutcome("conflict", "PENDING_REVIEW", [Reason.of(C.SUBJECT_UNCLEAR, id=old.pk, signal=signal, part=part)], scores)
        new_strength = evidence_strength(attribution=c.attribution, grounding=c.grounding, correction=s.has(s.CORRECTION, c.content))
        old_strength = evidence_strength(attribution=old.source_attribution, grounding=old.grounding)
        if c.attribution == old.source_attribution == Attribution.TOOL_OBSERVATION:
            # Two tools disagree: the one that rests on clearly more (sample, cycles, days) decides,
            # whatever the grounding check made of the disagreement itself (it marks a figure that
            # contradicts a memory as weakly grounded). Resting on less, it never replaces.
            new_volume, old_volume = _volume(c.content, c.data), _volume(old.content, old.data)
            if outweighs(new_volume, old_volume) and c.grounding != Grounding.UNSUPPORTED:
                new_strength = max(new_strength, old_strength + 1)
            elif outweighs(old_volume, new_volume):
                new_strength = min(new_strength, old_strength)
            scores.update(new_volume=new_volume, old_volume=old_volume)
        scores.update(new_strength=new_strength, old_strength=old_strength)
        if old.layer == Layer.L1:
            return StageOutcome("conflict", "PENDING_REVIEW", [Reason.of(C.CONTRADICTS_L1, id=old.pk, signal=signal)], scores)
        if old.advertiser != c.advertiser:
            # A tenant never changes what others read: both stay as they are until an operator decides.
            return StageOutcome(
                "conflict",
                "PENDING_REVIEW",
                [Reason.of(C.CONTRADICTS_OUT_OF_SCOPE, scope=old.advertiser or "global", id=old.pk, signal=signal)],
                scores,
            )
        if new_strength > old_strength:
            return StageOutcome("conflict", "UPDATE", [Reason.of(C.CONTRADICTS_STRONGER, id=old.pk, signal=signal)], scores)
        return StageOutcome("conflict", "PENDING_REVIEW", [Reason.of(C.CONTRADICTS_NOT_STRONGER, id=old.pk, signal=signal)], scores)
    for r in related:
        old = r["memory"]
        if r["relation"] != "duplicate":
            continue
        scores.update(relation="duplicate", signal=r.get("signal", ""))
        if old.advertiser != c.advertiser:
            reason = Reason.of(C.DUPLICATE_OUT_OF_SCOPE, scope=old.advertiser or "global", id=old.pk, signal=_signal(r))
            return StageOutcome("conflict", "REJECT", [reason], scores)
        c.conflict_with, c.conflict_kind = old, "duplicate"
        return StageOutcome("conflict", "REJECT", [Reason.of(C.DUPLICATE_REINFORCED, id=old.pk, signal=_signal(r))], scores)
    for kind, code in (("refinement", C.REFINES), ("compatible", C.COMPATIBLE)):
        found = [r for r in related if r["relation"] == kind]
        if found:
            scores.update(relation=kind, signal=found[0].get("signal", ""))
            return StageOutcome("conflict", PASS, [Reason.of(code, id=found[0]["memory"].pk, signal=_signal(found[0]))], scores)
    return StageOutcome("conflict", PASS, [Reason.of(C.NO_CONFLICT)], scores)
