"""What a statement's words say before any relation is drawn: quoted words a rule allows or
forbids, answers put off, what-ifs in English, reports of a dip that ended, a visit to a
store that names no store, floors, aims and additions. Each was a wrong write or a wrong
park on labelled cases written after the rules they test (tests/data/claims, batch b2)."""

import pytest

from governance.funnel.rules import assents
from judges.offline import offline_classify
from memories.models import Memory
from tests.governance.funnel.claim_pairs import relation_between, remembered, user_says
from textrules import signals as s
from textrules.claims import extract_claim, swapped_name


@pytest.mark.parametrize(
    "text,terms",
    [
        ("素材不得出现'最便宜'字样", {("最便宜", -1)}),
        ("以后可以用“国货之光”了，只是不能写“第一品牌”", {("国货之光", 1), ("第一品牌", -1)}),
        ("Never say 'risk-free' in the copy", {("risk-free", -1)}),
        ("The client said 'limited time' is fine to use again", {("limited time", 1)}),
        ("双11期间'最便宜'可以用", {("最便宜", 1)}),
        ("不需要标注'请遵医嘱'", {("请遵医嘱", -1)}),
        ("不要删掉'请遵医嘱'", {("请遵医嘱", 1)}),
        ("Don't use 'best' in titles", {("best", -1)}),
        ("In May the 'limited time' banners ran on Douyin", {("limited time", 0)}),
    ],
)
def test_each_quoted_word_takes_the_side_of_its_own_clause(text, terms):
    assert set(extract_claim(text).terms) == terms


def test_a_word_a_rule_forbids_allowed_for_a_narrower_scope_is_for_a_person(ingest):
    rule = ingest("合规部规定：brand_pc_07 笔记本电脑广告不得使用'性价比之王'表述", source="human", layer="L1", advertiser="brand_pc_07")
    loosened = user_says(ingest, "brand_pc_07 双11期间可以用'性价比之王'了，客户说法务同意了")
    assert rule.action == "WRITE", rule.reasons
    assert loosened.action == "PENDING_REVIEW", loosened.reasons
    assert Memory.objects.get(pk=rule.memory_id).status == "active"


def test_two_forbidden_words_are_two_rules_and_a_longer_one_is_the_same_word():
    two = relation_between("brand_A 文案不得出现'根治'", "brand_A 文案不得出现'特效'")
    assert two is None or two.kind == "compatible", two
    narrower = relation_between("brand_A 普通食品广告不得出现“无添加”字样", "brand_A 普通食品广告可以写“无添加蔗糖”，需附检测报告")
    assert narrower is not None and narrower.kind in {"contradiction", "ambiguous"}, narrower


@pytest.mark.parametrize(
    "answer,says_yes",
    [
        ("嗯……等下周数据出来再说", False),
        ("好，我考虑一下", False),
        ("ok, let me think about it", False),
        ("Hold off for now", False),
        ("好的，就按这个来", True),
        ("嗯，可以", True),
    ],
)
def test_an_answer_put_off_is_no_yes(answer, says_yes):
    assert assents(answer) is says_yes


def test_a_suggestion_answered_with_wait_and_see_is_not_written(ingest):
    messages = [
        {"role": "assistant", "content": "建议 brand_pet_03 猫粮在快手的日预算提高到1.2万"},
        {"role": "user", "content": "嗯，先跑完这周再说"},
    ]
    put_off = ingest(None, messages=messages, advertiser="brand_pet_03")
    assert put_off.action == "REJECT" and Memory.objects.count() == 0, put_off.reasons


@pytest.mark.parametrize(
    "text",
    [
        "If finance signs off, we'd lift brand_pet_03's Kuaishou daily budget to 15k",
        "If the new creative passes review, I'd move half of the budget to Xiaohongshu",
    ],
)
def test_an_english_what_if_with_a_contracted_would_is_hypothetical(text):
    assert extract_claim(text).stance == "hypothetical"


def test_a_dip_that_ended_by_itself_switches_nothing_on():
    ended = extract_claim("昨晚 brand_pet_03 在淘宝的点击量掉了半小时，之后自动恢复了")
    ordered = extract_claim("brand_pet_03 下周起恢复淘宝直通车投放")
    assert ended.switch == 0 and not ended.takes_a_position()
    assert ordered.switch == 1


