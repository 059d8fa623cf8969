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


@dataclass(frozen=True)
class Stretch:
    """A run of words in reading order: the same on both sides (`old` == `new`) or changed.
    The text is kept as written, spaces included, so the stretches join back into the two
    texts."""

    old: str
    new: str
    changed: bool


@dataclass(frozen=True)
class WordDiff:
    stretches: list[Stretch]
    # The share of words the two texts have in common (0..1).
    ratio: float


def word_diff(old: str, new: str) -> WordDiff:
    """The whole alignment of `old` and `new`, word by word: what a page marks up."""
    before, after = words(old), words(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    stretches = [Stretch("".join(before[a0:a1]), "".join(after[b0:b1]), op != "equal") for op, a0, a1, b0, b1 in matcher.get_opcodes()]
    return WordDiff(stretches, matcher.ratio())


def word_changes(old: str, new: str) -> list[Change]:
    """What changed from `old` to `new`, word by word, in reading order (empty when equal).
    A change of spaces only is not one a reader would list."""
    changes = (Change(s.old.strip(), s.new.strip()) for s in word_diff(old, new).stretches if s.changed)
    return [c for c in changes if c.removed or c.added]
