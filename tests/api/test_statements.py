"""What /ingest stores is one standalone statement, and /memories/{id}/source still returns
the exact turns. Offline through the real URLconf, and with the gateway: the real `openai`
client against the fake OpenAI-compatible server, whose sentence is used only when it
adds and loses nothing."""

import pytest

from governance.models import MemoryEvent, Trace
from memories.models import Memory
from tests.fakes.openai_server import chat
from tests.judges.test_openai_provider import script_ok

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_sampled_audit")]

CONFIRMED = [
    {"role": "user", "content": "你好，brand_A 美妆新计划冷启动期出价怎么设？"},
    {"role": "assistant", "content": "建议先设 2.2 元，ROI 稳定后逐步下调。需要我现在帮你改吗？"},
    {"role": "user", "content": "好的，就按这个来"},
]
COMPOSED = "brand_A 美妆新计划冷启动期出价：先设 2.2 元，ROI 稳定后逐步下调（用户确认助手建议）"


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks):
    def _run(call):
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return _run


def statement_trace(decision):
    return Trace.objects.get(event_id=decision["event_id"], stage="statement")


def test_a_confirmed_suggestion_is_stored_as_one_statement_and_its_turns_stay_attached(brand_a, run_on_commit):
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": CONFIRMED})).json()
    assert decision["action"] == "WRITE", decision
    memory = Memory.objects.get(pk=decision["memory_id"])
    assert memory.content == COMPOSED and memory.source_attribution == "user_confirmed"
    trace = statement_trace(decision)
    assert trace.seq == 0 and "composed from the turns (用户确认助手建议)" in trace.reasons[0]
    assert trace.scores["borrowed"] == "美妆新计划冷启动期出价"
    # The exact turns the memory is about, as they were said (the confirmation included).
    source = brand_a.get(f"/memories/{memory.pk}/source").json()
    assert [(t["role"], t["content"]) for t in source["turns"]] == [
        ("assistant", "建议先设 2.2 元，ROI 稳定后逐步下调。需要我现在帮你改吗？"),
        ("user", "好的，就按这个来"),
    ]
    assert "美妆新计划冷启动期出价怎么设" in source["raw_text"]


def test_english_confirmation_names_the_advertiser(brand_a, run_on_commit):
    messages = [
        {"role": "assistant", "content": "I'd recommend capping the Douyin daily budget at 8000 yuan during the cold start."},
        {"role": "user", "content": "Sounds good, go ahead."},
    ]
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": messages})).json()
    assert decision["action"] == "WRITE", decision
    assert Memory.objects.get(pk=decision["memory_id"]).content == (
        "brand_A: capping the Douyin daily budget at 8000 yuan during the cold start (user confirmed the assistant's suggestion)"
    )


def test_a_user_statement_with_a_closing_question_keeps_only_the_statement(brand_a, run_on_commit):
    text = "brand_A 冷启动期出价先设 2.2 元，ROI 稳定后逐步下调，你觉得呢？"
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"text": text, "source": "user"})).json()
    assert decision["action"] == "WRITE", decision
    memory = Memory.objects.get(pk=decision["memory_id"])
    assert memory.content == "brand_A 冷启动期出价先设 2.2 元，ROI 稳定后逐步下调"
    assert "你觉得呢" in statement_trace(decision).reasons[0]
    assert brand_a.get(f"/memories/{memory.pk}/source").json()["raw_text"] == text


def test_the_same_in_turns_is_stated_by_the_user(brand_a, run_on_commit):
    messages = [{"role": "user", "content": "冷启动期出价先设 2.2 元，ROI 稳定后逐步下调，你觉得呢？"}]
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": messages})).json()
    assert decision["action"] == "WRITE", decision
    memory = Memory.objects.get(pk=decision["memory_id"])
    assert memory.content == "brand_A 冷启动期出价先设 2.2 元，ROI 稳定后逐步下调（用户陈述）"
    assert brand_a.get(f"/memories/{memory.pk}/source").json()["turns"][0]["content"] == messages[0]["content"]


