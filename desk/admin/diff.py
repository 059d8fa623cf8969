"""The reviewer's side-by-side diff of an existing memory and a candidate, word by word
(textrules.word_diff's jieba words), marked up for the page."""

from __future__ import annotations

import difflib

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from textrules.word_diff import words


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