def test_visiting_a_store_names_no_store():
    claim = extract_claim("brand_B 周末进店引流广告和到店核销广告的日预算各3000元")
    assert claim.subject.places == frozenset()
    assert extract_claim("brand_B 静安寺店到店核销广告日预算3000元").subject.places == {"静安寺"}


def test_a_budget_for_an_unnamed_store_changed_is_for_a_person(ingest):
    named = user_says(ingest, "brand_shop_05 徐家汇体验店周末到店广告日预算4000元")
    unnamed = user_says(ingest, "brand_shop_05 旗舰店周末到店广告日预算改成6000元")
    assert named.action == "WRITE", named.reasons
    # Not an update: "the flagship store" may or may not be the Xujiahui one.
    assert unnamed.action == "PENDING_REVIEW", unnamed.reasons
    assert Memory.objects.get(pk=named.memory_id).status == "active"


def test_two_finer_categories_each_side_lacks_are_for_a_person():
    # Two kinds of one thing, or two aspects of one ("新能源车" and "SUV"): the words cannot tell.
    for old, new in [
        ("brand_car_09 SUV试驾广告只投4S店所在城市", "brand_car_09 轿车试驾广告全国投放"),
        ("brand_car_09 新能源车试驾广告日预算5万", "纠正：brand_car_09 SUV试驾广告日预算改为8万"),
    ]:
        found = relation_between(old, new)
        assert found is not None and found.kind == "ambiguous", (old, new, found)


def test_an_addition_in_words_the_vocabulary_lacks_is_for_a_person_and_a_retraction_is_no_addition():
    old = "brand_C: Meta ads target small business owners"
    added = relation_between(old, "brand_C clarified: Meta ads target small business owners who sell handmade goods")
    # Not a repeat reinforced (the added words would be lost), not surely a narrower rule.
    assert added is not None and added.kind == "ambiguous", added
    retracted = relation_between("brand_C 抖音日预算3万", "客户补充：brand_C 抖音日预算3万这条已经作废")
    assert retracted is None or retracted.kind != "refinement", retracted


@pytest.mark.parametrize(
    "text",
    [
        "brand_pet_03 双11预热期只在晚9点后开直播投流",
        "brand_pet_03 客户决定这条线618不做付费推广",
    ],
)
def test_a_users_own_limit_is_feedback_whatever_event_it_names(text):
    assert offline_classify(text, "user").trigger_type == "user_feedback"


@pytest.mark.parametrize("text", ["上门安装2小时起订", "minimum order is 2 units", "每单至少3件", "at least 5 leads a day"])
def test_a_floor_bounds_as_a_cap_does(text):
    assert s.directs(text)


@pytest.mark.parametrize(
    "text,aims",
    [
        ("LinkedIn ads target HR directors at firms over 200 staff", True),
        ("宠物险投最近领养过猫狗的人群", True),
        ("sedan ads run nationwide", True),
        ("cost per signup target 300 yuan", False),
        ("需要调整投放人群", False),
    ],
)
def test_whom_delivery_aims_at_is_a_way_to_act(text, aims):
    assert s.has(s.AIMS_AT, text) is aims


def test_a_users_plain_targeting_statement_is_kept(ingest):
    kept = user_says(ingest, "brand_saas_04: LinkedIn ads target HR directors in logistics firms, the client said")
    assert kept.action == "WRITE", kept.reasons


@pytest.mark.parametrize(
    "old,new,swapped",
    [
        ("brand_D 防晒霜在小红书日预算2万", "brand_D 隔离霜在小红书日预算2万", ("防晒", "隔离")),
        ("brand_D 羽绒服类目CPC上限2元", "brand_D 冲锋衣类目CPC上限2元", ("羽绒服", "冲锋衣")),
        # Not names: a verb, a one-character word, two audiences the vocabulary knows as one.
        ("素材不得使用'最好'", "素材不得出现'最好'", None),
        ("周末需调整出价", "周末要调整出价", None),
        ("brand_D 只投家长人群", "brand_D 只投宝妈人群", None),
    ],
)
def test_one_modifier_swapped_in_a_compound_noun_names_another_thing(old, new, swapped):
    assert swapped_name(old, new) == swapped


