"""The structured data each trigger type carries, as typed models.

Field names follow the spec's examples and manual (`plan_id`, `target_metric`,
`actual_metric`, `duration_days` …). Common synonyms are accepted (`target` for
`target_metric`, `cause` for `possible_cause` …), and `target_<metric>` /
`actual_<metric>` keys fold into the metric objects. Keys no model knows are kept, not
dropped, and listed so a trace can show what was ignored. A value of the wrong shape
never fails an event: it is set aside as `invalid` and the text is read instead.

The same models drive the value criteria, `memory trigger --help`, the table in docs/write-path.md and
the OpenAPI examples, so the documented fields are the fields the funnel reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from governance.constants import TriggerType

T = TriggerType


def to_number(value: Any) -> float | None:
    """3.4, "3.4", "20%", "2.8元" → float; anything else → None (the text is read instead)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)\s*(?:%|％|元|倍|pp|个百分点|天|日|次|周|个)?\s*", value)
        return float(match.group(1)) if match else None
    raise ValueError("not a number")


def _strict_number(value: Any) -> float | None:
    number = to_number(value)
    if number is None and value not in (None, ""):
        raise ValueError("not a number")
    return number


def to_metrics(value: Any) -> dict[str, float] | None:
    """{"roi": 3.0} stays; a bare 3.0 becomes {"value": 3.0}; non-numeric entries are dropped."""
    if value is None:
        return None
    if isinstance(value, dict):
        out = {str(k).lower(): n for k, v in value.items() if (n := to_number(v)) is not None}
        return out or None
    number = to_number(value)
    if number is None:
        raise ValueError("a metric is a number or an object of numbers")
    return {"value": number}


def to_text_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        parts = [p.strip() for p in re.split(r"[,，、;；/]|\band\b|和|与", value) if p.strip()]
        return parts or None
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()] or None
    raise ValueError("a list of names")


