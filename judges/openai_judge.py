"""The gateway judge: any OpenAI-compatible chat endpoint through the shared chat client.

It asks for a JSON object and validates it with pydantic; output that does not validate
raises ProviderUnavailable, and the funnel parks the event. Relations are the exception:
without a usable answer the rules' verdicts stand, and the answer says why."""

from __future__ import annotations

from typing import Any

from judges import prompts
from judges.base import (
    JudgeProvider,
    JudgeRequest,
    ProviderAnswer,
    ProviderUnavailable,
    RelationAnswer,
    RelationRequest,
    RelationSource,
    rules_answer,
)
from judges.chat import ChatJSONClient
from judges.schemas import ClassifyOut, JudgeOut, RelationsOut, ValueOut


class OpenAIJudge(JudgeProvider):
    name = "openai"
    relation_model = True

    def __init__(self, *, base_url: str, model: str, timeout: float, max_retries: int):
        self.model = model
        self.chat = ChatJSONClient(name=self.name, base_url=base_url, model=model, timeout=timeout, max_retries=max_retries)

    def classify(self, *, text: str, source: str) -> ProviderAnswer:
        return self.chat.ask_model(
            messages=prompts.classify_messages(text=text, source=source),
            prompt_version=prompts.PROMPT_VERSIONS["classify"],
            schema=ClassifyOut,
        )

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
        return self.chat.ask_model(
            messages=prompts.value_messages(trigger_type=trigger_type, criteria=criteria, content=content, data=data, source=source),
            prompt_version=prompts.PROMPT_VERSIONS["value"],
            schema=ValueOut,
        )

    def judge(self, *, request: JudgeRequest) -> ProviderAnswer:
        return self.chat.ask_model(
            messages=prompts.judge_messages(request=request), prompt_version=prompts.PROMPT_VERSIONS["judge"], schema=JudgeOut
        )

    def relate(self, *, request: RelationRequest) -> RelationAnswer:
        if not request.neighbours:
            return super().relate(request=request)
        try:
            answer = self.chat.ask_model(
                messages=prompts.relate_messages(request=request), prompt_version=prompts.PROMPT_VERSIONS["relate"], schema=RelationsOut
            )
        except ProviderUnavailable as exc:
            return rules_answer(request, exc.telemetry, fallback=exc.reason, model_called=True)
        asked = {n.id for n in request.neighbours}
        verdicts, ignored = {}, []
        for verdict in answer.value.relations:
            if verdict.id not in asked:
                # A memory it was not shown (or one it made up) is not the model's to judge.
                ignored.append(f"unknown id {verdict.id}")
            elif verdict.id in verdicts:
                ignored.append(f"second verdict for #{verdict.id}")
            else:
                verdicts[verdict.id] = verdict
        if not verdicts:
            why = "no verdict for any memory it was asked about" + (f" ({'; '.join(ignored)})" if ignored else "")
            fallback = rules_answer(request, answer.telemetry, fallback=why, model_called=True)
            fallback.ignored = ignored
            return fallback
        return RelationAnswer(verdicts, RelationSource.MODEL, answer.telemetry, ignored=ignored, model_called=True)
