"""Deterministic Chinese/English text signals shared by the offline classifier, the
value checks, the guard rules and the offline judge. Each is a compiled pattern so a
trace can say exactly which phrase fired."""

from __future__ import annotations

import re
from dataclasses import dataclass


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.IGNORECASE)


SUGGESTION = _rx(
    r"建议",
    r"推荐",
    r"可以考虑",
    r"不妨",
    r"最好(?:是|能)?",
    r"试试",
    r"应该尝试",
    r"\byou should\b",
    r"\bi (?:would )?(?:suggest|recommend)\b",
    r"\bwe (?:could|might) try\b",
    r"\brecommend(?:ed|s|ation)?\b",
    r"\bsuggest(?:ed|s|ion)?\b",
    r"\bconsider(?:ing)?\b",
    r"\bhow about\b",
)
CONFIRMATION = _rx(
    r"用户(?:已)?(?:确认|同意|采纳|认可|批准)",
    r"客户(?:已)?(?:确认|同意|采纳|认可)",
    r"已确认",
    r"确认(?:执行|采纳)",
    r"(?:用户|客户)说(?:好|可以|行|就这么办)",
    r"就按这个",
    r"就这么办",
    r"\buser (?:has )?(?:confirmed|agreed|approved|accepted)\b",
    r"\b(?:confirmed|approved) by the (?:user|client)\b",
    r"\bclient (?:confirmed|agreed|approved)\b",
)
HEDGE = _rx(
    r"可能",
    r"也许",
    r"或许",
    r"大概",
    r"好像",
    r"似乎",
    r"不确定",
    r"说不定",
    r"应该是吧",
    r"估计",
    r"\bmaybe\b",
    r"\bperhaps\b",
    r"\bmight\b",
    r"\bpossibly\b",
    r"\bnot sure\b",
    r"\bi guess\b",
    r"\bprobably\b",
)
# "可能原因" names a hypothesised cause, which an anomaly report is expected to carry.
HEDGE_EXEMPT = _rx(r"可能(?:的)?原因", r"\bpossible (?:cause|reason)s?\b")
PREFERENCE = _rx(r"喜欢", r"偏好", r"想要", r"倾向", r"\bprefer", r"\blikes?\b", r"\bwants?\b")
_ACK_PHRASE = (
    r"(?:你好|您好|哈喽|嗨|早上好|晚上好|谢谢(?:你|您|啦)?|多谢|感谢(?:你|您)?|辛苦(?:了|啦|你了|您了)?|好的|好滴|好嘞|收到|了解|明白|知道了|没问题|"
    r"嗯+|哦+|ok(?:ay)?|thanks?(?: (?:you|a lot|so much))?|thank you(?: (?:so much|very much))?|thx|hi|hello|hey|got it|sure|noted|"
    r"great(?: work| job)?|good job|nice|cool|perfect|awesome|bye|yes|yep|yeah|nope|再见|拜拜|晚安|对的?|是的|行|可以|👍|🙏|👌)"
)
# One or more acknowledgements and nothing else: "谢谢，辛苦了", "ok thanks!".
GREETING = re.compile(r"^\s*(?:" + _ACK_PHRASE + r"(?:啦|了|呀|哈|啊|哦)?[\s!！。.,，、~～]*)+$", re.IGNORECASE)
USER_VOICE = _rx(
    r"\bbrand_\w+\s*(?:明确|统一)?(?:要求|反馈|表示|强调|说|纠正|指出)",
    r"明确要求",
    r"\bwe (?:want|need|insist)\b",
    r"用户(?:再次|一再|又|也)?(?:重申|说|表示|反馈|要求|纠正|指出|强调|明确|提出|不希望|希望|不要|要)",
    r"客户(?:再次|一再|又|也)?(?:重申|说|表示|反馈|要求|纠正|指出|强调|明确|不希望|希望)",
    r"广告主(?:说|表示|反馈|要求|纠正|明确)",
    r"\b(?:the )?(?:user|client|advertiser) (?:said|says|asked|wants|insisted|corrected|told|requested|prefers)\b",
)
# A user settling a choice ("就这么定", "we'll go with"): what session distillation keeps beside preferences and corrections.
DECISION = _rx(
    r"决定",
    r"定了",
    r"就这么定",
    r"拍板",
    r"最终(?:方案|决定|选择|用)",
    r"确定(?:用|采用|按|走|投)",
    r"统一(?:用|按|改)",
    r"\bwe(?:'ll| will) go with\b",
    r"\blet'?s go with\b",
    r"\bdecided\b",
    r"\bgoing with\b",
    r"\bwe(?:'ll| will) use\b",
)
ASSISTANT_VOICE = _rx(r"助手建议", r"AI建议", r"智能体建议", r"\bassistant (?:suggested|recommended)\b", r"\bthe agent suggested\b")
# A figure disputed: "这个数不对", "the number is wrong".
FIGURE_DISPUTED_PARTS = (
    r"(?:数|数字|数据)(?:不对|有误|错了)(?!的)",
    r"\b(?:figure|number|data)s? (?:is|are|was|were) (?:wrong|off|incorrect)\b",
)
FIGURE_DISPUTED = _rx(*FIGURE_DISPUTED_PARTS)
CORRECTION = _rx(
    r"纠正",
    r"更正",
    r"改为",
    r"改成",
    r"改用",
    r"不再",
    r"而不是",
    r"实际上",
    r"其实是",
    r"以后",
    r"从现在起",
    r"之前说错",
    *FIGURE_DISPUTED_PARTS,
    # A setting given a new value says the old one no longer holds.
    r"调整为",
    r"更新为",
    r"现调为",
    r"\binstead\b",
    r"挪到",
    r"换到",
    r"移到",
    r"改到",
    r"\bupdate(?:d)? (?:from|to)\b",
    # "raised … to $800", "changed the cap to 3": a new value named after "to", in one clause.
    # Said as an instruction too ("lower the cap from $0.80 to $0.60"), and "把出价从2元降到1.5元".
    r"\b(?:changed?|raised|lowered|increased|decreased|moved|switched|raise|lower|increase|decrease|reduce)\s+"
    r"(?:[^\s.;,，。；]+\s+){0,6}?(?:from\s+[$¥€]?\d+(?:\.\d+)?\s*\S{0,4}\s+)?to\s+[$¥€]?\d",
    # Not a report of what was done ("上周把出价从2元降到1.5元后CTR掉了30%").
    r"(?<!上周)(?<!昨天)(?<!之前)(?<!已经)(?<!已)把[^，。；,;]{0,12}从[^，。；,;]{0,10}(?:降|调|提|改|涨|加|减|压)(?:到|至)"
    r"(?![^，。；,;]*?(?:后|之后|以后|结果|了))",
    r"\bmove[sd]? (?:it |them )?to\b",
    r"\bactually\b",
    r"\brather than\b",
    r"\bfrom now on\b",
    r"\bcorrect(?:ion|ed)\b",
    r"\bno longer\b",
)
ATTITUDE = _rx(
    r"明确要求",
    r"要求",
    r"反馈",
    r"一定",
    r"统一",
    r"务必",
    r"坚持",
    r"只在",
    r"\bwe (?:want|need)\b",
    r"\binsist",
    r"\bwants?\b",
    r"\brequire[sd]?\b",
    r"\b(?:said|says|asked|told us)\s*:",
    r"\b(?:told|asked) (?:us|me) to\b",
    r"不要",
    r"别再",
    r"必须",
    r"一定要",
    r"禁止",
    r"不允许",
    r"不能",
    r"应该",
    r"只(?:投|用|要)",
    r"喜欢",
    r"偏好",
    r"不满意",
    r"满意",
    r"纠正",
    r"更正",
    r"改为",
    r"改成",
    r"\bdon'?t\b",
    r"\bnever\b",
    r"\balways\b",
    r"\bmust\b",
    r"\bprefer",
    r"\bshould\b",
    r"\bstop\b",
    r"\bonly\b",
)
ACTION = _rx(
    r"出价",
    r"预算",
    r"投放",
    r"定向",
    r"人群",
    r"创意",
    r"素材",
    r"时段",
    r"关键词",
    r"落地页",
    r"渠道",
    r"加价",
    r"降价",
    r"提价",
    r"暂停",
    r"开启",
    r"扩量",
    r"控量",
    r"调价",
    r"信息流",
    r"搜索广告",
    r"小红书",
    r"抖音",
    r"快手",
    r"微信",
    r"百度",
    r"直播间",
    r"首发",
    r"上新",
    r"\b(?:xiaohongshu|douyin|kuaishou|wechat|baidu|tiktok)\b",
    r"\blaunch(?:es)?\b",
    r"\bvideos?\b",
    r"\blanding page",
    r"停投",
    r"推广",
    r"\bcap(?:ped)?\b",
    r"\bcampaigns?\b",
    r"\bheadlines?\b",
    r"\bsearch\b",
    r"\bCPC\b",
    r"\bexclude",
    r"\bimpressions?\b",
    r"\bads?\b",
    r"\bfeed\b",
    r"\bbid",
    r"\bbudget",
    r"\btarget",
    r"\bcreative",
    r"\bkeyword",
    r"\bpause",
    r"\bdaypart",
    r"\bchannel",
    r"\baudience",
)
METRIC = _rx(
    r"\bROI\b",
    r"\bCTR\b",
    r"\bCVR\b",
    r"\bCPA\b",
    r"\bCPC\b",
    r"\bCPM\b",
    r"\bGMV\b",
    r"\bROAS\b",
    r"转化率",
    r"点击率",
    r"成本",
    r"消耗",
    r"曝光",
    r"转化",
    r"花费",
    r"\bconversion",
    r"\bspend\b",
    r"\bcost\b",
)
EFFECT = _rx(
    r"提升",
    r"提高",
    r"上升",
    r"增长",
    r"上涨",
    r"下降",
    r"降低",
    r"下跌",
    r"暴跌",
    r"骤降",
    r"翻倍",
    r"减少",
    r"增加",
    r"\bincrease[sd]?\b",
    r"\bimprove[sd]?\b",
    r"\brose\b",
    r"\brise[sn]?\b",
    r"\bdrop(?:ped|s)?\b",
    r"\bfell\b",
    r"\bdecline[sd]?\b",
    r"\blift\b",
    r"\bgrew\b",
)
CAUSAL = _rx(
    r"因为",
    r"由于",
    r"导致",
    r"所以",
    r"因此",
    r"使得",
    r"带来",
    r"之后",
    r"后[，,]?\s*\S*(?:ROI|转化|成本|点击)",
    r"\bbecause\b",
    r"\bdue to\b",
    r"\bled to\b",
    r"\bresult(?:ed)? in\b",
    r"\bafter\b",
    r"\bso\b",
    r"\bcaused\b",
)
TARGET_ACTUAL = _rx(
    r"目标.{0,12}实际",
    r"实际.{0,12}目标",
    r"从\s*\d[\d.]*\S{0,3}\s*(?:提升|提高|上升|增长|下降|降低|降|升|涨|跌)?到\s*\d",
    r"\bfrom\s+\d[\d.]*\S{0,3}\s+to\s+\d",
    r"\btarget\b.{0,30}\bactual\b",
    r"\bvs\.?\b",
    r"达成率",
    r"对比",
)
CONDITION = _rx(
    r"当.{1,20}时",
    r"在.{1,20}(?:期间|时|情况下|场景下|阶段)",
    r"如果",
    r"若",
    r"对于",
    r"针对",
    r"仅限",
    r"仅适用",
    r"适用于",
    r"前提是",
    r"冷启动",
    r"大促期间",
    r"新客",
    r"老客",
    r"\bif\b",
    r"\bwhen\b",
    r"\bonly (?:for|during|when)\b",
    r"\bduring\b",
    r"\bapplies to\b",
    r"\bfor (?:new|cold)\b",
)
TIME_BOUND = _rx(
    r"\d{1,2}月\d{1,2}日",
    r"\d{4}-\d{1,2}-\d{1,2}",
    r"今天",
    r"明天",
    r"今晚",
    r"本周",
    r"下周",
    r"本月",
    r"期间",
    r"截至",
    r"截止",
    r"至\d",
    r"到\d{1,2}[月号日点]",
    r"\d+\s*(?:小时|天|日)内",
    r"双11",
    r"双十一",
    r"618",
    r"大促",
    r"春节",
    r"\btoday\b",
    r"\btomorrow\b",
    r"\btonight\b",
    r"\buntil\b",
    r"\bthis week\b",
    r"\bnext week\b",
    r"\bfor the next\b",
    r"\bbetween\b",
)
OBSERVATION = _rx(
    r"监测到",
    r"监控(?:显示|发现)",
    r"观测到",
    r"数据显示",
    r"报表显示",
    r"系统(?:显示|检测|提示)",
    r"检测到",
    r"\bobserved\b",
    r"\bdetected\b",
    r"\bmonitoring shows\b",
    r"\bdata shows\b",
    r"\breport shows\b",
)
# What was spent or done, not what is to be: "日预算花了6万", "the run rate fell", "spent 6k".
REPORTED = _rx(
    r"花了",
    r"用了",
    r"消耗了",
    r"跑了",
    r"掉了",
    r"涨了",
    r"降了",
    r"\b(?:spent|was|were|fell|rose|dropped|reached|hit)\b",
)
DECISION_IMPACT = _rx(
    r"出价",
    r"预算",
    r"投放",
    r"策略",
    r"调整",
    r"控量",
    r"扩量",
    r"暂停",
    r"\bbid",
    r"\bbudget",
    r"\bstrategy\b",
    r"\badjust",
    r"\bpause\b",
    r"\bpacing\b",
)
AUTHORITY = _rx(
    r"合规",
    r"法务",
    r"法规",
    r"法律",
    r"监管",
    r"广告法",
    r"平台(?:规定|规则|政策|要求)",
    r"公司(?:规定|政策|要求)",
    r"财务(?:要求|规定)",
    r"政策",
    r"规定",
    r"\bcompliance\b",
    r"\bregulat",
    r"\bpolicy\b",
    r"\blegal\b",
)
SCOPE = _rx(
    r"所有",
    r"全部",
    r"全体",
    r"一律",
    r"各",
    r"类目",
    r"行业",
    r"账户",
    r"广告主",
    r"品牌",
    r"\ball\b",
    r"\bevery\b",
    r"\bacross\b",
    r"\bcategory\b",
    r"\baccount",
    r"\bbrand",
)
# A bound on a value, a cap or a floor: the setting itself ("不超过600元", "capped at $5", "3小时起订"), not a condition.
BOUND_PARTS = (
    r"上限",
    r"下限",
    r"封顶",
    r"不超过",
    r"不高于",
    r"不低于",
    r"(?:不能|不得|不要|不可)超过",
    r"\bcapped at\b",
    # "cap CPA at 80", not "the cap was hit at 3pm".
    r"\bcap (?:(?!(?:was|is|were|got|hit|reached)\b)[\w-]+ ){1,4}at\s+[$¥€]?\d+(?!\s*(?:am|pm|点)\b)",
    r"\bat most\b",
    r"\bno more than\b",
    r"\bnot exceed\b",
    # A floor bounds a figure as a cap does ("3小时起订", "minimum booking is 3 hours");
    # "至少跑了三天" and "minimum spend last week was 2000" report one.
    r"(?:至少|不少于)\s*(?=[\d一二两三四五六七八九十])",
    r"\d\s*\S{0,3}起订",
    # "90元以内", "5公里以内" cap a figure; "3天以内" is a time window, not a bound.
    r"(?<![前第\d])\d+(?:\.\d+)?\s*(?:元|块|万元?|%|％|倍|公里|km)?\s*以内",
    r"\b(?:at least|no (?:less|fewer) than)\s+(?=[$¥]?\d)",
    r"\bminimum\b(?![^.;,]*\b(?:was|were)\b)(?=[^.;,]{0,30}\d)",
)
HARD_CONSTRAINT = _rx(
    r"禁止",
    r"不得",
    r"不能",
    r"不允许",
    r"严禁",
    r"必须",
    *BOUND_PARTS,
    # Bare nouns: a constraint in a rule's wording, too loose to mark a value as bounded
    # ("frequency limit reached", "Performance Max").
    r"\bcap\b",
    r"\blimit\b",
    r"\bmax(?:imum)?\b",
    r"最高",
    r"最低",
    r"\bmust\b",
    r"\bnever\b",
    r"\bprohibit",
    r"\bnot allowed\b",
)
# Verbs of a prediction after "can"/"may" ("higher bids can lead to…", "CTR may drop").
_PREDICTS = r"lead\b|cause\b|drop\b|rise\b|fall\b|increase\b|decrease\b|decline\b|reach\b|go\b|happen\b|result\b|hurt\b|affect\b"
# Allowing something: "可以投", "may show", "can use testimonials". "效果还可以" and "可以的"
# judge or agree, "不可以" forbids, "we can see CTR fell" reports.
PERMISSION_PARTS = (
    # "可以看出", "可以发现" report what the data shows.
    r"(?<![还挺也都不])可以(?![的了吧吗啊呀看发说见知理])",
    r"(?<!不)允许",
    # "can lead to", "may drop" predict; lower-case "may" only (May is a month).
    r"\bcan (?!see\b|tell\b|say\b|be\b|help\b|check\b|look\b|" + _PREDICTS + r")",
    r"(?-i:\bmay) (?!not\b|be\b|have\b|want\b|need\b|" + _PREDICTS + r")",
    r"\b(?:is|are) (?:allowed|permitted)\b",
)
# What a statement does to whatever it is about, in closed-class words that carry to any
# vertical or product name: it restricts it (只投, only), requires it (必须, must), allows
# it (PERMISSION_PARTS) or caps it. Forbidding is NEGATION, capping HARD_CONSTRAINT.
DIRECTIVE = _rx(
    r"只(?![是有好能怕])[\u4e00-\u9fff]",
    r"仅(?![仅供])",
    r"必须",
    r"一定要",
    r"务必",
    r"都要",
    r"都得",
    *PERMISSION_PARTS,
    r"\bonly\b",
    r"\bexclusively\b",
    r"\bmust\b",
    r"\b(?:has|have|need|needs) to\b",
)
# Who or where a statement aims delivery at, when the vocabulary has no name for it ("target IT
# decision makers at director level", "投最近搜索过周边游的人群", "run nationwide"): the
# object of the aiming verb is the value set, so it is a way to act.
AIMS_AT = _rx(
    r"定向(?:为|到|给)",
    r"投(?:给|向)[^，。；;,]{1,24}?(?:人群|用户|客群|受众)",
    r"投(?![放诉入资])[^，。；;,]{1,24}?的(?:人群|用户|客群)",
    r"全国(?:投放|通投)|通投",
    r"\btarget(?:s|ed|ing)?\s+(?!audience\b)(?:only\s+)?(?:[\w-]+\s+){0,4}?(?:users|people|buyers|shoppers|owners|makers|"
    r"directors|managers|parents|mothers|moms|students|women|men|families|professionals|customers|enthusiasts|players|"
    r"gamers|travell?ers|drivers|firms|companies|businesses|teams)\b",
    r"\b(?:run|runs|serve|serves|go|goes)\s+nationwide\b",
)
DEVIATION = _rx(
    r"(?:低于|高于)(?:均值|预期|基线|平均)",
    r"\b(?:below|above) (?:the )?(?:average|baseline|expected)\b",
    r"偏离",
    r"异常",
    r"暴跌",
    r"骤降",
    r"暴涨",
    r"激增",
    r"飙升",
    r"突增",
    r"突降",
    r"\banomal",
    r"\bspike",
    r"\bplunge",
    r"\bsurge",
    r"\bcollapse",
    r"\bdeviat",
)
REPEATED = _rx(
    r"连续\s*\S{0,3}\s*(?:天|日|周|次|个)",
    r"多次",
    r"反复",
    r"持续",
    r"又一次",
    r"再次",
    r"过去\s*\S{1,3}\s*(?:天|周|个月)",
    r"\bconsecutive\b",
    r"\brepeated(?:ly)?\b",
    r"\bagain\b",
    r"\bfor \d+ (?:days|weeks)\b",
    r"\bpersist",
)
SINGLE_VARIABLE = _rx(
    r"仅调整",
    r"只调整",
    r"只改",
    r"仅改",
    r"其他(?:条件|变量|设置)?不变",
    r"单一变量",
    r"控制变量",
    r"\bonly changed\b",
    r"\bsingle variable\b",
    r"\beverything else (?:unchanged|the same)\b",
    r"\bkept .{0,20} constant\b",
    r"\bA/B\b",
)
FROM_TO = re.compile(
    r"(?:从|由)\s*(\d+(?:\.\d+)?)\s*(?:%|％|元)?\s*\S{0,4}?(?:到|至)\s*(\d+(?:\.\d+)?)|\bfrom\s+(\d+(?:\.\d+)?)\s*%?\s+to\s+(\d+(?:\.\d+)?)",
    re.IGNORECASE,
)
CORRELATION = _rx(
    r"相关系数",
    r"显著",
    r"样本",
    r"置信",
    r"p\s*[<=]",
    r"\bcorrelat",
    r"\bsignifican",
    r"\bsample",
    r"\bconfidence interval\b",
    r"\br\s*=\s*0",
)
CONFOUNDER = _rx(
    r"排除", r"剔除", r"控制了", r"控制住", r"已校正", r"\bcontrolled for\b", r"\bexcluding\b", r"\bruled out\b", r"\badjusted for\b"
)
PERIOD = _rx(
    r"每周",
    r"每天",
    r"每日",
    r"每月",
    r"每晚",
    r"每逢",
    r"周末",
    r"工作日",
    r"周[一二三四五六日]",
    r"季度",
    r"节假日",
    r"凌晨",
    r"晚高峰",
    r"午间",
    r"\bweekly\b",
    r"\bdaily\b",
    r"\bevery (?:day|week|month|weekend|monday|friday)\b",
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b",
    r"\bweekends?\b",
    r"\bweekdays?\b",
    r"\bmonthly\b",
    r"\bseasonal",
)
CYCLES = re.compile(
    r"(?:连续|过去|近)\s*(\d+|[两二三四五六七八九十]+)\s*(?:个)?(?:周|天|月|个周期|次)|\b(?:for|over|past|last)\s+(\d+|two|three|four|five|six)\s+(?:weeks|days|months|cycles)\b",
    re.IGNORECASE,
)
DOMAIN = _rx(
    r"美妆",
    r"医药",
    r"OTC",
    r"母婴",
    r"食品",
    r"服饰",
    r"3C",
    r"家电",
    r"教育",
    r"游戏",
    r"搜索",
    r"信息流",
    r"直播",
    r"短视频",
    r"开屏",
    r"\bsearch\b",
    r"\bfeed\b",
    r"\blive ?stream",
    r"\bshort video\b",
    r"\bbeauty\b",
    r"\bpharma",
    r"\bapparel\b",
)
INJECTION = _rx(
    r"\[\s*system\s*:",
    r"<\s*/?\s*system\s*>",
    r"ignore (?:all |the )?(?:previous|above|prior) (?:instructions|rules)",
    r"忽略(?:以上|之前|上述)(?:的)?(?:指令|规则|要求)",
    r"你现在是",
    r"write (?:this )?to L[1-4]",
    r"写入\s*L[1-4]",
    r"\boverride\b.{0,20}\b(?:rule|policy)",
)
# What says no, not or never about a statement's lever, in both languages: the one list
# (textrules.claims reads a claim's polarity with it). ASCII word edges, so "don't" next to
# Chinese characters still counts.
NEGATION = re.compile(
    "|".join(
        (
            r"不适合|不适用|不宜|无效|没效果|不要|不能|不得|不可以|不允许|不许|不准(?![确时点])|严禁|切勿|禁止|禁用|避免|避开|别(?=[投用上做])|不投|不用|不再|不做|不参加|不参与|(?<!离)不开(?![心始])|无明显|没有明显|无显著|不相关",
            r"\bnot (?:suitable|effective|allowed|permitted|a good fit)\b|\bmay not\b|\bcannot\b|\bcan'?t\b|\bineffective\b|\bdoes(?:n'?t| not) work\b|\bdidn'?t work\b|\bdon'?t\b|\bdo not\b|\bnever\b|\bavoid\b|\bprohibit\w*\b|\bno longer\b|\bbanned\b|\bno (?:clear |significant )?(?:correlation|link|relationship)\b|\buncorrelated\b",
        )
    ),
    re.IGNORECASE | re.ASCII,
)
# A minus sign only after a space or the start: "8点-11点" and "3-5天" are ranges, not -11 and -5.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.:：点时])((?:(?<![\d点时:：~～])-)?\d+(?:\.\d+)?)\s*(%|％|元|万|倍|pp|个百分点)?")
# The parts of the day said with a clock time ("上午10点", "晚上8点到凌晨2点"). Each is two
# characters, so a fixed-width look-behind can list them.
CLOCK_PARTS = "早上|上午|中午|下午|午后|傍晚|晚上|晚间|凌晨"
# Times of day and their ranges: "8点-11点", "9-11点", "20:00-23:00", "9点到11点", "9am-11am".
TIME_RANGE = re.compile(
    # "until"/"till" between the ends only after a start that is a time itself ("1pm until
    # 7pm"): "cap at 2 until 11pm" is a figure and a time, not a range. "1 to 7 pm" is one.
    r"(\d{1,2})(?:[:：](\d{2}))?\s*(?:点|时|am|pm)?\s*(?:-|–|—|~|～|到|至|\sto\s|(?:(?<=[ap]m)|(?<=[:：]\d\d))\s(?:until|till)\s)\s*"
    # "凌晨1点到早上7点": the part of the day may be said again after the separator.
    rf"(?:{CLOCK_PARTS})?(\d{{1,2}})(?:[:：](\d{{2}}))?\s*(点|时|am|pm)?",
    re.IGNORECASE,
)

