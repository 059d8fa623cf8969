"""`make run` end to end: it serves on the PORT it is given, its banner names that port
in every address and example, the banner's commands work as printed in a new shell on
the first start and on the second (when the first token name is taken), and stopping it
(TERM to make, or Ctrl-C to the terminal's process group) leaves no qcluster and no
server behind."""

from __future__ import annotations

import json
import re
import signal
import subprocess

import pytest

from tests.site.make_run import REPO, MakeRun

pytestmark = pytest.mark.slow


def run_banner(run: MakeRun) -> dict[str, str]:
    """Runs the banner's commands in one bash, as printed; returns each one's output."""
    commands = run.banner_commands()
    mark = "@@lingix-banner@@"
    script = ["set -eu"]
    for command in commands:
        script += [f"printf '\\n{mark}\\n'", command]
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=REPO, env=run.shell_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (commands, done.stdout[-2000:], done.stderr[-2000:])
    outputs = [part.strip() for part in done.stdout.split(mark)[1:]]
    assert len(outputs) == len(commands), done.stdout
    return dict(zip(commands, outputs, strict=True))


def check_banner(run: MakeRun, *, token_name: str) -> None:
    banner = run.banner()
    addresses = re.findall(r"https?://[^\s\"']+", banner)
    assert addresses and all(address.startswith(f"{run.base_url}/") or address == run.base_url for address in addresses), banner
    assert ":8000" not in banner or run.port == 8000
    outputs = run_banner(run)
    assert len(outputs) >= 4, outputs
    for command, output in outputs.items():
        if command.startswith("export "):
            assert output == "", (command, output)
        elif command == 'echo "$TOKEN"':
            assert re.fullmatch(r"lgx_[A-Za-z0-9_-]+", output), output
        elif command.startswith("curl "):
            hits = json.loads(output)["results"]
            assert hits and all(hit["advertiser"] in ("brand_A", None) for hit in hits), hits
        elif command.endswith("memory status"):
            assert "judge provider: offline" in output, output
        else:
            pytest.fail(f"a banner command this test does not check: {command}")
    assert f"--name {token_name} " in next(c for c in outputs if "token create" in c)


def test_make_run_serves_on_its_port_and_stops_with_its_scheduler(tmp_path):
    run = MakeRun(workdir=tmp_path / "make-run")
    try:
        run.start()
        run.wait_for_scheduler()
        check_banner(run, token_name="my-agent")
        # `kill PID` on make: make hands TERM to lingix_site/run.py, which stops both.
        run.stop(signal.SIGTERM, whole_group=False)
        assert run.processes() == {}, run.output()[-3000:]

        # The second start: migrated, demo loaded, my-agent taken; the banner still works.
        run.start()
        run.wait_for_scheduler()
        assert "Demo data:            already loaded" in run.banner()
        check_banner(run, token_name="my-agent-2")
        # Ctrl-C in a terminal: SIGINT to make's whole process group.
        run.stop(signal.SIGINT, whole_group=True)
        assert run.processes() == {}, run.output()[-3000:]
    finally:
        run.kill_leftovers()
