"""memory ingest / trigger / review — thin wrappers over governance.intake.services."""

from __future__ import annotations

import getpass
import json
from typing import Any

from django.utils.dateparse import parse_datetime

from governance.constants import REVIEW_PERMISSION
from lingix_config import config
from memories.cli.base import CliError, Subcommand, one_line
from memories.timefmt import local_time, zone_label


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no login name in some containers
        return "cli"


def _funnel_args(parser) -> None:
    parser.add_argument("--advertiser", help="advertiser the memory belongs to (omit for global)")
    parser.add_argument("--business-line", default="", help="business line, e.g. 医药OTC")
    parser.add_argument("--source", default="agent", help="who produced it: user, assistant, agent, tool, human, system (default agent)")
    parser.add_argument("--layer", help="requested layer L1-L4; the guard may refuse it or choose another")
    parser.add_argument("--idempotency-key", help="the same key returns the first decision")
    parser.add_argument("--explain", action="store_true", help="print every stage's intermediate result")


def _decision_result(decision, args) -> dict[str, Any]:
    out = decision.as_dict(explain=True)
    out["_explain"] = args.explain
    return out


def _ingest_args(parser) -> None:
    parser.add_argument("text", help="free text (Chinese, English or both)")
    _funnel_args(parser)


def _ingest_run(args) -> dict[str, Any]:
    from governance.intake.services import event_ingest

    decision = event_ingest(
        text=args.text,
        advertiser=args.advertiser,
        source=args.source,
        layer=args.layer,
        idempotency_key=args.idempotency_key,
        actor=_actor(),
        business_line=args.business_line,
    )
    return _decision_result(decision, args)


def _trigger_args(parser) -> None:
    import argparse

    from governance.funnel.trigger_schemas import help_text

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = help_text()
    parser.add_argument("event_type", help="one of the 8 trigger types, e.g. strategy_execution")
    parser.add_argument("--summary", default="", help="one-line description of the event")
    parser.add_argument("--data", help="structured fields as a JSON object (the fields each event type reads are listed below)")
    _funnel_args(parser)


def _trigger_run(args) -> dict[str, Any]:
    from governance.intake.services import event_trigger

    data = None
    if args.data:
        from textrules.strict_json import UnsafeJson, strict_loads

        try:
            data = strict_loads(args.data)
        except UnsafeJson as exc:
            raise CliError(f"--data is not valid JSON: {exc}") from None
    decision = event_trigger(
        event_type=args.event_type,
        advertiser=args.advertiser,
        summary=args.summary,
        data=data,
        source=args.source,
        layer=args.layer,
        idempotency_key=args.idempotency_key,
        actor=_actor(),
        business_line=args.business_line,
    )
    return _decision_result(decision, args)


def _render_stage(stage: dict[str, Any]) -> list[str]:
    head = f"  [{stage['stage']}] {stage['decision']}"
    if stage.get("provider"):
        head += f"  ({stage['provider']}/{stage.get('model', '')}, {stage.get('prompt_version', '')}, {stage.get('latency_ms', 0):.1f} ms)"
    lines = [head]
    lines += [f"      · {reason}" for reason in stage.get("reasons", [])]
    scores = {k: v for k, v in (stage.get("scores") or {}).items() if k not in {"tools", "fields"}}
    if scores:
        lines.append("      " + json.dumps(scores, ensure_ascii=False, default=str)[:400])
    return lines


def _decision_render(result: dict[str, Any]) -> str:
    lines = []
    if result.get("_explain"):
        lines.append(f"event #{result['event_id']}: stages in order")
        for stage in result.get("stages", []):
            lines += _render_stage(stage)
    layer = result.get("layer") or "-"
    memory = f" memory #{result['memory_id']}" if result.get("memory_id") else ""
    review = f" review item #{result['review_item_id']}" if result.get("review_item_id") else ""
    lines.append(f"{result['action']} {layer}{memory}{review} (event #{result['event_id']})")
    lines += [f"  - {reason}" for reason in result.get("reasons", [])]
    return "\n".join(lines)


