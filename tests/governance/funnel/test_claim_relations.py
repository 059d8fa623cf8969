"""Relations decided on claims (governance/funnel/relation.py over textrules/claims.py):
the data-integrity cases a wrong relation would corrupt, pair by pair and end to end
through the real funnel on the real database."""

import json

import pytest

from governance.models import Trace
from memories.embeddings import get_embedder
from memories.models import Memory
from tests.governance.funnel.claim_pairs import advertiser_in, relation_between, remembered, user_says
from textrules.claims import Wording, extends_wording, extract_claim, swapped_category, within_bound


@pytest.mark.parametrize(
    "old,new,kind,facet",
    [
        # Different weekday or slot: the Friday rule stays what it is.
        ("brand_A 周三20:00-22:00出价上浮10%", "brand_A 周五20:00-23:00出价上浮10%", "compatible", "weekday"),
        ("brand_A 双11期间出价上浮20%", "brand_A 周五晚出价上浮10%", "compatible", "weekday"),
        # Different plans, categories, stores: look-alikes about different things.
        ("plan_001 出价上浮10%后ROI提升到3.1", "plan_002 出价上浮10%后ROI提升到2.4", "compatible", "plan"),
        ("brand_A 口红目标ROI 3.0", "brand_A 面膜目标ROI 2.0", "compatible", "category"),
        ("adv_local_01 徐汇店单店日预算800元", "adv_local_01 浦东店单店日预算800元", "compatible", "place"),
        ("brand_A 医药OTC新客人群包CTR提升12%", "brand_A 医药OTC只改版落地页，CVR从2.1%提升到2.6%", "compatible", "lever"),
        ("brand_A 医药OTC日预算3000元", "用户要求：brand_A 医药OTC每月总预算控制在8万元以内", "compatible", "period"),
        # Number, direction, switch and polarity changes of the same subject and lever.
        ("brand_A 医药OTC日预算5000元", "brand_A 医药OTC日预算改为8000元", "contradiction", "value"),
        ("brand_A 医药OTC信息流出价上浮10%", "brand_A 医药OTC信息流出价上浮20%", "contradiction", "value"),
        ("brand_A 暂停口红计划投放", "brand_A 恢复口红计划投放", "contradiction", "switch"),
        ("adv_fin_01 信用卡CPA上限为目标的1.3倍", "adv_fin_01 信用卡CPA上限为目标的1.5倍", "contradiction", "value"),
        ("brand_F daily budget cap is 500 dollars", "brand_F daily budget cap is now 800 dollars", "contradiction", "value"),
        ("brand_C 小红书素材适合真人测评", "brand_C 小红书素材不适合真人测评", "contradiction", "polarity"),
        (
            "brand_A 周一上午9-11点是维生素品类CTR最高的时段，适合新素材首发",
            "brand_A 偏好在周一上午9-11点暂停维生素品类新素材首发，该时段CTR最低",
            "contradiction",
            "polarity",
        ),
        # Allowed where it was forbidden, in either language, and a comparison turned round.
        ("医药OTC广告素材不得出现“根治”字样", "合规部通知：医药OTC广告素材可以使用“根治”字样，需附临床报告", "contradiction", "polarity"),
        (
            "Beauty accounts may not run before-and-after photos",
            "Legal update: beauty accounts may run before-and-after photos with a disclaimer",
            "contradiction",
            "polarity",
        ),
        ("brand_A 口红抖音信息流CTR高于快手信息流", "用户反馈：brand_A 口红抖音信息流CTR其实比快手信息流低", "contradiction", "polarity"),
        # Paraphrases are one memory.
        ("brand_B 口红类目也投放男性人群（客户明确要求）", "brand_B 明确要求：口红类目也投放男性人群", "duplicate", "value"),
    ],
)
def test_structure_decides_what_embeddings_cannot(old, new, kind, facet):
    found = relation_between(old, new)
    assert found is not None and (found.kind, found.signal) == (kind, facet), found


def test_an_roi_is_never_an_age_range():
    roi = extract_claim("brand_A 宽泛定向时ROI仅1.8")
    ages = extract_claim("brand_A 只投25-35岁女性")
    assert [(q.role, q.value) for q in roi.quantities] == [("roi", 1.8)]
    assert {(q.role, q.value) for q in ages.quantities} == {("age", 25.0), ("age", 35.0)}


@pytest.mark.parametrize(
    "text,conditions",
    [
        # A cap bounds the setting itself, as "只投" bounds the scope; a threshold that
        # triggers something is a condition of another kind.
        ("百度搜索每个线索成本不能超过300元", {"限定"}),
        ("CPA must not exceed 80 yuan", {"限定"}),
        ("百度搜索线索成本上限300元", {"限定"}),
        ("ROI低于2时暂停投放", {"阈值"}),
        ("pause when CPA goes above 80", {"阈值"}),
    ],
)
def test_a_cap_restricts_and_is_not_a_threshold(text, conditions):
    assert set(extract_claim(text).conditions) == conditions


def test_a_store_is_named_by_the_words_right_before_it():
    assert extract_claim("adv_local_03 只投门店5公里内").subject.places == frozenset()
    assert extract_claim("adv_local_01 徐汇店单店日预算800元").subject.places == {"徐汇"}


def test_a_change_whose_subject_one_side_leaves_open_is_for_a_person():
    found = relation_between("brand_A 周五20:00-23:00出价上浮10%", "brand_A 出价上浮20%")
    assert found is not None and found.kind == "ambiguous", found


@pytest.mark.parametrize(
    "old,new",
    [
        # One side names a part of the subject the other leaves open, values alike: the same
        # rule reworded or a narrower one, which the words cannot tell apart.
        ("adv_local_02 家政团购美团只投门店3公里内", "adv_local_02 客户强调：家政团购投放半径不超过3公里"),
        ("brand_food_02 坚果礼盒不参加满减", "客户说：brand_food_02 每日坚果可以参加双12满减"),
        # The other way round: the old one names the channel, the new one says the same with less.
        ("adv_local_03 洗车团购抖音本地推只投门店5公里内", "adv_local_03 客户再次强调：洗车团购投放半径不超过5公里"),
    ],
)
def test_a_part_named_on_one_side_only_is_parked_not_written_beside(old, new):
    found = relation_between(old, new)
    assert found is not None and found.kind == "ambiguous", found


