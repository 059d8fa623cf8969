"""How a new statement relates to one already remembered: duplicate, contradiction or
compatible.

Embeddings cannot decide this alone: the bundled embedder puts two different
strategies for one advertiser at cosine 0.96, and a statement and its opposite
("CTR最高，适合首发" / "CTR最低，暂停首发") closer still. So the embedding only says the
two are about related things; structure decides:

1. different subjects (advertiser, category) or different levers (audience pack vs
   landing page) → compatible;
2. opposite polarity (antonym pairs in the same order, one side negated, the same
   metric moving the other way) → contradiction;
3. a correction cue in the new text ("instead", "actually", "不再", "改为", "而不是")
   about the same lever → contradiction;
4. the same slot (lever or metric) with a different value → contradiction;
5. otherwise near-identical → duplicate, else compatible.

Every answer names the signal that decided it, for the trace."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from textrules import signals as s

DUPLICATE = "duplicate"
CONTRADICTION = "contradiction"
COMPATIBLE = "compatible"

# Antonym pairs; the longer form is listed first so "不适合" is not read as "适合".
ANTONYMS: list[tuple[str, str, str]] = [
    ("max_min", r"最高|最好|最强|最多|最佳|\bhighest\b|\bbest\b|\bmost\b", r"最低|最差|最弱|最少|\blowest\b|\bworst\b|\bleast\b"),
    (
        "up_down",
        r"提高|提升|上升|增长|上涨|升高|走高|拉升|升到|升至|涨到|涨至|增至|\bhigher\b|\bincreas(?:e[sd]?|ing)\b|\brais(?:e[sd]?|ing)\b|\brose\b|\bimprov(?:e[sd]?|ing)\b|\bgrew\b|\bup\b",
        r"降低|下降|下跌|走低|降到|降至|跌到|跌至|回落|\blower(?:ed)?\b|\bdecreas(?:e[sd]?|ing)\b|\bdrop(?:ped|s)?\b|\bfell\b|\bdeclin(?:e[sd]?|ing)\b|\bdown\b",
    ),
    ("raise_cut", r"上调|上浮|加价|提价|\braise the bid\b", r"下调|下浮|降价|压价|\bcut the bid\b"),
    (
        "more_less",
        r"增加|加大|扩大|扩量|放量|多投|\bmore\b|\bexpand",
        r"减少|缩小|收缩|控量|少投|\bless\b|\bfewer\b|\breduc(?:e[sd]?|ing)\b",
    ),
    (
        "pause_resume",
        r"恢复|重启|开启|继续投|\bresume[sd]?\b|\bstart(?:ed|ing|s)?\b|\bturn on\b",
        r"暂停|停投|停止|关停|关闭|\bpause[sd]?\b|\bstop(?:ped|ping|s)?\b|\bturn off\b",
    ),
    ("fit_unfit", r"不适合|不适用|不宜", r"(?<!不)适合|(?<!不)适用"),
    (
        "valid_invalid",
        r"无效|没效果|没用|\bineffective\b|\bdoes not work\b|\bdidn'?t work\b",
        r"(?<![无])有效|见效|\beffective\b|\bworks?\b",
    ),
    ("better_worse", r"更好|好于|优于|\bbetter\b|\boutperform", r"更差|差于|不如|\bworse\b|\bunderperform"),
]
_ANTONYM_RX = [(name, re.compile(a, re.IGNORECASE), re.compile(b, re.IGNORECASE)) for name, a, b in ANTONYMS]

# Levers an ad-ops memory is about. Two memories on disjoint levers do not contradict.
LEVERS: dict[str, str] = {
    "bid": r"出价|竞价|加价|提价|降价|调价|\bbids?\b|\bbidding\b|\bcpc cap\b",
    "budget": r"预算|日耗|消耗上限|\bbudgets?\b|\bspend cap\b",
    "audience": r"人群包|人群|定向|受众|男性|女性|新客|老客|\baudiences?\b|\btarget(?:ing)?\b|\blookalike\b|\bsegment|\bwomen\b|\bmen\b|\bcustomers\b",
    "landing": r"落地页|详情页|表单页|\blanding page",
    "creative": r"素材|创意|视频|文案|图片|首图|标题|代言|色调|\bcreatives?\b|\bvideos?\b|\bcopy\b|\bimages?\b|\btitles?\b|\bheadlines?\b|\bbumpers?\b",
    "daypart": r"时段|上午|下午|晚上|晚高峰|凌晨|午间|\bdaypart|\bmorning\b|\bevening\b|\bnight\b",
    "keyword": r"关键词|搜索词|否词|\bkeywords?\b",
    "channel": r"信息流|搜索广告|直播|短视频|开屏|渠道|小红书|抖音|快手|微信|百度|\b(?:xiaohongshu|douyin|kuaishou|wechat|baidu|tiktok)\b|\bfeed\b|\bsearch ads?\b|\blive ?stream|\bchannel",
    "promotion": r"促销|折扣|优惠券|满减|低价|\bdiscount|\bcoupon|\bpromo",
    "frequency": r"频控|频次|\bfrequency cap",
}
_LEVER_RX = {name: re.compile(rx, re.IGNORECASE) for name, rx in LEVERS.items()}

_METRICS = {
    "roi": r"\bROI\b|\bROAS\b|投产",
    "ctr": r"\bCTR\b|点击率",
    "cvr": r"\bCVR\b|转化率",
    "cpa": r"\bCPA\b|转化成本|获客成本",
    "cpc": r"\bCPC\b|点击成本",
    "cpm": r"\bCPM\b|千次曝光成本",
    "gmv": r"\bGMV\b|成交额",
}
_METRIC_RX = {name: re.compile(rx, re.IGNORECASE) for name, rx in _METRICS.items()}

# Where it runs and for whom: two statements about different channels or audience
# segments are about different things, even when both name "the channel" or "the audience".
CHANNELS = re.compile(
    r"信息流|搜索广告|搜索|直播间|直播|短视频|开屏|小红书|抖音|快手|微信|百度|\bfeed\b|\bsearch\b|\blive ?stream\w*|\bdouyin\b|\bxiaohongshu\b|\bwechat\b|\bpre-roll\b",
    re.IGNORECASE,
)
SEGMENTS = re.compile(r"新客|老客|男性|女性|学生|宝妈|银发|\bnew customers?\b|\bexisting customers?\b|\bwomen\b|\bmen\b", re.IGNORECASE)
_CANON = {
    "直播间": "直播",
    "搜索广告": "搜索",
    "search": "搜索",
    "feed": "信息流",
    "douyin": "抖音",
    "xiaohongshu": "小红书",
    "wechat": "微信",
}

_BRAND = re.compile(r"\bbrand_\w+\b", re.IGNORECASE)
CATEGORIES = re.compile(
    r"医药OTC|OTC|维生素|感冒药|保健品|美妆|口红|面膜|护肤|母婴|奶粉|纸尿裤|食品|零食|服饰|女装|男装|3C|手机|耳机|家电|教育|游戏|"
    r"\blipstick\b|\bskincare\b|\bheadphones?\b|\bearbuds\b|\bvitamins?\b|\bbeauty\b|\bpharma\w*\b|\bapparel\b|\bbaby\b",
    re.IGNORECASE,
)
SLOT_WINDOW = 12
# "不投放", "不用": a bare 不 before an action verb negates it ("不超过" is a cap, not a negation).
_VERB_NEGATION = re.compile(r"不(?=投|用|做|买|开|上新|加价|放量|推|出现|要)|\bnot\b|\bno\b|n't\b", re.IGNORECASE)
# Below the related threshold by at most this, a pair about the same subject and lever is
# still checked for contradiction (English paraphrases embed further apart than Chinese ones).
CONTRADICTION_MARGIN = 0.07
_UNITS = {"%": "%", "％": "%", "pp": "%", "个百分点": "%", "元": "元", "万": "万元", "倍": "x"}
_PERIODS = {
    "/day": re.compile(r"日预算|每日|每天|单日|\bdaily\b|\bper day\b", re.IGNORECASE),
    "/month": re.compile(r"每月|月度|月预算|\bmonthly\b|\bper month\b", re.IGNORECASE),
    "/week": re.compile(r"每周|周预算|\bweekly\b|\bper week\b", re.IGNORECASE),
}


@dataclass
class Facts:
    """What a statement is about and which way it points."""

    brands: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)
    channels: set[str] = field(default_factory=set)
    segments: set[str] = field(default_factory=set)
    levers: set[str] = field(default_factory=set)
    metrics: set[str] = field(default_factory=set)
    polarity: dict[str, list[int]] = field(default_factory=dict)  # antonym pair -> sides in reading order
    negations: int = 0
    correction: list[str] = field(default_factory=list)
    slots: dict[str, set[float]] = field(default_factory=dict)  # lever/metric -> values stated for it
    times: set[tuple[float, float]] = field(default_factory=set)


def _slot_of(text: str, at: int) -> str | None:
    """The lever or metric a number belongs to: the nearest one named just before it."""
    window = text[max(0, at - SLOT_WINDOW) : at]
    best, best_pos = None, -1
    for name, rx in (*_METRIC_RX.items(), *_LEVER_RX.items()):
        for m in rx.finditer(window):
            if m.start() > best_pos:
                best, best_pos = name, m.start()
    return best


@lru_cache(maxsize=4096)
def facts(text: str) -> Facts:
    """Cached: a candidate is compared with several neighbours, twice per event. Treat the result as read-only."""
    text = text or ""
    f = Facts()
    f.brands = {b.lower() for b in _BRAND.findall(text)}
    f.categories = {c.lower() for c in CATEGORIES.findall(text)}
    f.channels = {_CANON.get(c.lower(), c.lower()) for c in CHANNELS.findall(text)}
    f.segments = {c.lower() for c in SEGMENTS.findall(text)}
    f.levers = {name for name, rx in _LEVER_RX.items() if rx.search(text)}
    f.metrics = {name for name, rx in _METRIC_RX.items() if rx.search(text)}
    for name, a, b in _ANTONYM_RX:
        sides = sorted([(m.start(), 0) for m in a.finditer(text)] + [(m.start(), 1) for m in b.finditer(text)])
        if sides:
            f.polarity[name] = [side for _, side in sides]
    f.negations = s.negation_count(text) + len(_VERB_NEGATION.findall(text))
    f.correction = s.hits(s.CORRECTION, text)
    f.times = set(s.time_ranges(text))
    plain = s.without_time_ranges(text)
    for m in s.NUMBER.finditer(plain):
        tail = plain[m.end() : m.end() + 1]
        if tail in {"年", "月", "日", "号"}:
            continue
        slot = _slot_of(plain, m.start())
        if slot:
            # "出价上浮20%" and "出价不超过1.5元", or a daily and a monthly budget, are different slots.
            window = plain[max(0, m.start() - SLOT_WINDOW) : m.start()]
            period = next((name for name, rx in _PERIODS.items() if rx.search(window)), "")
            unit = _UNITS.get(m.group(2) or "", "")
            f.slots.setdefault(f"{slot}{period}{unit}", set()).add(abs(float(m.group(1))))
    return f


@dataclass(frozen=True)
class Relation:
    kind: str  # duplicate / contradiction / compatible
    signal: str  # which structural signal decided
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"relation": self.kind, "signal": self.signal, "detail": self.detail}


def _grams(text: str) -> set[str]:
    text = re.sub(r"[0-9.%％]+", " ", text.lower())
    words = set(re.findall(r"[a-z_]+", text))
    cjk = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def lexical_overlap(a: str, b: str) -> float:
    """Share of the smaller text's words/bigrams (numbers removed) found in the other."""
    ga, gb = _grams(a), _grams(b)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / min(len(ga), len(gb))


