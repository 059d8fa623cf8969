"""Stage ①: is it worth keeping? Each trigger type has three criteria and all three
must hold (the spec's VALUE_CRITERIA table). The offline checks read the trigger's
typed data first (governance.funnel.trigger_schemas) and fall back to the text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from governance.constants import TriggerType
from governance.funnel.trigger_schemas import ParsedData, parse_trigger_data
from memories.constants import Source
from textrules import signals as s
from textrules.claims import UNSETTLED, Claim, Stance, extract_claim


class Proposal(Protocol):
    """What the checks read of a candidate memory (the funnel's Candidate has these)."""

    content: str
    trigger_type: str
    source: str
    advertiser: str | None
    business_line: str
    data: dict[str, Any]


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
# Fewer observations than this cannot separate a gain or a correlation from chance.
MIN_SAMPLE = 30
MIN_CORRELATION = 0.3

# "用三阶段出价策略…做到3.4": applying a named strategy is the cause of the result.
STRATEGY_APPLIED = s._rx(
    r"(?:用|采用|通过|借助|使用|执行|实施|改用|上线)\S{0,15}(?:策略|方案|打法|出价|素材|定向|人群|计划)",
    r"\b(?:by|after) (?:using|switching|raising|lowering|adding|moving)\b",
    r"\busing\b.{0,40}\b(?:strategy|bid|creative|audience)\b",
)
USER_SPEAKERS = s._rx(
    r"用户",
    r"客户",
    r"广告主",
    r"品牌方",
    r"投放负责人",
    r"运营",
    r"\buser\b",
    r"\bclient\b",
    r"\badvertiser\b",
    r"\bbrand_\w+",
    r"\bcustomer\b",
)
MACHINE_SPEAKERS = s._rx(r"助手", r"智能体", r"\bAI\b", r"\bassistant\b", r"\bagent\b", r"\bbot\b", r"\bmodel\b")


def _relative_change(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or before == 0:
        return None
    return abs(after - before) / abs(before)


def _fraction(value: float | None) -> float | None:
    """45 and 0.45 both mean 45%."""
    if value is None:
        return None
    return value / 100 if abs(value) > 1 else value


def _text(c: Proposal) -> str:
    return " ".join([c.content, *(str(v) for v in c.data.values() if isinstance(v, str))])


def _pct_values(text: str) -> list[float]:
    return [float(m.group(1)) / 100 for m in s.NUMBER.finditer(s.without_time_ranges(text)) if m.group(2) in {"%", "％", "个百分点", "pp"}]


def _shared_metric(a: dict[str, float] | None, b: dict[str, float] | None) -> str | None:
    if not a or not b:
        return None
    common = [k for k in a if k in b]
    if common:
        return common[0]
    if len(a) == 1 and len(b) == 1 and "value" in {*a, *b}:
        return next(iter(b if "value" in a else a))  # a bare number compared with a named one
    return None


Checks = dict[str, tuple[bool, str]]

# A window of several days or weeks: "近3天", "over the past 2 weeks", "3 days in a row".
SUSTAINED = s._rx(
    r"(?:连续|近|过去|最近)\s*(?:[2-9]|\d{2,}|[两三四五六七八九十])\s*(?:天|日|周|个?星期|个月)",
    r"\b(?:past|last|over) (?:[2-9]|\d{2,}|two|three|four|five|six|seven) (?:days|weeks|months)\b",
    r"\b(?:[2-9]|\d{2,}|two|three|four|five) (?:days|weeks) (?:in a row|running|straight)\b",
)
# Where a cost or traffic change shows up: a promotion or a cold start that moves these
# changes later bids and budgets whether or not the event says so.
COST_OR_TRAFFIC = frozenset({"cpc", "cpm", "cpa", "spend", "traffic", "conversions", "ctr", "cvr", "roi"})


def _claim_of(c: Proposal) -> Claim:
    return extract_claim(_text(c), advertiser=c.advertiser, data=c.data)


def _states_a_way_to_act(claim: Claim) -> bool:
    """A lever with something to do to it: a value, a direction, a switch, a 'no', a
    judgement, a restriction, or the days, slots or audiences it applies to."""
    if not claim.levers:
        return False
    sub = claim.subject
    # Naming a lever is not yet a way to act ("需调整出价"): it needs what to do with it.
    return bool(
        claim.quantities
        or claim.direction
        or claim.switch
        or claim.polarity < 0
        or claim.assessments
        or "限定" in claim.conditions
        or sub.weekdays
        or sub.time_slots
        or sub.dayparts
        or sub.audiences
    )


def _filled(value: object) -> bool:
    """A data field that says something: "no", "否", "0", "false" and blanks say nothing."""
    return value is not None and str(value).strip().lower() not in {"", "false", "no", "none", "否", "无", "0"}


def _user_feedback(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    stance, right_way, said_by = d.get("stance"), d.get("right_way"), d.get("said_by")
    hedges = s.is_hedged(t)
    att_hits = s.hits(s.ATTITUDE, t) + s.hits(s.HARD_CONSTRAINT, t) + s.hits(s.CONFIRMATION, t) + s.hits(s.CORRECTION, t)
    act_hits = s.hits(s.ACTION, t)
    if said_by:
        from_user = s.has(USER_SPEAKERS, said_by) and not s.has(MACHINE_SPEAKERS, said_by)
        who = f"said_by={said_by}"
    else:
        from_user = c.source == Source.USER or s.has(s.USER_VOICE, t) or s.has(s.CONFIRMATION, t)
        who = f"source={c.source} voice={s.hits(s.USER_VOICE, t)[:1]}"
    claim = _claim_of(c)
    # An order or a correction is an attitude in any wording; so is a plain statement of what to do.
    settled = claim.stance not in UNSETTLED and claim.stance != Stance.SUGGESTION
    way = _states_a_way_to_act(claim) or (settled and (s.directs(t) or s.has(s.AIMS_AT, t)))
    # A figure corrected ("这个数不对…实际是9%") says what to go by, though no lever is pulled.
    action = bool(right_way or act_hits) or way or (s.has(s.FIGURE_DISPUTED, t) and bool(claim.quantities))
    # A position taken without a cue word is an attitude too (Claim.takes_a_position).
    attitude = bool(stance or att_hits) or (settled and way) or claim.takes_a_position()
    return {
        "clear_attitude": (attitude and not hedges, f"stance={stance or att_hits[:2] or claim.stance} hedges={hedges[:2]}"),
        "concrete_action": (action, f"right_way={right_way or act_hits[:3] or sorted(claim.levers)}"),
        "from_user": (from_user, who),
    }


def _strategy(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    strategy, cause = d.get("strategy_used"), d.get("cause")
    target, actual = d.get("target_metric"), d.get("actual_metric")
    metric = _shared_metric(target, actual)
    causal = bool(cause) or (bool(strategy) and bool(actual)) or s.has(s.CAUSAL, t) or s.has(STRATEGY_APPLIED, t)
    if target or actual:
        ta = metric is not None
        ta_ev = f"target_metric={target} actual_metric={actual} compared={metric}"
    else:
        ta = s.has(s.TARGET_ACTUAL, t) and len(s.numbers(t)) >= 2
        ta_ev = f"text numbers={s.numbers(t)[:4]} cue={s.hits(s.TARGET_ACTUAL, t)[:1]}"
    scope = d.get("conditions") or d.get("category") or d.get("business_line")
    text_scope = s.hits(s.CONDITION, t) + s.hits(s.DOMAIN, t)
    return {
        "causal_chain": (causal, f"strategy_used={strategy} cause={cause or (s.hits(s.CAUSAL, t) + s.hits(STRATEGY_APPLIED, t))[:2]}"),
        "target_vs_actual": (ta, ta_ev),
        "conditions": (bool(scope or text_scope), f"conditions={scope or text_scope[:2]}"),
    }


def _environment(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    claim = _claim_of(c)
    # A named promotion (双11, Black Friday) is a window of its own.
    bound = d.get("time_window") or d.get("start") or d.get("end") or d.get("ttl_hours") or sorted(claim.subject.events)
    observed = d.get("observed_at") or d.get("signal")
    objective = bool(observed) or c.source in {Source.TOOL, Source.SYSTEM, Source.HUMAN} or s.has(s.OBSERVATION, t)
    impact = d.get("impact")
    moved = {m for m, _ in claim.trends} | {q.role.split("/")[0] for q in claim.quantities}
    # A promotion or a cold start with a cost or traffic change affects later decisions, said or not.
    # The event field names it in any vertical (考研报名, 车展, 装修季), where the words may not.
    signal = _filled(d.get("event")) or bool(claim.subject.events) or "冷启动期" in claim.conditions or "大促期间" in claim.conditions
    affects = bool(impact) or s.has(s.DECISION_IMPACT, t) or (signal and bool(moved & COST_OR_TRAFFIC))
    return {
        "time_bound": (bool(bound) or s.has(s.TIME_BOUND, t), f"time_window={bound or s.hits(s.TIME_BOUND, t)[:2]}"),
        "objective": (objective, f"observed={observed or s.hits(s.OBSERVATION, t)[:1]} source={c.source}"),
        "affects_decisions": (affects, f"impact={impact or s.hits(s.DECISION_IMPACT, t)[:2] or sorted(moved & COST_OR_TRAFFIC)}"),
    }


def _rule(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    authority = d.get("authority")
    authoritative = bool(authority) or c.source in {Source.HUMAN, Source.SYSTEM} or s.has(s.AUTHORITY, t)
    scope = d.get("scope") or d.get("category") or d.get("business_line") or c.advertiser or c.business_line
    constraint = d.get("hard_constraint")
    # Lifting or granting is a rule too ("可以写…需附检测报告", "不再强制标注", "may upload"): a
    # changed rule must reach the conflict stage, where an L1 change goes to an operator.
    hard = _filled(constraint) or s.directs(t)
    return {
        "authoritative": (authoritative, f"authority={authority or s.hits(s.AUTHORITY, t)[:2]} source={c.source}"),
        "scope_clear": (
            bool(scope) or s.has(s.SCOPE, t) or s.has(s.DOMAIN, t),
            f"scope={scope or (s.hits(s.SCOPE, t) + s.hits(s.DOMAIN, t))[:2]}",
        ),
        "hard_constraint": (hard, f"hard_constraint={constraint or s.direction_words(t)[:2]}"),
    }


def _anomaly(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    deviation = _fraction(d.get("deviation"))
    threshold = _fraction(d.get("threshold")) or ANOMALY_THRESHOLD
    source = "deviation"
    if deviation is None:
        deviation, source = _relative_change(d.get("expected"), d.get("actual")), "expected/actual"
    if deviation is None:
        pcts = _pct_values(t)
        deviation, source = (max(abs(p) for p in pcts) if pcts else None), "text"
    exceeds = deviation is not None and abs(deviation) >= threshold
    recurrence = d.get("recurrence")
    # A deviation held over a window of days is sustained, not noise.
    not_one_off = (recurrence >= 2) if recurrence is not None else (s.has(s.REPEATED, t) or s.has(SUSTAINED, t))
    cause = d.get("possible_cause")
    return {
        "exceeds_threshold": (exceeds, f"deviation={None if deviation is None else round(deviation, 4)} ({source}) threshold={threshold}"),
        "possible_cause": (
            bool(cause) or s.has(s.CAUSAL, t) or s.has(s.HEDGE_EXEMPT, t),
            f"possible_cause={cause or s.hits(s.CAUSAL, t)[:2]}",
        ),
        "not_one_off": (not_one_off, f"recurrence={recurrence} repeated={s.hits(s.REPEATED, t)[:1]}"),
    }


def _performance(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    before, after = d.get("before"), d.get("after")
    metric = _shared_metric(before, after)
    nums = s.numbers(t)
    if before or after:
        has_pair = metric is not None
        rel = (
            _relative_change(
                next(iter(before.values())) if metric not in before else before[metric],
                next(iter(after.values())) if metric not in after else after[metric],
            )
            if metric
            else None
        )
    else:
        pair = s.from_to(t)
        has_pair = pair is not None or (s.has(s.TARGET_ACTUAL, t) and len(nums) >= 2)
        pcts = _pct_values(t)
        if pair is not None:
            rel = _relative_change(*pair)
        else:
            rel = max(abs(p) for p in pcts) if pcts else (_relative_change(nums[0], nums[1]) if has_pair else None)
    noise = _fraction(d.get("noise")) or NOISE_FRACTION
    sample = d.get("sample_size")
    above = rel is not None and rel > noise and (sample is None or sample >= MIN_SAMPLE)
    variables = d.get("changed_variables")
    if variables:
        single, var_ev = len(variables) == 1, f"changed_variables={variables}"
    else:
        single, var_ev = s.has(s.SINGLE_VARIABLE, t), f"text={s.hits(s.SINGLE_VARIABLE, t)[:1]}"
    return {
        "before_after": (has_pair, f"before={before} after={after} compared={metric} numbers={nums[:4]}"),
        "above_noise": (above, f"relative_change={None if rel is None else round(rel, 4)} noise={noise} sample_size={sample}"),
        "single_variable": (single, var_ev),
    }


def _cross_domain(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    domains = d.get("domains")
    found = sorted(set(h.lower() for h in s.hits(s.DOMAIN, t)))
    n_domains = len(set(domains)) if domains else len(found)
    r, n, p = d.get("correlation"), d.get("sample_size"), d.get("p_value")
    if r is not None or n is not None or p is not None:
        weak = (r is not None and abs(r) < MIN_CORRELATION) or (n is not None and n < MIN_SAMPLE) or (p is not None and p >= 0.05)
        stat, stat_ev = not weak, f"correlation={r} sample_size={n} p_value={p}"
    else:
        stat, stat_ev = s.has(s.CORRELATION, t) and bool(s.numbers(t)), f"text={s.hits(s.CORRELATION, t)[:2]}"
    confounders = d.get("confounders")
    controlled = confounders if confounders is not None else s.has(s.CONFOUNDER, t)
    return {
        "multi_domain": (n_domains >= 2, f"domains={domains or found}"),
        "statistical_support": (stat, stat_ev),
        "confounders_excluded": (
            bool(controlled),
            f"confounders={confounders if confounders is not None else s.hits(s.CONFOUNDER, t)[:1]}",
        ),
    }


def _periodic(c: Proposal, d: ParsedData) -> Checks:
    t = _text(c)
    period = d.get("period")
    cycles = d.get("cycles_observed")
    if cycles is None:
        cycles = s.cycle_count(t)
    action = d.get("suggested_action")
    return {
        "full_cycle": (bool(period) or s.has(s.PERIOD, t), f"period={period or s.hits(s.PERIOD, t)[:2]}"),
        "repeated": (cycles >= 2, f"cycles_observed={cycles}"),
        "actionable": (bool(action) or s.has(s.ACTION, t), f"suggested_action={action or s.hits(s.ACTION, t)[:2]}"),
    }


_CHECKS: dict[str, Callable[[Proposal, ParsedData], Checks]] = {
    T.USER_FEEDBACK: _user_feedback,
    T.STRATEGY_EXECUTION: _strategy,
    T.ENVIRONMENT_CHANGE: _environment,
    T.RULE_UPDATE: _rule,
    T.ANOMALY_PATTERN: _anomaly,
    T.PERFORMANCE_OPTIMIZATION: _performance,
    T.CROSS_DOMAIN_CORRELATION: _cross_domain,
    T.PERIODIC_PATTERN: _periodic,
}


def offline_value_checks(candidate: Proposal) -> Checks:
    return _CHECKS[candidate.trigger_type](candidate, parse_trigger_data(candidate.trigger_type, candidate.data))


def data_trace(candidate: Proposal) -> dict[str, Any]:
    """The typed fields the checks read, and the keys they did not use."""
    return parse_trigger_data(candidate.trigger_type, candidate.data).trace()
