"""Erasure reaches the files: a memory with a conversation source (role-tagged turns), two
versions and review history is erased through `memory erase` on a real SQLite file
database (tests/security/erase_probe.py, in a subprocess), and no byte of its words is left
in the database file or its WAL; a tombstone per version names who and why, and the same
conversation sent again is refused naming the tombstone."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lingix_site.settings import DATABASES

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3", reason="reads SQLite files")


@pytest.fixture(scope="module")
def probe():
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "security" / "erase_probe.py")], capture_output=True, text=True, timeout=600, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_words_were_in_the_files_before(probe):
    assert probe["decision"] == "WRITE"
    assert probe["before"] == {"versions": 2, "review_items": 1}
    # The control: every marker was stored before the erase, or finding none after means nothing.
    assert len(probe["seen_before"]) == 5


def test_no_byte_of_the_words_is_left_in_the_database_files(probe):
    assert probe["exit"] == 0
    assert probe["erased"]["erased"] == 2
    assert probe["erased"]["storage"] == {"vendor": "sqlite", "vacuumed": True, "wal_truncated": True}
    assert probe["left"] and all(found == [] for found in probe["left"].values()), probe["left"]
    assert probe["files"].get("bench.db-wal", 0) == 0


def test_the_shared_vector_file_keeps_no_vector_of_the_erased_memory(probe):
    # The control: the file held the vectors before, or finding none after means nothing.
    assert probe["vectors_before"] >= 1
    assert probe["vector_file"].startswith("bench.db.") and probe["vector_file"] in probe["files"]
    assert all(count == 0 for count in probe["vectors_left"].values()), probe["vectors_left"]


def test_each_version_leaves_a_tombstone_naming_who_and_why(probe):
    stones = probe["tombstones"]
    assert len(stones) == 2
    assert {(s["erased_by"], s["reason"], s["layer"], s["advertiser"]) for s in stones} == {
        ("cli:ops", "客户依 PIPL 要求删除", "L2", "brand_A")
    }


def test_the_same_conversation_sent_again_is_refused_naming_the_tombstone(probe):
    assert probe["refusal"].startswith("this text was erased (tombstone #")
    assert "客户依 PIPL 要求删除" in probe["refusal"]
