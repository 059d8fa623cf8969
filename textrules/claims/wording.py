"""How two statements' words compare. Never a relation on its own: the claims decide, and
these only tell apart what the claim vocabulary cannot (a repeat from a rewording, a rule
said again with a part added, a thing the vocabulary does not know named where the other
names one it does)."""

from __future__ import annotations

import difflib
import re
from functools import cached_property

from textrules.claims.extract import categories_in, extract_claim, without_complement
from textrules.claims.parts import Subject
from textrules.claims.relate import claim_parts
from textrules.claims.words import ADDITION, ADVERTISER, FRAME, LIFTS_BOUND, ONLY_NON, SAYS_NO
from textrules.signals import numbers
from textrules.text_budget import LATIN_CHARS_PER_TOKEN, is_cjk


def _grams(text: str) -> set[str]:
    # An advertiser id is the scope both texts were found in, not a word they share.
    text = re.sub(r"[0-9.%％]+", " ", ADVERTISER.sub(" ", text).lower())
    words = set(re.findall(r"[a-z_]+", text))
    cjk = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def wording_overlap(a: str, b: str) -> float:
    """Share of the shorter text's words and character pairs (numbers and a reporting frame
    left out) found in the other. It never decides a relation; it only tells two structurally equal claims
    that are worded alike (a repeat) from two that say different things the claim
    vocabulary does not capture (a different product, store or event)."""
    ga, gb = _grams(FRAME.sub("", a)), _grams(FRAME.sub("", b))
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / min(len(ga), len(gb))


# The old statement's words the new one must hold, and the words it must add, to extend it.
EXTENDS_HELD = 0.8
EXTENDS_ADDED = 2


def extends_wording(old: str, new: str) -> bool:
    """The new text holds nearly all of the old one's words and adds some of its own: the
    old statement said again with a part added ("CPC上限3.5元" → "CPC上限3.5元只在工作日生效"),
    which the added words narrow, not a rewording of it. Like wording_overlap, it never
    decides alone."""
    old_grams, new_grams = _grams(FRAME.sub("", old)), _grams(FRAME.sub("", new))
    if not old_grams:
        return False
    return len(old_grams & new_grams) / len(old_grams) >= EXTENDS_HELD and len(new_grams - old_grams) >= EXTENDS_ADDED


# Left out before two texts are aligned: they join words, they do not name anything.
# A full stop between digits is a decimal point ("1.2万" is not "12万").
_JOINERS = re.compile(r"[的之\s，,。、；;！!？?]|(?<!\d)\.|\.(?!\d)")
# Around the one place two texts differ, this many characters of context each side (a
# category word may start or end just outside it: "跑" / "篮球" within "跑鞋" / "篮球鞋").
_CONTEXT = 2


def _one_swap(old: str, new: str) -> tuple[str, str, str, str, str] | None:
    """Where two texts are the same but for one place, and that place holds only what things
    are called on each side: the two names, each with a little of its context, and the
    character both have right after the place. None when
    they differ in more than one place, only add or drop words, or the place holds a figure,
    a "no", a lever or anything else a claim reads."""
    a, b = _JOINERS.sub("", FRAME.sub("", old)), _JOINERS.sub("", FRAME.sub("", new))
    changed = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = changed[0]
    if re.search(r"\d", a[i1:i2] + b[j1:j2]) or not (_names_only(a[i1:i2]) and _names_only(b[j1:j2])):
        return None
    return a[i1:i2], b[j1:j2], a[max(0, i1 - _CONTEXT) : i2 + _CONTEXT], b[max(0, j1 - _CONTEXT) : j2 + _CONTEXT], a[i2 : i2 + 1]


def swapped_category(old: str, new: str) -> tuple[str, str] | None:
    """Where two texts are the same but for one place, and that place names a category of the
    vocabulary on one side only, or a finer one ("跑鞋日预算1.2万" / "篮球鞋日预算1.2万"): the words each side
    has there. The other side names another thing the vocabulary does not know."""
    swap = _one_swap(old, new)
    if swap is not None and categories_in(swap[2]) != categories_in(swap[3]):
        return swap[0], swap[1]
    words = _word_swap(old, new)
    if words is None or categories_in(words[0]) == categories_in(words[1]):
        return None
    return words


_CJK_NAME = re.compile(r"[\u4e00-\u9fff]{2,}")


def swapped_name(old: str, new: str) -> tuple[str, str] | None:
    """Where two texts are the same but for one noun, or the modifier of one ("重疾险在百度日预算3万" /
    "百万医疗险在百度日预算3万", "连衣裙…" / "半身裙…"): the two words, unless the vocabulary reads
    both as one known thing ("家长" / "宝妈" are one audience). Two kinds of one thing are two
    subjects; a rewording changes more than one place, or a word that is no name ("需"/"要",
    "使用'…'"/"出现'…'": no noun follows)."""
    swap = _one_swap(old, new)
    if swap is not None and _CJK_NAME.fullmatch(swap[0]) and _CJK_NAME.fullmatch(swap[1]) and _CJK_NAME.match(swap[4] * 2):
        names, context = (swap[0], swap[1]), (swap[2], swap[3])
    else:
        words = _word_swap(old, new)
        if words is None:
            return None
        names = context = words
    read_a, read_b = extract_claim(context[0]).subject, extract_claim(context[1]).subject
    if read_a == read_b and read_a != Subject():
        return None
    return names


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:\.\d+)?|[^\sA-Za-z\d]")
# At most this many words on each side of the one place: a name ("demo request", "free-trial signup").
_NAME_WORDS = 3
# Words a noun phrase starts after: an article, a possessive, a preposition.
_NOUN_LEAD = frozenset({"the", "a", "an", "its", "their", "our", "s", "per", "for", "of", "on", "in", "to", "with", "about"})
# Who said it, put last ("…, the client said", "…, as agreed"): not what was said.
_SAID_AFTER = re.compile(
    r"[,，]\s*(?:(?:as )?(?:the )?(?:client|user|customer|advertiser|team)?\s*"
    r"(?:said|says|asked|agreed|repeated|confirmed|requested|wants|wanted)|as agreed|per the client)\s*[.。]?\s*$",
    re.I,
)


