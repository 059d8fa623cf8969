"""memory suggestions: open suggestions (a live L3 signal and the playbooks that apply)."""

from __future__ import annotations

from typing import Any

from memories.cli.base import Subcommand


def _suggestions_args(parser) -> None:
    parser.add_argument("--advertiser", help="that advertiser's suggestions plus global ones (omit: every advertiser)")
    parser.add_argument("--limit", type=int, default=20, help="at most this many, newest first (default 20)")


def _suggestions_run(args) -> dict[str, Any]:
    from governance.knowledge.selectors import suggestion_dict, suggestions_open

    advertisers = (args.advertiser,) if args.advertiser else None
    return {"items": [suggestion_dict(s) for s in suggestions_open(advertisers=advertisers, limit=args.limit)]}


def _suggestions_render(result: dict[str, Any]) -> str:
    if not result["items"]:
        return "no open suggestions"
    lines = []
    for item in result["items"]:
        signal = item["signal"]
        scope = item["advertiser"] or "global"
        lines.append(f"#{item['id']} {item['kind']} {item['topic']} · {scope} · L3 #{signal['id']} {signal['content'][:60]}")
        lines += [f"    {p['layer']} #{p['id']} ({p['score']}) {p['content'][:60]}" for p in item["templates"] + item["strategies"]]
    return "\n".join(lines)


COMMANDS = [
    Subcommand(
        "suggestions",
        "open suggestions: live L3 signals with the L2 strategies and L4 templates that apply",
        _suggestions_args,
        _suggestions_run,
        _suggestions_render,
    ),
]
