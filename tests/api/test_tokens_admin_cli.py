"""Tokens are made by the CLI and the admin, shown once, and only hashes are stored."""

import json

import pytest
from django.core.management import call_command

from api.models import ApiToken
from api.services import api_token_authenticate
from governance.models import AuditLog

pytestmark = pytest.mark.django_db


def test_cli_token_create_prints_the_token_once(capsys):
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "token", "create", "--name", "cli-agent", "--advertisers", "brand_A,brand_B", "--json")
    assert exit_info.value.code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["advertisers"] == ["brand_A", "brand_B"] and out["all_advertisers"] is False
    token = api_token_authenticate(raw=out["token"])
    assert token is not None and token.name == "cli-agent"
    assert AuditLog.objects.filter(event_type="api_token.created", target_id=str(token.pk)).exists()

    with pytest.raises(SystemExit):
        call_command("memory", "token", "list", "--json")
    listed = capsys.readouterr().out
    assert "cli-agent" in listed and out["token"] not in listed

    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "token", "revoke", "cli-agent", "--json")
    assert exit_info.value.code == 0 and json.loads(capsys.readouterr().out)["revoked"] is True
    assert api_token_authenticate(raw=out["token"]) is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["--name", "dup"], "already exists"),
        (["--name", "bad name", "--all"], "token name"),
        (["--name", "x", "--advertisers", " , "], "at least one advertiser"),
        (["--name", "y", "--advertisers", "brand A"], "not a valid code"),
    ],
)
def test_cli_token_create_errors_are_one_line(capsys, make_token, args, message):
    make_token("dup", ["brand_A"])
    if args == ["--name", "dup"]:
        args = [*args, "--all"]
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "token", "create", *args)
    assert exit_info.value.code != 0
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_admin_creates_a_token_and_shows_it_once(admin_client):
    response = admin_client.post(
        "/admin/api/apitoken/add/",
        {"name": "admin-made", "advertisers_text": "brand_A, brand_C", "all_advertisers": "", "can_review": "on"},
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    token = ApiToken.objects.get(name="admin-made")
    assert token.advertisers == ["brand_A", "brand_C"] and token.can_review is True
    assert token.created_by is not None and token.created_by_name == "admin"
    raw = page.split('id="raw-token" type="text" readonly size="70" value="')[1].split('"')[0]
    assert raw.startswith(f"lgx_{token.prefix}_")
    assert api_token_authenticate(raw=raw).pk == token.pk
    # Never again: the change page and the list show the prefix, not the secret.
    assert raw not in admin_client.get(f"/admin/api/apitoken/{token.pk}/change/").content.decode()
    assert raw not in admin_client.get("/admin/api/apitoken/").content.decode()


def test_admin_refuses_a_token_without_scope(admin_client):
    response = admin_client.post("/admin/api/apitoken/add/", {"name": "no-scope", "advertisers_text": ""})
    assert response.status_code == 200 and "at least one advertiser" in response.content.decode()
    assert not ApiToken.objects.filter(name="no-scope").exists()


def test_admin_revoke_action(admin_client, make_token):
    token, raw = make_token("to-revoke", ["brand_A"])
    response = admin_client.post("/admin/api/apitoken/", {"action": "revoke_tokens", "_selected_action": [token.pk]}, follow=True)
    assert response.status_code == 200
    assert api_token_authenticate(raw=raw) is None
    assert AuditLog.objects.filter(event_type="api_token.revoked", actor="admin").exists()