def _word_swap(old: str, new: str) -> tuple[str, str] | None:
    """For words written with spaces: the same words but at one place, where each side has a
    short run of plain words that read as no claim part ("cost per demo request target 700" /
    "cost per free-trial signup target 700")."""
    said = [_SAID_AFTER.sub("", FRAME.sub("", t)) for t in (old, new)]
    a, b = _WORD.findall(said[0]), _WORD.findall(said[1])
    changed = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = changed[0]
    before, after = a[i1:i2], b[j1:j2]
    if not all(w[0].isalpha() for w in before + after) or max(len(before), len(after)) > _NAME_WORDS:
        return None
    if i1 == 0 or a[i1 - 1].lower() not in _NOUN_LEAD:
        # Only a run after a word that opens a noun phrase names a thing; elsewhere a swap is
        # as likely a verb reworded ("buy" / "purchase").
        return None
    before_text, after_text = " ".join(before), " ".join(after)
    if not (_names_only(before_text) and _names_only(after_text)):
        return None
    return before_text, after_text


# "这条已经作废", "now obsolete": the statement withdraws what it repeats.
RETRACTS = re.compile(r"作废|取消|撤销|失效|不再执行|\b(?:obsolete|cancel(?:l)?ed|withdrawn|void|scrapped)\b", re.I)
# Words that widen a name to everything ("全部鞋", "所有品类", "all products"): no one thing.
_EVERY = re.compile(r"全部|所有|全品类|全线|一切|\b(?:all|every|any|everything|everyone|anything)\b", re.I)


def _names_only(words: str) -> bool:
    """Nothing in `words` but what a thing is called: no "不", "可以", lever, direction,
    switch, metric or condition ("主力款床垫不" / "云朵系列可以" swaps a yes for a no too)."""
    if SAYS_NO.search(words) or _EVERY.search(words):
        return False  # a bare "不" left from "不参加" is no claim by itself, but it is no name either
    claim = extract_claim(words)
    return not (
        claim.levers
        or claim.metrics
        or claim.direction
        or claim.switch
        or claim.polarity < 0
        or claim.affirmed
        or claim.assessments
        or claim.conditions
        or claim.quantities
    )


def _mostly_chinese(text: str) -> bool:
    # A Chinese character says about as much as a short English word (LATIN_CHARS_PER_TOKEN letters).
    said = ADVERTISER.sub(" ", text)
    return sum(map(is_cjk, said)) * LATIN_CHARS_PER_TOKEN > sum(ch.isascii() and ch.isalpha() for ch in said)


def _noes(text: str) -> int:
    """The "no"s a text says of its own: not the rest an "only" leaves out ("只投女性，男性暂不投",
    "只针对非品牌词")."""
    return len(SAYS_NO.findall(ONLY_NON.sub(lambda m: m.group()[:-1], without_complement(text))))


class Wording:
    """Every wording measure of one pair, each read when first asked for and kept: the rules
    ask for a few, the pair model (pair_model.py) for all of them."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    @cached_property
    def overlap(self) -> float:
        return wording_overlap(self.old, self.new)

    @cached_property
    def same_script(self) -> bool:
        """Both texts mostly Chinese, or both mostly not: their words can be compared at all."""
        return _mostly_chinese(self.old) == _mostly_chinese(self.new)

    @cached_property
    def shares_figure(self) -> bool:
        """Some figure stands in both texts (the advertiser ids left out)."""
        return bool(set(numbers(ADVERTISER.sub(" ", self.old))) & set(numbers(ADVERTISER.sub(" ", self.new))))

    @cached_property
    def extends(self) -> bool:
        return extends_wording(self.old, self.new)

    @cached_property
    def swapped_category(self) -> tuple[str, str] | None:
        return swapped_category(self.old, self.new)

    @cached_property
    def swapped_name(self) -> tuple[str, str] | None:
        return swapped_name(self.old, self.new)

    @cached_property
    def words_narrow(self) -> bool:
        """The new text's own words name a part of the subject, a condition or a figure the
        old one's do not: the narrowing is said, not carried in by an event's data (a plan
        id) or by filler ("请务必记住")."""
        new, old = claim_parts(extract_claim(self.new)), claim_parts(extract_claim(self.old))
        return any(new[facet] - old[facet] for facet in new)

    @cached_property
    def adds_detail(self) -> bool:
        """The new text says it adds a detail ("客户补充：", "clarified:"), its own words name
        a part the old one's do not, or hold the old statement with words added that the
        vocabulary has no name for ("…target IT decision makers at director level or above"),
        and it takes nothing back: no "no" or pause the old one lacks, no bound lifted
        ("男性暂不投", "晚上10点后不限" turn a part round; a person decides)."""
        if not ADDITION.search(self.new) or ADDITION.search(self.old):
            return False
        return not self.takes_back and (self.words_narrow or self.extends)

    @cached_property
    def takes_back(self) -> bool:
        """The new text has a "no" the old one lacks (不, 暂停, "not raised") or lifts a bound
        ("不限", "no cap"): an added part may take something back, so the safe reading is a
        question for a person, not a narrower rule written beside."""
        return (
            _noes(self.new) > _noes(self.old)
            or bool(LIFTS_BOUND.search(self.new))
            or bool(RETRACTS.search(self.new) and not RETRACTS.search(self.old))
        )