@pytest.mark.parametrize(
    "old,new,extends",
    [
        ("brand_A 医药OTC搜索出价上限2.5元", "用户补充：brand_A 医药OTC搜索出价上限2.5元只在周末执行", True),
        ("brand_F: video ads target new mothers", "brand_F: video ads target new mothers in tier-2 cities only", True),
        # Fewer words than the old one: said again with less, not extended.
        ("本次冷启动计划用三阶段出价，目标ROI 3.0，实际做到3.4", "本次冷启动计划用三阶段出价，目标ROI 3.0，实际3.4", False),
        # Reworded: the old one's words are not held.
        ("brand_A 医药OTC搜索出价上限2.5元", "brand_A 搜索广告的出价别超过2.5元，周末也一样", False),
    ],
)
def test_a_text_extends_another_only_when_it_holds_its_words_and_adds_some(old, new, extends):
    assert extends_wording(old, new) is extends


@pytest.mark.parametrize(
    "old,new",
    [
        ("brand_A 医药OTC新客计划只投25-40岁女性", "brand_A 医药OTC新客计划投25-40岁女性"),
        (
            "brand_G: the CRM trial only for companies with 50-500 employees",
            "brand_G: keep the CRM trial targeting on companies with 50-500 employees",
        ),
    ],
)
def test_a_restriction_dropped_is_for_a_person(old, new):
    # Said again loosely, or the restriction lifted: not a second memory beside the first.
    found = relation_between(old, new)
    assert found is not None and found.kind == "ambiguous" and found.signal == "condition", found


def test_best_and_worst_of_the_same_slot_contradict_whether_or_not_the_rate_is_named():
    found = relation_between("brand_B 面膜直播间转化率周五最高", "用户说：brand_B 面膜直播间其实周五转化最差", advertiser="brand_B")
    assert found is not None and found.kind == "contradiction" and found.signal == "polarity", found


@pytest.mark.parametrize(
    "text,levers",
    [
        # Buying keywords says nothing of the bid's level.
        ("adv_fin_02: only bid on brand terms and fund auto-invest terms in search", {"keyword"}),
        ("brand_A: bidding on competitor keywords is banned", {"keyword"}),
        ("brand_A: raise the bid on weekends by 10%", {"bid"}),
        ("brand_A: bid 2 yuan on brand keywords", {"bid", "keyword"}),
    ],
)
def test_bidding_on_terms_is_about_keywords(text, levers):
    assert {str(lever) for lever in extract_claim(text).levers} == levers


def test_an_auto_compound_is_not_the_car_vertical():
    assert extract_claim("adv_fin_02 pushes fund auto-invest plans").subject.categories == {"金融/基金"}
    assert "汽车" in extract_claim("brand_C auto ads in search").subject.categories


@pytest.mark.parametrize(
    "old,new,swapped",
    [
        ("brand_shoes 跑鞋日预算1.2万", "用户要求：brand_shoes 篮球鞋日预算1.2万", ("跑", "篮球")),
        ("adv_local_01 火锅团购只投门店5公里内", "adv_local_01 烤肉团购的只投门店5公里内", ("火锅", "烤肉")),
        # A yes swapped for a no at the same place is not a name swapped.
        ("brand_home 主力款床垫不参加满减", "brand_home 云朵系列可以参加满减", None),
        # Two places differ: the claims decide alone.
        ("brand_shoes 跑鞋日预算1.2万", "brand_shoes 篮球鞋日预算1.5万", None),
        # A synonym of a word the vocabulary knows names no category.
        ("brand_A 医药OTC出价上调10%", "brand_A 医药OTC出价提高10%", None),
    ],
)
def test_one_place_swapped_names_another_thing_only_when_a_category_is_there(old, new, swapped):
    assert swapped_category(old, new) == swapped


def test_a_product_the_vocabulary_lacks_in_place_of_one_it_knows_is_written_beside_it():
    found = relation_between(
        "brand_home_01 床垫直播每周六晚7-10点", "用户要求：brand_home_01 枕头直播每周六晚7-10点", advertiser="brand_home_01"
    )
    assert found is not None and found.kind == "compatible" and found.signal == "category", found


pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "advertiser,old,new",
    [
        ("brand_A", "用户确认：brand_A 医药OTC搜索出价上限2.5元", "用户补充：brand_A 医药OTC搜索出价上限2.5元只在周末执行"),
        (
            "brand_F",
            "The user confirmed: brand_F video ads target new mothers",
            "The user confirmed: brand_F video ads target new mothers in tier-2 cities only",
        ),
    ],
)
def test_the_old_rule_with_a_narrowing_part_added_is_written_beside_it(ingest, advertiser, old, new):
    first = ingest(old, source="user", advertiser=advertiser)
    second = ingest(new, source="user", advertiser=advertiser)
    assert first.action == "WRITE", first.reasons
    # Not a repeat reinforced (the narrowing would be lost), not a change of the old rule.
    assert second.action == "WRITE", second.reasons
    assert Memory.objects.get(pk=first.memory_id).status == "active"


def test_a_wednesday_rule_leaves_the_friday_rule_active(ingest):
    friday = ingest("用户确认：brand_A 周五20:00-23:00医药OTC出价上浮10%", source="user", advertiser="brand_A")
    wednesday = ingest("用户确认：brand_A 周三20:00-22:00医药OTC出价上浮10%", source="user", advertiser="brand_A")
    assert friday.action == "WRITE" and wednesday.action == "WRITE", wednesday.reasons
    assert Memory.objects.get(pk=friday.memory_id).status == "active"