def to_flag(value: Any) -> bool | None:
    """true/false, 是/否, yes/no; a non-empty list or text ("已排除大促") counts as yes."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in {"", "false", "no", "none", "否", "无", "没有", "未排除"}:
            return False
        return True
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    raise ValueError("a yes/no value")


Number = Annotated[float | None, BeforeValidator(_strict_number)]
Metrics = Annotated[dict[str, float] | None, BeforeValidator(to_metrics)]
Names = Annotated[list[str] | None, BeforeValidator(to_text_list)]
Flag = Annotated[bool | None, BeforeValidator(to_flag)]
Text = Annotated[str | None, BeforeValidator(lambda v: None if v is None else (v if isinstance(v, str) else str(v)))]


def _f(zh: str, en: str, *aliases: str, example: Any = None) -> Any:
    names = AliasChoices(*aliases) if aliases else None
    extra = {"zh": zh, "example": example}
    if names is None:
        return Field(None, description=en, json_schema_extra=extra)
    return Field(None, description=en, validation_alias=names, json_schema_extra=extra)


class TriggerData(BaseModel):
    """Fields every trigger type may carry."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    category: Text = _f("品类/类目", "category the memory is about, e.g. 医药OTC", "category", "品类", "类目")
    business_line: Text = _f("业务线", "business line, e.g. medical", "business_line", "line", "业务线")
    conditions: Text = _f("适用条件", "when it holds (phase, audience, channel…)", "conditions", "condition", "applies_when", "适用条件")

    @model_validator(mode="before")
    @classmethod
    def _join_condition_lists(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in ("conditions", "condition", "applies_when", "适用条件"):
                if isinstance(data.get(key), (list, dict)):
                    value = data[key]
                    data = {
                        **data,
                        key: "；".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else "；".join(map(str, value)),
                    }
        return data


class StrategyExecutionData(TriggerData):
    plan_id: Text = _f("计划ID", "the plan or campaign that ran", "plan_id", "plan", "campaign_id", example="plan_001")
    strategy_used: Text = _f(
        "所用策略", "the strategy that was applied", "strategy_used", "strategy", "action", "change", example="三阶段冷启动"
    )
    target_metric: Metrics = _f(
        "目标指标", 'targets, e.g. {"roi": 3.0}', "target_metric", "target_metrics", "target", "goal", example={"roi": 3.0}
    )
    actual_metric: Metrics = _f(
        "实际指标", 'results, e.g. {"roi": 3.4}', "actual_metric", "actual_metrics", "actual", "result", example={"roi": 3.4, "cpc": 2.8}
    )
    duration_days: Number = _f("持续天数", "how long it ran", "duration_days", "duration", "days", example=21)
    cause: Text = _f("因果说明", "why the result followed from the strategy", "cause", "causal_chain", "because", "reason")

    @model_validator(mode="before")
    @classmethod
    def _fold_metric_keys(cls, data: Any) -> Any:
        # target_roi / actual_roi style keys are the same comparison, one metric at a time.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for prefix, into in (("target", "target_metric"), ("goal", "target_metric"), ("actual", "actual_metric")):
            for key in [
                k
                for k in data
                if isinstance(k, str)
                and k.startswith(prefix + "_")
                and k not in {"target_metric", "actual_metric", "target_metrics", "actual_metrics"}
            ]:
                number = to_number(data[key])
                if number is not None and not isinstance(data.get(into), (int, float, str)):
                    data[into] = {**(data.get(into) or {}), key[len(prefix) + 1 :].lower(): number}
                    del data[key]
        return data


class EnvironmentChangeData(TriggerData):
    event: Text = _f(
        "事件",
        "what changed outside (promotion, cold start, platform change)",
        "event",
        "event_name",
        "activity",
        "promotion",
        example="618大促",
    )
    time_window: Text = _f("时间窗口", "when it applies", "time_window", "window", "period", example="2026-06-01 至 2026-06-18")
    start: Text = _f("开始时间", "start of the window", "start", "start_at", "valid_from", "from")
    end: Text = _f("结束时间", "end of the window", "end", "end_at", "until", "valid_until", "to")
    ttl_hours: Number = _f("有效小时数", "how long the fact stays true", "ttl_hours", "ttl")
    # No example value: a copied fixed date would soon be older than the L3 TTL.
    observed_at: Text = _f(
        "观测时间", "when it was observed (ISO-8601; default: when the event arrives)", "observed_at", "observed", "timestamp"
    )
    signal: Text = _f("观测信号", "the measured signal", "signal", "metric", "observation", "metrics", example="美妆类目CPM上涨35%")
    impact: Text = _f(
        "对决策的影响",
        "what later decisions it changes",
        "impact",
        "affects",
        "decision_impact",
        "suggested_action",
        example="出价上调10%，预算前置",
    )


class AnomalyPatternData(TriggerData):
    metric: Text = _f("指标", "the metric that deviated", "metric", "kpi", example="ROI")
    expected: Number = _f("预期值", "expected value or baseline", "expected", "baseline", "before", "expected_value", example=2.5)
    actual: Number = _f(
        "实际值", "observed value", "actual", "observed", "after", "actual_value", "observed_min", "observed_max", "current", example=1.2
    )
    deviation: Number = _f("偏差", "relative deviation (0.52 or 52)", "deviation", "deviation_pct", "change_pct", "delta", example=-0.52)
    threshold: Number = _f("偏差阈值", "deviation that counts as an anomaly (default 20%)", "threshold", "threshold_pct", example=0.2)
    window: Text = _f("观测窗口", "over which period", "window", "time_window", "period", example="近3天")
    possible_cause: Text = _f(
        "可能原因",
        "a hypothesised cause",
        "possible_cause",
        "cause",
        "reason",
        "suspected_cause",
        "likely_cause",
        "probable_cause",
        "root_cause",
        example="竞品抢量",
    )
    recurrence: Number = _f(
        "复现次数", "how many times or days it happened", "recurrence", "occurrences", "repeat_count", "consecutive_days", "days", example=3
    )


class PerformanceOptimizationData(TriggerData):
    changed_variables: Names = _f(
        "调整变量",
        "what was changed (one variable for a clean attribution)",
        "changed_variables",
        "changed_variable",
        "variable",
        "variables",
        "change",
        example=["出价时段"],
    )
    metric: Text = _f("指标", "the metric compared", "metric", "kpi", example="CTR")
    before: Metrics = _f("调整前", "value before the change", "before", "baseline", "before_metric", example={"ctr": 0.020})
    after: Metrics = _f("调整后", "value after the change", "after", "after_metric", "result", example={"ctr": 0.026})
    duration_days: Number = _f("观测天数", "how long it was measured", "duration_days", "duration", "days", example=14)
    sample_size: Number = _f(
        "样本量", "impressions, clicks or units measured", "sample_size", "samples", "n", "impressions", example=120000
    )
    noise: Number = _f("噪音范围", "relative change that is still noise (default 5%)", "noise", "noise_level")


class CrossDomainCorrelationData(TriggerData):
    domains: Names = _f(
        "涉及的域", "the categories or channels linked", "domains", "domain", "categories", "channels", example=["美妆", "母婴"]
    )
    relation: Text = _f(
        "关联关系", "how they move together", "relation", "pattern", "correlation_type", example="美妆ROI上升时母婴ROI同步上升"
    )
    correlation: Number = _f("相关系数", "correlation coefficient", "correlation", "r", "coefficient", example=0.82)
    sample_size: Number = _f("样本量", "observations behind it", "sample_size", "samples", "n", example=120)
    p_value: Number = _f("p值", "significance", "p_value", "p")
    confounders: Flag = _f(
        "已排除的混淆因素",
        "confounders excluded (a list or yes/no)",
        "confounders",
        "confounders_excluded",
        "controls",
        "controlled_for",
        example=["大促"],
    )


class PeriodicPatternData(TriggerData):
    period: Text = _f("周期", "the cycle (weekly, daily, 周五晚高峰…)", "period", "cycle", "cadence", example="每周五 20:00-23:00")
    cycles_observed: Number = _f(
        "已观测周期数", "how many cycles it held over", "cycles_observed", "cycles", "observed_cycles", "weeks_observed", example=6
    )
    pattern: Text = _f("规律", "what recurs", "pattern", "observation", example="CTR高于周均30%")
    suggested_action: Text = _f(
        "操作建议", "the operating rule it turns into", "suggested_action", "action", "recommendation", example="周五晚高峰出价上调10%"
    )


class RuleUpdateData(TriggerData):
    authority: Text = _f(
        "权威来源", "who issued it (platform, legal, finance)", "authority", "issued_by", "issuer", "source_authority", example="平台规则"
    )
    scope: Text = _f("生效范围", "what it applies to", "scope", "applies_to", "生效范围", example="医药OTC全部账户")
    effective_from: Text = _f("生效时间", "from when", "effective_from", "effective_date", "effective_at", example="2026-07-01")
    hard_constraint: Text = _f(
        "硬性约束",
        "the limit itself (or true when the summary states it)",
        "hard_constraint",
        "constraint",
        "limit",
        "max",
        "min",
        "rule",
        example="日预算不得超过5000元",
    )


class UserFeedbackData(TriggerData):
    stance: Text = _f(
        "态度",
        "the user's position (要求/禁止/偏好/纠正)",
        "stance",
        "attitude",
        "preference",
        "correction",
        "sentiment",
        example="明确要求",
    )
    right_way: Text = _f(
        "正确做法",
        "the concrete right way to act",
        "right_way",
        "correct_action",
        "action",
        "expected",
        "instruction",
        example="口红类目也投放男性人群",
    )
    said_by: Text = _f(
        "提出者", "who said it (user, client, advertiser)", "said_by", "speaker", "author", "who", "from", example="brand_B 投放负责人"
    )


SCHEMAS: dict[str, type[TriggerData]] = {
    T.USER_FEEDBACK: UserFeedbackData,
    T.STRATEGY_EXECUTION: StrategyExecutionData,
    T.ENVIRONMENT_CHANGE: EnvironmentChangeData,
    T.RULE_UPDATE: RuleUpdateData,
    T.ANOMALY_PATTERN: AnomalyPatternData,
    T.PERFORMANCE_OPTIMIZATION: PerformanceOptimizationData,
    T.CROSS_DOMAIN_CORRELATION: CrossDomainCorrelationData,
    T.PERIODIC_PATTERN: PeriodicPatternData,
}


@dataclass
class ParsedData:
    """A trigger's data read through its schema: known fields, and what was not used."""

    values: TriggerData
    unknown: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)

    def get(self, name: str) -> Any:
        value = getattr(self.values, name, None)
        return None if value in ("", [], {}) else value

    def trace(self) -> dict[str, Any]:
        known = {k: v for k, v in self.values.model_dump(exclude_none=True).items() if k in type(self.values).model_fields}
        return {"fields": known, "unknown_keys": self.unknown, "invalid_keys": self.invalid}


