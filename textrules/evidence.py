"""How much an observation rests on: its sample, the cycles it was seen over, the days it
ran. Two tool observations that contradict each other are told apart by this, not by who
made them (both are tools): 21万 impressions outweigh 1.2万, ten weeks outweigh three.

Read from the event's structured data first, then from the words of the statement
("样本1.2万曝光", "观察3周", "over 14 days")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class Volume(StrEnum):
    SAMPLE = "sample"
    CYCLES = "cycles"
    DAYS = "days"


_DATA_KEYS = {
    Volume.SAMPLE: ("sample_size", "sample", "impressions", "n"),
    Volume.CYCLES: ("cycles_observed", "cycles"),
    Volume.DAYS: ("duration_days", "days", "observation_days"),
}
_SCALE = {"万": 10_000, "k": 1_000, "K": 1_000, "千": 1_000}
_N = r"(\d+(?:\.\d+)?)\s*(万|千|[kK](?![A-Za-z]))?"
_TEXT = {
    Volume.SAMPLE: (
        re.compile(rf"(?:样本量?|sample(?: size)?(?: of)?|\bn\s*=)\s*{_N}", re.I),
        re.compile(rf"{_N}\s*次?(?:曝光|展现|impressions?\b|views?\b)", re.I),
    ),
    Volume.CYCLES: (
        re.compile(r"(?:观察|连续|共)\s*(\d+)\s*(?:个)?(?:周|个?月|个?周期)()"),
        re.compile(r"\b(?:for|over)\s+(\d+)\s+(?:weeks|cycles|months)\b()", re.I),
    ),
    Volume.DAYS: (
        re.compile(r"(?:试跑|观察|连续|近|共)?\s*(\d+)\s*天()"),
        re.compile(r"\b(\d+)\s*-?\s*days?\b()", re.I),
        re.compile(r"^(\d+)\s*d()$"),
    ),
}


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        for rx in _TEXT[Volume.DAYS][2:]:
            m = rx.match(raw.strip())
            if m:
                return float(m.group(1))
    return None


def evidence_volume(text: str, data: Mapping[str, Any] | None = None) -> dict[Volume, float]:
    """The largest sample, cycle count and day count the observation states."""
    found: dict[Volume, float] = {}
    for kind, keys in _DATA_KEYS.items():
        for key in keys:
            value = _number((data or {}).get(key))
            if value is not None and value > 0:
                found[kind] = max(found.get(kind, 0.0), value)
    window = _number((data or {}).get("observation_window"))
    if window and Volume.DAYS not in found:
        found[Volume.DAYS] = window
    for kind, patterns in _TEXT.items():
        if kind in found:
            continue
        for rx in patterns[:2]:
            for m in rx.finditer(text or ""):
                value = float(m.group(1)) * _SCALE.get(m.group(2) or "", 1)
                if value > 0:
                    found[kind] = max(found.get(kind, 0.0), value)
    return found


# Stronger when some shared measure is at least this many times the other's and none is smaller.
STRONGER_BY = 2.0


def outweighs(new: Mapping[Volume, float], old: Mapping[Volume, float]) -> bool:
    """The new observation rests on clearly more than the old one on a measure both state,
    and on less on none."""
    shared = [kind for kind in new if kind in old]
    if not shared or any(new[k] < old[k] for k in shared):
        return False
    return any(new[k] >= STRONGER_BY * old[k] for k in shared)
