"""The gateway model words a memory's statement (judges/prompts.py STATEMENT_SYSTEM).

It only proposes a sentence. The caller checks it against the turns
(textrules.statements.model_statement_problems) and stores the rule-composed statement
when the model's adds or loses anything, answers late or answers something that is not
the JSON asked for."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judges import prompts
from judges.base import JudgeProvider, ProviderAnswer, ProviderUnavailable, Telemetry

MAX_STATEMENT_CHARS = 1000


class StatementOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    statement: str = Field(min_length=1, max_length=MAX_STATEMENT_CHARS)


def statement_write(provider: JudgeProvider, *, turns: list[dict[str, Any]], draft: str, advertiser: str | None) -> ProviderAnswer:
    """The model's sentence for `turns` (already redacted by the caller), or ProviderUnavailable."""
    chat = getattr(provider, "chat", None)
    if chat is None:
        raise ProviderUnavailable(
            "the configured provider has no chat client", Telemetry(provider=provider.name, model="", prompt_version="")
        )
    return chat.ask_model(
        messages=prompts.statement_messages(turns=turns, draft=draft, advertiser=advertiser),
        prompt_version=prompts.PROMPT_VERSIONS["statement"],
        schema=StatementOut,
    )
