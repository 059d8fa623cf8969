"""The pair model's second opinion (textrules/claims/pair_model.py, applied in
governance/funnel/relation.py): what it was trained on, how far it may move the rules'
verdict, and what a reviewer reads when it parks a pair."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from governance.funnel.relation import SUBJECT_FACETS, Relation, second_opinion
from governance.models import Trace
from memories.models import Memory
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
    assert 0.2 < opinion.probability <= 1.0


STATEMENT = extract_claim("brand_A 口红计划日预算5000元")
QUESTION = extract_claim("brand_A 口红计划日预算要不要改成5000元？")


@pytest.mark.parametrize(
    "rules,opinion,new,kind,doubted",
    [
        # The model agrees, or gives a verdict that does the same (both written beside, both
        # parked): nothing moves, and the answer records that it was asked.
        (Relation("ambiguous", "unread"), Opinion("ambiguous", 0.9), STATEMENT, "ambiguous", False),
        (Relation("compatible", "channel"), Opinion("refinement", 0.9), STATEMENT, "compatible", False),
        (Relation("ambiguous", "unread"), Opinion("contradiction", 0.99), STATEMENT, "ambiguous", False),
        # Where the rules named no difference, a model sure of a repeat settles it; nothing else does.
        (Relation("ambiguous", "unread"), Opinion("duplicate", 0.8), STATEMENT, "duplicate", False),
        (Relation("ambiguous", "audience"), Opinion("duplicate", 0.8), STATEMENT, "duplicate", False),
        (Relation("ambiguous", "unread"), Opinion("duplicate", 0.5), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "audience"), Opinion("compatible", 0.95), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "condition"), Opinion("refinement", 0.95), STATEMENT, "ambiguous", False),
        # A part of the subject the rules read on both sides stays theirs: another subject, or a
        # change they cannot tell from one.
        (Relation("ambiguous", "identity", "旗舰店 → 静安店"), Opinion("duplicate", 0.9), STATEMENT, "ambiguous", False),
        (Relation("ambiguous", "audience", "安卓用户 → iOS用户"), Opinion("duplicate", 0.9), STATEMENT, "ambiguous", False),
        (Relation("compatible", "plan", "plan_001 → plan_002"), Opinion("duplicate", 0.99), STATEMENT, "compatible", False),
        (Relation("compatible", "weekday", "周三 → 周五"), Opinion("contradiction", 0.99), STATEMENT, "compatible", False),
        # A contradiction the rules read stays one.
        (Relation("contradiction", "value", "5000元 → 8000元"), Opinion("duplicate", 0.99), STATEMENT, "contradiction", False),
        # What the rules would write or reinforce: parked when the model is sure of something else
        # (its contradiction supersedes nothing); not sure, the rules stand.
        (Relation("duplicate", "text"), Opinion("contradiction", 0.99), STATEMENT, "ambiguous", True),
        (Relation("duplicate", "text"), Opinion("compatible", 0.8), STATEMENT, "ambiguous", True),
        (Relation("compatible", "lever"), Opinion("duplicate", 0.8), STATEMENT, "ambiguous", True),
        (Relation("duplicate", "text"), Opinion("compatible", 0.5), STATEMENT, "duplicate", False),
        (Relation("compatible", "channel"), Opinion("ambiguous", 0.55), STATEMENT, "compatible", False),
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
        for kind in ("compatible", "ambiguous"):
            found = second_opinion(Relation(kind, facet, "a → b"), Opinion("duplicate", 0.99), new=STATEMENT)
            assert found.kind == kind, (facet, kind)
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
    # The rules read the changed figure; the model agrees, and both are on the record.
    assert (seen["relation"], seen["claims_relation"], seen["learned_relation"]) == ("contradiction",) * 3
    assert 0.6 <= seen["learned_p"] <= 1.0


def test_an_l1_rule_is_never_put_to_the_model(ingest):
    ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.3倍", source="human", layer="L1", advertiser="adv_fin_01")
    new = ingest("合规部规定：adv_fin_01 信用卡CPA上限为目标的1.5倍", source="human", layer="L1", advertiser="adv_fin_01")
    assert new.action == "PENDING_REVIEW", new.reasons
    [seen] = Trace.objects.get(event_id=new.event_id, stage="conflict").scores["related"]
    assert "learned_relation" not in seen


def test_a_repeat_the_model_doubts_is_parked_not_reinforced(trigger):
    # A train pair of the labelled set: "Tuesday is best" over 3 weeks, then "Thursday is best,
    # Tuesday third" over 10 weeks. The rules read both as "the highest" and would reinforce
    # the first; the model is sure they disagree, and a person decides.
    first = trigger(
        "periodic_pattern",
        summary="brand_apparel 每周二晚直播间转化率最高（观察3周）",
        data={"period": "每周二 20:00-23:00", "cycles_observed": 3, "pattern": "转化率高于周均15%"},
        source="tool",
        advertiser="brand_apparel",
    )
    second = trigger(
        "periodic_pattern",
        summary="brand_apparel 连续10周直播间周四晚转化率最高，周二晚只排第三",
        data={"period": "每周四 20:00-23:00", "cycles_observed": 10, "pattern": "转化率高于周均28%"},
        source="tool",
        advertiser="brand_apparel",
    )
    assert first.action == "WRITE", first.reasons
    assert second.action == "PENDING_REVIEW", second.reasons
    assert "pair model" in " ".join(str(r) for r in second.reasons)
    assert Memory.objects.get(pk=first.memory_id).reinforcement_count == 0
    scores = Trace.objects.get(event_id=second.event_id, stage="conflict").scores
    assert (scores["related"][0]["claims_relation"], scores["related"][0]["learned_relation"]) == ("duplicate", "contradiction")
