"""A claim (textrules.claims) as a reviewer reads it: who and what it is about, which lever
it moves, the value it states and how it is said, each part in the reader's language.

Claims are stored as Claim.as_dict(); this module reads that shape back through
Claim.from_dict so a claim made by an older extractor or a model shows the same way."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import user_data
from desk.admin.reasons import get_language_is_zh
from memories.selectors import advertiser_spellings
from textrules.claims import Claim, Facet, Identity, Lever, Quantity, RelationKind, Stance, extract_claim, relate_claims
from textrules.reasons import WORDS

LEVER_LABELS = {
    Lever.BID: _("bid"),
    Lever.BUDGET: _("budget"),
    Lever.CREATIVE: _("creative"),
    Lever.TARGETING: _("targeting"),
    Lever.SCHEDULE: _("schedule"),
    Lever.LANDING_PAGE: _("landing page"),
    Lever.CHANNEL: _("channel"),
    Lever.KPI_TARGET: _("KPI target"),
    Lever.COMPLIANCE: _("compliance"),
    Lever.KEYWORD: _("keywords"),
    Lever.FREQUENCY: _("frequency"),
    Lever.PROMOTION: _("sales promotion"),
    Lever.PACING: _("pacing"),
    Lever.DELIVERY: _("delivery on/off"),
}

METRIC_LABELS = {
    "roi": "ROI",
    "ctr": _("CTR"),
    "cvr": _("conversion rate"),
    "cpa": "CPA",
    "cpc": "CPC",
    "cpm": "CPM",
    "gmv": "GMV",
    "spend": _("spend"),
    "traffic": _("traffic"),
    "conversions": _("conversions"),
    "age": _("age"),
}

STANCE_LABELS = {
    Stance.STATEMENT: _("statement"),
    Stance.ORDER: _("instruction"),
    Stance.CORRECTION: _("correction"),
    Stance.QUESTION: _("question"),
    Stance.HYPOTHETICAL: _("what-if"),
    Stance.HEDGE: _("guess"),
    Stance.SUGGESTION: _("suggestion"),
}

PERIOD_LABELS = {"day": _("per day"), "week": _("per week"), "month": _("per month")}

SCALE_WORDS = {
    "best_worst": (_("best"), _("worst")),
    "better_worse": (_("better"), _("worse")),
    "fit": (_("suitable"), _("not suitable")),
    "works": (_("works"), _("does not work")),
}

WEEKDAYS = (_("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"), _("Sun"))

# The subject's parts, in the order a reviewer reads them, with the facet a relation names.
SUBJECT_PARTS = (
    ("advertiser", Facet.ADVERTISER, _("advertiser")),
    ("plans", Facet.PLAN, _("plan")),
    ("categories", Facet.CATEGORY, _("category")),
    ("channels", Facet.CHANNEL, _("channel")),
    ("audiences", Facet.AUDIENCE, _("audience")),
    ("weekdays", Facet.WEEKDAY, _("weekdays")),
    ("time_slots", Facet.TIME_SLOT, _("time of day")),
    ("dayparts", Facet.TIME_SLOT, _("part of day")),
    ("events", Facet.EVENT, _("marketing event")),
    ("places", Facet.PLACE, _("store or region")),
)

# A facet by the name its claim row gives it.
FACET_LABELS = {
    **{str(facet): label for _key, facet, label in reversed(SUBJECT_PARTS)},  # the first part of a facet names it
    str(Facet.LEVER): _("lever"),
    str(Facet.VALUE): _("value"),
}

# The facets a relation may name that belong to the value row rather than the subject.
VALUE_FACETS = {Facet.VALUE, Facet.DIRECTION, Facet.SWITCH, Facet.POLARITY, Facet.METRIC, Facet.PERIOD}


@dataclass(frozen=True)
class ClaimRow:
    key: str  # subject, lever, value, stance, conditions: the id the page and tests use
    label: str
    text: SafeString | str
    decisive: bool = False  # the part the relation to the other claim turned on


def _join(values: list[Any]) -> SafeString:
    # Escaped piece by piece, so parts marked as data (user_data) keep their mark.
    return mark_safe(conditional_escape("、" if get_language_is_zh() else ", ").join(conditional_escape(v) for v in values if v))


def advertiser_names(*, claims: Iterable[Claim] = (), matched: Iterable[str] = ()) -> dict[str, str]:
    """How the store spells each advertiser the claims and shared parts name: claims hold
    it in lower case (brand_a), the page shows brand_A. Read once for everything a page
    shows, not once per claim or row."""
    codes = {claim.subject.advertiser for claim in claims}
    codes |= {value for kind, _sep, value in (str(part).partition(":") for part in matched) if kind == "advertiser"}
    return advertiser_spellings(codes=codes)


def _advertiser(code: str, names: Mapping[str, str]) -> str:
    return names.get(code.lower(), code)


def metric_label(name: str) -> str:
    base, _sep, period = name.partition("/")
    shown = str(LEVER_LABELS.get(base) or METRIC_LABELS.get(base) or base)
    return f"{shown} {PERIOD_LABELS[period]}" if period in PERIOD_LABELS else shown


def _slot(slot: tuple[float, float]) -> str:
    return "–".join(f"{int(x):02d}:{int(round((x % 1) * 60)):02d}" for x in slot)


def _quantity(q: Quantity) -> str:
    number = f"{q.value:g}"
    # The unit is the text's own word (天, 万, 元): data, shown as written.
    return format_html("{} {}{}", metric_label(q.role), number, user_data(q.unit) if q.unit else "")


def _category(path: str) -> str:
    # "美妆/口红": a vertical and the finer category inside it.
    return " › ".join(part for part in path.split("/") if part)


def _subject_text(claim: Claim, names: Mapping[str, str]) -> list[tuple[Facet, str, str]]:
    sub = claim.subject
    # Names the text itself gave (a plan, a category, a channel …) are data; weekdays and
    # times are rendered here.
    values: dict[str, list[Any]] = {
        "advertiser": [user_data(_advertiser(sub.advertiser, names))] if sub.advertiser else [],
        "plans": [user_data(v) for v in sorted(sub.plans)],
        "categories": [user_data(_category(c)) for c in sorted(sub.categories)],
        "channels": [user_data(v) for v in sorted(sub.channels)],
        "audiences": [user_data(v) for v in sorted(sub.audiences)],
        "weekdays": [str(WEEKDAYS[d - 1]) for d in sorted(sub.weekdays) if 1 <= d <= 7],
        "time_slots": [_slot(s) for s in sorted(sub.time_slots)],
        "dayparts": [user_data(v) for v in sorted(sub.dayparts)],
        "events": [user_data(v) for v in sorted(sub.events)],
        "places": [user_data(v) for v in sorted(sub.places)],
    }
    return [(facet, str(label), _join(values[key])) for key, facet, label in SUBJECT_PARTS if values[key]]


def _value_text(claim: Claim) -> SafeString:
    parts: list[Any] = [_quantity(q) for q in claim.quantities]
    if claim.direction:
        parts.append(gettext("raise") if claim.direction > 0 else gettext("lower"))
    if claim.switch:
        parts.append(gettext("switch on") if claim.switch > 0 else gettext("pause"))
    if claim.polarity < 0 and not claim.switch:
        parts.append(gettext("negated (says no / not / never)"))
    for scale, side in sorted(claim.assessments):
        words = SCALE_WORDS.get(scale)
        if words:
            parts.append(str(words[0 if side > 0 else 1]))
    for metric, sign in sorted(claim.trends):
        parts.append(f"{metric_label(metric)} {'↑' if sign > 0 else '↓'}")
    for term, side in sorted(claim.terms):
        if side:
            said = gettext("allowed") if side > 0 else gettext("forbidden")
            parts.append(format_html("“{}” {}", user_data(term), said))
    return _join(parts)


def claim_of(raw: dict[str, Any] | None, *, content: str = "", advertiser: str | None = None, data: Any = None) -> Claim:
    """A stored claim, or, for a candidate that carries none, the one the write would store
    (governance.write.memory reads it from the content the same way)."""
    if raw:
        return Claim.from_dict(raw)
    return extract_claim(content, advertiser=advertiser, data=data if isinstance(data, dict) else None)


def _labelled(pairs: list[tuple[str, Any]]) -> SafeString:
    if get_language_is_zh():
        return format_html_join("；", "{}：{}", pairs)
    return format_html_join("; ", "{}: {}", pairs)


def claim_rows(claim: Claim, *, decisive: set[str] | None = None, names: Mapping[str, str] | None = None) -> list[ClaimRow]:
    """The claim as labelled rows; `decisive` holds the facets a relation turned on, `names`
    the advertisers' spellings when the page has read them (advertiser_names)."""
    decisive = decisive or set()
    subject = _subject_text(claim, advertiser_names(claims=[claim]) if names is None else names)
    levers = [str(LEVER_LABELS.get(lever, lever)) for lever in sorted(claim.levers)] + [metric_label(m) for m in sorted(claim.metrics)]
    rows = [
        ClaimRow(
            "subject",
            gettext("subject"),
            _labelled([(label, text) for _f, label, text in subject]) or "—",
            any(f in decisive for f, *_ in subject),
        ),
        ClaimRow("lever", gettext("lever"), _join(levers) or "—", Facet.LEVER in decisive),
        ClaimRow("value", gettext("value"), _value_text(claim) or "—", bool(VALUE_FACETS & decisive)),
        ClaimRow("stance", gettext("stance"), str(STANCE_LABELS.get(claim.stance, claim.stance))),
    ]
    if claim.conditions:
        conditions = _join([user_data(c) for c in sorted(claim.conditions)])
        rows.append(ClaimRow("conditions", gettext("conditions"), conditions, Facet.CONDITION in decisive))
    return rows


