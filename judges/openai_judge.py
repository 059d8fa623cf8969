"""The gateway judge: any OpenAI-compatible chat endpoint through the shared chat client.

It asks for a JSON object and validates it with pydantic; output that does not validate
raises ProviderUnavailable, and the funnel parks the event."""

from __future__ import annotations

from typing import Any

from judges import prompts
from judges.base import JudgeProvider, JudgeRequest, ProviderAnswer
from judges.chat import ChatJSONClient
from judges.schemas import ClassifyOut, JudgeOut, ValueOut


class OpenAIJudge(JudgeProvider):
    name = "openai"

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
