"""Stage ①: is it worth keeping? Each trigger type has three criteria and all three
must hold (seed 000's VALUE_CRITERIA table). The offline checks read the caller's
structured data first and fall back to the text."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from governance.constants import TriggerType
from governance.funnel import signals as s
from governance.funnel.types import Candidate
from memories.constants import Source

T = TriggerType


@dataclass(frozen=True)
class Criterion:
    key: str
    zh: str
    en: str


VALUE_CRITERIA: dict[str, tuple[Criterion, Criterion, Criterion]] = {
    T.USER_FEEDBACK: (
        Criterion("clear_attitude", "态度明确", "the attitude is unambiguous"),
        Criterion("concrete_action", "有具体正确做法", "it names a concrete right way to act"),
        Criterion("from_user", "确实来自用户", "it really comes from the user"),
    ),
    T.STRATEGY_EXECUTION: (
        Criterion("causal_chain", "有因果链条", "there is a causal chain"),
        Criterion("target_vs_actual", "有量化目标/实际对比", "a quantified target-vs-actual comparison"),
        Criterion("conditions", "适用条件明确", "the conditions of validity are clear"),
    ),
    T.ENVIRONMENT_CHANGE: (
        Criterion("time_bound", "有时间边界", "it has a time boundary"),
        Criterion("objective", "来自客观观测", "it comes from an objective observation"),
        Criterion("affects_decisions", "影响后续决策", "it affects later decisions"),
    ),
    T.RULE_UPDATE: (
        Criterion("authoritative", "来自权威来源", "it comes from an authoritative source"),
        Criterion("scope_clear", "生效范围明确", "its scope is clear"),
        Criterion("hard_constraint", "是硬性约束", "it is a hard constraint"),
    ),
    T.ANOMALY_PATTERN: (
        Criterion("exceeds_threshold", "超出偏差阈值", "the deviation exceeds the threshold"),
        Criterion("possible_cause", "有可能原因", "a possible cause is named"),
        Criterion("not_one_off", "非一次性噪音", "it is not one-off noise"),
    ),
    T.PERFORMANCE_OPTIMIZATION: (
        Criterion("before_after", "有前后对比", "there is a before/after comparison"),
        Criterion("above_noise", "提升超出噪音范围", "the gain exceeds noise"),
        Criterion("single_variable", "变量单一可归因", "a single variable explains it"),
    ),
    T.CROSS_DOMAIN_CORRELATION: (
        Criterion("multi_domain", "跨越多个域", "it spans several domains"),
        Criterion("statistical_support", "有统计支撑", "it has statistical support"),
        Criterion("confounders_excluded", "排除混淆因素", "confounders are excluded"),
    ),
    T.PERIODIC_PATTERN: (
        Criterion("full_cycle", "跨越完整周期", "it spans a full cycle"),
        Criterion("repeated", "多周期重复出现", "it recurs over several cycles"),
        Criterion("actionable", "可转化为操作建议", "it can become an operating rule"),
    ),
}

# Relative change below this is treated as noise when no threshold is given.
NOISE_FRACTION = 0.05
ANOMALY_THRESHOLD = 0.20


def _get(c: Candidate, *keys: str) -> Any:
    for key in keys:
        for source in (c.data, c.fields):
            if key in source and source[key] not in (None, "", [], {}):
                return source[key]
    return None


def _num(value: Any) -> float | None:
    try:
        if isinstance(value, str):
            value = value.strip().rstrip("%％")
        return float(value)
    except (TypeError, ValueError):
        return None


def _relative_change(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or before == 0:
        return None
    return abs(after - before) / abs(before)


def _text(c: Candidate) -> str:
    return " ".join([c.content, *(str(v) for v in c.data.values() if isinstance(v, str))])


def _pct_values(text: str) -> list[float]:
    return [float(m.group(1)) / 100 for m in s.NUMBER.finditer(text) if m.group(2) in {"%", "％", "个百分点", "pp"}]


Check = Callable[[Candidate], tuple[bool, str]]


def _user_feedback(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    attitude = _get(c, "attitude", "preference", "correction")
    hedges = s.is_hedged(t)
    att_hits = s.hits(s.ATTITUDE, t) + s.hits(s.HARD_CONSTRAINT, t) + s.hits(s.CONFIRMATION, t)
    action = _get(c, "correct_action", "action", "expected")
    act_hits = s.hits(s.ACTION, t)
    from_user = c.source == Source.USER or bool(_get(c, "from_user")) or s.has(s.USER_VOICE, t) or s.has(s.CONFIRMATION, t)
    return {
        "clear_attitude": (bool(attitude or att_hits) and not hedges, f"attitude={attitude or att_hits[:2]} hedges={hedges[:2]}"),
        "concrete_action": (bool(action or act_hits), f"action={action or act_hits[:3]}"),
        "from_user": (from_user, f"source={c.source}"),
    }


def _strategy(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    cause = _get(c, "cause", "action", "change", "causal_chain")
    target, actual = _num(_get(c, "target", "target_roi", "goal")), _num(_get(c, "actual", "actual_roi", "result"))
    ta = (target is not None and actual is not None) or (s.has(s.TARGET_ACTUAL, t) and len(s.numbers(t)) >= 2)
    cond = _get(c, "conditions", "condition", "scope")
    return {
        "causal_chain": (bool(cause) or s.has(s.CAUSAL, t), f"cause={cause or s.hits(s.CAUSAL, t)[:2]}"),
        "target_vs_actual": (ta, f"target={target} actual={actual} numbers={s.numbers(t)[:4]}"),
        "conditions": (bool(cond) or s.has(s.CONDITION, t), f"conditions={cond or s.hits(s.CONDITION, t)[:2]}"),
    }


def _environment(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    bound = _get(c, "start", "end", "until", "valid_until", "period", "ttl_hours", "window")
    objective = c.source in {Source.TOOL, Source.SYSTEM, Source.HUMAN} or bool(_get(c, "observed_at", "metric", "metrics")) or s.has(s.OBSERVATION, t)
    impact = _get(c, "impact", "affects")
    return {
        "time_bound": (bool(bound) or s.has(s.TIME_BOUND, t), f"bound={bound or s.hits(s.TIME_BOUND, t)[:2]}"),
        "objective": (objective, f"source={c.source} observed={s.hits(s.OBSERVATION, t)[:1]}"),
        "affects_decisions": (bool(impact) or s.has(s.DECISION_IMPACT, t), f"impact={impact or s.hits(s.DECISION_IMPACT, t)[:2]}"),
    }


def _rule(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    authoritative = c.source in {Source.HUMAN, Source.SYSTEM} or bool(_get(c, "authority", "issued_by")) or s.has(s.AUTHORITY, t)
    scope = _get(c, "scope", "applies_to", "category")
    return {
        "authoritative": (authoritative, f"source={c.source} authority={s.hits(s.AUTHORITY, t)[:2]}"),
        "scope_clear": (bool(scope or c.advertiser or c.business_line) or s.has(s.SCOPE, t), f"scope={scope or c.advertiser or s.hits(s.SCOPE, t)[:2]}"),
        "hard_constraint": (bool(_get(c, "limit", "constraint", "max", "min")) or s.has(s.HARD_CONSTRAINT, t), f"constraint={s.hits(s.HARD_CONSTRAINT, t)[:2]}"),
    }


def _anomaly(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    deviation = _num(_get(c, "deviation", "change_pct", "delta"))
    threshold = _num(_get(c, "threshold")) or ANOMALY_THRESHOLD
    if deviation is not None and abs(deviation) > 1:
        deviation /= 100  # given as a percentage
    if threshold > 1:
        threshold /= 100
    if deviation is None:
        rel = _relative_change(_num(_get(c, "expected", "baseline", "before")), _num(_get(c, "actual", "observed", "after")))
        pcts = _pct_values(t)
        deviation = rel if rel is not None else (max(pcts) if pcts else None)
    exceeds = deviation is not None and abs(deviation) >= threshold
    occurrences = _num(_get(c, "occurrences", "days", "repeat_count")) or 0
    return {
        "exceeds_threshold": (exceeds, f"deviation={deviation} threshold={threshold}"),
        "possible_cause": (bool(_get(c, "cause", "possible_cause")) or s.has(s.CAUSAL, t) or s.has(s.HEDGE_EXEMPT, t), f"cause={s.hits(s.CAUSAL, t)[:2]}"),
        "not_one_off": (occurrences >= 2 or s.has(s.REPEATED, t), f"occurrences={occurrences} repeated={s.hits(s.REPEATED, t)[:1]}"),
    }


def _performance(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    before, after = _num(_get(c, "before", "baseline")), _num(_get(c, "after", "result"))
    rel = _relative_change(before, after)
    nums = s.numbers(t)
    has_pair = (before is not None and after is not None) or (s.has(s.TARGET_ACTUAL, t) and len(nums) >= 2)
    if rel is None:
        pcts = _pct_values(t)
        if pcts:
            rel = max(abs(p) for p in pcts)
        elif len(nums) >= 2 and s.has(s.TARGET_ACTUAL, t):
            rel = _relative_change(nums[0], nums[1])
    noise = _num(_get(c, "noise", "noise_level")) or NOISE_FRACTION
    if noise > 1:
        noise /= 100
    variable = _get(c, "variable", "changed_variable")
    single = bool(variable) or s.has(s.SINGLE_VARIABLE, t)
    return {
        "before_after": (has_pair, f"before={before} after={after} numbers={nums[:4]}"),
        "above_noise": (rel is not None and rel > noise, f"relative_change={None if rel is None else round(rel, 4)} noise={noise}"),
        "single_variable": (single, f"variable={variable or s.hits(s.SINGLE_VARIABLE, t)[:1]}"),
    }


def _cross_domain(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    domains = _get(c, "domains")
    found = sorted(set(h.lower() for h in s.hits(s.DOMAIN, t)))
    n_domains = len(domains) if isinstance(domains, list) else len(found)
    stat = _get(c, "correlation", "sample_size", "p_value")
    return {
        "multi_domain": (n_domains >= 2, f"domains={domains or found}"),
        "statistical_support": (bool(stat) or (s.has(s.CORRELATION, t) and bool(s.numbers(t))), f"stats={stat or s.hits(s.CORRELATION, t)[:2]}"),
        "confounders_excluded": (bool(_get(c, "confounders_excluded", "controls")) or s.has(s.CONFOUNDER, t), f"controls={s.hits(s.CONFOUNDER, t)[:1]}"),
    }


def _periodic(c: Candidate) -> dict[str, tuple[bool, str]]:
    t = _text(c)
    period = _get(c, "period", "cycle")
    cycles = _num(_get(c, "cycles", "observed_cycles")) or s.cycle_count(t)
    return {
        "full_cycle": (bool(period) or s.has(s.PERIOD, t), f"period={period or s.hits(s.PERIOD, t)[:2]}"),
        "repeated": (cycles >= 2, f"cycles={cycles}"),
        "actionable": (bool(_get(c, "action", "recommendation")) or s.has(s.ACTION, t), f"action={s.hits(s.ACTION, t)[:2]}"),
    }


_CHECKS: dict[str, Callable[[Candidate], dict[str, tuple[bool, str]]]] = {
    T.USER_FEEDBACK: _user_feedback,
    T.STRATEGY_EXECUTION: _strategy,
    T.ENVIRONMENT_CHANGE: _environment,
    T.RULE_UPDATE: _rule,
    T.ANOMALY_PATTERN: _anomaly,
    T.PERFORMANCE_OPTIMIZATION: _performance,
    T.CROSS_DOMAIN_CORRELATION: _cross_domain,
    T.PERIODIC_PATTERN: _periodic,
}


def offline_value_checks(candidate: Candidate) -> dict[str, tuple[bool, str]]:
    return _CHECKS[candidate.trigger_type](candidate)