def matched_shown(parts: list[str], *, names: Mapping[str, str] | None = None) -> SafeString:
    """The parts both claims share ("advertiser:brand_a", "lever:bid", "lever:metric:roi")."""
    if names is None:
        names = advertiser_names(matched=parts)
    shown = []
    for part in parts:
        kind, _sep, value = str(part).partition(":")
        if kind == "lever":
            shown.append(
                metric_label(value.removeprefix("metric:")) if value.startswith("metric:") else str(LEVER_LABELS.get(value, value))
            )
        elif kind == "category":
            shown.append(user_data(_category(value)))
        elif kind == "advertiser":
            shown.append(format_html("{} {}", facet_label(kind), user_data(_advertiser(value, names))))
        elif value:
            shown.append(format_html("{} {}", facet_label(kind), user_data(value)))
        else:
            shown.append(facet_label(kind))
    return _join(shown)


def facet_label(facet: str) -> str:
    """A relation's deciding part ("value", "time_slot" …) in the reader's language."""
    named = FACET_LABELS.get(facet)
    if named is not None:
        return str(named)
    if get_language_is_zh():
        return WORDS.get(facet, facet)
    return facet.replace("_", " ")


_CODE_WORDS = re.compile(
    r"\b(" + "|".join(sorted({*METRIC_LABELS, *(str(lever) for lever in Lever)}, key=len, reverse=True)) + r")(/\w+)?\b"
)


