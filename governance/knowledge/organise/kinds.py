"""Episodic or semantic, decided at write time.

A memory is episodic when it records something that happened: a campaign result with
its figures, a signal observed on a day, an anomaly. It is semantic when it states what
holds: a rule, a preference, a pattern, a template. The layer settles the clear cases
(L1 rules and L4 templates hold, L3 signals happened); the trigger type and its typed
fields (governance.funnel.trigger_schemas) come next; the wording decides the rest."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from governance.constants import TriggerType
from governance.funnel.trigger_schemas import parse_trigger_data
from memories.constants import Layer, MemoryKind

T = TriggerType

# ASCII word boundaries throughout: "全平台ROI 3.4" names ROI although 台 is a word character.
# Dates, days and "this time" words: the text is about one occasion.
_OCCASION = re.compile(
    r"\d{4}[-/年]\d{1,2}|\d{1,2}月\d{1,2}[日号]|今日|今天|昨日|昨天|本周|上周|当天|当前|已开始|已获得|已触发|首日|第\d+[天周]|"
    r"\bQ[1-4]\b|\byesterday\b|\btoday\b|\blast (?:week|month)\b|\bon \w+day\b|\bin (?:q[1-4]|week \d+)\b|\bsince \d",
    re.IGNORECASE | re.ASCII,
)
# A result with figures: "达到3.4", "从2.0%提升到2.6%", "ROI 4.1", "increased 28%".
_RESULT = re.compile(
    r"实际(?:达到)?|达到|提升到|提升了|下降到|降到|增长\d|从[\d.]+%?[^，。]{0,8}(?:提升|下降|增长|降低)|\bROI\s*\d|\d+(?:\.\d+)?%"
    r"|\byielded\b|\bresulted in\b|\bgrew\b|\bdropped\b|\bhad \d+% (?:higher|lower)\b|\bwasted\b",
    re.IGNORECASE | re.ASCII,
)
# Rules, preferences, habits and patterns: the text says what holds in general.
_GENERAL = re.compile(
    r"不得|禁止|必须|务必|应该|应当|应先|应至少|应不少于|应替换|需要|需避开|偏好|喜欢|要求|不要|只选|一般|通常|规律|每周|每逢|周期|模板|经验|原则|"
    r"最好|适合|往往|总是|时应|采用|用于|\bmust\b|\bshould\b|\bnever\b|\balways\b|\bprefer|\busually\b|\btypically\b|\bplaybook\b|\brule\b|\bwhen\b",
    re.IGNORECASE | re.ASCII,
)

_SEMANTIC_TYPES = {T.RULE_UPDATE, T.USER_FEEDBACK, T.PERIODIC_PATTERN, T.CROSS_DOMAIN_CORRELATION}
_EPISODIC_TYPES = {T.ENVIRONMENT_CHANGE, T.ANOMALY_PATTERN}


@dataclass(frozen=True)
class KindDecision:
    kind: str
    reason: str


def _has_result_fields(trigger_type: str, data: dict[str, Any]) -> bool:
    """A strategy or optimisation event whose typed fields carry the figures it produced."""
    parsed = parse_trigger_data(trigger_type, data)
    if trigger_type == T.STRATEGY_EXECUTION:
        return bool(parsed.get("actual_metric") or parsed.get("plan_id"))
    if trigger_type == T.PERFORMANCE_OPTIMIZATION:
        return bool(parsed.get("after") and parsed.get("before"))
    return False


def decide_kind(*, content: str, layer: str, trigger_type: str = "", data: dict[str, Any] | None = None) -> KindDecision:
    if layer == Layer.L1:
        return KindDecision(MemoryKind.SEMANTIC, "L1 core rules state what holds")
    if layer == Layer.L4:
        return KindDecision(MemoryKind.SEMANTIC, "L4 templates are reusable knowledge")
    if layer == Layer.L3:
        return KindDecision(MemoryKind.EPISODIC, "L3 holds observed, time-bound signals")
    if trigger_type in _SEMANTIC_TYPES:
        return KindDecision(MemoryKind.SEMANTIC, f"{trigger_type} states a rule, preference or pattern")
    if trigger_type in _EPISODIC_TYPES:
        return KindDecision(MemoryKind.EPISODIC, f"{trigger_type} records an observed occasion")
    text = content or ""
    occasion = _OCCASION.search(text)
    result = _RESULT.search(text)
    general = _GENERAL.search(text)
    if trigger_type and _has_result_fields(trigger_type, data or {}) and not general:
        return KindDecision(MemoryKind.EPISODIC, f"{trigger_type} carries the figures of one run")
    if occasion and not general:
        return KindDecision(MemoryKind.EPISODIC, f"names an occasion ({occasion.group(0)})")
    if general:
        return KindDecision(MemoryKind.SEMANTIC, f"states what holds ({general.group(0)})")
    if result:
        return KindDecision(MemoryKind.EPISODIC, f"reports a result ({result.group(0)})")
    return KindDecision(MemoryKind.SEMANTIC, "no occasion or result named: read as general knowledge")
