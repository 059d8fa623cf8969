"""The shape of a claim: its enums (lever, stance, relation, facet) and the frozen
values a claim is made of, with their JSON form (stored on each memory version)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Lever(StrEnum):
    BID = "bid"
    BUDGET = "budget"
    CREATIVE = "creative"
    TARGETING = "targeting"
    SCHEDULE = "schedule"
    LANDING_PAGE = "landing_page"
    CHANNEL = "channel"
    KPI_TARGET = "kpi_target"
    COMPLIANCE = "compliance"
    KEYWORD = "keyword"
    FREQUENCY = "frequency"
    PROMOTION = "promotion"
    PACING = "pacing"
    # Whether ads run at all; stated by a switch ("暂停", "resume") when no other lever is named.
    DELIVERY = "delivery"


class Stance(StrEnum):
    STATEMENT = "statement"
    ORDER = "order"
    CORRECTION = "correction"
    QUESTION = "question"
    HYPOTHETICAL = "hypothetical"
    HEDGE = "hedge"
    SUGGESTION = "suggestion"


# A question, a what-if or a hedge says nothing settled: never a fact, never a confirmation.
UNSETTLED = frozenset({Stance.QUESTION, Stance.HYPOTHETICAL, Stance.HEDGE})


class RelationKind(StrEnum):
    DUPLICATE = "duplicate"
    CONTRADICTION = "contradiction"
    REFINEMENT = "refinement"
    COMPATIBLE = "compatible"
    AMBIGUOUS = "ambiguous"


class Facet(StrEnum):
    """The parts of a subject (and the lever) a relation can name as matched or differing."""

    ADVERTISER = "advertiser"
    PLAN = "plan"
    CATEGORY = "category"
    CHANNEL = "channel"
    AUDIENCE = "audience"
    WEEKDAY = "weekday"
    TIME_SLOT = "time_slot"
    EVENT = "event"
    PERIOD = "period"
    PLACE = "place"
    # Whether two names (a store, a product, a campaign) are one thing: the words cannot tell.
    IDENTITY = "identity"
    LEVER = "lever"
    METRIC = "metric"
    VALUE = "value"
    DIRECTION = "direction"
    SWITCH = "switch"
    POLARITY = "polarity"
    CONDITION = "condition"
    TEXT = "text"
    # Nothing read in common that makes two statements one (worded apart, no shared value).
    UNREAD = "unread"


@dataclass(frozen=True)
class Quantity:
    """A number with the thing it measures (a lever, a metric, an age) and its unit."""

    role: str
    value: float
    unit: str = ""

    def label(self) -> str:
        number = f"{self.value:g}"
        return f"{self.role} {number}{self.unit}".strip()

    def amount(self) -> float:
        """The value in base units: 1万 is 10000, 15k is 15000."""
        return self.value * {"万": 10_000, "万元": 10_000, "千": 1_000}.get(self.unit, 1)


@dataclass(frozen=True)
class Subject:
    advertiser: str = ""
    plans: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()  # verticals and finer categories, as named
    channels: frozenset[str] = frozenset()
    audiences: frozenset[str] = frozenset()
    weekdays: frozenset[int] = frozenset()
    time_slots: frozenset[tuple[float, float]] = frozenset()
    dayparts: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()  # stores, cities and markets


@dataclass(frozen=True)
class Claim:
    subject: Subject = field(default_factory=Subject)
    levers: frozenset[Lever] = frozenset()
    metrics: frozenset[str] = frozenset()
    quantities: tuple[Quantity, ...] = ()
    direction: int = 0  # +1 up, -1 down, 0 none or both
    switch: int = 0  # +1 on, -1 off, 0 none
    polarity: int = 1  # -1 when the statement says no / not / never about its lever
    affirmed: bool = False  # says yes in so many words ("适合", "允许", "works")
    # Judgements on an antonym scale ("最高"/"最低", "better"/"worse") as (scale, side).
    assessments: frozenset[tuple[str, int]] = frozenset()
    # Which way a reported metric moved ("CPA下降", "CPA from 40 to 52") as (metric, sign).
    trends: frozenset[tuple[str, int]] = frozenset()
    stance: Stance = Stance.STATEMENT
    conditions: frozenset[str] = frozenset()
    # Said as an addition to what holds ("also", "也要"), not as its replacement.
    adds: bool = False
    # Words quoted as themselves, each with the side taken on it: -1 forbidden (or no longer
    # required), +1 allowed (or required), 0 only named.
    terms: frozenset[tuple[str, int]] = frozenset()

    @property
    def topic(self) -> frozenset[str]:
        """What the statement is about: the levers it sets and the metrics it reports."""
        return frozenset(self.levers) | frozenset(f"metric:{m}" for m in self.metrics)

    @property
    def states_a_value(self) -> bool:
        """Something the rules can compare: a figure, a direction, a switch, a yes or no, a
        judgement, a trend or a quoted word's side. "落地页首屏放价格" states none the
        vocabulary reads (what goes on the first screen is in words it does not know)."""
        return bool(
            self.quantities
            or self.direction
            or self.switch
            or self.polarity < 0
            or self.affirmed
            or self.assessments
            or self.trends
            or any(side for _, side in self.terms)
        )

    @property
    def sets_a_figure(self) -> bool:
        """A figure for a lever or an age ("日预算6万", "25-35岁"), or a metric's figure as its
        target ("CPA目标80元"), not a metric's report."""
        settings = {str(lever) for lever in Lever} | {"age"}
        if Lever.KPI_TARGET in self.levers:
            settings |= self.metrics
        return any(q.role.split("/")[0] in settings for q in self.quantities)

    def takes_a_position(self) -> bool:
        """A settled statement that sets, limits, forbids, switches or judges something: what
        feedback says, with or without a cue word ("其实周六转化最差", "minimum booking is 3
        hours", "投放范围限定在一线和二线城市"). Questions, hypotheticals, hedges and
        suggestions are not settled; a metric that moved, or a metric's figure ("本周CTR 1.5%"),
        is a report."""
        if self.stance in UNSETTLED or self.stance == Stance.SUGGESTION or self.trends:
            return False
        if self.stance in {Stance.ORDER, Stance.CORRECTION}:
            return True
        allows_or_forbids_a_word = any(side for _, side in self.terms)
        return bool(
            self.assessments
            or self.sets_a_figure
            or "限定" in self.conditions
            or self.polarity < 0
            or self.switch
            or allows_or_forbids_a_word
        )

    def as_dict(self) -> dict[str, Any]:
        sub = self.subject
        return {
            "subject": {
                "advertiser": sub.advertiser,
                "plans": sorted(sub.plans),
                "categories": sorted(sub.categories),
                "channels": sorted(sub.channels),
                "audiences": sorted(sub.audiences),
                "weekdays": sorted(sub.weekdays),
                "time_slots": [list(slot) for slot in sorted(sub.time_slots)],
                "dayparts": sorted(sub.dayparts),
                "events": sorted(sub.events),
                "places": sorted(sub.places),
            },
            "levers": sorted(self.levers),
            "metrics": sorted(self.metrics),
            "value": {
                "quantities": [{"role": q.role, "value": q.value, "unit": q.unit} for q in self.quantities],
                "direction": self.direction,
                "switch": self.switch,
                "polarity": self.polarity,
                "affirmed": self.affirmed,
                "assessments": [list(a) for a in sorted(self.assessments)],
                "trends": [list(t) for t in sorted(self.trends)],
            },
            "stance": str(self.stance),
            "conditions": sorted(self.conditions),
            "terms": [list(t) for t in sorted(self.terms)],
            "adds": self.adds,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Claim:
        """The inverse of as_dict, tolerant of missing keys (an older or a model-made claim)."""
        sub = raw.get("subject") or {}
        value = raw.get("value") or {}

        def words(key: str) -> frozenset[str]:
            return frozenset(str(v) for v in sub.get(key) or [] if str(v).strip())

        levers = frozenset(Lever(v) for v in raw.get("levers") or [] if v in Lever._value2member_map_)
        stance = raw.get("stance")
        return cls(
            subject=Subject(
                advertiser=str(sub.get("advertiser") or ""),
                plans=words("plans"),
                categories=words("categories"),
                channels=words("channels"),
                audiences=words("audiences"),
                weekdays=frozenset(int(d) for d in sub.get("weekdays") or [] if str(d).isdigit() and 1 <= int(d) <= 7),
                time_slots=frozenset(
                    (float(a), float(b))
                    for a, b in (slot for slot in sub.get("time_slots") or [] if isinstance(slot, list | tuple) and len(slot) == 2)
                ),
                dayparts=words("dayparts"),
                events=words("events"),
                places=words("places"),
            ),
            levers=levers,
            metrics=frozenset(str(m) for m in raw.get("metrics") or []),
            quantities=tuple(
                Quantity(role=str(q.get("role", "")), value=float(q.get("value", 0)), unit=str(q.get("unit", "")))
                for q in value.get("quantities") or []
                if isinstance(q, Mapping) and isinstance(q.get("value"), int | float)
            ),
            direction=_sign(value.get("direction")),
            switch=_sign(value.get("switch")),
            polarity=-1 if _sign(value.get("polarity")) < 0 else 1,
            affirmed=value.get("affirmed") is True,
            assessments=frozenset(
                (str(a[0]), _sign(a[1])) for a in value.get("assessments") or [] if isinstance(a, list | tuple) and len(a) == 2
            ),
            trends=frozenset((str(t[0]), _sign(t[1])) for t in value.get("trends") or [] if isinstance(t, list | tuple) and len(t) == 2),
            stance=Stance(stance) if stance in Stance._value2member_map_ else Stance.STATEMENT,
            conditions=frozenset(str(c) for c in raw.get("conditions") or []),
            terms=frozenset((str(t[0]), _sign(t[1])) for t in raw.get("terms") or [] if isinstance(t, list | tuple) and len(t) == 2),
            adds=raw.get("adds") is True,
        )


def _sign(value: Any) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0
    return (number > 0) - (number < 0)


@dataclass(frozen=True)
class ClaimRelation:
    """How a new claim relates to a remembered one, and the part that decided it."""

    kind: RelationKind
    facet: Facet
    old: str = ""
    new: str = ""
    matched: tuple[str, ...] = ()  # the subject parts and levers both claims share

    def as_dict(self) -> dict[str, Any]:
        return {"relation": str(self.kind), "facet": str(self.facet), "old": self.old, "new": self.new, "matched": list(self.matched)}
