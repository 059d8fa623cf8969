"""A second opinion on how two claims relate, learned from labelled pairs.

The claim rules (relate.py) were written case by case, and on pairs written after them
they fall back to "ambiguous" or misread a paraphrase far more often than on the pairs
they were written with. This model reads the same pair as a short list of generic
comparisons (which parts of the subject each side names and whether they agree, lever,
value, stance, how alike the words and the meaning are, and what the rules said) and
gives a probability for each relation. It is a multinomial logistic regression: the
weights are in `pair_model.json`, trained by `scripts/train_pair_model.py` on the train
split of `tests/data/claims` only (the file lists the pairs it saw).

Plain numbers, no database and no embedder: the caller passes the cosine it has. How far
the opinion may move the rules' verdict is decided by the caller
(governance/funnel/relation.py), never here."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from textrules.claims.parts import Claim, Facet, RelationKind, Stance
from textrules.claims.relate import claim_parts
from textrules.claims.wording import Wording
from textrules.claims.words import ADVERTISER
from textrules.signals import numbers

WEIGHTS_FILE = Path(__file__).with_name("pair_model.json")
# What the rules may answer, "none" when they found the two unrelated.
RULE_ANSWERS = (*(str(k) for k in RelationKind), "none")


def _sides(a: frozenset[Any], b: frozenset[Any]) -> tuple[float, float, float]:
    """(named alike on both sides, named on one side only, named differently on both)."""
    if not a and not b:
        return 0.0, 0.0, 0.0
    if a == b:
        return 1.0, 0.0, 0.0
    if not a or not b:
        return 0.0, 1.0, 0.0
    return 0.0, 0.0, 1.0


def pair_features(new: Claim, old: Claim, *, wording: Wording, cosine: float, rules: str, rules_facet: str) -> dict[str, float]:
    """The comparisons the model reads, by name. `rules`: the rules' relation (RULE_ANSWERS),
    `rules_facet`: the Facet that decided it ("" when none)."""
    f: dict[str, float] = {f"rules:{k}": float(rules == k) for k in RULE_ANSWERS}
    f |= {f"rules_facet:{facet}": float(rules_facet == facet) for facet in Facet}
    f |= {
        "cosine": cosine,
        "overlap": wording.overlap,
        "same_script": float(wording.same_script),
        "shares_figure": float(wording.shares_figure),
        "extends": float(wording.extends),
        "swapped_category": float(bool(wording.swapped_category)),
        "swapped_name": float(bool(wording.swapped_name)),
        "adds_detail": float(wording.adds_detail),
        "takes_back": float(wording.takes_back),
    }
    parts_new, parts_old = claim_parts(new), claim_parts(old)
    for part in sorted(parts_new):
        f |= dict(zip((f"{part}:same", f"{part}:one_side", f"{part}:differ"), _sides(parts_new[part], parts_old[part]), strict=True))
    f |= dict(zip(("levers:same", "levers:one_side", "levers:differ"), _sides(new.levers, old.levers), strict=True))
    f["levers:shared"] = float(bool(new.levers & old.levers))
    f |= dict(zip(("metrics:same", "metrics:one_side", "metrics:differ"), _sides(new.metrics, old.metrics), strict=True))
    f |= {
        "polarity_differs": float(new.polarity != old.polarity),
        "switch_opposite": float(new.switch * old.switch < 0),
        "direction_opposite": float(new.direction * old.direction < 0),
        "adds": float(new.adds),
        "new_states_value": float(new.states_a_value),
        "old_states_value": float(old.states_a_value),
    }
    f |= {f"stance:{s}": float(new.stance == s) for s in Stance}
    # The figures of each text, advertiser ids left out ("adv_fin_01" is no figure 1).
    numbers_old, numbers_new = (set(numbers(ADVERTISER.sub(" ", text))) for text in (wording.old, wording.new))
    f |= {
        "numbers:jaccard": len(numbers_old & numbers_new) / max(1, len(numbers_old | numbers_new)),
        "numbers:equal": float(bool(numbers_old) and numbers_old == numbers_new),
        "numbers:disjoint": float(bool(numbers_old) and bool(numbers_new) and not numbers_old & numbers_new),
    }
    return f


@dataclass(frozen=True)
class Opinion:
    relation: str  # a RelationKind value: the most probable
    probability: float


@dataclass(frozen=True)
class PairModel:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    classes: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]  # one row per feature, then the bias row

    @cached_property
    def _known(self) -> frozenset[str]:
        return frozenset(self.features)

    def opinion(self, features: dict[str, float]) -> Opinion:
        """The most probable relation. A feature the weights do not know is an error, not
        a silent zero: the weights were trained on another feature list."""
        unknown = features.keys() - self._known
        if unknown:
            raise ValueError(f"pair model weights do not know the features {sorted(unknown)[:3]}: retrain them")
        x = [(features.get(name, 0.0) - m) / s for name, m, s in zip(self.features, self.mean, self.scale, strict=True)]
        x.append(1.0)
        scores = [sum(xi * row[k] for xi, row in zip(x, self.weights, strict=True)) for k in range(len(self.classes))]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        best = max(range(len(self.classes)), key=exps.__getitem__)
        return Opinion(self.classes[best], exps[best] / sum(exps))

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> PairModel:
        return cls(
            features=tuple(raw["features"]),
            mean=tuple(raw["mean"]),
            scale=tuple(raw["scale"]),
            classes=tuple(raw["classes"]),
            weights=tuple(tuple(row) for row in raw["weights"]),
        )


@cache
def pair_model() -> PairModel:
    """The shipped weights, read once."""
    return PairModel.from_dict(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")))
