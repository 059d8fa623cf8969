"""POST /api/v1/distill and GET /api/v1/memories/{id}/source, through the real URLconf,
funnel (offline judge) and SQLite migrations; `memory distill` through the real command."""

from pathlib import Path

import pytest

from governance.models import DistillRun, MemoryEvent
from memories.models import Memory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_sampled_audit")]

SESSION = Path(__file__).resolve().parents[1] / "data" / "distill_session_zh.jsonl"


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks):
    def _run(call):
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return _run


def distill(client, run_on_commit, **body):
    body.setdefault("session_id", "sess-otc-0611")
    return run_on_commit(lambda: client.post("/distill", body))


def test_an_openclaw_transcript_becomes_one_event_per_candidate(brand_a, run_on_commit):
    response = distill(brand_a, run_on_commit, jsonl=SESSION.read_text(encoding="utf-8"))
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["session_id"] == "sess-otc-0611" and body["replayed"] is False
    assert body["turns"] == 12 and body["extractor"] == "offline"
    assert body["unreadable_lines"] == [9]
    by_turns = {tuple(d["turns"]): d for d in body["decisions"]}
    # The suggestion at #1 confirmed by the user at #2; a correction; a preference; a hedge; a decision.
    assert set(by_turns) == {(1, 2), (5,), (7,), (8,), (10,)}, by_turns
    assert body["candidates"] == 5
    assert by_turns[(1, 2)]["action"] == "WRITE" and by_turns[(5,)]["action"] == "WRITE"
    assert by_turns[(8,)]["action"] == "REJECT"  # "可能更喜欢…还没想好" is tentative
    assert any("tentative" in r for r in by_turns[(8,)]["reasons"])
    confirmed = Memory.objects.get(pk=by_turns[(1, 2)]["memory_id"])
    assert confirmed.source_attribution == "user_confirmed" and confirmed.advertiser == "brand_A"
    assert "出价上浮20%" in confirmed.content
    # Every candidate is its own event that remembers its session and turns.
    events = MemoryEvent.objects.filter(session_id="sess-otc-0611")
    assert events.count() == 5
    assert {tuple(t["index"] for t in e.source_turns) for e in events} == set(by_turns)
    # The recall block the plugin injected into turn #0 is never captured back.
    assert not Memory.objects.filter(content__contains="Recalled from Lingix").exists()
    assert not MemoryEvent.objects.filter(raw_text__contains="lingix-memory").exists()


def test_a_repeat_replays_and_writes_nothing(brand_a, run_on_commit):
    first = distill(brand_a, run_on_commit, jsonl=SESSION.read_text(encoding="utf-8")).json()
    counts = (Memory.objects.count(), MemoryEvent.objects.count(), DistillRun.objects.count())
    again = distill(brand_a, run_on_commit, jsonl=SESSION.read_text(encoding="utf-8")).json()
    assert again["replayed"] is True
    assert again["decisions"] == first["decisions"]
    assert (Memory.objects.count(), MemoryEvent.objects.count(), DistillRun.objects.count()) == counts


def test_a_later_turn_range_is_distilled_on_its_own(brand_a, run_on_commit):
    text = SESSION.read_text(encoding="utf-8")
    head = distill(brand_a, run_on_commit, jsonl=text, turn_end=4).json()
    assert head["turns"] == 5 and {tuple(d["turns"]) for d in head["decisions"]} == {(1, 2)}
    tail = distill(brand_a, run_on_commit, jsonl=text, turn_start=5).json()
    assert tail["replayed"] is False and tail["turn_start"] == 5
    assert all(min(d["turns"]) >= 5 for d in tail["decisions"])
    whole = distill(brand_a, run_on_commit, jsonl=text).json()
    # A new range, but the candidates already written replay through their own idempotency keys.
    assert all(d.get("replayed") for d in whole["decisions"])
    assert MemoryEvent.objects.count() == 5


def test_an_unconfirmed_suggestion_is_not_a_memory(brand_a, run_on_commit):
    messages = [
        {"role": "user", "content": "美妆线双11预热怎么安排？"},
        {"role": "assistant", "content": "建议双11预热期把美妆出价提高30%，预算翻倍。"},
        {"role": "user", "content": "我再想想，先别动。"},
    ]
    body = distill(brand_a, run_on_commit, session_id="s-beauty", messages=messages).json()
    assert body["candidates"] == 0 and body["decisions"] == []
    assert not Memory.objects.exists()


def test_roles_decide_attribution_not_words(brand_a, run_on_commit):
    """Assistant text claiming the user agreed earns nothing; the user's own yes does."""
    messages = [
        {"role": "assistant", "content": "建议brand_A 医药OTC冷启动期间出价上浮15%，用户已确认。"},
        {"role": "toolResult", "content": [{"type": "text", "text": '{"budget_ok": true}'}]},
        {"role": "user", "content": [{"type": "text", "text": "好的，就按这个来"}]},
    ]
    body = distill(brand_a, run_on_commit, session_id="s-roles", messages=messages).json()
    (decision,) = body["decisions"]
    assert decision["turns"] == [0, 2] and decision["action"] == "WRITE"
    assert Memory.objects.get(pk=decision["memory_id"]).source_attribution == "user_confirmed"


