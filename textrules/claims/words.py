"""The vocabulary claims are read with: verticals and finer categories, channels,
audiences, events, weekdays and dayparts, levers and metrics, directions, switches,
judgement scales, stance cues and conditions, in Chinese and English. Patterns compile
with re.ASCII so an ASCII word boundary holds next to Chinese characters."""

from __future__ import annotations

import re

from textrules.claims.parts import Lever
from textrules.signals import BOUND_PARTS, CLOCK_PARTS, PERMISSION_PARTS


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.I | re.A)


def _name_rx(pattern: str) -> re.Pattern[str]:
    """A name pattern of the vocabulary, its English words joined by a space or a hyphen as
    they are written ("running shoes", "running-shoe ads", "low sugar")."""
    return re.compile(re.sub(r"(?<=[a-z]) (?=[a-z])", r"[- ]", pattern), re.I | re.A)


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
            "面霜": r"面霜|乳霜|\bface creams?\b|\bmoisturi[sz]ers?\b",
            "防晒": r"防晒|\bsunscreens?\b",
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
        r"汽车|\bauto(?:motive)?\b(?!-)|(?<!\bown a )(?<!\bowns a )\bcars?\b(?! owners?)|车型",
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
            "借记卡": r"借记卡|储蓄卡|\bdebit cards?\b",
            "理财": r"理财|\bwealth management\b",
            "贷款": r"贷款|\bloans?\b",
            "保险": r"保险|\binsurance\b",
            "基金": r"基金|定投|\bfunds?\b|\bauto-invest\w*",
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
        r"本地生活|\blocal (?:services|life|deals?)\b|到店|团购|\bgroup ?buy\w*",
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
        {"CRM": r"\bCRM\b", "ERP": r"\bERP\b|进销存", "协同办公": r"协同办公|\bcollaboration\b", "云服务": r"云服务|\bcloud\b"},
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
VERTICAL_RX = {name: (_name_rx(broad), {canon: _name_rx(rx) for canon, rx in fine.items()}) for name, (broad, fine) in VERTICALS.items()}

CHANNELS: dict[str, str] = {
    "信息流": r"信息流|\bfeeds?\b|\bin-feed\b",
    "搜索": r"搜索广告|搜索推广|搜索渠道|\bsearch ads?\b|\bSEM\b|百度搜索",
    "直播": r"直播间|直播|\blive ?stream\w*|\blive rooms?\b",
    "短视频": r"短视频|\bshort videos?\b",
    "开屏": r"开屏|\bsplash\b",
    "抖音": r"抖音|\bdouyin\b|巨量引擎|巨量|\bocean ?engine\b|千川|本地推",
    "今日头条": r"今日头条|头条号|头条广告|头条信息流|\btoutiao\b",
    "快手": r"快手|\bkuaishou\b|磁力",
    "小红书": r"小红书|\bxiaohongshu\b|\bRED\b|聚光",
    "微信": r"微信|朋友圈|视频号|公众号|广点通|腾讯广告|\bwechat\b|\bmoments\b|\btencent ads\b",
    "百度": r"百度|\bbaidu\b",
    "知乎": r"知乎|\bzhihu\b",
    "微博": r"微博|\bweibo\b",
    "B站": r"B站|哔哩哔哩|\bbilibili\b",
    "淘宝": r"淘宝|天猫|阿里妈妈|万相台|直通车|引力魔方|\btaobao\b|\btmall\b",
    "京东": r"京东|京准通|\bJD\b",
    "拼多多": r"拼多多|\bpinduoduo\b|\bPDD\b",
    "美团": r"美团|大众点评|\bmeituan\b|\bdianping\b",
    "饿了么": r"饿了么|\beleme\b",
    "携程": r"携程|\bctrip\b|\btrip\.com\b",
    "飞猪": r"飞猪|\bfliggy\b",
    "汽车之家": r"汽车之家|\bautohome\b",
    "懂车帝": r"懂车帝|\bdongchedi\b",
    "应用商店": r"应用商店|应用市场|\bapp stores?\b|\bapple search ads\b",
    "腾讯视频": r"腾讯视频|\btencent video\b",
    "爱奇艺": r"爱奇艺|\biqiyi\b",
    "优酷": r"优酷|\byouku\b",
    "户外": r"户外广告|分众|电梯广告|\bout-of-home\b|\bOOH\b",
    "TikTok": r"\btiktok\b",
    "TapTap": r"\btaptap\b",
    "Google": r"\bgoogle\b|\bYouTube\b",
    "Bing": r"\bbing\b|\bmicrosoft ads\b",
    "Meta": r"\bmeta\b|\bfacebook\b|\binstagram\b",
    "LinkedIn": r"\blinkedin\b|领英",
    "X": r"\btwitter\b|\bX ads\b",
    "Amazon": r"\bamazon\b|亚马逊",
}
CHANNEL_RX = {name: _name_rx(rx) for name, rx in CHANNELS.items()}
# Ways to advertise rather than places: "抖音信息流" names a platform and a format of it.
CHANNEL_FORMATS = frozenset({"信息流", "搜索", "直播", "短视频", "开屏", "户外", "应用商店"})

