"""Build bench/data/zh_adops_retrieval.json: a Chinese ad-ops retrieval set for bench.zh_adops.

Deterministic (seeded): running it again writes the same file. Memories are ad-ops notes of
eight advertisers (one per industry) and global rules, written from templates that state one
fact about one product on one channel, plus hand-written notes. Every query is written from
the structured keys of a fact (advertiser, product, topic, channel, month), never copied from
a memory's text, and its gold set is every memory that carries those keys, so near neighbours
(the same product on another channel, the same topic for another product, another month) are
distractors by construction.

Query kinds: paraphrase (other words for the same fact), short (two short terms such as
出价 / 预算 / 大促), mixed (Chinese with English ad-ops terms), global (scoped to one advertiser,
the answer is a global rule), operator (no advertiser: the whole store), temporal (names a
month the memory's text does not contain: only its event time does), handwritten.

    python bench/data/zh_adops_build.py
"""
# ruff: noqa: E501  (the hand-written rows below read best one per line)
from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parent / "zh_adops_retrieval.json"
SEED = 20261111

# code → (industry, [(product, alias used in queries), …])
ADVERTISERS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "otc_kangning": ("医药OTC", [("感冒灵颗粒", "感冒灵"), ("布洛芬缓释胶囊", "布洛芬"), ("维C泡腾片", "泡腾片")]),
    "beauty_yanxi": ("美妆", [("玻尿酸精华液", "精华"), ("清透防晒霜", "防晒"), ("丝绒哑光口红", "口红")]),
    "game_xingyao": ("游戏", [("星耀三国SLG手游", "三国手游"), ("首充六元礼包", "首充礼包"), ("新区开服活动", "开服")]),
    "edu_zhixue": ("教育", [("少儿英语体验课", "少儿英语"), ("考研政治网课", "考研课"), ("Python编程入门课", "Python课")]),
    "food_xianwei": ("食品", [("低糖希腊酸奶", "酸奶"), ("麻辣自热火锅", "自热火锅"), ("每日坚果礼盒", "坚果")]),
    "auto_qingche": ("汽车", [("纯电SUV试驾预约", "试驾"), ("插混轿车留资", "留资"), ("二手车免费估价", "估价")]),
    "tech_jixun": ("3C数码", [("主动降噪蓝牙耳机", "耳机"), ("激光导航扫地机器人", "扫地机"), ("运动智能手表", "手表")]),
    "travel_youle": ("旅游", [("三亚海岛酒店套餐", "酒店套餐"), ("特价国内机票", "机票"), ("亲子乐园门票", "乐园门票")]),
}

# full name, [aliases used in queries]
CHANNELS: list[tuple[str, list[str]]] = [
    ("巨量千川", ["千川", "Qianchuan"]),
    ("抖音信息流", ["抖音", "Douyin"]),
    ("小红书聚光", ["小红书", "RED"]),
    ("快手磁力金牛", ["快手", "磁力金牛"]),
    ("腾讯广点通", ["广点通", "腾讯广告"]),
    ("百度搜索推广", ["百度", "百度搜索"]),
    ("微信朋友圈广告", ["朋友圈", "微信广告"]),
]

PROMOS = ["双11", "618", "年货节", "38节"]
STYLES = ["口播", "开箱", "前后对比", "剧情", "达人测评"]
AUDIENCES = ["25-35岁女性", "一二线城市白领", "宝妈", "大学生", "40岁以上中年人", "新手司机", "重度手游玩家"]
HOURS = ["晚上8点到11点", "中午12点到2点", "早上7点到9点", "周末全天"]
REASONS = ["竞品大促抢量", "落地页加载变慢到6秒", "转化回传中断", "账户余额不足被暂停", "主力素材被拒审", "定向包被误删"]
LANDINGS = ["原生落地页", "小程序", "直播间", "表单页"]
ELEMENTS = ["限时优惠", "用户评价", "价格对比", "一键领券"]
BIDMODES = ["oCPM", "最大转化投放", "ROI目标出价", "放量投放", "NoBid自动出价"]

