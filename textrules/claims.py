"""What a statement claims: its subject, the lever it is about, the value it gives that
lever, the speaker's stance and the conditions it holds under.

Two memories are compared on these parts, never on how many words they share: a
Wednesday bid rule and a Friday bid rule share almost every word and are about different
things; "日预算5000元" and "日预算改为8000元" share most words and contradict.

Everything here is plain text rules (no database, no model), so the funnel, reflection,
the desk and the backfill all read a claim the same way. A model may propose a richer
claim (judges/), but it is validated against this shape."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from textrules import signals as s


class Lever(StrEnum):
    BID = "bid"
    BUDGET = "budget"
    CREATIVE = "creative"
    TARGETING = "targeting"
    SCHEDULE = "schedule"
    LANDING_PAGE = "landing_page"
    CHANNEL = "channel"
    KPI_TARGET = "kpi_target"
    COMPLIANCE = "compliance"
    KEYWORD = "keyword"
    FREQUENCY = "frequency"
    PROMOTION = "promotion"
    PACING = "pacing"
    # Whether ads run at all; stated by a switch ("暂停", "resume") when no other lever is named.
    DELIVERY = "delivery"


class Stance(StrEnum):
    STATEMENT = "statement"
    ORDER = "order"
    CORRECTION = "correction"
    QUESTION = "question"
    HYPOTHETICAL = "hypothetical"
    HEDGE = "hedge"
    SUGGESTION = "suggestion"


# A question, a what-if or a hedge says nothing settled: never a fact, never a confirmation.
UNSETTLED = frozenset({Stance.QUESTION, Stance.HYPOTHETICAL, Stance.HEDGE})


class RelationKind(StrEnum):
    DUPLICATE = "duplicate"
    CONTRADICTION = "contradiction"
    REFINEMENT = "refinement"
    COMPATIBLE = "compatible"
    AMBIGUOUS = "ambiguous"


class Facet(StrEnum):
    """The parts of a subject (and the lever) a relation can name as matched or differing."""

    ADVERTISER = "advertiser"
    PLAN = "plan"
    CATEGORY = "category"
    CHANNEL = "channel"
    AUDIENCE = "audience"
    WEEKDAY = "weekday"
    TIME_SLOT = "time_slot"
    EVENT = "event"
    PERIOD = "period"
    PLACE = "place"
    LEVER = "lever"
    METRIC = "metric"
    VALUE = "value"
    DIRECTION = "direction"
    SWITCH = "switch"
    POLARITY = "polarity"
    CONDITION = "condition"
    TEXT = "text"


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.I | re.A)


# --- vocabulary -------------------------------------------------------------------------
# Verticals and the finer categories inside them, each finer one with its Chinese name as
# the canonical form so "信用卡" and "credit card" are one subject. A finer category is
# narrower than its vertical; two different finer categories are different subjects.
VERTICALS: dict[str, tuple[str, dict[str, str]]] = {
    "医药OTC": (
        r"医药\s*OTC|\bOTC\b|医药|药品|\bpharma\w*",
        {"感冒药": r"感冒药|\bcold medicine\b", "维生素": r"维生素|\bvitamins?\b", "保健品": r"保健品|\bsupplements?\b"},
    ),
    "美妆": (
        r"美妆|彩妆|化妆品|\bbeauty\b|\bcosmetics?\b|护肤|\bskin ?care\b",
        {
            "口红": r"口红|唇膏|\blipsticks?\b",
            "面膜": r"面膜|\bface masks?\b",
            "精华": r"精华|\bserums?\b",
            "香水": r"香水|\bperfumes?\b",
            "粉底": r"粉底|\bfoundation\b",
        },
    ),
    "母婴": (
        r"母婴|\bbaby\b|\bmaternal\b",
        {"奶粉": r"奶粉|\binfant formula\b|\bformula\b", "纸尿裤": r"纸尿裤|尿不湿|\bdiapers?\b", "童装": r"童装|\bkids'? clothing\b"},
    ),
    "食品": (
        r"食品|\bfoods?\b|快消|\bFMCG\b",
        {
            "零食": r"零食|\bsnacks?\b",
            "饮料": r"饮料|\bbeverages?\b|\bdrinks?\b",
            "生鲜": r"生鲜|\bfresh produce\b",
            "咖啡": r"咖啡|\bcoffee\b",
            "茶饮": r"茶饮|奶茶|\bmilk tea\b|\btea\b",
            "酸奶": r"酸奶|\byogh?urt\b",
        },
    ),
    "服饰": (
        r"服饰|服装|\bapparel\b|\bfashion\b|\bclothing\b",
        {
            "女装": r"女装|\bwomen'?s ?wear\b",
            "男装": r"男装|\bmen'?s ?wear\b",
            "跑鞋": r"跑鞋|\brunning shoes?\b",
            "运动鞋": r"运动鞋|\bsneakers?\b",
            "羽绒服": r"羽绒服|\bdown jackets?\b",
            "内衣": r"内衣|\blingerie\b|\bunderwear\b",
            "大码": r"大码|\bplus[- ]size\b",
        },
    ),
    "3C": (
        r"\b3C\b|数码|消费电子|\belectronics\b|家电",
        {
            "手机": r"手机|\b(?:smart)?phones?\b",
            "耳机": r"耳机|\bheadphones?\b|\bearbuds\b",
            "笔记本": r"笔记本电脑|笔记本|\blaptops?\b",
            "平板": r"平板|\btablets?\b",
            "相机": r"相机|\bcameras?\b",
        },
    ),
    "游戏": (
        r"游戏|手游|\bgam(?:e|es|ing)\b",
        {
            "SLG": r"\bSLG\b|策略游戏",
            "RPG": r"\bRPG\b|角色扮演",
            "休闲游戏": r"休闲游戏|三消|消除|\bcasual games?\b|\bmatch-3\b",
            "卡牌": r"卡牌|\bcard games?\b",
        },
    ),
    "教育": (
        r"教育|\beducation\b|\bedtech\b|课程|网课|\bcourses?\b|\bclass(?:es)?\b",
        {
            "K12": r"\bK12\b|中小学|少儿",
            "考研": r"考研|\bpostgraduate exams?\b",
            "专升本": r"专升本",
            "雅思": r"雅思|\bIELTS\b",
            "MBA": r"\bMBA\b",
            "编程": r"编程|\bcoding\b",
            "英语": r"英语课|少儿英语|\bEnglish (?:courses?|classes)\b",
            "职业教育": r"职业教育|职业培训|\bvocational\b",
        },
    ),
    "汽车": (
        r"汽车|\bauto(?:motive)?\b|\bcars?\b|车型",
        {
            "新能源": r"新能源车?|电动车|\bEVs?\b|\belectric (?:cars?|vehicles?)\b",
            "SUV": r"\bSUVs?\b",
            "轿车": r"轿车|\bsedans?\b",
            "二手车": r"二手车|\bused cars?\b",
            "试驾": r"试驾|\btest[- ]drives?\b",
        },
    ),
    "金融": (
        r"金融|\bfinanc\w*",
        {
            "信用卡": r"信用卡|\bcredit cards?\b",
            "理财": r"理财|\bwealth management\b",
            "贷款": r"贷款|\bloans?\b",
            "保险": r"保险|\binsurance\b",
            "基金": r"基金|\bfunds?\b",
            "证券": r"证券|开户|\bbrokerage\b|\bstock accounts?\b",
        },
    ),
    "旅游": (
        r"旅游|旅行|\btravel\b|\btourism\b|\btrips?\b",
        {
            "酒店": r"酒店|民宿|\bhotels?\b|\bstaycations?\b",
            "机票": r"机票|\bflights?\b|\bair tickets?\b",
            "景区": r"景区|门票|\bscenic\b|\battractions?\b",
            "邮轮": r"邮轮|\bcruises?\b",
            "滑雪": r"滑雪|\bski\w*",
            "签证": r"签证|\bvisas?\b",
            "出境游": r"出境游|\boutbound\b",
            "亲子游": r"亲子游|\bfamily trips?\b",
        },
    ),
    "本地生活": (
        r"本地生活|\blocal (?:services|life)\b|到店|团购|\bdeals?\b",
        {
            "外卖": r"外卖|\bfood delivery\b",
            "餐饮": r"餐饮|餐厅|\brestaurants?\b",
            "火锅": r"火锅|\bhot ?pot\b",
            "健身": r"健身房|健身|\bgyms?\b|\bfitness\b",
            "保洁": r"保洁|家政|\bcleaning\b|\bhousekeeping\b",
            "美发": r"美发|\bhair salons?\b",
        },
    ),
    "SaaS": (
        r"\bSaaS\b|企业服务|\bB2B\b|企业软件|\bsoftware\b",
        {"CRM": r"\bCRM\b", "ERP": r"\bERP\b", "协同办公": r"协同办公|\bcollaboration\b", "云服务": r"云服务|\bcloud\b"},
    ),
    "家居": (
        r"家居|\bhome (?:goods|furnishing)\b|\bfurniture\b|家具",
        {
            "床垫": r"床垫|\bmattress(?:es)?\b",
            "沙发": r"沙发|\bsofas?\b",
            "家装": r"家装|装修|\brenovation\b",
            "厨具": r"厨具|\bcookware\b",
            "灯具": r"灯具|\blamps?\b|\blighting\b",
        },
    ),
    "宠物": (r"宠物|\bpets?\b", {"猫粮": r"猫粮|\bcat food\b", "狗粮": r"狗粮|\bdog food\b", "猫砂": r"猫砂|\bcat litter\b"}),
}
_VERTICAL_RX = {
    name: (re.compile(broad, re.I | re.A), {canon: re.compile(rx, re.I | re.A) for canon, rx in fine.items()})
    for name, (broad, fine) in VERTICALS.items()
}

CHANNELS: dict[str, str] = {
    "信息流": r"信息流|\bfeeds?\b|\bin-feed\b",
    "搜索": r"搜索广告|搜索推广|搜索渠道|\bsearch ads?\b|\bSEM\b|百度搜索",
    "直播": r"直播间|直播|\blive ?stream\w*|\blive rooms?\b",
    "短视频": r"短视频|\bshort videos?\b",
    "开屏": r"开屏|\bsplash\b",
    "抖音": r"抖音|\bdouyin\b|巨量引擎|巨量|\bocean ?engine\b|千川",
    "快手": r"快手|\bkuaishou\b|磁力",
    "小红书": r"小红书|\bxiaohongshu\b|\bRED\b|聚光",
    "微信": r"微信|朋友圈|视频号|广点通|腾讯广告|\bwechat\b|\bmoments\b",
    "百度": r"百度|\bbaidu\b",
    "B站": r"B站|哔哩哔哩|\bbilibili\b",
    "淘宝": r"淘宝|天猫|阿里妈妈|万相台|\btaobao\b|\btmall\b",
    "京东": r"京东|京准通|\bJD\b",
    "拼多多": r"拼多多|\bpinduoduo\b|\bPDD\b",
    "美团": r"美团|大众点评|\bmeituan\b",
    "TikTok": r"\btiktok\b",
    "Google": r"\bgoogle\b|\bYouTube\b",
    "Meta": r"\bmeta\b|\bfacebook\b|\binstagram\b",
}
_CHANNEL_RX = {name: re.compile(rx, re.I | re.A) for name, rx in CHANNELS.items()}

AUDIENCES: dict[str, str] = {
    "新客": r"新客|新用户|首购|拉新|\bnew (?:customers?|users?|buyers?)\b|\bfirst-time\b",
    "老客": r"老客|老用户|复购|回流|\b(?:existing|returning|repeat) (?:customers?|users?|buyers?)\b|\bretarget\w*",
    "女性": r"女性|女生|\bwomen\b|\bfemale\b",
    "男性": r"男性|男生|\bmen\b|\bmale\b",
    "学生": r"学生|大学生|\bstudents?\b",
    "宝妈": r"宝妈|妈妈|\bmoms?\b|\bmothers?\b|\bparents?\b|家长",
    "中老年": r"中老年|银发|老年|\bseniors?\b|\belderly\b",
    "白领": r"白领|上班族|职场|\bprofessionals?\b|\boffice workers?\b",
    "一线城市": r"一线城市|一二线|\btier[- ]?1\b",
    "下沉市场": r"下沉市场|三四线|低线城市|县城|\blower-tier\b",
    "高净值": r"高净值|\bhigh[- ]net[- ]worth\b|\bHNW\b",
    "相似人群": r"相似人群|\blookalikes?\b",
}
_AUDIENCE_RX = {name: re.compile(rx, re.I | re.A) for name, rx in AUDIENCES.items()}
AGE_RANGE = re.compile(
    r"(\d{1,2})\s*(?:-|–|~|～|到|至|to)\s*(\d{1,2})\s*(?:岁|周岁|\byears? old\b|\byo\b)|\b(?:aged?|ages)\s*(\d{1,2})\s*(?:-|–|to)\s*(\d{1,2})\b",
    re.I | re.A,
)

EVENTS: dict[str, str] = {
    "双11": r"双\s*11|双十一|\b11\.11\b|\bsingles'? day\b|\bdouble 11\b",
    "双12": r"双\s*12|双十二|\b12\.12\b",
    "618": r"\b618\b|六一八",
    "春节": r"春节|年货节|过年|\bchinese new year\b|\bspring festival\b|\bCNY\b",
    "中秋": r"中秋|\bmid-autumn\b",
    "国庆": r"国庆|十一黄金周|\bgolden week\b",
    "七夕": r"七夕|\bqixi\b",
    "情人节": r"情人节|\bvalentine",
    "女神节": r"女神节|三八节|38节|妇女节|\bwomen'?s day\b",
    "开学季": r"开学季|\bback[- ]to[- ]school\b",
    "黑五": r"黑五|黑色星期五|\bblack friday\b|\bcyber monday\b",
    "Prime Day": r"\bprime day\b",
    "周年庆": r"周年庆|店庆|\banniversary sale\b",
}
_EVENT_RX = {name: re.compile(rx, re.I | re.A) for name, rx in EVENTS.items()}

_WEEKDAY_NAMES = {
    "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7,
    "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6, "sunday": 7,
    "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7,
}  # fmt: skip
WEEKDAY = re.compile(
    r"(?:周|星期|礼拜)([一二三四五六日天])|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)s?\b",
    re.I | re.A,
)
WEEKDAY_SPAN = re.compile(r"(?:周|星期)([一二三四五六日天])\s*(?:到|至|-|~|～)\s*(?:周|星期)?([一二三四五六日天])")
WORKDAYS = re.compile(r"工作日|\bweekdays?\b", re.I | re.A)
WEEKEND = re.compile(r"周末|双休日|\bweekends?\b", re.I | re.A)

# Named parts of the day, used when no clock range is given.
DAYPARTS: dict[str, str] = {
    "早高峰": r"早高峰|早上|清晨|\bmorning rush\b|\bearly morning\b",
    "上午": r"上午|\bmorning\b|\bAM\b",
    "午间": r"午间|中午|午休|\bnoon\b|\blunch\b",
    "下午": r"下午|\bafternoon\b",
    "晚间": r"晚高峰|晚上|晚间|夜间|\bevening\b|\bprime time\b|\bnight\b",
    "凌晨": r"凌晨|深夜|\blate night\b|\bovernight\b",
}
_DAYPART_RX = {name: re.compile(rx, re.I | re.A) for name, rx in DAYPARTS.items()}
_PM = re.compile(r"(?:晚上|晚间|下午|傍晚|夜里|晚|\bpm\b)\s*$", re.I | re.A)

LEVERS: dict[Lever, str] = {
    Lever.BID: r"出价|竞价|加价|提价|降价|调价|溢价|\bbids?\b|\bbidding\b|\bCPC cap\b|\bmax CPC\b|\btarget cost\b",
    Lever.BUDGET: r"预算|日耗|消耗上限|花费上限|日限额|\bbudgets?\b|\bspend(?:ing)? (?:cap|limit)\b|\bdaily cap\b",
    Lever.CREATIVE: r"素材|创意|文案|首图|主图|封面|标题|视频素材|\bcreatives?\b|\bad copy\b|\bcopy\b|\bheadlines?\b|\bthumbnails?\b|\bvisuals?\b",
    Lever.TARGETING: r"定向|人群包|受众|投放人群|\btarget(?:ing)?\b|\baudiences?\b|\bsegments?\b",
    Lever.SCHEDULE: r"投放时段|时段|排期|分时|\bdayparting\b|\bschedul\w*\b|\bhours\b|\btime slots?\b",
    Lever.LANDING_PAGE: r"落地页|着陆页|详情页|表单页|\blanding pages?\b",
    Lever.CHANNEL: r"渠道|版位|媒体|投放平台|\bplacements?\b|\bchannels?\b",
    Lever.KPI_TARGET: r"目标\s*(?:ROI|CPA|ROAS|CPC|CTR)|(?:ROI|CPA|ROAS)\s*目标|考核|\bKPI\b|\btarget (?:ROI|CPA|ROAS)\b|\b(?:ROI|CPA|ROAS) target\b|\bgoal\b",
    Lever.COMPLIANCE: r"合规|禁用词|违禁词|极限词|广告法|资质|审核|功效宣称|字样|宣称|用语|措辞|\bwording\b|\bcomplian\w*|\bprohibited\b|\bbanned words?\b|\bclaims?\b|\bdisclaimer\b",
    Lever.KEYWORD: r"关键词|搜索词|否词|否定词|\bkeywords?\b|\bsearch terms?\b",
    Lever.FREQUENCY: r"频控|频次|\bfrequency(?: cap)?\b",
    Lever.PROMOTION: r"优惠券|满减|折扣|促销价|赠品|\bdiscounts?\b|\bcoupons?\b|\bpromo codes?\b",
    Lever.PACING: r"匀速|加速投放|\bpacing\b|\baccelerated delivery\b",
}
_LEVER_RX = {lever: re.compile(rx, re.I | re.A) for lever, rx in LEVERS.items()}

METRICS: dict[str, str] = {
    "roi": r"\bROI\b|\bROAS\b|投产比?|回报率",
    "ctr": r"\bCTR\b|点击率",
    "cvr": r"\bCVR\b|转化率",
    "cpa": r"\bCPA\b|转化成本|获客成本|\bCPL\b|线索成本|\bcost per (?:acquisition|lead|install)\b|\bCPI\b",
    "cpc": r"\bCPC\b|点击成本|单次点击",
    "cpm": r"\bCPM\b|千次曝光成本|千展成本",
    "gmv": r"\bGMV\b|成交额|销售额|\brevenue\b",
    "spend": r"消耗|花费|\bspend\b|\bcost\b",
    "traffic": r"流量|曝光|展现|\bimpressions?\b|\btraffic\b|\breach\b",
    "conversions": r"转化量|转化数|订单量|\bconversions?\b|\borders\b|\binstalls?\b|\bleads\b",
}
_METRIC_RX = {name: re.compile(rx, re.I | re.A) for name, rx in METRICS.items()}

UP = _rx(
    r"上调|上浮|提高|提升|增加|加大|加价|提价|调高|拉高|放宽|扩大|放量|翻倍|多投",
    r"\braise[sd]?\b|\braising\b|\bincreas(?:e[sd]?|ing)\b|\bboost(?:ed|ing)?\b|\bbump(?:ed)? up\b|\bscale up\b|\bexpand\w*\b|\bhigher\b|\bdouble\b",
)
DOWN = _rx(
    r"下调|下浮|降低|减少|缩减|降价|压价|调低|压低|收紧|缩小|控量|减半|少投",
    r"\blower(?:ed|ing)?\b|\bcut(?:s|ting)?\b|\breduc(?:e[sd]?|ing)\b|\bdecreas(?:e[sd]?|ing)\b|\btrim(?:med)?\b|\bscale down\b|\bhalve\b|\btighten\w*\b",
)
SWITCH_ON = _rx(
    r"恢复|重启|开启|上线|重新投放|重新开投|开投|继续投放?|启用|照常投放",
    r"\bgo(?:es)? live\b|\bresum(?:e[sd]?|ing)\b|\brestart\w*\b|\bturn(?:ed)? (?:it )?on\b|\benabl(?:e[sd]?|ing)\b|\breactivat\w*\b|\bre-?launch\w*\b",
)
SWITCH_OFF = _rx(
    r"暂停|停投|停止投放|关停|关闭|下线|停掉|叫停",
    r"\bpaus(?:e[sd]?|ing)\b|\bstop(?:ped|ping)?\b|\bturn(?:ed)? (?:it )?off\b|\bdisabl(?:e[sd]?|ing)\b|\bshut (?:it )?down\b|\bhalt\w*\b",
)
POSITIVE = _rx(
    r"(?<!不)适合|(?<!不)适用|(?<![无没])有效|效果好|可以用|允许|推荐",
    r"\bworks?(?: well)?\b|\beffective\b|\bsuitable\b|\ballowed\b|\bperform(?:s|ed)? well\b|\bgood fit\b",
)

QUESTION_END = re.compile(r"[?？]\s*$|[吗呢么嘛]\s*[?？。.!！]*\s*$")
# Asking forms that stay questions without a question mark. Words that also open a
# statement ("是否投放由客户决定", "Do not raise bids") are left to the question mark.
QUESTION = _rx(
    r"要不要|是不是|能不能|可不可以|会不会|该不该|有没有|怎么样|咋办|你觉得呢|你看呢|行不行|对吗|好吗|对不对|好不好",
    r"\bdo you think\b|\bwhat about\b|\bhow about\b|\bany idea\b|\bwhat if\b|\bshould we\b|\bcould we\b|\bshall we\b",
)
HYPOTHETICAL = _rx(r"如果|假如|假设|要是|万一|倘若|设想", r"\bif\b|\bsuppose\b|\bsupposing\b|\bwhat if\b|\bhypothetically\b|\bimagine\b")
# "如果 ROI 低于 1.5 就暂停" is a rule with a condition, not a what-if: a consequence follows.
CONSEQUENCE = _rx(r"就|则|那么|便|一律|立即|马上|需要|必须", r"\bthen\b|\bwe (?:will|must|should)\b|\balways\b|\bimmediately\b")
WOULD = _rx(r"会怎样|会怎么样|会不会|能不能|会发生什么|结果会", r"\bwould\b|\bcould\b|\bmight\b")
ORDER = _rx(
    r"必须|一律|务必|不得|禁止|要求|统一|严格|规定|以后都|从今天起|从现在起",
    r"\bmust\b|\balways\b|\bnever\b|\bfrom now on\b|\bgoing forward\b|\brequired?\b|\bmandatory\b|\bshall\b",
)
# "只在…", "仅限…", "only for…": the statement narrows where it holds.
RESTRICTION = _rx(r"只在|只针对|只用于|仅在|仅限|仅针对|只限|限定在|\bonly (?:for|on|in|during|when|within|to)\b|\bexclusively\b")
CONDITIONS: dict[str, str] = {
    "冷启动期": r"冷启动|新计划|起量期|学习期|\bcold[- ]start\b|\blearning phase\b|\bnew campaigns?\b",
    "首发期": r"首发|新品期|上新期|新品上市|\blaunch(?:es|ed|ing)?\b|\bnew product\b",
    "大促期间": r"大促|促销期|活动期间|\bpeak sale\b|\bpromotion period\b|\bsale period\b",
    "稳定期": r"稳定后|稳定期|成熟期|\bonce stable\b|\bsteady state\b|\bafter (?:it )?stabili[sz]es\b",
    "测试期": r"测试期|\bA/?B test\b|\btest phase\b|测试阶段",
    "阈值": r"(?:低于|高于|超过|不足|大于|小于|跌破|突破)\s*-?\d|\b(?:below|above|under|over|exceeds?|drops? below)\s*\$?-?\d",
}
_CONDITION_RX = {name: re.compile(rx, re.I | re.A) for name, rx in CONDITIONS.items()}

# A store, city or market the statement is limited to: "徐汇店", "the downtown store", "新加坡市场".
PLACE = re.compile(
    r"([\u4e00-\u9fff]{2,4}?)(?:门店|分店|店)(?![铺面员长])|([\u4e00-\u9fff]{2,4}?)市场|"
    r"\bthe ([A-Z][a-z]+(?: [A-Z][a-z]+)?|downtown|airport|flagship) (?:store|branch|outlet|market)\b|"
    r"北京|上海|广州|深圳|杭州|成都|南京|武汉|重庆|新加坡|香港|海外|国内|北美|欧洲|东南亚|"
    r"\b(?:Beijing|Shanghai|Guangzhou|Shenzhen|Hangzhou|Chengdu|Singapore|Hong Kong|overseas|domestic|North America|Europe)\b",
    re.A,
)
_PLACE_CANON = {
    "singapore": "新加坡",
    "overseas": "海外",
    "domestic": "国内",
    "beijing": "北京",
    "shanghai": "上海",
    "hangzhou": "杭州",
    "shenzhen": "深圳",
}
_NOT_PLACES = {"旗舰", "本", "该", "每", "全", "这家", "那家", "门", "分", "单", "新", "老", "同", "首"}
ADVERTISER = re.compile(r"\b(?:brand|adv|advertiser|client)_[A-Za-z0-9]+\b", re.I | re.A)
PLAN = re.compile(
    r"\b(?:plan|campaign|cmp|camp|adgroup|ad_group|计划)[_#\-: ]?([A-Za-z]?\d+[A-Za-z0-9]*|[A-Za-z]\b)|计划\s*([A-Za-z0-9]{1,8})(?![A-Za-z0-9])|([A-Za-z])\s*计划",
    re.I | re.A,
)
_UNIT = re.compile(r"\s*(%|％|个百分点|pp|元|块|万元|万|千|k|倍|x|×|小时|天|次|美元|usd|rmb|yuan)?", re.I | re.A)
_CURRENCY_BEFORE = re.compile(r"[$¥￥]\s*$")
_UNIT_CANON = {"％": "%", "个百分点": "pp", "块": "元", "k": "千", "x": "倍", "×": "倍", "usd": "$", "美元": "$", "rmb": "元", "yuan": "元"}
ROLE_WINDOW = 14
# A budget per day and one per month are different settings.
_PERIOD_RX = {
    "/day": re.compile(r"日预算|每日|每天|单日|日耗|\bdaily\b|\bper day\b|\ba day\b", re.I | re.A),
    "/week": re.compile(r"每周|周预算|\bweekly\b|\bper week\b", re.I | re.A),
    "/month": re.compile(r"每月|月度|(?<![\d一二三四五六七八九十])月预算|\bmonthly\b|\bper month\b", re.I | re.A),
}


@dataclass(frozen=True)
class Quantity:
    """A number with the thing it measures (a lever, a metric, an age) and its unit."""

    role: str
    value: float
    unit: str = ""

    def label(self) -> str:
        number = f"{self.value:g}"
        return f"{self.role} {number}{self.unit}".strip()

    def amount(self) -> float:
        """The value in base units: 1万 is 10000, 15k is 15000."""
        return self.value * {"万": 10_000, "万元": 10_000, "千": 1_000}.get(self.unit, 1)


@dataclass(frozen=True)
class Subject:
    advertiser: str = ""
    plans: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()  # verticals and finer categories, as named
    channels: frozenset[str] = frozenset()
    audiences: frozenset[str] = frozenset()
    weekdays: frozenset[int] = frozenset()
    time_slots: frozenset[tuple[float, float]] = frozenset()
    dayparts: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()  # stores, cities and markets


@dataclass(frozen=True)
class Claim:
    subject: Subject = field(default_factory=Subject)
    levers: frozenset[Lever] = frozenset()
    metrics: frozenset[str] = frozenset()
    quantities: tuple[Quantity, ...] = ()
    direction: int = 0  # +1 up, -1 down, 0 none or both
    switch: int = 0  # +1 on, -1 off, 0 none
    polarity: int = 1  # -1 when the statement says no / not / never about its lever
    # Judgements on an antonym scale ("最高"/"最低", "better"/"worse") as (scale, side).
    assessments: frozenset[tuple[str, int]] = frozenset()
    # Which way a reported metric moved ("CPA下降", "CPA from 40 to 52") as (metric, sign).
    trends: frozenset[tuple[str, int]] = frozenset()
    stance: Stance = Stance.STATEMENT
    conditions: frozenset[str] = frozenset()

    @property
    def topic(self) -> frozenset[str]:
        """What the statement is about: the levers it sets and the metrics it reports."""
        return frozenset(self.levers) | frozenset(f"metric:{m}" for m in self.metrics)

    def as_dict(self) -> dict[str, Any]:
        sub = self.subject
        return {
            "subject": {
                "advertiser": sub.advertiser,
                "plans": sorted(sub.plans),
                "categories": sorted(sub.categories),
                "channels": sorted(sub.channels),
                "audiences": sorted(sub.audiences),
                "weekdays": sorted(sub.weekdays),
                "time_slots": [list(slot) for slot in sorted(sub.time_slots)],
                "dayparts": sorted(sub.dayparts),
                "events": sorted(sub.events),
                "places": sorted(sub.places),
            },
            "levers": sorted(self.levers),
            "metrics": sorted(self.metrics),
            "value": {
                "quantities": [{"role": q.role, "value": q.value, "unit": q.unit} for q in self.quantities],
                "direction": self.direction,
                "switch": self.switch,
                "polarity": self.polarity,
                "assessments": [list(a) for a in sorted(self.assessments)],
                "trends": [list(t) for t in sorted(self.trends)],
            },
            "stance": str(self.stance),
            "conditions": sorted(self.conditions),
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Claim:
        """The inverse of as_dict, tolerant of missing keys (an older or a model-made claim)."""
        sub = raw.get("subject") or {}
        value = raw.get("value") or {}

        def words(key: str) -> frozenset[str]:
            return frozenset(str(v) for v in sub.get(key) or [] if str(v).strip())

        levers = frozenset(Lever(v) for v in raw.get("levers") or [] if v in Lever._value2member_map_)
        stance = raw.get("stance")
        return cls(
            subject=Subject(
                advertiser=str(sub.get("advertiser") or ""),
                plans=words("plans"),
                categories=words("categories"),
                channels=words("channels"),
                audiences=words("audiences"),
                weekdays=frozenset(int(d) for d in sub.get("weekdays") or [] if str(d).isdigit() and 1 <= int(d) <= 7),
                time_slots=frozenset(
                    (float(a), float(b))
                    for a, b in (slot for slot in sub.get("time_slots") or [] if isinstance(slot, list | tuple) and len(slot) == 2)
                ),
                dayparts=words("dayparts"),
                events=words("events"),
                places=words("places"),
            ),
            levers=levers,
            metrics=frozenset(str(m) for m in raw.get("metrics") or []),
            quantities=tuple(
                Quantity(role=str(q.get("role", "")), value=float(q.get("value", 0)), unit=str(q.get("unit", "")))
                for q in value.get("quantities") or []
                if isinstance(q, Mapping) and isinstance(q.get("value"), int | float)
            ),
            direction=_sign(value.get("direction")),
            switch=_sign(value.get("switch")),
            polarity=-1 if _sign(value.get("polarity")) < 0 else 1,
            assessments=frozenset(
                (str(a[0]), _sign(a[1])) for a in value.get("assessments") or [] if isinstance(a, list | tuple) and len(a) == 2
            ),
            trends=frozenset((str(t[0]), _sign(t[1])) for t in value.get("trends") or [] if isinstance(t, list | tuple) and len(t) == 2),
            stance=Stance(stance) if stance in Stance._value2member_map_ else Stance.STATEMENT,
            conditions=frozenset(str(c) for c in raw.get("conditions") or []),
        )


def _sign(value: Any) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0
    return (number > 0) - (number < 0)


# --- extraction ---------------------------------------------------------------------------
def _names(table: Mapping[str, re.Pattern[str]], text: str) -> frozenset[str]:
    return frozenset(name for name, rx in table.items() if rx.search(text))


def _categories(text: str) -> frozenset[str]:
    found: set[str] = set()
    for vertical, (broad, fine) in _VERTICAL_RX.items():
        fine_hits = {canon for canon, rx in fine.items() if rx.search(text)}
        if fine_hits:
            found |= {f"{vertical}/{hit}" for hit in fine_hits}
        elif broad.search(text):
            found.add(vertical)
    return frozenset(found)


# "下周一起", "effective Monday": the day a change starts, not the days it covers.
START_DAY = re.compile(
    r"(?:下|本|这)?(?:周|星期|礼拜)[一二三四五六日天](?:起|开始|生效)|\b(?:effective|starting|from|as of|beginning) (?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.I | re.A,
)


def _weekdays(text: str) -> frozenset[int]:
    text = START_DAY.sub(" ", text)
    days: set[int] = set()
    for m in WEEKDAY_SPAN.finditer(text):
        a, b = _WEEKDAY_NAMES[m.group(1)], _WEEKDAY_NAMES[m.group(2)]
        days |= set(range(a, b + 1)) if a <= b else set()
    text = WEEKDAY_SPAN.sub(" ", text)
    for m in WEEKDAY.finditer(text):
        name = (m.group(1) or m.group(2) or "").lower()
        if name in _WEEKDAY_NAMES:
            days.add(_WEEKDAY_NAMES[name])
    if WORKDAYS.search(text):
        days |= {1, 2, 3, 4, 5}
    if WEEKEND.search(text):
        days |= {6, 7}
    return frozenset(days)


def _time_slots(text: str) -> frozenset[tuple[float, float]]:
    slots = set()
    for m in s.TIME_RANGE.finditer(text):
        if not (m.group(5) or (m.group(2) and m.group(4))):
            continue
        start = int(m.group(1)) + int(m.group(2) or 0) / 60
        end = int(m.group(3)) + int(m.group(4) or 0) / 60
        # "晚上8点到10点" is 20:00-22:00.
        if _PM.search(text[max(0, m.start() - 4) : m.start()]) or (m.group(5) or "").lower() == "pm":
            start, end = (start + 12 if start < 12 else start), (end + 12 if end < 12 else end)
        if 0 <= start <= 24 and 0 <= end <= 24:
            slots.add((round(start, 2), round(end, 2)))
    return frozenset(slots)


def _role_at(text: str, start: int, end: int) -> str:
    """What a number measures: the nearest lever or metric named before it (or, failing
    that, just after it). "ROI仅1.8" is an ROI, "25-35岁" an age."""
    after = text[end : end + 4]
    if re.match(r"\s*(?:岁|周岁|years? old)", after, re.I):
        return "age"
    # Latin words are longer than Chinese ones: the same few words span more characters.
    before = text[max(0, start - ROLE_WINDOW * 3) : start]
    latin = sum(ch.isascii() for ch in before[-ROLE_WINDOW:]) > ROLE_WINDOW // 2
    window = before if latin else before[-ROLE_WINDOW:]
    best, best_pos = "", -1
    for name, rx in (*_METRIC_RX.items(), *((str(k), v) for k, v in _LEVER_RX.items())):
        for m in rx.finditer(window):
            # On a tie the metric wins: "目标ROI" names the ROI, the KPI lever is implied.
            if m.end() > best_pos:
                best, best_pos = name, m.end()
    if best:
        period = next((name for name, rx in _PERIOD_RX.items() if rx.search(window)), "")
        return f"{best}{period}"
    ahead = text[end : end + ROLE_WINDOW]
    if re.match(r"\s*(?:公里|千米|km\b|miles?\b)", ahead, re.I):
        return "radius"
    for name, rx in (*_METRIC_RX.items(), *((str(k), v) for k, v in _LEVER_RX.items())):
        if rx.match(ahead.lstrip(" 的")):
            return name
    return ""


def _quantities(text: str) -> tuple[Quantity, ...]:
    plain = s.without_time_ranges(AGE_RANGE.sub(" ", text))
    out: list[Quantity] = []
    for m in re.finditer(r"(?<![A-Za-z_0-9.])(\d+(?:\.\d+)?)", plain):
        tail = plain[m.end() : m.end() + 1]
        value = float(m.group(1))
        if tail in {"年", "月", "日", "号", "/", "期"} or (1900 <= value <= 2100 and tail != "元"):
            continue
        if plain[max(0, m.start() - 1) : m.start()] in {"_", "#"} or re.match(r"[A-Za-z]", plain[m.end() : m.end() + 1] or " "):
            continue  # an id like plan_07 or a code like 618A, not a quantity
        unit_match = _UNIT.match(plain, m.end())
        unit = (unit_match.group(1) or "").lower() if unit_match else ""
        if _CURRENCY_BEFORE.search(plain[max(0, m.start() - 2) : m.start()]):
            unit = "$" if "$" in plain[max(0, m.start() - 2) : m.start()] else "元"
        unit = _UNIT_CANON.get(unit, unit)
        role = _role_at(plain, m.start(), m.end())
        if not role:
            continue
        out.append(Quantity(role=role, value=value, unit=unit))
    for m in AGE_RANGE.finditer(text):
        low, high = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out.append(Quantity(role="age", value=float(low), unit="岁起"))
        out.append(Quantity(role="age", value=float(high), unit="岁止"))
    return tuple(dict.fromkeys(out))


def _places(text: str) -> frozenset[str]:
    found = set()
    for m in PLACE.finditer(text):
        name = next((g for g in m.groups() if g), m.group(0)).strip()
        name = re.sub(r"^(?:的|在|和|与)", "", name)
        if name and name not in _NOT_PLACES:
            found.add(_PLACE_CANON.get(name.lower(), name))
    return frozenset(found)


def _plans(text: str) -> frozenset[str]:
    found = set()
    for m in PLAN.finditer(text):
        ident = m.group(1) or m.group(2) or m.group(3) or ""
        if ident and not re.fullmatch(r"\d{4}", ident):
            found.add(ident.upper())
    return frozenset(found)


# A sentence ends at Chinese end punctuation, or at ASCII ? ! ; followed by a space or the
# end ("search?query=" inside a link is not a question).
SENTENCE = re.compile(r"(?:[^。！？；\n?!;]|[?!;](?=\S))+(?:[。！？；\n]+|[?!;]+(?=\s|$))?")


def _mostly_asking(body: str) -> bool:
    """Ends on a question, or asks in at least half of its sentences ("我确认过？我不记得")."""
    sentences = [m.group(0).strip() for m in SENTENCE.finditer(body) if m.group(0).strip(" 。！？!?；;\n")]
    if not sentences:
        return False
    asked = sum(1 for sentence in sentences if QUESTION_END.search(sentence))
    return bool(QUESTION_END.search(body)) or asked * 2 >= len(sentences)


URL = re.compile(r"https?://\S+|\bwww\.\S+", re.I)


def _stance(text: str) -> Stance:
    body = URL.sub(" ", text).strip()
    hypothetical = HYPOTHETICAL.search(body)
    if hypothetical and (WOULD.search(body) or QUESTION_END.search(body)) and not CONSEQUENCE.search(body[hypothetical.end() :]):
        return Stance.HYPOTHETICAL
    if _mostly_asking(body) or (QUESTION.search(body) and not ORDER.search(body)):
        return Stance.QUESTION
    if s.is_hedged(body):
        return Stance.HEDGE
    if s.has(s.CORRECTION, body) and not s.has(s.SUGGESTION, body):
        return Stance.CORRECTION
    if s.has(s.SUGGESTION, body):
        return Stance.SUGGESTION
    if ORDER.search(body):
        return Stance.ORDER
    return Stance.STATEMENT


def _balance(up: Iterable[str], down: Iterable[str]) -> int:
    a, b = bool(list(up)), bool(list(down))
    return (a and not b) - (b and not a)


def _data_subject(data: Mapping[str, Any] | None) -> dict[str, set[str]]:
    """Subject facets a structured event states in its fields (plan_id, category, channel…)."""
    out: dict[str, set[str]] = {"plans": set(), "text": set()}
    if not isinstance(data, Mapping):
        return out
    for key, value in data.items():
        name = str(key).lower()
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
            if re.search(r"plan|campaign|计划", name):
                out["plans"].add(text.upper())
            elif re.search(
                r"categor|vertical|channel|audience|segment|weekday|slot|daypart|event|promotion|condition|类目|渠道|人群|时段|条件", name
            ):
                out["text"].add(text)
    return out


# Scales a judgement is made on; the first pattern of each pair is side +1. The longer
# form comes first so "不适合" is not read as "适合".
SCALES: dict[str, tuple[str, str]] = {
    "best_worst": (
        r"最高|最好|最强|最多|最佳|效果最好|\bhighest\b|\bbest\b|\bmost\b|\btop\b",
        r"最低|最差|最弱|最少|效果最差|\blowest\b|\bworst\b|\bleast\b",
    ),
    "better_worse": (
        r"更好|好于|优于|高于|\bbetter\b|\boutperform\w*|\bhigher than\b",
        r"更差|差于|不如|低于|\bworse\b|\bunderperform\w*|\blower than\b",
    ),
    "fit": (r"(?<!不)适合|(?<!不)适用|\bsuitable\b|\bgood fit\b", r"不适合|不适用|不宜|\bnot suitable\b|\bunsuitable\b|\bpoor fit\b"),
    "works": (
        r"(?<![无没])有效|见效|\beffective\b|\bworks?\b",
        r"无效|没效果|没用|\bineffective\b|\bdoes(?:n'?t| not) work\b|\bdidn'?t work\b",
    ),
}
_SCALE_RX = {name: (re.compile(a, re.I | re.A), re.compile(b, re.I | re.A)) for name, (a, b) in SCALES.items()}
RISE = _rx(
    r"上升|升高|提升|提高|增长|上涨|走高|变高|增加|翻倍|变好",
    r"\brose\b|\brises?\b|\bincreas\w*|\bwent up\b|\bgrew\b|\bimprov\w*|\bclimb\w*|\bjump\w*",
)
FALL = _rx(
    r"下降|降低|下跌|走低|变低|减少|回落|下滑|变差|恶化",
    r"\bfell\b|\bfalls?\b|\bdecreas\w*|\bwent down\b|\bdropp?\w*|\bdeclin\w*|\bworse\w*|\bslipp?\w*",
)


def _assessments(text: str) -> frozenset[tuple[str, int]]:
    found = set()
    for name, (plus, minus) in _SCALE_RX.items():
        minus_hits = list(minus.finditer(text))
        # Drop "+" hits inside a "-" hit ("不适合" holds "适合").
        spans = [(m.start(), m.end()) for m in minus_hits]
        plus_hits = [m for m in plus.finditer(text) if not any(a <= m.start() < b for a, b in spans)]
        if plus_hits and not minus_hits:
            found.add((name, 1))
        elif minus_hits and not plus_hits:
            found.add((name, -1))
    return frozenset(found)


def _trends(text: str) -> frozenset[tuple[str, int]]:
    """A metric and the way it moved: a rise or fall word right after it, or a from-to pair."""
    found = set()
    for name, rx in _METRIC_RX.items():
        for m in rx.finditer(text):
            after = text[m.end() : m.end() + 16]
            span = s.FROM_TO.search(after)
            if span:
                a, b = (span.group(1), span.group(2)) if span.group(1) else (span.group(3), span.group(4))
                if float(a) != float(b):
                    found.add((name, 1 if float(b) > float(a) else -1))
                    continue
            rise, fall = RISE.search(after[:8]), FALL.search(after[:8])
            if rise and not fall:
                found.add((name, 1))
            elif fall and not rise:
                found.add((name, -1))
    return frozenset(found)


@lru_cache(maxsize=8192)
def _extract(text: str, advertiser: str, data_plans: frozenset[str], data_text: str) -> Claim:
    scope_text = f"{text} {data_text}"
    advertisers = {a.lower() for a in ADVERTISER.findall(text)}
    subject = Subject(
        advertiser=advertiser.lower() or (next(iter(advertisers)) if len(advertisers) == 1 else ""),
        plans=_plans(scope_text) | data_plans,
        categories=_categories(scope_text),
        channels=_names(_CHANNEL_RX, scope_text),
        audiences=_names(_AUDIENCE_RX, scope_text),
        weekdays=_weekdays(scope_text),
        time_slots=_time_slots(scope_text),
        dayparts=frozenset() if _time_slots(scope_text) else _names(_DAYPART_RX, scope_text),
        events=_names(_EVENT_RX, scope_text),
        places=_places(scope_text),
    )
    levers = frozenset(lever for lever, rx in _LEVER_RX.items() if rx.search(text))
    if subject.channels and re.search(r"改投|换到|转投|切到|\bswitch\w* to\b|\bmove\w* to\b", text, re.I):
        levers |= {Lever.CHANNEL}
    up, down = s.hits(UP, text), s.hits(DOWN, text)
    on, off = s.hits(SWITCH_ON, text), s.hits(SWITCH_OFF, text)
    negative = s.hits(s.NEGATION, text)
    quantities = _quantities(text)
    metrics = _names(_METRIC_RX, text)
    if not levers:
        levers = _implicit_levers(subject, quantities, switched=bool(on or off), reports=bool(metrics))
    return Claim(
        subject=subject,
        levers=levers,
        metrics=metrics,
        quantities=quantities,
        direction=_balance(up, down),
        switch=_balance(on, off),
        polarity=-1 if negative and not off else 1,
        assessments=_assessments(text),
        trends=_trends(text),
        stance=_stance(text),
        conditions=_names(_CONDITION_RX, scope_text) | ({"限定"} if RESTRICTION.search(text) else set()),
    )


def _implicit_levers(subject: Subject, quantities: tuple[Quantity, ...], *, switched: bool, reports: bool) -> frozenset[Lever]:
    """The lever a statement sets without naming it: "暂停投放" switches delivery, "周末投放"
    schedules, "只投25-35岁男性" targets. A report of metrics sets none."""
    if switched:
        return frozenset({Lever.DELIVERY})
    if reports:
        return frozenset()
    if subject.weekdays or subject.time_slots or subject.dayparts:
        return frozenset({Lever.SCHEDULE})
    if subject.audiences or any(q.role in {"age", "radius"} for q in quantities):
        return frozenset({Lever.TARGETING})
    return frozenset()


def extract_claim(text: str, *, advertiser: str | None = None, data: Mapping[str, Any] | None = None) -> Claim:
    """The claim of one statement. `advertiser` is the scope the write path already knows
    (from the credential); `data` adds the subject fields a structured event carries."""
    facets = _data_subject(data)
    return _extract(text or "", advertiser or "", frozenset(facets["plans"]), " ".join(sorted(facets["text"])))


# --- relations ----------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimRelation:
    """How a new claim relates to a remembered one, and the part that decided it."""

    kind: RelationKind
    facet: Facet
    old: str = ""
    new: str = ""
    matched: tuple[str, ...] = ()  # the subject parts and levers both claims share

    def as_dict(self) -> dict[str, Any]:
        return {"relation": str(self.kind), "facet": str(self.facet), "old": self.old, "new": self.new, "matched": list(self.matched)}


def _show(values: Iterable[Any]) -> str:
    items = []
    for v in sorted(values, key=str):
        if isinstance(v, tuple):
            items.append("–".join(f"{int(x):02d}:{int(round((x % 1) * 60)):02d}" for x in v))
        elif isinstance(v, int) and not isinstance(v, bool):
            items.append(["周一", "周二", "周三", "周四", "周五", "周六", "周日"][v - 1])
        else:
            items.append(str(v))
    return "、".join(items)


def _overlap(a: frozenset[tuple[float, float]], b: frozenset[tuple[float, float]]) -> bool:
    return any(x0 < y1 and y0 < x1 for x0, x1 in a for y0, y1 in b)


def _category_relation(a: frozenset[str], b: frozenset[str]) -> str:
    """'same', 'disjoint', 'narrower' (b inside a), 'broader' or 'none' (one side silent)."""
    if not a or not b:
        return "none"
    if a == b:
        return "same"
    if a & b:
        return "same"
    verticals_a = {c.split("/")[0] for c in a}
    verticals_b = {c.split("/")[0] for c in b}
    if not verticals_a & verticals_b:
        return "disjoint"
    fine_a, fine_b = {c for c in a if "/" in c}, {c for c in b if "/" in c}
    if fine_a and fine_b:
        return "disjoint"
    return "narrower" if fine_b else "broader"


def _subject_facets(sub: Subject, *, schedule: bool = False) -> list[tuple[Facet, frozenset[Any]]]:
    # When both set the schedule, the days are its value, compared with the other values.
    return [
        (Facet.ADVERTISER, frozenset({sub.advertiser}) if sub.advertiser else frozenset()),
        (Facet.PLAN, sub.plans),
        (Facet.CHANNEL, sub.channels),
        (Facet.AUDIENCE, sub.audiences),
        (Facet.WEEKDAY, frozenset() if schedule else sub.weekdays),
        (Facet.EVENT, sub.events),
        (Facet.PLACE, sub.places),
    ]


def _value_difference(new: Claim, old: Claim, shared: frozenset[str]) -> tuple[Facet, str, str] | None:
    roles = set(shared) | {f"metric:{m}" for m in new.metrics & old.metrics}
    role_names = {r.removeprefix("metric:") for r in roles} | {"age"}
    for q_new in new.quantities:
        if q_new.role.split("/")[0] not in role_names:
            continue
        before = [q for q in old.quantities if q.role == q_new.role and _unit_family(q.unit) == _unit_family(q_new.unit)]
        if before and all(abs(q.amount() - q_new.amount()) > 1e-9 for q in before):
            same_count = len([q for q in new.quantities if q.role == q_new.role]) == len(before)
            if same_count or len(before) == 1:
                return Facet.VALUE, "、".join(q.label() for q in before), q_new.label()
    for scale, side in new.assessments:
        if (scale, -side) in old.assessments:
            return Facet.POLARITY, _scale_word(scale, -side), _scale_word(scale, side)
    for metric, sign in new.trends:
        if (metric, -sign) in old.trends:
            return Facet.DIRECTION, f"{metric} {_direction_word(-sign)}", f"{metric} {_direction_word(sign)}"
    if new.switch and old.switch and new.switch != old.switch:
        return Facet.SWITCH, _switch_word(old.switch), _switch_word(new.switch)
    if new.direction and old.direction and new.direction != old.direction:
        return Facet.DIRECTION, _direction_word(old.direction), _direction_word(new.direction)
    if new.polarity != old.polarity and not (new.switch or old.switch):
        return Facet.POLARITY, _polarity_word(old.polarity), _polarity_word(new.polarity)
    if Lever.SCHEDULE in shared:
        a, b = old.subject, new.subject
        if a.weekdays and b.weekdays and a.weekdays != b.weekdays:
            return Facet.WEEKDAY, _show(a.weekdays), _show(b.weekdays)
        if a.time_slots and b.time_slots and a.time_slots != b.time_slots:
            return Facet.TIME_SLOT, _show(a.time_slots), _show(b.time_slots)
        if a.dayparts and b.dayparts and not (a.dayparts & b.dayparts):
            return Facet.TIME_SLOT, _show(a.dayparts), _show(b.dayparts)
    return None


def _period_difference(new: Claim, old: Claim) -> tuple[str, str] | None:
    """A per-day figure and a per-month one for the same lever are two settings, not one changed."""
    for q_new in new.quantities:
        base, _, period = q_new.role.partition("/")
        others = [q for q in old.quantities if q.role.partition("/")[0] == base]
        if period and others and all(q.role != q_new.role for q in others):
            return others[0].role, q_new.role
    return None


def _unit_family(unit: str) -> str:
    return {"%": "%", "pp": "%", "元": "money", "万": "money", "万元": "money", "千": "money", "$": "money", "": "money"}.get(unit, unit)


def _scale_word(scale: str, side: int) -> str:
    return {"best_worst": ("最好", "最差"), "better_worse": ("更好", "更差"), "fit": ("适合", "不适合"), "works": ("有效", "无效")}[scale][
        0 if side > 0 else 1
    ]


def _switch_word(sign: int) -> str:
    return "开启" if sign > 0 else "暂停"


def _direction_word(sign: int) -> str:
    return "上调" if sign > 0 else "下调"


def _polarity_word(sign: int) -> str:
    return "肯定" if sign > 0 else "否定"


def relate_claims(new: Claim, old: Claim, *, same_text: bool = False) -> ClaimRelation:
    """Duplicate: same subject, lever and value. Contradiction: same subject and lever, a
    different value, direction, switch or polarity. Refinement: the same, under narrower
    conditions or a narrower subject. Compatible: a different subject part or lever.
    Ambiguous: a change whose subject cannot be told apart (one side names a part the
    other leaves open), which a person decides."""
    if same_text:
        return ClaimRelation(RelationKind.DUPLICATE, Facet.TEXT)
    matched: list[str] = []
    open_parts: list[Facet] = []  # named on one side only
    named_by: set[str] = set()  # which side names the parts the other leaves open
    narrower = False
    schedule = Lever.SCHEDULE in (new.levers & old.levers)
    for facet, a in _subject_facets(old.subject, schedule=schedule):
        b = dict(_subject_facets(new.subject, schedule=schedule))[facet]
        if a and b:
            if not (a & b):
                return ClaimRelation(RelationKind.COMPATIBLE, facet, _show(a), _show(b))
            matched.append(f"{facet}:{_show(a & b)}")
        elif a or b:
            open_parts.append(facet)
            narrower = narrower or bool(b)
            named_by.add("new" if b else "old")
    categories = _category_relation(old.subject.categories, new.subject.categories)
    if categories == "disjoint":
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.CATEGORY, _show(old.subject.categories), _show(new.subject.categories))
    one_sided = bool(old.subject.categories) != bool(new.subject.categories)
    # Only a named finer category narrows; a bare vertical ("car", "游戏") is context, not scope.
    fine_added = any("/" in c for c in (new.subject.categories if one_sided else ()))
    if categories in {"narrower", "broader"} or (one_sided and (fine_added or any("/" in c for c in old.subject.categories))):
        open_parts.append(Facet.CATEGORY)
        narrower = narrower or categories == "narrower" or fine_added
        named_by.add("new" if categories == "narrower" or (one_sided and new.subject.categories) else "old")
    elif categories == "same":
        matched.append(f"category:{_show(old.subject.categories & new.subject.categories or old.subject.categories)}")
    if not schedule:
        slots_a, slots_b = old.subject.time_slots, new.subject.time_slots
        if slots_a and slots_b and not _overlap(slots_a, slots_b):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.TIME_SLOT, _show(slots_a), _show(slots_b))
        parts_a, parts_b = old.subject.dayparts, new.subject.dayparts
        if parts_a and parts_b and not (parts_a & parts_b):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.TIME_SLOT, _show(parts_a), _show(parts_b))
        if bool(slots_a or parts_a) != bool(slots_b or parts_b):
            open_parts.append(Facet.TIME_SLOT)
            named_by.add("new" if slots_b or parts_b else "old")
    if len(named_by) == 2:
        # Each names a part of its subject the other does not: two scopes side by side
        # ("维生素 on Monday mornings" and "抖音信息流"), not one statement and its change.
        return ClaimRelation(RelationKind.COMPATIBLE, open_parts[0], "", "", tuple(matched))
    topic_a, topic_b = old.topic, new.topic
    if topic_a and topic_b and not (topic_a & topic_b):
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.LEVER, _show(topic_a), _show(topic_b), tuple(matched))
    shared = topic_a & topic_b
    matched.extend(f"lever:{t}" for t in sorted(shared))
    if not shared:
        # One side names no lever: it may well be about the other's (an implied one), so
        # their values are still compared.
        shared = topic_a | topic_b
    difference = _value_difference(new, old, shared)
    conditions_differ = new.conditions != old.conditions
    if difference is not None:
        facet, before, after = difference
        if conditions_differ and new.conditions and old.conditions and not (new.conditions & old.conditions):
            return ClaimRelation(RelationKind.COMPATIBLE, Facet.CONDITION, _show(old.conditions), _show(new.conditions), tuple(matched))
        if open_parts:
            return ClaimRelation(RelationKind.AMBIGUOUS, open_parts[0], before, after, tuple(matched))
        return ClaimRelation(RelationKind.CONTRADICTION, facet, before, after, tuple(matched))
    if (
        new.stance == Stance.CORRECTION
        and old.stance != Stance.CORRECTION
        and not (new.quantities and set(new.quantities) <= set(old.quantities))
    ):
        # "改为…", "而不是", "not only…": a correction of the same subject and lever says the old one was wrong.
        return ClaimRelation(RelationKind.CONTRADICTION, Facet.VALUE, "", "", tuple(matched))
    periods = _period_difference(new, old)
    if periods is not None:
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.PERIOD, periods[0], periods[1], tuple(matched))
    if open_parts or (conditions_differ and new.conditions > old.conditions):
        facet = open_parts[0] if open_parts else Facet.CONDITION
        kind = RelationKind.REFINEMENT if narrower or new.conditions > old.conditions else RelationKind.COMPATIBLE
        return ClaimRelation(kind, facet, "", "", tuple(matched))
    if conditions_differ:
        return ClaimRelation(RelationKind.COMPATIBLE, Facet.CONDITION, _show(old.conditions), _show(new.conditions), tuple(matched))
    more_numbers = {q.role for q in new.quantities} - {q.role for q in old.quantities}
    if more_numbers & ({str(t) for t in shared} | {m for m in new.metrics}):
        return ClaimRelation(RelationKind.REFINEMENT, Facet.VALUE, "", "、".join(sorted(more_numbers)), tuple(matched))
    return ClaimRelation(RelationKind.DUPLICATE, Facet.VALUE, "", "", tuple(matched))


def _grams(text: str) -> set[str]:
    text = re.sub(r"[0-9.%％]+", " ", text.lower())
    words = set(re.findall(r"[a-z_]+", text))
    cjk = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def wording_overlap(a: str, b: str) -> float:
    """Share of the shorter text's words and character pairs (numbers left out) found in
    the other. It never decides a relation; it only tells two structurally equal claims
    that are worded alike (a repeat) from two that say different things the claim
    vocabulary does not capture (a different product, store or event)."""
    ga, gb = _grams(a), _grams(b)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / min(len(ga), len(gb))