AUDIENCES: dict[str, str] = {
    "新客": r"新客|新用户|首购|拉新|\bnew (?:customers?|users?|buyers?)\b|\bfirst-time\b",
    "老客": r"老客|老用户|复购|回流|\b(?:existing|returning|repeat) (?:customers?|users?|buyers?)\b|\bretarget\w*",
    "女性": r"女性|女生|\bwomen\b|\bfemale\b",
    "男性": r"男性|男生|\bmen\b|\bmale\b",
    "学生": r"学生|大学生|\bstudents?\b",
    "宝妈": r"宝妈|妈妈|\bmoms?\b|\bmothers?\b|\bparents?\b|家长",
    "中老年": r"中老年|银发|老年|\bseniors?\b|\belderly\b",
    "安卓用户": r"安卓|\bandroid\b",
    "iOS用户": r"\biOS\b|\biPhone users?\b|苹果用户",
    "车主": r"车主|(?<![所没])有车(?!型)|\bcar owners?\b|\bowns? a car\b",
    "白领": r"白领|上班族|职场|\bprofessionals?\b|\boffice workers?\b",
    # Tiers listed with a joiner ("一线和二线城市", "二线、三线城市") name each tier.
    "一线城市": r"一线城市|一二线|一线(?=\s*[和与及、/或]\s*[二三]线)|\btier[- ]?1\b",
    "二线城市": r"(?<!一)二线城市|一二线|二线(?=\s*[和与及、/或]\s*三线)|\btier[- ]?2\b",
    "下沉市场": r"下沉市场|三四线|三线城市|(?<=[和与及、/或])\s*三线|低线城市|县城|\blower-tier\b",
    "高净值": r"高净值|\bhigh[- ]net[- ]worth\b|\bHNW\b",
    "相似人群": r"相似人群|\blookalikes?\b",
}
AUDIENCE_RX = {name: _name_rx(rx) for name, rx in AUDIENCES.items()}
# Audiences that are alternatives rather than parts of one another: a city is in one tier.
CITY_TIERS = frozenset({"一线城市", "二线城市", "下沉市场"})
# Sets of alternatives: two audiences that each name a different one are two audiences.
AUDIENCE_ALTERNATIVES = (CITY_TIERS, frozenset({"男性", "女性"}), frozenset({"安卓用户", "iOS用户"}), frozenset({"新客", "老客"}))
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
EVENT_RX = {name: re.compile(rx, re.I | re.A) for name, rx in EVENTS.items()}

WEEKDAY_NAMES = {
    "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7,
    "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6, "sunday": 7,
    "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7,
}  # fmt: skip
WEEKDAY = re.compile(
    r"(?:周|星期|礼拜)([一二三四五六日天])|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)s?\b",
    re.I | re.A,
)
WEEKDAY_SPAN = re.compile(r"(?:周|星期)([一二三四五六日天])\s*(?:到|至|-|~|～)\s*(?:周|星期)?([一二三四五六日天])")
# Trading days are the working week (exchanges close at weekends).
WORKDAYS = re.compile(r"工作日|交易日|\bweekdays?\b|\btrading days?\b", re.I | re.A)
WEEKEND = re.compile(r"周末|双休日|\bweekends?\b", re.I | re.A)

