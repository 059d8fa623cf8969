"""Identity questions: two statements alike in every typed part of their claim, each about a
thing it names in its own words ("旗舰店" and "南京西路那家店", "the core product" and
'Sales Cloud'). Whether the two names are one thing is not in the words; what the store
knows about them (an alias, two entities it holds apart) is, and the write path passes that
in as data (`Identity.known`), so this module stays plain text rules.

Names are read with generic heads (店, 礼盒, 套餐, 产品, 课程, 车型, campaign, package,
product, title…), quotes and model codes, never with a list of products: the point is to
notice that a name is there, not to know it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from textrules.claims.extract import places_in
from textrules.claims.words import ADVERTISER, REGIONS

# A head noun that makes the words before it the name of one thing the advertiser sells or runs.
# Stores and markets are the claim's places (textrules.claims.extract), read here with it.
_ZH_HEAD = r"(?:旗舰店|礼盒|套餐|产品|系列|课程|车型|机型|旗舰机|计划|活动|项目|专场)"
# "旗舰店" alone names one store, whichever it is: the question the identity check asks.
_ZH_FLAGSHIP = re.compile(r"旗舰(?:店|机|款)")
_ZH_NAME = re.compile(rf"([\u4e00-\u9fffA-Za-z0-9]{{1,6}}?)({_ZH_HEAD})(?![\u4e00-\u9fff]{{0,1}}[铺面员长])")
_EN_HEAD = (
    r"(?:campaign|package|bundle|product|title|game|line|course|model|series|edition|collection|box|phone|car|SUV|sedan|app|device|laptop)"
)
_EN_NAME = re.compile(
    rf"\b(?:the|our|its|their|[a-z0-9_]+'s)\s+((?:[A-Za-z0-9][\w-]*\s+){{0,3}}?){_EN_HEAD}s?\b"
    rf"|\b((?:[A-Za-z0-9][\w-]*\s+){{1,2}}){_EN_HEAD}\b",
    re.I | re.A,
)
# A quoted name in title case ('Sales Cloud'); a quoted sentence ("Talk to sales", "效果因人而异")
# is a wording for a creative, not a name.
_QUOTED = re.compile(r"[\"'“‘]([A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,3})[\"'”’]|《([^《》]{2,24})》", re.A)
# A model code: a letter or two and digits, and an edition word ("X5 Pro", "Q7", "S24 Ultra").
_MODEL = re.compile(r"\b([A-Z]{1,3}\d{1,4}[a-z]?(?:\s?(?:Pro|Max|Plus|Ultra|Mini|Lite|SE|Air))?)\b", re.A)
# Words before a head that name no particular thing ("这家店", "all stores", "the new campaign").
_NOT_A_NAME = {
    "",
    "这",
    "那",
    "这个",
    "那个",
    "这家",
    "那家",
    "该",
    "本",
    "每",
    "全",
    "所有",
    "各",
    "的",
    "a",
    "an",
    "all",
    "each",
    "every",
    "this",
    "that",
    "any",
    "other",
    "ad",
    "ads",
}
_AREAS = {*REGIONS, "downtown", "airport", "flagship"}
_BREAK = re.compile(r"[的了把将对给在让为是和与及说要想都也只仅投推有不可能会加]")
_LEADING = re.compile(r"^(?:的|把|将|对|给|在|让|为|是|和|与|及|说|要|想|都|也|只|仅|投|推|那个|这个|那家|这家|那款|这款)+")


# Where a name's key came from (Identity._keys).
_KNOWN, _PROPER, _UNKNOWN = "known", "proper", "unknown"


class IdentityVerdict(StrEnum):
    NONE = "none"  # no name on one side, or a name both share: nothing to ask
    SAME = "same"  # the names are one thing the store knows (an alias)
    DIFFERENT = "different"  # two things the store knows apart
    UNKNOWN = "unknown"  # two names nobody has said are one thing or two: a person decides


@dataclass(frozen=True)
class Identity:
    """The names each side gives its subject and what the store knows of them: `known`
    maps a name (as `subject_names` spells it) to the entity it names ("category:口红");
    two names on one entity are aliases, two on different entities are different things."""

    old: frozenset[str] = frozenset()
    new: frozenset[str] = frozenset()
    known: Mapping[str, str] = field(default_factory=dict)
    # Proper names among them (a place, a model code, a quoted title-case name): one thing
    # each, so two different proper names are two things unless `known` ties them.
    proper: frozenset[str] = frozenset()
    # Each name as its statement wrote it ("sales cloud" → "Sales Cloud"), for the question.
    written: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def between(cls, old_text: str, new_text: str, known: Mapping[str, str] | None = None) -> Identity:
        old, old_proper, old_written = read_names(old_text)
        new, new_proper, new_written = read_names(new_text)
        # A name both sides give raises no question, so one spelling per name is enough.
        written = {**dict(new_written), **dict(old_written)}
        return cls(old=old, new=new, known=known or {}, proper=old_proper | new_proper, written=written)

    def verdict(self) -> IdentityVerdict:
        if not self.old or not self.new or _share(self.old, self.new):
            return IdentityVerdict.NONE
        (old_keys, old_from), (new_keys, new_from) = self._keys(self.old), self._keys(self.new)
        if (old_keys & new_keys) - {None}:
            return IdentityVerdict.SAME
        # Two things apart only on the same footing: both named by things the store knows, or
        # both by proper names it has never been told are one. A proper name beside a known
        # entity says nothing either way, and the entity may come from untrusted content.
        if old_from == new_from and old_from in ({_KNOWN}, {_PROPER}):
            return IdentityVerdict.DIFFERENT
        return IdentityVerdict.UNKNOWN

    def _keys(self, names: frozenset[str]) -> tuple[set[str | None], set[str]]:
        """Each name's key (what the store calls it, or the proper name itself; None when
        nothing is known) and where the keys came from."""
        # "上海" beside "上海店" is one name said twice: the longer one speaks for both.
        longest = {n for n in names if not any(n != m and n in m for m in names)}
        keys: set[str | None] = set()
        sources: set[str] = set()
        for n in longest:
            if n in self.known:
                keys.add(self.known[n])
                sources.add(_KNOWN)
            elif n in self.proper:
                keys.add(f"name:{n}")
                sources.add(_PROPER)
            else:
                keys.add(None)
                sources.add(_UNKNOWN)
        return keys, sources

    def question(self) -> tuple[str, str]:
        """The two names, as a reviewer reads them ("旗舰店", "南京西路"; "core product",
        "Sales Cloud"): each spelled as its statement wrote it."""
        return self._shown(self.old), self._shown(self.new)

    def _shown(self, names: frozenset[str]) -> str:
        return "、".join(self.written.get(n, n) for n in sorted(names))


def _share(a: frozenset[str], b: frozenset[str]) -> bool:
    # "考研课程" and "考研课" are one name worded twice; so is "旗舰店" and "天猫旗舰店".
    return any(x == y or (min(len(x), len(y)) >= 2 and (x in y or y in x)) for x in a for y in b)


def _tidy(name: str) -> str:
    """A name as written, less the words before it that are not part of it."""
    name = _LEADING.sub("", name.strip())
    return re.sub(r"\s+", " ", name).strip(" -'")


def subject_names(text: str) -> frozenset[str]:
    """The things a statement names in its own words: stores and markets, products, lines,
    packages and campaigns by a generic head, quoted names and model codes. Lower case;
    an advertiser id is never a name."""
    return read_names(text)[0]


@lru_cache(maxsize=8192)
def read_names(text: str) -> tuple[frozenset[str], frozenset[str], tuple[tuple[str, str], ...]]:
    """subject_names, which of them are proper names (a place that is not a region or a
    vague area, a model code, a quoted title-case name), and each name as the text wrote it
    ((name, spelling) pairs; the first spelling when a name comes twice)."""
    body = ADVERTISER.sub(" ", text or "")
    found: set[str] = set()
    proper: set[str] = set()
    written: dict[str, str] = {}

    def named(spelled: str) -> str:
        # Names are compared in lower case; the spelling is kept for the reviewer.
        name = spelled.lower()
        written.setdefault(name, spelled)
        return name

    for m in _QUOTED.finditer(body):
        proper.add(named(_tidy(m.group(1) or m.group(2))))
    for m in _MODEL.finditer(body):
        proper.add(named(_tidy(m.group(1))))
    found |= set(_ZH_FLAGSHIP.findall(body))
    for m in _ZH_NAME.finditer(body):
        # A verb or a function word ends the phrase before the name ("旗舰机不参加降价活动").
        modifier = _tidy(_BREAK.split(m.group(1))[-1])
        if modifier.lower() not in _NOT_A_NAME:
            found.add(named(modifier + m.group(2)))
    for m in _EN_NAME.finditer(body):
        words = _tidy(m.group(1) or m.group(2) or "")
        head = m.group(0).split()[-1]
        if not set(words.lower().split()) <= _NOT_A_NAME:
            found.add(named(f"{words} {head}".strip()))
    for place in places_in(body):
        name = named(place)
        # A region holds many cities and "downtown" many streets: which one is meant is open.
        (found if name in _AREAS else proper).add(name)
    proper = {n for n in proper if len(n) >= 2}
    names = frozenset(n for n in found | proper if len(n) >= 2)
    return names, frozenset(proper), tuple(sorted((n, written[n]) for n in names if n in written))
