"""The short soak: a real runserver and a real qcluster on one SQLite file, API writes and
searches, every lifecycle task every few seconds (bench/soak.py does the work)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_short_soak_has_no_lock_errors_no_lost_writes_and_no_5xx():
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--seconds", "10", "--task-interval", "2", "--json", "--quiet"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.stdout.strip(), done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["lock_errors"] == 0, result["lock_errors_by_place"]
    assert result["http_5xx"] == 0, result["samples"]["5xx"]
    assert result["lost_writes"] == 0, result["writes"]
    writes = result["writes"]
    assert writes["memories_written"] > 0 and writes["missing"] == writes["content_hash_mismatches"] == 0
    assert writes["events_recorded"] == writes["accepted_requests"] and not writes["rows_deleted"]
    assert result["requests"]["search"] > 0
    for task, runs in result["tasks"].items():
        assert runs["succeeded"] >= 1 and runs["failed"] == 0, (task, result["samples"]["task_failures"])
    lifecycle = result["lifecycle"]
    assert lifecycle["memory_status"].get("expired", 0) > 0 and lifecycle["memory_status"].get("archived", 0) > 0
    assert lifecycle["l4_templates_promoted"] > 0 and lifecycle["reflection_reports"] > 0
    assert result["ok"] and done.returncode == 0
