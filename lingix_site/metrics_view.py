"""GET /metrics: the Prometheus text exposition of every `lingix_` family.

Open to loopback callers by default. Anyone else needs an address in
LINGIX_METRICS_ALLOW (comma-separated addresses or networks, e.g. 10.0.3.0/24) or the
bearer token in LINGIX_METRICS_TOKEN. The figures name no advertiser, but queue sizes
and growth are still nobody else's business."""

from __future__ import annotations

import hmac
import ipaddress

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from governance.metrics.collectors import ReviewQueueCollector
from lingix_config import config
from memories.metrics_db import MemoryCountsCollector
from memories.metrics_registry import REGISTRY

DEFAULT_ALLOW = "127.0.0.1/8,::1/128"

# Database-backed figures are collected per scrape, next to the in-process families.
_DB_REGISTRY = CollectorRegistry(auto_describe=False)
_DB_REGISTRY.register(MemoryCountsCollector())
_DB_REGISTRY.register(ReviewQueueCollector())


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    raw = config().lingix_metrics_allow
    raw = DEFAULT_ALLOW if raw is None else raw
    networks = []
    for part in raw.split(","):
        part = part.strip()
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                continue  # a typo must not open the endpoint; it just matches nothing
    return networks


def _address_allowed(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    # A server bound to :: on a dual-stack host sees an IPv4 client as ::ffff:a.b.c.d; it
    # may be listed either way.
    forms = [ip, *([ip.ipv4_mapped] if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else [])]
    return any(form.version == net.version and form in net for form in forms for net in allowed_networks())


def _token_ok(request: HttpRequest) -> bool:
    expected = config().lingix_metrics_token.get_secret_value()
    header = request.headers.get("Authorization", "")
    if not expected or not header.startswith("Bearer "):
        return False
    return hmac.compare_digest(header.removeprefix("Bearer ").strip().encode(), expected.encode())


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not (_token_ok(request) or _address_allowed(request.META.get("REMOTE_ADDR", ""))):
        return JsonResponse(
            {"detail": "metrics are open to loopback only; set LINGIX_METRICS_ALLOW or send LINGIX_METRICS_TOKEN as a bearer token"},
            status=403,
        )
    body = generate_latest(REGISTRY) + generate_latest(_DB_REGISTRY)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
