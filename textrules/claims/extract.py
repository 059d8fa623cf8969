"""Reading a claim from one statement (and the structured data of its event)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from textrules import signals as s
from textrules.claims.parts import Claim, Lever, Quantity, Stance, Subject
from textrules.claims.words import (
    ADDS,
    ADVERTISER,
    AGE_RANGE,
    ALLOWS_TERM,
    AUDIENCE_RX,
    BOUND,
    CHANNEL_FORMATS,
    CHANNEL_RX,
    COMPLEMENT_NO,
    CONDITION_RX,
    CONSEQUENCE,
    CURRENCY_BEFORE,
    DAYPART_OF_CLOCK,
    DAYPART_RX,
    DOWN,
    END_PART,
    EVENT_RX,
    FALL,
    FORBIDS_TERM,
    FRAME,
    FREQUENCY_BEFORE_FIGURE,
    HYPOTHETICAL,
    IMPERATIVE,
    LATIN_UNIT,
    LEVER_RX,
    METRIC_ID,
    METRIC_RX,
    NOT_PLACES,
    ONLY,
    OPEN_TIME,
    ORDER,
    PERIOD_RX,
    PLACE,
    PLACE_CANON,
    PLAN,
    PM,
    PM_AFTER_EN,
    PM_BEFORE_EN,
    POINT_TIME,
    POSITIVE,
    QUESTION,
    QUESTION_END,
    QUOTED_TERM,
    RATIO_BEFORE,
    REMOVES_TERM,
    RESTRICTION,
    RISE,
    ROLE_WINDOW,
    SCALE_RX,
    SENTENCE,
    START_DAY,
    SWITCH_OFF,
    SWITCH_ON,
    THE_REST,
    TIER_BEFORE,
    UNIT,
    UNIT_CANON,
    UP,
    URL,
    VERTICAL_RX,
    WEEKDAY,
    WEEKDAY_NAMES,
    WEEKDAY_SPAN,
    WEEKEND,
    WORKDAYS,
    WOULD,
    WOULD_SHORT,
)
from textrules.evidence import observation_spans


def _names(table: Mapping[str, re.Pattern[str]], text: str) -> frozenset[str]:
    return frozenset(name for name, rx in table.items() if rx.search(text))


def categories_in(text: str) -> frozenset[str]:
    found: set[str] = set()
    for vertical, (broad, fine) in VERTICAL_RX.items():
        fine_hits = {canon for canon, rx in fine.items() if rx.search(text)}
        if fine_hits:
            found |= {f"{vertical}/{hit}" for hit in fine_hits}
        elif broad.search(text):
            found.add(vertical)
    return frozenset(found)


# "下周一起", "effective Monday": the day a change starts, not the days it covers.


def _weekdays(text: str) -> frozenset[int]:
    text = START_DAY.sub(" ", text)
    days: set[int] = set()
    for m in WEEKDAY_SPAN.finditer(text):
        a, b = WEEKDAY_NAMES[m.group(1)], WEEKDAY_NAMES[m.group(2)]
        days |= set(range(a, b + 1)) if a <= b else set()
    text = WEEKDAY_SPAN.sub(" ", text)
    for m in WEEKDAY.finditer(text):
        name = (m.group(1) or m.group(2) or "").lower()
        if name in WEEKDAY_NAMES:
            days.add(WEEKDAY_NAMES[name])
    if WORKDAYS.search(text):
        days |= {1, 2, 3, 4, 5}
    if WEEKEND.search(text):
        days |= {6, 7}
    return frozenset(days)


def _clock_text(text: str) -> str:
    """Times written out the long way, in the form the time patterns read: "1 p.m." is
    "1 pm", "between 1 and 7pm" is "1 to 7pm"."""
    text = re.sub(r"\b([ap])\.m\.", r"\1m", text, flags=re.I)
    return re.sub(r"\bbetween\s+(\d{1,2}(?:[:：]\d{2})?\s*(?:am|pm)?)\s+and\s+", r"\1 to ", text, flags=re.I)


# The half of the day a range's start names itself ("11am-2pm"); none for "1-7pm".
_START_HALF = re.compile(r"\d{1,2}(?:[:：]\d{2})?\s*(am|pm)\b", re.I)


def _afternoon(text: str, start: int, end: int) -> bool:
    """Whether the time at text[start:end] is said to be in the second half of the day."""
    return bool(
        PM.search(text[max(0, start - 4) : start])
        or PM_BEFORE_EN.search(text[max(0, start - 24) : start])
        or PM_AFTER_EN.match(text[end : end + 24])
    )


def _hour(at: float, *, pm: bool, am: bool) -> float:
    # 12am is midnight; an afternoon or evening hour under 12 is the same hour plus 12.
    if am:
        return at % 12
    return at + 12 if pm and at < 12 else at


def _add_slot(slots: set[tuple[float, float]], start: float, end: float) -> None:
    """A range that runs past midnight ("晚上10点到凌晨2点") is two: to midnight and from it."""
    if not (0 <= start <= 24 and 0 <= end <= 24):
        return
    if end < start:
        slots.update({(round(start, 2), 24.0), (0.0, round(end, 2))})
    else:
        slots.add((round(start, 2), round(end, 2)))


def _time_slots(text: str) -> frozenset[tuple[float, float]]:
    slots: set[tuple[float, float]] = set()
    text = _clock_text(text)
    for m in s.TIME_RANGE.finditer(text):
        # Bare numbers are a time range only with an hour unit, minutes, or an English part of
        # the day beside them ("1-7 in the afternoon"); "3-5天" is a count.
        english = PM_BEFORE_EN.search(text[max(0, m.start() - 24) : m.start()]) or PM_AFTER_EN.match(text[m.end() : m.end() + 24])
        if not (m.group(5) or (m.group(2) and m.group(4)) or english):
            continue
        suffix = (m.group(5) or "").lower()
        said = _START_HALF.match(text, m.start())
        start_half = said.group(1).lower() if said else ""
        end_part = END_PART.search(text[m.start(3) - 4 if m.start(3) >= 4 else 0 : m.start(3)])
        start_pm = _afternoon(text, m.start(), m.end()) or start_half == "pm"
        start_am = start_half == "am"
        if end_part:
            end_pm, end_am = bool(PM.search(end_part.group(1))), end_part.group(1) in {"凌晨", "早上", "上午"}
        else:
            end_pm, end_am = start_pm or suffix == "pm", suffix == "am"
        # "1-7pm": the end's pm holds for the start too, when the start names no half of its own.
        if suffix == "pm" and not (start_am or start_pm or end_part):
            start_pm = True
        start = _hour(int(m.group(1)) + int(m.group(2) or 0) / 60, pm=start_pm, am=start_am)
        end = _hour(int(m.group(3)) + int(m.group(4) or 0) / 60, pm=end_pm, am=end_am)
        _add_slot(slots, start, end)
    # One end given, read where no range already took the hour ("20点至22点前" is one range).
    rest = s.without_time_ranges(text)
    for m in OPEN_TIME.finditer(rest):
        if m.group(1):
            hour, minute, side = m.group(1), m.group(2) or m.group(3), m.group(4)
        else:
            hour, minute, side = m.group(6), m.group(7) or m.group(9), m.group(5)
        half = (m.group(8) or "").lower()
        at = _hour(int(hour) + int(minute or 0) / 60, pm=_afternoon(rest, m.start(), m.end()) or half == "pm", am=half == "am")
        if 0 <= at <= 24:
            after = side.lower() == "after" or "后" in side
            slots.add((round(at, 2), 24.0) if after else (0.0, round(at, 2)))
    rest = OPEN_TIME.sub(" ", rest)
    for m in POINT_TIME.finditer(rest):
        if m.group(1) and RATIO_BEFORE.search(rest[max(0, m.start() - 8) : m.start()]):
            continue
        hour = m.group(1) or m.group(4) or m.group(7) or m.group(10)
        minute = int(m.group(2) or m.group(5) or m.group(8) or 0) + (30 if m.group(6) or m.group(9) else 0)
        half = (m.group(3) or m.group(11) or "").lower()
        at = _hour(int(hour) + minute / 60, pm=_afternoon(rest, m.start(), m.end()) or half == "pm", am=half == "am")
        if int(hour) == 12 and re.search(r"(?:晚上|夜里|半夜)\s*$", rest[max(0, m.start() - 4) : m.start()]):
            at = 24.0  # 晚上12点 is midnight, not noon
        if 0 <= at <= 24:
            slots.add((round(at, 2), round(at, 2)))
    return frozenset(slots)


def _role_at(text: str, start: int, end: int) -> str:
    """What a number measures: the nearest lever or metric named before it (or, failing
    that, just after it). "ROI仅1.8" is an ROI, "25-35岁" an age."""
    after = text[end : end + 4]
    if re.match(r"\s*(?:岁|周岁|years? old)", after, re.I):
        return "age"
    # Latin words are longer than Chinese ones: the same few words span more characters.
    latin = sum(ch.isascii() for ch in text[max(0, start - ROLE_WINDOW) : start]) > ROLE_WINDOW // 2
    # The window is searched in place and a name that runs into it counts whole, so a word cut
    # at its edge is not read as another word ("…OI target" is "ROI target").
    begin = max(0, start - ROLE_WINDOW * (3 if latin else 1))
    best, best_pos, metric, metric_pos = "", -1, "", -1
    for name, rx in (*METRIC_RX.items(), *((str(k), v) for k, v in LEVER_RX.items())):
        for m in (m for m in rx.finditer(text, max(0, begin - ROLE_WINDOW), start) if m.end() > begin):
            # On a tie the metric wins: "目标ROI" names the ROI, the KPI lever is implied.
            if m.end() > best_pos:
                best, best_pos = name, m.end()
            if name in METRIC_RX and m.end() > metric_pos:
                metric, metric_pos = name, m.end()
    if FREQUENCY_BEFORE_FIGURE.search(text, begin, start):
        best = str(Lever.FREQUENCY)
    elif best == Lever.KPI_TARGET and metric:
        # "CPA target stays at 45", "ROI目标3": the target's figure is the metric's.
        best = metric
    if best:
        period = next((name for name, rx in PERIOD_RX.items() if rx.search(text, begin, start)), "")
        if not period:
            # "capped at 5000 yuan per day": the period may follow the figure.
            clause_end = min((i for i in (text.find(mark, end) for mark in ",，;；。") if i >= 0), default=len(text))
            stop = min(end + ROLE_WINDOW, clause_end)
            period = next((name for name, rx in PERIOD_RX.items() if rx.search(text, end, stop)), "")
        return f"{best}{period}"
    ahead = text[end : end + ROLE_WINDOW]
    if re.match(r"\s*(?:公里|千米|km\b|miles?\b)", ahead, re.I):
        return "radius"
    for name, rx in (*METRIC_RX.items(), *((str(k), v) for k, v in LEVER_RX.items())):
        if rx.match(ahead.lstrip(" 的")):
            return name
    return ""


def _quantities(text: str) -> tuple[Quantity, ...]:
    plain = OPEN_TIME.sub(" ", s.without_time_ranges(AGE_RANGE.sub(" ", text)))
    observed = observation_spans(plain)
    out: list[Quantity] = []
    for m in re.finditer(r"(?<![A-Za-z_0-9.])(\d+(?:\.\d+)?)", plain):
        if any(start <= m.start() < end for start, end in observed):
            continue  # the size of the observation ("观察21天", "样本3万"), not a figure it reports
        tail = plain[m.end() : m.end() + 1]
        value = float(m.group(1))
        if tail in {"年", "月", "日", "号", "/", "期"} or (1900 <= value <= 2100 and tail != "元"):
            continue
        if (
            plain[max(0, m.start() - 1) : m.start()] in {"_", "#"}
            or TIER_BEFORE.search(plain[max(0, m.start() - 5) : m.start()])
            or (re.match(r"-?[A-Za-z]", plain[m.end() : m.end() + 2] or " ") and not LATIN_UNIT.match(plain, m.end()))
        ):
            continue  # an id like plan_07, a code like 618A or a format like 15-second, not a quantity
        unit_match = UNIT.match(plain, m.end())
        unit = (unit_match.group(1) or "").lower() if unit_match else ""
        span = re.match(r"\s*(?:-|–|~|～|到|至)\s*\d+(?:\.\d+)?", plain[m.end() :]) if not unit else None
        if span:
            # The low end of a range ("第4-7天", "10-15%") has the unit of its high end.
            high_end = UNIT.match(plain, m.end() + span.end())
            unit = (high_end.group(1) or "").lower() if high_end else ""
        if CURRENCY_BEFORE.search(plain[max(0, m.start() - 2) : m.start()]):
            unit = "$" if "$" in plain[max(0, m.start() - 2) : m.start()] else "元"
        unit = UNIT_CANON.get(unit, unit)
        role = _role_at(plain, m.start(), m.end())
        if not role:
            continue
        out.append(Quantity(role=role, value=value, unit=unit))
    for m in AGE_RANGE.finditer(text):
        low, high = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out.append(Quantity(role="age", value=float(low), unit="岁起"))
        out.append(Quantity(role="age", value=float(high), unit="岁止"))
    return tuple(dict.fromkeys(out))


def places_in(text: str) -> frozenset[str]:
    found = set()
    for m in PLACE.finditer(text):
        name = next((g for g in m.groups() if g), m.group(0)).strip()
        # The pattern takes up to four characters before 店: a verb or a function word among
        # them ends the phrase before the name ("只投门店5公里内" names no store); what is
        # left must still be a name of two characters or more. "到店"/"进店" is a visit
        # ("周末到店预约"), not a store called "周末到" ("京东到家店" is one).
        name = re.split(r"[只仅投在的和与及]", re.sub(r"[那这]家$", "", name))[-1]
        if len(name) >= 2 and name not in NOT_PLACES and not re.search(r"[到进离]$", name):
            found.add(PLACE_CANON.get(name.lower(), name))
    return frozenset(found)


def _plans(text: str) -> frozenset[str]:
    found = set()
    for m in PLAN.finditer(text):
        ident = m.group(1) or m.group(2) or m.group(3) or ""
        # "campaign roas_7d dropped": a metric's name after the word, not an id.
        if ident and not re.fullmatch(r"\d{4}", ident) and not METRIC_ID.match(ident):
            found.add(ident.upper())
    return frozenset(found)


# A sentence ends at Chinese end punctuation, or at ASCII ? ! ; followed by a space or the
# end ("search?query=" inside a link is not a question).


def _mostly_asking(body: str) -> bool:
    """Ends on a question, or asks in at least half of its sentences ("我确认过？我不记得")."""
    sentences = [m.group(0).strip() for m in SENTENCE.finditer(body) if m.group(0).strip(" 。！？!?；;\n")]
    if not sentences:
        return False
    asked = sum(1 for sentence in sentences if QUESTION_END.search(sentence))
    return bool(QUESTION_END.search(body)) or asked * 2 >= len(sentences)


def _stance(text: str) -> Stance:
    body = URL.sub(" ", text).strip()
    hypothetical = HYPOTHETICAL.search(body)
    would = WOULD.search(body)
    if would and WOULD_SHORT.fullmatch(would.group()) and CONDITION_RX["阈值"].search(body):
        would = None  # "If CPA goes above 80, we'd pause it": a rule with its threshold, not a what-if
    if hypothetical and (would or QUESTION_END.search(body)) and not CONSEQUENCE.search(body[hypothetical.end() :]):
        return Stance.HYPOTHETICAL
    if _mostly_asking(body) or (QUESTION.search(body) and not ORDER.search(body)):
        return Stance.QUESTION
    if s.is_hedged(body):
        return Stance.HEDGE
    if s.has(s.CORRECTION, body) and not s.has(s.SUGGESTION, body):
        return Stance.CORRECTION
    if s.has(s.SUGGESTION, body):
        return Stance.SUGGESTION
    if ORDER.search(body) or IMPERATIVE.search(body):
        return Stance.ORDER
    return Stance.STATEMENT


def _balance(up: Iterable[str], down: Iterable[str]) -> int:
    a, b = bool(list(up)), bool(list(down))
    return (a and not b) - (b and not a)


def _data_subject(data: Mapping[str, Any] | None) -> dict[str, set[str]]:
    """Subject facets a structured event states in its fields (plan_id, category, channel…)."""
    out: dict[str, set[str]] = {"plans": set(), "text": set()}
    if not isinstance(data, Mapping):
        return out
    for key, value in data.items():
        name = str(key).lower()
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
            if re.search(r"plan|campaign|计划", name):
                out["plans"].add(text.upper())
            elif re.search(
                r"categor|vertical|channel|audience|segment|weekday|slot|daypart|event|promotion|condition|类目|渠道|人群|时段|条件", name
            ):
                out["text"].add(text)
    return out


# Scales a judgement is made on; the first pattern of each pair is side +1. The longer
# form comes first so "不适合" is not read as "适合".


def _lever_direction(text: str) -> int:
    """The way a lever is moved where the text says so next to it ("降低出价", "出价上调",
    "raise bids"): closer than the statement's other ups and downs ("…再放量")."""
    signs = set()
    for rx in LEVER_RX.values():
        for m in rx.finditer(text):
            around = text[max(0, m.start() - 4) : m.start()] + " " + text[m.end() : m.end() + 4]
            up, down = UP.search(around), DOWN.search(around)
            if up and not down:
                signs.add(1)
            elif down and not up:
                signs.add(-1)
    return signs.pop() if len(signs) == 1 else 0


