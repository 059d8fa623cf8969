"""The README's five-minute walk, run as printed: its shell blocks, in order, in one bash
against a real server (runserver on a free port on 127.0.0.1, a throwaway SQLite file,
real migrations, `memory bootstrap` as `make run` calls it, the offline judge). The one
change is the line that says where the server is, `export LINGIX=http://127.0.0.1:8000`,
which points at the test's port. Then the MCP Python client of docs/mcp.md, as printed,
in the same shell's environment."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.plugin.server import LingixServer

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
MCP_DOC = REPO / "docs" / "mcp.md"
PRINTED_ADDRESS = "export LINGIX=http://127.0.0.1:8000"
MARK = "@@lingix-walk-block@@"


def walk_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## A five-minute walk\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def mcp_snippet() -> str:
    text = MCP_DOC.read_text(encoding="utf-8")
    block = text.split("<!-- mcp-python:start -->\n", 1)[1].split("<!-- mcp-python:end -->", 1)[0]
    return re.fullmatch(r"```python\n(.*)```\n", block, flags=re.S).group(1)


class WalkServer(LingixServer):
    """What `make run` leaves behind: migrations, the admin account and the demo data."""

    def prepare(self) -> WalkServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("memory", "bootstrap")
        return self


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with WalkServer(workdir=tmp_path_factory.mktemp("readme-walk")) as running:
        yield running


def test_the_walk_has_the_steps_the_readme_promises():
    blocks = walk_blocks()
    assert sum(line.strip() == PRINTED_ADDRESS for block in blocks for line in block.splitlines()) == 1
    for step in ("memory token create", "/api/v1/ingest", "/api/v1/search", "/api/v1/recall"):
        assert any(step in block for block in blocks), step


def decision(output: str) -> dict:
    body = json.loads(output)
    assert {"action", "layer", "memory_id", "event_id", "reasons"} <= set(body), body
    return body


def test_every_block_of_the_walk_runs_as_printed(server, tmp_path):
    assert (REPO / ".venv" / "bin" / "python").exists(), "the walk calls .venv/bin/python: run `make test`, which creates it"
    blocks = walk_blocks()
    script = ["set -u"]
    for block in blocks:
        script += [f"printf '\\n{MARK}\\n'", block.replace(PRINTED_ADDRESS, f"export LINGIX={server.base_url}")]
    # The MCP client reads what the walk exported, so the shell hands its environment on.
    script += [f"printf '\\n{MARK}\\n'", 'echo "TOKEN=$TOKEN"']
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=REPO, env=server.env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    outputs = [part.strip() for part in done.stdout.split(MARK)[1:]]
    assert len(outputs) == len(blocks) + 1, done.stdout

    written = None
    checked = 0
    for block, output in zip(blocks, outputs[:-1], strict=True):
        if block.strip() == PRINTED_ADDRESS:
            assert output == ""
        elif "memory token create" in block:
            assert re.fullmatch(r"lgx_[A-Za-z0-9_-]+", output), (output, done.stderr)
        elif "/api/v1/ingest" in block and "平台规定" in block:
            # A rule claimed by a user waits for an operator.
            parked = decision(output)
            assert parked["action"] == "PENDING_REVIEW" and parked["review_item_id"], parked
        elif "/api/v1/ingest" in block:
            written = decision(output)
            assert written["action"] == "WRITE" and written["layer"] == "L2" and written["memory_id"], written
        elif "/api/v1/search" in block:
            results = json.loads(output)["results"]
            assert written and written["memory_id"] in [hit["id"] for hit in results], results
            assert all(hit["advertiser"] in ("brand_A", None) for hit in results)
        elif "/api/v1/recall" in block:
            recalled = json.loads(output)
            assert recalled["context"].startswith("<lingix-memory>") and recalled["tokens"] <= 200, recalled
            assert written and written["memory_id"] in [memory["id"] for memory in recalled["memories"]], recalled
            assert "竖版视频" in recalled["context"]
        else:
            pytest.fail(f"a README walk block this test does not check: {block}")
        checked += 1
    assert checked == len(blocks)

    token = outputs[-1].removeprefix("TOKEN=")
    snippet = tmp_path / "mcp_search.py"
    snippet.write_text(mcp_snippet(), encoding="utf-8")
    mcp = subprocess.run(
        [".venv/bin/python", str(snippet)],
        cwd=REPO,
        env={**server.env(), "LINGIX": server.base_url, "TOKEN": token},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert mcp.returncode == 0, mcp.stderr
    tools_line, result = mcp.stdout.split("\n", 1)
    assert {"search", "recall", "ingest", "trigger", "get", "source"} <= set(tools_line.removeprefix("tools: ").split(", "))
    assert "review_list" not in tools_line  # the walk's token may not review
    assert written["memory_id"] in [hit["id"] for hit in json.loads(result)["results"]]
