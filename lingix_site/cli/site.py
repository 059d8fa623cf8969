"""status, bootstrap, seed-demo: the subcommands about the whole running site."""
from __future__ import annotations

import json
from typing import Any

from governance.status import status_overview
from lingix_site.bootstrap import bootstrap, login_instructions
from lingix_site.demo import demo_load_once
from memories.cli.base import Subcommand


# --- status ---------------------------------------------------------------------
def _status_args(parser) -> None:
    pass


def _status_run(args) -> dict[str, Any]:
    return status_overview(advertisers=None)


def _status_render(result: dict[str, Any]) -> str:
    lines = [f"provider: {result['provider']}"]
    lines.append("active memories: " + ", ".join(f"{k}={v}" for k, v in result["memories"].items()))
    lines.append("by status: " + ", ".join(f"{k}={v}" for k, v in result["by_status"].items()))
    emb = result["embeddings"]
    lines.append(f"embeddings: {emb['current']}/{result['total']} current ({emb['model']}, {emb['dimension']}d)")
    for key, value in result.items():
        if key not in {"provider", "memories", "by_status", "embeddings", "total"}:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def _seed_demo_run(args) -> dict[str, Any]:
    return demo_load_once()


def _bootstrap_run(args) -> dict[str, Any]:
    return bootstrap()


def _bootstrap_render(result: dict[str, Any]) -> str:
    return login_instructions(result)


COMMANDS = [
    Subcommand("status", "counts by layer and status, embedding coverage, provider, schedules", _status_args, _status_run, _status_render),
    Subcommand(
        "bootstrap", "first run: create the admin account and load demo data (both once)", _status_args, _bootstrap_run, _bootstrap_render
    ),
    Subcommand("seed-demo", "load the bundled demo memories unless they were loaded before", _status_args, _seed_demo_run),
]
