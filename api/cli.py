"""`memory token create|list|revoke`: API tokens for agents. The secret is printed once."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from django.utils.dateparse import parse_datetime

from memories.cli.base import CliError, Subcommand
from memories.timefmt import display_local, iso_local

if TYPE_CHECKING:
    from api.models import ApiToken


def _token_args(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="token_action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    create = actions.add_parser("create", help="create a token and print it once")
    create.add_argument("--name", required=True, help="a unique name; events it sends are attributed to token:<name>")
    scope = create.add_mutually_exclusive_group(required=True)
    scope.add_argument("--advertisers", help="comma-separated advertisers it may read and write, e.g. brand_A,brand_B")
    scope.add_argument("--all", action="store_true", help="every advertiser, and global memories (operator tokens)")
    create.add_argument("--can-review", action="store_true", help="may approve/reject review items through the API")
    create.add_argument("--can-erase", action="store_true", help="may erase memories in its scope (DELETE /api/v1/memories/{id})")
    create.add_argument(
        "--trusted-sources",
        default="",
        metavar="human,system",
        help="let this token claim source human and/or system (an operator's explicit grant; audited)",
    )
    actions.add_parser("list", help="list tokens (never their secrets)")
    revoke = actions.add_parser("revoke", help="revoke a token by name")
    revoke.add_argument("name")
    for sub in (create, actions.choices["list"], revoke):
        # `--json` may also follow the action; SUPPRESS keeps an absent flag from
        # overwriting one given before it.
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print exactly one JSON document on stdout")


def _token_dict(token: ApiToken) -> dict[str, Any]:
    return {
        "name": token.name,
        "prefix": token.prefix,
        "advertisers": None if token.all_advertisers else list(token.advertisers),
        "all_advertisers": token.all_advertisers,
        "can_review": token.can_review,
        "can_erase": token.can_erase,
        "trusted_sources": list(token.trusted_sources or []),
        "revoked": token.revoked,
        "created_at": iso_local(token.created_at),
        "last_used_at": iso_local(token.last_used_at),
    }


def _token_run(args: argparse.Namespace) -> dict[str, Any]:
    from api.models import ApiToken
    from api.services import api_token_create, api_token_revoke

    if args.token_action == "create":
        advertisers = None if args.all else [a for a in args.advertisers.split(",") if a.strip()]
        if not args.all and not advertisers:
            raise CliError("--advertisers needs at least one advertiser (or use --all)")
        token, raw = api_token_create(
            name=args.name,
            advertisers=advertisers,
            all_advertisers=bool(args.all),
            can_review=args.can_review,
            can_erase=args.can_erase,
            trusted_sources=[x for x in args.trusted_sources.split(",") if x.strip()],
            created_by_name="cli",
        )
        return {"token": raw, **_token_dict(token), "_action": "create"}
    if args.token_action == "list":
        return {"tokens": [_token_dict(t) for t in ApiToken.objects.order_by("name")], "_action": "list"}
    token = ApiToken.objects.filter(name=args.name).first()
    if token is None:
        raise CliError(f"no token named {args.name!r}")
    return {**_token_dict(api_token_revoke(token=token, actor="cli")), "_action": "revoke"}


def _token_line(t: dict[str, Any]) -> str:
    scope = "all advertisers" if t["all_advertisers"] else ",".join(t["advertisers"])
    rights = ["review: yes" if t["can_review"] else "review: no"]
    if t["trusted_sources"]:
        rights.append("trusted sources: " + ",".join(t["trusted_sources"]))
    last_used = display_local(parse_datetime(t["last_used_at"])) if t["last_used_at"] else "never"
    return f"{t['name']:<24} {t['prefix']}…  {scope}  {'  '.join(rights)}{'  REVOKED' if t['revoked'] else ''}  last used: {last_used}"


def _token_render(result: dict[str, Any]) -> str:
    action = result.get("_action")
    if action == "create":
        scope = "all advertisers" if result["all_advertisers"] else ", ".join(result["advertisers"])
        return "\n".join(
            [
                f"token {result['name']} ({scope}{'; may decide reviews' if result['can_review'] else ''}):",
                f"  {result['token']}",
                "This is the only time it is shown. Use it as 'Authorization: Bearer <token>',",
                "or export LINGIX_API_KEY=<token> for the OpenClaw plugin.",
            ]
        )
    if action == "list":
        if not result["tokens"]:
            return "no tokens"
        return "\n".join(_token_line(t) for t in result["tokens"])
    return f"token {result['name']} revoked"


COMMANDS = [
    Subcommand(
        name="token",
        help="API tokens: create (printed once), list, revoke",
        add_arguments=_token_args,
        run=_token_run,
        render=_token_render,
    ),
]
