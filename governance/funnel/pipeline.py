"""The funnel runner. A pipeline is a list of stages; each takes the context and
returns a StageOutcome (or None when it does not apply), which is stored as one Trace
row at once, inside the caller's transaction. The first REJECT or PENDING_REVIEW ends
the run."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from governance.funnel import conflict as conflict_stage
from governance.funnel import validate as validate_stage
from governance.funnel.criteria import VALUE_CRITERIA, data_trace, offline_value_checks
from governance.funnel.layer_policy import DEFAULT_LAYER, layer_policy
from governance.funnel.related import find_related
from governance.funnel.rules import content_rules, provenance_rules
from governance.funnel.types import PASS, Candidate, StageOutcome
from governance.funnel.verifier import verify
from governance.models import LayerPolicy, MemoryEvent, Trace
from governance.traces import trace_create, trace_row
from judges.base import JudgeProvider, JudgeRequest, ProviderUnavailable, Telemetry
from lingix_config import config
from memories.constants import Layer
from memories.embeddings import EmbeddingError
from memories.metrics_registry import JUDGE_LATENCY, timed
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode, as_reason
from textrules.safety import Findings

FINAL = {"REJECT", "PENDING_REVIEW"}


@dataclass
class FunnelContext:
    event: MemoryEvent
    candidate: Candidate
    provider: JudgeProvider
    judge: JudgeProvider
    policies: dict[str, LayerPolicy]
    safety: Findings = field(default_factory=Findings)
    outcomes: list[StageOutcome] = field(default_factory=list)
    final: str | None = None
    intended: str = "WRITE"
    reasons: list[Reason] = field(default_factory=list)
    criteria_met: int = 0
    parked_by_provider: bool = False
    pending_traces: list[tuple[StageOutcome, Any]] = field(default_factory=list)
    # The Trace rows flush_traces wrote, in order: the decision is read from them, not re-read.
    stored_traces: list[Trace] = field(default_factory=list)
    memory: Any = None
    review_item: Any = None
    embedding_error: str = ""
    # The stage whose outcome fixed the action (metrics); a write is fixed by the commit.
    decided_by: str = ""

    def policy(self) -> LayerPolicy | None:
        return self.policies.get(self.candidate.layer or Layer.L2)


Stage = Callable[[FunnelContext], StageOutcome | None]


def _with_telemetry(outcome: StageOutcome, t: Telemetry) -> StageOutcome:
    outcome.provider, outcome.model, outcome.prompt_version = t.provider, t.model, t.prompt_version
    outcome.latency_ms, outcome.tokens_in, outcome.tokens_out, outcome.cost_usd = t.latency_ms, t.tokens_in, t.tokens_out, t.cost_usd
    if t.attempts > 1:
        outcome.scores["attempts"] = t.attempts
    return outcome


def _parked(stage: str, exc: ProviderUnavailable, ctx: FunnelContext) -> StageOutcome:
    ctx.parked_by_provider = True
    why = Reason.of(ReasonCode.JUDGE_UNAVAILABLE, provider=exc.telemetry.provider, why=exc.reason)
    outcome = StageOutcome(stage, "PENDING_REVIEW", [why])
    return _with_telemetry(outcome, exc.telemetry)


# --- stages ----------------------------------------------------------------------
def stage_safety(ctx: FunnelContext) -> StageOutcome:
    """The scan itself ran before anything was stored (event_submit); this stage rules on
    what it found. Kinds only: a trace never repeats a value."""
    found = ctx.safety
    if found.credentials:
        reason = Reason.of(ReasonCode.CREDENTIAL_REFUSED, kinds=list(found.credentials))
        return StageOutcome("safety", "REJECT", [reason], found.as_dict())
    reasons = [Reason.of(ReasonCode.NO_CREDENTIALS)]
    if found.personal:
        reasons.append(Reason.of(ReasonCode.PERSONAL_DATA_MASKED, kinds=list(found.personal)))
    return StageOutcome("safety", PASS, reasons, found.as_dict())


def stage_classify(ctx: FunnelContext) -> StageOutcome | None:
    c = ctx.candidate
    if c.trigger_type:
        return None  # a structured trigger names its type; nothing to classify
    try:
        answer = ctx.provider.classify(text=c.content, source=c.source)
    except ProviderUnavailable as exc:
        return _parked("classify", exc, ctx)
    out = answer.value
    threshold = config().memory_classify_min_confidence
    scores = {"trigger_type": out.trigger_type, "confidence": out.confidence, "threshold": threshold, "fields": out.fields}
    if out.trigger_type == "none" or out.confidence < threshold:
        # The model's own account of why (its words, or the offline classifier's code) follows.
        why = [Reason.of(ReasonCode.NOT_CLASSIFIED), *(as_reason(r) for r in out.reasons[:1])]
        return _with_telemetry(StageOutcome("classify", "REJECT", why, scores), answer.telemetry)
    c.trigger_type = out.trigger_type
    c.fields = dict(out.fields)
    if not c.layer:
        c.layer = DEFAULT_LAYER[c.trigger_type]
    ctx.event.event_type = c.trigger_type
    if ctx.event.pk is not None:  # else the row is saved later with this type
        MemoryEvent.objects.filter(pk=ctx.event.pk).update(event_type=c.trigger_type)
    return _with_telemetry(
        StageOutcome(
            "classify",
            PASS,
            [Reason.of(ReasonCode.CLASSIFIED, trigger_type=out.trigger_type), *(as_reason(r) for r in out.reasons[:2])],
            scores,
        ),
        answer.telemetry,
    )


def stage_value(ctx: FunnelContext) -> StageOutcome:
    c = ctx.candidate
    offline = offline_value_checks(c)
    try:
        answer = ctx.provider.assess_value(
            trigger_type=c.trigger_type,
            content=c.content,
            data=c.data,
            source=c.source,
            offline_checks=offline,
            criteria=[{"key": cr.key, "zh": cr.zh, "en": cr.en} for cr in VALUE_CRITERIA[c.trigger_type]],
        )
    except ProviderUnavailable as exc:
        return _parked("value", exc, ctx)
    labels = {cr.key: cr for cr in VALUE_CRITERIA[c.trigger_type]}
    criteria = answer.value.criteria
    results = {}
    for i, key in enumerate(labels):
        # Match by key; a model that renamed the keys is read in the order we asked.
        got = next((cr for cr in criteria if cr.key == key), criteria[i] if i < len(criteria) else None)
        results[key] = {"met": bool(got and got.met), "evidence": (got.evidence if got else "")[:200], "zh": labels[key].zh}
    ctx.criteria_met = sum(1 for r in results.values() if r["met"])
    missing = [{"en": labels[k].en, "zh": labels[k].zh} for k, r in results.items() if not r["met"]]
    scores = {"criteria": results, "met": ctx.criteria_met, "data": data_trace(c)}
    if missing:
        outcome = StageOutcome(
            "value", "REJECT", [Reason.of(ReasonCode.VALUE_NOT_MET, trigger_type=c.trigger_type, criteria=missing)], scores
        )
    else:
        outcome = StageOutcome("value", PASS, [Reason.of(ReasonCode.VALUE_MET, trigger_type=c.trigger_type)], scores)
    return _with_telemetry(outcome, answer.telemetry)


def stage_provenance(ctx: FunnelContext) -> StageOutcome:
    started = time.perf_counter()
    outcome = provenance_rules(ctx.candidate)
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


def stage_guard_rules(ctx: FunnelContext) -> StageOutcome:
    started = time.perf_counter()
    outcome = content_rules(ctx.candidate)
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


def stage_judge(ctx: FunnelContext) -> StageOutcome:
    c = ctx.candidate
    started = time.perf_counter()
    try:
        find_related(c)
    except EmbeddingError as exc:
        # The judge can still rule without neighbours; the conflict stage will not.
        c.related = None
        ctx.embedding_error = str(exc)
    tools = verify(c)
    tool_ms = (time.perf_counter() - started) * 1000
    request = JudgeRequest(
        content=c.content,
        trigger_type=c.trigger_type,
        source=c.source,
        layer=c.layer,
        advertiser=c.advertiser,
        data=c.data,
        rule_attribution=c.attribution,
        grounding_hint=tools.get("grounding") or "unknown",
        related=[
            {"id": r["memory"].pk, "content": r["memory"].content, "cosine": r["cosine"], "relation": r["relation"]}
            for r in (c.related or [])
        ],
    )
    with timed(JUDGE_LATENCY, provider=ctx.judge.name, outcome="answered") as labels:
        try:
            answer = ctx.judge.judge(request=request)
        except ProviderUnavailable as exc:
            labels["outcome"] = "unavailable"
            return _parked("judge", exc, ctx)
    verdict = answer.value
    # Tool conclusions win over the model's own view of grounding.
    c.grounding = tools.get("grounding") or verdict.grounding
    c.consistency = verdict.consistency
    c.confidence = float(verdict.confidence)
    scores: dict[str, Any] = {
        "verdict": verdict.action,
        "judge_attribution": verdict.source_attribution,
        "rule_attribution": c.attribution,
        "grounding": c.grounding,
        "consistency": verdict.consistency,
        "confidence": verdict.confidence,
        "tools": tools,
        "tool_latency_ms": round(tool_ms, 3),
    }
    reasons = [as_reason(r) for r in verdict.reasons[:4]]
    policy = ctx.policy()
    decision = PASS
    if c.grounding == "unsupported":
        decision = "REJECT"
        reasons.insert(0, Reason.of(ReasonCode.GROUNDING_UNSUPPORTED))
    elif verdict.action == "REJECT":
        decision = "REJECT"
    elif verdict.action == "PENDING_REVIEW":
        decision = "PENDING_REVIEW"
    elif policy is not None and c.confidence < policy.review_confidence_below:
        decision = "PENDING_REVIEW"
        scores["review_confidence_below"] = policy.review_confidence_below
        reasons.insert(0, Reason.of(ReasonCode.JUDGE_UNSURE, layer=c.layer))
    reasons = reasons or [Reason.of(ReasonCode.JUDGE_VERDICT, action=verdict.action)]
    outcome = _with_telemetry(StageOutcome("judge", decision, reasons, scores), answer.telemetry)
    outcome.latency_ms += tool_ms
    return outcome


def stage_layer_policy(ctx: FunnelContext) -> StageOutcome:
    started = time.perf_counter()
    outcome = layer_policy(ctx.candidate, ctx.policies)
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


def stage_conflict(ctx: FunnelContext) -> StageOutcome:
    started = time.perf_counter()
    try:
        outcome = conflict_stage.conflict(ctx.candidate)
    except EmbeddingError as exc:
        # Without neighbours a duplicate or a contradiction would go unseen: park, never write blind.
        return StageOutcome(
            "conflict",
            "PENDING_REVIEW",
            [Reason.of(ReasonCode.CONFLICT_UNAVAILABLE, why=str(exc))],
            latency_ms=(time.perf_counter() - started) * 1000,
        )
    if outcome.decision == "UPDATE":
        ctx.intended = "UPDATE"
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


def stage_validate(ctx: FunnelContext) -> StageOutcome:
    started = time.perf_counter()
    outcome = validate_stage.validate(ctx.candidate, ctx.policy(), ctx.criteria_met)
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    return outcome


def local(stage: Stage) -> Stage:
    """Marks a stage that only reads and writes our own database: it runs inside the
    write transaction, so its view of existing memories is the one the write commits
    against. Stages that call a model run before it, so no lock is held on the network."""
    stage.local = True  # type: ignore[attr-defined]
    return stage


def always(stage: Stage) -> Stage:
    """Marks a stage that runs even after an earlier stage decided (commit, audit)."""
    stage.always = True  # type: ignore[attr-defined]
    stage.local = True  # type: ignore[attr-defined]
    return stage


local(stage_layer_policy)
local(stage_conflict)
local(stage_validate)


def record_trace(ctx: FunnelContext, outcome: StageOutcome, *, memory: Memory | None = None, buffer: bool = False) -> Trace | None:
    """Traces of stages that ran before the event row exists are buffered and written
    with it, in the same transaction; `buffer` keeps one for flush_traces even when the row
    exists (run_stages writes its stages' traces in one statement)."""
    ctx.outcomes.append(outcome)
    if ctx.event.pk is None or buffer:
        ctx.pending_traces.append((outcome, memory))
        return None
    return _store(ctx, outcome, memory, len(ctx.outcomes) - 1)


def _store(ctx: FunnelContext, outcome: StageOutcome, memory: Memory | None, seq: int) -> Trace:
    return trace_create(**_trace_fields(ctx, outcome, memory, seq))


def _trace_fields(ctx: FunnelContext, outcome: StageOutcome, memory: Memory | None, seq: int) -> dict[str, Any]:
    return dict(
        event=ctx.event,
        memory=memory,
        seq=seq,
        stage=outcome.stage,
        decision=outcome.decision,
        reasons=outcome.reasons,
        scores=outcome.scores,
        provider=outcome.provider,
        model=outcome.model[:128],
        prompt_version=outcome.prompt_version[:32],
        latency_ms=round(outcome.latency_ms, 3),
        tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out,
        cost_usd=outcome.cost_usd,
    )


def flush_traces(ctx: FunnelContext) -> None:
    # One statement for the buffered stages; trace_row has scrubbed each row, as bulk writes need.
    first = len(ctx.outcomes) - len(ctx.pending_traces)
    rows = [trace_row(**_trace_fields(ctx, outcome, memory, first + i)) for i, (outcome, memory) in enumerate(ctx.pending_traces)]
    Trace.objects.bulk_create(rows)
    ctx.stored_traces.extend(rows)
    ctx.pending_traces = []


def run_stages(ctx: FunnelContext, stages: list[Stage]) -> None:
    for stage in stages:
        if ctx.final is not None and not getattr(stage, "always", False):
            continue
        outcome = stage(ctx)
        if outcome is None:
            continue
        record_trace(ctx, outcome, buffer=True)
        if ctx.final is None and outcome.decision in FINAL:
            ctx.decided_by = outcome.stage
            ctx.final = outcome.decision
            ctx.reasons = list(outcome.reasons)
    if ctx.event.pk is not None:
        flush_traces(ctx)


def split(pipeline: list[Stage]) -> tuple[list[Stage], list[Stage]]:
    for i, stage in enumerate(pipeline):
        if getattr(stage, "local", False):
            return pipeline[:i], pipeline[i:]
    return pipeline, []


def settle(ctx: FunnelContext) -> None:
    """No stage refused or parked: the event writes (or updates)."""
    if ctx.final is None:
        ctx.final = ctx.intended
        ctx.reasons = [r for o in ctx.outcomes if o.stage in {"conflict", "validate"} and o.decision != "REJECT" for r in o.reasons[:1]]


def new_candidate(*, event: MemoryEvent, content: str, trigger_type: str, layer: str) -> Candidate:
    category, business_line = "", event.business_line
    if isinstance(event.data, dict) and isinstance(event.data.get("category"), str):
        category = event.data["category"][:64]
    if not business_line and isinstance(event.data, dict) and isinstance(event.data.get("business_line"), str):
        business_line = event.data["business_line"][:64]
    return Candidate(
        content=content,
        trigger_type=trigger_type,
        source=event.source,
        layer=layer or (DEFAULT_LAYER.get(trigger_type, "") if trigger_type else ""),
        layer_requested=bool(layer),
        advertiser=event.advertiser,
        business_line=business_line,
        category=category,
        data=dict(event.data or {}),
    )


def candidate_from_payload(payload: dict[str, Any]) -> Candidate:
    """A parked candidate as the rules see it; attribution is derived again, never read back."""
    return Candidate(
        content=str(payload.get("content") or ""),
        trigger_type=payload.get("trigger_type") or "",
        source=payload.get("source") or "agent",
        layer=payload.get("layer") or "",
        layer_requested=True,
        advertiser=payload.get("advertiser") or None,
        business_line=payload.get("business_line") or "",
        category=payload.get("category") or "",
        data=dict(payload.get("data") or {}),
        turns=list(payload.get("turns") or []),
    )