def _disjoint(a: set, b: set) -> bool:
    return bool(a) and bool(b) and not (a & b)


def _core_levers(f: Facts) -> set[str]:
    # "feed ads" is usually the setting, not the thing changed; channels are compared on their own.
    return (f.levers - {"channel"}) or f.levers


def _same_facets(new: Facts, old: Facts) -> bool:
    return all(
        not (a and b) or a == b
        for a, b in (
            (new.categories, old.categories),
            (new.channels, old.channels),
            (new.segments, old.segments),
            (new.metrics, old.metrics),
        )
    )


def _flipped(new: Facts, old: Facts) -> str | None:
    """An antonym pair whose sides differ, read in order ("最高" ↔ "最低")."""
    for name, sides in new.polarity.items():
        before = old.polarity.get(name)
        if not before:
            continue
        if len(before) == len(sides) and before != sides:
            return name
        if set(sides) != set(before) and len(set(sides)) == 1 and len(set(before)) == 1:
            return name
    return None


def _value_change(new: Facts, old: Facts) -> str | None:
    for slot, values in new.slots.items():
        before = old.slots.get(slot)
        # A restatement may quote fewer figures; a different one (from 1.8 to 2.3 vs to 1.5) changes the claim.
        if before and not (values <= before or before <= values):
            return f"{slot}: {sorted(before)} → {sorted(values)}"
    if new.times and old.times and not (new.times & old.times):
        return f"time: {sorted(old.times)} → {sorted(new.times)}"
    return None


