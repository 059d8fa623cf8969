"""A key typed in three or more pieces, one per user turn, through /ingest (messages) and
/distill, with a brand_A token, the real funnel (offline judge) and SQLite migrations:
the conversation's joined view finds it, the write is refused, and no piece is in any
table, nor in the distillation's answer. /distill scans the whole conversation before a
candidate takes some of its turns, so a candidate holding only the last piece loses it
too; the gateway extractor's prompt never carries a piece (the real `openai` client
against tests/fakes)."""

import pytest

from governance.knowledge.distill.services import session_distill
from governance.models import MemoryEvent
from tests.fakes.openai_server import chat
from tests.judges.test_openai_provider import script_ok
from tests.security.stored import database_bytes

pytestmark = pytest.mark.django_db

# An Alibaba Cloud AccessKey id in three pieces: none of them looks like anything alone.
LTAI_PIECES = ["LTAI5tKp", "9Wx3Zq7M", "v2Rb6Nd4"]
# A 32-character hex AppSecret in four pieces, named in the first turn.
HEX_PIECES = ["7c1e9a4f", "b3d8062e", "5fa9c7d1", "e4b2086a"]


def _in_db(pieces) -> list[str]:
    blob = database_bytes().lower()
    return [p for p in pieces if p.lower().encode() in blob]


def test_a_key_in_three_user_turns_with_the_assistant_between_is_refused_and_not_stored(brand_a):
    messages = [
        {"role": "assistant", "content": "要记住 brand_A 素材桶的访问配置吗？"},
        {"role": "user", "content": f"记一下，阿里云子账号 {LTAI_PIECES[0]}"},
        {"role": "assistant", "content": "收到，还有吗？"},
        {"role": "user", "content": LTAI_PIECES[1]},
        {"role": "assistant", "content": "继续"},
        {"role": "user", "content": f"{LTAI_PIECES[2]}，以后 brand_A 素材都传这个桶"},
    ]
    response = brand_a.post("/ingest", {"messages": messages})
    assert response.status_code == 200, response.content
    assert response.json()["action"] == "REJECT"
    assert MemoryEvent.objects.exists()
    assert _in_db(LTAI_PIECES) == []
    assert not any(p in response.content.decode() for p in LTAI_PIECES)


def test_distill_cuts_every_piece_even_when_a_candidate_holds_only_the_last_one(brand_a):
    messages = [
        {"role": "user", "content": f"小程序 AppSecret 分几段发，第一段 {HEX_PIECES[0]}"},
        {"role": "user", "content": HEX_PIECES[1]},
        {"role": "user", "content": HEX_PIECES[2]},
        # The offline extractor's candidate is this turn alone (a decision cue).
        {"role": "user", "content": f"{HEX_PIECES[3]} 是最后一段。以后 brand_A 医药OTC 冷启动出价都不要超过2元"},
    ]
    response = brand_a.post("/distill", {"session_id": "sess-双11-split-hex", "messages": messages})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["candidates"] >= 1 and body["decisions"], body
    # The candidate's turn held a piece: refused as the same turn sent to /ingest would be.
    assert {d["action"] for d in body["decisions"]} == {"REJECT"}, body["decisions"]
    assert _in_db(HEX_PIECES) == []
    assert not any(p in response.content.decode() for p in HEX_PIECES)


def test_the_distill_prompt_never_carries_a_piece(openai_gateway, django_capture_on_commit_callbacks):
    script_ok(openai_gateway)
    openai_gateway.route("prompt:distill", chat({"candidates": [{"turns": [4], "kind": "decision"}]}))
    messages = [
        {"role": "user", "content": f"腾讯云密钥分三段：{LTAI_PIECES[0]}"},
        {"role": "assistant", "content": "好的"},
        {"role": "user", "content": LTAI_PIECES[1]},
        {"role": "assistant", "content": "继续"},
        {"role": "user", "content": f"{LTAI_PIECES[2]}，以后 brand_A 医药OTC 冷启动出价都不要超过2元"},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        result = session_distill(session_id="sess-美妆-split-prompt", messages=messages, advertiser="brand_A", actor="test")
    assert result["extractor"] == "llm"
    (request,) = [r for r in openai_gateway.requests_to("/chat/completions") if "prompt:distill" in r.text]
    prompt = request.json["messages"][1]["content"]
    assert "冷启动出价都不要超过2元" in prompt
    assert [p for p in LTAI_PIECES if p in prompt] == []
    assert _in_db(LTAI_PIECES) == []
