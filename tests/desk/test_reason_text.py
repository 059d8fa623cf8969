"""Every reason the funnel writes reads in Chinese in the admin, and JSON fields render as
labelled fields, never as Python or JSON literals. The reasons come from the real offline
funnel over the labelled guard cases, so a new sentence shape without a translation fails here."""

import json
import re
from pathlib import Path

import pytest
from django.utils import translation

from desk.admin.readable import readable, reasons_list
from desk.admin.reason_text import decision_label, stage_label, translate_reason
from governance.models import LayerPolicy, MemoryEvent, ReviewItem, Trace

CASES = Path(__file__).resolve().parents[1] / "data" / "guard_cases.jsonl"
# English words a stored reason uses; none may survive translation.
ENGLISH = re.compile(
    r"\b(attribution|criterion|criteria|confidence|contradicts|compatible|duplicate|memory|reviewer|grounding|"
    r"reinforced|rejected|approved|sampled|audit|picked|patterns|classify|credentials?|tentative|assistant|agent|"
    r"accepts|observation|expires|importance|no duplicate|WRITE|UPDATE|REJECT|PENDING_REVIEW|user_\w+|\w+_\w+)\b"
)
# Codes that are the same in both languages, and the quoted hedge or suggestion the rule found.
KEPT = re.compile(r"'[^']*'|\bL[1-4]\b|#\d+|\bROI\b|\bCTR\b|\b[a-z]+_[a-z_]+_key\b|\bsecret_keyword\b|\bbase64_high_entropy_string\b")


@pytest.fixture
def funnel_reasons(db):
    from bench.funnel import load_cases, run_case

    LayerPolicy.objects.update(sampled_audit_rate=0.5)
    for case in load_cases(CASES):
        run_case(case)
    reasons = {r for t in Trace.objects.all() for r in t.reasons}
    reasons |= {r for e in MemoryEvent.objects.all() for r in e.reasons}
    reasons |= {r for item in ReviewItem.objects.all() for r in (item.payload or {}).get("reasons", [])}
    reasons |= set(ReviewItem.objects.values_list("reason", flat=True).filter(kind="sampled_audit"))
    assert len(reasons) > 40
    return reasons


def test_every_funnel_reason_reads_in_chinese(funnel_reasons):
    with translation.override("zh-hans"):
        for reason in funnel_reasons:
            shown = translate_reason(reason)
            assert shown != reason, reason
            leftover = ENGLISH.search(KEPT.sub("", shown))
            assert leftover is None, (reason, shown, leftover.group(0))


def test_english_readers_see_the_stored_reason(funnel_reasons):
    with translation.override("en"):
        assert all(translate_reason(r) == r for r in funnel_reasons)


def test_review_reasons_and_conflict_values_are_readable():
    with translation.override("zh-hans"):
        approved = translate_reason("approved by reviewer reviewer_li: UPDATE to L2 as memory #46")
        assert approved == "审核员 reviewer_li 批准：已更新到 L2，记忆 #46"
        shown = translate_reason(
            "contradicts memory #59 (different value: time: [(9.0, 11.0)] → [(0.0, 6.0)]) "
            "without stronger evidence (4 ≤ 6): a person decides"
        )
        assert "9:00–11:00 → 0:00–6:00" in shown and "[(" not in shown
        assert stage_label("guard_rules") == "守卫规则" and decision_label("PENDING_REVIEW") == "待审核"
        assert translate_reason("something no pattern knows") == "something no pattern knows"


def test_json_fields_render_as_labelled_fields():
    criterion = {"met": False, "zh": "多周期重复出现", "evidence": "suggested_action=['信息流']"}
    scores = {
        "attribution": "user_stated",
        "signals": {"hedge": [], "suggestion": ["建议"]},
        "verdict": "WRITE",
        "related": [{"id": 45, "cosine": 0.9949, "relation": "contradiction"}],
        "criteria": {"repeated": criterion},
    }
    with translation.override("zh-hans"):
        html = str(readable(scores))
        for literal in ("{'", '{"', "['", '["', "True", "False", "None"):
            assert literal not in html, literal
        assert "来源归属" in html and "用户陈述" in html and "多周期重复出现" in html and "suggested_action=信息流" in html
        assert "<dl" in html and "写入" in html
        assert "<li>周期规律：三项价值标准全部满足</li>" in str(reasons_list(["periodic_pattern: all 3 criteria met"]))


def test_audit_details_render_without_json(db, reviewer_client):
    from django.urls import reverse

    from governance.audit import audit_record

    extra = {"kind": "sampled_audit", "memory_id": 12, "note": "复核"}
    entry = audit_record(event_type="review.overturned", actor="reviewer_li", extra=extra)
    page = reviewer_client.get(reverse("admin:governance_auditlog_changelist"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "抽样审计" in page and json.dumps(entry.extra_data, ensure_ascii=False) not in page