@pytest.mark.parametrize(
    "body",
    [
        {"text": "要不要试试把 brand_A 的出价提高一点？你觉得呢", "source": "user"},
        {"messages": [{"role": "user", "content": "Should we raise brand_A's Douyin bids next week, what do you think?"}]},
    ],
)
def test_a_question_alone_is_still_refused(brand_a, run_on_commit, body):
    decision = run_on_commit(lambda: brand_a.post("/ingest", body)).json()
    assert decision["action"] == "REJECT" and "question" in decision["reasons"][0], decision
    assert not Memory.objects.exists()


def test_an_unconfirmed_suggestion_keeps_its_words_and_is_refused(brand_a, run_on_commit):
    messages = [{"role": "user", "content": "brand_A 出价怎么设？"}, {"role": "assistant", "content": "建议出价先设 2.2 元"}]
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": messages})).json()
    assert decision["action"] == "REJECT", decision
    assert not Trace.objects.filter(event_id=decision["event_id"], stage="statement").exists()
    assert MemoryEvent.objects.get(pk=decision["event_id"]).action == "REJECT"


# --- with a gateway ----------------------------------------------------------------------------
def test_the_models_sentence_is_stored_when_it_adds_nothing(openai_gateway, brand_a, run_on_commit):
    script_ok(openai_gateway)
    sentence = "brand_A 美妆新计划冷启动期出价先设 2.2 元，待 ROI 稳定后再逐步下调"
    openai_gateway.route("prompt:statement", chat({"statement": sentence}))
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": CONFIRMED})).json()
    assert decision["action"] == "WRITE", decision
    assert Memory.objects.get(pk=decision["memory_id"]).content == sentence + "（用户确认助手建议）"
    trace = statement_trace(decision)
    assert trace.provider == "openai" and trace.prompt_version == "statement-2026.12.1"
    assert "the model's wording" in trace.reasons[0]
    (request,) = [r for r in openai_gateway.requests_to("/chat/completions") if "prompt:statement" in r.text]
    assert "<untrusted_data>" in request.json["messages"][1]["content"] and "就按这个来" in request.text


@pytest.mark.parametrize(
    "reply, why",
    [
        (chat({"statement": "brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定在 3.5 以上后逐步下调"}), "adds number 3.5"),
        (chat({"statement": "brand_A 抖音美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调"}), "adds channel 抖音"),
        (chat({"statement": "brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步上调"}), "changes the direction"),
        (chat("这不是JSON"), "malformed JSON"),
        (chat({"statement": "brand_A …"}, delay=2.0), "timeout"),
    ],
)
def test_a_model_sentence_that_fails_the_check_falls_back_to_the_composed_one(openai_gateway, brand_a, run_on_commit, reply, why):
    script_ok(openai_gateway)
    openai_gateway.route("prompt:statement", reply)
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": CONFIRMED})).json()
    assert decision["action"] == "WRITE", decision
    assert Memory.objects.get(pk=decision["memory_id"]).content == COMPOSED
    trace = statement_trace(decision)
    assert trace.reasons[0].startswith("the model's wording was not used") and why in trace.reasons[0], trace.reasons
    assert trace.reasons[1].startswith("stored as one statement composed from the turns")


def test_a_replayed_request_asks_the_model_nothing(openai_gateway, brand_a, run_on_commit):
    script_ok(openai_gateway)
    openai_gateway.route("prompt:statement", chat({"statement": "brand_A 美妆新计划冷启动期出价先设 2.2 元，ROI 稳定后逐步下调"}))
    body = {"messages": CONFIRMED, "idempotency_key": "turn-7"}
    first = run_on_commit(lambda: brand_a.post("/ingest", body)).json()
    again = run_on_commit(lambda: brand_a.post("/ingest", body)).json()
    assert again["replayed"] is True and again["memory_id"] == first["memory_id"]
    assert len([r for r in openai_gateway.requests_to("/chat/completions") if "prompt:statement" in r.text]) == 1
