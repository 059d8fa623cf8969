"""The deterministic judge: patterns and structured-field checks, no network. Selected
explicitly (MEMORY_LLM_PROVIDER=offline) and named as such in every trace."""

from __future__ import annotations

import time
from typing import Any

from judges.base import JudgeProvider, JudgeRequest, ProviderAnswer, Telemetry
from judges.prompts import PROMPT_VERSIONS
from judges.schemas import ClassifyOut, CriterionOut, JudgeOut, ValueOut
from textrules import signals as s
from textrules.claims import Stance, extract_claim
from textrules.reasons import Reason, ReasonCode

ENVIRONMENT = s._rx(
    r"大促",
    r"冷启动",
    r"活动",
    r"上新",
    r"新品",
    r"节日",
    r"竞品",
    r"流量(?:波动|上涨|下滑)",
    r"平台(?:调整|上线|改版)",
    r"双11",
    r"双十一",
    r"618",
    r"\bpromotion\b",
    r"\bcold start\b",
    r"\bholiday\b",
    r"\bcompetitor",
    r"\blaunch",
    r"\bsale\b",
)
OPTIMISATION = s._rx(
    r"优化", r"调优", r"A/B", r"实验", r"测试", r"改版", r"\boptimi[sz]", r"\btuned?\b", r"\bexperiment", r"\btest(?:ed|ing)?\b"
)
STRATEGY = s._rx(r"策略", r"计划", r"方案", r"执行", r"复盘", r"\bplan\b", r"\bstrategy\b", r"\bcampaign\b", r"\bexecuted\b")
LINKAGE = s._rx(r"联动", r"带动", r"关联", r"相关", r"同步(?:上涨|下降|增长)", r"\bcorrelat", r"\bspill", r"\bhalo\b", r"\bdrives?\b")

_BASE_CONFIDENCE = {
    "human_config": 0.95,
    "rule_update": 0.95,
    "tool_observation": 0.85,
    "user_confirmed": 0.85,
    "user_stated": 0.75,
    "assistant_suggestion": 0.5,
    "agent_inference": 0.45,
    "unknown": 0.4,
}


def _score_types(text: str, source: str) -> dict[str, float]:
    h = lambda p: 1.0 if s.has(p, text) else 0.0  # noqa: E731
    nums = 1.0 if s.numbers(text) else 0.0
    domains = len(set(x.lower() for x in s.hits(s.DOMAIN, text)))
    claim = extract_claim(text) if source == "user" else None
    said = claim is not None and (s.has(s.ATTITUDE, text) or s.has(s.ACTION, text) or s.has(s.PREFERENCE, text) or claim.takes_a_position())
    # The user's own limit, order or figure ("双11日预算6万，其中快手占2万"), not a report of what
    # was spent or done ("双11期间日预算花了6万").
    own = (
        claim is not None
        and said
        and (s.directs(text) or claim.stance == Stance.ORDER or (claim.sets_a_figure and not s.has(s.REPORTED, text)))
    )
    return {
        "rule_update": 1.2 * h(s.AUTHORITY) + 0.8 * h(s.HARD_CONSTRAINT) + (0.6 if source in {"human", "system"} else 0) + 0.2 * h(s.SCOPE),
        "user_feedback": 1.2 * h(s.USER_VOICE)
        + 1.5 * h(s.CONFIRMATION)
        + (1.2 if said else 0)
        # A user's own limit or order outweighs the events it mentions ("双11预热期只在晚8点后开付费流量").
        + (0.6 if own else 0)
        + 0.3 * h(s.ACTION) * max(h(s.USER_VOICE), h(s.CONFIRMATION))
        + (0.9 * h(s.SUGGESTION) if source in {"assistant", "agent"} else 0)
        + 0.6 * h(s.CORRECTION)
        + 0.6 * h(s.PREFERENCE)
        + 0.3 * h(s.ATTITUDE),
        "strategy_execution": 0.8 * h(STRATEGY)
        + 0.6 * h(s.CAUSAL)
        + 0.6 * h(s.TARGET_ACTUAL)
        + 0.4 * h(s.EFFECT) * nums
        + 0.3 * h(s.ACTION),
        "environment_change": 1.2 * h(ENVIRONMENT) + 0.6 * h(s.TIME_BOUND) + 0.4 * h(s.OBSERVATION),
        "anomaly_pattern": 1.4 * h(s.DEVIATION) + 0.4 * h(s.METRIC) + 0.3 * h(s.REPEATED),
        "performance_optimization": 1.2 * h(OPTIMISATION)
        + 0.5 * h(s.TARGET_ACTUAL)
        + 0.4 * h(s.EFFECT) * nums
        + 0.3 * h(s.SINGLE_VARIABLE),
        "cross_domain_correlation": (1.0 if domains >= 2 else 0.0) + 1.0 * h(LINKAGE) + 0.4 * h(s.CORRELATION),
        "periodic_pattern": 1.2 * h(s.PERIOD) + 0.6 * h(s.REPEATED) + (0.4 if s.cycle_count(text) >= 2 else 0),
    }


