"""Reads outside the source roots and requests to internal addresses, each as a report source (round 1,
issue 8), run WITHOUT the private-host opt-in and with the usual roots (reports/ and inputs/).

Two things are measured while a case runs, beside its verdict:
    reads outside the roots  a file outside the roots (the secret folder, /etc, /proc, /dev) was
                             opened (seen by an audit hook on `open`), or the secret's canary word
                             reached the store: a silent wrong result
    internal requests        a socket connect to anything but the simulated public host, or an
                             accept on the recording listener (127.0.0.1): a request to another host
The "public" host is simulated: `public.test` resolves to 127.0.0.1 and is treated as public, so
redirects from it to internal addresses are tested without sending anything off this machine.
Every other connect is recorded and blocked.
"""

from __future__ import annotations

import gzip
import ipaddress
import os
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bad_input_cases import ENDPOINTS, HEAD, Case, Catalogue, Check
from bad_input_ingest import Victim

from ingest.sources import hosts
from ingest.sources.fetch import FetchSettings
from ingest.store.store import Store

CANARY = "zebracanary"
PUBLIC = "public.test"
LISTENER_PORT = 9
#: In this process (`isolate=False`): the audit hook and the simulated public host act in this process only.
GUARDED = FetchSettings(
    connect_timeout=1, read_timeout=0.3, total_timeout=1.0, retries=0, backoff=0.01, max_bytes=1_000_000, isolate=False
)
OUTSIDE_WORDS = ("outside the allowed source folders",)
#: Refused, unparseable or unresolvable: in each case nothing was sent.
INTERNAL_WORDS = ("requests to internal addresses are refused", "not a valid url", "cannot resolve host")


@dataclass
class Watch:
    """What the hostile cases touched: opened paths outside the roots and connects to internal addresses."""

    active: bool = False
    forbidden: tuple[str, ...] = ()
    allowed_connect: tuple[str, int] | None = None
    reads: list[str] = field(default_factory=list)
    connects: list[object] = field(default_factory=list)
    accepts: int = 0


WATCH = Watch()


def _audit(event: str, args: tuple) -> None:
    if WATCH.active and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        try:
            real = os.path.realpath(os.fsdecode(args[0]))
        except (TypeError, ValueError):
            return
        if any(real == f or real.startswith(f.rstrip("/") + "/") for f in WATCH.forbidden):
            WATCH.reads.append(real)


def _install_watch() -> None:
    """An audit hook for opens and a connect spy; both only record while WATCH.active."""
    sys.addaudithook(_audit)
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: object) -> None:
        if WATCH.active:
            host = address[:2] if isinstance(address, tuple) else address
            if host != WATCH.allowed_connect:
                WATCH.connects.append(address)
                raise ConnectionRefusedError(f"bad_inputs blocked a connect to {address!r}")
        real_connect(self, address)

    rebinds = Counter()

    def getaddrinfo(host, port, *a, **kw):  # type: ignore[no-untyped-def]
        if WATCH.active and isinstance(host, str) and host.endswith(".test"):
            if host == "rebind.test":
                rebinds[host] += 1
                addr = "93.184.216.34" if rebinds[host] % 2 else "127.0.0.1"  # public to the check, then loopback
            else:
                addr = "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (addr, port))]
        return real_getaddrinfo(host, port, *a, **kw)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]

    real_check = hosts.check_host

    def check_host(host: str, port: int) -> list:
        if WATCH.active and host == PUBLIC:
            return [ipaddress.ip_address("127.0.0.1")]
        return real_check(host, port)

    hosts.check_host = check_host  # type: ignore[assignment]


def _listener() -> tuple[object, Callable[[], None]]:
    """A TCP listener on 127.0.0.1 that counts accepts into WATCH.accepts."""

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.05)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            WATCH.accepts += 1
            conn.close()

    t = threading.Thread(target=loop, daemon=True)
    t.start()

    def close() -> None:
        stop.set()
        t.join(2)
        sock.close()

    return sock, close