def test_a_budget_change_leaves_one_version_active(ingest):
    old = ingest("用户说：brand_A 医药OTC日预算5000元", source="user", advertiser="brand_A")
    new = ingest("用户纠正：brand_A 医药OTC日预算改为8000元", source="user", advertiser="brand_A")
    assert old.action == "WRITE" and new.action == "UPDATE", new.reasons
    assert Memory.objects.get(pk=old.memory_id).status == "superseded"
    assert Memory.objects.filter(advertiser="brand_A", status="active").count() == 1
    conflict = Trace.objects.get(event_id=new.event_id, stage="conflict").scores
    assert (conflict["relation"], conflict["signal"]) == ("contradiction", "value")


def test_a_changed_l1_rule_goes_to_an_operator_not_to_duplicate(ingest):
    old = ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.3倍", source="human", layer="L1", advertiser="adv_fin_01")
    new = ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.5倍", source="human", layer="L1", advertiser="adv_fin_01")
    assert old.action == "WRITE", old.reasons
    assert new.action == "PENDING_REVIEW", new.reasons
    assert Memory.objects.get(pk=old.memory_id).reinforcement_count == 0


def test_strategy_results_of_different_plans_do_not_supersede_each_other(trigger):
    def result(plan: str, roi_after: float):
        data = {
            "plan_id": plan,
            "category": "医药OTC",
            "strategy_used": "出价上浮10%",
            "target_metric": {"roi": 2.0},
            "actual_metric": {"roi": roi_after},
            "duration_days": 7,
        }
        summary = f"brand_A {plan} 出价上浮10%，目标ROI 2.0，实际{roi_after}"
        return trigger("strategy_execution", advertiser="brand_A", summary=summary, data=data, source="tool")

    first, second = result("plan_101", 2.6), result("plan_102", 1.7)
    assert first.action == "WRITE" and second.action == "WRITE", second.reasons
    assert Memory.objects.get(pk=first.memory_id).status == "active"


def test_a_question_is_not_written(ingest):
    asked = ingest("brand_A 要不要把周末出价上浮20%？你觉得呢", source="user", advertiser="brand_A")
    assert asked.action == "REJECT" and Memory.objects.count() == 0, asked.reasons


def test_a_questioned_confirmation_is_not_assent(ingest):
    mine = ingest("用户确认：brand_A 口红直播间出价上限2元", source="user", advertiser="brand_A")
    messages = [
        {"role": "assistant", "content": "您上周已经同意把 brand_A 口红直播间出价上限提高到3元了。"},
        {"role": "user", "content": "我同意过？我不记得有这回事。"},
    ]
    disputed = ingest(None, messages=messages, advertiser="brand_A")
    assert disputed.action == "REJECT", disputed.reasons
    assert Memory.objects.get(pk=mine.memory_id).status == "active"


def test_a_new_version_carries_its_own_data_not_the_old_one(trigger):
    data = {"plan_id": "plan_050", "category": "医药OTC", "action": "上调10%"}
    old = trigger("user_feedback", advertiser="brand_A", summary="用户说：brand_A plan_050 出价上调10%", data=data, source="user")
    new_data = {"plan_id": "plan_050", "action": "下调10%"}
    new = trigger("user_feedback", advertiser="brand_A", summary="用户纠正：brand_A plan_050 出价改为下调10%", data=new_data, source="user")
    assert old.action == "WRITE" and new.action == "UPDATE", new.reasons
    fresh = Memory.objects.get(pk=new.memory_id)
    assert fresh.data["action"] == "下调10%" and fresh.data["plan_id"] == "plan_050"
    assert fresh.claim["value"]["direction"] == -1


def test_claims_are_backfilled_exported_and_imported(ingest):
    from governance.write.imports import memories_import
    from governance.write.memory import governed_claims_backfill
    from memories.transfer import export_line

    written = ingest("用户说：brand_A 医药OTC日预算5000元", source="user", advertiser="brand_A")
    memory = Memory.objects.get(pk=written.memory_id)
    assert memory.claim["levers"] == ["budget"] and memory.claim["subject"]["advertiser"] == "brand_a"
    # A row from before claims existed gets one from the backfill, once.
    Memory.objects.filter(pk=memory.pk).update(claim={})
    assert governed_claims_backfill() == 1 and governed_claims_backfill() == 0
    line = export_line(Memory.objects.get(pk=memory.pk))
    assert line["claim"]["value"]["quantities"] == [{"role": "budget/day", "value": 5000.0, "unit": "元"}]
    # An import line keeps the claim it carries, in its normal shape.
    claim = {**line["claim"], "stance": "order", "junk": 1}
    row = {"layer": "L2", "content": "brand_B 美妆日预算3000元", "advertiser": "brand_B", "source": "human", "claim": claim}
    report = memories_import(lines=[json.dumps(row, ensure_ascii=False)], actor="operator")
    assert report.imported == 1, report.errors
    imported = Memory.objects.get(content="brand_B 美妆日预算3000元")
    assert imported.claim["stance"] == "order" and "junk" not in imported.claim


@pytest.mark.parametrize(
    "text",
    [
        "客户说：brand_toy_01 积木套装的直播只找亲子类主播合作",
        "用户强调：brand_toy_01 儿童手表广告不要出现定位功能的截图",
        "The client said brand_toy_02's board game ads can use player testimonials",
        "brand_toy_02 wants holiday gift ads to run only on weekends, the client said",
    ],
)
def test_a_user_statement_that_directs_is_kept_whatever_it_is_about(ingest, text):
    # The objects (亲子类主播, 定位功能的截图, player testimonials) are in no lever's
    # vocabulary; restricting, forbidding or allowing them is still a way to act.
    decision = user_says(ingest, text)
    assert decision.action == "WRITE", decision.reasons


def test_naming_a_lever_without_what_to_do_is_not_a_direction(ingest):
    decision = ingest("用户说：brand_toy_01 最近流量有变化，需调整出价", source="user", advertiser="brand_toy_01")
    assert decision.action == "REJECT", decision.reasons


@pytest.mark.parametrize(
    "text",
    [
        "用户说：brand_toy_01 这批积木素材效果还可以",
        "The user said we can see brand_toy_02's CTR fell last week",
    ],
)
def test_a_judgement_or_a_report_is_not_a_direction(ingest, text):
    decision = user_says(ingest, text)
    assert decision.action == "REJECT", decision.reasons


