"""`python manage.py memory <subcommand>`: the operator's CLI (docs/cli.md).

Subcommands live in the app whose services they call (memories.cli, governance.cli,
api.cli, lingix_site.cli); this file, at the top of the dependency order, imports each of
them, dispatches, prints and turns every failure into one line on stderr."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from api import cli as api_cli
from governance.cli import distill as distill_cli
from governance.cli import erase as erase_cli
from governance.cli import funnel as funnel_cli
from governance.cli import importing as import_cli
from governance.cli import show as show_cli
from governance.cli import suggestions as suggestions_cli
from judges.config import ProviderNotConfigured, resolve_provider_name
from lingix_site.cli import backup as backup_cli
from lingix_site.cli import maintain as maintain_cli
from lingix_site.cli import site as site_cli
from memories.cli import commands as memory_cli
from memories.cli.base import CliError, Subcommand, plain_text
from memories.exceptions import DomainError

# Each module exposes COMMANDS: list[Subcommand]; --help lists them in this order.
SUBCOMMAND_MODULES = [
    site_cli,
    memory_cli,
    show_cli,
    import_cli,
    backup_cli,
    api_cli,
    maintain_cli,
    funnel_cli,
    distill_cli,
    suggestions_cli,
    erase_cli,
]


def _subcommands() -> list[Subcommand]:
    return [sub for module in SUBCOMMAND_MODULES for sub in module.COMMANDS]


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (plus exit code 2), never a usage dump."""

    def error(self, message: str) -> None:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


class Command(BaseCommand):
    help = "Operate Lingix Memory: status, search, ingest, trigger, review, import/export, maintenance."

    def run_from_argv(self, argv: list[str]) -> None:
        parser = self._parser(argv[0])
        args = parser.parse_args(argv[2:])
        if not getattr(args, "subcommand", None):
            parser.print_help(sys.stderr)
            raise SystemExit(2)
        raise SystemExit(self._dispatch(args))

    def _parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = _OneLineParser(prog=f"{prog_name.split('/')[-1]} memory", description=self.help)
        subparsers = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", parser_class=_OneLineParser)
        for sub in _subcommands():
            sp = subparsers.add_parser(sub.name, help=sub.help, description=sub.help)
            sp.add_argument("--json", action="store_true", help="print exactly one JSON document on stdout")
            sub.add_arguments(sp)
            sp.set_defaults(_sub=sub)
        return parser

    def add_arguments(self, parser: Any) -> None:
        # Only used by call_command(); the command line goes through run_from_argv.
        parser.add_argument("argv", nargs=argparse.REMAINDER)

    def handle(self, *args: Any, **options: Any) -> None:
        self.run_from_argv(["manage.py", "memory", *args, *options.get("argv", [])])

    def _dispatch(self, args: argparse.Namespace) -> int:
        sub: Subcommand = args._sub
        prefix = f"memory {sub.name}: error:"
        try:
            if sub.needs_provider:
                resolve_provider_name()
            result = sub.run(args)
        except ProviderNotConfigured as exc:
            sys.stderr.write(f"{exc}\n")
            return 1
        except CliError as exc:
            sys.stderr.write(f"{prefix} {exc.args[0]}\n")
            if args.json and len(exc.args) > 1:
                sys.stdout.write(json.dumps(exc.args[1], ensure_ascii=False) + "\n")
            return 1
        except DomainError as exc:
            sys.stderr.write(f"{prefix} {exc}\n")
            return 1
        except KeyboardInterrupt:
            sys.stderr.write(f"{prefix} interrupted\n")
            return 130
        except Exception as exc:  # the contract is one line, never a traceback
            sys.stderr.write(f"{prefix} unexpected {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n")
            return 1
        if result.pop("_streamed", False):
            if args.json:
                sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
            return 0
        if args.json:
            sys.stdout.write(json.dumps({k: v for k, v in result.items() if not k.startswith("_")}, ensure_ascii=False, default=str) + "\n")
        else:
            text = sub.render(result) if sub.render else plain_text(result)
            sys.stdout.write(text + "\n")
        return 0
