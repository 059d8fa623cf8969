"""The `memory` command's plumbing: each subcommand is a small object that parses its
arguments, calls one service or selector, and returns a JSON-able dict."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm


class CliError(Exception):
    """A one-line error for the operator (exit code 1)."""


@dataclass
class Subcommand:
    name: str
    help: str
    add_arguments: Callable[[Any], None]
    run: Callable[[Any], dict[str, Any]]
    render: Callable[[dict[str, Any]], str] | None = None
    # Only the subcommands that run the judge refuse to start without a provider; every
    # read-only or maintenance command works with none configured.
    needs_provider: bool = False


def plain_text(result: dict[str, Any]) -> str:
    """Without --json a person reads the result: one `key: value` line per field, nested
    values flattened with dots, so no subcommand prints raw JSON by default."""
    lines: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for key, inner in value.items():
                if not str(key).startswith("_"):
                    walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, dict):
            lines.append(f"{prefix}: (none)")
        elif isinstance(value, list):
            scalar = all(not isinstance(v, (dict, list)) for v in value)
            if scalar:
                lines.append(f"{prefix}: {', '.join(str(v) for v in value) if value else '(none)'}")
            else:
                for index, inner in enumerate(value, start=1):
                    walk(f"{prefix}[{index}]", inner)
        else:
            lines.append(f"{prefix}: {'—' if value is None else value}")

    walk("", result)
    return "\n".join(lines)


def one_line(text: str, width: int = 60) -> str:
    """`text` on one line of at most `width` columns (a Chinese character takes two): line
    breaks and runs of spaces become one space, and a cut ends with "…"."""
    from textrules.text_budget import is_cjk

    flat = " ".join((text or "").split())
    columns = [2 if is_cjk(char) else 1 for char in flat]
    if sum(columns) <= width:
        return flat
    used = 0
    for index, column in enumerate(columns):
        if used + column > width - 1:
            return flat[:index] + "…"
        used += column
    return flat


def progress_bar(total: int, description: str) -> tqdm:
    """Progress on stderr, so `--json` output on stdout stays one clean document."""
    hidden = total < 20 or not sys.stderr.isatty() and total < 200
    return tqdm(total=total, desc=description, file=sys.stderr, unit="mem", leave=False, disable=hidden)


def parse_layers(raw: str | None) -> tuple[str, ...] | None:
    from memories.constants import LAYER_CODES

    if not raw:
        return None
    layers = tuple(part.strip().upper() for part in raw.split(",") if part.strip())
    unknown = [layer for layer in layers if layer not in LAYER_CODES]
    if unknown:
        raise CliError(f"unknown layer {unknown[0]!r}; use L1, L2, L3 or L4 (comma-separated)")
    return layers