# topic → memory templates. Slots: {p} product, {c} channel and numbers drawn per memory.
MEMORY_TEMPLATES: dict[str, list[str]] = {
    "bid": [
        "{c}投放{p}时把出价从{a}元上调到{b}元，跑量提升{x}%，ROI从{r}降到{r2}，整体可接受。",
        "{p}｜{c}：出价上调{d}%后消耗涨了{x}%，转化成本也上升，建议每次调价不超过10%。",
        "在{c}给{p}提价（{a}→{b}元）三天后计划起量，ROI稳定在{r}。",
        "{c}上{p}的出价下调{d}%后量掉了{x}%，说明该计划对价格很敏感，后来恢复原价。",
    ],
    "budget": [
        "{p}在{c}的日预算上限定为{n}万元，超过后边际ROI跌破{r}。",
        "{c}上{p}每天花费控制在{n}万以内，再加预算转化成本明显变高。",
        "{p}的{c}计划预算从{m}万加到{n}万，消耗没跑满，说明流量到顶了。",
    ],
    "promo": [
        "{promo}大促期间{p}在{c}的预算提前{k}天加到日常的{m}倍，大促当天ROI {r}。",
        "{promo}{c}抢量：{p}大促前一周蓄水，当天出价上浮{d}%，GMV同比增长{x}%。",
        "复盘{promo}：{p}在{c}的大促流量成本上涨{x}%，ROI只有{r}，下次要提前锁量。",
    ],
    "coldstart": [
        "{c}新建{p}计划，冷启动期前{n}天不要改出价和定向，否则会重新进入学习期。",
        "{p}在{c}冷启动阶段先用{bm}起量，{n}天后转化数过{k}个才稳定。",
        "{c}的{p}新计划靠{k}条素材同时测试度过冷启动，约{n}天跑出稳定转化。",
    ],
    "creative": [
        "{p}在{c}上{style}素材的CTR比普通图文高{x}%，完播率{y}%。",
        "{c}投{p}：{style}视频前3秒放卖点，点击率提升到{ctr}%。",
        "{p}的{style}素材在{c}跑了{n}天后出现疲劳，CTR从{ctr}%掉到{ctr2}%，需每周更新。",
    ],
    "audience": [
        "{p}在{c}定向{aud}，转化成本比通投低{x}%。",
        "{c}投{p}只保留{aud}人群包后CPA降到{a}元。",
        "{p}的{c}人群分析：{aud}转化率最高，{aud2}基本不转化。",
    ],
    "daypart": [
        "{p}在{c}{h}投放ROI最高，凌晨时段出价下调{d}%。",
        "{c}的{p}分时段投放：{h}消耗占{x}%，转化率是其他时段的{k}倍。",
    ],
    "bidmode": [
        "{p}在{c}从手动出价切到{bm}后，转化量增加{x}%，成本基本持平。",
        "{c}投{p}用{bm}，目标ROI设{r}，实际达成{r2}。",
    ],
    "landing": [
        "{p}在{c}的落地页从H5换成{lp}后转化率提升{x}%。",
        "{c}投{p}落地页首屏加了{elem}，跳出率降低{x}%。",
    ],
}
ANOMALY_TEMPLATES = [
    "{c}的{p}计划ROI突然从{r}跌到{r2}，排查原因是{reason}。",
    "异常：{p}在{c}的转化成本一天内涨了{x}%，原因是{reason}，处理后已恢复。",
    "{p}在{c}消耗骤降{x}%，定位为{reason}，当天修复。",
]