def test_a_changed_l1_rule_that_allows_still_goes_to_an_operator(trigger):
    # A rule that lifts a ban is a rule: it reaches the conflict stage instead of being
    # refused for not sounding like a constraint.
    old = trigger("rule_update", summary="合规部规定：美妆类账户素材不得出现“7天见效”", source="human", layer="L1")
    new = trigger("rule_update", summary="合规部通知：美妆类账户素材可以出现“7天见效”，需附检测报告", source="human", layer="L1")
    assert old.action == "WRITE", old.reasons
    assert new.action == "PENDING_REVIEW", new.reasons
    assert "contradict" in " ".join(new.reasons)


def test_an_event_with_a_cost_change_affects_decisions_in_any_vertical(trigger):
    from django.utils import timezone

    data = {"event": "北京车展", "time_window": "4月25日至5月4日", "signal": "CPM +32%", "observed_at": timezone.now().isoformat()}
    decision = trigger(
        "environment_change", summary="车展周开始，汽车类目懂车帝 CPM 比平时高32%", data=data, source="system", advertiser="adv_auto_09"
    )
    assert decision.action == "WRITE", decision.reasons
    value = Trace.objects.get(event_id=decision.event_id, stage="value")
    assert value.scores["criteria"]["affects_decisions"]["met"] is True


@pytest.mark.parametrize(
    "text",
    [
        "从数据可以看出CTR下降",  # reports what the data shows
        "可以发现周末转化率更高",
        "May sales CPM rose 20%",  # the month
        "CTR may drop after 7 days",  # a prediction
        "higher bids can lead to higher CPM",
    ],
)
def test_seeing_predicting_and_the_month_of_may_are_not_permission(text):
    claim = extract_claim(text)
    assert not claim.affirmed and claim.polarity == 1


@pytest.mark.parametrize(
    "text,assessments,conditions,places",
    [
        ("归因数据不准确", set(), set(), set()),  # inaccurate, not forbidden
        ("世界杯比赛期间CPM高", set(), set(), set()),  # 比赛 is a match, not a comparison
        ("比价类APP转化好", set(), set(), set()),
        ("frequency limit reached on 抖音", set(), set(), set()),  # a bare "limit" bounds no value
        ("Performance Max campaigns work", {("works", 1)}, set(), set()),
        ("京东到家店日预算800元", set(), set(), {"京东到家"}),
        ("向阳店日预算800元", set(), set(), {"向阳"}),
    ],
)
def test_everyday_words_are_not_read_as_claim_parts(text, assessments, conditions, places):
    claim = extract_claim(text)
    assert claim.polarity == 1
    assert (set(claim.assessments), set(claim.conditions), set(claim.subject.places)) == (assessments, conditions, places)


def test_a_user_statement_that_reverses_a_core_rule_goes_to_an_operator(trigger, ingest):
    # The rule is L1 and the statement would be L2: it is still compared with the rule, and
    # a reversal is parked instead of written beside it.
    rule = trigger("rule_update", summary="合规部规定：brand_A 信用卡广告不投夜间22点后", source="human", layer="L1", advertiser="brand_A")
    said = ingest("客户说：brand_A 信用卡广告夜间22点后也可以投", source="user", advertiser="brand_A")
    assert rule.action == "WRITE", rule.reasons
    assert said.action == "PENDING_REVIEW", said.reasons
    assert Memory.objects.get(pk=rule.memory_id).status == "active"
    assert not Memory.objects.filter(layer="L2", advertiser="brand_A").exists()


def test_a_statement_beside_a_core_rule_it_does_not_reverse_is_written(trigger, ingest):
    trigger("rule_update", summary="合规部规定：brand_A 信用卡广告不投夜间22点后", source="human", layer="L1", advertiser="brand_A")
    said = ingest("用户确认：brand_A 信用卡广告白天出价上浮10%", source="user", advertiser="brand_A")
    assert said.action == "WRITE", said.reasons


@pytest.mark.parametrize(
    "text,slots",
    [
        ("adv_fin_01 信用卡广告夜间22点后也可以投", {(22.0, 24.0)}),
        ("brand_A 晚上10点以后停投", {(22.0, 24.0)}),
        ("brand_A: no ads after 10pm on weekdays", {(22.0, 24.0)}),
        ("brand_A 早上8点前不投", {(0.0, 8.0)}),
        ("brand_A: pause before 7am", {(0.0, 7.0)}),
    ],
)
def test_one_end_of_the_day_is_a_time_slot_to_midnight_or_from_it(text, slots):
    claim = extract_claim(text)
    assert claim.subject.time_slots == slots
    # The hour is a time, not a figure of some lever.
    assert not claim.quantities


def test_a_figure_with_its_unit_against_it_is_a_figure():
    assert extract_claim("brand_edu said the March campaign budget is 150k yuan").quantities[0].amount() == 150_000
    assert not extract_claim("618A 计划上线").quantities


@pytest.mark.parametrize("text", ["brand_A 周末暂停直播投放", "Stop brand_L livestream ads after 10pm"])
def test_switching_delivery_for_a_time_is_scheduling_it(text):
    assert {str(lever) for lever in extract_claim(text).levers} == {"delivery", "schedule"}


def test_a_part_of_the_day_is_a_way_to_act(ingest):
    decision = ingest("用户要求：brand_A 医药OTC信息流只在晚间投放", source="user", advertiser="brand_A")
    assert decision.action == "WRITE", decision.reasons


def test_a_figure_inside_a_rules_bound_follows_the_rule(trigger, ingest):
    trigger("rule_update", summary="合规部规定：brand_A oCPC出价不得高于合同CPA的1.3倍", source="human", layer="L1", advertiser="brand_A")
    inside = ingest("用户确认：brand_A 冷启动期oCPC出价设为合同CPA的0.8倍", source="user", advertiser="brand_A")
    past = ingest("用户确认：brand_A 大促期oCPC出价设为合同CPA的1.5倍", source="user", advertiser="brand_A")
    assert inside.action == "WRITE", inside.reasons
    assert past.action == "PENDING_REVIEW", past.reasons


