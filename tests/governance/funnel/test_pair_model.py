"""The pair model's second opinion (textrules/claims/pair_model.py, applied in
governance/funnel/relation.py): what it was trained on, how far it may move the rules'
verdict, and what a reviewer reads when it parks a pair."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from governance.funnel.relation import OPINION_SURE, SUBJECT_FACETS, Relation, second_opinion
from governance.models import Trace
from tests.subprocess_env import isolated_env
from textrules.claims import Facet, Wording, extract_claim
from textrules.claims.pair_model import RULE_ANSWERS, WEIGHTS_FILE, Opinion, pair_features, pair_model
from textrules.reasons import Reason, ReasonCode, render

DATA = Path(__file__).resolve().parents[2] / "data"


def _cases(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_weights_saw_only_the_train_splits():
    claims = _cases(DATA / "claims" / "relation_pairs.jsonl") + _cases(DATA / "claims" / "write_cases.jsonl")
    first_set = _cases(DATA / "funnel_cases.jsonl")
    held_out = {c["id"] for c in claims if c["split"] == "test"} | {c["id"] for c in first_set if c.get("batch") == "holdout"}
    labelled_pairs = {c["id"] for c in claims + first_set if c.get("existing") and c.get("relation")}
    trained_on = set(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))["trained_on"])
    assert trained_on, "the weights name the pairs they were trained on"
    assert not trained_on & held_out
    # Every other labelled pair was used: none left out by hand.
    assert trained_on == labelled_pairs - held_out


@pytest.mark.slow
def test_the_shipped_weights_are_what_the_train_split_gives_today():
    # A change of the claim rules changes the features: the weights must be trained again
    # (scripts/train_pair_model.py), or the model reads pairs unlike those it learned from.
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "scripts/train_pair_model.py", "--check"],
        cwd=root,
        env=isolated_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the shipped weights match a fresh training" in done.stdout


def test_the_weights_read_the_features_the_code_computes():
    old, new = "brand_A 医药OTC日预算5000元", "brand_A 医药OTC日预算改为8000元"
    features = pair_features(
        extract_claim(new), extract_claim(old), wording=Wording(old, new), cosine=0.95, rules="contradiction", rules_facet="value"
    )
    assert sorted(features) == list(pair_model().features)
    assert {f"rules:{k}" for k in RULE_ANSWERS} <= set(features)


def test_an_unknown_feature_is_an_error_not_a_silent_zero():
    with pytest.raises(ValueError, match="retrain"):
        pair_model().opinion({"a feature nobody trained": 1.0})


@pytest.mark.parametrize(
    "old,new,rules",
    [
        # A paraphrase across languages of one rule: the model agrees with the rules' repeat, and is sure.
        ("adv_game_01 安卓包在巨量引擎只投25-35岁男性", "adv_game_01 安卓包巨量引擎定向仅限25至35岁男性用户", "duplicate"),
        # A changed figure of the same lever: a contradiction.
        ("adv_fin_01 信用卡CPA上限为目标的1.3倍", "adv_fin_01 信用卡CPA上限改为目标的1.5倍", "contradiction"),
    ],
)
def test_the_model_reads_clear_pairs_as_the_rules_do(old, new, rules):
    opinion = pair_model().opinion(
        pair_features(extract_claim(new), extract_claim(old), wording=Wording(old, new), cosine=0.95, rules=rules, rules_facet="value")
    )
    assert opinion.relation == rules
    assert opinion.probability >= OPINION_SURE


STATEMENT = extract_claim("brand_A 口红计划日预算5000元")
QUESTION = extract_claim("brand_A 口红计划日预算要不要改成5000元？")


@pytest.mark.parametrize(
    "rules,opinion,new,kind,doubted",
    [
        # The model agrees, or gives a verdict that does the same (both written beside, both
        # parked): nothing moves, and the answer records that it was asked.
        (Relation("ambiguous", "unread"), Opinion("ambiguous", 0.9), STATEMENT, "ambiguous", False),
        (Relation("compatible", "channel"), Opinion("refinement", 0.9), STATEMENT, "compatible", False),
        (Relation("ambiguous", "audience"), Opinion("contradiction", 0.99), STATEMENT, "ambiguous", False),
        # A question the rules left open without reading a difference: a model sure of a repeat
        # settles it; anything else leaves it open (the model never writes on its own).
        (Relation("ambiguous", "unread"), Opinion("duplicate", 0.8), STATEMENT, "duplicate", False),
        (Relation("ambiguous", "audience"), Opinion("duplicate", 0.8), STATEMENT, "duplicate", False),
        (Relation("ambiguous", "unread"), Opinion("duplicate", 0.5), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "audience"), Opinion("compatible", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "condition"), Opinion("refinement", 0.95), STATEMENT, "ambiguous", False),
        # Hard: a difference the rules read and could not weigh, whether two names are one thing,
        # another subject read on both sides, a contradiction the rules read.
        (Relation("ambiguous", "condition", "限定 → "), Opinion("duplicate", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "audience", "安卓用户 → iOS用户"), Opinion("duplicate", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "identity", "旗舰店 → 静安店"), Opinion("duplicate", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "polarity", "禁止 → 允许"), Opinion("duplicate", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "metric", "更差 → ctr 上调"), Opinion("duplicate", 0.95), STATEMENT, "ambiguous", False),
        (Relation("compatible", "plan", "plan_001 → plan_002"), Opinion("duplicate", 0.99), STATEMENT, "compatible", False),
        (Relation("compatible", "weekday", "周三 → 周五"), Opinion("contradiction", 0.99), STATEMENT, "compatible", False),
        (Relation("contradiction", "value", "5000元 → 8000元"), Opinion("duplicate", 0.99), STATEMENT, "contradiction", False),
        # What the rules would write or reinforce: parked when the model is sure of something else
        # (its contradiction supersedes nothing); not sure, the rules stand.
        (Relation("duplicate", "text"), Opinion("contradiction", 0.99), STATEMENT, "ambiguous", True),
        (Relation("duplicate", "text"), Opinion("compatible", 0.8), STATEMENT, "ambiguous", True),
        (Relation("compatible", "lever"), Opinion("duplicate", 0.8), STATEMENT, "ambiguous", True),
        (Relation("duplicate", "text"), Opinion("compatible", 0.5), STATEMENT, "duplicate", False),
        # An unsettled statement keeps what the rules made of it.
        (Relation("compatible", "lever"), Opinion("duplicate", 0.95), QUESTION, "compatible", False),
    ],
)
def test_how_far_the_opinion_moves_the_rules(rules, opinion, new, kind, doubted):
    found = second_opinion(rules, opinion, new=new)
    assert (found.kind, found.doubted) == (kind, doubted)
    assert found.rules_kind == rules.kind and found.opinion == opinion
    assert found.signal == rules.signal and found.detail == rules.detail
    record = found.as_dict()
    assert record["claims_relation"] == rules.kind and record["learned_relation"] == opinion.relation


def test_every_subject_part_read_on_both_sides_is_hard_against_the_model():
    for facet in SUBJECT_FACETS:
        found = second_opinion(Relation("compatible", facet, "a → b"), Opinion("duplicate", 0.99), new=STATEMENT)
        assert found.kind == "compatible", facet
    # Named on one side only (no before and after), a subject part is no hard difference.
    found = second_opinion(Relation("compatible", str(Facet.CHANNEL)), Opinion("duplicate", 0.9), new=STATEMENT)
    assert found.kind == "ambiguous" and found.doubted


def test_a_reviewer_reads_why_the_pair_was_parked():
    reason = Reason.of(ReasonCode.RELATION_DOUBTED, id=7, rules="duplicate", learned="compatible", p="55%", signal=["text"])
    assert render(reason, "zh-hans") == (
        "规则判断与记忆 #7 的关系是“重复”（文本）；基于标注样例训练的关系模型判断是“相容”（把握 55%）：由人工决定"
    )
    assert "55% sure: a person decides" in render(reason, "en")


def test_the_conflict_trace_keeps_both_verdicts(ingest):
    old = ingest("用户说：brand_A 医药OTC日预算5000元", source="user", advertiser="brand_A")
    new = ingest("用户纠正：brand_A 医药OTC日预算改为8000元", source="user", advertiser="brand_A")
    assert (old.action, new.action) == ("WRITE", "UPDATE"), new.reasons
    [seen] = Trace.objects.get(event_id=new.event_id, stage="conflict").scores["related"]
    # The rules read the changed figure, which is hard; what the model said is on the record too.
    assert (seen["relation"], seen["claims_relation"]) == ("contradiction", "contradiction")
    assert seen["learned_relation"] in {"duplicate", "contradiction", "refinement", "compatible", "ambiguous"}
    assert 0.2 <= seen["learned_p"] <= 1.0


def test_an_l1_rule_is_never_put_to_the_model(ingest):
    ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.3倍", source="human", layer="L1", advertiser="adv_fin_01")
    new = ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.5倍", source="human", layer="L1", advertiser="adv_fin_01")
    assert new.action == "PENDING_REVIEW", new.reasons
    [seen] = Trace.objects.get(event_id=new.event_id, stage="conflict").scores["related"]
    assert "learned_relation" not in seen
