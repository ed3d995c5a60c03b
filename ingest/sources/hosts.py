"""No requests to internal addresses: which hosts a URL source may reach, checked before every connection.

A report's `source.url` is untrusted. Without a rule, `http://127.0.0.1:…`, `localhost`, `[::1]`,
`0.0.0.0` or the cloud metadata address `169.254.169.254` would make the server request internal
services and store the answer. The rule: every address a host name resolves to must be globally
routable — loopback, private, link-local, unspecified, multicast, reserved and shared (CGNAT)
addresses are refused, including IPv4 addresses hidden in IPv6 (`::ffff:127.0.0.1`, 6to4, NAT64).
The host is resolved with the system resolver (`getaddrinfo`), so `2130706433`, `0177.0.0.1` and
`0x7f.1` are judged as the address the connection would really use.

The check runs twice for every hop of a download (the first request and each redirect):
`check_host` before the request is sent, and again inside the connection itself
(`guarded_backend`, an httpcore network backend that resolves, checks and then connects to the
address it checked). So a DNS answer that changes between the check and the connection (DNS
rebinding) cannot reach an internal address either. Users who mean to fetch from their own
network opt in (`--allow-private-hosts`, `FRL_ALLOW_PRIVATE_HOSTS=1`); the tests' server on
127.0.0.1 does so explicitly.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpcore

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
OPT_IN = "requests to internal addresses are refused (opt in with --allow-private-hosts or FRL_ALLOW_PRIVATE_HOSTS=1)"
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class HostRefused(ValueError):
    """The URL's host is (or resolves to) an internal address; the message is meant for the user."""


class InvalidHost(ValueError):
    """The URL cannot be parsed by the HTTP client (so no request could be made either)."""


class Unresolvable(OSError):
    """The host name could not be resolved (offline, or no such host): a transient failure."""


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """An IPv4 address carried inside an IPv6 one (mapped, 6to4, NAT64), which is what gets reached."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def refusal(ip: IP) -> str | None:
    """Why an address may not be requested ("loopback", "private", …), or None when it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_v4(ip)
        if inner is not None:
            why = refusal(inner)
            return f"{why} (IPv4 inside IPv6)" if why else None
        if ip.teredo is not None:
            return "tunnelled (Teredo)"
    for attr, why in (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_reserved", "reserved"),
        ("is_private", "private"),
    ):
        if getattr(ip, attr):
            return why
    if not ip.is_global:
        return "non-public"
    return None


def literal(host: str) -> IP | None:
    """The address when `host` is written as a standard IP literal (brackets allowed), else None."""
    h = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        return None


def resolve(host: str, port: int) -> list[IP]:
    """Every address the system resolver gives for `host` (in its order), as the connection would see them."""
    h = host.strip("[]")
    try:
        infos = socket.getaddrinfo(h, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unresolvable(f"cannot resolve host {host!r} ({getattr(exc, 'strerror', None) or exc})") from exc
    out: list[IP] = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in out:
            out.append(ip)
    if not out:
        raise Unresolvable(f"cannot resolve host {host!r} (no addresses)")
    return out


def check_host(host: str, port: int) -> list[IP]:
    """The host's addresses if all are public; HostRefused if any is internal (no connection is made).

    The message names the host as written and the kind of address, not the resolved address itself,
    so a visitor cannot map internal DNS names through it.
    """
    addrs = resolve(host, port)
    for ip in addrs:
        why = refusal(ip)
        if why:
            verb = "is" if literal(host) is not None else "resolves to"
            article = "an" if why[0] in "aeiou" else "a"
            raise HostRefused(f"host {host!r} {verb} {article} {why} address; {OPT_IN}")
    return addrs


def check_url(url: str) -> None:
    """`check_host` for an http(s) URL, parsed exactly as the HTTP client parses it."""
    import httpx  # deferred (bench/import_costs.py): offline runs never fetch

    try:
        u = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise InvalidHost(str(exc)) from exc
    if not u.host:
        raise HostRefused(f"URL {url!r} has no host")
    check_host(u.host, u.port or (443 if u.scheme == "https" else 80))


@functools.cache
def guarded_backend() -> httpcore.NetworkBackend:
    """An httpcore network backend that connects only to addresses that passed `check_host`.

    It resolves the host itself, checks every address, and connects to the checked address (not
    to the name), so the address validated is the address used. TLS still verifies the name.
    """
    import httpcore  # deferred (bench/import_costs.py): offline runs never fetch

    class GuardedBackend(httpcore.SyncBackend):
        def connect_tcp(self, host: str, port: int, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
            try:
                addrs = check_host(host, port)
            except Unresolvable as exc:
                raise httpcore.ConnectError(str(exc)) from exc
            last: Exception | None = None
            for ip in addrs:
                try:
                    return super().connect_tcp(str(ip), port, *args, **kwargs)
                except httpcore.ConnectError as exc:
                    last = exc
            assert last is not None
            raise last

    return GuardedBackend()


def pin(client: Any) -> None:
    """Make an httpx.Client's direct connections go through `guarded_backend` (fails closed).

    Connections through a proxy from the environment (HTTP(S)_PROXY) are made by the proxy; for
    those the check before each request (`check_url`) is what applies.
    """
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError("cannot install the address check in this httpx version; pin httpx/httpcore")
    pool._network_backend = guarded_backend()