_CN_DIGITS = {
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
}


def hits(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group(0) for m in pattern.finditer(text or "")]


def has(pattern: re.Pattern[str], text: str) -> bool:
    return bool(pattern.search(text or ""))


def direction_words(text: str) -> list[str]:
    """The words by which a text restricts, forbids, requires, allows or caps something: a
    way to act even when what it acts on ("腰部达人", "4S店覆盖的城市", "cash prize
    screenshots") is in no lever's vocabulary. "需调整出价" names a lever and nothing to do
    with it: not a direction."""
    return hits(DIRECTIVE, text) + hits(NEGATION, text) + hits(HARD_CONSTRAINT, text)


def directs(text: str) -> bool:
    return bool(direction_words(text))


def is_hedged(text: str) -> list[str]:
    cleaned = HEDGE_EXEMPT.sub(" ", text or "")
    return hits(HEDGE, cleaned)


def time_ranges(text: str) -> list[tuple[float, float]]:
    """Time-of-day ranges as (start, end) hours; a bare "3-5" without 点/时/minutes is not one."""
    out = []
    for m in TIME_RANGE.finditer(text or ""):
        if not (m.group(5) or (m.group(2) and m.group(4))):
            continue
        start, end = int(m.group(1)) + int(m.group(2) or 0) / 60, int(m.group(3)) + int(m.group(4) or 0) / 60
        if start <= 24 and end <= 24:
            out.append((start, end))
    return out


