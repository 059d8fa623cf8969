"""`memory --help` loads only what a help text needs: no numpy, no model client, no
embedder, no judge that is built on demand, no word segmenter. (How long it takes is
measured by bench.cli_help, not asserted here.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = (
    "numpy",
    "openai",
    "onnxruntime",
    "jieba",
    "memories.embeddings.local",
    "memories.search.vectors",
    "judges.chat",
    "judges.openai_judge",
    "judges.doubtmem",
)


@pytest.mark.parametrize("argv", [["--help"], ["search", "--help"], ["list", "--help"], ["show", "--help"]], ids=" ".join)
def test_help_imports_no_heavy_module(argv):
    probe = (
        "import json, sys, django; django.setup()\n"
        "from lingix_site.management.commands.memory import Command\n"
        "try:\n"
        f"    Command().run_from_argv(['manage.py', 'memory', *{argv!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lingix_site.test_settings"}
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "usage: manage.py memory" in run.stdout
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