def cli_user(username: str | None):
    """The person behind a CLI decision: a real, active account with the right to decide
    reviews, never a free-text name."""
    from django.contrib.auth import get_user_model

    name = username or config().lingix_cli_user or config().lingix_admin_user
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    if user is None:
        raise CliError(f"no active user {name!r}; pass --as USERNAME (an account in the admin) or set LINGIX_CLI_USER")
    if not user.has_perm(REVIEW_PERMISSION):
        raise CliError(f"user {name!r} may not decide review items (needs the reviewer or operator role)")
    return user


def _review_args(parser) -> None:
    parser.add_argument("action", choices=["list", "approve", "reject"], help="list the queue, or decide one item")
    parser.add_argument("id", nargs="?", type=int, help="review item id (approve/reject)")
    parser.add_argument("--note", default="", help="why (required to reject)")
    parser.add_argument(
        "--as",
        dest="as_user",
        metavar="USERNAME",
        help="the Django user who decides (default: $LINGIX_CLI_USER, else the admin account `make run` created); "
        "their roles apply, and nobody decides what they proposed",
    )
    parser.add_argument("--status", default="open", help="list: open, approved, rejected or all (default open)")
    parser.add_argument("--kind", help="list: pending_write, conflict, promotion, sampled_audit, reflection")
    parser.add_argument("--limit", type=int, default=50, help="list: at most this many (default 50)")
    parser.add_argument("--correct", choices=["yes", "no"], help="your verdict on the automatic decision")


def _review_run(args) -> dict[str, Any]:
    from governance.review.selectors import review_item_dict, review_item_get, review_queue
    from governance.review.services import review_approve, review_reject

    if args.action == "list":
        status = None if args.status == "all" else args.status
        items = [review_item_dict(i) for i in review_queue(status=status, kind=args.kind, limit=args.limit)]
        return {"items": items, "_list": True}
    if args.id is None:
        raise CliError(f"review {args.action} needs an item id")
    item = review_item_get(item_id=args.id)
    correct = None if args.correct is None else args.correct == "yes"
    user = cli_user(args.as_user)
    if args.action == "approve":
        decision = review_approve(item=item, reviewer=user, reviewer_name=user.get_username(), note=args.note, decision_correct=correct)
    else:
        decision = review_reject(item=item, reviewer=user, reviewer_name=user.get_username(), note=args.note, decision_correct=correct)
    return decision.as_dict()


def _clock(iso: str | None) -> str:
    parsed = parse_datetime(iso) if iso else None
    return local_time(parsed).strftime("%m-%d %H:%M") if parsed else "-"


def _review_render(result: dict[str, Any]) -> str:
    if result.get("_list"):
        if not result["items"]:
            return "review queue is empty"
        header = f"{len(result['items'])} item(s), oldest first; times in {zone_label()}"
        return "\n".join(
            [
                header,
                *(
                    f"#{i['id']} {_clock(i['created_at'])} {i['kind']:<13} {i['status']:<8} {i['layer'] or '-':<3} "
                    f"{i['advertiser'] or 'global':<10} "
                    f"{one_line(i['content'], 60)}  — {one_line(i['reason'], 80)}"
                    for i in result["items"]
                ),
            ]
        )
    return _decision_render(result)


COMMANDS = [
    Subcommand(
        name="ingest",
        help="free text through classification and the write funnel",
        add_arguments=_ingest_args,
        run=_ingest_run,
        render=_decision_render,
        needs_provider=True,
    ),
    Subcommand(
        name="trigger",
        help="a structured event through the write funnel",
        add_arguments=_trigger_args,
        run=_trigger_run,
        render=_decision_render,
        needs_provider=True,
    ),
    Subcommand(
        name="review",
        help="the human review queue: list, approve ID, reject ID --note N",
        add_arguments=_review_args,
        run=_review_run,
        render=_review_render,
    ),
]