def without_time_ranges(text: str) -> str:
    return TIME_RANGE.sub(lambda m: " " if (m.group(5) or (m.group(2) and m.group(4))) else m.group(0), text or "")


def numbers(text: str) -> list[float]:
    """Numbers quoted in the text, percent signs and units dropped. Years, dates and
    times of day are kept out so '2026年' or '9-11点' is not read as a metric."""
    found = []
    text = without_time_ranges(text)
    for match in NUMBER.finditer(text):
        value = float(match.group(1))
        tail = (text or "")[match.end() : match.end() + 1]
        if tail in {"年", "月", "日", "号", "-", "/"} or (1900 <= value <= 2100 and not match.group(2)):
            continue
        found.append(value)
    return found


def from_to(text: str) -> tuple[float, float] | None:
    """The first "从1.8%提升到2.4%" / "from 40 to 52" pair in the text."""
    m = FROM_TO.search(without_time_ranges(text or ""))
    if not m:
        return None
    a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return float(a), float(b)


def cycle_count(text: str) -> int:
    best = 0
    for match in CYCLES.finditer(text or ""):
        raw = (match.group(1) or match.group(2) or "").lower()
        value = int(raw) if raw.isdigit() else _CN_DIGITS.get(raw, 0)
        best = max(best, value)
    return best