def test_the_same_rule_with_one_noun_swapped_is_neither_reinforced_nor_written_beside(ingest):
    # Another product line ("登山鞋"/"徒步鞋") or the same rule changed in a word the vocabulary
    # does not know ("偏年轻化"/"偏商务化"): a person decides.
    for first_text, second_text in [
        ("brand_shoe_02 登山鞋在天猫日预算1.5万", "brand_shoe_02 徒步鞋在天猫日预算1.5万"),
        ("客户要求：brand_shoe_03 投放素材风格统一偏年轻化", "客户要求：brand_shoe_03 投放素材风格统一偏商务化"),
    ]:
        first, second = user_says(ingest, first_text), user_says(ingest, second_text)
        assert first.action == "WRITE" and second.action == "PENDING_REVIEW", second.reasons
        assert Memory.objects.get(pk=first.memory_id).reinforcement_count == 0


@pytest.mark.parametrize(
    "text,plans",
    [
        ("brand_E 计划 plan_store_bj_02 日预算6000元", {"STORE_BJ_02"}),
        ("brand_E campaign gs_brand_exact_03: max CPC $3", {"GS_BRAND_EXACT_03"}),
        ("计划plan_a508 出价1.2元", {"A508"}),
        ("brand_E campaign budget raised", set()),
    ],
)
def test_a_plan_id_that_runs_on_with_underscores_is_read_whole(text, plans):
    assert extract_claim(text).subject.plans == plans


def test_the_price_of_each_click_is_a_cpc():
    claim = extract_claim("brand_E 每次点击的费用不能超过4块钱")
    assert "cpc" in claim.metrics and [q.role for q in claim.quantities] == ["cpc"]


def test_starting_delivery_is_switching_it_on():
    assert extract_claim("客户说那款新品可以开始投放了").switch == 1


def test_a_word_no_longer_required_goes_against_the_rule_that_required_it(ingest):
    rule = ingest("合规部规定：brand_milk_08 所有奶粉广告必须标注'请遵医嘱'", source="human", layer="L1", advertiser="brand_milk_08")
    lifted = ingest("法务更新规则：brand_milk_08 奶粉广告不再需要标注'请遵医嘱'", source="human", layer="L1", advertiser="brand_milk_08")
    assert rule.action == "WRITE", rule.reasons
    assert lifted.action == "PENDING_REVIEW", lifted.reasons
    assert Memory.objects.get(pk=rule.memory_id).status == "active"


def test_a_user_who_disputes_a_tool_figure_reaches_a_person(ingest):
    measured = remembered("brand_G 上周快手首日ROI为1.4", advertiser="brand_G", source="tool")
    disputed = user_says(ingest, "这个数不对，brand_G 上周快手首日ROI实际是2.1，退款没扣对")
    assert disputed.action == "PENDING_REVIEW", disputed.reasons
    assert Memory.objects.get(pk=measured.pk).status == "active"


def test_a_kpi_target_corrected_supersedes_the_old_target(ingest):
    old = user_says(ingest, "brand_G 酒店计划 CPA 目标 80 元")
    new = user_says(ingest, "纠正：brand_G 酒店计划的 CPA target 改成 65 元，80 是旧的")
    assert old.action == "WRITE" and new.action == "UPDATE", new.reasons
    assert Memory.objects.get(pk=old.memory_id).status == "superseded"


@pytest.mark.parametrize(
    "text,plans",
    [("brand_G 酒店计划 CPA 目标 80 元", set()), ("计划B 出价1元", {"B"}), ("计划A2 日预算3000元", {"A2"})],
)
def test_a_metric_after_plan_is_no_plan_id(text, plans):
    assert extract_claim(text).subject.plans == plans


def test_aiming_at_an_audience_restricts_as_only_does(ingest):
    first = user_says(ingest, "brand_G 新游戏在B站只投18-24岁男性")
    again = user_says(ingest, "客户再次强调：brand_G 新游戏B站定向为18到24岁的男性用户")
    assert first.action == "WRITE", first.reasons
    assert again.action == "REJECT", again.reasons
    assert Memory.objects.get(pk=first.memory_id).reinforcement_count == 1


