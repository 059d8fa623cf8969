"""The reviewer's side-by-side diff of an existing memory and a candidate."""

from __future__ import annotations

import difflib

from django.utils.html import escape
from django.utils.safestring import mark_safe


def diff_html(existing: str, candidate: str) -> tuple[str, str, float]:
    """Character-level diff (Chinese has no spaces to split words on): the existing text
    with removed spans struck out, the candidate with added spans marked, and the ratio."""
    matcher = difflib.SequenceMatcher(None, existing, candidate, autojunk=False)
    left, right = [], []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        old, new = escape(existing[a0:a1]), escape(candidate[b0:b1])
        if op == "equal":
            left.append(old)
            right.append(new)
        else:
            if old:
                left.append(f'<del class="lingix-del">{old}</del>')
            if new:
                right.append(f'<ins class="lingix-ins">{new}</ins>')
    return mark_safe("".join(left)), mark_safe("".join(right)), round(matcher.ratio(), 3)
