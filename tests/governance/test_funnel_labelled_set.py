"""The labelled set (tests/data/funnel_cases.jsonl), case by case through the real funnel
on the real database: what a demanding ad-ops reviewer would decide."""

from collections import Counter

import pytest

from bench.funnel import LABELLED, evaluate_labelled, load_cases
from governance.funnel.criteria import VALUE_CRITERIA

pytestmark = pytest.mark.django_db

CASES = load_cases(LABELLED)


def test_the_set_covers_what_it_must():
    assert len(CASES) >= 200
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert sum(c["lang"] == "zh" for c in CASES) / len(CASES) >= 0.6
    groups = Counter(c["group"] for c in CASES)
    assert groups["chitchat"] >= 10 and groups["correction"] >= 3
    relations = Counter(c.get("relation") for c in CASES if c.get("relation"))
    assert min(relations[r] for r in ("duplicate", "contradiction", "compatible")) >= 15
    assert all(c["existing"]["content"] for c in CASES if c.get("relation"))
    for trigger_type, criteria in VALUE_CRITERIA.items():
        typed = [c for c in CASES if c["trigger"] == trigger_type]
        assert any(c["expected"] == "write" for c in typed), trigger_type
        failed = {c.get("criterion") for c in typed if c["expected"] == "reject"}
        assert {cr.key for cr in criteria} <= failed, (trigger_type, failed)


def test_the_funnel_decides_the_set_as_labelled():
    report = evaluate_labelled(CASES)
    wrong = report["wrong"]
    assert report["false_writes"] == 0, wrong
    assert report["decided_as_labelled"] >= 0.95, wrong
    assert report["recall_written"] >= 0.95, wrong
    contradictions = report["relation_confusion"]["contradiction"]
    assert contradictions["contradiction"] == sum(contradictions.values()), wrong
    assert report["contradictions_reinforced"] == 0
