"""The local DoubtMem judge: a faithfulness model served over an OpenAI-compatible API.
It reasons inside <doubt-check>…</doubt-check> and then emits a JSON action. Only the
judge step uses it; classification and value checks stay with the main provider."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from judges import prompts
from judges.base import (
    JudgeProvider,
    JudgeRequest,
    ProviderAnswer,
    ProviderUnavailable,
    RelationAnswer,
    RelationRequest,
    Telemetry,
    rules_answer,
)
from judges.chat import ChatJSONClient, extract_json
from judges.schemas import DoubtMemOut, JudgeOut

_DOUBT = re.compile(r"<doubt-check>(.*?)</doubt-check>", re.DOTALL | re.IGNORECASE)


class DoubtMemParseError(ValueError):
    pass


def parse_doubtmem(text: str) -> tuple[str, DoubtMemOut]:
    """(reasoning, verdict). The tag is required: an answer without its reasoning is
    not a DoubtMem answer, whatever JSON follows."""
    match = _DOUBT.search(text or "")
    if match is None:
        raise DoubtMemParseError("no <doubt-check> block in the answer")
    reasoning = match.group(1).strip()
    tail = (text or "")[match.end() :]
    try:
        verdict = DoubtMemOut.model_validate(extract_json(tail))
    except (json.JSONDecodeError, ValidationError, TypeError) as exc:
        raise DoubtMemParseError(f"no valid JSON action after <doubt-check> ({type(exc).__name__})") from None
    return reasoning, verdict


def to_judge_out(reasoning: str, verdict: DoubtMemOut) -> JudgeOut:
    reasons = [verdict.reason] if verdict.reason else []
    if reasoning:
        reasons.append("doubt-check: " + reasoning[:300])
    return JudgeOut(
        action=verdict.action,
        source_attribution=verdict.source_attribution,
        grounding=verdict.grounding,
        consistency=verdict.consistency,
        confidence=verdict.confidence,
        reasons=reasons,
    )


class DoubtMemJudge(JudgeProvider):
    name = "doubtmem"

    def __init__(self, *, base_url: str, model: str, timeout: float, max_retries: int, fallback: JudgeProvider):
        self.model = model
        self.fallback = fallback
        # A local model server needs no key; the gateway key is never sent to it.
        self.chat = ChatJSONClient(
            name=self.name, base_url=base_url, model=model, timeout=timeout, max_retries=max_retries, api_key="doubtmem-local"
        )

    def classify(self, *, text: str, source: str) -> ProviderAnswer:
        return self.fallback.classify(text=text, source=source)

    def assess_value(self, **kwargs: Any) -> ProviderAnswer:
        return self.fallback.assess_value(**kwargs)

    def relate(self, *, request: RelationRequest) -> RelationAnswer:
        # Trained on faithfulness, not on relations: the rules' verdicts stand (the funnel
        # asks the main provider, so a gateway beside DoubtMem still judges relations).
        telemetry = Telemetry(provider=self.name, model=self.model, prompt_version=prompts.PROMPT_VERSIONS["relate"])
        return rules_answer(request, telemetry, fallback="the DoubtMem model judges faithfulness, not relations")

    def judge(self, *, request: JudgeRequest) -> ProviderAnswer:
        content, telemetry = self.chat.ask(
            messages=prompts.doubtmem_messages(request=request), prompt_version=prompts.PROMPT_VERSIONS["doubtmem"], json_mode=False
        )
        try:
            reasoning, verdict = parse_doubtmem(content)
        except DoubtMemParseError as exc:
            raise ProviderUnavailable(f"malformed DoubtMem answer: {exc}", telemetry) from None
        return ProviderAnswer(to_judge_out(reasoning, verdict), telemetry)


__all__ = ["DoubtMemJudge", "DoubtMemParseError", "Telemetry", "parse_doubtmem", "to_judge_out"]
