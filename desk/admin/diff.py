"""The reviewer's side-by-side diff of an existing memory and a candidate, word by word
(textrules.word_diff's alignment of jieba words, the one `memory show` lists), marked up
for the page."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from textrules.word_diff import word_diff


def diff_html(existing: str, candidate: str) -> tuple[SafeString, SafeString, float]:
    """The existing text with removed words struck out, the candidate with added words
    marked, and the share of words they have in common (0..1)."""
    diff = word_diff(existing, candidate)
    left: list[str] = []
    right: list[str] = []
    for stretch in diff.stretches:
        removed, added = escape(stretch.old), escape(stretch.new)
        if not stretch.changed:
            left.append(removed)
            right.append(added)
            continue
        if removed:
            left.append(f'<del class="lingix-del">{removed}</del>')
        if added:
            right.append(f'<ins class="lingix-ins">{added}</ins>')
    return mark_safe("".join(left)), mark_safe("".join(right)), round(diff.ratio, 3)