# Named parts of the day, used when no clock range is given.
DAYPARTS: dict[str, str] = {
    "早高峰": r"早高峰|早上|清晨|\bmorning rush\b|\bearly morning\b",
    "上午": r"上午|\bmorning\b|\bAM\b",
    "午间": r"午间|中午|午休|\bnoon\b|\blunch\b",
    "下午": r"下午|\bafternoon\b",
    "晚间": r"晚高峰|晚上|晚间|夜间|\bevening\b|\bprime time\b|\bnight\b",
    "凌晨": r"凌晨|深夜|\blate night\b|\bovernight\b",
    "白天": r"白天|日间|\bdaytime\b|\bduring the day\b",
}
DAYPART_RX = {name: re.compile(rx, re.I | re.A) for name, rx in DAYPARTS.items()}
PM = re.compile(r"(?:晚上|晚间|下午|午后|傍晚|夜里|晚|\bpm\b)\s*$", re.I | re.A)
# English says the half of the day after the time as often as before it ("from 1 to 7 in the
# afternoon", "8 in the evening"; "afternoons 1-7").
# ("night" is left out: "every night 1-3am" is the small hours, "3 to 5 nights" a count.)
PM_BEFORE_EN = re.compile(r"\b(?:afternoons?|evenings?)\b[\s,:]*(?:from\s+|at\s+)?$", re.I)
PM_AFTER_EN = re.compile(r"^\s*(?:o'?clock\s*)?in the (?:afternoon|evening)\b", re.I)
# A part of the day said right after a range's separator sets the end's half on its own
# ("上午9点到下午6点", "晚上10点到凌晨2点").
END_PART = re.compile(rf"({CLOCK_PARTS})\s*$")
# The speaker presents the statement as a detail added to what was agreed ("用户补充：",
# "adv_x clarified:"): where it names a part the earlier one left open, it narrows that one.
ADDITION = re.compile(
    r"补充(?:说明|一下|一点|细节|信息)?\s*[:：]|具体来说\s*[，,:：]|具体而言\s*[，,:：]|\bclarified\b|\bto clarify\b|\bmore specifically\b"
    r"|\bto add to that\b|\bin addition\b",
    re.I | re.A,
)
# A part of the day right before a clock time only tells its half of the day ("上午10点",
# "晚上8点上线"): the time is the subject, not the whole morning or evening.
DAYPART_OF_CLOCK = re.compile(rf"(?:{CLOCK_PARTS})\s*(?=\d{{1,2}}\s*(?:点|[:：]\d{{2}}))")

# "target 700 yuan": a KPI's figure after "target", not whom delivery aims at; "target 30-40
# year old women" is an age, so aiming.
# "target 700 yuan", "target CPA 45": a KPI's figure, not whom delivery aims at.
_TARGET_FIGURE = r"\s+(?:(?:CPA|CPC|CPL|CPM|CPI|ROI|ROAS|CTR|CVR)\s+)?(?:of\s+|is\s+|at\s+)?[$¥￥]?\d+(?:\.\d+)?(?![\d.])(?!\s*(?:-|–|~|to)\s*\d+\s*(?:岁|years?|yo\b|year-old))(?!\s*\+)"
# "每天最多曝光3次": a cap on how often one person sees an ad, not a traffic figure.
FREQUENCY_CAP = r"(?:最多|至多|不超过)\s*(?:曝光|展示|展现)(?=\s*\d+\s*次)"
# The same words right before a figure: the figure is the cap.
FREQUENCY_BEFORE_FIGURE = re.compile(r"(?:最多|至多|不超过)\s*(?:曝光|展示|展现)\s*$")
LEVERS: dict[Lever, str] = {
    # "bid on brand terms" buys keywords; it says nothing of the bid's level.
    Lever.BID: r"出价|竞价|加价|提价|降价|调价|溢价|\bbid(?:s|ding)?\b(?! on\b[^.;,，。]*\b(?:terms?|keywords?|queries)\b(?![^;，。]*\d))|\bCPC cap\b|\bmax CPC\b|\btarget cost\b",
    Lever.BUDGET: r"预算|日耗|消耗上限|花费上限|日限额|\bbudgets?\b|\bspend(?:ing)? (?:cap|limit)\b|\bdaily cap\b",
    Lever.CREATIVE: r"素材|创意|文案|首图|主图|封面|标题|视频素材|\bcreatives?\b|\bad copy\b|\bcopy\b|\bheadlines?\b|\bthumbnails?\b|\bvisuals?\b",
    Lever.TARGETING: r"定向|人群包|受众|投放人群|目标人群|人群\s*[:：]|投放范围|投放地域|\btargeting\b|(?<!ROI )(?<!CPA )(?<!CPL )(?<!CPC )(?<!ROAS )\btarget(?:s|ed)?\b(?!"
    + _TARGET_FIGURE
    + r")|\baudiences?\b|\bsegments?\b|\bgeo-?target\w*",
    Lever.SCHEDULE: r"投放时段|时段|排期|分时|\bdayparting\b|\bschedul\w*\b|(?<!\d )(?<!\d)\bhours\b|\btime slots?\b",
    Lever.LANDING_PAGE: r"落地页|着陆页|详情页|表单页|\blanding pages?\b",
    Lever.CHANNEL: r"渠道|版位|媒体|投放平台|\bplacements?\b|\bchannels?\b",
    Lever.KPI_TARGET: r"目标\s*(?:ROI|CPA|ROAS|CPC|CTR)|(?:ROI|CPA|ROAS)\s*目标|考核|\bKPI\b|\btarget (?:ROI|CPA|ROAS)\b|\btarget"
    + _TARGET_FIGURE
    + r"|\b(?:ROI|CPA|ROAS) target\b|\bgoal\b",
    Lever.COMPLIANCE: r"合规|禁用词|违禁词|极限词|广告法|资质|审核|功效宣称|字样|宣称|用语|措辞|\bwording\b|\bcomplian\w*|\bprohibited\b|\bbanned words?\b|\bclaims?\b|\bdisclaimer\b",
    Lever.KEYWORD: r"关键词|搜索词|否词|否定词|\bkeywords?\b|\bsearch terms?\b|\b(?:brand|generic|competitor) terms?\b",
    Lever.FREQUENCY: r"频控|频次|\bfrequency(?: cap)?\b|" + FREQUENCY_CAP,
    Lever.PROMOTION: r"优惠券|满减|折扣|促销价|赠品|\bdiscounts?\b|\bcoupons?\b|\bpromo codes?\b",
    Lever.PACING: r"匀速|加速投放|\bpacing\b|\baccelerated delivery\b",
}
LEVER_RX = {lever: re.compile(rx, re.I | re.A) for lever, rx in LEVERS.items()}

