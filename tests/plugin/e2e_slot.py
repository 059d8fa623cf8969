"""The slot-mode half of `make e2e`: lingix-agent-memory holds OpenClaw's memory slot
(plugins.slots.memory = lingix-agent-memory) inside a real gateway, and these checks run in order:

  (s1) OpenClaw's own `memory_search` tool, called through /tools/invoke, answers from Lingix;
  (s2) an agent turn carries the recalled <lingix-memory> block to the model;
  (s3) a user turn confirming the assistant's suggestion is written as user_confirmed;
  (s4) a suggestion the user did not confirm is refused (not written);
  (s5) a cron-triggered turn reaches the model but is not captured;
  (s6) a capture made while Lingix is down waits in the retry queue (under the state
       directory's lingix-agent-memory/) and is delivered after Lingix comes back;
  (s7) with per-turn capture switched off (the gateway restarted with autoCapture false,
       so only distillation writes), resetting a session distils it (before_reset /
       session_end → POST /api/v1/distill) into events whose memories link back to their
       turns, which `lingix_memory_source` shows.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tests.plugin.e2e import E2E, PLUGIN_ID, say

SESSION = "agent:main:lingix-e2e"
SESSION_DOWN = "agent:main:lingix-e2e-down"
ASK_SUGGESTION = "brand_A 美妆新计划冷启动出价怎么定？"
CONFIRM = "好的，就按这个，美妆新计划冷启动出价 2.2元"
ASK_UNCONFIRMED = "双11 美妆预算怎么安排？"
NOT_CONFIRMED = "这个我再考虑一下，先看看上周的 ROI 数据"
CRON_TEXT = "定时巡检：brand_A 医药OTC 新计划出价上限调整为 9.9元"
DOWN_TEXT = "以后 brand_A 医药OTC 周末预算统一下调到 8万，周一恢复原预算，这是我们的固定规则"
SESSION_DISTILL = "agent:main:lingix-e2e-distill"
DISTILL_TURNS = [
    "更正一下：brand_A 美妆新计划的日预算上限是 6000元，不是 9000元，以后按 6000元控制。",
    "决定了：brand_A 美妆双11 期间只投抖音信息流，不投快手。",
]


def wait_for(probe, *, timeout: float, every: float = 1.0, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(every)
    raise TimeoutError(f"{what} did not happen within {timeout:.0f} s")


def turn(e2e: E2E, message: str, *, session_key: str) -> None:
    e2e.oc("agent", "--session-key", session_key, "--message", message, "--json", "--timeout", "120", timeout=240)


def event_like(e2e: E2E, mark: str) -> tuple | None:
    with e2e.db() as db:
        return db.execute(
            "SELECT id, action, source, advertiser, memory_id, reasons FROM governance_memoryevent WHERE raw_text LIKE ? ORDER BY id DESC",
            (f"%{mark}%",),
        ).fetchone()


def attribution(e2e: E2E, event_id: int) -> str:
    with e2e.db() as db:
        row = db.execute("SELECT scores FROM governance_trace WHERE event_id = ? AND stage = 'provenance'", (event_id,)).fetchone()
    return json.loads(row[0]).get("attribution", "") if row else ""


def logs(e2e: E2E) -> str:
    paths = (e2e.rundir / "gateway.log", e2e.rundir / "openclaw.log")
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in paths if p.exists())


def check_memory_search(e2e: E2E) -> dict:
    status, body = e2e.invoke("memory_search", {"query": "医药OTC 出价上限", "maxResults": 5})
    assert status == 200 and body.get("ok") is True, (status, body)
    details = body["result"].get("details") or {}
    assert details.get("provider") == "lingix", details
    ids = [r["id"] for r in details.get("results", [])]
    assert ids, body
    with e2e.db() as db:
        stored = dict(db.execute(f"SELECT id, content FROM memories_memory WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall())
    assert set(stored) == set(ids), (ids, stored)
    status, got = e2e.invoke("memory_get", {"path": f"lingix/memory/{ids[0]}"})
    text = "\n".join(p.get("text", "") for p in got["result"]["content"])
    assert status == 200 and stored[ids[0]][:30] in text, (status, got)
    say(f"(s1) OpenClaw memory_search → Lingix memories {ids}; memory_get lingix/memory/{ids[0]}: {stored[ids[0]][:40]}")
    return {"ids": ids}


def check_confirmation(e2e: E2E) -> dict:
    turn(e2e, ASK_SUGGESTION, session_key=SESSION)
    turn(e2e, CONFIRM, session_key=SESSION)
    row = wait_for(lambda: event_like(e2e, "就按这个"), timeout=60, what="the confirming turn's capture")
    event_id, action, source, advertiser, memory_id, _ = row
    who = attribution(e2e, event_id)
    assert (action, source, advertiser, who) == ("WRITE", "user", "brand_A", "user_confirmed"), (row, who)
    with e2e.db() as db:
        content, stored_attr = db.execute("SELECT content, source_attribution FROM memories_memory WHERE id = ?", (memory_id,)).fetchone()
    assert "建议" in content and "2.2元" in content and stored_attr == "user_confirmed", (content, stored_attr)
    say(f"(s3) assistant suggestion + user '好的，就按这个' → event #{event_id} WRITE memory #{memory_id} as {stored_attr}: {content[:60]}")
    return {"event_id": event_id, "memory_id": memory_id, "attribution": stored_attr}


def check_unconfirmed(e2e: E2E) -> dict:
    turn(e2e, ASK_UNCONFIRMED, session_key=SESSION)
    turn(e2e, NOT_CONFIRMED, session_key=SESSION)
    row = wait_for(lambda: event_like(e2e, "再考虑一下"), timeout=60, what="the non-confirming turn's capture")
    event_id, action, _, _, memory_id, reasons = row
    who = attribution(e2e, event_id)
    assert action != "WRITE" and memory_id is None and who != "user_confirmed", (row, who)
    with e2e.db() as db:
        raw = db.execute("SELECT raw_text FROM governance_memoryevent WHERE id = ?", (event_id,)).fetchone()[0]
        written = db.execute("SELECT COUNT(*) FROM memories_memory WHERE content LIKE '%300万%'").fetchone()[0]
    assert "assistant: 建议" in raw and "300万" in raw, raw
    assert written == 0, "the unconfirmed 300万 suggestion became a memory"
    why = json.loads(reasons)[:1]
    say(f"(s4) suggestion '预算提高到 300万' answered '{NOT_CONFIRMED[:10]}…' → event #{event_id} {action} ({who}): {why}")
    return {"event_id": event_id, "action": action, "attribution": who}


def check_cron(e2e: E2E) -> dict:
    before = e2e.model_record.read_text(encoding="utf-8").count("\n")
    added = json.loads(
        e2e.oc(
            "cron",
            "add",
            "--name",
            "lingix-e2e-cron",
            "--every",
            "1h",
            "--agent",
            "main",
            "--session",
            "isolated",
            "--no-deliver",
            "--message",
            CRON_TEXT,
            "--json",
        ).stdout
    )
    job_id = added.get("id") or added.get("job", {}).get("id") or added.get("jobId")
    assert job_id, added
    e2e.oc("cron", "run", str(job_id), "--wait", "--wait-timeout", "3m", timeout=240)
    wait_for(
        lambda: CRON_TEXT in "\n".join(e2e.model_record.read_text(encoding="utf-8").splitlines()[before:]),
        timeout=60,
        what="the cron turn's model request",
    )
    time.sleep(5)  # give agent_end its chance to (wrongly) capture
    assert event_like(e2e, "9.9元") is None, "the cron turn was captured"
    skipped = re.findall(r"auto-capture skipped: ([^\"\n]*cron[^\"\n]*)", logs(e2e))
    say(f"(s5) cron job {job_id} ran a turn (model saw it); no ingest event; plugin log: {skipped[:1]}")
    return {"job": job_id, "skipped": skipped[:1]}


def queue_files(e2e: E2E) -> list[Path]:
    return list(e2e.home.rglob("retry-queue.json"))


def queued_jobs(e2e: E2E) -> int:
    total = 0
    for path in queue_files(e2e):
        try:
            total += len(json.loads(path.read_text(encoding="utf-8")).get("jobs", []))
        except ValueError:
            pass
    return total


def check_retry_queue(e2e: E2E) -> dict:
    e2e.lingix.stop()
    say("lingix server stopped")
    try:
        turn(e2e, DOWN_TEXT, session_key=SESSION_DOWN)
        waiting = wait_for(lambda: queued_jobs(e2e), timeout=30, what="the failed capture reaching the retry queue")
        files = queue_files(e2e)
        assert [f.parent.name for f in files] == [PLUGIN_ID], files
    finally:
        e2e.lingix.start()
    say(f"lingix server back on the same port (pid {e2e.lingix.proc.pid}); {waiting} job(s) waiting in {files[0].relative_to(e2e.rundir)}")
    row = wait_for(lambda: event_like(e2e, "8万"), timeout=90, what="the queued capture's delivery")
    wait_for(lambda: queued_jobs(e2e) == 0 or None, timeout=30, what="the retry queue emptying")
    event_id, action, source, advertiser, _, _ = row
    assert (source, advertiser) == ("user", "brand_A"), row
    assert action == "WRITE", row  # delivered and written, not merely delivered
    say(f"(s6) capture made while Lingix was down → retry queue → event #{event_id} {action} after restart; queue empty")
    return {"event_id": event_id, "action": action, "queued": waiting}


def restart_gateway_without_capture(e2e: E2E) -> None:
    from tests.plugin.server import stop_process

    stop_process(e2e.gateway)
    e2e.procs.remove(e2e.gateway)
    config_path = e2e.home / ".openclaw" / "openclaw.json"
    config = json.loads(config_path.read_text())
    config["plugins"]["entries"][PLUGIN_ID]["config"]["autoCapture"] = False
    config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False))
    e2e.start_gateway()
    say("gateway restarted with autoCapture false: from here only session distillation writes")


def check_distill(e2e: E2E, *, fallback_memory: int) -> dict:
    restart_gateway_without_capture(e2e)
    with e2e.db() as db:
        last_event = db.execute("SELECT COALESCE(MAX(id), 0) FROM governance_memoryevent").fetchone()[0]
    for text in DISTILL_TURNS:
        turn(e2e, text, session_key=SESSION_DISTILL)
    with e2e.db() as db:
        captured = db.execute(
            "SELECT COUNT(*) FROM governance_memoryevent WHERE id > ? AND (raw_text LIKE '%6000元%' OR raw_text LIKE '%不投快手%')",
            (last_event,),
        ).fetchone()[0]
    assert captured == 0, f"{captured} events were written with autoCapture off"
    pattern = re.compile(r"distilled session (\S+) \(([^)]*)\): (\d+) candidates([^\"\n]*)")
    seen = len(pattern.findall(logs(e2e)))
    e2e.oc("gateway", "call", "sessions.reset", "--params", json.dumps({"key": SESSION_DISTILL}), "--json", timeout=120)
    found = wait_for(lambda: pattern.findall(logs(e2e))[seen:], timeout=90, what="the session's distillation")
    session_id, hook, candidates, outcome = found[0]
    with e2e.db() as db:
        events = db.execute(
            "SELECT id, action, memory_id, source_turns FROM governance_memoryevent WHERE id > ? AND session_id = ? ORDER BY id",
            (last_event, session_id),
        ).fetchall()
    assert events, f"distillation of {session_id} left no events ({candidates} candidates{outcome})"
    for event_id, _, _, turns in events:
        turns = json.loads(turns)
        assert turns and all({"index", "role", "content"} <= set(t) for t in turns), (event_id, turns)
        assert turns[-1]["role"] == "user" and not any("lingix-memory" in t["content"] for t in turns), (event_id, turns)
    ops = e2e.lingix.tokens["plugin-ops"]
    linked = []
    for event_id, action, memory_id, _ in events:
        if memory_id:
            status, source = e2e.lingix.call("GET", f"/memories/{memory_id}/source", token=ops)
            assert status == 200 and source["turns"], (status, source)
            linked.append(
                {
                    "event": event_id,
                    "action": action,
                    "memory": memory_id,
                    "session": source["session_id"],
                    "turns": [t["index"] for t in source["turns"]],
                }
            )
    summary = [(eid, action, [t["index"] for t in json.loads(turns)]) for eid, action, _, turns in events]
    say(
        f"(s7) sessions.reset → {hook} → POST /distill of session {session_id}: {candidates} candidates; "
        f"events (id, action, turns) {summary}; memories → source {linked}"
    )
    own = next((link["memory"] for link in linked if link["session"] == session_id), None)
    memory = own or fallback_memory
    status, body = e2e.invoke("lingix_memory_source", {"memory_id": memory})
    text = "\n".join(p.get("text", "") for p in body["result"]["content"])
    expected = [f"session {session_id}", "[turn "] if own else ["[turn "]
    assert status == 200 and all(mark in text for mark in expected), (status, body)
    assert own, f"no memory written by the distillation links back to session {session_id}: {linked}"
    say(f"     lingix_memory_source #{memory}: {' | '.join(text.splitlines()[:3])[:160]}")
    return {"session_id": session_id, "events": summary, "linked": linked}


def slot_checks(e2e: E2E) -> dict:
    results = {"s1": check_memory_search(e2e), "s2": e2e.check_agent_turn(), "s3": check_confirmation(e2e)}
    results["s4"] = check_unconfirmed(e2e)
    results["s5"] = check_cron(e2e)
    results["s6"] = check_retry_queue(e2e)
    results["s7"] = check_distill(e2e, fallback_memory=results["s3"]["memory_id"])
    return results