def hostile_catalogue() -> list[Case]:
    """Reads outside the roots and requests to internal addresses, each as a report source."""
    cases: list[Case] = []
    g = {"fetch_settings": GUARDED}

    def path_case(name: str, path: Callable[[Path], str], expect: tuple[str, ...] = OUTSIDE_WORDS) -> None:
        cases.append(Case("confine", name, lambda w: HEAD + f"source:\n  path: '{path(w)}'\n", expect, settings=g))

    def url_src(name: str, url: Callable[[Path], str], expect: tuple[str, ...], group: str = "internal") -> None:
        cases.append(Case(group, name, lambda w: HEAD + f"source:\n  url: '{url(w)}'\n", expect, settings=g))

    def link(w: Path, name: str, target: Path | str) -> str:
        p = w / "reports" / name
        if not p.is_symlink():
            p.symlink_to(target)
        return name

    secret = lambda w: w / "secret" / "secret.md"  # noqa: E731
    path_case("abs-secret", lambda w: str(secret(w)))
    path_case("abs-secret-missing", lambda w: str(w / "secret" / "nothing.md"))
    path_case("abs-secret-folder-missing", lambda w: str(w / "nowhere" / "x.pdf"))
    for p in ("/etc/passwd", "/etc/shadow", "/etc/hostname", "/etc/no-such-file", "/proc/self/environ", "/proc/self/cmdline",
              "/dev/zero", "/dev/urandom", "//etc//passwd", "/etc/./passwd", "/root/.ssh/id_rsa"):  # fmt: skip
        path_case(f"abs{p.replace('/', '-')}", lambda w, p=p: p)
    path_case("dotdot-secret", lambda w: "../secret/secret.md")
    path_case("dotdot-secret-missing", lambda w: "../secret/nothing.md")
    path_case("dotdot-deep-passwd", lambda w: "../" * 12 + "etc/passwd")
    path_case("dotdot-through-missing-dir", lambda w: "no-dir/../../secret/secret.md")
    path_case("dotdot-via-inputs", lambda w: "../inputs/../secret/secret.md")
    path_case("root-prefix-sibling", lambda w: "../reports-evil/a.md")
    path_case("symlink-file-to-secret", lambda w: link(w, "link.md", secret(w)))
    path_case("symlink-file-to-passwd", lambda w: link(w, "pw.md", "/etc/passwd"))
    path_case("symlink-dir-to-secret", lambda w: link(w, "dirlink", w / "secret") + "/secret.md")
    path_case("symlink-dir-to-etc", lambda w: link(w, "etclink", "/etc") + "/passwd")
    path_case("symlink-dangling-outside", lambda w: link(w, "dangle.md", w / "secret" / "gone.md"))
    path_case("symlink-chain", lambda w: link(w, "hop2.md", w / "reports" / link(w, "hop1.md", secret(w))))
    path_case("home-tilde", lambda w: "~/.bashrc", ("not found",))  # a literal folder named "~" inside reports/
    for name, url in {
        "file-url-secret": lambda w: secret(w).as_uri(),
        "file-url-passwd": lambda w: "file:///etc/passwd",
        "file-url-localhost": lambda w: "file://localhost/etc/passwd",
        "file-url-encoded": lambda w: "file:///etc/%70asswd",
        "file-url-dotdot": lambda w: (w / "reports").as_uri() + "/../secret/secret.md",
        "file-url-missing": lambda w: "file:///etc/no-such-file",
    }.items():
        url_src(name, url, OUTSIDE_WORDS, group="confine")
    # internal addresses: every one must be refused before any connection
    P = lambda: LISTENER_PORT  # noqa: E731
    for host in ("127.0.0.1", "localhost", "[::1]", "0.0.0.0", "[::]", "2130706433", "0x7f.0.0.1", "0x7f000001", "127.1",
                 "0177.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "127.0.0.2", "LOCALHOST", "localhost."):  # fmt: skip
        url_src(f"loopback-{host.strip('[]')}", lambda w, h=host: f"http://{h}:{P()}/report.pdf", INTERNAL_WORDS)
    url_src("loopback-https", lambda w: f"https://127.0.0.1:{P()}/report.pdf", INTERNAL_WORDS)
    for host in ("169.254.169.254", "[fe80::1]", "10.0.0.1", "10.255.255.254", "172.16.0.1", "192.168.1.1",
                 "100.64.0.1", "224.0.0.1", "255.255.255.255", "[fd00::1]", "[ff02::1]", "[::ffff:a9fe:a9fe]",
                 "0251.0376.0251.0376", "2852039166", "[64:ff9b::a9fe:a9fe]", "[2002:a9fe:a9fe::]"):  # fmt: skip
        url_src(f"internal-{host.strip('[]')}", lambda w, h=host: f"http://{h}/latest/meta-data/", INTERNAL_WORDS)
    # redirects from the (simulated) public host to internal ones, and DNS rebinding
    for name, to in {
        "loopback": lambda: f"http://127.0.0.1:{P()}/x.pdf",
        "localhost": lambda: f"http://localhost:{P()}/x.pdf",
        "metadata": lambda: "http://169.254.169.254/latest/meta-data/",
        "private-10": lambda: "http://10.0.0.1/x.pdf",
        "ipv6-loopback": lambda: f"http://[::1]:{P()}/x.pdf",
        "decimal-ip": lambda: f"http://2130706433:{P()}/x.pdf",
        "file": lambda: "file:///etc/passwd",
    }.items():
        expect = INTERNAL_WORDS if name != "file" else ("only http(s) redirects",)
        url_src(
            f"redirect-to-{name}",
            lambda w, to=to: f"http://{PUBLIC}:{ENDPOINTS.server.port}/redirect?to={to()}",
            expect,
            group="redirect",
        )
    url_src("dns-rebinding", lambda w: f"http://rebind.test:{P()}/x.pdf", INTERNAL_WORDS, group="redirect")
    return cases


def setup_hostile(work: Path) -> None:
    """The secret outside the roots (with the canary word) and a folder whose name extends `reports`."""
    (work / "secret").mkdir(exist_ok=True)
    (work / "secret" / "secret.md").write_text(f"# Secret\n\nThe {CANARY} agent key is hunter2.\n")
    (work / "reports-evil").mkdir(exist_ok=True)
    (work / "reports-evil" / "a.md").write_text(f"# Evil\n\n{CANARY} agent.\n")


def canary_stored(store: Store) -> bool:
    """Whether the secret's words reached the store (bundles or the text cache)."""
    for p in store.root.rglob("*"):
        if p.is_file() and p.suffix in (".gz", ".json", ".parquet", ".csv"):
            raw = p.read_bytes()
            if p.suffix == ".gz":
                try:
                    raw = gzip.decompress(raw)
                except OSError:
                    continue
            if CANARY.encode() in raw:
                return True
    return False


def confine_family(cat: Catalogue, victim: Victim) -> None:
    """Every confine and internal-address case; a read outside the roots or a request out counts even when refused."""
    global LISTENER_PORT
    work = victim.work
    setup_hostile(work)
    _install_watch()
    sock, close = _listener()
    LISTENER_PORT = sock.getsockname()[1]  # type: ignore[attr-defined]
    WATCH.forbidden = tuple(
        os.path.realpath(p)
        for p in (work / "secret", work / "reports-evil", "/etc", "/proc/self", "/dev/zero", "/dev/urandom", "/root")
    )
    WATCH.allowed_connect = ("127.0.0.1", ENDPOINTS.server.port)
    try:
        for case in hostile_catalogue():

            def one(case: Case = case) -> Check:
                WATCH.reads.clear()
                WATCH.connects.clear()
                before = WATCH.accepts
                WATCH.active = True
                try:
                    check = victim.run_case(case)
                finally:
                    WATCH.active = False
                read = bool(WATCH.reads) or canary_stored(victim.store) or check.message.startswith("accepted")
                internal = bool(WATCH.connects) or WATCH.accepts > before
                if read and case.group == "confine":
                    check.wrong += 1
                    check.message = f"READ OUTSIDE THE ROOTS {WATCH.reads[:2]}: {check.message}"
                if internal:
                    check.other_hosts += 1
                    check.message = f"INTERNAL REQUEST {WATCH.connects[:2]}: {check.message}"
                check.ok = check.ok and not (read and case.group == "confine") and not internal
                return check

            cat.add(1, case.group, case.name, one)
    finally:
        close()
