"""Token counts without a tokenizer, shared by the abstracts made at write time and the
recall block that spends a token budget on them."""

from __future__ import annotations

import math

# cl100k averages: about 0.87 CJK characters per token, about 4 Latin characters.
CJK_CHARS_PER_TOKEN = 0.87
LATIN_CHARS_PER_TOKEN = 4.0


def is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2FFFF
        or 0xF900 <= code <= 0xFAFF
        or 0x3040 <= code <= 0x30FF  # kana
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0x3000 <= code <= 0x303F  # CJK punctuation
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
    )


def estimate_tokens(text: str) -> int:
    """A cl100k-like count: CJK characters cost more than one token each, Latin text
    about a quarter of a token per character."""
    cjk = sum(1 for char in text if is_cjk(char))
    other = len(text) - cjk
    return math.ceil(cjk / CJK_CHARS_PER_TOKEN + other / LATIN_CHARS_PER_TOKEN)