METRICS: dict[str, str] = {
    "roi": r"\bROI\b|\bROAS\b|投产比?|回报率",
    "ctr": r"\bCTR\b|点击率",
    # A bare 转化 compared ("周六转化最差", "转化更好") is its rate.
    "cvr": r"\bCVR\b|转化率|转化(?=最|更|较)",
    "cpa": r"\bCPA\b|转化成本|获客成本|\bCPL\b|线索成本|核销成本|到店成本|\bcost per (?:acquisition|lead|install|redemption|visit)\b|\bCPI\b",
    "cpc": r"\bCPC\b|点击成本|单次点击|每次点击(?:的)?(?:花费|费用|成本)?|\bcost per click\b",
    "cpm": r"\bCPM\b|千次曝光成本|千展成本",
    "gmv": r"\bGMV\b|成交额|销售额|\brevenue\b",
    "spend": r"消耗|花费|\bspend\b|\bcost\b",
    "traffic": r"流量|曝光|展现|搜索量|搜索指数|访问量|访客数|\bimpressions?\b|\btraffic\b|\breach\b|\bsearch volume\b|\bvisits\b",
    "conversions": r"转化量|转化数|订单量|\bconversions?\b|\borders\b|\binstalls?\b|\bleads\b",
}
METRIC_RX = {name: re.compile(rx, re.I | re.A) for name, rx in METRICS.items()}

