"""Which category path a memory belongs to, e.g. 医药OTC › 冷启动 › 出价.

Three levels: the vertical (品类), the situation (冷启动, 大促, 合规, 异常 …) and the lever
(出价, 预算, 人群定向 …). The typed trigger fields come first (`category`,
`business_line`, the environment event, the anomaly's metric, the changed variables),
then the memory's own category label, then the text. A level nothing points to is left
out, except the vertical, which falls back to 通用."""

from __future__ import annotations

import re
from typing import Any

from governance.constants import TriggerType
from governance.funnel.trigger_schemas import parse_trigger_data
from memories.constants import Layer

T = TriggerType
GENERAL_VERTICAL = "通用"


def _rx(*parts: str) -> re.Pattern[str]:
    # ASCII word boundaries: "全平台CPM上涨" names CPM although 台 is a Unicode word character.
    return re.compile("|".join(parts), re.IGNORECASE | re.ASCII)


# Table order breaks ties between names found at the same place.
VERTICALS: list[tuple[str, re.Pattern[str]]] = [
    (
        "医药OTC",
        _rx(
            r"医药",
            r"OTC",
            r"感冒药",
            r"维生素",
            r"用药",
            r"保健品",
            r"药品",
            r"\bmedical\b",
            r"\bpharma\w*",
            r"\bvitamins?\b",
            r"\bmedicine\b",
        ),
    ),
    (
        "美妆",
        _rx(r"美妆", r"口红", r"护肤", r"面膜", r"彩妆", r"化妆品", r"\bbeauty\b", r"\bskincare\b", r"\bcosmetics?\b", r"\blipstick\b"),
    ),
    (
        "数码3C",
        _rx(
            r"数码",
            r"3C",
            r"手机",
            r"耳机",
            r"笔记本",
            r"家电",
            r"电脑",
            r"\bheadphones?\b",
            r"\blaptops?\b",
            r"\bphones?\b",
            r"\belectronics\b",
        ),
    ),
    ("母婴", _rx(r"母婴", r"奶粉", r"纸尿裤", r"宝妈", r"\bbaby\b", r"\bmaternity\b")),
    ("食品", _rx(r"食品", r"零食", r"饮料", r"\bfood\b", r"\bsnacks?\b")),
    ("服饰", _rx(r"服饰", r"女装", r"男装", r"鞋", r"\bapparel\b", r"\bfashion\b")),
    ("教育", _rx(r"教育", r"课程", r"\beducation\b")),
    ("游戏", _rx(r"游戏", r"\bgames?\b", r"\bgaming\b")),
]

SITUATIONS: list[tuple[str, re.Pattern[str]]] = [
    ("合规", _rx(r"合规", r"违规", r"备案", r"绝对化", r"宣称", r"审核", r"不得出现", r"\bcompliance\b", r"\bmust not claim\b")),
    ("冷启动", _rx(r"冷启动", r"学习期", r"起量", r"首发", r"新品", r"\bcold[- ]start", r"\blearning phase\b", r"\blaunch")),
    (
        "大促",
        _rx(
            r"大促",
            r"双1[12]",
            r"双十[一二]",
            r"618",
            r"预热",
            r"蓄水",
            r"女神节",
            r"开学季",
            r"促销季",
            r"\bpromotion\b",
            r"\bsingles'? day\b",
            r"\bholiday\b",
        ),
    ),
    ("异常", _rx(r"异常", r"骤降", r"暴跌", r"突降", r"超时", r"延迟", r"\banomal", r"\bsudden\b", r"\blatency\b", r"\bdrops?\b")),
    ("账户与预算", _rx(r"余额", r"充值", r"预算上限", r"封顶", r"追加预算", r"预算分配", r"\bbalance\b")),
    ("周期规律", _rx(r"每周", r"周末", r"工作日", r"周[一二三四五六日]", r"换季", r"时段", r"\bweekly\b", r"\bweekend\b")),
    ("竞品", _rx(r"竞品", r"\bcompetitor")),
]

