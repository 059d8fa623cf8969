"""memory distill FILE — a session transcript through the same distillation service as
POST /api/v1/distill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from governance.cli.funnel import _actor
from memories.cli.base import CliError, Subcommand, progress_bar
from memories.exceptions import InvalidInput
from textrules.strict_json import strict_loads

MAX_FILE_BYTES = 8 * 1024 * 1024


def _distill_args(parser) -> None:
    parser.add_argument("file", help="a JSON array of {role, content} messages, or an OpenClaw session transcript (JSONL)")
    parser.add_argument("--session-id", help="the session's id (default: the JSONL header's id, else the file name)")
    parser.add_argument("--advertiser", help="advertiser the memories belong to (omit for global)")
    parser.add_argument("--business-line", default="", help="business line, e.g. 医药OTC")
    parser.add_argument("--turn-start", type=int, help="first turn index to distil (default 0)")
    parser.add_argument("--turn-end", type=int, help="last turn index to distil, inclusive (default the last turn)")


def _read(path: Path) -> tuple[list[Any] | None, str | None]:
    if not path.is_file():
        raise CliError(f"{path}: no such file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise CliError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{path}: not UTF-8 text") from None
    if text.lstrip().startswith("["):
        try:
            # The CLI's one JSON loader: NaN, huge integers and hostile nesting are refused, not a traceback.
            messages = strict_loads(text)
        except InvalidInput as exc:
            raise CliError(f"{path}: looks like a JSON array but does not parse ({exc})") from None
        return messages, None
    return None, text


def _distill_run(args) -> dict[str, Any]:
    from governance.knowledge.distill.services import session_distill, transcript_read

    path = Path(args.file)
    messages, jsonl = _read(path)
    session_id = args.session_id or (transcript_read(jsonl=jsonl).session_id if jsonl is not None else None) or path.stem
    bar = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = progress_bar(total, "candidates")
        bar.update(1)

    try:
        return session_distill(
            session_id=session_id,
            messages=messages,
            jsonl=jsonl,
            advertiser=args.advertiser,
            business_line=args.business_line,
            turn_start=args.turn_start,
            turn_end=args.turn_end,
            actor=_actor(),
            progress=advance,
        )
    finally:
        if bar is not None:
            bar.close()


def _distill_render(result: dict[str, Any]) -> str:
    head = (
        f"session {result['session_id']}: {result['turns']} turns read (#{result['turn_start']}-#{result['turn_end']}), "
        f"{result['candidates']} candidate(s) by the {result['extractor']} extractor"
        + (" — replayed, nothing written" if result.get("replayed") else "")
    )
    lines = [head]
    if result.get("extractor_note"):
        lines.append(f"  note: {result['extractor_note']}")
    for d in result["decisions"]:
        memory = f" memory #{d['memory_id']}" if d.get("memory_id") else ""
        lines.append(f"  turns {d['turns']} ({d.get('kind', '')}): {d['action']} {d.get('layer') or '-'}{memory} (event #{d['event_id']})")
        lines += [f"    - {reason}" for reason in d.get("reasons", [])[:3]]
    for s in result.get("skipped", []):
        lines.append(f"  turns {s['turns']}: skipped — {s['detail']}")
    return "\n".join(lines)


COMMANDS = [
    Subcommand(
        name="distill",
        help="distil a session transcript (messages JSON or OpenClaw JSONL) into funnel events",
        add_arguments=_distill_args,
        run=_distill_run,
        render=_distill_render,
    ),
]
