"""The reviewer's side-by-side diff of an existing memory and a candidate, word by word.

Chinese has no spaces to split words on, and a character diff of two sentences that say
different things is mostly strike-through noise; jieba's segmentation gives the words a
reviewer reads ("上调", "15%", "ROI"), so a changed figure or verb shows as one change."""

from __future__ import annotations

import difflib
import functools
import logging
from collections.abc import Callable

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


@functools.cache
def _segmenter() -> Callable[[str], list[str]]:
    # Loaded on the first diff, not at import: the dictionary takes about a second to read.
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba.lcut


def words(text: str) -> list[str]:
    return _segmenter()(text or "")


def diff_html(existing: str, candidate: str) -> tuple[SafeString, SafeString, float]:
    """The existing text with removed words struck out, the candidate with added words
    marked, and the share of words they have in common (0..1)."""
    old, new = words(existing), words(candidate)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    left, right = [], []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        removed, added = escape("".join(old[a0:a1])), escape("".join(new[b0:b1]))
        if op == "equal":
            left.append(removed)
            right.append(added)
            continue
        if removed:
            left.append(f'<del class="lingix-del">{removed}</del>')
        if added:
            right.append(f'<ins class="lingix-ins">{added}</ins>')
    return mark_safe("".join(left)), mark_safe("".join(right)), round(matcher.ratio(), 3)
