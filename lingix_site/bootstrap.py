"""First-run setup for `make run`: an admin account and the demo data, both once."""

from __future__ import annotations

from typing import Any

from lingix_config import config


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


def login_instructions(result: dict[str, Any]) -> str:
    host, port = config().lingix_host, config().lingix_port
    password = (
        f"password: {config().lingix_admin_password.get_secret_value()} (set LINGIX_ADMIN_PASSWORD to choose another)"
        if result["admin_created"]
        else "password: the one set when the account was created"
    )
    demo = f"loaded {result['demo'].get('imported')} memories" if result["demo"].get("loaded") else "already loaded"
    return "\n".join(
        [
            "",
            "Lingix Memory is starting.",
            f"  Admin (review desk):  http://{host}:{port}/admin/  user: {result['admin_user']}  {password}",
            f"  API docs:             http://{host}:{port}/api/v1/docs",
            f"  Metrics:              http://{host}:{port}/metrics  (loopback only; see README, Metrics)",
            "  API token:            .venv/bin/python manage.py memory token create --name my-agent --advertisers brand_A",
            "                        (add --all for every advertiser; the token is printed once)",
            "  Command line:         .venv/bin/python manage.py memory status   (works in any shell: settings in .lingix.env)",
            f"  Demo data:            {demo}",
            "",
        ]
    )