# The names a comparison sets against each other are of one kind: platforms, formats or audiences.
_COMPARED_KINDS = (
    {name: rx for name, rx in CHANNEL_RX.items() if name not in CHANNEL_FORMATS},
    {name: rx for name, rx in CHANNEL_RX.items() if name in CHANNEL_FORMATS},
    AUDIENCE_RX,
)


def _compared_names(text: str, at: int) -> tuple[str, str] | None:
    """The two names a comparison at `at` sets against each other: the last one named before
    it, and another of the same kind named at or after it ("百度搜索转化率高于抖音", "抖音信息流
    CTR比快手信息流低": platforms; "信息流CTR高于搜索广告": formats; "新客转化率高于老客":
    audiences)."""
    for kind in _COMPARED_KINDS:
        named = sorted((m.start(), name) for name, rx in kind.items() for m in rx.finditer(text))
        before = [name for pos, name in named if pos < at]
        after = [name for pos, name in named if pos >= at and (not before or name != before[-1])]
        if before and after:
            return before[-1], after[0]
    return None


def _assessments(text: str) -> frozenset[tuple[str, int]]:
    found = set()
    for name, (plus, minus) in SCALE_RX.items():
        minus_hits = list(minus.finditer(text))
        # Drop "+" hits inside a "-" hit ("不适合" holds "适合").
        spans = [(m.start(), m.end()) for m in minus_hits]
        plus_hits = [m for m in plus.finditer(text) if not any(a <= m.start() < b for a, b in spans)]
        if bool(plus_hits) == bool(minus_hits):
            continue
        sign = 1 if plus_hits else -1
        hits = plus_hits or minus_hits
        pair = _compared_names(text, hits[0].start()) if name == "better_worse" and len(hits) == 1 else None
        if pair:
            # A comparison of two names is its own scale, the names in one order: "A beats B" is
            # kept as "B trails A", so "百度高于抖音" and "抖音比百度好" come out opposite, and
            # neither meets a comparison of other names or of none ("效果更好").
            first, second = sorted(pair)
            sign = sign if pair[0] == first else -sign
            name = f"{name}:{first}|{second}"
        found.add((name, sign))
    return frozenset(found)