def test_a_global_rule_binds_the_advertiser_that_reverses_it(trigger, ingest):
    trigger("rule_update", summary="合规部规定：医药OTC广告素材不得出现“根治”字样", source="human", layer="L1")
    said = ingest("客户说：brand_A 医药OTC广告素材可以使用“根治”字样", source="user", advertiser="brand_A")
    assert said.action == "PENDING_REVIEW", said.reasons


def test_a_narrower_part_named_does_not_slip_a_reversal_past_the_rule(trigger, ingest):
    trigger("rule_update", summary="合规部规定：brand_A 信用卡广告不投夜间22点后", source="human", layer="L1", advertiser="brand_A")
    said = ingest("客户说：brand_A plan_001 信用卡广告夜间22点后也可以投", source="user", advertiser="brand_A")
    assert said.action == "PENDING_REVIEW", said.reasons


@pytest.mark.parametrize(
    "rule,other,within",
    [
        ("brand_A 医药OTC日预算上限5000元", "brand_A 医药OTC日预算3000元", True),
        ("brand_A 医药OTC日预算上限5000元", "用户说：brand_A 医药OTC日预算上限改为8000元", False),
        ("brand_A daily budget must not exceed 500 dollars", "brand_A daily budget is 300 dollars", True),
        ("brand_A 单条素材至少测试3天", "brand_A 单条素材测试2天就停", False),
        # A rule that bounds nothing: a different figure is a different figure.
        ("brand_A 医药OTC日预算5000元", "brand_A 医药OTC日预算3000元", False),
    ],
)
def test_a_figure_is_within_a_bound_only_on_the_bounded_side(rule, other, within):
    assert within_bound(rule, extract_claim(rule), other, extract_claim(other)) is within


@pytest.mark.parametrize(
    "old,new",
    [
        ("brand_A 周三暂停信息流投放", "brand_A 周五暂停信息流投放"),
        ("brand_A: pause feed ads on Saturday", "brand_A: pause feed ads on Sunday"),
        ("brand_A 晚上10点以后停投", "brand_A 早上8点前停投"),
    ],
)
def test_pauses_for_different_days_or_slots_are_two_rules(old, new):
    found = relation_between(old, new, advertiser="brand_A")
    assert found is not None and found.kind == "compatible", found


@pytest.mark.parametrize(
    "text,kept",
    [
        ("brand_A 预算：每天5000元", "brand_A 预算：每天5000元"),
        ("Bid cap: 2 dollars for brand_A", "Bid cap: 2 dollars for brand_A"),
        ("brand_A 周末出价下调，原因：转化差", "brand_A 周末出价下调，原因：转化差"),
        ("合规部规定：素材不得出现“根治”", "素材不得出现“根治”"),
        ("The user confirmed: brand_F video ads", "brand_F video ads"),
    ],
)
def test_only_a_lead_that_says_who_said_it_is_a_frame(text, kept):
    from textrules.claims.words import FRAME

    assert FRAME.sub("", text) == kept


def test_a_figure_change_at_the_swapped_place_is_not_another_thing():
    assert swapped_category("brand_shoes 跑鞋日预算1.2万", "brand_shoes 篮球鞋日预算12万") is None
    assert swapped_category("brand_shoes 跑鞋日预算1.2万", "brand_shoes 全部鞋日预算1.2万") is None


@pytest.mark.parametrize(
    "rule,other,within",
    [
        # A reversal beside a figure inside the bound is still a reversal of the rule.
        ("出价不得高于CPA的1.3倍", "大促期出价为CPA的1.2倍，不受1.3倍上限限制", False),
        # The cap binds the budget; the bid's figure is fixed, not bounded.
        ("日预算上限5000元，oCPC出价为合同CPA的1.2倍", "oCPC出价为合同CPA的0.5倍", False),
    ],
)
def test_a_bound_is_read_at_its_own_figure_and_never_lifted_from_below(rule, other, within):
    assert within_bound(rule, extract_claim(rule), other, extract_claim(other)) is within


def test_only_words_that_narrow_make_a_repeat_a_refinement():
    # Filler added to a repeat narrows nothing (an event's plan id in its data is no word of it).
    assert not Wording("brand_A 平板关键词CPC上限3.5元", "brand_A 平板关键词CPC上限3.5元，请务必记住").words_narrow
    assert Wording("brand_A 平板关键词CPC上限3.5元", "brand_A 平板关键词CPC上限3.5元只在工作日生效").words_narrow


def test_a_correction_that_changes_nothing_the_rule_states_is_written_under_it(trigger, ingest):
    rule = "合规部规定：brand_A 医药OTC 月度总预算上限 200万，季度末最后一周不追加预算"
    trigger("rule_update", summary=rule, source="human", layer="L1", advertiser="brand_A")
    said = ingest("以后 brand_A 医药OTC 周末预算统一下调到 8万，周一恢复原预算，这是我们的固定规则", source="user", advertiser="brand_A")
    assert said.action == "WRITE", said.reasons


def test_rules_closer_than_the_memory_it_changes_do_not_crowd_it_out(make_memory):
    from governance.funnel.related import KEEP, find_related
    from governance.funnel.types import Candidate

    text = "用户纠正：brand_A 医药OTC日预算改为8000元"
    old = make_memory("brand_A 医药OTC日预算5000元", advertiser="brand_A", source="user")
    # More global rules than the neighbour places, every one closer to the proposal than the
    # memory it changes, and none of them about the budget's value.
    rules = [
        make_memory(f"用户纠正：brand_A 医药OTC日预算改为8000元的审批记录须存档第{i}份", layer="L1", source="human", advertiser=None)
        for i in range(KEEP + 2)
    ]
    vectors = get_embedder().embed_passages([text, old.content, *(r.content for r in rules)])
    assert all(float(vectors[0] @ v) > float(vectors[0] @ vectors[1]) for v in vectors[2:])
    c = Candidate(content=text, trigger_type="correction", source="user", layer="L2", advertiser="brand_A")
    found = {r["memory"].pk: r["relation"] for r in find_related(c)}
    assert found.get(old.pk) == "contradiction", found


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # A comparison of two platforms turned round, in other words and order.
        ("adv_travel_01 签证产品在百度搜索转化率高于抖音", "用户说：adv_travel_01 签证产品抖音转化其实比百度好", "contradiction"),
        ("brand_A 信息流CTR高于搜索广告", "brand_A 搜索广告CTR比信息流好", "contradiction"),
        # The same comparison said again the other way round is a repeat.
        ("brand_A 信息流CTR高于搜索广告", "brand_A 搜索广告CTR比信息流低", "duplicate"),
    ],
)
def test_a_comparison_is_read_with_the_names_it_compares(old, new, kind):
    found = relation_between(old, new, advertiser=advertiser_in(old))
    assert found is not None and found.kind == kind, found


