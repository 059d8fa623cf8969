"""JSON that is safe to hand to the services: one loader for every body the API parses and
every JSON argument the CLI takes.

Python's json module accepts what JSON does not (NaN, Infinity), turns 1e999 into inf,
builds integers of thousands of digits, nests as deep as the recursion limit allows and
keeps lone UTF-16 surrogates ("\\ud800") as str. Each of these later breaks something far
from the request (SQLite, the FTS index, the embedder, json.dumps of a trace), so they are
refused here, with the place they were found as a JSON path.
"""

from __future__ import annotations

import json
import math
from typing import Any

from textrules.errors import InvalidInput

MAX_DEPTH = 32
MAX_INT_DIGITS = 30
# Signed 64-bit: what SQLite and PostgreSQL bigint columns can hold.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


class UnsafeJson(InvalidInput):
    """The JSON text parses, or nearly, but holds a value the services must never see."""


class MalformedJson(UnsafeJson):
    """Not JSON at all (syntax, encoding): a plain bad request rather than a refused value."""

    http_status = 400


class _Rejected:
    """Stands in for a value refused while parsing, so the walk can name where it was."""

    def __init__(self, problem: str) -> None:
        self.problem = problem


def _refuse_constant(name: str) -> _Rejected:
    return _Rejected(f"non-finite number {name} is not allowed")


def _check_float(text: str) -> float | _Rejected:
    value = float(text)
    if not math.isfinite(value):
        return _Rejected(f"number {text[:40]} overflows a 64-bit float")
    return value


def _check_int(text: str) -> int | _Rejected:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        return _Rejected(f"integer with {digits} digits is too large")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        return _Rejected(f"integer {text} is outside the signed 64-bit range")
    return value


def _surrogate_at(text: str) -> int | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def _key_path(path: str, key: str) -> str:
    if len(key) > 64:
        key = key[:64] + "…"
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def strict_check(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise UnsafeJson for the first refused value in an already-parsed tree. Iterative,
    so the check itself cannot run out of stack on a deep document."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, _Rejected):
            raise UnsafeJson(f"{node.problem} (at {path})")
        if isinstance(node, str):
            position = _surrogate_at(node)
            if position is not None:
                raise UnsafeJson(f"lone UTF-16 surrogate in a string at character {position} (at {path})")
        elif isinstance(node, float) and not math.isfinite(node):
            raise UnsafeJson(f"non-finite number is not allowed (at {path})")
        elif isinstance(node, bool):
            continue
        elif isinstance(node, int) and not INT_MIN <= node <= INT_MAX:
            raise UnsafeJson(f"integer is outside the signed 64-bit range (at {path})")
        elif isinstance(node, (dict, list)):
            if depth >= max_depth:
                raise UnsafeJson(f"nesting deeper than {max_depth} levels (at {path})")
            if isinstance(node, dict):
                for key, child in reversed(list(node.items())):
                    if _surrogate_at(key) is not None:
                        raise UnsafeJson(f"lone UTF-16 surrogate in an object key (at {path})")
                    stack.append((child, _key_path(path, key), depth + 1))
            else:
                for index in range(len(node) - 1, -1, -1):
                    stack.append((node[index], f"{path}[{index}]", depth + 1))


def strict_loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON and refuse non-finite or oversized numbers, deep nesting and lone
    surrogates (UnsafeJson, an InvalidInput, naming the JSON path)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedJson(f"body is not UTF-8 (byte {exc.start})") from None
    try:
        parsed = json.loads(text, parse_constant=_refuse_constant, parse_float=_check_float, parse_int=_check_int)
    except RecursionError:
        raise UnsafeJson(f"nesting deeper than {max_depth} levels (at $)") from None
    except json.JSONDecodeError as exc:
        raise MalformedJson(f"syntax error: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    strict_check(parsed, max_depth=max_depth)
    return parsed
