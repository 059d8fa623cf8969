"""The ad-ops names the entity links know, and how a free text mentions them.

One vocabulary serves both sides: extraction at write time (governance.knowledge.entities) and
the query side of retrieval (memories.search.entities), so a query that says 双十一 finds
the memories linked to 双11. Matching is longest-alias-first over the lower-cased text,
and a character span is read once (抖音信息流 is a channel, not also 信息流).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memories.constants import EntityKind

K = EntityKind

# canonical name → aliases (lower-case; the canonical name itself is always an alias).
LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    K.CHANNEL: {
        "抖音信息流": ("抖音信息流", "抖音", "巨量引擎", "巨量千川", "douyin"),
        "百度搜索": ("百度搜索", "百度", "baidu"),
        "腾讯广告": ("腾讯广告", "广点通", "微信朋友圈", "朋友圈广告", "微信广告", "tencent ads"),
        "快手": ("快手", "磁力引擎", "kuaishou"),
        "小红书": ("小红书", "xiaohongshu"),
        "信息流": ("信息流", "feed ads", "in-feed"),
        "搜索广告": ("搜索广告", "search ads", "search advertising"),
        "直播": ("直播间", "直播", "livestream"),
        "达人种草": ("达人种草", "达人", "kol"),
        "重定向": ("重定向", "retargeting"),
    },
    K.METRIC: {
        "ROI": ("roi", "roas", "投产比", "投入产出比"),
        "CPA": ("cpa", "转化成本"),
        "CPC": ("cpc", "点击成本"),
        "CPM": ("cpm", "千次展现成本"),
        "CTR": ("ctr", "点击率"),
        "CVR": ("cvr", "转化率", "conversion rate"),
        "GMV": ("gmv", "成交额"),
        "出价": ("出价", "调价", "提价", "降价", "ocpc", "bid", "bids", "bidding"),
        "预算": ("预算", "budget"),
    },
    K.CATEGORY: {
        "医药OTC": ("医药otc", "otc", "医药"),
        "美妆": ("美妆", "cosmetics", "化妆品", "skincare", "护肤"),
        "口红": ("口红", "lipstick"),
        "感冒药": ("感冒药", "感冒灵"),
        "维生素": ("维生素", "vitamin"),
        "儿童用药": ("儿童用药",),
        "母婴": ("母婴",),
        "数码": ("数码3c", "数码", "3c"),
        "手机": ("手机",),
        "耳机": ("耳机",),
        "笔记本电脑": ("笔记本电脑", "laptop"),
        "在线教育": ("在线教育",),
    },
    K.TIME_SLOT: {
        "双11": ("双11", "双十一", "11.11", "double 11"),
        "双12": ("双12", "双十二", "12.12"),
        "618": ("618",),
        "38女神节": ("38女神节", "三八节", "女神节"),
        "开学季": ("开学季",),
        "秋冬换季": ("秋冬换季",),
        "季度末": ("季度末", "quarter end"),
        "周末": ("周末", "weekend", "weekends"),
        "工作日": ("工作日", "weekday", "weekdays"),
        "晚高峰": ("晚高峰", "晚间", "夜间"),
        "周一": ("周一",),
        "周二": ("周二",),
        "周三": ("周三",),
        "周四": ("周四",),
        "周五": ("周五", "friday"),
        "周六": ("周六",),
        "周日": ("周日",),
    },
    K.EVENT: {
        "大促": ("大促", "大型促销", "蓄水期", "爆发期", "返场期", "promotion"),
        "冷启动": ("冷启动", "学习期", "cold start", "cold-start"),
        "异常": ("异常", "骤降", "暴跌", "anomaly", "anomalies"),
        "素材疲劳": ("素材疲劳", "creative fatigue"),
    },
}

# A mention of one entity that also names another (双11 is a time slot and a promotion).
IMPLIES: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    (K.TIME_SLOT, "双11"): ((K.EVENT, "大促"),),
    (K.TIME_SLOT, "双12"): ((K.EVENT, "大促"),),
    (K.TIME_SLOT, "618"): ((K.EVENT, "大促"),),
    (K.TIME_SLOT, "38女神节"): ((K.EVENT, "大促"),),
    (K.CATEGORY, "口红"): ((K.CATEGORY, "美妆"),),
    (K.CATEGORY, "感冒药"): ((K.CATEGORY, "医药OTC"),),
    (K.CATEGORY, "儿童用药"): ((K.CATEGORY, "医药OTC"),),
    (K.CATEGORY, "维生素"): ((K.CATEGORY, "医药OTC"),),
    (K.CATEGORY, "手机"): ((K.CATEGORY, "数码"),),
    (K.CATEGORY, "耳机"): ((K.CATEGORY, "数码"),),
    (K.CATEGORY, "笔记本电脑"): ((K.CATEGORY, "数码"),),
}

ADVERTISER_PATTERN = re.compile(r"(?<![a-z0-9_])brand_[a-z0-9]+(?![a-z0-9_])")
PLAN_PATTERN = re.compile(r"(?<![a-z0-9_])(plan_[a-z0-9_-]+|campaign_[a-z0-9_-]+)")
CLOCK_RANGE = re.compile(r"(\d{1,2})\s*(?:[:：](\d{2})|点)\s*(?:[-–~至到]|to)\s*(\d{1,2})\s*(?:[:：](\d{2})|点)")

MAX_NAME = 128


@dataclass(frozen=True)
class Mention:
    kind: str
    name: str


def _alias_table() -> list[tuple[str, str, str]]:
    rows = []
    for kind, names in LEXICON.items():
        for canonical, aliases in names.items():
            for alias in {canonical.lower(), *aliases}:
                rows.append((alias, str(kind), canonical))
    # Longest alias first, so a span goes to the most specific name.
    rows.sort(key=lambda row: len(row[0]), reverse=True)
    return rows


_ALIASES = _alias_table()
_CANONICAL = {(str(kind), alias): canonical for alias, kind, canonical in _ALIASES}


def _is_word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _bounded(text: str, start: int, end: int, alias: str) -> bool:
    """ASCII aliases match whole words only (roi in "roi 3.0", not in "heroic")."""
    if not alias[0].isascii():
        return True
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not _is_word_char(before) and not _is_word_char(after)


def canonical(kind: str, name: str) -> str:
    """The vocabulary's spelling of a name (roas → ROI, 双十一 → 双11); other names are
    kept as written, trimmed."""
    cleaned = " ".join(str(name).split())[:MAX_NAME]
    if kind == K.ADVERTISER or kind == K.PLAN:
        return cleaned
    return _CANONICAL.get((str(kind), cleaned.lower()), cleaned)


def find_mentions(text: str) -> list[Mention]:
    """Every vocabulary entity the text names, in order of first appearance, without repeats."""
    low = (text or "").lower()
    taken = [False] * len(low)
    found: list[tuple[int, Mention]] = []
    for pattern, kind in ((ADVERTISER_PATTERN, K.ADVERTISER), (PLAN_PATTERN, K.PLAN)):
        for match in pattern.finditer(low):
            original = text[match.start() : match.end()]
            found.append((match.start(), Mention(str(kind), original)))
            for i in range(match.start(), match.end()):
                taken[i] = True
    for match in CLOCK_RANGE.finditer(low):
        start_h, start_m, end_h, end_m = match.groups()
        if int(start_h) < 25 and int(end_h) < 25:
            name = f"{int(start_h):02d}:{start_m or '00'}-{int(end_h):02d}:{end_m or '00'}"
            found.append((match.start(), Mention(str(K.TIME_SLOT), name)))
            for i in range(match.start(), match.end()):
                taken[i] = True
    for alias, kind, name in _ALIASES:
        start = low.find(alias)
        while start >= 0:
            end = start + len(alias)
            if not any(taken[start:end]) and _bounded(low, start, end, alias):
                found.append((start, Mention(kind, name)))
                for i in range(start, end):
                    taken[i] = True
            start = low.find(alias, end)
    found.sort(key=lambda row: row[0])
    return with_implied([mention for _, mention in found])


def with_implied(mentions: list[Mention]) -> list[Mention]:
    out: list[Mention] = []
    for mention in mentions:
        for item in (mention, *(Mention(str(k), n) for k, n in IMPLIES.get((mention.kind, mention.name), ()))):
            if item not in out:
                out.append(item)
    return out