@pytest.mark.parametrize(
    "old,new,kind,facet",
    [
        # Channels the vocabulary knows, platforms and their ad products, in either language.
        (
            "brand_edu's MBA ads on Baidu search run on weekday evenings only",
            "The client wants brand_edu's MBA ads on Zhihu limited to weekday evenings",
            "compatible",
            "channel",
        ),
        ("adv_saas_02 LinkedIn 周末不投", "adv_saas_02 WeChat Search 周末照常投放，客户确认", "compatible", "channel"),
        (
            "adv_saas_01 Google Ads CRM trial: 50-500 employees only",
            "adv_saas_01 Bing Ads CRM trial: 50-500 employees only",
            "compatible",
            "channel",
        ),
        (
            "年末理财类目腾讯广告CPC较上月上涨22%",
            "Year-end: Tencent Ads CPC for wealth management up 22% month over month",
            "duplicate",
            "value",
        ),
        # English words of a name joined by a hyphen.
        (
            "brand_shoes running-shoe ads on Xiaohongshu feature real runners, never studio models",
            "brand_shoes 小红书跑鞋广告用真实跑者，不用棚拍模特",
            "duplicate",
            "value",
        ),
    ],
)
def test_names_the_vocabulary_knows_in_either_language(old, new, kind, facet):
    found = relation_between(old, new)
    assert found is not None and (found.kind, found.signal) == (kind, facet), found


@pytest.mark.parametrize(
    "text",
    [
        "adv_fin_01 信用卡落地页年化利率说明放首屏时转化率最高",
        "用户说：brand_home_01 床垫直播间其实周六转化最差",
        "brand_home_01 床垫直播出价2.5元，客户说的",
    ],
)
def test_a_users_plain_judgement_or_figure_is_an_attitude(ingest, text):
    # No cue word ("要", "必须", "确认"), but a settled statement that judges or gives a figure.
    decision = user_says(ingest, text)
    assert decision.action == "WRITE", decision.reasons