def _without_trends(text: str) -> str:
    out = text
    for rx in METRIC_RX.values():
        for m in rx.finditer(text):
            window = text[m.end() : m.end() + 8]
            hit = RISE.search(window) or FALL.search(window)
            if hit:
                a, b = m.end() + hit.start(), m.end() + hit.end()
                out = out[:a] + " " * (b - a) + out[b:]
    return out


def _trends(text: str) -> frozenset[tuple[str, int]]:
    """A metric and the way it moved: a rise or fall word right after it, or a from-to pair."""
    found = set()
    for name, rx in METRIC_RX.items():
        for m in rx.finditer(text):
            after = text[m.end() : m.end() + 16]
            span = s.FROM_TO.search(after)
            if span:
                a, b = (span.group(1), span.group(2)) if span.group(1) else (span.group(3), span.group(4))
                if float(a) != float(b):
                    found.add((name, 1 if float(b) > float(a) else -1))
                    continue
            rise, fall = RISE.search(after[:8]), FALL.search(after[:8])
            if rise and not fall:
                found.add((name, 1))
            elif fall and not rise:
                found.add((name, -1))
    return frozenset(found)


_CLAUSE_MARK = re.compile(r"([，,；;])")


def _kinds_named(clause: str) -> frozenset[str]:
    """Which kinds of subject part a clause names: audience, time, category, channel, place."""
    kinds = {
        "audience": bool(_names(AUDIENCE_RX, clause)),
        "time": bool(_weekdays(clause) or _time_slots(clause) or _names(DAYPART_RX, clause)),
        "category": bool(categories_in(clause)),
        "channel": bool(_names(CHANNEL_RX, clause)),
        "place": bool(places_in(clause)),
    }
    return frozenset(kind for kind, named in kinds.items() if named)


