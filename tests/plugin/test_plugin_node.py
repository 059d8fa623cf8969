"""Plugin tier 1: `node --test` runs the OpenClaw plugin (registered into a recording fake
`api`) against a live Lingix server in a subprocess; then the database is checked for
what the plugin's auto-capture left behind."""

import os
import shutil
import sqlite3
import subprocess

import pytest

from tests.plugin.server import REPO, LingixServer

PLUGIN = REPO / "openclaw_plugin"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LingixServer(workdir=tmp_path_factory.mktemp("lingix-plugin")) as running:
        yield running


def test_node_suite_against_live_server(server):
    env = {
        **os.environ,
        "LINGIX_BASE_URL": server.base_url,
        "LINGIX_KEY_A": server.tokens["plugin-a"],
        "LINGIX_KEY_OPS": server.tokens["plugin-ops"],
    }
    done = subprocess.run(
        ["node", "--test", "--test-reporter=spec", "test/"], cwd=PLUGIN, env=env, capture_output=True, text=True, timeout=300
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert "# fail 0" in report or "fail 0" in report
    assert "skipped 0" in report or "# skipped 0" in report or "SKIP" not in report

    # The capture hook's statement arrived as a user-sourced event of the plugin's token,
    # decided by the funnel with a trace for each stage.
    with sqlite3.connect(server.db_path) as db:
        rows = db.execute(
            "SELECT id, action, source, actor, advertiser, idempotency_key FROM governance_memoryevent WHERE raw_text LIKE '%1.6元%'"
        ).fetchall()
        assert len(rows) == 1, rows
        event_id, action, source, actor, advertiser, key = rows[0]
        assert (action, source, actor, advertiser) == ("WRITE", "user", "token:plugin-a", "brand_A")
        assert key.startswith("oc:")
        stages = [s for (s,) in db.execute("SELECT stage FROM governance_trace WHERE event_id = ? ORDER BY seq", (event_id,))]
        assert len(stages) >= 3 and "value" in stages, stages
        raw = db.execute("SELECT raw_text FROM governance_memoryevent WHERE id = ?", (event_id,)).fetchone()[0]
        assert "lingix-memory" not in raw
