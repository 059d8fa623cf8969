"""A conversation as numbered, role-tagged turns, read from a messages array or an
OpenClaw session JSONL transcript.

Turn indices are positions among the conversation's message entries (header lines,
model changes and other bookkeeping entries are not turns), so the same transcript
always numbers its turns the same way: that is what idempotency and drill-down rely on."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.db.models import TextChoices

from governance.funnel.errors import EmptyInput, InputTooLarge
from memories.exceptions import InvalidInput

MAX_TRANSCRIPT_TURNS = 2000


class Role(TextChoices):
    USER = "user", "user"
    ASSISTANT = "assistant", "assistant"
    SYSTEM = "system", "system"
    TOOL = "tool", "tool"


# Spellings other runtimes and OpenClaw versions use for the same four roles.
ROLE_ALIASES = {
    "user": Role.USER,
    "human": Role.USER,
    "assistant": Role.ASSISTANT,
    "ai": Role.ASSISTANT,
    "model": Role.ASSISTANT,
    "system": Role.SYSTEM,
    "developer": Role.SYSTEM,
    "tool": Role.TOOL,
    "toolresult": Role.TOOL,
    "tool_result": Role.TOOL,
    "function": Role.TOOL,
}
# The plugin prepends recalled memories to the prompt; they must never be captured back.
RECALL_BLOCK = re.compile(r"<lingix-memory>.*?(?:</lingix-memory>|$)", re.DOTALL)
TEXT_PART_TYPES = {"text", "input_text", "output_text"}


@dataclass(frozen=True)
class Turn:
    index: int
    role: str
    content: str

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "role": self.role, "content": self.content}


@dataclass
class Transcript:
    turns: list[Turn]
    session_id: str | None = None
    skipped_lines: list[int] = field(default_factory=list)  # 1-based JSONL lines that were not JSON


def role_of(value: Any) -> str | None:
    return ROLE_ALIASES.get(str(value or "").strip().lower())


def content_text(content: Any) -> str:
    """The readable text of a message: a string, or the text parts of a parts list
    (thinking, tool calls and images are not something anybody said)."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and part.get("type", "text") in TEXT_PART_TYPES and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        text = "\n".join(pieces)
    elif isinstance(content, dict) and isinstance(content.get("text"), str):
        text = content["text"]
    else:
        text = ""
    # NUL survives JSON but not every database; it is never part of what anybody said.
    return RECALL_BLOCK.sub("", text).replace("\x00", "").strip()


def _checked(turns: list[Turn]) -> list[Turn]:
    if len(turns) > MAX_TRANSCRIPT_TURNS:
        raise InputTooLarge(f"the transcript holds {len(turns)} turns; the limit is {MAX_TRANSCRIPT_TURNS}")
    if not any(t.content for t in turns):
        raise EmptyInput("the transcript holds no message text")
    return turns


def transcript_from_messages(messages: Any) -> Transcript:
    """`[{role, content}]`, content a string or a list of parts. A turn's index is its
    position in the list; an entry with a role that is none of the four (or their aliases,
    e.g. OpenClaw's `toolResult`) keeps its position but is not a turn."""
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a non-empty list of {role, content}")
    turns = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidInput(f"messages[{i}] must be an object {{role, content}}")
        role = role_of(message.get("role"))
        if role is not None:
            turns.append(Turn(index=i, role=role, content=content_text(message.get("content"))))
    if not turns:
        raise EmptyInput("messages hold no user, assistant, system or tool turn")
    return Transcript(turns=_checked(turns))


def _message_of(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        return None
    inner = entry.get("message")
    if isinstance(inner, dict) and "role" in inner:
        return inner
    if "role" in entry and entry.get("type", "message") == "message":
        return entry
    return None


def transcript_from_jsonl(text: str) -> Transcript:
    """An OpenClaw session transcript: a `{"type": "session", "id"}` header, then entries
    such as `{"type": "message", "message": {"role", "content": [parts]}}`. Read
    tolerantly: a line that is not JSON is counted and skipped, entries that are not
    messages are ignored, unknown roles are skipped."""
    if not isinstance(text, str) or not text.strip():
        raise EmptyInput("jsonl is empty")
    turns: list[Turn] = []
    session_id = None
    skipped: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: a hostile line nested thousands deep
            skipped.append(number)
            continue
        if isinstance(entry, dict) and entry.get("type") == "session" and session_id is None:
            session_id = str(entry.get("id") or "").strip() or None
            continue
        message = _message_of(entry)
        if message is None:
            continue
        role = role_of(message.get("role"))
        if role is None:
            continue
        turns.append(Turn(index=len(turns), role=role, content=content_text(message.get("content"))))
    if not turns:
        raise EmptyInput("the JSONL transcript holds no message entries")
    return Transcript(turns=_checked(turns), session_id=session_id, skipped_lines=skipped)
