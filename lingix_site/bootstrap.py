"""First-run setup for `make run`: an admin account and the demo data, both once."""

from __future__ import annotations

from typing import Any

from lingix_config import config
from lingix_site.addresses import host_port


def bootstrap() -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from lingix_site.demo import demo_load_once

    User = get_user_model()
    username = config().lingix_admin_user
    created = False
    if not User.objects.filter(is_superuser=True).exists():
        User.objects.create_superuser(username=username, email="", password=config().lingix_admin_password.get_secret_value())
        created = True
    return {"admin_user": username, "admin_created": created, "demo": demo_load_once()}


# The banner's token name; on a later start the next free one, so the printed command
# works as printed on every start, not only the first.
BANNER_TOKEN_NAME = "my-agent"
# A wildcard listen address is not one a client can call; the examples use loopback.
_WILDCARD_HOSTS = {"0.0.0.0", "::", "[::]", ""}


def _free_token_name(base: str) -> str:
    from api.models import ApiToken

    taken = set(ApiToken.objects.filter(name__startswith=base).values_list("name", flat=True))
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def login_instructions(result: dict[str, Any]) -> str:
    """The banner `make run` prints. Every address carries the port it serves on; the
    indented lines run as printed in a new shell in the repository (tests/site/test_make_run.py)."""
    host, port = config().lingix_host, config().lingix_port
    base = f"http://{host_port('127.0.0.1' if host in _WILDCARD_HOSTS else host, port)}"
    password = (
        f"password: {config().lingix_admin_password.get_secret_value()} (set LINGIX_ADMIN_PASSWORD to choose another)"
        if result["admin_created"]
        else "password: the one set when the account was created"
    )
    demo = f"loaded {result['demo'].get('imported')} memories" if result["demo"].get("loaded") else "already loaded"
    token = _free_token_name(BANNER_TOKEN_NAME)
    return "\n".join(
        [
            "",
            "Lingix Memory is starting.",
            f"  Admin (review desk):  {base}/admin/  user: {result['admin_user']}  {password}",
            f"  API docs:             {base}/api/v1/docs  (Authorize with the token below; the examples are brand_A's)",
            f"  MCP:                  {base}/mcp  (the same token; docs/mcp.md)",
            f"  Metrics:              {base}/metrics  (loopback only; docs/operations.md, Metrics)",
            f"  Demo data:            {demo}",
            "  Try it in a new shell in this folder (the token is shown once; --all instead of --advertisers for every advertiser):",
            f"    export LINGIX={base}",
            f"    export TOKEN=$(.venv/bin/python manage.py memory token create --name {token} --advertisers brand_A --json"
            " | grep -o 'lgx_[A-Za-z0-9_-]*')",
            '    echo "$TOKEN"',
            '    curl -s "$LINGIX/api/v1/search" -H "Authorization: Bearer $TOKEN" -H \'Content-Type: application/json\''
            ' -d \'{"query": "双11 出价上限", "advertiser": "brand_A"}\'',
            "    .venv/bin/python manage.py memory status",
            "  Stop with Ctrl-C: the server and the scheduler stop together.",
            "",
        ]
    )