LEVERS: list[tuple[str, re.Pattern[str]]] = [
    ("出价", _rx(r"出价", r"调价", r"提价", r"降价", r"加价", r"竞价", r"oCPC", r"CPA", r"\bbids?\b", r"\bbidding\b")),
    ("预算", _rx(r"预算", r"消耗", r"日耗", r"余额", r"\bbudgets?\b", r"\bspend\b")),
    ("人群定向", _rx(r"人群", r"定向", r"受众", r"男性", r"女性", r"再营销", r"\baudiences?\b", r"\btarget(?:ing)?\b", r"\bretarget")),
    ("素材", _rx(r"素材", r"创意", r"视频", r"文案", r"话术", r"种草", r"\bcreatives?\b", r"\bvideos?\b")),
    ("关键词", _rx(r"关键词", r"品牌词", r"竞品词", r"否词", r"\bkeywords?\b")),
    ("渠道", _rx(r"信息流", r"搜索广告", r"抖音", r"小红书", r"快手", r"直播", r"渠道", r"\bfeed\b", r"\bsearch ads?\b", r"\bchannel")),
    ("落地页", _rx(r"落地页", r"详情页", r"回传", r"\blanding page", r"\bconversion (?:api|tracking)\b")),
    ("效果指标", _rx(r"\bROI\b", r"\bCTR\b", r"\bCPM\b", r"\bCPC\b", r"\bGMV\b", r"转化率", r"点击率")),
]

# A situation the trigger type implies when the text names none.
_SITUATION_BY_TYPE = {
    T.RULE_UPDATE: "合规",
    T.ANOMALY_PATTERN: "异常",
    T.PERIODIC_PATTERN: "周期规律",
    T.CROSS_DOMAIN_CORRELATION: "跨品类",
    T.USER_FEEDBACK: "客户偏好",
    T.STRATEGY_EXECUTION: "日常投放",
    T.PERFORMANCE_OPTIMIZATION: "日常投放",
    T.ENVIRONMENT_CHANGE: "市场环境",
}
_SITUATION_BY_LAYER = {Layer.L1: "规则", Layer.L2: "日常投放", Layer.L3: "市场环境", Layer.L4: "模板"}


def _first(table: list[tuple[str, re.Pattern[str]]], *texts: str) -> str | None:
    """The entry named earliest in the first text that names any ("Cosmetics … medical
    effects" is about cosmetics); the table order breaks ties."""
    for text in texts:
        if not text:
            continue
        found = [(match.start(), rank, name) for rank, (name, pattern) in enumerate(table) if (match := pattern.search(text))]
        if found:
            return min(found)[2]
    return None


def category_path(
    *, content: str, layer: str, trigger_type: str = "", data: dict[str, Any] | None = None, category: str = "", business_line: str = ""
) -> list[str]:
    """[vertical, situation, lever?]: the levels of the category tree this memory sits in."""
    parsed = parse_trigger_data(trigger_type, data or {}) if trigger_type or data else None
    field = (lambda name: str(parsed.get(name) or "")) if parsed else (lambda name: "")
    changed = (parsed.get("changed_variables") if parsed else None) or []
    typed = " ".join(
        filter(
            None,
            [
                field("category"),
                field("business_line"),
                field("event"),
                field("metric"),
                " ".join(changed),
                field("strategy_used"),
                field("scope"),
            ],
        )
    )
    vertical = _first(VERTICALS, field("category"), field("business_line"), category, business_line, content) or GENERAL_VERTICAL
    situation = (
        _first(SITUATIONS, typed, content, category) or _SITUATION_BY_TYPE.get(trigger_type) or _SITUATION_BY_LAYER.get(layer, "日常投放")
    )
    # A metric is a lever only when the memory names no real one (ROI is what most moves).
    lever = _first(LEVERS[:-1], typed, content) or _first(LEVERS[-1:], typed, content)
    return [vertical, situation, *([lever] if lever else [])]
