"""The `memory` dispatcher as a separate process: it refuses to start a command that runs
the judge when no provider is configured, in one line and without a traceback (read-only and
maintenance commands run without one: tests/site/test_cli_fresh_shell.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [["ingest", "用户要求出价不超过1元"], ["trigger", "user_feedback", "--summary", "x"]])
def test_memory_commands_refuse_to_start_without_a_provider(argv, tmp_path):
    env = isolated_env(DJANGO_SETTINGS_MODULE="lingix_site.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'refuse.db'}")
    result = subprocess.run([sys.executable, "manage.py", "memory", *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "MEMORY_LLM_API_KEY" in lines[0] and "MEMORY_LLM_PROVIDER=offline" in lines[0]
    assert result.stdout == ""