def _restates_the_rest(only: str, clause: str) -> bool:
    """`clause` says no to the rest of what the "only" clause kept: a "no" of its own ("不投",
    "不上浮", "not"), no figure, bound or lever word the "only" clause lacks, and nothing named
    but the kinds of part the "only" clause names ("男性" after "只投女性", "白天" after
    "只针对晚上20点到24点"), or, naming none, a word of the "only" clause ("品牌词不动" after
    "只针对非品牌词")."""
    if not COMPLEMENT_NO.search(clause) or re.search(r"\d", clause) or BOUND.search(clause):
        return False
    if THE_REST.search(clause):
        return True  # "其余时段不上浮", "otherwise not": the rest by name
    if any(rx.search(clause) and not rx.search(only) for rx in LEVER_RX.values()):
        return False
    kinds = _kinds_named(clause)
    if kinds:
        return kinds <= _kinds_named(only)
    words = re.sub(r"[^\u4e00-\u9fff]", "", COMPLEMENT_NO.sub("", clause))
    return any(words[k : k + 2] in only for k in range(len(words) - 1))


def without_complement(text: str) -> str:
    """The text without a clause that, right after an "only" clause, says no to the rest
    ("只投女性，男性暂不投", "只针对晚上20点到24点，白天不上浮", "only on weekdays, not on
    weekends"): it restates the restriction, so it names no subject of its own and says no
    "no" the "only" did not already say. A clause that says something of its own stays
    ("只投一线城市，预算不超过5000", "只投女性，周末不投抖音")."""
    out: list[str] = []
    only_clause = ""
    for part in _CLAUSE_MARK.split(text):
        if _CLAUSE_MARK.fullmatch(part):
            out.append(part)
            continue
        if only_clause and not ONLY.search(part) and _restates_the_rest(only_clause, part):
            out.append(" ")
            only_clause = ""
            continue
        only_clause = part if ONLY.search(part) else ""
        out.append(part)
    return "".join(out)


