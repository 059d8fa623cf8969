"""Stage ③: does it repeat or contradict what is already known?

A duplicate is refused and reinforces the memory it repeats. A contradiction becomes a
versioned UPDATE when the new evidence is stronger than the old; otherwise a person
decides. L1 is never overwritten automatically."""

from __future__ import annotations

from governance.funnel.related import find_related
from governance.funnel.types import PASS, Candidate, StageOutcome
from memories.constants import Layer
from textrules import signals as s

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


def conflict(c: Candidate) -> StageOutcome:
    related = find_related(c, refresh=True)
    scores: dict = {
        "related": [
            {
                "id": r["memory"].pk,
                "cosine": r["cosine"],
                "relation": r["relation"],
                "signal": r.get("signal", ""),
                "detail": r.get("detail", ""),
            }
            for r in related
        ]
    }
    # After an exact repeat, a contradiction outranks a near-duplicate: reversing one memory while
    # resembling another must not reinforce.
    related = sorted(related, key=lambda r: 0 if r.get("signal") == "same text" else 1)
    if related and related[0].get("signal") == "same text":
        related = related[:1]
    for r in related:
        old = r["memory"]
        if r["relation"] != "contradiction":
            continue
        c.conflict_with, c.conflict_kind = old, "contradiction"
        scores.update(relation="contradiction", signal=r.get("signal", ""))
        why = f"{r.get('signal', '')}: {r.get('detail', '')}".strip(": ")
        new_strength = evidence_strength(attribution=c.attribution, grounding=c.grounding, correction=s.has(s.CORRECTION, c.content))
        old_strength = evidence_strength(attribution=old.source_attribution, grounding=old.grounding)
        scores.update(new_strength=new_strength, old_strength=old_strength, contradicts=old.pk)
        if old.layer == Layer.L1:
            return StageOutcome(
                "conflict", "PENDING_REVIEW", [f"contradicts L1 rule #{old.pk} ({why}); L1 is never overwritten automatically"], scores
            )
        if old.advertiser != c.advertiser:
            # A tenant never changes what others read: both stay as they are until an operator decides.
            return StageOutcome(
                "conflict",
                "PENDING_REVIEW",
                [f"contradicts {old.advertiser or 'global'} memory #{old.pk} ({why}), outside this proposal's scope: an operator decides"],
                scores,
            )
        if new_strength > old_strength:
            return StageOutcome(
                "conflict",
                "UPDATE",
                [f"contradicts memory #{old.pk} ({why}) with stronger evidence ({new_strength} > {old_strength}): new version"],
                scores,
            )
        return StageOutcome(
            "conflict",
            "PENDING_REVIEW",
            [f"contradicts memory #{old.pk} ({why}) without stronger evidence ({new_strength} ≤ {old_strength}): a person decides"],
            scores,
        )
    for r in related:
        old = r["memory"]
        if r["relation"] == "duplicate":
            scores.update(relation="duplicate", signal=r.get("signal", ""))
            if old.advertiser != c.advertiser:
                return StageOutcome(
                    "conflict",
                    "REJECT",
                    [
                        f"duplicate of {old.advertiser or 'global'} memory #{old.pk} ({r.get('signal', '')}); not reinforced from another scope"
                    ],
                    scores,
                )
            c.conflict_with, c.conflict_kind = old, "duplicate"
            return StageOutcome(
                "conflict",
                "REJECT",
                [f"duplicate of memory #{old.pk} ({r.get('signal', '')}, cosine {r['cosine']}); reinforced it instead"],
                scores,
            )
    compatible = [r for r in related if r["relation"] == "compatible"]
    if compatible:
        scores.update(relation="compatible", signal=compatible[0].get("signal", ""))
        return StageOutcome(
            "conflict",
            PASS,
            [f"compatible with memory #{compatible[0]['memory'].pk} ({compatible[0].get('signal', '')}); no duplicate or contradiction"],
            scores,
        )
    return StageOutcome("conflict", PASS, ["no duplicate or contradiction in scope"], scores)