# topic → query templates. Slots: {pa} product alias, {ca} channel alias, {promo}.
QUERY_TEMPLATES: dict[str, dict[str, list[str]]] = {
    "bid": {
        "paraphrase": ["{pa}在{ca}提高竞价以后效果怎么样", "{ca}上{pa}加价之后跑量变化", "{pa}{ca}调价的经验"],
        "mixed": ["{pa} {ca} raise bid 之后 ROI", "{ca} {pa} bid adjustment 结果"],
    },
    "budget": {
        "paraphrase": ["{pa}在{ca}每天最多花多少钱合适", "{ca}上{pa}的消耗上限定多少", "{pa}{ca}加预算还有没有量"],
        "mixed": ["{ca} daily budget cap {pa}", "{pa} {ca} budget 上限"],
    },
    "promo": {
        "paraphrase": ["{pa}在{ca}{promo}怎么投", "{promo}{pa}{ca}的打法复盘", "{ca}上{pa}{promo}促销节点的预算和出价"],
        "mixed": ["{promo} big sale {pa} {ca} 预算", "{pa} {ca} {promo} campaign review"],
    },
    "coldstart": {
        "paraphrase": ["{pa}{ca}新计划怎么过学习期", "{ca}上{pa}刚建的计划起量慢怎么办", "{pa}在{ca}新建计划前几天要注意什么"],
        "mixed": ["cold start {pa} {ca} 多久稳定", "{ca} {pa} new campaign learning phase"],
    },
    "creative": {
        "paraphrase": ["{ca}{pa}哪种视频创意点击率高", "{pa}在{ca}的素材怎么做", "{ca}上{pa}的视频素材效果"],
        "mixed": ["{pa} {ca} creative CTR", "{ca} {pa} video creative 点击率"],
    },
    "audience": {
        "paraphrase": ["{pa}在{ca}应该投给什么人", "{ca}{pa}哪类用户转化好", "{pa}{ca}的人群定向经验"],
        "mixed": ["{pa} target audience {ca} CPA", "{ca} {pa} audience 定向"],
    },
    "daypart": {
        "paraphrase": ["{pa}在{ca}几点投放效果最好", "{ca}{pa}什么时间段投产比高", "{pa}{ca}哪个时段转化好"],
        "mixed": ["{pa} {ca} best hours 投放", "{ca} {pa} dayparting ROI"],
    },
    "bidmode": {
        "paraphrase": ["{pa}{ca}用哪种出价方式", "{ca}上{pa}智能出价还是手动出价", "{pa}在{ca}自动出价的效果"],
        "mixed": ["{pa} {ca} auto bidding 效果", "{ca} {pa} oCPX bidding strategy"],
    },
    "landing": {
        "paraphrase": ["{pa}{ca}落地页怎么优化", "{ca}上{pa}的承接页用什么形式", "{pa}在{ca}的页面转化率怎么提高"],
        "mixed": ["{pa} {ca} landing page 转化率", "{ca} {pa} LP 优化"],
    },
}
# Two short terms: (topic, template) where the gold is every memory of that topic for the
# product or channel named.
SHORT_TEMPLATES = [
    ("bid", "product", "{pa} 出价"), ("budget", "product", "{pa} 预算"), ("promo", "product", "{pa} 大促"),
    ("bid", "channel", "{ca}出价"), ("budget", "channel", "{ca}预算"), ("coldstart", "product", "{pa} 冷启动"),
    ("creative", "product", "{pa} 素材"), ("audience", "product", "{pa} 人群"),
]
MONTH_QUERY = ["{pa}{ca}{month}月ROI异常原因", "{month}月份{ca}上{pa}成本突然变高是怎么回事", "{ca} {pa} {month}月 掉量"]

