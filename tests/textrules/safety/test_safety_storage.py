"""The whole hostile corpus through the real funnel into a real SQLite file, with review
notes and audit rows quoting the same values: not one value may be found in the database
or WAL file bytes, raw, JSON-escaped or lowercased."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.subprocess_env import isolated_env
from tests.textrules.safety.safety_corpus import HOSTILE, leaks

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    db = tmp_path_factory.mktemp("safety") / "lingix.db"
    env = isolated_env(DATABASE_URL=f"sqlite:///{db}", MEMORY_LLM_PROVIDER="offline", MEMORY_ACCESS_ASYNC="0")
    done = subprocess.run(
        [sys.executable, "-m", "tests.textrules.safety.safety_store_corpus"],
        cwd=ROOT,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return db, json.loads(done.stdout.strip().splitlines()[-1])


def test_every_credential_is_refused_and_personal_data_may_still_be_written(stored):
    _, report = stored
    decisions = report["decisions"]
    assert set(decisions) == {c["id"] for c in HOSTILE}
    assert {decisions[c["id"]] for c in HOSTILE if c["kind"] == "credential"} == {"REJECT"}
    assert "WRITE" in {decisions[c["id"]] for c in HOSTILE if c["kind"] == "personal"}


def test_no_value_is_in_the_database_or_wal_bytes_while_open(stored):
    _, report = stored
    assert report["sizes"].get("lingix.db-wal", 0) > 0  # the WAL really was there to read
    assert report["found"] == {"lingix.db": [], "lingix.db-wal": []}


def test_no_value_is_in_the_database_file_after_the_process_ended(stored):
    db, _ = stored
    blob = db.read_bytes() + (Path(f"{db}-wal").read_bytes() if Path(f"{db}-wal").exists() else b"")
    assert [c["id"] for c in HOSTILE if leaks(blob, c)] == []
