"""The standalone statement composed from a memory's turns (textrules.statements), and the
check a model's wording must pass. Plain text rules: no database, no model."""

import pytest

from textrules.statements import Provenance, compose_statement, model_statement_problems, strip_question_tail


def turns(*pairs):
    return [{"role": role, "content": content} for role, content in pairs]


def test_a_confirmed_suggestion_is_one_statement_naming_the_advertiser_and_who_said_it():
    statement = compose_statement(
        turns=turns(
            ("assistant", "建议美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调。需要我现在帮你改吗？"),
            ("user", "好的，就按这个来"),
        ),
        provenance=Provenance.CONFIRMED,
        advertiser="brand_A",
    )
    assert statement.text == "brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调（用户确认助手建议）"
    assert statement.body == "brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调"
    # The suggestion's lead-in, its closing question and the whole confirmation are left out.
    assert {"建议", "需要我现在帮你改吗？", "好的", "就按这个来"} <= set(statement.dropped)


def test_what_the_user_adds_when_confirming_is_kept_and_the_scope_comes_from_their_question():
    statement = compose_statement(
        turns=turns(("assistant", "建议先设 2.2 元，ROI 稳定后逐步下调。"), ("user", "可以，就按这个执行，不过日预算别超过5000元")),
        provenance=Provenance.CONFIRMED,
        advertiser="brand_A",
        context="brand_A 美妆新计划冷启动期出价怎么设？",
    )
    assert statement.borrowed == "美妆新计划冷启动期出价"
    assert statement.text == "brand_A 美妆新计划冷启动期出价：先设 2.2 元，ROI 稳定后逐步下调；日预算别超过5000元（用户确认助手建议）"


def test_an_advertiser_the_words_already_name_is_not_repeated():
    statement = compose_statement(
        turns=turns(
            ("assistant", "建议brand_A 医药OTC感冒药冷启动期间出价上浮20%，先观察3天ROI再决定是否扩量。"), ("user", "可以，就按这个执行")
        ),
        provenance=Provenance.CONFIRMED,
        advertiser="brand_A",
    )
    assert statement.text == "brand_A 医药OTC感冒药冷启动期间出价上浮20%，先观察3天ROI再决定是否扩量（用户确认助手建议）"


def test_english_confirmation():
    statement = compose_statement(
        turns=turns(
            ("assistant", "I'd recommend a daily budget cap of $500 for the Meta retargeting campaign during the learning phase."),
            ("user", "Sounds good, go ahead."),
        ),
        provenance=Provenance.CONFIRMED,
        advertiser="brand_en",
    )
    assert statement.text == (
        "brand_en: a daily budget cap of $500 for the Meta retargeting campaign during the learning phase "
        "(user confirmed the assistant's suggestion)"
    )


def test_a_user_statement_loses_its_greeting_and_its_closing_question():
    statement = compose_statement(
        turns=turns(("user", "你好"), ("user", "冷启动期出价先设 2.2 元，你觉得呢？")), provenance=Provenance.STATED, advertiser="brand_A"
    )
    assert statement.text == "brand_A 冷启动期出价先设 2.2 元（用户陈述）"
    english = compose_statement(turns=turns(("user", "Cap the Douyin daily budget at 8000 yuan, right?")), provenance=Provenance.STATED)
    assert english.text == "Cap the Douyin daily budget at 8000 yuan (stated by the user)"


def test_a_user_who_turns_the_assistant_down_states_their_own_value():
    statement = compose_statement(
        turns=turns(("user", "不，以后医药OTC冷启动出价都不要超过2元")), provenance=Provenance.STATED, advertiser="brand_A"
    )
    assert statement.text == "brand_A 以后医药OTC冷启动出价都不要超过2元（用户陈述）"


def test_nothing_substantive_left_means_no_statement():
    assert compose_statement(turns=turns(("assistant", "好的"), ("user", "好的，谢谢")), provenance=Provenance.CONFIRMED) is None


@pytest.mark.parametrize(
    "text, kept",
    [
        ("brand_A 美妆新计划冷启动期出价先设 2.2 元，你觉得呢？", "brand_A 美妆新计划冷启动期出价先设 2.2 元"),
        ("brand_A 冷启动出价先设2.2元。要不要再降一点？你觉得呢？", "brand_A 冷启动出价先设2.2元。"),
        ("如果 ROI 低于 1.5 就暂停 brand_A 的计划，你看呢？", "如果 ROI 低于 1.5 就暂停 brand_A 的计划"),
        ("Cap brand_en's Meta daily budget at $500, right?", "Cap brand_en's Meta daily budget at $500"),
        ("Pause plan 12 on weekends. What do you think?", "Pause plan 12 on weekends."),
    ],
)
def test_a_closing_question_goes_when_the_rest_states(text, kept):
    assert strip_question_tail(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        "要不要试试把brand_A的出价提高一点？你觉得呢",
        "brand_edu 的MBA课程是不是也该上知乎信息流？",
        "我确认的是2万吧？你说我同意3万，什么时候？",
        "Imagine brand_tea stopped all Meituan ads for a week; would store orders even notice?",
        "Can brand_shoes reuse last year's 618 creatives, or do we need new ones?",
        "brand_A 出价先设2.2元，ROI 多少合适？",  # a comma clause that asks something new, not for agreement
        "brand_A 冷启动出价先设2.2元。",
    ],
)
def test_a_question_or_a_what_if_is_left_whole(text):
    assert strip_question_tail(text) == text


TURNS = "brand_A 美妆新计划冷启动期出价怎么设？\n建议先设 2.2 元，ROI 稳定后逐步下调。\n好的，就按这个来"
COMPOSED = "brand_A 美妆新计划冷启动期出价：先设 2.2 元，ROI 稳定后逐步下调"


def test_a_faithful_rewording_passes():
    assert (
        model_statement_problems("brand_A 美妆新计划冷启动期出价先设 2.2 元，待 ROI 稳定后再逐步下调", source=TURNS, composed=COMPOSED)
        == []
    )


@pytest.mark.parametrize(
    "sentence, problem",
    [
        ("brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定在 3.0 后逐步下调", "adds number 3"),
        ("brand_A 美妆新计划冷启动期出价先设 2.5 元，ROI 稳定后逐步下调", "drops number 2.2"),
        ("brand_A 抖音美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调", "adds channel 抖音"),
        ("brand_B 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调", "adds advertiser brand_b"),
        ("brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步上调", "changes the direction"),
        ("brand_A 美妆新计划大促期间出价先设 2.2 元，ROI 稳定后逐步下调", "adds condition 大促期间"),
        ("brand_A 美妆口红新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调", "adds category 美妆/口红"),
        ("要不要把 brand_A 美妆新计划冷启动期出价先设 2.2 元？", "not a settled statement"),
    ],
)
def test_a_model_sentence_that_adds_or_loses_something_is_refused(sentence, problem):
    assert problem in model_statement_problems(sentence, source=TURNS, composed=COMPOSED, advertiser="brand_A")
