"""CJK-aware tokens for the keyword index.

SQLite's unicode61 tokenizer keeps a whole run of Han characters as one token, and the
trigram tokenizer never matches queries shorter than three characters, so neither finds
出价 inside 分时段出价策略. We rewrite text before it reaches FTS5: each Han run becomes
its overlapping bigrams (a lone character stays as itself), Latin words and numbers pass
through lower-cased. Index and query use the same function, so they always agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_HAN}]+|[^\W_{_HAN}]+(?:[.'][^\W_{_HAN}]+)*", re.UNICODE)
_HAN_RE = re.compile(rf"^[{_HAN}]+$")

# Query-side only: words so common that OR-ing them adds cost and no ranking signal.
_QUERY_STOPWORDS = frozenset(
    "a an the and or of to in on at for is are was were be been do does did what when where who whom "
    "which how why that this these those it its i you he she we they me my your his her our their "
    "with from by as about into than then so if not no yes can could would should will".split()
)
_MAX_QUERY_TOKENS = 48


def han_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def text_tokens(text: str, split_han: Callable[[str], list[str]] = han_bigrams) -> list[str]:
    """Tokens of a document, in order, duplicates kept (bm25 uses term frequency).
    `split_han` turns one run of Han characters into tokens (bench.zh_tokens compares
    bigrams with jieba through it)."""
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(text or ""):
        piece = match.group(0)
        if _HAN_RE.match(piece):
            tokens.extend(split_han(piece))
        else:
            tokens.append(piece.lower().replace(".", "_").replace("'", ""))
    return tokens


def fts_document(text: str) -> str:
    """The string handed to FTS5 for indexing."""
    return " ".join(text_tokens(text))


def query_tokens(query: str, split_han: Callable[[str], list[str]] = han_bigrams) -> list[str]:
    """Distinct, meaningful tokens of a user query, capped so huge inputs stay cheap."""
    seen: dict[str, None] = {}
    for token in text_tokens(query[:4000], split_han):
        if token in _QUERY_STOPWORDS:
            continue
        seen.setdefault(token, None)
        if len(seen) >= _MAX_QUERY_TOKENS:
            break
    return list(seen)


def fts_match_expression(query: str) -> str | None:
    """A MATCH expression that can never be an FTS5 syntax error: every token is a quoted
    string (inner quotes doubled) and tokens are joined with OR. None when nothing is left."""
    tokens = query_tokens(query)
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)
