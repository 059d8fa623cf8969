"""`host:port` for a URL or a listen address, whatever form the host was given in."""

from __future__ import annotations

import ipaddress


def host_port(host: str, port: int) -> str:
    """`host:port`, an IPv6 address in brackets ("[::1]:8000"): unbracketed, its colons read
    as the port's, and runserver refuses "::1:8000". A host already bracketed stays as is."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipv6 = ipaddress.ip_address(bare).version == 6
    except ValueError:
        ipv6 = False
    return f"[{bare}]:{port}" if ipv6 else f"{host}:{port}"