# Global rules: (key, content, [queries]). Scoped queries for them name an advertiser whose
# industry the rule is about (or any advertiser for channel and general rules).
GLOBAL_RULES: list[tuple[str, str, str | None, list[str]]] = [
    ("otc_words", "医药OTC广告不得出现“治愈”“根治”“无副作用”等绝对化用语，违者素材下线。", "医药OTC", ["药品广告哪些词不能用", "OTC 禁用词"]),
    ("otc_license", "医药OTC广告投放前必须取得药品广告审查批准文号，并在素材中标明“请按说明书或在药师指导下购买和使用”。", "医药OTC", ["药品投放要什么资质", "OTC ad approval number 批文"]),
    ("otc_audience", "医药OTC广告不得定向未成年人，也不得使用医生或患者形象做推荐。", "医药OTC", ["药品广告能不能找医生代言", "感冒药 广告 未成年人 定向"]),
    ("beauty_claims", "化妆品广告不得宣称医疗作用，如“祛斑”“消炎”“修复皮肤屏障”需有备案依据。", "美妆", ["护肤品宣传功效有什么限制", "美妆 医疗功效 宣称"]),
    ("beauty_before_after", "美妆素材使用前后对比图必须真实拍摄，不得修图夸大效果，平台抽查不合格会封户。", "美妆", ["化妆品对比图素材规范", "before after 素材 美妆 合规"]),
    ("game_license", "手游广告必须展示版号，未成年人防沉迷提示需出现在素材结尾。", "游戏", ["游戏投放需要什么资质", "game 版号 防沉迷"]),
    ("game_gambling", "游戏素材不得出现抽奖概率夸大、“一刀999”类诱导性话术。", "游戏", ["游戏素材哪些话术违规", "手游 诱导 话术"]),
    ("edu_promise", "教育培训广告不得承诺“保过”“提分”“包就业”，不得使用学员名义做效果保证。", "教育", ["网课广告能说保过吗", "教育 承诺 提分 违规"]),
    ("edu_minor", "学科类校外培训面向义务教育阶段学生的广告一律不得投放。", "教育", ["K12 学科培训 还能投吗", "中小学学科类培训广告"]),
    ("food_health", "普通食品广告不得宣称保健功能或治疗作用，低糖低脂需有检测报告支持。", "食品", ["食品广告能说减肥吗", "低糖 宣传 检测报告"]),
    ("auto_price", "汽车广告中的价格须标明是否含补贴，“裸车价”“落地价”口径要一致。", "汽车", ["汽车投放价格怎么写", "car price 补贴 口径"]),
    ("auto_leads", "汽车留资表单必须告知用途并获得用户同意，线索不得转卖第三方。", "汽车", ["留资表单隐私要求", "汽车 线索 授权"]),
    ("tech_compare", "3C数码广告与竞品比较时必须有第三方测试依据，不得贬低竞品。", "3C数码", ["耳机广告能不能跟竞品对比", "数码 竞品 比较"]),
    ("travel_price", "旅游广告的特价必须写明适用日期和库存，不得用“全网最低”。", "旅游", ["机票特价广告怎么写合规", "旅游 最低价 宣传"]),
    ("all_budget_floor", "所有计划日预算不低于300元，预算过低系统无法积累转化数据，冷启动会失败。", None, ["计划预算最低设多少", "最低日预算"]),
    ("all_bid_changes", "同一计划每天调价不超过3次，每次幅度不超过20%，频繁调整会让模型重新学习。", None, ["一天能改几次价", "调价频率限制"]),
    ("all_roi_def", "ROI 指 GMV 除以广告消耗；投产比低于1说明亏损，需要立即复盘。", None, ["投产比怎么算", "ROI definition"]),
    ("all_attribution", "转化数据以广告平台回传为准，按7日点击归因口径核算，不用自然流量。", None, ["转化归因用什么口径", "attribution window"]),
    ("all_promo_freeze", "大促前48小时冻结新建计划，只对已稳定计划加预算，避免冷启动撞上流量高峰。", None, ["大促前能不能建新计划", "大促 冻结 新计划"]),
    ("all_blacklist", "投放前统一加载行业否定词和黑名单媒体包，防止品牌出现在不良内容旁。", None, ["品牌安全 黑名单", "否词和媒体黑名单"]),
    ("all_report", "日报在每天上午10点前发出，含消耗、ROI、转化成本和异常计划清单。", None, ["日报什么时候发", "daily report 内容"]),
    ("all_review", "单日消耗超过预算150%的计划自动暂停并通知投手人工复核。", None, ["超预算会怎样", "消耗超标 自动暂停"]),
]
# Channel platform rules, one per channel and kind; queried by any advertiser.
CHANNEL_RULE_TEMPLATES = [
    ("refund", "{c}账户充值后30天内未消耗的余额可以申请退款，需提交对公账户证明。", ["{ca}账户余额怎么退", "{ca} refund 余额"]),
    ("review_time", "{c}素材审核一般需要2到6小时，大促期间延长到24小时，需提前提交。", ["{ca}素材审核要多久", "{ca} creative review time"]),
    ("learning", "{c}的计划学习期以7天内积累20个转化为标准，学习期内不要大改。", ["{ca}学习期标准是什么", "{ca} learning phase 转化数"]),
    ("pixel", "{c}必须接入转化回传（API或SDK），否则智能出价无法优化。", ["{ca}怎么接转化回传", "{ca} conversion API 接入"]),
]
HANDWRITTEN_MEMORIES: list[tuple[str, str | None, str]] = [
    ("hw_otc_flu", "otc_kangning", "流感季（11月到次年2月）感冒灵搜索量翻倍，百度搜索推广关键词出价提前两周上调，抢“感冒 发烧 吃什么”类长尾词。"),
    ("hw_otc_pharmacist", "otc_kangning", "药师口播素材比明星素材转化更好，用户更信专业人士，但药师必须是真实执业药师并留存资质。"),
    ("hw_beauty_koc", "beauty_yanxi", "小红书种草先铺50篇素人笔记再投聚光，搜索词“油皮防晒”排名进前三后，千川直播间转化率明显提高。"),
    ("hw_beauty_live", "beauty_yanxi", "品牌自播在晚上9点后开播，主播讲成分讲得越细，停留时长越长，GMV主要来自老客复购。"),
    ("hw_game_ltv", "game_xingyao", "买量不能只看首日ROI，SLG的7日LTV大约是首日的3.2倍，考核口径改为7日回收。"),
    ("hw_game_server", "game_xingyao", "每次开新服前一天集中放量，新服前三天的付费率是老服的两倍。"),
    ("hw_edu_lead", "edu_zhixue", "体验课表单加一道“孩子年级”必填题后，线索量少了15%，但到课率从30%升到52%。"),
    ("hw_edu_season", "edu_zhixue", "考研课程的投放旺季是3月到6月，9月后转为冲刺班，素材主打押题和真题解析。"),
    ("hw_food_gift", "food_xianwei", "坚果礼盒的销量高度集中在春节前一个月，送礼人群主要是30到45岁男性。"),
    ("hw_food_spicy", "food_xianwei", "自热火锅在大学宿舍场景的素材点击最好，寒暑假期间转化明显下降。"),
    ("hw_auto_test", "auto_qingche", "试驾预约线索的有效率在周末更高，工作日晚上留资的人到店率最低。"),
    ("hw_auto_dealer", "auto_qingche", "线索分配给4S店后超过2小时未回访，成交率下降一半，需要经销商考核回访时效。"),
    ("hw_tech_review", "tech_jixun", "耳机找数码博主做降噪实测对比，评论区“求链接”很多，带来的搜索转化远高于硬广。"),
    ("hw_tech_618", "tech_jixun", "扫地机器人在618的客单价最高，用户会比较参数，详情页要把吸力和避障讲清楚。"),
    ("hw_travel_holiday", "travel_youle", "国庆和春节前一个月是机票搜索高峰，出价要跟着航司放票节奏调整。"),
    ("hw_travel_family", "travel_youle", "亲子乐园门票的决策人主要是妈妈，周三周四投放最好，周末前下单出游。"),
    ("hw_global_agency", None, "代理商每月5号前提交上月消耗对账单，对不上的差额以平台后台数据为准。"),
    ("hw_global_brand", None, "所有素材统一使用品牌标准色和字体，logo放在右上角且不小于画面的5%。"),
]
HANDWRITTEN_QUERIES: list[tuple[str, str | None, list[str]]] = [
    ("冬天感冒药的搜索广告要提前准备吗", "otc_kangning", ["hw_otc_flu"]),
    ("药师 口播", "otc_kangning", ["hw_otc_pharmacist"]),
    ("先种草再投放的顺序", "beauty_yanxi", ["hw_beauty_koc"]),
    ("直播间几点开播比较好", "beauty_yanxi", ["hw_beauty_live"]),
    ("游戏买量看几日回收", "game_xingyao", ["hw_game_ltv"]),
    ("LTV 考核口径", "game_xingyao", ["hw_game_ltv"]),
    ("表单加问题会不会影响线索质量", "edu_zhixue", ["hw_edu_lead"]),
    ("考研课什么时候是旺季", "edu_zhixue", ["hw_edu_season"]),
    ("礼盒 春节", "food_xianwei", ["hw_food_gift"]),
    ("学生宿舍场景素材", "food_xianwei", ["hw_food_spicy"]),
    ("哪天留资到店率高", "auto_qingche", ["hw_auto_test"]),
    ("4S店回访慢怎么办", "auto_qingche", ["hw_auto_dealer"]),
    ("KOL 测评 耳机", "tech_jixun", ["hw_tech_review"]),
    ("机票出价要看什么节奏", "travel_youle", ["hw_travel_holiday"]),
    ("亲子门票一周中哪天投", "travel_youle", ["hw_travel_family"]),
    ("对账单几号交", "edu_zhixue", ["hw_global_agency"]),
    ("logo 放哪里 品牌规范", "beauty_yanxi", ["hw_global_brand"]),
    ("reconciliation 对账 代理商", None, ["hw_global_agency"]),
]

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _numbers(rng: random.Random) -> dict[str, object]:
    a = rng.randint(20, 180)
    r = round(rng.uniform(1.4, 4.2), 1)
    ctr = round(rng.uniform(1.5, 6.0), 1)
    return {
        "a": a, "b": a + rng.randint(5, 40), "x": rng.randint(8, 65), "y": rng.randint(12, 48), "d": rng.choice([5, 8, 10, 15, 20, 30]),
        "r": r, "r2": round(max(0.4, r - rng.uniform(0.3, 1.5)), 1), "n": rng.randint(2, 9), "m": rng.randint(2, 5), "k": rng.randint(2, 6),
        "ctr": ctr, "ctr2": round(ctr * rng.uniform(0.4, 0.7), 1),
        "style": rng.choice(STYLES), "aud": rng.choice(AUDIENCES), "aud2": rng.choice(AUDIENCES), "h": rng.choice(HOURS),
        "bm": rng.choice(BIDMODES), "lp": rng.choice(LANDINGS), "elem": rng.choice(ELEMENTS), "promo": rng.choice(PROMOS), "reason": rng.choice(REASONS),
    }


