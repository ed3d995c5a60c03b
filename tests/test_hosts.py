"""Issue 8 §2: no requests to internal addresses unless opted in.

Each refused URL is proven to make no connection: a listener on 127.0.0.1 (the address every
loopback spelling reaches) records accepts and sees none, and for addresses that must never be
touched (10.x, 169.254.169.254) a spy on socket connects records every attempt. No test sends a
packet anywhere but 127.0.0.1/127.0.0.2.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ingest.sources import hosts
from ingest.sources.fetch import FetchError, FetchSettings, fetch_url

from .local_http import serve
from .test_fetch import FILES

#: Guarded (the default: no opt-in), with short limits.
#: In this process (`isolate=False`): the socket spies below see only this process's connects.
GUARDED = FetchSettings(connect_timeout=1, read_timeout=0.5, total_timeout=2, retries=0, backoff=0.01, isolate=False)
OPTED_IN = FetchSettings(**{**vars(GUARDED), "allow_private_hosts": True})


class Listener:
    """A bare TCP listener that counts accepted connections (and closes them at once)."""

    def __init__(self, host: str = "127.0.0.1", family: int = socket.AF_INET):
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.accepts = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepts += 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


@contextmanager
def listening(host: str = "127.0.0.1", family: int = socket.AF_INET) -> Iterator[Listener]:
    lst = Listener(host, family)
    try:
        yield lst
    finally:
        lst.close()


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every outgoing socket connect is recorded; any to an address other than 127.0.0.1 is blocked."""
    seen: list[object] = []
    real_connect = socket.socket.connect

    def spy(self: socket.socket, address: object) -> None:
        seen.append(address)
        host = address[0] if isinstance(address, tuple) else ""
        if host != "127.0.0.1":
            raise ConnectionRefusedError(f"test blocked a connect to {address!r}")
        real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", spy)
    return seen


def refused(url: str, tmp_path, settings: FetchSettings = GUARDED) -> str:
    with pytest.raises(FetchError) as err:
        fetch_url(url, tmp_path / "cache", settings=settings)
    return str(err.value)


# --------------------------------------------------------------------------- the address rule


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fc00::1", "private"),
        ("100.64.0.1", "non-public"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("::ffff:127.0.0.1", "loopback (IPv4 inside IPv6)"),
        ("::ffff:169.254.169.254", "link-local (IPv4 inside IPv6)"),
        ("2002:a00:1::", "private (IPv4 inside IPv6)"),
        ("64:ff9b::a9fe:a9fe", "link-local (IPv4 inside IPv6)"),
    ],
)
def test_internal_addresses_are_refused(address, why):
    assert hosts.refusal(ipaddress.ip_address(address)) == why


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert hosts.refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "2130706433", "0177.0.0.1", "0x7f.1", "0x7f000001", "127.1", "0", "[::1]"]
)
def test_every_spelling_of_loopback_is_judged_as_the_resolver_reads_it(host):
    with pytest.raises(hosts.HostRefused, match=r"(loopback|unspecified) address"):
        hosts.check_host(host, 80)


def test_fetch_settings_opt_in_must_be_a_bool():
    with pytest.raises(ValueError, match="allow_private_hosts"):
        FetchSettings(allow_private_hosts="yes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- refused URLs make no connection


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "localhost", "0.0.0.0", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::ffff:127.0.0.1]"],
)
def test_refused_loopback_url_makes_no_connection(host, tmp_path, connects):
    with listening() as lst:
        msg = refused(f"http://{host}:{lst.port}/report.pdf", tmp_path)
        # The HTTP client cannot parse a few spellings (leading zeros) at all: refused as invalid, also unsent.
        assert ("requests to internal addresses are refused" in msg and "--allow-private-hosts" in msg) or (
            "not a valid URL" in msg
        )
        assert lst.accepts == 0 and connects == []


def test_refused_ipv6_loopback_url_makes_no_connection(tmp_path, connects):
    try:
        ctx = listening("::1", socket.AF_INET6)
        lst = ctx.__enter__()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        assert "loopback" in refused(f"http://[::1]:{lst.port}/x.pdf", tmp_path)
        assert lst.accepts == 0 and connects == []
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/report.pdf",
        "https://192.168.0.1/x.pdf",
        "http://[fd00::1]/x.pdf",
        "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
        "http://0251.0376.0251.0376/latest/",  # 169.254.169.254 in octal
    ],
)
def test_private_and_metadata_addresses_are_refused_before_any_connect(url, tmp_path, connects):
    msg = refused(url, tmp_path)
    assert "address; requests to internal addresses are refused" in msg or "not a valid URL" in msg
    assert connects == []


