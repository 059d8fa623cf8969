"""The committed credential and personal-data corpus (tests/data/safety_hostile.jsonl)
over HTTP with a brand_A token: a credential is refused, personal data is masked, and
no value is in any table (raw, JSON-escaped or lowercased) nor in /recall output."""

import pytest

from governance.models import ReviewItem
from tests.security.stored import database_bytes
from tests.textrules.safety.safety_corpus import HOSTILE, leaks


def _send(client, case):
    if case["via"] == "trigger":
        body = {"event_type": case["event_type"], "summary": case["summary"], "data": case["data"], "source": "user"}
        return client.post("/trigger", body)
    return client.post("/ingest", {"text": case["text"], "source": "user"})


def _recall_query(case) -> str:
    text = case.get("text") or case.get("summary") or ""
    return text.replace(case["surface"], " ").replace(case["value"], " ")[:300] or "出价 预算"


@pytest.mark.parametrize("case", HOSTILE, ids=[c["id"] for c in HOSTILE])
def test_no_corpus_value_is_stored_or_recalled(brand_a, case):
    response = _send(brand_a, case)
    assert response.status_code == 200, response.content
    if case["kind"] == "credential":
        assert response.json()["action"] == "REJECT", response.content
    assert leaks(database_bytes(), case) == []
    recalled = brand_a.post("/recall", {"query": _recall_query(case), "force": True})
    assert recalled.status_code == 200
    assert leaks(recalled.content, case) == []
    assert leaks(response.content, case) == []


CREDENTIALS = [c for c in HOSTILE if c["kind"] == "credential" and c["via"] == "ingest"][:6]


@pytest.mark.parametrize("case", CREDENTIALS[:3], ids=[c["id"] for c in CREDENTIALS[:3]])
def test_a_credential_in_a_user_turn_is_refused_and_not_stored(brand_a, case):
    messages = [{"role": "assistant", "content": "需要我记住报表接口的配置吗？"}, {"role": "user", "content": case["text"]}]
    response = brand_a.post("/ingest", {"messages": messages})
    assert response.status_code == 200, response.content
    assert response.json()["action"] == "REJECT"
    assert leaks(database_bytes(), case) == []


@pytest.fixture
def open_item(brand_a):
    text = "用户纠正：brand_A 医药OTC 出价上限改为 2.5 元，以后都按这个执行"
    response = brand_a.post("/ingest", {"text": text, "source": "user", "layer": "L1"})
    assert response.json()["action"] == "PENDING_REVIEW", response.content
    return ReviewItem.objects.get(pk=response.json()["review_item_id"])


@pytest.mark.parametrize("case", CREDENTIALS[:4], ids=[c["id"] for c in CREDENTIALS[:4]])
def test_a_credential_in_a_review_note_is_not_stored(operator_token, open_item, case):
    note = f"驳回：不要把密钥写进记忆 {case['surface']}"
    response = operator_token.post(f"/review/{open_item.pk}/reject", {"note": note})
    assert response.status_code in {200, 422}, response.content
    assert leaks(database_bytes(), case) == []
    assert leaks(operator_token.get("/review").content, case) == []


@pytest.mark.parametrize("field", ["idempotency_key", "business_line"])
def test_a_credential_in_a_short_field_is_not_stored(brand_a, field):
    case = next(c for c in HOSTILE if c["family"] == "stripe")
    body = {"text": "用户纠正：brand_A 美妆 出价上限改为 3 元", "source": "user", field: case["value"]}
    response = brand_a.post("/ingest", body)
    assert response.status_code == 422, response.content
    assert f"{field} looks like a credential" in response.json()["detail"]
    assert leaks(database_bytes(), case) == [] and leaks(response.content, case) == []