UP = _rx(
    r"上调|上浮|提高|提升|增加|加大|加价|提价|调高|拉高|放宽|扩大|放量|翻倍|多投|加投|追投",
    r"\braise[sd]?\b|\braising\b|\bincreas(?:e[sd]?|ing)\b|\bboost(?:ed|ing)?\b|\bbump(?:ed)? up\b|\bscale up\b|\bexpand\w*\b|\bhigher\b|\bdouble\b",
)
DOWN = _rx(
    r"下调|下浮|降低|减少|缩减|降价|压价|调低|压低|收紧|缩小|控量|减半|少投|减投",
    r"\blower(?:ed|ing)?\b|\bcut(?:s|ting)?\b|\breduc(?:e[sd]?|ing)\b|\bdecreas(?:e[sd]?|ing)\b|\btrim(?:med)?\b|\bscale down\b|\bhalve\b|\btighten\w*\b",
)
SWITCH_ON = _rx(
    # What comes back decides: "恢复投放", "早8点自动恢复" switch on; "恢复到2%", "恢复正常",
    # "后来自己恢复了" report a metric or a dip that ended.
    r"恢复(?!正常|到|了|原|过来)|重启|开启|上线|重新投放|重新开投|开投|开始投(?:放)?(?![诉入标资])|继续投放?|启用|照常投放",
    r"\bgo(?:es)? live\b|\bresum(?:e[sd]?|ing)\b|\brestart\w*\b|\bturn(?:ed)? (?:it )?on\b|\benabl(?:e[sd]?|ing)\b|\breactivat\w*\b|\bre-?launch\w*\b",
)
SWITCH_OFF = _rx(
    r"暂停|停投|停止投放|关停|关闭|下线|停掉|叫停",
    r"\bpaus(?:e[sd]?|ing)\b|\bstop(?:ped|ping)?\b|\bturn(?:ed)? (?:it )?off\b|\bdisabl(?:e[sd]?|ing)\b|\bshut (?:it )?down\b|\bhalt\w*\b",
)
POSITIVE = _rx(
    *PERMISSION_PARTS,
    r"(?<!不)适合|(?<!不)适用|(?<![无没])有效|效果好|推荐",
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
# "we'd", "I’d": would said short, which a threshold in the if-clause makes a rule's consequence.
WOULD_SHORT = re.compile(r"\b(?:we|i|you|they|he|she)['’]d\b", re.I)
WOULD = _rx(r"会怎样|会怎么样|会不会|能不能|会发生什么|结果会", r"\bwould\b|\bcould\b|\bmight\b", WOULD_SHORT.pattern)
# An English sentence that opens with a bare verb of ad work, after a lead naming whom it is
# for ("adv_x: also push …", "For brand_y, pause …"): an instruction. Verbs whose past is
# their base ("cut", "set") are left out: "cut CPC by 10% last week" reports.
IMPERATIVE = re.compile(
    r"^(?:[^:：,，]{0,40}[:：,，]\s*)?(?:please\s+)?(?:also\s+)?"
    r"(?:push|run|pause|stop|raise|lower|cap|bid|target|keep|use|add|move|shift|limit|exclude|include"
    r"|boost|increase|decrease|reduce|turn (?:on|off)|switch|launch|start|resume|avoid|block|buy)\b"
    # A noun in the same words reports ("push notifications lifted CTR", "launch week CTR was
    # 2.1%", "use of video", "add-to-cart rate dropped"): no hyphen or "of" after the verb, and
    # no past or reporting verb anywhere in the sentence.
    r"(?![-\w]|\s+of\b)(?![^.;。；]*\b(?:was|were|had|did|rose|fell|dropped|lifted|grew|skewed|went|increased|decreased"
    r"|declined|improved|doubled|halved|spent|reached|hit)\b)",
    re.I,
)
ORDER = _rx(
    r"必须|一律|务必|不得|禁止|要求|统一|严格|规定|以后都|从今天起|从现在起",
    r"\bmust\b|\balways\b|\bnever\b|\bfrom now on\b|\bgoing forward\b|\brequired?\b|\bmandatory\b|\bshall\b",
)
# "不要超过1.6元", "不得高于CPA的1.3倍" bound a value; they do not say no to the lever.
BOUND = _rx(
    r"(?:不要|不能|不得|不可|不应|别)\s*(?:超过|超出|高于|低于|少于|多于|大于|小于)",
    r"\b(?:must not|should not|do not|don't|never) (?:exceed|go (?:above|below))\b",
)
# "只在…", "仅限…", "only for…": the statement narrows where it holds.
# Scope limited ("只投", "only for") or a value bounded (BOUND_PARTS): "只投门店5公里内" and
# "半径不超过5公里" restrict alike.
ONLY_PARTS = (
    r"只在|只针对|只用于|仅在|仅限|仅针对|只限|限定在|(?<!不)[只仅](?:投|推(?!荐)|做|跑|开|上|面向|合作|用|买)(?![了过])"
    # "only for…", "buy only…", "only work with…", "…weekdays only": not "changed only the image".
    r"|\bonly (?:for|on|in|during|when|within|to|work with|use|buy|run|bid on|target|push|show)\b"
    r"|\b(?:buy|use|run|target|show|push|work with|bid on) only\b|(?<!not )\bonly(?=\s*(?:[,.;，。；]|$))|\bexclusively\b"
)
ONLY = _rx(ONLY_PARTS)
# The "no" of a clause that names the rest an "only" leaves out ("男性暂不投", "白天不上浮",
# "主动基金不参与", "not in the daytime").
COMPLEMENT_NO = re.compile(r"(?:暂|先)?不(?:投|参与|参加|上浮|下调|调整|动|做|用|推|开|覆盖|限)|\b(?:not|no|excluded?)\b", re.I)
# What an "only" left out, by name ("其余时段", "其他渠道", "otherwise", "the rest").
THE_REST = re.compile(r"其余|其他|其它|剩下|\b(?:otherwise|elsewhere|the rest|other times)\b", re.I)
# Any "no" at all, a bare 不 before a verb included ("不上浮", "不动"): never a polarity on its
# own, only a count of what a text may take back.
SAYS_NO = re.compile(r"[不没无别勿非禁停]|\b(?:no|not|never)\b|n't", re.I)
# "只针对非品牌词", "仅限非会员": a "非" right after "only" names a group, it says no "no".
ONLY_NON = _rx(f"(?:{ONLY_PARTS})非")
RESTRICTION = _rx(ONLY_PARTS, *BOUND_PARTS)
# Which way a rule bounds its figure: "上限5000元", "不得高于CPA的1.3倍", "at most" from above;
# "不低于", "至少", "at least" from below.
# 最高/最低 are left out: as often "the highest" (a judgement) as a cap.
UPPER_BOUND = _rx(
    r"上限|封顶|最多|至多|不超过|不高于|(?:不能|不得|不要|不可|别)(?:超过|高于)",
    r"\bat most\b|\bcapped at\b|\bno (?:more|higher) than\b|\bmax(?:imum)?\b|\bup to\b|\bcap\b|\bmust not exceed\b",
)
LOWER_BOUND = _rx(
    r"下限|保底|至少|最少|不低于|不少于|(?:不能|不得|不要|不可|别)(?:低于|少于)",
    r"\bat least\b|\bno (?:less|lower|fewer) than\b|\bmin(?:imum)?\b|\bfloor\b",
)
# A statement that lifts or breaks a bound rather than keeping inside it.
LIFTS_BOUND = _rx(
    r"不受|取消|放开|突破|(?<!不)超过|(?<!不)超出|解除|不限|不设上限|无上限|\bunlimited\b|\buncapped\b|\bno (?:cap|limit)\b",
    r"\bexceed\w*\b(?<!not exceed)|\blift\w*\b|\bremov\w*\b|\bno longer\b|\bwaiv\w*\b|\bbeyond\b",
)
# How far before its figure a bound word may stand ("不得高于广告主合同约定CPA的1.3倍").
BOUND_WINDOW = 16
CONDITIONS: dict[str, str] = {
    "冷启动期": r"冷启动|新计划|起量期|学习期|\bcold[- ]start\b|\blearning phase\b|\bnew campaigns?\b",
    "首发期": r"首发|新品期|上新期|新品上市|\blaunch(?:es|ed|ing)?\b|\bnew product\b",
    "大促期间": r"大促|促销期|活动期间|\bpeak sale\b|\bpromotion period\b|\bsale period\b",
    "稳定期": r"稳定后|稳定期|成熟期|\bonce stable\b|\bsteady state\b|\bafter (?:it )?stabili[sz]es\b",
    "异常时": r"异常|突降|骤降|暴跌|断崖|\banomal\w*|\bsudden (?:drops?|spikes?)\b",
    "测试期": r"测试期|\bA/?B test\b|\btest phase\b|测试阶段",
    # A trigger ("ROI低于2时", "if CPA goes above 80"), not a cap: "不超过600元", "not above
    # $5" state the setting itself, the way "上限600元" does.
    "阈值": r"(?<![不没])(?<!不能)(?<!不得)(?<!不要)(?<!不可)(?:低于|高于|超过|不足|大于|小于|跌破|突破)\s*-?\d|"
    r"(?<!not )(?<!n't )(?<!never )\b(?:below|above|under|over|exceeds?|drops? below)\s*\$?-?\d",
}
CONDITION_RX = {name: re.compile(rx, re.I | re.A) for name, rx in CONDITIONS.items()}

# A store, city or market the statement is limited to: "徐汇店", "the downtown store", "新加坡市场".
# Cities are known places, each a different one; a region may hold any of them.
CITIES = ("北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "重庆", "新加坡", "香港")
REGIONS = ("海外", "国内", "北美", "欧洲", "东南亚")
PLACE = re.compile(
    # "南京西路那家店": the name runs up to 那家/这家, which would otherwise take two of its four characters.
    r"([\u4e00-\u9fff]{2,4}?)(?:那家|这家)(?:门店|分店|店)|"
    r"([\u4e00-\u9fff]{2,4}?)(?:门店|分店|店)(?![铺面员长])|([\u4e00-\u9fff]{2,4}?)市场|"
    r"\bthe ([A-Z][a-z]+(?: [A-Z][a-z]+)?|downtown|airport|flagship) (?:store|branch|outlet|market)\b|" + "|".join(CITIES + REGIONS) + "|"
    r"\b(?:Beijing|Shanghai|Guangzhou|Shenzhen|Hangzhou|Chengdu|Singapore|Hong Kong|overseas|domestic|North America|Europe)\b",
    re.A,
)
PLACE_CANON = {
    "singapore": "新加坡",
    "overseas": "海外",
    "domestic": "国内",
    "beijing": "北京",
    "shanghai": "上海",
    "hangzhou": "杭州",
    "shenzhen": "深圳",
}
NOT_PLACES = {"旗舰", "本", "该", "每", "全", "这家", "那家", "门", "分", "单", "新", "老", "同", "首"}
# A word or phrase quoted as itself ("不得使用'全网最低价'", "no 'guaranteed returns'"): what a
# compliance rule allows or forbids. A straight quote between two letters is an apostrophe
# ("don't"), never a quote.
QUOTED_TERM = re.compile(r"(?<![A-Za-z])[‘'“\"「『]([^‘'’“”\"「」『』\n]{1,16})[’'”\"」』](?![A-Za-z])")
# Forbidding a word and no longer requiring it both take it away; allowing and requiring both
# keep it ("不再需要标注'以实物为准'" goes against "必须标注'以实物为准'"). Permission reads as
# PERMISSION_PARTS does ("可以看出" reports; "May" is a month).
FORBIDS_TERM = _rx(
    r"不得|禁止|不能|不许|不要|不可|严禁|切勿|避免|杜绝|别|禁用|不再需要|不再要求|不需要|无需|无须|不必|不用再",
    r"\b(?:no|not|never|don'?t|avoid|ban(?:ned)?|prohibit\w*|must not|cannot|can'?t|need not|no longer)\b",
)
ALLOWS_TERM = _rx(
    *PERMISSION_PARTS,
    r"可用|能用|放开|照常用|必须|务必|需要|要求|一律",
    r"\b(?:allowed?|ok to|okay to|fine to|permitted|must|required?|always)\b",
)
# Taking a word out: under a "no" it keeps the word ("不要删掉'请遵医嘱'").
REMOVES_TERM = _rx(r"删|去掉|拿掉|移除|漏掉|遗漏", r"\b(?:remove|drop|delete|omit|leave out)\b")
# A metric's name where an id would stand ("campaign roas_7d").
METRIC_ID = re.compile(r"(?:roas|roi|ltv|cpa|cpc|cpm|ctr|cvr|gmv|cpl)(?:_|\d|$)", re.I)
# The statement adds to what was said instead of replacing it ("also push it every Wednesday",
# "周三也要推"): a second day or place beside the first, not the first moved.
ADDS = _rx(
    r"也(?:要|在|投|推|开|加)|另外(?:再)?(?:在|投|推|加)|额外(?:在|投|推|加)|再加上?",
    r"\balso\b|\bas well\b|\bin addition\b|\badditionally\b",
)
# Ids run on with underscores ("adv_saas_01", "brand_muyu_home").
ADVERTISER = re.compile(r"\b(?:brand|adv|advertiser|client)_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*\b", re.I | re.A)
PLAN = re.compile(
    # An id may run on with underscores ("plan_dealer_sh_01", "campaign cl_search_brand_01"): read whole.
    r"\b(?:plan|campaign|cmp|camp|adgroup|ad_group|计划)[_#\-: ]?([A-Za-z]?\d+[A-Za-z0-9]*|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*_\d+[A-Za-z0-9]*|[A-Za-z]\b)|计划\s*([A-Za-z]{0,3}\d[A-Za-z0-9]{0,6}|[A-Za-z])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])([A-Za-z])\s*计划",
    re.I | re.A,
)
# "tier-1 cities": the digit names a tier, not a quantity.
TIER_BEFORE = re.compile(r"\btier[- ]?$", re.I)
UNIT = re.compile(r"\s*(%|％|个百分点|pp|元|块|万元|万|千|k|倍|x|×|小时|天|次|美元|usd|rmb|yuan)?", re.I | re.A)
CURRENCY_BEFORE = re.compile(r"[$¥￥]\s*$")
# Who said it ("用户确认：", "合规部规定：", "The user confirmed:"): not what was said. Only a
# short lead that ends in a word of saying is one; "brand_A 预算：" or "Bid cap:" is content.
FRAME = re.compile(
    r"^[^：:\d，。,;；]{0,16}?"
    r"(?:说|确认|规定|要求|补充|表示|强调|重申|通知|反馈|提到|指出|提醒|告知|"
    r"\bsaid|\bsays|\bconfirmed|\bnoted|\bclarified|\basked|\badded|\binsisted|\brepeated|\bupdate|\bnotice)"
    r"\s*(?:：|:(?!\d))\s*",
    re.I,
)
# A unit written against its number ("150k", "2x"): a figure, not an id like "618A".
# Not a size ("1080x1920") or a resolution ("4K分辨率", "4K video").
LATIN_UNIT = re.compile(r"(?:k(?!\s*(?:分辨率|视频|屏|画质|video|resolution))|x|pp|usd|rmb|yuan)(?![A-Za-z\d])", re.I)
# One end of the day given: "22点后", "晚上10点以后", "after 10pm" run to midnight, "8点前",
# "before 8am" from it.
OPEN_TIME = re.compile(
    r"(\d{1,2})(?:(?:[:：](\d{2}))?\s*(?:点|时)|[:：](\d{2}))\s*(以后|之后|后|以前|之前|前(?!后))"
    # "after 10pm", "after 23:00": a 24-hour clock needs no am/pm.
    r"|\b(after|before) (\d{1,2})(?:(?::(\d{2}))?\s*(am|pm)\b|:(\d{2})\b)",
    re.I,
)
# A clock time on its own ("10:00", "上午10点上线", "at 8pm"): a point in the day. Ranges and
# open ends are read first and taken out of the text.
# "N点" is a time only beside a part of the day or a start, or with its minutes: "出价提高1点"
# and "第2点" are not times.
POINT_TIME = re.compile(
    r"(?<![\d.:：])(\d{1,2})[:：](\d{2})(?![\d:：])(?:\s*(am|pm)\b)?"
    rf"|(?:(?<={CLOCK_PARTS}|每天|每晚|每日|当天|次日)|(?<=早|晚))\s*(\d{{1,2}})\s*点(?:(\d{{1,2}})分|(半))?钟?(?![\d前后])"
    r"|(?<![\d.第以几下这])(\d{1,2})\s*点(?:(\d{1,2})分|(半)|钟?(?=\s*(?:整|上线|开播|开抢|开始|开投|停投|推送|发布|结束|截止|下线)))"
    r"|\b(\d{1,2})\s*(am|pm)\b",
    re.I,
)
# A colon between figures after a ratio's name is a ratio, not a time ("投产比1:12").
RATIO_BEFORE = re.compile(r"(?:比|比例|配比|\bROI|\bROAS|投产|\bratio)\s*[:：]?\s*$", re.I)
UNIT_CANON = {"％": "%", "个百分点": "pp", "块": "元", "k": "千", "x": "倍", "×": "倍", "usd": "$", "美元": "$", "rmb": "元", "yuan": "元"}
ROLE_WINDOW = 14
# A budget per day and one per month are different settings.
PERIOD_RX = {
    "/day": re.compile(r"日预算|每日|每天|单日|日耗|\bdaily\b|\bper day\b|\ba day\b", re.I | re.A),
    "/week": re.compile(r"每周|周预算|\bweekly\b|\bper week\b", re.I | re.A),
    "/month": re.compile(r"每月|月度|(?<![\d一二三四五六七八九十])月预算|\bmonthly\b|\bper month\b", re.I | re.A),
}


START_DAY = re.compile(
    r"(?:下|本|这)?(?:周|星期|礼拜)[一二三四五六日天](?:起|开始|生效)|\b(?:effective|starting|from|as of|beginning) (?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.I | re.A,
)


SENTENCE = re.compile(r"(?:[^。！？；\n?!;]|[?!;](?=\S))+(?:[。！？；\n]+|[?!;]+(?=\s|$))?")


URL = re.compile(r"https?://\S+|\bwww\.\S+", re.I)


SCALES: dict[str, tuple[str, str]] = {
    "best_worst": (
        # Not a bound: "最多曝光3次", "最少3天" cap or floor a figure, they judge nothing.
        r"最高|最好|最强|最多(?!\s*(?:曝光|展示|展现|投|\d))|最佳|效果最好|\bhighest\b|\bbest\b|\bmost\b|\btop\b",
        r"最低|最差|最弱|最少(?!\s*(?:曝光|展示|展现|投|\d))|效果最差|\blowest\b|\bworst\b|\bleast\b",
    ),
    # "比百度高/低": the comparand sits between 比 and the adjective ("比上周降低" is a fall, not a comparison).
    "better_worse": (
        r"更好|好于|优于|高于|(?<![对占相])比(?![例如较率重赛价特])[\u4e00-\u9fffA-Za-z0-9]{1,10}?(?<![降减提升])(?:高|好|强)|\bbetter\b|\boutperform\w*|\bhigher than\b",
        r"更差|差于|不如|低于|(?<![对占相])比(?![例如较率重赛价特])[\u4e00-\u9fffA-Za-z0-9]{1,10}?(?<![降减提升])(?:低|差|弱)|\bworse\b|\bunderperform\w*|\blower than\b",
    ),
    "fit": (r"(?<!不)适合|(?<!不)适用|\bsuitable\b|\bgood fit\b", r"不适合|不适用|不宜|\bnot suitable\b|\bunsuitable\b|\bpoor fit\b"),
    "works": (
        r"(?<![无没])有效|见效|\beffective\b|\bworks?\b",
        r"无效|没效果|没用|\bineffective\b|\bdoes(?:n'?t| not) work\b|\bdidn'?t work\b",
    ),
}
SCALE_RX = {name: (re.compile(a, re.I | re.A), re.compile(b, re.I | re.A)) for name, (a, b) in SCALES.items()}
RISE = _rx(
    r"上升|升高|提升|提高|增长|上涨|走高|变高|增加|翻倍|变好",
    r"\brose\b|\brises?\b|\bincreas\w*|\bwent up\b|\bgrew\b|\bimprov\w*|\bclimb\w*|\bjump\w*",
)
FALL = _rx(
    r"下降|降低|下跌|走低|变低|减少|回落|下滑|变差|恶化",
    r"\bfell\b|\bfalls?\b|\bdecreas\w*|\bwent down\b|\bdropp?\w*|\bdeclin\w*|\bworse\w*|\bslipp?\w*",
)
