"""No log line holds a token: a real `runserver` subprocess is sent tokens in the query
string and in headers, and its log output (access log and request warnings) is read."""

import logging
import urllib.error
import urllib.request

import pytest

from lingix_site.log_redaction import RedactCredentials, redact
from tests.plugin.server import LingixServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LingixServer(workdir=tmp_path_factory.mktemp("log-redaction")) as running:
        yield running


def _get(url: str, headers: dict | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_tokens_in_urls_never_reach_the_server_log(server):
    raw = server.tokens["plugin-a"]
    ops = server.tokens["plugin-ops"]
    mangled = raw[:-3] + "xyz"
    assert _get(f"{server.base_url}/api/v1/status?token={raw}") == 401
    assert _get(f"{server.base_url}/api/v1/status?advertiser=brand_A&access_token={ops}&q=%E5%87%BA%E4%BB%B7") == 401
    assert _get(f"{server.base_url}/api/v1/review?api_key=sk-live-ad-ops-0123456789abcdef") == 401
    assert _get(f"{server.base_url}/api/v1/status", {"Authorization": f"Bearer {mangled}"}) == 401
    assert _get(f"{server.base_url}/api/v1/no-such/{raw}") == 404
    assert _get(f"{server.base_url}/api/v1/status", {"Authorization": f"Bearer {raw}"}) == 200
    server.stop()  # flushes and closes the log
    log = server.log_path.read_text(encoding="utf-8", errors="replace")
    assert "/api/v1/status?token=[redacted]" in log and "access_token=[redacted]" in log
    assert "api_key=[redacted]" in log and "/api/v1/no-such/lgx_[redacted]" in log
    for secret in (raw, ops, mangled, raw.split("_", 2)[2], ops.split("_", 2)[2], "sk-live-ad-ops-0123456789abcdef"):
        assert secret not in log


@pytest.mark.parametrize(
    "message, args, secret",
    [
        ('"%s" %s %s', ("GET /api/v1/status?token=lgx_0a1b2c3d_Zm9vYmFyYmF6cXV4 HTTP/1.1", "401", "40"), "Zm9vYmFyYmF6cXV4"),
        ("upstream said %s", ("Authorization: Bearer sk-ABCDEF0123456789ghijkl",), "sk-ABCDEF0123456789ghijkl"),
        ("广告主 brand_A 的令牌 %s 已失效", ("lgx_deadbeef_c2VjcmV0LXRva2Vu",), "c2VjcmV0LXRva2Vu"),
        ("callback https://hooks.example/ingest?id=7&secret=%s&ok=1", ("s3cr3t-value-123",), "s3cr3t-value-123"),
    ],
)
def test_the_filter_redacts_message_and_args(message, args, secret):
    record = logging.LogRecord("django.server", logging.INFO, __file__, 1, message, args, None)
    assert RedactCredentials().filter(record) is True
    assert secret not in record.getMessage() and "[redacted]" in record.getMessage()


def test_the_filter_redacts_tracebacks():
    try:
        raise ValueError("bad header Bearer lgx_0a1b2c3d_dHJhY2ViYWNrLXRva2Vu")
    except ValueError:
        import sys

        record = logging.LogRecord("lingix.api", logging.ERROR, __file__, 1, "request failed", (), sys.exc_info())
    RedactCredentials().filter(record)
    assert "dHJhY2ViYWNrLXRva2Vu" not in logging.Formatter().format(record)


def test_every_configured_handler_carries_the_filter(settings):
    handlers = settings.LOGGING["handlers"]
    assert {"console", "django.server"} <= set(handlers)
    assert all("redact_credentials" in handler.get("filters", []) for handler in handlers.values())
    # Django's defaults would otherwise keep writing through their own, unfiltered handlers.
    assert {"django", "django.server"} <= set(settings.LOGGING["loggers"])


@pytest.mark.django_db
def test_our_token_format_is_matched(make_token):
    _, raw = make_token("shape", ["brand_A"])
    assert raw not in redact(f"token {raw} seen") and "lgx_[redacted]" in redact(raw)


def test_ordinary_ad_ops_text_is_left_alone():
    text = "brand_A 医药OTC 出价上调 20%，ROI 1.8；GET /api/v1/search?top_k=5&layer=L2"
    assert redact(text) == text
