"""How much an observation rests on: its sample, the cycles it was seen over, the days it
ran. Two tool observations that contradict each other are told apart by this, not by who
made them (both are tools): 21万 impressions outweigh 1.2万, ten weeks outweigh three.

The caller gives the figures the event's data states; the words of the statement are read
for the rest ("样本1.2万曝光", "观察3周", "over 14 days")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum


class Volume(StrEnum):
    SAMPLE = "sample"
    CYCLES = "cycles"
    DAYS = "days"


_SCALE = {"万": 10_000, "k": 1_000, "K": 1_000, "千": 1_000}
_N = r"(\d+(?:\.\d+)?)\s*(万|千|[kK](?![A-Za-z]))?"
# Each measure only where the words say it is one: "样本1.2万曝光", "观察3周", "近3天", "over
# 14 days". Not a rate's base ("每1000次曝光", "per 1000 impressions"), a day count that names
# no observation ("双11前7天", "7天无理由退货", "30-day ROAS") or months (another unit).
_TEXT: dict[Volume, tuple[re.Pattern[str], ...]] = {
    Volume.SAMPLE: (
        re.compile(rf"(?:样本量?|sample(?: size)?)\s*(?:[:：为]|of|was|is)?\s*{_N}", re.I),
        re.compile(rf"(?<![每\d.])(?<!per ){_N}\s*次?(?:曝光|展现|impressions?\b)", re.I),
    ),
    Volume.CYCLES: (
        re.compile(r"(?:观察|连续|共|持续)\s*(\d+)\s*(?:个)?(?:周|个?周期)()"),
        re.compile(r"\b(?:for|over|across)\s+(?:the\s+)?(?:last\s+|past\s+)?(\d+)\s+(?:weeks|cycles)\b()", re.I),
    ),
    Volume.DAYS: (
        re.compile(r"(?:试跑|观察|连续|近|共|持续|跑了|过去)\s*(\d+)\s*天()"),
        re.compile(r"\b(?:for|over|across|during)\s+(?:the\s+)?(?:last\s+|past\s+)?(\d+)\s+days\b()", re.I),
    ),
}


def evidence_volume(
    text: str, *, sample: float | None = None, cycles: float | None = None, days: float | None = None
) -> dict[Volume, float]:
    """The sample, cycle count and day count an observation rests on: the figures its data
    states (read through its trigger schema by the caller), else the largest its words state."""
    found = {kind: float(value) for kind, value in ((Volume.SAMPLE, sample), (Volume.CYCLES, cycles), (Volume.DAYS, days)) if value}
    for kind, patterns in _TEXT.items():
        if kind in found:
            continue
        for rx in patterns:
            for m in rx.finditer(text or ""):
                value = float(m.group(1)) * _SCALE.get(m.group(2) or "", 1)
                if value > 0:
                    found[kind] = max(found.get(kind, 0.0), value)
    return found


# Words that make a span the size of something seen, not a duration ordered: "持续3天" and "run
# it for 14 days" may set how long a change runs, "观察3周", "样本3万", "近3天", "over the past
# 14 days" cannot.
_OBSERVED = re.compile(r"观察|样本|试跑|近\s*\d|过去|曝光|展现|sample|impression|\b(?:last|past)\b", re.I)


def observation_spans(text: str) -> list[tuple[int, int]]:
    """Where the words state what an observation rests on ("观察21天", "样本3万转化", "over the
    past 14 days"): a figure there is the observation's size, never a value it reports."""
    return [m.span() for patterns in _TEXT.values() for rx in patterns for m in rx.finditer(text or "") if _OBSERVED.search(m.group())]


# Stronger when some shared measure is at least this many times the other's and none is smaller.
STRONGER_BY = 2.0


def outweighs(new: Mapping[Volume, float], old: Mapping[Volume, float]) -> bool:
    """The new observation rests on clearly more than the old one on a measure both state,
    and on less on none."""
    shared = [kind for kind in new if kind in old]
    if not shared or any(new[k] < old[k] for k in shared):
        return False
    return any(new[k] >= STRONGER_BY * old[k] for k in shared)
