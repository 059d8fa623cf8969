"""Which turns of a conversation hold something worth remembering.

An extractor only points at turns; it never writes the memory text. Each candidate is a
list of turn indices ending in a user turn, and the funnel reads those turns' own words
with their roles, so attribution (who said it, whether a suggestion was confirmed) is
decided by the same rules as `/ingest` with messages, whatever an extractor claims.

Offline: the classifier's cue patterns find user-stated preferences, corrections and
decisions, and a user's assent to the assistant's preceding suggestion. With a gateway
(MEMORY_LLM_PROVIDER=openai) the model proposes candidates as JSON; a timeout, an HTTP
failure or output that does not validate falls back to the offline extractor, and the
result says so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from django.db.models import TextChoices
from pydantic import BaseModel, Field, ValidationError

from governance.funnel.rules import USER_ASSENT
from governance.knowledge.distill.transcript import Role, Turn
from judges import prompts
from judges.base import JudgeProvider, ProviderUnavailable, Telemetry
from judges.offline import offline_classify
from textrules import signals as s
from textrules.safety import redact

MAX_CANDIDATE_TURNS = 6
MAX_CANDIDATES = 50
PROMPT_TURN_CHARS = 2000
QUESTION_END = ("?", "？", "吗", "吗?", "吗？")


class CandidateKind(TextChoices):
    PREFERENCE = "preference", "preference"
    CORRECTION = "correction", "correction"
    DECISION = "decision", "decision"
    CONFIRMATION = "confirmation", "confirmed suggestion"


class ExtractorName(TextChoices):
    OFFLINE = "offline", "offline"
    LLM = "llm", "llm"


@dataclass
class DistillCandidate:
    turns: list[int]
    kind: str
    reason: str = ""


@dataclass
class Extraction:
    candidates: list[DistillCandidate]
    extractor: str
    note: str | None = None
    telemetry: dict[str, Any] = field(default_factory=dict)


# --- offline ---------------------------------------------------------------------------
def _previous_spoken(turns: list[Turn], position: int) -> Turn | None:
    """The last user or assistant turn before `position` (tool and system turns in
    between do not break a suggestion-and-answer pair)."""
    for turn in reversed(turns[:position]):
        if turn.role in (Role.USER, Role.ASSISTANT) and turn.content:
            return turn
    return None


def _cue(text: str) -> str | None:
    if s.has(s.CORRECTION, text):
        return CandidateKind.CORRECTION
    if s.has(s.DECISION, text):
        return CandidateKind.DECISION
    if s.has(s.PREFERENCE, text) or s.has(s.ATTITUDE, text):
        return CandidateKind.PREFERENCE
    return None


def offline_candidates(turns: list[Turn], *, start: int, end: int) -> list[DistillCandidate]:
    """One candidate per user turn in [start, end] that states a preference, a
    correction or a decision, or that assents to the assistant's suggestion just before
    it (then the suggestion is the candidate's first turn)."""
    found: list[DistillCandidate] = []
    for position, turn in enumerate(turns):
        if turn.role != Role.USER or not turn.content or not start <= turn.index <= end:
            continue
        text = turn.content
        before = _previous_spoken(turns, position)
        assents = bool(USER_ASSENT.search(text) or s.has(s.CONFIRMATION, text))
        if (
            assents
            and before is not None
            and before.role == Role.ASSISTANT
            and (s.has(s.SUGGESTION, before.content) or s.has(s.ACTION, before.content))
        ):
            found.append(
                DistillCandidate([before.index, turn.index], CandidateKind.CONFIRMATION, "the user assents to the assistant's suggestion")
            )
            continue
        if s.has(s.GREETING, text):
            continue
        kind = _cue(text)
        if kind is None:
            continue
        if text.rstrip().endswith(QUESTION_END) and kind == CandidateKind.PREFERENCE:
            continue  # "能不能只投抖音？" asks; it does not state
        verdict = offline_classify(text, "user")
        if verdict.trigger_type == "none":
            continue
        found.append(DistillCandidate([turn.index], kind, f"{kind} cue; classified {verdict.trigger_type}"))
    return found[:MAX_CANDIDATES]


# --- the gateway model -------------------------------------------------------------------
class ExtractedCandidate(BaseModel):
    turns: list[int] = Field(..., min_length=1, max_length=MAX_CANDIDATE_TURNS)
    kind: Literal["preference", "correction", "decision", "confirmation"]
    reason: str = Field("", max_length=500)


class ExtractOut(BaseModel):
    candidates: list[ExtractedCandidate] = Field(default_factory=list, max_length=MAX_CANDIDATES)


def _accepted(raw: ExtractedCandidate, by_index: dict[int, Turn], start: int, end: int) -> DistillCandidate | None:
    """A model's candidate, kept only when it points at real spoken turns and ends in a
    user turn inside the range: the claim must be the user's own words."""
    indices = sorted(set(raw.turns))
    turns = [by_index.get(i) for i in indices]
    if any(t is None or t.role not in (Role.USER, Role.ASSISTANT) or not t.content for t in turns):
        return None
    last = turns[-1]
    if last.role != Role.USER or not start <= last.index <= end:
        return None
    return DistillCandidate(indices, raw.kind, raw.reason)


def _prompt_turns(turns: list[Turn], *, start: int, end: int) -> list[dict[str, Any]]:
    """The spoken turns of the range, plus the one just before it (a suggestion the range's
    first user turn may confirm), each cut to a length a prompt can carry: the model only
    points at turns, and the funnel reads them whole."""
    spoken = [t for t in turns if t.content and t.role in (Role.USER, Role.ASSISTANT) and t.index <= end]
    first = next((i for i, t in enumerate(spoken) if t.index >= start), len(spoken))
    # Credentials are cut and personal data masked before the gateway sees a turn, as for the judge.
    return [{**t.as_dict(), "content": redact(t.content)[:PROMPT_TURN_CHARS]} for t in spoken[max(0, first - 1) :]]


def llm_candidates(
    provider: JudgeProvider, turns: list[Turn], *, start: int, end: int
) -> tuple[list[DistillCandidate], dict[str, Any], str | None]:
    chat = getattr(provider, "chat", None)
    if chat is None:
        missing = Telemetry(provider=provider.name, model="", prompt_version="")
        raise ProviderUnavailable("the configured provider has no chat client", missing)
    shown = _prompt_turns(turns, start=start, end=end)
    answer = chat.ask_model(
        messages=prompts.distill_messages(turns=shown, start=start, end=end),
        prompt_version=prompts.PROMPT_VERSIONS["distill"],
        schema=ExtractOut,
    )
    by_index = {t.index: t for t in turns}
    kept, dropped, seen = [], 0, set()
    for raw in answer.value.candidates:
        candidate = _accepted(raw, by_index, start, end)
        if candidate is None or tuple(candidate.turns) in seen:
            dropped += 1
            continue
        seen.add(tuple(candidate.turns))
        kept.append(candidate)
    t = answer.telemetry
    telemetry = {
        "provider": t.provider,
        "model": t.model,
        "prompt_version": t.prompt_version,
        "latency_ms": round(t.latency_ms, 1),
        "tokens_in": t.tokens_in,
        "tokens_out": t.tokens_out,
    }
    note = f"{dropped} model candidate(s) dropped: they did not end in a user turn of the range" if dropped else None
    return kept, telemetry, note


def extract_candidates(provider: JudgeProvider, turns: list[Turn], *, start: int, end: int) -> Extraction:
    if provider.name != "openai":
        return Extraction(offline_candidates(turns, start=start, end=end), ExtractorName.OFFLINE)
    try:
        kept, telemetry, note = llm_candidates(provider, turns, start=start, end=end)
    except (ProviderUnavailable, ValidationError) as exc:
        reason = getattr(exc, "reason", None) or type(exc).__name__
        return Extraction(
            offline_candidates(turns, start=start, end=end),
            ExtractorName.OFFLINE,
            note=f"LLM extractor failed ({reason}); used the offline extractor",
        )
    return Extraction(kept, ExtractorName.LLM, note=note, telemetry=telemetry)