@lru_cache(maxsize=8192)
def _extract(text: str, advertiser: str, data_plans: frozenset[str], data_text: str) -> Claim:
    # Quoted words are read on the whole text: "只能用'A'，不能用'B'" forbids B.
    terms = _terms(text)
    text = without_complement(text)
    scope_text = f"{text} {data_text}"
    advertisers = {a.lower() for a in ADVERTISER.findall(text)}
    subject = Subject(
        advertiser=advertiser.lower() or (next(iter(advertisers)) if len(advertisers) == 1 else ""),
        plans=_plans(scope_text) | data_plans,
        categories=categories_in(scope_text),
        channels=_names(CHANNEL_RX, scope_text),
        audiences=_names(AUDIENCE_RX, scope_text),
        weekdays=_weekdays(scope_text),
        time_slots=_time_slots(scope_text),
        dayparts=frozenset() if _time_slots(scope_text) else _names(DAYPART_RX, DAYPART_OF_CLOCK.sub(" ", scope_text)),
        events=_names(EVENT_RX, scope_text),
        places=places_in(scope_text),
    )
    # The lever is in what was said, not in who said it ("合规部规定：…投放时段…" sets the schedule).
    said = FRAME.sub("", text)
    levers = frozenset(lever for lever, rx in LEVER_RX.items() if rx.search(said))
    quantities = _quantities(text)
    aims = _aims_at_someone(levers, subject, quantities)
    if subject.channels and re.search(r"改投|换到|转投|切到|\bswitch\w* to\b|\bmove\w* to\b", text, re.I):
        levers |= {Lever.CHANNEL}
    # "ROI提升到4.2" reports how a metric moved (a trend), not which way a lever was set.
    lever_text = _without_trends(text)
    up, down = s.hits(UP, lever_text), s.hits(DOWN, lever_text)
    on, off = s.hits(SWITCH_ON, text), s.hits(SWITCH_OFF, text)
    negative = s.hits(s.NEGATION, BOUND.sub(" ", text))
    metrics = _names(METRIC_RX, text)
    if not levers:
        levers = _implicit_levers(subject, quantities, switched=bool(on or off), reports=bool(metrics))
    return Claim(
        subject=subject,
        levers=levers,
        metrics=metrics,
        quantities=quantities,
        direction=_lever_direction(text) or _balance(up, down),
        switch=_balance(on, off),
        polarity=-1 if negative and not off else 1,
        affirmed=not negative and s.has(POSITIVE, text),
        assessments=_assessments(text),
        trends=_trends(text),
        stance=_stance(text),
        conditions=_names(CONDITION_RX, scope_text) | ({"限定"} if RESTRICTION.search(text) or aims else set()),
        terms=terms,
        adds=bool(ADDS.search(text)),
    )