def build() -> dict[str, object]:
    rng = random.Random(SEED)
    memories: list[dict[str, object]] = []

    def add(key: str, advertiser: str | None, content: str, when: datetime, layer: str = "L2", **attrs: object) -> None:
        memories.append({"key": key, "advertiser": advertiser, "layer": layer, "content": content,
                         "created_at": when.isoformat(), **attrs})

    for code, (industry, products) in ADVERTISERS.items():
        for p_index, (product, _) in enumerate(products):
            for c_index, (channel, _) in enumerate(CHANNELS):
                for topic, templates in MEMORY_TEMPLATES.items():
                    # Most (product, channel, topic) cells hold a note, some do not.
                    if rng.random() < 0.12:
                        continue
                    nums = _numbers(rng)
                    text = rng.choice(templates).format(p=product, c=channel, **nums)
                    when = START + timedelta(days=rng.randint(0, 240), hours=rng.randint(0, 10))
                    add(f"{code}/{p_index}/{c_index}/{topic}", code, text, when, industry=industry, product=p_index,
                        channel=c_index, topic=topic, promo=nums["promo"] if topic == "promo" else None)
            # Anomalies: a few channels per product, each with notes in two or three months.
            for c_index in rng.sample(range(len(CHANNELS)), 3):
                months = sorted(rng.sample(range(3, 12), rng.randint(2, 3)))
                for month in months:
                    nums = _numbers(rng)
                    text = rng.choice(ANOMALY_TEMPLATES).format(p=product, c=CHANNELS[c_index][0], **nums)
                    when = datetime(2026, month, rng.randint(2, 27), rng.randint(8, 20), tzinfo=UTC)
                    # L2, an anomaly pattern learned: an L3 observation would have expired long ago.
                    add(f"{code}/{p_index}/{c_index}/anomaly/{month}", code, text, when, industry=industry,
                        product=p_index, channel=c_index, topic="anomaly", month=month)
    for key, content, industry, _ in GLOBAL_RULES:
        add(f"global/{key}", None, content, START - timedelta(days=30), layer="L1", industry=industry, topic=key)
    for c_index, (channel, _) in enumerate(CHANNELS):
        for kind, template, _ in CHANNEL_RULE_TEMPLATES:
            add(f"global/{c_index}/{kind}", None, template.format(c=channel), START - timedelta(days=20), layer="L1",
                channel=c_index, topic=kind)
    # General advice memories (global, L2) per industry and topic: plausible distractors for
    # scoped queries, since a scoped search also reads global memories.
    for industry, _ in ADVERTISERS.values():
        for topic in ("bid", "budget", "coldstart", "creative"):
            text = {
                "bid": f"{industry}行业通用经验：出价先按行业均价的{rng.randint(80, 120)}%起步，稳定后再微调。",
                "budget": f"{industry}行业新账户首周日预算建议{rng.randint(1, 5)}千元，跑出转化后再逐步放量。",
                "coldstart": f"{industry}行业冷启动通常需要{rng.randint(3, 7)}天，期间保持素材和定向稳定。",
                "creative": f"{industry}行业素材平均寿命约{rng.randint(5, 14)}天，建议储备两倍于在投数量的新素材。",
            }[topic]
            add(f"global/{industry}/{topic}", None, text, START - timedelta(days=10), industry=industry, topic=f"general_{topic}")
    for key, advertiser, content in HANDWRITTEN_MEMORIES:
        add(key, advertiser, content, START + timedelta(days=rng.randint(0, 200)), topic="handwritten")

    by_key = {m["key"]: m for m in memories}
    queries: list[dict[str, object]] = []

    def gold_where(**match: object) -> list[str]:
        return [m["key"] for m in memories if all(m.get(k) == v for k, v in match.items())]

    def add_query(kind: str, text: str, advertiser: str | None, gold: list[str]) -> None:
        if gold:
            queries.append({"id": f"q{len(queries) + 1:03d}", "kind": kind, "query": text, "advertiser": advertiser, "gold": gold})

    cells = [m for m in memories if m.get("topic") in QUERY_TEMPLATES and m["advertiser"]]
    rng.shuffle(cells)
    for kind, count in (("paraphrase", 70), ("mixed", 40), ("operator", 20)):
        for cell in cells[:count]:
            cells = cells[1:] + [cell]
            code = str(cell["advertiser"])
            product_alias = ADVERTISERS[code][1][int(cell["product"])][1]
            channel_alias = rng.choice(CHANNELS[int(cell["channel"])][1])
            templates = QUERY_TEMPLATES[str(cell["topic"])]["mixed" if kind == "mixed" else "paraphrase"]
            text = rng.choice(templates).format(pa=product_alias, ca=channel_alias, promo=cell.get("promo") or "大促")
            gold = gold_where(advertiser=code, product=cell["product"], channel=cell["channel"], topic=cell["topic"])
            add_query(kind, text, None if kind == "operator" else code, gold)
    for i in range(40):
        topic, by, template = SHORT_TEMPLATES[i % len(SHORT_TEMPLATES)]
        code = rng.choice(list(ADVERTISERS))
        if by == "product":
            p_index = rng.randrange(3)
            gold = gold_where(advertiser=code, product=p_index, topic=topic)
            text = template.format(pa=ADVERTISERS[code][1][p_index][1])
        else:
            c_index = rng.randrange(len(CHANNELS))
            gold = gold_where(advertiser=code, channel=c_index, topic=topic)
            text = template.format(ca=CHANNELS[c_index][1][0])
        add_query("short", text, code, gold)
    anomalies = [m for m in memories if m.get("topic") == "anomaly"]
    for cell in rng.sample(anomalies, 20):
        code = str(cell["advertiser"])
        text = rng.choice(MONTH_QUERY).format(pa=ADVERTISERS[code][1][int(cell["product"])][1],
                                              ca=CHANNELS[int(cell["channel"])][1][0], month=cell["month"])
        add_query("temporal", text, code, [str(cell["key"])])
    for key, _, industry, texts in GLOBAL_RULES:
        for text in texts:
            candidates = [c for c, (ind, _) in ADVERTISERS.items() if industry in (None, ind)]
            add_query("global", text, rng.choice(candidates), [f"global/{key}"])
    for c_index, (_, aliases) in enumerate(CHANNELS):
        kind, _, texts = CHANNEL_RULE_TEMPLATES[c_index % len(CHANNEL_RULE_TEMPLATES)]
        add_query("global", rng.choice(texts).format(ca=aliases[0]), rng.choice(list(ADVERTISERS)), [f"global/{c_index}/{kind}"])
    for text, advertiser, gold in HANDWRITTEN_QUERIES:
        assert all(g in by_key for g in gold), gold
        add_query("handwritten", text, advertiser, gold)
    return {
        "about": (__doc__ or "").strip().splitlines()[0],
        "seed": SEED,
        "memories": [{k: v for k, v in m.items() if v is not None or k == "advertiser"} for m in memories],
        "queries": queries,
    }


def main() -> None:
    doc = build()
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(doc['memories'])} memories, {len(doc['queries'])} queries")


if __name__ == "__main__":
    main()
