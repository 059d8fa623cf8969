"""Three abstracts per memory: one line, a short paragraph, and the full text (the
content itself). Made at write time, deterministically, so recall can spend a small
token budget on many one-liners and expand only the best memories.

Cuts fall on sentence or clause boundaries where one is close enough; otherwise the
text is cut at the limit and marked with an ellipsis."""

from __future__ import annotations

import re
from dataclasses import dataclass

from textrules.text_budget import estimate_tokens

LINE_TOKENS = 30
PARAGRAPH_TOKENS = 90
ELLIPSIS = "…"

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+")
_CLAUSE_END = re.compile(r"(?<=[，,：:、])")


@dataclass(frozen=True)
class Abstracts:
    line: str
    paragraph: str
    full: str


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _cut_to(text: str, limit: int) -> str:
    """The longest prefix within `limit` tokens, by characters."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) + 1 <= limit:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip(" ，,、：:；;") + ELLIPSIS


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [p for p in pattern.split(text) if p and p.strip()]


def fit(text: str, limit: int) -> str:
    """`text` when it fits in `limit` tokens; else whole sentences, then whole clauses,
    that fit (at least half the room used), else a hard cut."""
    text = _flat(text)
    if estimate_tokens(text) <= limit:
        return text
    for pattern in (_SENTENCE_END, _CLAUSE_END):
        kept = ""
        for piece in _pieces(text, pattern):
            if estimate_tokens(kept + piece) + 1 > limit:
                break
            kept += piece
        if kept and estimate_tokens(kept) >= limit // 2:
            return kept.rstrip(" ，,、：:；;") + ELLIPSIS if pattern is _CLAUSE_END else kept.strip()
    return _cut_to(text, limit)


def make_abstracts(content: str) -> Abstracts:
    full = _flat(content)
    return Abstracts(line=fit(full, LINE_TOKENS), paragraph=fit(full, PARAGRAPH_TOKENS), full=full)