def offline_classify(text: str, source: str) -> ClassifyOut:
    if s.has(s.GREETING, text):
        return ClassifyOut(trigger_type="none", confidence=0.95, reasons=[Reason.of(ReasonCode.GREETING)])
    scores = _score_types(text, source)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    if top < 0.9:
        return ClassifyOut(
            trigger_type="none",
            confidence=round(min(0.9, 1 - top / 2), 3),
            reasons=[Reason.of(ReasonCode.NO_TRIGGER_SIGNAL, trigger_type=best)],
            fields={"type_scores": {k: round(v, 2) for k, v in ranked[:3]}},
        )
    # Confidence grows with the winner's signal and its margin over the runner-up.
    confidence = min(0.98, 0.45 + 0.15 * top + 0.2 * (top - second))
    return ClassifyOut(
        trigger_type=best,
        confidence=round(confidence, 3),
        summary=text.strip()[:500],
        fields={
            "numbers": s.numbers(text)[:12],
            "metrics": sorted(set(x.upper() for x in s.hits(s.METRIC, text)))[:6],
            "type_scores": {k: round(v, 2) for k, v in ranked[:3]},
        },
        reasons=[Reason.of(ReasonCode.PATTERNS_POINT_TO, trigger_type=best)],
    )


class OfflineProvider(JudgeProvider):
    name = "offline"
    model = "rules-v1"

    def _telemetry(self, kind: str, started: float) -> Telemetry:
        return Telemetry(
            provider=self.name, model=self.model, prompt_version=PROMPT_VERSIONS[kind], latency_ms=(time.perf_counter() - started) * 1000
        )

    def classify(self, *, text: str, source: str) -> ProviderAnswer:
        started = time.perf_counter()
        out = offline_classify(text, source)
        return ProviderAnswer(out, self._telemetry("classify", started))

    def assess_value(
        self,
        *,
        trigger_type: str,
        content: str,
        data: dict[str, Any],
        source: str,
        offline_checks: dict[str, tuple[bool, str]],
        criteria: list[dict[str, str]],
    ) -> ProviderAnswer:
        started = time.perf_counter()
        criteria = [CriterionOut(key=k, met=bool(ok), evidence=ev) for k, (ok, ev) in offline_checks.items()]
        return ProviderAnswer(ValueOut(criteria=criteria), self._telemetry("value", started))

    def judge(self, *, request: JudgeRequest) -> ProviderAnswer:
        started = time.perf_counter()
        attribution = request.rule_attribution
        grounding = request.grounding_hint
        if grounding == "unknown":
            grounding = {
                "human_config": "grounded",
                "rule_update": "grounded",
                "tool_observation": "grounded",
                "user_confirmed": "weakly_grounded",
                "user_stated": "weakly_grounded",
            }.get(attribution, "unknown")
        reasons: list[Reason] = []
        confidence = _BASE_CONFIDENCE.get(attribution, 0.4)
        consistency = "consistent"
        for rel in request.related:
            if rel.get("relation") in {"duplicate", "contradiction"}:
                consistency = rel["relation"]
                break
        action = "WRITE"
        if grounding == "unsupported":
            action = "REJECT"
            reasons.append(Reason.of(ReasonCode.NUMBERS_CONTRADICTED))
        elif grounding in {"unknown", "weakly_grounded"} and s.numbers(request.content) and s.has(s.EFFECT, request.content):
            confidence -= 0.1
            reasons.append(Reason.of(ReasonCode.WEAK_GROUNDING))
        injected = s.hits(s.INJECTION, request.content + " " + str(request.data))
        if injected:
            action = "PENDING_REVIEW" if action == "WRITE" else action
            confidence = min(confidence, 0.3)
            reasons.append(Reason.of(ReasonCode.INSTRUCTION_IN_CONTENT, quote=injected[0]))
        if not reasons:
            reasons.append(Reason.of(ReasonCode.JUDGE_ASSESSMENT, attribution=attribution, grounding=grounding, consistency=consistency))
        out = JudgeOut(
            action=action,
            source_attribution=attribution,
            grounding=grounding,
            consistency=consistency,
            confidence=round(max(0.0, min(1.0, confidence)), 3),
            reasons=reasons,
        )
        return ProviderAnswer(out, self._telemetry("judge", started))