@pytest.mark.parametrize(
    "text",
    [
        "用户说：双11大促期间美妆类目流量上涨，需调整出价",  # a metric that moved: an observation
        "brand_D 美妆新品的小红书投放情况",  # a topic
        "要不要把 brand_D 小红书出价降到2元？",  # a question
    ],
)
def test_a_users_observation_topic_or_question_is_no_attitude(ingest, text):
    decision = user_says(ingest, text)
    assert decision.action == "REJECT", decision.reasons


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # A clock time is read in either language; "上午" before it only says which half of the day.
        ("adv_travel_01 flash-sale ads go live on Tuesdays at 10:00", "adv_travel_01 的秒杀广告每周二上午10点上线", "duplicate"),
        ("brand_3c_02 flash deals start at 10:00", "brand_3c_02's flash deals start at 8pm", "contradiction"),
        # "3 hours" is how long, not when: no schedule is set.
        ("adv_local_02 深度保洁3小时起订", "adv_local_02 deep cleaning: minimum booking is 3 hours, per the client", "duplicate"),
        # "flash deals" are not the local-services vertical; the tablet's Friday deal narrows the rule.
        ("brand_3c_02: flash deals start at 20:00", "brand_3c_02: tablet flash deals start at 20:00 on Fridays only", "refinement"),
        # 直通车 is Taobao's search ads: the same channel named two ways.
        ("brand_home_01 天猫直通车床垫只推1.8米", "客户重申：brand_home_01 床垫在直通车只推1.8米规格", "duplicate"),
    ],
)
def test_times_durations_and_products_read_as_they_are_meant(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


@pytest.mark.parametrize(
    "text",
    [
        "把这个设成 L1 规则：brand_home_02 所有广告不许出现“零甲醛”",
        "adv_local_02 deep cleaning: minimum booking is 3 hours, per the client",
        "客户重申：brand_home_01 床垫在直通车只推1.8米规格",
        "Correction: brand_3c_02's flash deals start at 20:00, not 10:00",
    ],
)
def test_a_users_own_statement_is_feedback_without_a_cue_word(text):
    from judges.offline import offline_classify

    out = offline_classify(text, "user")
    assert out.trigger_type == "user_feedback", out.fields


def test_an_agents_plain_statement_is_no_users_feedback():
    from judges.offline import offline_classify

    assert offline_classify("adv_local_02 deep cleaning: minimum booking is 3 hours", "agent").trigger_type != "user_feedback"


@pytest.mark.parametrize(
    "old,new",
    [
        (
            "adv_fin_02: daily budget cap $500 on Google search",
            "Update from the client: adv_fin_02's Google search daily budget cap is now $800",
        ),
        (
            "adv_saas_01: LinkedIn daily budget cap $500",
            "The client raised adv_saas_01's LinkedIn daily budget cap to $800, effective Monday",
        ),
        ("用户说：brand_A 医药OTC日预算5000元", "用户说：brand_A 医药OTC日预算调整为8000元"),
    ],
)
def test_a_user_giving_a_setting_a_new_value_updates_it(ingest, old, new):
    advertiser = advertiser_in(old)
    first = ingest(old, source="user", advertiser=advertiser)
    second = ingest(new, source="user", advertiser=advertiser)
    assert first.action == "WRITE" and second.action == "UPDATE", second.reasons
    assert Memory.objects.filter(advertiser=advertiser, status="active").count() == 1


def test_two_plans_named_after_the_word_plan_are_two_subjects(ingest):
    a = ingest("客户要求：adv_auto_01 计划plan_a502 只投华东地区", source="user", advertiser="adv_auto_01")
    b = ingest("客户要求：adv_auto_01 计划plan_a508 只投华东地区", source="user", advertiser="adv_auto_01")
    assert a.action == "WRITE" and b.action == "WRITE", b.reasons
    assert extract_claim("计划plan_a508 只投华东地区").subject.plans == {"A508"}


@pytest.mark.parametrize(
    "old,new,kind",
    [
        (
            "adv_fin_01: exclude student audiences from credit card prospecting",
            "adv_fin_01: exclude students from the debit card campaign as well",
            "compatible",
        ),
    ],
)
def test_audiences_and_products_said_in_other_words(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


@pytest.mark.parametrize(
    "event_type,summary,data",
    [
        # The cause under another field name.
        (
            "anomaly_pattern",
            "adv_saas_01 trial-to-paid conversion has been 50% below baseline for 6 days; likely cause: billing page outage",
            {"metric": "trial_to_paid", "baseline": 0.12, "observed": 0.06, "window": "6 days", "likely_cause": "billing page outage"},
        ),
        # A cold start or a season with a cost or traffic figure affects what comes next, no impact field needed.
        (
            "environment_change",
            "adv_local_01 新店进入抖音本地推冷启动，首3天单次核销成本是老店的2.5倍",
            {"event": "新店冷启动", "time_window": "开业后7天", "signal": "核销成本为老店2.5倍"},
        ),
        (
            "environment_change",
            "金三银四装修季：家居类目 Baidu 搜索量比2月高55%",
            {"event": "装修旺季", "time_window": "3月1日至4月30日", "signal": "搜索量较2月+55%"},
        ),
    ],
)
def test_signals_a_team_would_keep_pass_the_value_stage(trigger, event_type, summary, data):
    decision = trigger(event_type, summary=summary, data=data, source="tool", advertiser="brand_home_02")
    assert decision.action == "WRITE", decision.reasons


@pytest.mark.parametrize(
    "text,slots",
    [
        ("1pm to 7pm", {(13.0, 19.0)}),
        ("from 13:00 to 19:00", {(13.0, 19.0)}),
        ("between 1 p.m. and 7 p.m.", {(13.0, 19.0)}),
        ("from 13:00 to 19:00 in the afternoon", {(13.0, 19.0)}),
        ("1 to 7 pm", {(13.0, 19.0)}),
        ("3-5天", set()),
        ("凌晨1点到早上7点不投", {(1.0, 7.0)}),
        ("上午9点到下午6点", {(9.0, 18.0)}),
        ("晚上10点到凌晨2点暂停", {(22.0, 24.0), (0.0, 2.0)}),
        ("every night 1-3am", {(1.0, 3.0)}),
        # Not times: a count of nights, points of a bid, a list item, a ratio.
        ("3 to 5 nights packages", set()),
        ("出价提高1点", set()),
        ("第2点：出价下调10%", set()),
        ("投产比1:12", set()),
        ("下午1点到7点投放", {(13.0, 19.0)}),
        ("晚上8点上线", {(20.0, 20.0)}),
        ("8:30开播", {(8.5, 8.5)}),
        ("19点前", {(0.0, 19.0)}),
    ],
)
def test_times_of_day_in_either_language(text, slots):
    assert extract_claim(text).subject.time_slots == slots


def test_one_slot_said_in_two_languages_is_one_slot():
    found = relation_between("brand_game_01 周末下午1点到7点出价上浮15%", "brand_game_01 weekend bids up 15% from 1pm to 7pm")
    assert found is not None and found.kind == "duplicate", found


@pytest.mark.parametrize(
    "old,new",
    [
        ("adv_travel_01 亲子游定向孩子3-10岁的家庭", "用户补充：adv_travel_01 亲子游在暑期只投一线城市的3-10岁孩子家庭"),
        (
            "adv_fin_01: credit card ads target ages 22-50",
            "adv_fin_01 clarified: within ages 22-50, the premium card targets only users with monthly income above 15k yuan",
        ),
    ],
)
def test_a_detail_said_as_an_addition_refines(ingest, old, new):
    advertiser = advertiser_in(old)
    first = ingest(old, source="user", advertiser=advertiser)
    second = ingest(new, source="user", advertiser=advertiser)
    assert first.action == "WRITE" and second.action == "WRITE", second.reasons
    assert any("refines" in reason for reason in second.reasons), second.reasons
    assert Memory.objects.get(pk=first.memory_id).status == "active"


def test_an_addition_that_reverses_a_part_is_still_for_a_person(ingest):
    # "男性暂不投" on its own turns a part of the audience off: not a detail added, a person
    # decides. After "只投女性" it only names what the "only" leaves out: a narrower rule.
    ingest("brand_food_01 低糖零食投25-40岁健身人群", source="user", advertiser="brand_food_01")
    reversed_part = ingest("客户补充：brand_food_01 低糖零食的健身人群里男性暂不投", source="user", advertiser="brand_food_01")
    narrowed = ingest("客户补充：brand_food_01 低糖零食的健身人群只投女性，男性暂不投", source="user", advertiser="brand_food_01")
    assert reversed_part.action == "PENDING_REVIEW", reversed_part.reasons
    assert narrowed.action == "WRITE", narrowed.reasons


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # The same push on another day is a second push; said as a change, it moves the first.
        ("adv_auto_01 每周六加投懂车帝", "用户要求：adv_auto_01 每周日加投懂车帝", "compatible"),
        ("adv_auto_01 每周六加投懂车帝", "用户要求：adv_auto_01 改为每周日加投懂车帝", "contradiction"),
    ],
)
def test_a_push_on_another_day(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found


def test_a_figure_before_a_time_stays_a_figure():
    claim = extract_claim("keep the CPC cap at 2 until 11pm")
    assert claim.subject.time_slots == {(23.0, 23.0)}
    assert [q.value for q in claim.quantities] == [2.0]


@pytest.mark.parametrize(
    "old,new",
    [
        ("brand_A 低糖零食投25-40岁健身人群", "客户补充：brand_A 低糖零食男性暂不投"),
        ("brand_A bids on Google search up 10%", "brand_A clarified: for new customers on Google search, bids are not raised"),
        ("brand_A CPC上限3.5元", "用户补充：brand_A CPC上限3.5元，晚上10点后不限"),
        ("brand_A 日预算5000元", "用户补充：brand_A 新客日预算不设上限"),
        ("brand_A 抖音出价上调10%", "brand_A 抖音新客出价进一步上调"),
    ],
)
def test_an_added_part_that_may_take_something_back_is_for_a_person(old, new):
    found = relation_between(old, new, advertiser="brand_A")
    assert found is not None and found.kind not in {"refinement", "compatible", "duplicate"}, found


def test_a_comparison_and_a_plain_judgement_of_the_same_winner_agree():
    found = relation_between("brand_A 百度搜索效果更好", "brand_A 百度搜索效果比抖音好", advertiser="brand_A")
    assert found is None or found.kind != "contradiction", found


@pytest.mark.parametrize(
    "text,position",
    [
        ("brand_A 小红书本周CTR 1.5%", False),  # a metric's figure is a report
        ("brand_A 抖音20:00开播", False),
        ("brand_A 抖音出价2.5元", True),  # a lever's figure sets it
        ("用户说：brand_home_01 床垫直播间其实周六转化最差", True),
    ],
)
def test_a_position_is_a_setting_a_limit_or_a_judgement(text, position):
    assert extract_claim(text).takes_a_position() is position


def test_a_past_raise_to_do_something_is_no_correction():
    from textrules import signals

    assert not signals.has(signals.CORRECTION, "we raised Meta weekend bids last week to test new creatives")
    assert signals.has(signals.CORRECTION, "The client raised the LinkedIn daily budget cap to $800")


def test_an_advertisers_own_limit_beside_a_global_memory_is_written(make_memory, ingest):
    # A "no" the global memory lacks ("不要超过") takes nothing back from it: the advertiser's
    # rule is narrower by its credential, not by words. (Found by the plugin's live suite.)
    make_memory("出价策略调整后应至少观察3天数据再评估，单日波动不足以判断策略好坏。", source="human")
    decision = ingest("用户纠正：brand_A 维生素品类搜索广告的出价不要超过1.6元", source="user", advertiser="brand_A")
    assert decision.action == "WRITE", decision.reasons


@pytest.mark.parametrize("sample,action", [(150, "UPDATE"), (40, "PENDING_REVIEW")])
def test_two_tools_that_disagree_are_told_apart_by_how_much_each_rests_on(trigger, sample, action):
    old = remembered("brand_T 小红书笔记曝光与天猫搜索量无明显关联（样本35）", advertiser="brand_T", source="tool")
    new = trigger(
        "cross_domain_correlation",
        summary="brand_T 小红书笔记曝光与天猫搜索量同步上涨，相关系数0.76，已排除大促影响",
        data={"domains": ["小红书种草", "天猫搜索"], "correlation": 0.76, "sample_size": sample, "confounders": ["已排除大促影响"]},
        source="tool",
        advertiser="brand_T",
    )
    assert new.action == action, new.reasons
    old.refresh_from_db()
    assert old.status == ("superseded" if action == "UPDATE" else "active")


@pytest.mark.parametrize(
    "old,new,kind",
    [
        # A channel is a platform and a format: the same format on another platform is another place.
        ("brand_U 抖音信息流日预算3000元", "brand_U 快手信息流日预算3000元", "compatible"),
        ("brand_U 抖音信息流日预算3000元", "brand_U 抖音直播日预算3000元", "compatible"),
        ("brand_U 抖音信息流日预算3000元", "用户重申：brand_U 抖音信息流每天预算3000块", "duplicate"),
        # "cap … at" bounds as "must not exceed" does.
        ("brand_U: cap CPA at 80 yuan for the lipstick plan", "For brand_U's lipstick plan, CPA must not exceed 80 yuan", "duplicate"),
        # "target CPA 45" is the CPA's figure, whichever way round it is said.
        ("brand_U: target CPA 45 yuan on Kuaishou", "brand_U: Kuaishou CPA target stays at 45 yuan", "duplicate"),
        ("brand_U 口红礼盒只投18-24岁女性", "brand_U 面霜只投30-45岁女性", "compatible"),
        # A 24-hour clock after "after" is an open end, as "after 11pm" is.
        ("brand_U: pause Kuaishou ads after 11pm", "brand_U: no Kuaishou ads after 23:00", "duplicate"),
        # No value read on either side, in words of one language that differ: a person decides;
        # in two languages the words cannot be compared, and the claims decide.
        ("brand_U 落地页首屏放价格", "brand_U 详情页首屏放用户评价", "ambiguous"),
        ("brand_U 小红书只投美妆博主", "brand_U: on Xiaohongshu, only work with beauty bloggers", "duplicate"),
        # "per day" after the figure is the figure's period.
        ("brand_U: Baidu search budget capped at 5000 yuan per day", "brand_U 百度搜索日预算上限5000元", "duplicate"),
        # A KPI name far before its figure in English is still its name.
        (
            "brand_U: ROI target for the Tmall flagship store is 3.0",
            "brand_U: lower the Tmall flagship store ROI target to 2.5",
            "contradiction",
        ),
        # A "no" is delivery off: switching it on changes it.
        ("brand_U 新品期不投快手", "brand_U 新品期开始投快手", "contradiction"),
        # One of a set of alternatives on each side: another audience, or for targeting a question.
        ("brand_U 新客首单券在抖音日预算2000元", "brand_U 老客复购券在抖音日预算2000元", "compatible"),
        ("brand_U 奶粉广告一线城市宝妈出价上浮10%", "brand_U 奶粉广告二线城市宝妈出价上浮10%", "compatible"),
        ("brand_U 安卓包在巨量引擎只定向男性", "brand_U iOS包在巨量引擎只定向男性", "ambiguous"),
    ],
)
def test_channels_audiences_bounds_and_figures_read_either_way(old, new, kind):
    found = relation_between(old, new)
    assert found is not None and found.kind == kind, found
