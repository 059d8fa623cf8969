"""A decision's reasons through the API: English sentences as before, the same reasons as
codes beside them, and no internal score in any sentence."""

import re

import pytest

from textrules.reasons import Reason, ReasonCode

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_sampled_audit")]

USER_FACT = "用户纠正：brand_A 医药OTC类目出价不要超过1.5元"
HEDGED = "用户说：brand_A 出价可能要上调一点吧"
# What used to leak into reasons: evidence strengths, negation counts, cosines, confidences, draws.
SCORE_WORDS = re.compile(r"≤|cosine|negations|confidence \d|draw \d|runner-up|score \d")


def _codes_match(body: dict) -> list[Reason]:
    reasons = [Reason.from_json(c) for c in body["reason_codes"]]
    assert None not in reasons and len(reasons) == len(body["reasons"])
    assert [r.english() for r in reasons] == body["reasons"]
    return reasons


def test_a_write_says_why_in_english_with_codes_beside(brand_a):
    body = brand_a.post("/ingest", {"text": USER_FACT, "source": "user", "explain": True}).json()
    assert body["action"] == "WRITE"
    reasons = _codes_match(body)
    assert reasons[-1].code == ReasonCode.IMPORTANCE and body["reasons"][-1].startswith("importance ")
    for stage in body["stages"]:
        assert [Reason.from_json(c).english() for c in stage["reason_codes"]] == stage["reasons"], stage["stage"]
        assert not any(SCORE_WORDS.search(r) for r in stage["reasons"]), stage
    classify = next((s for s in body["stages"] if s["stage"] == "classify"), None)
    if classify is not None:
        # The classifier's confidence is a score: in the stage's scores, not its sentence.
        assert classify["reasons"][0] == "classified as user_feedback" and "confidence" in classify["scores"]


def test_a_repeat_is_refused_naming_the_memory_it_reinforced(brand_a):
    first = brand_a.post("/ingest", {"text": USER_FACT, "source": "user"}).json()
    again = brand_a.post("/ingest", {"text": USER_FACT, "source": "user"}).json()
    assert again["action"] == "REJECT"
    (reason,) = _codes_match(again)
    assert reason.code == ReasonCode.DUPLICATE_REINFORCED and reason.params["id"] == first["memory_id"]
    assert again["reasons"][0].startswith(f"duplicate of memory #{first['memory_id']} (") and again["reasons"][0].endswith(
        "; reinforced it instead"
    )


def test_a_refusal_quotes_the_words_and_a_replay_answers_the_same(brand_a):
    body = {"text": HEDGED, "source": "user", "idempotency_key": "turn-7"}
    first = brand_a.post("/ingest", body).json()
    assert first["action"] == "REJECT"
    reasons = _codes_match(first)
    # A hedge, or (with claims) the unsettled stance it is read as.
    assert reasons[0].code in {ReasonCode.HEDGED, "unsettled_stance"}, first["reasons"]
    replay = brand_a.post("/ingest", body).json()
    assert replay["replayed"] is True
    assert (replay["reasons"], replay["reason_codes"]) == (first["reasons"], first["reason_codes"])


def test_a_reviewers_rejection_adds_its_reasons_to_the_events(brand_a, operator_token):
    from governance.models import MemoryEvent

    parked = brand_a.post("/ingest", {"text": "平台规定：医药OTC类目所有广告出价不得超过2元", "source": "user"}).json()
    assert parked["action"] == "PENDING_REVIEW", parked["reasons"]
    assert _codes_match(parked)[0].code == ReasonCode.L1_NEEDS_AUTHORITY
    decided = operator_token.post(f"/review/{parked['review_item_id']}/reject", {"note": "口径未经合规确认"}).json()
    reasons = _codes_match(decided)
    assert [r.code for r in reasons] == [ReasonCode.REJECTED, ReasonCode.NOTE]
    assert decided["reasons"][1] == "note: 口径未经合规确认"
    event = MemoryEvent.objects.get(pk=parked["event_id"])
    assert len(event.reasons) == len(event.reason_codes) == len(parked["reasons"]) + 2