def test_a_tier_is_no_quantity():
    claim = extract_claim("target parents in tier-1 and tier-2 cities")
    assert claim.quantities == ()


def test_a_named_promotion_is_a_time_window_of_its_own(trigger):
    signal = trigger(
        "environment_change",
        advertiser="brand_G",
        summary="Double 11 week: brand_G's Douyin CPM is up 38% versus the prior week",
        data={"event": "Double 11", "channel": "Douyin", "metric": "cpm", "change_pct": 38},
        source="tool",
    )
    assert signal.action == "WRITE", signal.reasons


def test_english_weekdays_name_a_cycle():
    assert s.has(s.PERIOD, "demo requests convert better Tuesday-Thursday than on Mondays")


@pytest.mark.parametrize(
    "old,new",
    [
        ("brand_I 抖音曝光与天猫搜索量无明显关联", "brand_I 抖音曝光与天猫搜索量同步上涨"),
        ("brand_I: TikTok views show no clear correlation with Amazon searches", "brand_I: TikTok views rise with Amazon searches"),
    ],
)
def test_no_link_and_a_link_contradict(old, new):
    assert extract_claim(old).polarity == -1 and extract_claim(new).polarity == 1


def test_a_day_said_as_an_addition_sits_beside_the_first():
    added = relation_between(
        "brand_J: push the spring sale on Douyin every Friday", "brand_J: also push the spring sale on Douyin every Sunday"
    )
    moved = relation_between(
        "brand_J: push the spring sale on Douyin every Friday", "brand_J: push the spring sale on Douyin every Sunday instead"
    )
    assert added is None or added.kind == "compatible", added
    assert moved is not None and moved.kind == "contradiction", moved


