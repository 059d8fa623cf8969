"""The labelled Chinese/English set (tests/data/guard_cases.jsonl) through the offline
funnel. The bar: no false writes, and most of what should be kept is kept."""

import pytest

from bench.funnel import CASES, evaluate_cases, load_cases

pytestmark = pytest.mark.django_db


def test_labelled_set_is_balanced_and_bilingual():
    cases = load_cases(CASES)
    assert len(cases) >= 40
    assert {c["lang"] for c in cases} == {"zh", "en"}
    assert {c["expected"] for c in cases} == {"write", "no_write"}
    assert len({c["id"] for c in cases}) == len(cases)


def test_offline_funnel_on_the_labelled_set(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        report = evaluate_cases(load_cases(CASES))
    assert report["false_writes"] == 0, report["disagreements"]
    assert report["precision_written"] == 1.0
    assert report["recall_written"] >= 0.85, report["disagreements"]