def _terms(text: str) -> frozenset[tuple[str, int]]:
    """Each quoted word with the side its clause takes on it: -1 forbidden or no longer required
    ("不得使用'全网最低价'", "不再需要标注'…'"), +1 allowed or required ("可以用'押题'了", "必须标注'…'"),
    0 only named. Each clause is read on its own, so
    "可以用'押题'，只是不能写'保过'" allows one and forbids the other."""
    out: set[tuple[str, int]] = set()
    for m in QUOTED_TERM.finditer(text):
        start = max(text.rfind(mark, 0, m.start()) for mark in "，。；;,!！?？\n")
        ends = [i for i in (text.find(mark, m.end()) for mark in "，。；;,!！?？\n") if i >= 0]
        before = QUOTED_TERM.sub(" ", text[start + 1 : m.start()])
        # The verb may come after the word ("'最便宜'可以用", "'limited time' is fine to use").
        after = QUOTED_TERM.sub(" ", text[m.end() : min(ends, default=len(text))])
        out.add((m.group(1).strip().lower(), _side(before) or _side(after)))
    return frozenset(out)


def _side(words: str) -> int:
    # Taking a word out under a "no" keeps it ("不要删掉'请遵医嘱'").
    if FORBIDS_TERM.search(words):
        return 1 if REMOVES_TERM.search(words) else -1
    return 1 if ALLOWS_TERM.search(words) else 0


