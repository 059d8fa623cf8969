"""What the README and the API docs print, run as printed against `make run` itself (the
real Makefile target on a free port of 127.0.0.1, a throwaway SQLite file, the offline
judge it defaults to; tests/site/make_run.py):

- every ```bash block of README.md, in order, in one bash; the one change is the line
  that says where the server is (`export LINGIX=http://127.0.0.1:8000`, which the README
  calls the line to change for another PORT). A block whose first line is a
  `# not run by tests/site/test_readme_walk.py: <why>` comment is skipped, and says why
  in the README itself;
- the README's inline `.venv/bin/python manage.py …` commands;
- the MCP Python client of docs/mcp.md, in the walk's environment;
- the request examples of /api/v1/openapi.json (what /api/v1/docs offers to send) for
  ingest, trigger, search, recall and GET /memories/{memory_id}, with the token the
  startup banner's command creates."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest

from tests.site.make_run import REPO, MakeRun

pytestmark = pytest.mark.slow

README = REPO / "README.md"
MCP_DOC = REPO / "docs" / "mcp.md"
PRINTED_ADDRESS = "export LINGIX=http://127.0.0.1:8000"
NOT_RUN = "# not run by tests/site/test_readme_walk.py:"
MARK = "@@lingix-walk-block@@"


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def run_blocks() -> list[str]:
    return [block for block in bash_blocks() if not block.startswith(NOT_RUN)]


def mcp_snippet() -> str:
    text = MCP_DOC.read_text(encoding="utf-8")
    block = text.split("<!-- mcp-python:start -->\n", 1)[1].split("<!-- mcp-python:end -->", 1)[0]
    return re.fullmatch(r"```python\n(.*)```\n", block, flags=re.S).group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    run = MakeRun(workdir=tmp_path_factory.mktemp("readme-walk"))
    try:
        yield run.start()
    finally:
        run.kill_leftovers()


def test_every_skipped_block_says_why_and_the_walk_has_its_steps():
    skipped = [block for block in bash_blocks() if block not in run_blocks()]
    for block in skipped:
        assert len(block.splitlines()[0].removeprefix(NOT_RUN).strip()) > 20, block
    assert all(line.startswith(("#", "make ")) for block in skipped for line in block.splitlines()), skipped
    blocks = run_blocks()
    assert sum(line.strip() == PRINTED_ADDRESS for block in blocks for line in block.splitlines()) == 1
    for step in ("memory token create", "/api/v1/ingest", "/api/v1/search", "/api/v1/recall"):
        assert any(step in block for block in blocks), step


def decision(output: str) -> dict:
    body = json.loads(output)
    assert {"action", "layer", "memory_id", "event_id", "reasons"} <= set(body), body
    return body


def test_every_readme_command_runs_as_printed(server, tmp_path):
    assert (REPO / ".venv" / "bin" / "python").exists(), "the walk calls .venv/bin/python: run `make test`, which creates it"
    blocks = run_blocks()
    script = ["set -u"]
    for block in blocks:
        script += [f"printf '\\n{MARK}\\n'", block.replace(PRINTED_ADDRESS, f"export LINGIX={server.base_url}")]
    # The MCP client reads what the walk exported, so the shell hands its environment on.
    script += [f"printf '\\n{MARK}\\n'", 'echo "TOKEN=$TOKEN"']
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=REPO, env=server.shell_env(), capture_output=True, text=True, timeout=600)
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
            pytest.fail(f"a README block this test does not check: {block}")
        checked += 1
    assert checked == len(blocks)

    inline = re.findall(r"`(\.venv/bin/python manage\.py [^`]+)`", README.read_text(encoding="utf-8"))
    assert inline
    for command in inline:
        ran = subprocess.run(["bash", "-c", command], cwd=REPO, env=server.shell_env(), capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0 and ran.stdout.strip() and "Traceback" not in ran.stderr, (command, ran.stderr)

    token = outputs[-1].removeprefix("TOKEN=")
    snippet = tmp_path / "mcp_search.py"
    snippet.write_text(mcp_snippet(), encoding="utf-8")
    mcp = subprocess.run(
        [".venv/bin/python", str(snippet)],
        cwd=REPO,
        env={**server.shell_env(), "LINGIX": server.base_url, "TOKEN": token},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert mcp.returncode == 0, mcp.stderr
    tools_line, result = mcp.stdout.split("\n", 1)
    assert {"search", "recall", "ingest", "trigger", "get", "source"} <= set(tools_line.removeprefix("tools: ").split(", "))
    assert "review_list" not in tools_line  # the walk's token may not review
    assert written["memory_id"] in [hit["id"] for hit in json.loads(result)["results"]]


def test_every_npx_command_printed_names_its_version():
    # `npx @modelcontextprotocol/inspector` without a version resolves to whatever the
    # machine's Node allows, which may lack the flags the docs use.
    pages = [README, *sorted((REPO / "docs").glob("*.md")), REPO / "openclaw_plugin" / "README.md"]
    commands = [c for page in pages for c in re.findall(r"\bnpx\s+(?:-\S+\s+)*(\S+)", page.read_text(encoding="utf-8"))]
    assert commands
    for command in commands:
        assert re.search(r"@\d+\.\d+\.\d+$", command), command


def banner_token(server: MakeRun) -> str:
    """The token the startup banner's command creates, made by running that line."""
    create = next(c for c in server.banner_commands() if "memory token create" in c)
    done = subprocess.run(
        ["bash", "-c", f'{create}\necho "$TOKEN"'], cwd=REPO, env=server.shell_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def send(server: MakeRun, method: str, path: str, token: str, body=None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{server.base_url}{path}",
        data=None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8"),
        method=method.upper(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


MAIN_BODIES = ("/api/v1/ingest", "/api/v1/trigger", "/api/v1/search", "/api/v1/recall")


def test_the_api_docs_examples_work_with_the_banners_token(server):
    token = banner_token(server)
    with urllib.request.urlopen(f"{server.base_url}/api/v1/openapi.json", timeout=60) as response:
        schema = json.loads(response.read())
    sent = []
    for path in MAIN_BODIES:
        examples = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]["examples"]
        assert examples, path
        for name, example in examples.items():
            status, body = send(server, "post", path, token, example["value"])
            assert 200 <= status < 300, (path, name, status, body)
            if path in ("/api/v1/ingest", "/api/v1/trigger"):
                # An example the funnel refuses teaches the wrong request.
                assert body["action"] != "REJECT", (path, name, body)
            sent.append((path, name))
    operation = schema["paths"]["/api/v1/memories/{memory_id}"]["get"]
    parameters = {p["name"]: p["example"] for p in operation["parameters"]}
    path = f"/api/v1/memories/{parameters.pop('memory_id')}"
    for query in ({}, parameters):
        status, body = send(server, "get", f"{path}?{urlencode(query)}" if query else path, token)
        assert 200 <= status < 300, (path, query, status, body)
    assert len(sent) >= 12, sent
