"""A word-level diff of two texts, Chinese included.

Chinese has no spaces to split words on, and a character diff of two sentences reads as
noise; jieba's segmentation gives the words a person reads ("上调", "50万", "ROI"), so a
changed figure or verb shows as one change."""

from __future__ import annotations

import difflib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass


@functools.cache
def _segmenter() -> Callable[[str], list[str]]:
    # Loaded on the first diff, not at import: the dictionary takes about a second to read.
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba.lcut


def words(text: str) -> list[str]:
    return _segmenter()(text or "")


@dataclass(frozen=True)
class Change:
    """One changed stretch: the words removed and the words put in their place (either may
    be empty)."""

    removed: str
    added: str

    def as_dict(self) -> dict[str, str]:
        return {"removed": self.removed, "added": self.added}

    def short(self, width: int = 24) -> str:
        def cut(text: str) -> str:
            flat = " ".join(text.split())
            return flat if len(flat) <= width else flat[: width - 1] + "…"

        if self.removed and self.added:
            return f"{cut(self.removed)} → {cut(self.added)}"
        return f"-{cut(self.removed)}" if self.removed else f"+{cut(self.added)}"


def word_changes(old: str, new: str) -> list[Change]:
    """What changed from `old` to `new`, word by word, in reading order (empty when equal)."""
    before, after = words(old), words(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [
        Change("".join(before[a0:a1]).strip(), "".join(after[b0:b1]).strip())
        for op, a0, a1, b0, b1 in matcher.get_opcodes()
        if op != "equal" and ("".join(before[a0:a1]).strip() or "".join(after[b0:b1]).strip())
    ]