def test_opt_in_reaches_the_listener(tmp_path):
    """The control: with the opt-in the same URL does connect, so the zero counts above mean something."""
    with listening() as lst:
        refused(f"http://127.0.0.1:{lst.port}/x.pdf", tmp_path, OPTED_IN)
        assert lst.accepts >= 1


def test_refused_url_does_not_fall_back_to_a_cached_copy(tmp_path):
    with serve(dict(FILES)) as srv:
        url = srv.url("/files/small.pdf")
        assert fetch_url(url, tmp_path / "cache", settings=OPTED_IN).path.is_file()
        hits = sum(srv.hits.values())
        assert "loopback" in refused(url, tmp_path)
        assert sum(srv.hits.values()) == hits


# --------------------------------------------------------------------------- redirects and DNS rebinding


@pytest.fixture
def public_127(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the host written `127.0.0.1` (the test server) is public; every other host keeps the rule
    (so `localhost`, which resolves to the same address, is still refused)."""
    real = hosts.check_host

    def check(host: str, port: int) -> list:
        return [ipaddress.ip_address("127.0.0.1")] if host == "127.0.0.1" else real(host, port)

    monkeypatch.setattr(hosts, "check_host", check)


def test_allowed_hops_are_followed_with_the_guard_on(public_127, tmp_path, connects):
    with serve(dict(FILES)) as srv:
        got = fetch_url(srv.url("/chain/2/small.pdf"), tmp_path / "cache", settings=GUARDED)
    assert got.path.is_file() and all(a[0] == "127.0.0.1" for a in connects)


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.2:{port}/x.pdf",
        "http://localhost:{port}/x.pdf",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/x.pdf",
        "http://[::1]:{port}/x.pdf",
    ],
)
def test_redirect_from_an_allowed_host_to_an_internal_one_is_refused(public_127, target, tmp_path, connects):
    with listening("127.0.0.2") as lst, serve(dict(FILES)) as srv:
        to = target.format(port=lst.port)
        msg = refused(srv.url(f"/redirect?to={to}"), tmp_path)
        assert "redirected to" in msg and "requests to internal addresses are refused" in msg
        assert srv.hits["/redirect"] == 1 and lst.accepts == 0
    assert all(a[0] == "127.0.0.1" for a in connects)  # only the allowed first hop was contacted


def test_dns_rebinding_between_check_and_connect_is_caught(monkeypatch, tmp_path, connects):
    """The name answers a public address to the check and 127.0.0.1 afterwards: the pinned connection refuses."""
    real = socket.getaddrinfo
    calls = {"n": 0}

    def rebinding(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host != "rebind.test":
            return real(host, port, *args, **kwargs)
        calls["n"] += 1
        addr = "93.184.216.34" if calls["n"] == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (addr, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with listening() as lst:
        msg = refused(f"http://rebind.test:{lst.port}/x.pdf", tmp_path)
        assert "loopback" in msg and lst.accepts == 0 and connects == []
    assert calls["n"] >= 2  # checked before the request and again when connecting


def test_unresolvable_host_is_transient_not_a_refusal(monkeypatch, tmp_path):
    def fail(*a, **k):  # type: ignore[no-untyped-def]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    msg = refused("https://no-such-host.invalid/x.pdf", tmp_path)
    assert "cannot resolve host" in msg and "offline or host down" in msg


# --------------------------------------------------------------------------- the opt-in, end to end


def test_cli_allow_private_hosts_flag_and_environment(tmp_path, monkeypatch, capsys):
    from ingest import cli

    from .conftest import write_report

    monkeypatch.delenv("FRL_ALLOW_PRIVATE_HOSTS", raising=False)
    with serve(dict(FILES)) as srv:
        reports = tmp_path / "reports"
        write_report(reports, "local", f"source:\n  url: {srv.url('/files/notes.md')}\n")
        args = ["--quiet", "--reports-dir", str(reports), "--data-dir", str(tmp_path / "data")]
        assert cli.main(args) == 1
        assert "requests to internal addresses are refused" in capsys.readouterr().err
        assert srv.hits["/files/notes.md"] == 0
        assert cli.main([*args, "--allow-private-hosts"]) == 0
        assert srv.hits["/files/notes.md"] == 1
        monkeypatch.setenv("FRL_ALLOW_PRIVATE_HOSTS", "1")
        assert cli.main([*args, "--force"]) == 0
        monkeypatch.setenv("FRL_ALLOW_PRIVATE_HOSTS", "sometimes")
        assert cli.main(args) == 2
        assert "FRL_ALLOW_PRIVATE_HOSTS" in capsys.readouterr().err