def parse_trigger_data(trigger_type: str, data: dict[str, Any] | None) -> ParsedData:
    schema = SCHEMAS.get(trigger_type, TriggerData)
    raw = {str(k): v for k, v in (data or {}).items() if v is not None}
    invalid: list[str] = []
    for _ in range(len(raw) + 1):
        try:
            values = schema.model_validate(raw)
            break
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors() if err.get("loc")}
            bad &= set(raw)
            if not bad:
                values = schema()
                break
            invalid.extend(sorted(bad))
            raw = {k: v for k, v in raw.items() if k not in bad}
    else:  # pragma: no cover - each round removes at least one key
        values = schema()
    unknown = sorted(set((values.model_extra or {}).keys()) - set(invalid))
    return ParsedData(values=values, unknown=unknown, invalid=invalid)


def field_rows(trigger_type: str) -> list[dict[str, Any]]:
    """[{name, zh, en, aliases, example}] in declaration order: for help texts and docs."""
    rows = []
    for name, info in SCHEMAS[trigger_type].model_fields.items():
        alias = info.validation_alias
        aliases = [a for a in getattr(alias, "choices", []) if a != name] if alias else []
        extra = info.json_schema_extra or {}
        rows.append(
            {"name": name, "zh": extra.get("zh", ""), "en": info.description or "", "aliases": aliases, "example": extra.get("example")}
        )
    return rows


