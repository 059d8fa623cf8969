"""Every reason code has one English and one Chinese wording that use the same parameters,
and renders them; stored codes read back; rows from before codes show their text."""

import re

import pytest

from textrules.reasons import TEMPLATES, WORDS, Reason, ReasonCode, render, stored_reasons

PLACEHOLDER = re.compile(r"%\((\w+)\)s")
CJK = re.compile(r"[\u4e00-\u9fff]")
# Internal scores stay in a trace's scores; no reason may carry them.
SCORE_PARAMS = {"confidence", "cosine", "score", "new_strength", "old_strength", "draw", "overlap", "negations", "runner_up"}


def _sample(code: ReasonCode) -> Reason:
    # A value no table translates, so it must come through both wordings as given.
    names = set(PLACEHOLDER.findall(TEMPLATES[code][0]))
    return Reason(code, {name: f"值{i}-v{i}" for i, name in enumerate(sorted(names))})


def test_every_code_has_both_wordings_with_the_same_parameters():
    assert set(TEMPLATES) == set(ReasonCode)
    for code, (english, chinese) in TEMPLATES.items():
        assert set(PLACEHOLDER.findall(english)) == set(PLACEHOLDER.findall(chinese)), code
        assert not SCORE_PARAMS & set(PLACEHOLDER.findall(english)), code
        if code != ReasonCode.TEXT:
            assert CJK.search(chinese), code
            # English carries no Chinese, bar the Chinese cue words a rule itself looks for.
            assert not CJK.search(english) or code == ReasonCode.L2_NEEDS_CONDITIONS, code


@pytest.mark.parametrize("code", list(ReasonCode))
def test_each_code_renders_its_parameters_in_both_languages(code):
    reason = _sample(code)
    english, chinese = reason.english(), render(reason, "zh-hans")
    for value in reason.params.values():
        assert value in english and value in chinese, (code, english, chinese)
    assert "%(" not in english + chinese and "—" not in english + chinese
    assert english == render(reason, "en") == str(reason)


def test_choice_values_use_the_callers_labels_and_words_are_translated_in_chinese():
    labels = {("attribution", "user_stated"): "用户陈述", ("source", "user"): "用户"}
    reason = Reason.of(ReasonCode.LAYER_ACCEPTS, layer="L2", attribution="user_stated", source="user")
    assert reason.english() == "L2 accepts user_stated from user"
    assert render(reason, "zh-hans", lambda name, value: labels.get((name, value))) == "L2 接受来自用户的用户陈述"
    contradiction = Reason.of(ReasonCode.CONTRADICTS_NOT_STRONGER, id=44, signal="negation")
    assert contradiction.english() == "contradicts memory #44 (negation) without stronger evidence: a person decides"
    assert render(contradiction, "zh-hans") == f"与记忆 #44 矛盾（{WORDS['negation']}），新证据并不更强：由人工决定"


def test_value_criteria_carry_their_names_in_both_languages():
    missing = [{"en": "a possible cause is named", "zh": "有可能原因"}, {"en": "it is not one-off noise", "zh": "非一次性噪音"}]
    reason = Reason.of(ReasonCode.VALUE_NOT_MET, trigger_type="anomaly_pattern", criteria=missing)
    assert reason.english() == "anomaly_pattern: criterion not met: a possible cause is named, it is not one-off noise"
    assert render(reason, "zh-hans").endswith("未满足价值标准：有可能原因、非一次性噪音")


def test_a_reason_may_quote_another():
    inner = Reason.of(ReasonCode.HEDGED, quote="可能")
    outer = Reason.of(ReasonCode.SAME_REASON_REJECTED, actor="agent-7", count=4, reason=inner.as_json())
    assert outer.english().endswith("for the same reason: tentative statement, not a settled preference or fact ('可能')")
    assert render(outer, "zh-hans") == "agent-7 因同一原因被拒 4 次：试探性的说法，不是确定的偏好或事实（“可能”）"


def test_stored_codes_read_back_and_old_rows_show_their_text():
    reasons = [Reason.of(ReasonCode.NO_CREDENTIALS), Reason.of(ReasonCode.NOTE, note="预算口径以财务为准")]
    texts, codes = [r.english() for r in reasons], [r.as_json() for r in reasons]
    assert stored_reasons(texts, codes) == reasons
    old = stored_reasons(["importance 6.2/10"], [])
    assert old == [Reason.text("importance 6.2/10")] and render(old[0], "zh-hans") == "importance 6.2/10"
    # Codes that do not line up with the sentences (a row edited by hand) are not trusted.
    assert stored_reasons(texts, codes[:1]) == [Reason.text(t) for t in texts]
    assert Reason.from_json({"code": "no_such_code", "params": {}}) is None
    # A parameter missing from an old row shows as a dash, never an error.
    assert Reason(ReasonCode.APPROVED, {"reviewer": "li"}).english() == "approved by reviewer li: — to — as memory #—"