def _aims_at_someone(levers: frozenset[Lever], subject: Subject, quantities: tuple[Quantity, ...]) -> bool:
    """Targeting an audience, in a targeting word, limits delivery to it: "定向30-45岁男性"
    restricts as "只投30-45岁男性" does. A bare "投25-40岁女性" may add them to others."""
    return Lever.TARGETING in levers and bool(subject.audiences or any(q.role == "age" for q in quantities))


def _implicit_levers(subject: Subject, quantities: tuple[Quantity, ...], *, switched: bool, reports: bool) -> frozenset[Lever]:
    """The lever a statement sets without naming it: "暂停投放" switches delivery, "周末投放"
    schedules, "只投25-35岁男性" targets. A report of metrics sets none."""
    timed = bool(subject.weekdays or subject.time_slots or subject.dayparts)
    if switched:
        # "Stop … after 10pm", "周末暂停": switching delivery for a time is scheduling it too.
        return frozenset({Lever.DELIVERY, Lever.SCHEDULE} if timed else {Lever.DELIVERY})
    if reports:
        return frozenset()
    if timed:
        return frozenset({Lever.SCHEDULE})
    if subject.audiences or any(q.role in {"age", "radius"} for q in quantities):
        return frozenset({Lever.TARGETING})
    return frozenset()


def extract_claim(text: str, *, advertiser: str | None = None, data: Mapping[str, Any] | None = None) -> Claim:
    """The claim of one statement. `advertiser` is the scope the write path already knows
    (from the credential); `data` adds the subject fields a structured event carries."""
    facets = _data_subject(data)
    return _extract(text or "", advertiser or "", frozenset(facets["plans"]), " ".join(sorted(facets["text"])))


# --- relations ----------------------------------------------------------------------------
