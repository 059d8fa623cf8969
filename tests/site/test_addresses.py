"""An IPv6 listen address is bracketed wherever a URL or runserver's address is built from
host and port (lingix_site/addresses.py): the banner `make run` prints, and the runserver
address lingix_site/run.py passes on."""

import pytest

from lingix_site.addresses import host_port
from lingix_site.bootstrap import login_instructions


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("::1", "[::1]:8000"),
        ("[::1]", "[::1]:8000"),
        ("fe80::1%eth0", "[fe80::1%eth0]:8000"),
        ("2001:db8::7", "[2001:db8::7]:8000"),
        ("127.0.0.1", "127.0.0.1:8000"),
        ("memory.lingix.internal", "memory.lingix.internal:8000"),
        ("localhost", "localhost:8000"),
    ],
)
def test_an_ipv6_host_is_bracketed_and_any_other_is_kept(host, expected):
    assert host_port(host, 8000) == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("host", "base"), [("::1", "http://[::1]:8001"), ("::", "http://127.0.0.1:8001"), ("10.0.0.5", "http://10.0.0.5:8001")]
)
def test_the_first_run_banner_prints_urls_a_client_can_call(env, host, base):
    env(LINGIX_HOST=host, LINGIX_PORT="8001")

    banner = login_instructions({"admin_user": "admin", "admin_created": False, "demo": {"loaded": False}})

    assert f"Admin (review desk):  {base}/admin/" in banner
    assert f"export LINGIX={base}\n" in banner


def test_the_ipv6_loopback_is_an_allowed_host_by_default(client):
    # `make run HOST=::1` serves on [::1]; Django must answer that Host header too.
    from lingix_config.config import LingixConfig

    assert "[::1]" in LingixConfig.model_fields["django_allowed_hosts"].default
    assert client.get("/", HTTP_HOST="[::1]:8000").status_code == 302