def is_chitchat(text: str) -> bool:
    """Greetings, thanks and acknowledgements only, however many: nothing to remember or recall."""
    return has(GREETING, text)


@dataclass(frozen=True)
class NumberMatch:
    claimed: list[float]
    matched: list[float]
    unmatched: list[float]
    repeats: int


def numbers_in_data(data: object) -> list[float]:
    """Every number anywhere in a JSON value (strings included), for grounding checks."""
    out: list[float] = []

    def walk(value: object) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            out.append(float(value))
        elif isinstance(value, str):
            out.extend(numbers(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(data)
    return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(1e-6, 0.005 * max(abs(a), abs(b)))


def match_numbers(claimed: list[float], evidence: list[float]) -> NumberMatch:
    """Which claimed numbers the evidence holds, and how often the best-supported one
    recurs. A percentage may be stored as a fraction (20% ↔ 0.2)."""
    matched, unmatched, repeats = [], [], 0
    for value in claimed:
        count = sum(1 for e in evidence if _close(e, value) or _close(e * 100, value) or _close(e, value * 100))
        if count:
            matched.append(value)
            repeats = max(repeats, count)
        else:
            unmatched.append(value)
    return NumberMatch(claimed=claimed, matched=matched, unmatched=unmatched, repeats=repeats)