def example_data(trigger_type: str) -> dict[str, Any]:
    """A complete example payload built from the fields' examples."""
    return {r["name"]: r["example"] for r in field_rows(trigger_type) if r["example"] is not None}


def help_text() -> str:
    """Plain-text field list for `memory trigger --help`."""
    lines = ["data fields per event type (synonyms in brackets; unknown keys are kept and listed in the trace):"]
    for trigger_type in SCHEMAS:
        names = [
            r["name"] + (f" [{', '.join(r['aliases'][:2])}]" if r["aliases"] else "")
            for r in field_rows(trigger_type)
            if r["name"] not in TriggerData.model_fields
        ]
        lines.append(f"  {trigger_type}: " + ", ".join(names))
    lines.append("  every type: category, business_line, conditions")
    return "\n".join(lines)


def markdown_table() -> str:
    """The table of data fields in docs/write-path.md."""
    lines = ["| event type | fields (synonyms accepted) |", "|---|---|"]
    for trigger_type in SCHEMAS:
        cells = []
        for r in field_rows(trigger_type):
            if r["name"] in TriggerData.model_fields:
                continue
            syn = f" ({', '.join(r['aliases'][:3])})" if r["aliases"] else ""
            cells.append(f"`{r['name']}`{syn}: {r['zh']}")
        lines.append(f"| `{trigger_type}` | " + "; ".join(cells) + " |")
    lines.append("| every type | `category`: 品类; `business_line`: 业务线; `conditions` (condition): 适用条件 |")
    return "\n".join(lines)


# One complete, sensible event per type: the OpenAPI examples and the docs use these. Each
# is brand_A's, from a source an agent's token may claim, so the token the startup banner
# creates can send every one from /api/v1/docs (the rule update names no advertiser, so
# that token files it under brand_A; reported by a tool, it waits for an operator).
EXAMPLE_EVENTS: dict[str, dict[str, Any]] = {
    T.USER_FEEDBACK: {"advertiser": "brand_A", "source": "user", "summary": "brand_A 明确要求：口红类目也投放男性人群"},
    T.STRATEGY_EXECUTION: {
        "advertiser": "brand_A",
        "source": "tool",
        "summary": "医药OTC冷启动计划完成三周投放",
        "data": {"category": "医药OTC", "business_line": "medical"},
    },
    T.ENVIRONMENT_CHANGE: {"advertiser": "brand_A", "source": "tool", "summary": "618大促期间美妆类目CPM上涨35%，需提前上调出价"},
    T.RULE_UPDATE: {"advertiser": None, "source": "tool", "summary": "平台规则：自2026年7月1日起，医药OTC全部账户日预算不得超过5000元"},
    T.ANOMALY_PATTERN: {"advertiser": "brand_A", "source": "tool", "summary": "brand_A 搜索广告ROI连续3天低于预期52%，可能原因是竞品抢量"},
    T.PERFORMANCE_OPTIMIZATION: {"advertiser": "brand_A", "source": "tool", "summary": "仅调整出价时段后，brand_A CTR从2.0%提升到2.6%"},
    T.CROSS_DOMAIN_CORRELATION: {
        "advertiser": "brand_A",
        "source": "tool",
        "summary": "brand_A 美妆与母婴类目ROI联动，相关系数0.82，样本120个，已排除大促影响",
    },
    T.PERIODIC_PATTERN: {
        "advertiser": "brand_A",
        "source": "tool",
        "summary": "过去6周每周五20:00-23:00 CTR高于周均30%，周五晚高峰出价上调10%",
    },
}


def example_event(trigger_type: str) -> dict[str, Any]:
    """A trigger request body: {event_type, advertiser, summary, data, source}."""
    base = EXAMPLE_EVENTS[trigger_type]
    return {
        "event_type": str(trigger_type),
        "advertiser": base["advertiser"],
        "summary": base["summary"],
        "data": {**example_data(trigger_type), **base.get("data", {})},
        "source": base["source"],
    }


def openapi_examples() -> dict[str, dict[str, Any]]:
    return {str(t): {"summary": str(t), "value": example_event(t)} for t in SCHEMAS}
