"""The content an ingest stores: one standalone statement (textrules.statements).

For role-tagged turns, the statement is composed from the turns the memory is about
(governance.funnel.rules.claim_turns) and who they come from; with a gateway the model
may word it, checked against the turns. It runs before the funnel's stages read the
content and before the write transaction (a model call holds no lock). What happened is
one trace stage, "statement", recorded first; the turns themselves stay on the event."""

from __future__ import annotations

from typing import Any

from governance.funnel import pipeline as p
from governance.funnel.rules import attribution_from_turns
from governance.funnel.types import PASS, StageOutcome
from judges.base import JudgeProvider, ProviderUnavailable
from judges.statement import statement_write
from memories.constants import Attribution as A
from textrules.reasons import Reason, ReasonCode
from textrules.safety import redact
from textrules.statements import (
    Provenance,
    advertiser_first,
    compose_statement,
    model_statement_body,
    model_statement_problems,
    strip_question_tail,
    with_note,
)

STAGE = "statement"
PROVENANCE: dict[str, Provenance] = {A.USER_CONFIRMED: Provenance.CONFIRMED, A.USER_STATED: Provenance.STATED}


def _context(conversation: list[dict[str, Any]], start: int) -> dict[str, Any] | None:
    """The user's turn just before the assistant turn the claim answers or confirms: it
    often names what the proposal is about ("brand_A 美妆新计划冷启动期出价怎么设？")."""
    i = start if conversation[start]["role"] != "user" else start - 1
    if i < 1 or conversation[i]["role"] == "user" or conversation[i - 1]["role"] != "user":
        return None
    return conversation[i - 1]


def conversation_statement(
    *, conversation: list[dict[str, Any]], turns: list[dict[str, Any]], advertiser: str | None, provider: JudgeProvider | None
) -> tuple[str, StageOutcome | None]:
    """The content for `turns` (a suffix of `conversation`, as claim_turns returns) and the
    trace of how it was made. Turns that are not a user's statement or a confirmed
    suggestion (an unconfirmed suggestion: refused later by the provenance rule) keep their
    own words. `provider` None skips the model (a replayed request)."""
    joined = "\n".join(t["content"] for t in turns)
    provenance = PROVENANCE.get(attribution_from_turns(turns))
    if provenance is None:
        return joined, None
    context = _context(conversation, len(conversation) - len(turns))
    composed = compose_statement(turns=turns, provenance=provenance, advertiser=advertiser, context=context["content"] if context else "")
    if composed is None:
        return joined, None
    scores: dict[str, Any] = {"provenance": str(provenance), "dropped": list(composed.dropped)[:8], "borrowed": composed.borrowed}
    outcome = StageOutcome(STAGE, PASS, [Reason.of(ReasonCode.STATEMENT_COMPOSED, note=composed.note)], scores)
    if provider is None or provider.name != "openai":
        return composed.text, outcome
    shown = [*([context] if context else []), *turns]
    try:
        answer = statement_write(
            provider,
            turns=[{"role": t["role"], "content": redact(t["content"])} for t in shown],
            draft=composed.body,
            advertiser=advertiser,
        )
    except ProviderUnavailable as exc:
        outcome.reasons = [Reason.of(ReasonCode.STATEMENT_MODEL_NOT_USED, why=exc.reason), *outcome.reasons]
        return composed.text, p._with_telemetry(outcome, exc.telemetry)
    body = advertiser_first(model_statement_body(answer.value.statement, provenance), advertiser)
    problems = model_statement_problems(body, source="\n".join(t["content"] for t in shown), composed=composed.body, advertiser=advertiser)
    scores["model_statement"] = body[:500]
    if problems:
        scores["model_problems"] = problems
        outcome.reasons = [Reason.of(ReasonCode.STATEMENT_MODEL_NOT_USED, why="; ".join(problems)), *outcome.reasons]
        return composed.text, p._with_telemetry(outcome, answer.telemetry)
    outcome.reasons = [Reason.of(ReasonCode.STATEMENT_BY_MODEL)]
    return with_note(body, provenance), p._with_telemetry(outcome, answer.telemetry)


def text_statement(text: str) -> tuple[str, StageOutcome | None]:
    """A user's plain text is already a statement; only a closing question goes, and only
    when the rest is settled ("…先设2.2元，你觉得呢？")."""
    kept = strip_question_tail(text)
    if kept == text:
        return text, None
    tail = text[len(kept) :].strip(" ，,;；")
    return kept, StageOutcome(STAGE, PASS, [Reason.of(ReasonCode.QUESTION_TAIL_DROPPED, quote=tail)], {"dropped": [tail]})
