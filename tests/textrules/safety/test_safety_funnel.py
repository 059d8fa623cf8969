"""textrules.safety where text is stored: the funnel (event rows, candidates, memories,
traces), review notes, review items and audit rows, on the real test database."""

import json

import pytest
from django.db import connection

from governance.audit import audit_record
from governance.constants import ReviewKind
from governance.models import AuditLog, MemoryEvent, ReviewItem, Trace
from governance.review.services import review_approve, review_item_create, review_reject
from governance.traces import trace_create
from memories.models import Memory
from tests.textrules.safety.safety_corpus import HOSTILE, leaks

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_sampled_audit")]

CREDENTIALS = [c for c in HOSTILE if c["kind"] == "credential"]
PERSONAL = [c for c in HOSTILE if c["kind"] == "personal"]
SLACK = next(c for c in CREDENTIALS if c["id"] == "slack-01")
PHONE = next(c for c in PERSONAL if c["id"] == "phone-01")
CARD = next(c for c in PERSONAL if c["id"] == "bank_card-02")


def _every_stored_cell() -> bytes:
    """Every cell of every table, FTS index included, as the database holds it."""
    out = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')
            out.extend(str(cell) for row in cursor.fetchall() for cell in row if cell is not None)
    return "\n".join(out).encode("utf-8")


def _send(case, ingest, trigger):
    if case["via"] == "ingest":
        return ingest(case["text"], source="user", advertiser="brand_A")
    return trigger(case["event_type"], summary=case["summary"], data=case["data"], source="user", advertiser="brand_A")


@pytest.mark.parametrize("case", CREDENTIALS, ids=[c["id"] for c in CREDENTIALS])
def test_a_credential_is_refused_and_redacted_everywhere(case, ingest, trigger, set_audit_rate):
    set_audit_rate(1.0)  # the sampled-audit copy is stored too
    d = _send(case, ingest, trigger)
    assert d.action == "REJECT" and "credential" in d.reasons[0]
    assert not Memory.objects.exists()
    safety = Trace.objects.get(event_id=d.event_id, stage="safety")
    assert safety.decision == "REJECT" and safety.scores["secrets"]
    event = MemoryEvent.objects.get(pk=d.event_id)
    assert "[REDACTED:" in event.raw_text + event.summary + json.dumps(event.data, ensure_ascii=False)
    assert leaks(_every_stored_cell(), case) == []


@pytest.mark.parametrize("case", PERSONAL, ids=[c["id"] for c in PERSONAL])
def test_personal_data_is_masked_and_the_trace_names_only_its_kind(case, ingest, trigger):
    d = _send(case, ingest, trigger)
    safety = Trace.objects.get(event_id=d.event_id, stage="safety")
    assert safety.decision == "PASS" and safety.scores["personal"] and safety.scores["secrets"] == []
    assert leaks(_every_stored_cell(), case) == []


def test_a_memory_with_a_phone_number_is_written_masked(ingest):
    d = ingest(PHONE["text"], source="user", advertiser="brand_A")
    assert d.action == "WRITE"
    content = Memory.objects.get(pk=d.memory_id).content
    assert "****5678" in content and PHONE["value"] not in content and content.startswith("用户纠正：brand_A 投放负责人手机")


def _parked(ingest):
    d = ingest("用户纠正：brand_A 医药OTC素材禁止出现“根治”字样", source="user", advertiser="brand_A", layer="L1")
    assert d.action == "PENDING_REVIEW"
    return ReviewItem.objects.get(pk=d.review_item_id)


def test_a_rejection_note_is_redacted_in_the_item_trace_event_and_audit(ingest):
    item = _parked(ingest)
    note = f"驳回：不要把 {SLACK['value']} 写进记忆，联系 {PHONE['value']}"
    review_reject(item=item, reviewer=None, reviewer_name="ops_lead", note=note)
    item.refresh_from_db()
    assert "[REDACTED:slack_token]" in item.note and "****5678" in item.note
    stored = _every_stored_cell()
    assert leaks(stored, SLACK) == [] and leaks(stored, PHONE) == []
    assert AuditLog.objects.filter(event_type="review.rejected").get().extra_data["note"] == item.note


def test_an_approval_note_is_redacted_too(ingest):
    item = _parked(ingest)
    review_approve(item=item, reviewer=None, reviewer_name="ops_lead", note="可以，密码是 Qx7!abcDEF12#26", operator=True)
    trace = Trace.objects.filter(stage="review").get()
    assert "Qx7!abcDEF12#26" not in json.dumps(trace.reasons, ensure_ascii=False)
    assert "[REDACTED:secret_keyword]" in ReviewItem.objects.get(pk=item.pk).note


def test_a_review_item_opened_by_a_job_is_scrubbed():
    item = review_item_create(
        kind=ReviewKind.PENDING_WRITE,
        reason=f"引用 {SLACK['value']}",
        layer="L2",
        candidate={"content": f"联系 {PHONE['value']}", "layer": "L2"},
        payload={"token": "abc123xyz"},
    )
    item.refresh_from_db()
    dumped = item.reason + json.dumps(item.payload, ensure_ascii=False)
    assert SLACK["value"] not in dumped and PHONE["value"] not in dumped and "abc123xyz" not in dumped


def test_an_audit_row_is_scrubbed_in_keys_values_and_actor():
    row = audit_record(
        event_type="memory.imported",
        actor=f"ops {PHONE['value']}",
        extra={"line": f"第3行 {SLACK['value']}", SLACK["value"]: 1, "nested": [{"card": CARD["value"]}]},
    )
    row.refresh_from_db()
    dumped = row.actor + json.dumps(row.extra_data, ensure_ascii=False)
    assert SLACK["value"] not in dumped and PHONE["value"] not in dumped and CARD["value"] not in dumped
    assert row.extra_data["nested"][0]["card"].endswith(CARD["value"][-4:] + "]")


def test_every_trace_written_through_the_helper_is_scrubbed():
    trace = trace_create(stage="expire", decision="EXPIRED", reasons=[f"job saw {SLACK['value']}"], scores={"contact": PHONE["value"]})
    trace.refresh_from_db()
    assert SLACK["value"] not in trace.reasons[0] and PHONE["value"] not in trace.scores["contact"]


def test_a_short_secret_under_a_secret_key_stays_out_of_the_rendered_content(trigger, set_audit_rate):
    set_audit_rate(1.0)
    d = trigger("environment_change", data={"password": "q7!", "channel": "巨量"}, source="tool")
    assert d.action == "REJECT"
    assert "q7!" not in _every_stored_cell().decode("utf-8")
