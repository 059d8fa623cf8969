"""A small ad-ops synonym table for the offline deep-mode rewrite.

Each group names one concept the way ad-ops teams write it: the Chinese term, the jargon,
the English word, the platform's short and long names. A query that uses one of them is
expanded with the others, so a note that says 竞价 is found by a question about 出价 or bid.
Kept short and hand-checked: a wrong synonym costs precision on every query that uses it.
A name with an everyday English sense as well is marked Everyday where it stands.
"""

from __future__ import annotations

import re


class Everyday(str):
    """A table name with an everyday English sense ("review my essay", "a red dress", "a
    budget laptop"): alone it does not show that a question is about ad-ops
    (memories/search/relevance.py). The other names are specific to ad-ops."""


SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("出价", "竞价", "调价", "提价", "加价", Everyday("bid"), Everyday("bidding")),
    ("预算", "日预算", "消耗上限", "花费", Everyday("budget")),
    ("大促", "促销", "big sale", Everyday("promotion")),
    ("冷启动", "学习期", "起量", "cold start", "learning phase", "new campaign"),
    ("ROI", "投产比", "ROAS", "回报率"),
    ("CTR", "点击率"),
    ("CPA", "转化成本", "获客成本"),
    ("CVR", "转化率"),
    ("素材", "创意", "视频素材", Everyday("creative")),
    ("人群", "定向", "人群包", "受众", Everyday("audience"), "targeting"),
    ("落地页", "承接页", "landing page", Everyday("LP")),
    ("分时段", "时段", "几点", "dayparting", "best hours"),
    ("智能出价", "自动出价", "oCPM", "oCPX", "NoBid", "auto bidding"),
    ("异常", "骤降", "下跌", "掉量", "跌", Everyday("drop"), "anomaly"),
    ("GMV", "成交额", "销售额"),
    ("留资", "线索", "表单", Everyday("leads")),
    ("千川", "巨量千川", "Qianchuan"),
    ("抖音", "抖音信息流", "Douyin"),
    ("小红书", "小红书聚光", "聚光", Everyday("RED"), "xhs"),
    ("快手", "磁力金牛", "Kuaishou"),
    ("广点通", "腾讯广点通", "腾讯广告", "Tencent ads"),
    ("百度", "百度搜索推广", "百度搜索", "Baidu"),
    ("朋友圈", "微信朋友圈广告", "微信广告", "WeChat ads"),
    ("禁用词", "绝对化用语", "违禁词", "banned words"),
    ("资质", "批文", "审查批准文号", "版号", Everyday("license")),
    ("复盘", Everyday("review"), "总结"),
    ("达人", "KOL", "博主", "达人测评", "influencer", "influencers"),
)

# Lower-cased: the relevance floor compares the names a query wrote that way.
EVERYDAY_WORDS = frozenset(term.lower() for group in SYNONYM_GROUPS for term in group if isinstance(term, Everyday))

_INDEX: dict[str, tuple[str, ...]] = {}
for _group in SYNONYM_GROUPS:
    # Plain strings from here on: the mark is the table's, not the expanded query's.
    _names = tuple(map(str, _group))
    for _term in _names:
        _INDEX.setdefault(_term.lower(), _names)
# Longest first so 巨量千川 matches before 千川; Latin terms only on word boundaries.
_TERMS = sorted(_INDEX, key=len, reverse=True)
_PATTERN = re.compile(
    "|".join(rf"(?<![A-Za-z]){re.escape(t)}(?![A-Za-z])" if t.isascii() else re.escape(t) for t in _TERMS),
    re.IGNORECASE,
)


def synonym_matches(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(term as written, its group) for each table term in `text`, left to right."""
    return [(m.group(0), _INDEX[m.group(0).lower()]) for m in _PATTERN.finditer(text)]


def expand_terms(text: str) -> list[str]:
    """The other names of every table term in `text`, without repeats."""
    seen: dict[str, None] = {}
    for written, group in synonym_matches(text):
        for term in group:
            if term.lower() != written.lower():
                seen.setdefault(term, None)
    return list(seen)