def test_scope_and_bad_input_are_refused(brand_a, run_on_commit):
    messages = [{"role": "user", "content": "以后医药OTC素材不要用绝对化用语"}]
    assert distill(brand_a, run_on_commit, messages=messages, advertiser="brand_B").status_code == 403
    assert distill(brand_a, run_on_commit).status_code == 422  # neither messages nor jsonl
    both = distill(brand_a, run_on_commit, messages=messages, jsonl="{}")
    assert both.status_code == 422 and "either" in str(both.json()["detail"])
    garbage = distill(brand_a, run_on_commit, jsonl='not json\n{"type": "custom"}\n')
    assert garbage.status_code == 422 and "no message entries" in garbage.json()["detail"]
    bad_range = distill(brand_a, run_on_commit, messages=messages, turn_start=5)
    assert bad_range.status_code == 422 and "empty" in bad_range.json()["detail"]
    robot = distill(brand_a, run_on_commit, messages=[{"role": "robot", "content": "出价上调"}])
    assert robot.status_code == 422 and "no user, assistant" in robot.json()["detail"]
    assert distill(brand_a, run_on_commit, session_id="  ", messages=messages).status_code == 422
    assert distill(brand_a, run_on_commit, session_id="s\x00", messages=messages).status_code == 422
    assert not Memory.objects.exists() and not DistillRun.objects.exists()


def test_source_returns_the_turns_redacted_and_scope_checked(brand_a, make_token, api_client, run_on_commit):
    messages = [
        {"role": "user", "content": "更正：brand_A 感冒药日预算上限改为5000元，对接人手机13812345678，以后按这个执行"},
    ]
    body = distill(brand_a, run_on_commit, session_id="s-pii", messages=messages).json()
    memory_id = body["decisions"][0]["memory_id"]
    assert memory_id is not None, body
    source = brand_a.get(f"/memories/{memory_id}/source").json()
    assert source["memory_id"] == memory_id and source["session_id"] == "s-pii"
    assert source["event_id"] == body["decisions"][0]["event_id"]
    (turn,) = source["turns"]
    assert turn["index"] == 0 and turn["role"] == "user" and "5000元" in turn["content"]
    assert "13812345678" not in turn["content"] and "13812345678" not in (source["raw_text"] or "")
    _, raw_b = make_token("agent-b", ["brand_B"])
    assert api_client(raw_b).get(f"/memories/{memory_id}/source").status_code == 404
    assert brand_a.get("/memories/999999/source").status_code == 404


def test_ingest_with_messages_keeps_its_turns(brand_a, run_on_commit):
    turns = [
        {"role": "assistant", "content": "建议brand_A 医药OTC冷启动期间出价上浮20%，先观察3天ROI"},
        {"role": "user", "content": "可以，就按这个执行"},
    ]
    decision = run_on_commit(lambda: brand_a.post("/ingest", {"messages": turns})).json()
    assert decision["action"] == "WRITE", decision
    source = brand_a.get(f"/memories/{decision['memory_id']}/source").json()
    assert source["session_id"] is None
    assert [(t["index"], t["role"]) for t in source["turns"]] == [(0, "assistant"), (1, "user")]


def test_text_ingest_has_raw_text_and_no_turns(brand_a, run_on_commit):
    body = {"text": "brand_A 反馈：感冒药素材不要用夸张疗效描述", "source": "user"}
    decision = run_on_commit(lambda: brand_a.post("/ingest", body)).json()
    source = brand_a.get(f"/memories/{decision['memory_id']}/source").json()
    assert source["turns"] == [] and source["session_id"] is None and "夸张疗效" in source["raw_text"]


def test_the_admin_memory_page_shows_the_source_turns(brand_a, admin_client, run_on_commit):
    body = distill(brand_a, run_on_commit, jsonl=SESSION.read_text(encoding="utf-8")).json()
    memory_id = next(d["memory_id"] for d in body["decisions"] if d["turns"] == [1, 2])
    page = admin_client.get(f"/admin/memories/memory/{memory_id}/change/").content.decode()
    assert "lingix-source-turns" in page and "sess-otc-0611" in page and "可以，就按这个执行" in page


def test_the_cli_distils_a_file_through_the_same_service(cli, tmp_path):
    code, body, err = cli("distill", str(SESSION), "--advertiser", "brand_A", "--json")
    assert code == 0, err
    assert body["session_id"] == "sess-otc-0611" and body["candidates"] == 5
    assert {tuple(d["turns"]) for d in body["decisions"]} >= {(1, 2), (5,)}
    code, again, _ = cli("distill", str(SESSION), "--advertiser", "brand_A", "--json")
    assert again["replayed"] is True
    messages = tmp_path / "chat.json"
    messages.write_text('[{"role": "user", "content": "以后美妆素材统一改用小红书种草风格的视频"}]', encoding="utf-8")
    code, body, err = cli("distill", str(messages), "--advertiser", "brand_B", "--json")
    assert code == 0 and body["session_id"] == "chat" and len(body["decisions"]) == 1, (body, err)
    code, _, err = cli("distill", str(tmp_path / "missing.jsonl"), "--json")
    assert code == 1 and err.count("\n") == 1 and "no such file" in err