def test_a_generic_product_beside_a_named_model_is_an_identity_question(ingest):
    named = user_says(ingest, "brand_K 极光X9 上市广告只投成都和重庆")
    generic = user_says(ingest, "brand_K: the new SUV's launch ads should cover Xi'an as well")
    assert named.action == "WRITE", named.reasons
    # Not written beside as 'two scopes': the new SUV may well be the X9.
    assert generic.action == "PENDING_REVIEW", generic.reasons


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # More parts of one audience named: narrower.
        ("brand_L: video ads target new mothers", "brand_L clarified: video ads target new mothers in tier-2 cities only", "refinement"),
        # One city tier to two: wider, not narrower.
        ("brand_L 奶粉广告定向一线城市宝妈", "brand_L 奶粉广告定向一二线城市宝妈", "ambiguous"),
    ],
)
def test_more_audience_parts_narrow_but_more_city_tiers_widen(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


def test_a_rule_stored_before_its_quoted_words_were_read_is_read_again(ingest):
    text = "合规部规定：brand_pc_08 笔记本电脑广告不得使用'性价比之王'表述"
    older = extract_claim(text, advertiser="brand_pc_08").as_dict()
    del older["terms"], older["adds"]  # as a claim was stored before these parts existed
    remembered(text, advertiser="brand_pc_08", source="human", layer="L1", claim=older)
    loosened = user_says(ingest, "用户确认：brand_pc_08 双11期间可以用'性价比之王'了")
    assert loosened.action == "PENDING_REVIEW", loosened.reasons


@pytest.mark.parametrize(
    "old,new",
    [
        # The "no" only names what the "only" leaves out: a narrower rule, written beside.
        ("brand_M 护肤礼盒投18-30岁学生", "客户补充：brand_M 护肤礼盒的学生人群只投女性，男性先不投"),
        ("brand_M 工作日出价上浮15%", "用户补充：brand_M 工作日出价上浮15%只在晚上19点到23点，其余时段不上浮"),
        (
            "brand_M: search ads bid up 10% on weekdays",
            "brand_M clarified: search ads bid up 10% only on weekdays after 6pm, not in the daytime",
        ),
    ],
)
def test_a_no_after_only_names_what_the_only_leaves_out(old, new):
    found = relation_between(old, new)
    assert found is not None and found.kind == "refinement", found


@pytest.mark.parametrize(
    "text,audiences,polarity",
    [
        ("brand_M 只投女性，男性先不投", {"女性"}, 1),
        # A figure of its own: a bound, not the rest of the "only".
        ("brand_M 只投一线城市，日预算不超过5000元", {"一线城市"}, 1),
        # No "only" before it: the "no" is the statement's own.
        ("brand_M 男性先不投", {"男性"}, -1),
    ],
)
def test_the_rest_of_an_only_is_no_subject_and_no_no(text, audiences, polarity):
    claim = extract_claim(text)
    assert claim.subject.audiences == audiences
    assert claim.polarity == polarity


def test_a_no_of_its_own_after_an_addition_still_goes_to_a_person():
    found = relation_between("brand_M 护肤礼盒投18-30岁学生", "客户补充：brand_M 护肤礼盒学生人群里男性先不投")
    assert found is not None and found.kind == "ambiguous", found


@pytest.mark.parametrize(
    "text,tiers",
    [
        ("考研课只投一线和二线城市", {"一线城市", "二线城市"}),
        ("考研课只投一二线城市", {"一线城市", "二线城市"}),
        ("家政团购投二线、三线城市", {"二线城市", "下沉市场"}),
        ("家政团购投三线城市", {"下沉市场"}),
    ],
)
def test_city_tiers_listed_with_a_joiner_name_each_tier(text, tiers):
    assert extract_claim(text).subject.audiences == tiers


def test_a_cap_said_as_within_is_a_bound():
    assert "限定" in extract_claim("brand_N 信用卡获客 CPL 目标90元以内").conditions
    # A window of days is no bound.
    assert "限定" not in extract_claim("brand_N 3天以内完成素材审核").conditions
    found = relation_between("brand_N 信用卡在腾讯广告的 CPL 目标90元以内", "brand_N 信用卡腾讯广告：单个线索成本不超过90元")
    assert found is not None and found.kind == "duplicate", found


def test_an_advertiser_id_with_underscores_is_read_whole():
    assert extract_claim("adv_saas_01: 只投搜索").subject.advertiser == "adv_saas_01"


def test_claims_with_nothing_in_common_but_the_advertiser_are_no_repeat():
    found = relation_between(
        "brand_saas_03: companies with 50-500 employees", "brand_saas_03: the trial landing page should open with the customer case video"
    )
    # Not reinforced as a repeat (which would drop the landing-page order): a person decides.
    assert found is not None and found.kind == "ambiguous", found
    # A figure in common is something read in common: the same anomaly reported again.
    again = relation_between("brand_saas_03 付费率连续3天比基线低60%", "brand_saas_03 近3天付费率较基线下降60%")
    assert again is not None and again.kind == "duplicate", again


@pytest.mark.parametrize(
    "text,part,names",
    [
        ("brand_P 新游 TapTap 日预算6000元", "channels", {"TapTap"}),
        ("brand_P 进销存软件只投华南", "categories", {"SaaS/ERP"}),
        ("brand_P 基金定投关键词只买品牌词", "categories", {"金融/基金"}),
        ("brand_P: only buy auto-investment keywords", "categories", {"金融/基金"}),
        # Owning a car is who the audience is, not the product advertised.
        ("brand_P: men aged 30-45 who already own a car", "categories", set()),
        ("brand_P 定向已有车男性", "audiences", {"车主", "男性"}),
        ("brand_P 所有车型都投", "audiences", set()),
    ],
)
def test_channel_category_and_audience_names_across_verticals(text, part, names):
    assert getattr(extract_claim(text).subject, part) == names


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # One name swapped in English words, one side a category of the vocabulary: two things.
        ("brand_Q: Meta ads for bookshelves run on Sunday mornings", "brand_Q: Meta ads for sofas run on Sunday mornings", "compatible"),
        # Neither side in the vocabulary: another thing or the same renamed; a person decides.
        (
            "brand_Q: cost per webinar signup target 300 yuan",
            "brand_Q: cost per sample request target 300 yuan, the client said",
            "ambiguous",
        ),
        # A verb reworded is no name swapped: a repeat.
        ("brand_Q: buy the brand keywords on Baidu", "brand_Q: purchase the brand keywords on Baidu", "duplicate"),
    ],
)
def test_one_name_swapped_in_english_words(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # Each day set given its own hours: two scopes.
        ("brand_R 理财广告交易日早上8点到9点投放", "brand_R 理财广告周末晚上20点到22点投放", "compatible"),
        ("brand_R: fund ads run 8:00-9:30 on weekdays", "brand_R: on weekends fund ads run 19:00-21:00", "compatible"),
        # Said as a change, the same pair moves the first.
        ("brand_R 理财广告交易日早上8点到9点投放", "brand_R 理财广告改为周末晚上20点到22点投放", "contradiction"),
        # The same days with other hours: the hours changed, not a second scope.
        ("brand_R: fund ads run 8:00-9:30 on weekdays", "brand_R: fund ads run 12:00-13:30 on weekdays", "contradiction"),
        ("brand_R 理财广告周末晚上20点到22点投放", "brand_R 理财广告周末晚上18点到20点投放", "contradiction"),
    ],
)
def test_other_days_each_given_their_own_hours_are_two_scopes(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


def test_trading_days_are_the_working_week():
    assert extract_claim("brand_R fund ads on trading days only").subject.weekdays == {1, 2, 3, 4, 5}
    assert extract_claim("brand_R 交易日投放").subject.weekdays == {1, 2, 3, 4, 5}


@pytest.mark.parametrize(
    "text,stance",
    [
        ("brand_S: also promote the trial lesson on Meituan every Thursday", "statement"),
        ("brand_S: also push the trial lesson on Meituan every Thursday", "order"),
        ("For brand_S, pause the Douyin feed ads after 11pm", "order"),
        # A verb whose past is its base is no instruction: "cut" reports here.
        ("brand_S: cut CPC by 10% last week and ROI went up", "statement"),
    ],
)
def test_an_english_sentence_opening_with_a_bare_verb_is_an_order(text, stance):
    assert extract_claim(text).stance == stance


@pytest.mark.parametrize(
    "text",
    [
        "adv_food_73: also push the gift box on Meituan every Thursday",
        "补充细节：adv_food_73 坚果礼盒618日预算8万，其中B站渠道占3万",
    ],
)
def test_a_users_own_order_or_figure_is_feedback_not_an_observation(text):
    assert offline_classify(text, "user").trigger_type == "user_feedback"


def test_a_detail_said_as_an_addition_with_its_split_refines():
    found = relation_between("adv_food_73 坚果礼盒618期间日预算8万", "补充细节：adv_food_73 坚果礼盒618日预算8万，其中B站渠道占3万")
    assert found is not None and found.kind == "refinement", found


@pytest.mark.parametrize(
    "text,kept",
    [
        # A "no" of another kind of part than the "only" names is a rule of its own.
        ("brand_M 只投女性，周末不投抖音", {"channels": {"抖音"}, "weekdays": {6, 7}}),
        ("brand_M: only for tier-1 cities, bids on weekends are not raised", {"weekdays": {6, 7}}),
        # A bare 停 inside a word is no "no".
        ("brand_M 只投一线城市，停车场户外广告预算减半", {"channels": {"户外"}}),
    ],
)
def test_a_no_of_its_own_after_an_only_stays(text, kept):
    subject = extract_claim(text).subject
    for part, names in kept.items():
        assert getattr(subject, part) == names, (part, subject)


def test_a_clause_of_its_own_after_an_only_still_goes_to_a_person():
    found = relation_between("brand_M 周末投放抖音", "brand_M 只投女性，周末不投抖音")
    assert found is not None and found.kind in {"ambiguous", "contradiction"}, found


@pytest.mark.parametrize(
    "text",
    [
        "brand_S: push notifications lifted CTR 12%",
        "brand_S: launch week CTR was 2.1% on Kuaishou",
        "brand_S: target audience skewed female",
        "brand_S: add-to-cart rate dropped 30%",
        "brand_S: use of video creatives doubled",
    ],
)
def test_a_noun_in_a_verbs_words_is_no_order(text):
    assert extract_claim(text).stance != "order"


@pytest.mark.parametrize(
    "text,correction",
    [
        ("把brand_S的抖音出价从2元降到1.5元", True),
        ("brand_S: lower the Google Shopping bid cap from $0.80 to $0.60", True),
        # A report of what was done is no correction of the setting.
        ("brand_S 上周把抖音出价从2元降到1.5元后CTR掉了30%", False),
    ],
)
def test_a_new_value_said_as_an_instruction_is_a_correction(text, correction):
    assert bool(s.hits(s.CORRECTION, text)) == correction


@pytest.mark.parametrize(
    "text,trigger_type",
    [
        # Spent, not set: a report of the promotion, not the user's own figure.
        ("brand_M 双11期间日预算花了6万，CPC比平时高了40%", "environment_change"),
    ],
)
def test_a_figure_reported_as_spent_is_no_users_order(text, trigger_type):
    assert offline_classify(text, "user").trigger_type == trigger_type


@pytest.mark.parametrize(
    "text,figures",
    [
        ("brand_T 抖音信息流 CPA 40，观察21天、样本3万转化", [("cpa", 40.0)]),
        ("brand_T Douyin feed CPA 40 over a sample of 30k clicks", [("cpa", 40.0)]),
        ("adv_fin_01 基金定投广告 ROI 2.1 over the past 14 days", [("roi", 2.1)]),
        ("近3天CTR下降到1.2%", [("ctr", 1.2)]),
        # How long an ordered change runs is its own figure: 持续3天 and 持续7天 differ.
        ("brand_A 周末出价上浮20%，持续3天", [("bid", 20.0), ("bid", 3.0)]),
    ],
)
def test_the_size_of_an_observation_is_no_figure_it_reports(text, figures):
    # "样本3万" and "观察21天" say what the CPA rests on (textrules/evidence.py), not a second CPA.
    assert [(q.role, q.value) for q in extract_claim(text).quantities] == figures


def test_one_figure_seen_over_two_windows_is_one_figure():
    # Read as CPAs, the windows would make two reports of CPA 40 contradict each other.
    found = relation_between("brand_T 抖音信息流 CPA 40，观察7天", "brand_T 抖音信息流 CPA 40，观察21天、样本3万转化")
    assert found is not None and found.kind == "duplicate", found
    # An ordered duration changed is a changed rule, not a window.
    found = relation_between("brand_A 周末出价上浮20%，持续3天", "用户纠正：brand_A 周末出价上浮20%，持续7天")
    assert found is not None and found.kind == "contradiction", found


@pytest.mark.parametrize(
    "old,new",
    [
        ("adv_food_02 抖音信息流用真人出镜比纯产品图CTR高（观察2周）", "adv_food_02 抖音信息流把真人出镜换成纯产品图后，CTR从2.1%升到2.6%"),
        # The other way round: a move reported first, a judgement after.
        ("adv_food_02 抖音信息流把真人出镜换成纯产品图后，CTR从2.1%升到2.6%", "adv_food_02 抖音信息流用真人出镜比纯产品图CTR高"),
    ],
)
def test_a_judgement_beside_a_reported_move_is_no_refinement_or_repeat(old, new):
    found = relation_between(old, new)
    assert found is not None and (found.kind, found.signal) == ("ambiguous", "metric"), found


def test_a_judgement_and_a_reported_move_of_one_metric_go_to_a_person(trigger):
    # Not a narrower statement because the second one has figures: the two findings may disagree
    # ("真人出镜 has the higher CTR" / "switching away from 真人出镜 raised the CTR").
    old = remembered("adv_food_02 抖音信息流用真人出镜比纯产品图CTR高（观察2周）", advertiser="adv_food_02", source="tool")
    new = trigger(
        "performance_optimization",
        summary="adv_food_02 抖音信息流把真人出镜换成纯产品图后，CTR从2.1%升到2.6%",
        data={"changed_variables": ["素材类型"], "before": {"ctr": 0.021}, "after": {"ctr": 0.026}, "sample_size": 90000},
        source="tool",
        advertiser="adv_food_02",
    )
    assert new.action == "PENDING_REVIEW", new.reasons
    old.refresh_from_db()
    assert (old.status, old.reinforcement_count) == ("active", 0)
