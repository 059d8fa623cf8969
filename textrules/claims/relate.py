"""How a new claim relates to a remembered one."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from textrules.claims.identity import Identity, IdentityVerdict
from textrules.claims.parts import Claim, ClaimRelation, Facet, Lever, RelationKind, Stance, Subject
from textrules.claims.words import AUDIENCE_ALTERNATIVES, BOUND_WINDOW, CHANNEL_FORMATS, CITY_TIERS, LIFTS_BOUND, LOWER_BOUND, UPPER_BOUND


def _show(values: Iterable[Any]) -> str:
    items = []
    for v in sorted(values, key=str):
        if isinstance(v, tuple):
            items.append("–".join(f"{int(x):02d}:{int(round((x % 1) * 60)):02d}" for x in dict.fromkeys(v)))
        elif isinstance(v, int) and not isinstance(v, bool):
            items.append(["周一", "周二", "周三", "周四", "周五", "周六", "周日"][v - 1])
        else:
            items.append(str(v))
    return "、".join(items)


def _meet(x: tuple[float, float], y: tuple[float, float]) -> bool:
    """Two slots share some time. A clock time (a slot of no length) is inside a range from
    its start up to, not including, its end: 22:00 is not inside 20:00–22:00."""
    (x0, x1), (y0, y1) = x, y
    if x0 == x1 and y0 == y1:
        return x0 == y0
    if x0 == x1:
        return y0 <= x0 < y1
    if y0 == y1:
        return x0 <= y0 < x1
    return x0 < y1 and y0 < x1


def _overlap(a: frozenset[tuple[float, float]], b: frozenset[tuple[float, float]]) -> bool:
    return any(_meet(x, y) for x in a for y in b)


def _category_relation(a: frozenset[str], b: frozenset[str]) -> str:
    """'same', 'disjoint', 'crossed' (a shared category, and a finer one each side lacks),
    'narrower' (b inside a), 'broader' or 'none' (one side silent)."""
    if not a or not b:
        return "none"
    if a == b:
        return "same"
    if a & b:
        # Each naming a finer category the other lacks: two kinds of one thing ("SUV试驾" /
        # "轿车试驾") or two aspects of one ("新能源车试驾" / "SUV试驾"): the words cannot tell.
        only_a, only_b = {c for c in a - b if "/" in c}, {c for c in b - a if "/" in c}
        return "crossed" if only_a and only_b else "same"
    verticals_a = {c.split("/")[0] for c in a}
    verticals_b = {c.split("/")[0] for c in b}
    if not verticals_a & verticals_b:
        return "disjoint"
    fine_a, fine_b = {c for c in a if "/" in c}, {c for c in b if "/" in c}
    if fine_a and fine_b:
        return "disjoint"
    return "narrower" if fine_b else "broader"


def _subject_facets(sub: Subject, *, schedule: bool = False) -> list[tuple[Facet, frozenset[Any]]]:
    # When both set the schedule, the days are its value, compared with the other values.
    return [
        (Facet.ADVERTISER, frozenset({sub.advertiser}) if sub.advertiser else frozenset()),
        (Facet.PLAN, sub.plans),
        (Facet.CHANNEL, sub.channels),
        (Facet.AUDIENCE, sub.audiences),
        (Facet.WEEKDAY, frozenset() if schedule else sub.weekdays),
        (Facet.EVENT, sub.events),
        (Facet.PLACE, sub.places),
    ]


def claim_parts(claim: Claim) -> dict[str, frozenset[Any]]:
    """What a claim names, by the Facet a relation reports: its subject's parts (the
    advertiser left out: it comes from the credential, not from words), its conditions and
    its figures."""
    parts: dict[str, frozenset[Any]] = {facet: values for facet, values in _subject_facets(claim.subject) if facet != Facet.ADVERTISER}
    sub = claim.subject
    return {
        **parts,
        Facet.CATEGORY: sub.categories,
        Facet.TIME_SLOT: sub.time_slots | sub.dayparts,
        Facet.CONDITION: claim.conditions,
        Facet.VALUE: frozenset(claim.quantities),
    }


# A bare "no" reverses a statement only when the two are worded this much alike (wording_overlap).
POLARITY_WORDING = 0.6
# Above this many levers, a statement's directions and switches cannot be tied to one lever.
MAX_LEVERS_FOR_SIGNS = 2


def _value_difference(new: Claim, old: Claim, shared: frozenset[str], *, alike: bool) -> tuple[Facet, str, str] | None:
    roles = set(shared) | {f"metric:{m}" for m in new.metrics & old.metrics}
    role_names = {r.removeprefix("metric:") for r in roles} | {"age"}
    for q_new in new.quantities:
        if q_new.role.split("/")[0] not in role_names:
            continue
        before = [q for q in old.quantities if q.role == q_new.role and _unit_family(q.unit) == _unit_family(q_new.unit)]
        if before and all(abs(q.amount() - q_new.amount()) > 1e-9 for q in before):
            same_count = len([q for q in new.quantities if q.role == q_new.role]) == len(before)
            if same_count or len(before) == 1:
                return Facet.VALUE, "、".join(q.label() for q in before), q_new.label()
    if len(new.levers) > MAX_LEVERS_FOR_SIGNS or len(old.levers) > MAX_LEVERS_FOR_SIGNS:
        # A playbook that sets many levers at once: its ups, downs and on/offs belong to
        # different levers, so only figures with the same role are compared.
        return None
    for scale, side in new.assessments:
        if (scale, -side) in old.assessments:
            return Facet.POLARITY, _scale_word(scale, -side), _scale_word(scale, side)
    for metric, sign in new.trends:
        if (metric, -sign) in old.trends:
            return Facet.DIRECTION, f"{metric} {_direction_word(-sign)}", f"{metric} {_direction_word(sign)}"
    if new.switch and old.switch and new.switch != old.switch:
        return Facet.SWITCH, _switch_word(old.switch), _switch_word(new.switch)
    if any(a.polarity < 0 and not a.switch and b.switch > 0 for a, b in ((old, new), (new, old))):
        # "新品期不投快手" and "新品期开始投快手": a "no" is delivery off, whichever side says it.
        return Facet.SWITCH, _switch_word(old.switch or -1), _switch_word(new.switch or -1)
    if new.direction and old.direction and new.direction != old.direction:
        return Facet.DIRECTION, _direction_word(old.direction), _direction_word(new.direction)
    if new.polarity != old.polarity and not (new.switch or old.switch) and (alike or _explicitly_opposite(new, old)):
        # "不投男性" against "投男性": a "no" only reverses a statement worded like it, or
        # one that says yes in so many words ("适合", "allowed").
        return Facet.POLARITY, _polarity_word(old.polarity), _polarity_word(new.polarity)
    if Lever.SCHEDULE in shared:
        a, b = old.subject, new.subject
        if a.weekdays and b.weekdays and a.weekdays != b.weekdays:
            return Facet.WEEKDAY, _show(a.weekdays), _show(b.weekdays)
        if a.time_slots and b.time_slots and a.time_slots != b.time_slots:
            return Facet.TIME_SLOT, _show(a.time_slots), _show(b.time_slots)
        if a.dayparts and b.dayparts and not (a.dayparts & b.dayparts):
            return Facet.TIME_SLOT, _show(a.dayparts), _show(b.dayparts)
    return None


def _period_difference(new: Claim, old: Claim) -> tuple[str, str] | None:
    """A per-day figure and a per-month one for the same lever are two settings, not one changed."""
    for q_new in new.quantities:
        base, _, period = q_new.role.partition("/")
        others = [q for q in old.quantities if q.role.partition("/")[0] == base]
        if period and others and all(q.role != q_new.role for q in others):
            return others[0].role, q_new.role
    return None


def _values(claim: Claim) -> set[tuple[str, str]]:
    return {(q.role.split("/")[0], _unit_family(q.unit)) for q in claim.quantities}


def _unit_family(unit: str) -> str:
    return {"%": "%", "pp": "%", "元": "money", "万": "money", "万元": "money", "千": "money", "$": "money", "": "money"}.get(unit, unit)


def _scale_word(scale: str, side: int) -> str:
    if ":" in scale:
        # A comparison of two names ("better_worse:抖音|百度"): the first one's standing.
        first, second = scale.split(":", 1)[1].split("|", 1)
        return f"{first}{'好于' if side > 0 else '不如'}{second}"
    return {"best_worst": ("最好", "最差"), "better_worse": ("更好", "更差"), "fit": ("适合", "不适合"), "works": ("有效", "无效")}[scale][
        0 if side > 0 else 1
    ]


def _switch_word(sign: int) -> str:
    return "开启" if sign > 0 else "暂停"


def _direction_word(sign: int) -> str:
    return "上调" if sign > 0 else "下调"


def _explicitly_opposite(new: Claim, old: Claim) -> bool:
    yes = new if new.polarity > 0 else old
    return yes.affirmed


def _polarity_word(sign: int) -> str:
    return "肯定" if sign > 0 else "否定"


def _one_word(a: str, b: str) -> bool:
    """Two quoted words for one thing: the same, or one inside the other ("无添加" / "无添加蔗糖")."""
    return a in b or b in a


def _term_clash(new: Claim, old: Claim) -> tuple[str, str] | None:
    """A quoted word one side forbids and the other allows, as (old, new) in words."""
    for old_term, old_side in sorted(old.terms):
        for term, side in sorted(new.terms):
            if side and old_side == -side and _one_word(old_term, term):
                return f"'{old_term}' {_polarity_word(old_side)}", f"'{term}' {_polarity_word(side)}"
    return None


def relate_claims(
    new: Claim, old: Claim, *, same_text: bool = False, wording: float | None = None, identity: Identity | None = None
) -> ClaimRelation:
    """Duplicate: same subject, lever and value. Contradiction: same subject and lever, a
    different value, direction, switch or polarity. Refinement: the same, under narrower
    conditions or a narrower subject. Compatible: a different subject part or lever.
    Ambiguous: a change whose subject cannot be told apart (one side names a part the
    other leaves open), which a person decides.

    `identity`, when the caller has it, holds the names each side gives its subject and what
    the store knows of them: two names it knows apart are different subjects, aliases one
    subject, and two names nobody has tied together make an identity question for a person
    wherever the claims would otherwise be one subject and one lever."""
    if same_text:
        return ClaimRelation(RelationKind.DUPLICATE, Facet.TEXT)
    named = identity.verdict() if identity is not None else IdentityVerdict.NONE
    if identity is None or named == IdentityVerdict.NONE:
        return _relate(new, old, wording=wording, places=True)
    if named == IdentityVerdict.DIFFERENT:
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.IDENTITY, *identity.question())
    # Two spellings of one known thing: the stores they name are one place too.
    found = _relate(new, old, wording=wording, places=False)
    if named == IdentityVerdict.SAME:
        return found
    if found.kind != RelationKind.COMPATIBLE or not (found.old or found.new):
        # Alike in every part but the names: one thing under two names, or two things; only a
        # person knows. A compatible that tells nothing apart (each side only names a part the
        # other leaves open: "the new SUV…Suzhou" beside "星驰S7…上海和杭州") is no answer either.
        return ClaimRelation(RelationKind.AMBIGUOUS, Facet.IDENTITY, *identity.question(), found.matched)
    # Told apart by another part: what the claims say without the question.
    return _relate(new, old, wording=wording, places=True)


def _alternatives_apart(a: frozenset[str], b: frozenset[str]) -> bool:
    """Each audience names a part of one set of alternatives the other does not (a gender, an
    operating system, new or returning customers, a city tier), and none in common."""
    return any((a & group) and (b & group) and not (a & b & group) for group in AUDIENCE_ALTERNATIVES)


def _apart_in_one_kind(a: frozenset[str], b: frozenset[str]) -> bool:
    """Channels name a platform and a format at once ("抖音信息流"): two channels sharing the
    format on different platforms ("快手信息流"), or the platform in different formats, are
    different places to buy."""
    platforms_a, platforms_b = a - CHANNEL_FORMATS, b - CHANNEL_FORMATS
    # "抖音短视频" is the app's own name as often as a format: only the other formats tell apart.
    formats_a, formats_b = a & CHANNEL_FORMATS - {"短视频"}, b & CHANNEL_FORMATS - {"短视频"}
    return bool(platforms_a and platforms_b and not platforms_a & platforms_b) or bool(
        formats_a and formats_b and not formats_a & formats_b
    )


def _relate(new: Claim, old: Claim, *, wording: float | None, places: bool) -> ClaimRelation:
    matched: list[str] = []
    open_parts: list[Facet] = []  # named on one side only
    named_by: set[str] = set()  # which side names the parts the other leaves open
    narrower = False
    # When both set the schedule, the days and slots are its value, unless both switch delivery
    # or move it the same way for them: "周三暂停" and "周五暂停" are two pauses, "每周六加投" and
    # "每周日加投" two pushes, not one moved ("改为每周日加投" moves it). Said as an addition
    # ("also push it every Wednesday"), the new days sit beside the old ones.
    same_way = bool(new.direction) and new.direction == old.direction and new.stance != Stance.CORRECTION
    added = new.adds and new.stance != Stance.CORRECTION
    # Other days each given their own hours ("trading days 7:30-9:00" / "weekends 20:00-22:00")
    # are two scopes, unless said as a change ("改为周末20-22点"); the same days with other hours
    # are the hours changed.
    timed = [bool(c.subject.weekdays) and bool(c.subject.time_slots or c.subject.dayparts) for c in (new, old)]
    days_scoped = all(timed) and not (new.subject.weekdays & old.subject.weekdays) and new.stance != Stance.CORRECTION
    schedule = (
        Lever.SCHEDULE in (new.levers & old.levers) and not (new.switch and old.switch) and not same_way and not added and not days_scoped
    )
    for facet, a in _subject_facets(old.subject, schedule=schedule):
        b = dict(_subject_facets(new.subject, schedule=schedule))[facet]
        if facet == Facet.PLACE and not places:
            continue
        if a and b:
            if not (a & b) or (facet == Facet.CHANNEL and _apart_in_one_kind(a, b)):
                return ClaimRelation(RelationKind.COMPATIBLE, facet, _show(a), _show(b))
            matched.append(f"{facet}:{_show(a & b)}")
            if facet == Facet.AUDIENCE and _alternatives_apart(a, b):
                # 男性 / 女性, 安卓 / iOS, 新客 / 老客, 一线 / 二线: another audience, whatever else is
                # shared. When both target, the audience may be the value that changed instead
                # ("安卓包只定向男性" / "iOS包只定向男性" or a targeting moved): a person decides.
                kind = RelationKind.AMBIGUOUS if Lever.TARGETING in (new.levers & old.levers) else RelationKind.COMPATIBLE
                return ClaimRelation(kind, facet, _show(a), _show(b), tuple(matched))
            if facet == Facet.AUDIENCE and a != b and (a < b or b < a):
                # An audience is each of its parts at once ("新手妈妈" in "二线城市"): more parts
                # named is a narrower audience, on whichever side names them. A city tier added
                # to a tier is an alternative instead ("一线城市" → "一二线城市" widens): a person decides.
                open_parts.append(facet)
                narrower = narrower or (b > a and not ((b - a) & CITY_TIERS and a & CITY_TIERS))
                named_by.add("new" if b > a else "old")
        elif a or b:
            open_parts.append(facet)
            narrower = narrower or bool(b)
            named_by.add("new" if b else "old")
    categories = _category_relation(old.subject.categories, new.subject.categories)
    if categories == "disjoint":
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.CATEGORY, _show(old.subject.categories), _show(new.subject.categories))
    if categories == "crossed":
        return ClaimRelation(
            RelationKind.AMBIGUOUS, Facet.CATEGORY, _show(old.subject.categories), _show(new.subject.categories), tuple(matched)
        )
    one_sided = bool(old.subject.categories) != bool(new.subject.categories)
    # Only a named finer category narrows; a bare vertical ("car", "游戏") is context, not scope.
    fine_added = any("/" in c for c in (new.subject.categories if one_sided else ()))
    # A vertical only one side names is a scope ("医药OTC新计划" beside "晚间出价"), unless a shared
    # plan already fixes what is meant: a plan's category is context.
    same_plan = any(part.startswith(f"{Facet.PLAN}:") for part in matched)
    if categories in {"narrower", "broader"} or (one_sided and not same_plan):
        open_parts.append(Facet.CATEGORY)
        narrower = narrower or categories == "narrower" or fine_added
        named_by.add("new" if categories == "narrower" or (one_sided and new.subject.categories) else "old")
    elif categories == "same":
        matched.append(f"category:{_show(old.subject.categories & new.subject.categories or old.subject.categories)}")
    if not schedule:
        slots_a, slots_b = old.subject.time_slots, new.subject.time_slots
        if slots_a and slots_b and not _overlap(slots_a, slots_b):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.TIME_SLOT, _show(slots_a), _show(slots_b))
        parts_a, parts_b = old.subject.dayparts, new.subject.dayparts
        if parts_a and parts_b and not (parts_a & parts_b):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.TIME_SLOT, _show(parts_a), _show(parts_b))
        if bool(slots_a or parts_a) != bool(slots_b or parts_b):
            open_parts.append(Facet.TIME_SLOT)
            named_by.add("new" if slots_b or parts_b else "old")
    clash = _term_clash(new, old)
    sided_old, sided_new = {t for t, side in old.terms if side}, {t for t, side in new.terms if side}
    if sided_old and sided_new and not any(_one_word(a, b) for a in sided_old for b in sided_new):
        # Each allows or forbids its own words ("不得出现'根治'" / "不得出现'特效'"): two rules.
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.POLARITY, _show(sided_old), _show(sided_new), tuple(matched))
    if len(named_by) == 2:
        if clash:
            # Scopes side by side, but one quoted word allowed on one side and forbidden on the
            # other ("不得使用'全网最低价'" / "618期间可以用'全网最低价'"): the word is the subject.
            return ClaimRelation(RelationKind.AMBIGUOUS, Facet.POLARITY, *clash, tuple(matched))
        # Each names a part of its subject the other does not: two scopes side by side
        # ("维生素 on Monday mornings" and "抖音信息流"), not one statement and its change.
        return ClaimRelation(RelationKind.COMPATIBLE, open_parts[0], "", "", tuple(matched))
    if old.levers and new.levers and not (old.levers & new.levers):
        # Different levers pulled (出价 vs 人群包): their reported ROIs are results of different things.
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.LEVER, _show(old.levers), _show(new.levers), tuple(matched))
    topic_a, topic_b = old.topic, new.topic
    if topic_a and topic_b and not (topic_a & topic_b):
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.LEVER, _show(topic_a), _show(topic_b), tuple(matched))
    shared = topic_a & topic_b
    matched.extend(f"lever:{t}" for t in sorted(shared))
    if not shared:
        # One side names no lever: it may well be about the other's (an implied one), so
        # their values are still compared.
        shared = topic_a | topic_b
    difference = _value_difference(new, old, shared, alike=wording is None or wording >= POLARITY_WORDING)
    if difference is None and clash:
        difference = (Facet.POLARITY, *clash)
    conditions_differ = new.conditions != old.conditions
    if difference is not None:
        facet, before, after = difference
        if conditions_differ and new.conditions and old.conditions and not (new.conditions & old.conditions):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.CONDITION, _show(old.conditions), _show(new.conditions), tuple(matched))
        if open_parts:
            return ClaimRelation(RelationKind.AMBIGUOUS, open_parts[0], before, after, tuple(matched))
        return ClaimRelation(RelationKind.CONTRADICTION, facet, before, after, tuple(matched))
    if (
        new.stance == Stance.CORRECTION
        and old.stance != Stance.CORRECTION
        and not (new.quantities and set(new.quantities) <= set(old.quantities))
        # A correction that gives numbers corrects a value: the old must state one for that lever, in that unit.
        and not (new.quantities and not _values(old) & _values(new))
    ):
        # "改为…", "而不是", "not only…": a correction of the same subject and lever says the old one was wrong.
        return ClaimRelation(RelationKind.CONTRADICTION, Facet.VALUE, "", "", tuple(matched))
    periods = _period_difference(new, old)
    if periods is not None:
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.PERIOD, periods[0], periods[1], tuple(matched))
    if open_parts and not narrower and new.conditions <= old.conditions:
        # No value of the lever differs and nothing in the new one narrows the old: the old
        # names parts the new leaves open, or only a bare vertical differs. It may be a repeat
        # with less said ("本地推半径不超过5公里" after "抖音本地推只投门店5公里内") or a
        # product the vocabulary does not know ("篮球鞋日预算1.2万" after "跑鞋日预算1.2万");
        # the claims cannot tell which, so neither a second memory nor a reinforcement.
        return ClaimRelation(RelationKind.AMBIGUOUS, open_parts[0], "", "", tuple(matched))
    if open_parts or (conditions_differ and new.conditions > old.conditions):
        facet = open_parts[0] if open_parts else Facet.CONDITION
        kind = RelationKind.REFINEMENT if narrower or new.conditions > old.conditions else RelationKind.COMPATIBLE
        return ClaimRelation(kind, facet, "", "", tuple(matched))
    if conditions_differ and new.conditions < old.conditions:
        # The old one restricts ("only for 50-500 employees") and the new says the same
        # without the restriction: the rule repeated loosely, or the restriction lifted.
        # Neither a second memory nor a reinforcement; a person decides.
        return ClaimRelation(RelationKind.AMBIGUOUS, Facet.CONDITION, _show(old.conditions), _show(new.conditions), tuple(matched))
    if conditions_differ:
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.CONDITION, _show(old.conditions), _show(new.conditions), tuple(matched))
    findings = _judgement_beside_move(new, old)
    if findings:
        return ClaimRelation(RelationKind.AMBIGUOUS, Facet.METRIC, *findings, tuple(matched))
    more_numbers = {q.role for q in new.quantities} - {q.role for q in old.quantities}
    if {r.split("/")[0] for r in more_numbers} & ({str(t) for t in shared} | {m for m in new.metrics}):
        return ClaimRelation(RelationKind.REFINEMENT, Facet.VALUE, "", "、".join(sorted(more_numbers)), tuple(matched))
    return ClaimRelation(RelationKind.DUPLICATE, Facet.VALUE, "", "", tuple(matched))


def _judgement_beside_move(new: Claim, old: Claim) -> tuple[str, str] | None:
    """One side judges a metric ("实拍比CG的CTR低"), the other reports how it moved
    ("换成实拍后CTR从1.4%升到1.9%"), in either order: two findings the claims cannot set side by
    side, which may well disagree. Neither a narrower statement nor a repeat: (before, after)
    in words, for a person."""

    def judged(c: Claim) -> str:
        return "、".join(_scale_word(scale, side) for scale, side in sorted(c.assessments))

    def moved(c: Claim) -> str:
        return "、".join(f"{metric} {_direction_word(sign)}" for metric, sign in sorted(c.trends))

    if old.assessments and new.trends and not new.assessments and not old.trends:
        return judged(old), moved(new)
    if new.assessments and old.trends and not old.assessments and not new.trends:
        return moved(old), judged(new)
    return None


def _bound_sides(text: str) -> dict[float, int]:
    """Each figure of a rule with a bound word right before it: 1 when it caps from above,
    -1 from below. A figure with neither (a fixed "CPA的1.2倍" beside a budget cap) has none."""
    sides: dict[float, int] = {}
    for m in re.finditer(r"\d+(?:\.\d+)?", text):
        before = text[max(0, m.start() - BOUND_WINDOW) : m.start()]
        upper, lower = bool(UPPER_BOUND.search(before)), bool(LOWER_BOUND.search(before))
        if upper != lower:
            sides[float(m.group())] = 1 if upper else -1
    return sides


def within_bound(rule_text: str, rule: Claim, other_text: str, other: Claim) -> bool:
    """Every figure the other statement gives for a figure the rule bounds lies inside the
    bound ("冷启动出价为CPA的0.8倍" under "出价不得高于CPA的1.3倍", "日预算3000元" under
    "日预算上限5000元"): it follows the rule. Not within: a figure past its bound, a changed
    figure the rule fixes rather than bounds, a statement that lifts or breaks the bound
    ("不受1.3倍上限限制", "exceed"), or nothing to compare."""
    if LIFTS_BOUND.search(other_text):
        return False
    sides = _bound_sides(rule_text)
    compared = 0
    for q in other.quantities:
        for b in (b for b in rule.quantities if b.role == q.role and _unit_family(b.unit) == _unit_family(q.unit)):
            side = sides.get(b.value, 0)
            if side == 0 and q.amount() != b.amount():
                return False
            if (side > 0 and q.amount() > b.amount()) or (side < 0 and q.amount() < b.amount()):
                return False
            compared += 1
    return compared > 0