def detail_shown(detail: str) -> str:
    """A relation's "old → new" ("cvr 35% → cvr 5%") with its metric and lever codes named."""
    return _CODE_WORDS.sub(lambda m: metric_label(m.group(0)), detail or "")


def relation_between(candidate: Claim, target: Claim, *, identity: Identity) -> dict[str, Any]:
    """How the candidate relates to the target, decided the way the conflict stage decides
    it (textrules.claims.relate_claims): relation, deciding part, old → new, shared parts.
    `identity` is the names each side gives its subject as the funnel reads them
    (governance.knowledge.entities.selectors.subject_identity): without it a pair the funnel
    parks as an identity question would read here as a contradiction or a refinement."""
    found = relate_claims(candidate, target, identity=identity)
    return {
        "relation": str(found.kind),
        "facet": str(found.facet),
        "detail": f"{found.old} → {found.new}" if (found.old or found.new) else "",
        "matched": list(found.matched),
    }


# Keyed by the enum; a relation stored as its plain string finds the same entry.
RELATION_LABELS: dict[str, Any] = {
    RelationKind.DUPLICATE: _("duplicate"),
    RelationKind.CONTRADICTION: _("contradiction"),
    RelationKind.REFINEMENT: _("refinement"),
    RelationKind.COMPATIBLE: _("compatible"),
    RelationKind.AMBIGUOUS: _("unclear subject"),
}


def relation_label(relation: str) -> str:
    return str(RELATION_LABELS.get(relation, relation))
