"""The CLI from a new shell: after `make run` the printed commands work without the
Makefile's exports (the settings file it leaves behind), real environment variables win,
and only the commands that run the judge need one. The startup banner's own commands run
as printed against `make run` in tests/site/test_make_run.py."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lingix_site.envfile import parse_env_text, write_env_file
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _memory(env, *argv, timeout=120):
    return subprocess.run([sys.executable, "manage.py", *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """A migrated database, and an environment with no judge provider at all."""
    root = tmp_path_factory.mktemp("fresh")
    env = isolated_env(DJANGO_SETTINGS_MODULE="lingix_site.settings", DATABASE_URL=f"sqlite:///{root / 'fresh.db'}")
    done = _memory(env, "migrate", "--noinput", timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return root, env


def test_read_only_and_maintenance_commands_need_no_judge(migrated):
    root, env = migrated
    for argv in (
        ["status"],
        ["token", "create", "--name", "agent-ops", "--advertisers", "brand_A", "--can-review"],
        ["token", "list"],
        ["search", "双11 出价"],
        ["export", "--output", str(root / "all.jsonl")],
        ["backup", str(root / "copy.db")],
        ["maintain", "--task", "expire"],
    ):
        result = _memory(env, "memory", *argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert "Traceback" not in result.stderr
    status = _memory(env, "memory", "status")
    assert "judge provider: none" in status.stdout and "MEMORY_LLM_PROVIDER=offline" in status.stdout
    listed = _memory(env, "memory", "token", "list").stdout
    assert "agent-ops" in listed and "review: yes" in listed
    as_json = json.loads(_memory(env, "memory", "status", "--json").stdout)
    assert as_json["provider"] == "none" and as_json["time_zone"] == "Asia/Shanghai"
    # Without --json a person reads text, not a JSON document.
    exported = _memory(env, "memory", "export", "--output", str(root / "again.jsonl")).stdout
    assert exported.startswith("exported ") and not exported.lstrip().startswith("{")


def test_a_judge_command_refuses_in_one_line_naming_both_ways_out(migrated):
    _, env = migrated
    result = _memory(env, "memory", "ingest", "用户纠正：brand_A 美妆类目出价不要超过1.5元", "--source", "user")
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "MEMORY_LLM_API_KEY" in lines[0] and "MEMORY_LLM_PROVIDER=offline" in lines[0]


def test_the_settings_file_make_run_writes_makes_the_printed_commands_work(migrated, tmp_path):
    _, env = migrated
    settings_file = write_env_file(
        {"MEMORY_LLM_PROVIDER": "offline", "MEMORY_LLM_API_KEY": "sk-never-written", "DATABASE_URL": env["DATABASE_URL"]},
        path=tmp_path / ".lingix.env",
    )
    text = settings_file.read_text(encoding="utf-8")
    assert parse_env_text(text) == {"MEMORY_LLM_PROVIDER": "offline", "DATABASE_URL": env["DATABASE_URL"]}
    assert "sk-never-written" not in text

    # A new shell: nothing exported but the file's location.
    shell = {**env, "LINGIX_ENV_FILE": str(settings_file)}
    shell.pop("DATABASE_URL")
    written = _memory(
        shell, "memory", "ingest", "用户纠正：brand_A 美妆类目出价不要超过1.5元", "--source", "user", "--advertiser", "brand_A", "--json"
    )
    assert written.returncode == 0, written.stderr
    assert json.loads(written.stdout)["action"] in {"WRITE", "PENDING_REVIEW"}

    # A variable set in the environment wins over the file.
    overridden = _memory({**shell, "MEMORY_LLM_PROVIDER": "gateway"}, "memory", "ingest", "x")
    assert overridden.returncode == 1 and "'gateway' is not a provider" in overridden.stderr


def test_the_makefile_writes_the_file_and_git_ignores_it():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    run_target = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "lingix_site.envfile write" in run_target
    ignored = subprocess.run(["git", "check-ignore", ".lingix.env"], cwd=REPO, capture_output=True, text=True)
    assert ignored.returncode == 0
