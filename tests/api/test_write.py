"""The write funnel through the API: scope on writes, idempotency per token, review."""

import pytest

from governance.models import MemoryEvent, ReviewItem, Trace
from memories.models import Memory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_sampled_audit")]

USER_FACT = "用户纠正：brand_A 医药OTC类目出价不要超过1.5元"
RULE = "平台规定：医药OTC类目所有广告出价不得超过2元"


def test_ingest_writes_through_the_funnel_with_traces(brand_a):
    response = brand_a.post("/ingest", {"text": USER_FACT, "source": "user", "explain": True})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["action"] == "WRITE" and body["layer"] == "L2"
    assert body["stages"] and {s["stage"] for s in body["stages"]} >= {"value"}
    event = MemoryEvent.objects.get(pk=body["event_id"])
    # A single-advertiser token writes for its advertiser; the event names the token.
    assert event.actor == "token:agent-a" and event.advertiser == "brand_A" and event.source == "user"
    assert Memory.objects.get(pk=body["memory_id"]).advertiser == "brand_A"
    assert Trace.objects.filter(event=event).count() == len(body["stages"])


def test_write_scope(make_token, api_client, brand_a):
    _, raw_ab = make_token("agent-ab", ["brand_A", "brand_B"])
    two = api_client(raw_ab)
    assert brand_a.post("/ingest", {"text": USER_FACT, "advertiser": "brand_B"}).status_code == 403
    refused = two.post("/ingest", {"text": USER_FACT})
    assert refused.status_code == 403 and "global" in refused.json()["detail"]
    assert two.post("/ingest", {"text": USER_FACT, "advertiser": "brand_B", "source": "user"}).status_code == 200
    assert brand_a.post("/trigger", {"event_type": "user_feedback", "summary": USER_FACT, "advertiser": "brand_C"}).status_code == 403
    assert not MemoryEvent.objects.filter(advertiser="brand_C").exists()


def test_idempotency_is_per_token(make_token, api_client, brand_a):
    body = {"text": USER_FACT, "source": "user", "idempotency_key": "turn-42"}
    first = brand_a.post("/ingest", body).json()
    again = brand_a.post("/ingest", body).json()
    assert again["event_id"] == first["event_id"] and again["replayed"] is True
    assert again["action"] == first["action"] == "WRITE"
    assert MemoryEvent.objects.filter(idempotency_key="turn-42").count() == 1
    # Another token using the same key is a different request, not a replay.
    _, raw_other = make_token("agent-a2", ["brand_A"])
    other = api_client(raw_other).post("/ingest", body).json()
    assert other["event_id"] != first["event_id"] and "replayed" not in other
    assert MemoryEvent.objects.filter(idempotency_key="turn-42").count() == 2


def test_trigger(brand_a):
    response = brand_a.post(
        "/trigger",
        {
            "event_type": "strategy_execution",
            "summary": "冷启动期出价上浮20%，目标ROI 1.5，实际1.8，因为曝光增加",
            "data": {"target": 1.5, "actual": 1.8, "conditions": "冷启动期"},
            "source": "tool",
            "idempotency_key": "run-7",
        },
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["action"] in {"WRITE", "PENDING_REVIEW", "REJECT"} and body["event_id"]
    event = MemoryEvent.objects.get(pk=body["event_id"])
    assert event.kind == "trigger" and event.event_type == "strategy_execution" and event.data["actual"] == 1.8


def test_review_flow(make_token, api_client, brand_a, operator_token):
    parked = brand_a.post("/ingest", {"text": RULE, "source": "user", "advertiser": "brand_A"}).json()
    assert parked["action"] == "PENDING_REVIEW" and parked["review_item_id"]
    item_id = parked["review_item_id"]

    listed = brand_a.get("/review").json()["items"]
    assert item_id in [i["id"] for i in listed]
    # The queue says up front that this one is an L1 rule an API token cannot approve.
    assert next(i for i in listed if i["id"] == item_id)["needs_operator"] is True
    # Reading the queue is fine; deciding needs --can-review.
    assert brand_a.post(f"/review/{item_id}/approve").status_code == 403

    _, raw_reviewer = make_token("reviewer-a", ["brand_A"], can_review=True)
    reviewer = api_client(raw_reviewer)
    no_note = reviewer.post(f"/review/{item_id}/reject", {})
    assert no_note.status_code == 422 and "note" in no_note.json()["detail"]
    # The parked item is an L1 core rule: only an operator in the admin (or the server CLI) may approve it.
    refused = reviewer.post(f"/review/{item_id}/approve", {"note": "符合平台规定", "decision_correct": True})
    assert refused.status_code == 403 and "operator" in refused.json()["detail"]
    rejected = reviewer.post(f"/review/{item_id}/reject", {"note": "不是平台规定，是用户转述", "decision_correct": True})
    assert rejected.status_code == 200, rejected.json()
    assert rejected.json()["action"] == "REJECT" and rejected.json()["memory_id"] is None
    assert ReviewItem.objects.get(pk=item_id).reviewer_name == "token:reviewer-a"
    twice = reviewer.post(f"/review/{item_id}/approve")
    assert twice.status_code == 409 and "already" in twice.json()["detail"]
    assert operator_token.post("/review/999999/approve").status_code == 404


def test_a_token_cannot_decide_what_it_proposed(make_token, api_client):
    _, raw = make_token("self-reviewer", ["brand_A"], can_review=True)
    client = api_client(raw)
    parked = client.post("/ingest", {"text": RULE, "source": "user"}).json()
    response = client.post(f"/review/{parked['review_item_id']}/approve")
    assert response.status_code == 403 and "may not decide" in response.json()["detail"]


def test_other_advertisers_review_items_are_invisible(make_token, api_client, operator_token):
    _, raw_b = make_token("agent-b", ["brand_B"], can_review=True)
    parked = operator_token.post("/ingest", {"text": RULE, "source": "user", "advertiser": "brand_A"}).json()
    client_b = api_client(raw_b)
    assert parked["review_item_id"] not in [i["id"] for i in client_b.get("/review").json()["items"]]
    assert client_b.post(f"/review/{parked['review_item_id']}/approve").status_code == 404


def test_reflect_needs_an_all_advertiser_token(brand_a, operator_token):
    assert brand_a.post("/reflect").status_code == 403
    response = operator_token.post("/reflect")
    assert response.status_code == 200, response.json()
    assert "report_id" in response.json()