def relate(
    new_text: str,
    old_text: str,
    *,
    cosine: float,
    same_text: bool,
    duplicate_cosine: float,
    related_cosine: float,
    exception_to_global: bool = False,
) -> Relation | None:
    """None when the two are not about the same thing at all. `exception_to_global`: the
    old memory holds for everyone and the new one for one advertiser only, so a different
    rule for that advertiser is an exception, not a contradiction."""
    if same_text:
        return Relation(DUPLICATE, "same text")
    if cosine < related_cosine - CONTRADICTION_MARGIN:
        return None
    new, old = facts(new_text), facts(old_text)
    if cosine < related_cosine:
        # Loosely related: only a contradiction about the same subject and lever counts.
        same_subject = bool(new.brands & old.brands) and bool(_core_levers(new) & _core_levers(old))
        found = (
            relate(
                new_text,
                old_text,
                cosine=related_cosine,
                same_text=False,
                duplicate_cosine=2.0,
                related_cosine=related_cosine,
                exception_to_global=exception_to_global,
            )
            if same_subject
            else None
        )
        return found if found is not None and found.kind == CONTRADICTION else None
    if _disjoint(new.brands, old.brands):
        return Relation(COMPATIBLE, "different subject", f"{sorted(old.brands)} vs {sorted(new.brands)}")
    if _disjoint(new.categories, old.categories):
        return Relation(COMPATIBLE, "different subject", f"{sorted(old.categories)} vs {sorted(new.categories)}")
    for facet, a, b in (
        ("channel", new.channels, old.channels),
        ("audience segment", new.segments, old.segments),
        ("lever", _core_levers(new), _core_levers(old)),
        ("metric", new.metrics, old.metrics),
    ):
        if _disjoint(a, b):
            return Relation(COMPATIBLE, f"different {facet}", f"{sorted(b)} vs {sorted(a)}")
    overlap = lexical_overlap(new_text, old_text)
    shared_topic = bool(new.levers & old.levers) or bool(new.metrics & old.metrics) or overlap >= 0.5
    if not shared_topic:
        return Relation(COMPATIBLE, "different topic", f"overlap {overlap:.2f}")
    flipped = _flipped(new, old)
    conflicting = flipped or ((new.negations > 0) != (old.negations > 0)) or (new.correction and overlap >= 0.4) or _value_change(new, old)
    if conflicting and exception_to_global:
        return Relation(COMPATIBLE, "advertiser exception to a global memory")
    if flipped:
        return Relation(CONTRADICTION, "antonym", flipped)
    if (new.negations > 0) != (old.negations > 0) and overlap >= 0.4:
        return Relation(CONTRADICTION, "negation", f"negations {old.negations} → {new.negations}")
    # A correction cue only corrects this memory when it is about the same slot, not merely the same lever.
    same_slot = bool(set(new.slots) & set(old.slots)) or bool(new.times and old.times) or overlap >= 0.4
    if new.correction and not old.correction and same_slot:
        return Relation(CONTRADICTION, "correction", new.correction[0])
    changed = _value_change(new, old)
    if changed:
        return Relation(CONTRADICTION, "different value", changed)
    if not _same_facets(new, old):
        return Relation(COMPATIBLE, "related, different scope", f"cosine {cosine:.3f} overlap {overlap:.2f}")
    if (overlap >= 0.6 and cosine >= duplicate_cosine) or overlap >= 0.85:
        return Relation(DUPLICATE, "near-identical, same polarity", f"cosine {cosine:.3f} overlap {overlap:.2f}")
    shared_slots = sorted({k for k in new.slots if k in old.slots} | ({"time"} if new.times & old.times else set()))
    if shared_slots and new.levers == old.levers and overlap >= 0.45:
        return Relation(DUPLICATE, "same slots and values", ", ".join(shared_slots))
    return Relation(COMPATIBLE, "related, no conflicting signal", f"cosine {cosine:.3f} overlap {overlap:.2f}")
