"""What a search query is before it is ranked: its language, and the text each arm reads.

Agents ask questions ("Caroline 什么时候去的…", "感冒灵在千川怎么出价？"), memories state
facts. In the keyword arm the question words are pure noise: in Chinese they become bigrams
(什么, 怎么, 么样) that match thousands of unrelated notes, and function characters glue
neighbouring words into bigrams that exist nowhere (灵在, 在千). So the keyword text drops
question words and splits Han runs at function characters; English question words are
already query stopwords (memories.search.tokens). The vector arm keeps the question as
asked: the e5 embedder is trained on questions with its `query:` prefix.

The language decides the fusion weights (RankingConfig.weights_for): bm25 over stemmed
English words is strong against the small multilingual embedder, while in Chinese the
bigram index is noisy and the embedder carries more of the meaning. The query's shape can
too (RankingConfig.weights_for_query): whether it is a question or a list of terms, and
whether it names an ad-ops term (memories/search/synonyms.py) or is everyday talk, whose
bigrams (时候, 多少, 预算) match notes about something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from memories.search.synonyms import SYNONYM_GROUPS

_HAN_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_CHAR = re.compile(r"[A-Za-z]")


class QueryLanguage(StrEnum):
    CHINESE = "zh"
    ENGLISH = "en"


# Longest first, so 怎么样 goes before 怎么. Each is a question or request phrase that says
# what kind of answer is wanted, never what it is about.
_ZH_QUESTION_PHRASES = sorted(
    {
        "是怎么回事",
        "怎么回事",
        "怎么办",
        "怎么样",
        "怎么做",
        "怎么",
        "如何",
        "为什么",
        "为何",
        "什么时候",
        "什么时间",
        "什么",
        "啥",
        "哪些",
        "哪种",
        "哪个",
        "哪类",
        "哪里",
        "哪儿",
        "哪",
        "多少",
        "多久",
        "几点",
        "几次",
        "几号",
        "是否",
        "有没有",
        "能不能",
        "可不可以",
        "要不要",
        "是不是",
        "还是",
        "应该",
        "需要",
        "请问",
        "告诉我",
        "帮我",
        "查一下",
        "一下",
        "吗",
        "呢",
        "吧",
        "呀",
    },
    key=len,
    reverse=True,
)
# Single characters that join words rather than carry meaning; splitting a Han run there
# keeps bigrams inside real words.
_ZH_FUNCTION_CHARS = "的了在和与或是把被给从跟就都也又很"
_ZH_QUESTION_RE = re.compile("|".join(map(re.escape, _ZH_QUESTION_PHRASES)))
_ZH_FUNCTION_RE = re.compile(f"[{_ZH_FUNCTION_CHARS}]")
_PUNCTUATION_RE = re.compile(r"[？?！!。，、；：“”（）《》【】]")
# Words of English questions that say how to answer, not what about (the common function
# words are already query stopwords in memories.search.tokens).
_EN_QUESTION_WORDS = re.compile(
    r"\b(?:would|likely|might|probably|kind|type|sort|something|anything|ever|both|also|still|much|many|has|have|had|some|any)\b",
    re.IGNORECASE,
)


_EN_QUESTION_START = re.compile(
    r"^\s*(?:what|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|would|should|will|has|have|had)\b",
    re.IGNORECASE,
)
# A question about what someone would or might do or be (LoCoMo's open-domain inference
# questions: "Would Caroline likely have Dr. Seuss books?"): the answer is inferred from
# turns that say something else in other words, so no question word of it is in them.
_EN_HYPOTHETICAL = re.compile(r"\b(?:would|likely|might)\b", re.IGNORECASE)
_EN_WHEN = re.compile(r"^\s*when\b", re.IGNORECASE)
# Ad-ops terms of the synonym table, minus the ones everyday questions use too (几点).
_DOMAIN_HAN = tuple(t for group in SYNONYM_GROUPS for t in group if _HAN_CHAR.search(t) and len(t) >= 2 and t not in _ZH_QUESTION_PHRASES)
_DOMAIN_LATIN = re.compile(
    r"\b(?:" + "|".join(re.escape(t) for group in SYNONYM_GROUPS for t in group if not _HAN_CHAR.search(t)) + r")\b", re.IGNORECASE
)


@dataclass(frozen=True)
class PreparedQuery:
    raw: str
    keyword_text: str
    vector_text: str
    language: QueryLanguage
    # A question (question mark, question phrase, or an English question word first)
    # rather than a list of terms.
    question: bool = True
    # Names an ad-ops term of the synonym table.
    domain_terms: bool = False
    # An English question about what would or might be, and one that asks when.
    hypothetical: bool = False
    asks_when: bool = False


def is_question(text: str) -> bool:
    return bool(re.search(r"[?？]", text) or _ZH_QUESTION_RE.search(text) or _EN_QUESTION_START.match(text))


def names_domain_terms(text: str) -> bool:
    return any(term in text for term in _DOMAIN_HAN) or bool(_DOMAIN_LATIN.search(text))


def query_language(text: str) -> QueryLanguage:
    """Chinese when Han characters are at least a third of the letters: a Chinese question
    with an English term or two (ROI, CTR, Qianchuan) still reads as Chinese."""
    han = len(_HAN_CHAR.findall(text))
    latin = len(_LATIN_CHAR.findall(text))
    # One Han character stands for a word; about five Latin letters do.
    return QueryLanguage.CHINESE if han and han * 5 >= latin / 2 else QueryLanguage.ENGLISH


def keyword_text(text: str) -> str:
    """The query as the keyword arm should read it: question phrases, function characters
    and punctuation become spaces. Falls back to the raw text if nothing would be left."""
    stripped = _PUNCTUATION_RE.sub(" ", text)
    stripped = _ZH_QUESTION_RE.sub(" ", stripped)
    stripped = _ZH_FUNCTION_RE.sub(" ", stripped)
    stripped = _EN_QUESTION_WORDS.sub(" ", stripped)
    stripped = re.sub(r"\s+", " ", stripped).strip()
    return stripped or text


def prepare_query(text: str, *, strip_questions: bool = True) -> PreparedQuery:
    return PreparedQuery(
        raw=text,
        keyword_text=keyword_text(text) if strip_questions else text,
        vector_text=text,
        language=query_language(text),
        question=is_question(text),
        domain_terms=names_domain_terms(text),
        hypothetical=bool(_EN_HYPOTHETICAL.search(text)) and query_language(text) == QueryLanguage.ENGLISH,
        asks_when=bool(_EN_WHEN.match(text)),
    )
