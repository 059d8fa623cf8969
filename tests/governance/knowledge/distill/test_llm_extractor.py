"""The gateway extractor of session distillation: the real `openai` client against the
fake OpenAI-compatible server on 127.0.0.1, with its fallback to the offline extractor."""

import json
from pathlib import Path

import pytest

from governance.knowledge.distill.services import session_distill
from governance.models import MemoryEvent
from memories.models import Memory
from tests.fakes.openai_server import chat
from tests.judges.test_openai_provider import script_ok

pytestmark = pytest.mark.django_db

SESSION = (Path(__file__).resolve().parents[3] / "data" / "distill_session_zh.jsonl").read_text(encoding="utf-8")


def run(django_capture_on_commit_callbacks, **kw):
    with django_capture_on_commit_callbacks(execute=True):
        return session_distill(session_id="sess-otc-0611", jsonl=SESSION, advertiser="brand_A", actor="test", **kw)


def test_the_model_points_at_turns_and_the_funnel_decides(openai_gateway, django_capture_on_commit_callbacks):
    script_ok(openai_gateway)
    openai_gateway.route(
        "prompt:distill",
        chat(
            {
                "candidates": [
                    {"turns": [1, 2], "kind": "confirmation", "reason": "用户确认了冷启动出价方案"},
                    {"turns": [5], "kind": "correction", "reason": "日预算上限更正为5000元"},
                    {"turns": [6], "kind": "preference", "reason": "only the assistant said it"},  # must not be kept
                    {"turns": [99], "kind": "decision"},  # no such turn
                ]
            }
        ),
    )
    result = run(django_capture_on_commit_callbacks)
    assert result["extractor"] == "llm" and result["candidates"] == 2
    assert "2 model candidate(s) dropped" in result["extractor_note"]
    assert result["extractor_telemetry"]["prompt_version"] == "distill-2026.12.1"
    assert {tuple(d["turns"]) for d in result["decisions"]} == {(1, 2), (5,)}
    confirmed = next(d for d in result["decisions"] if d["turns"] == [1, 2])
    assert confirmed["action"] == "WRITE", confirmed
    # Attribution comes from the roles (the user's "可以" after the suggestion), not from the model.
    assert Memory.objects.get(pk=confirmed["memory_id"]).source_attribution == "user_confirmed"
    (request,) = [r for r in openai_gateway.requests_to("/chat/completions") if "prompt:distill" in r.text]
    prompt = request.json["messages"][1]["content"]
    assert "<untrusted_data>" in prompt and "lingix-memory" not in prompt and "toolCall" not in prompt
    assert request.json["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    "reply, reason",
    [
        (chat("这不是JSON"), "malformed JSON"),
        (chat({"candidates": [{"turns": [], "kind": "preference"}]}), "malformed JSON"),
        (chat({"candidates": []}, delay=2.0), "timeout"),
    ],
)
def test_a_failing_extractor_falls_back_to_the_offline_one_and_says_so(openai_gateway, django_capture_on_commit_callbacks, reply, reason):
    script_ok(openai_gateway)
    openai_gateway.route("prompt:distill", reply)
    result = run(django_capture_on_commit_callbacks)
    assert result["extractor"] == "offline"
    assert result["extractor_note"].startswith("LLM extractor failed") and reason in result["extractor_note"]
    assert {tuple(d["turns"]) for d in result["decisions"]} == {(1, 2), (5,), (7,), (8,), (10,)}
    assert MemoryEvent.objects.filter(session_id="sess-otc-0611").count() == 5


def test_the_prompt_holds_the_range_and_the_turn_before_it(openai_gateway, django_capture_on_commit_callbacks):
    script_ok(openai_gateway)
    candidates = [{"turns": [1, 2], "kind": "confirmation"}, {"turns": [7], "kind": "preference"}]
    openai_gateway.route("prompt:distill", chat({"candidates": candidates}))
    result = run(django_capture_on_commit_callbacks, turn_start=5)
    # [1, 2] ends before the range: the model may not reach back past it.
    assert [d["turns"] for d in result["decisions"]] == [[7]]
    (request,) = [r for r in openai_gateway.requests_to("/chat/completions") if "prompt:distill" in r.text]
    prompt = request.json["messages"][1]["content"]
    block = json.loads(prompt.split("<untrusted_data>\n", 1)[1].rsplit("\n</untrusted_data>", 1)[0])
    assert [t["index"] for t in block["turns"]] == [2, 5, 6, 7, 8, 9, 10, 11]
