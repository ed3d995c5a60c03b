"""Bad-input catalogue (issue 4): generate >= 100 bad inputs, ingest each, count crashes and lost data.

    .venv/bin/python eval/bad_inputs.py            # prints the summary and any case that was not a clear error
    .venv/bin/python eval/bad_inputs.py --verbose  # every case with its message

Setup: a private store (temp folder) with three reports ingested successfully, and a server on
127.0.0.1 (tests/local_http.py) for URL cases; nothing touches the internet. Each case rewrites
report `victim` (its YAML, or the file/URL it points at), runs the pipeline on it, and checks:

    clear error  the report failed with a message naming the problem (case's expected words)
    recovered    the input was damaged but still readable (e.g. a PDF whose xref pdfium rebuilds)
    unclear      failed, but the message lacks the expected words
    crash        an exception escaped the pipeline, an "internal error", or a traceback from the CLI
    data lost    afterwards a good result is missing: victim's last good bundle (when the case failed),
                 the other reports' bundles, or their rows in the reports/counts tables

The `hostile` family (issue 8) runs without the private-host opt-in and also counts
    reads outside the roots   a file outside the source roots was opened, or its text reached the store
    internal requests         a connection was attempted to an internal address (none leaves this machine:
                              the "public" host of the redirect cases is simulated on 127.0.0.1)

Target: crashes 0, data lost 0, reads outside the roots 0, internal requests 0.

Then issue 23's families (eval/bad_inputs_round2.py: compressed and dripping downloads, huge
pages, read-only Source links and pages with payloads, formula/HTML payloads in every export,
oversized pasted YAML, deletions, a decision during an ingest, full disks), with their own
counts: hangs 0 (fetches and pages included), peak memory of every process <= 1 GB, data lost 0,
stale tables 0, formula cells 0, raw HTML in Markdown 0, references to other hosts 0, files
written in read-only mode 0.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from bench.results_log import recorded  # noqa: E402
from ingest.pipeline import run  # noqa: E402
from ingest.pipeline_settings import Outcome, Settings  # noqa: E402
from ingest.sources.fetch import FetchSettings  # noqa: E402
from ingest.store.store import Store  # noqa: E402
from tests.local_http import LocalServer, serve  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gzip  # noqa: E402
import ipaddress  # noqa: E402
import socket  # noqa: E402
import threading  # noqa: E402

import bad_input_files as files  # noqa: E402
import bad_input_urls as urls  # noqa: E402
import bad_input_yaml as yaml_cases  # noqa: E402
import bad_inputs_round2 as round2  # noqa: E402
from bad_input_cases import ENDPOINTS, HEAD, Case, pdf_bytes  # noqa: E402
from bad_input_pathological import memory_cases, pathological_cases  # noqa: E402

from ingest.sources import hosts  # noqa: E402

#: The URL cases' server is on 127.0.0.1, so they opt in to private hosts (the `hostile` family does not).
FAST = FetchSettings(
    connect_timeout=1, read_timeout=0.3, total_timeout=1.0, retries=1, backoff=0.01, max_bytes=1_000_000,
    allow_private_hosts=True,
)  # fmt: skip

#: A report whose own run takes longer than this counts as a hang (issue 8 acceptance).
HANG_SECONDS = 10.0


@dataclass
class Result:
    case: Case
    verdict: str  # clear | recovered | unclear | crash
    message: str
    lost: list[str]
    seconds: float
    #: The report's own run (worker time) and the worker's peak memory, when the pipeline reported them.
    ingest_seconds: float | None = None
    peak_mb: float | None = None


def catalogue(good_pdf: bytes) -> list[Case]:
    """Every bad input of the issue's catalogue, topic by topic (eval/bad_input_*.py)."""
    return [
        *files.pdf_cases(good_pdf),
        *files.other_file_cases(),
        *files.path_cases(),
        *yaml_cases.malformed_cases(),
        *yaml_cases.wrong_type_cases(),
        *yaml_cases.bomb_cases(),
        *urls.url_cases(),
    ]


# --------------------------------------------------------------------------- running and checking


SERVER: LocalServer


def write_victim(work: Path, text: str | bytes) -> Path:
    p = work / "reports" / "victim.yaml"
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def snapshot(store: Store) -> dict[str, str]:
    return {rid: (b.meta.sha256 or "") if (b := store.load_bundle(rid)) else "" for rid in store.bundle_ids()}


def check_lost(store: Store, good: dict[str, str], failed: bool) -> list[str]:
    """What good result is gone: bundles of every report, and their rows in the tables."""
    lost = []
    now = snapshot(store)
    for rid, sha in good.items():
        if rid == "victim" and not failed:
            if not now.get(rid):
                lost.append("victim bundle missing after a successful run")
            continue
        if now.get(rid) != sha:
            lost.append(f"bundle of {rid} {'missing' if rid not in now else 'changed'}")
    reports = store.read_table("reports")
    measured = set(reports.loc[reports["measured"].astype(bool), "report_id"]) if len(reports) else set()
    counted = set(store.read_table("counts").get("report_id", []))
    for rid in good:
        if rid not in measured or rid not in counted:
            lost.append(f"{rid} missing from the tables")
    return lost


def run_case(case: Case, work: Path, store: Store, good: dict[str, str], good_yaml: str) -> Result:
    t0 = time.perf_counter()
    message, verdict = "", "crash"
    ingest_s = peak = None
    try:
        path = write_victim(work, case.setup(work))
        kw = {"data_dir": store.root, "fetch_settings": FAST, "source_roots": (work / "inputs",), **case.settings}
        settings = Settings(**kw)
        res = run(files=[path], reports_dir=work / "reports", settings=settings)
        outcome: Outcome = res.outcomes[0]
        message = outcome.message
        ingest_s, peak = outcome.seconds, outcome.peak_mb
        if outcome.message.startswith("internal error"):
            verdict = "crash"
        elif not outcome.failed:
            verdict = "recovered" if case.may_succeed else "unclear"
            message = f"accepted ({outcome.status}): {message}"
        elif any(w in message.lower() for w in case.expect):
            verdict = "clear"
        else:
            verdict = "unclear"
        failed = outcome.failed
    except Exception:
        message = traceback.format_exc(limit=3)
        failed = True
    lost = check_lost(store, good, failed)
    # Put the good victim back for the next case (its bundle only changes when a damaged input was readable).
    write_victim(work, good_yaml)
    if snapshot(store).get("victim") != good["victim"]:
        run(
            files=[work / "reports" / "victim.yaml"],
            reports_dir=work / "reports",
            settings=Settings(data_dir=store.root, source_roots=(work / "inputs",)),
        )
    return Result(case, verdict, message, lost, time.perf_counter() - t0, ingest_s, peak)


def concurrent_cases(work: Path, store: Store, good: dict[str, str], rounds: int) -> Iterator[Result]:
    """Two `python -m ingest` processes at once on the same store, with one bad report among good ones."""
    for i in range(rounds):
        case = Case("concurrency", f"two-processes-round-{i + 1}", lambda w: "", ("",))
        bad = work / "reports" / f"broken-{i}.yaml"
        bad.write_text(HEAD.replace("victim", f"broken-{i}") + "tags: [unclosed\n")
        cmd = [sys.executable, "-m", "ingest", "--quiet", "--reports-dir", str(work / "reports"), "--data-dir", str(store.root)]
        cmd += ["--source-root", str(work / "inputs")]
        if i % 2:
            cmd.append("--force")
        t0 = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        bad.unlink()
        errs = "\n".join(e.decode(errors="replace") for _, e in outs)
        codes = [p.returncode for p in procs]
        if "Traceback" in errs or any(c not in (0, 1) for c in codes):
            verdict, msg = "crash", f"exit codes {codes}: {errs[-500:]}"
        elif codes == [1, 1] and f"broken-{i}" in errs and "invalid YAML" in errs:
            verdict, msg = "clear", f"both exited 1 naming broken-{i}.yaml; others stored"
        else:
            verdict, msg = "unclear", f"exit codes {codes}: {errs[-300:]}"
        leftovers = list(store.root.rglob("*.tmp"))
        lost = check_lost(store, good, failed=True) + [f"temp file left: {p.name}" for p in leftovers]
        yield Result(case, verdict, msg, lost, time.perf_counter() - t0)


def setup_store(work: Path) -> tuple[Store, dict[str, str], str, bytes]:
    """Three good reports (two PDFs, one Markdown post), ingested once."""
    (work / "reports").mkdir(parents=True)
    (work / "inputs").mkdir()
    good_pdf = pdf_bytes(4)
    (work / "inputs" / "victim.pdf").write_bytes(good_pdf)
    (work / "inputs" / "other.pdf").write_bytes(pdf_bytes(2))
    (work / "inputs" / "post.md").write_text("# Post\n\nThe agent uses a tool for a reward.\n\n## More\n\nAgentic text.\n")
    good_yaml = HEAD + f"source:\n  path: {work / 'inputs' / 'victim.pdf'}\n"
    write_victim(work, good_yaml)
    for rid, src in (("other", "other.pdf"), ("post", "post.md")):
        (work / "reports" / f"{rid}.yaml").write_text(
            HEAD.replace("victim", rid) + f"source:\n  path: {work / 'inputs' / src}\n", encoding="utf-8"
        )
    store = Store(work / "data")
    res = run(reports_dir=work / "reports", settings=Settings(data_dir=store.root, source_roots=(work / "inputs",)))
    bad = [o for o in res.outcomes if o.failed]
    if bad:
        raise SystemExit(f"setup failed: {bad}")
    return store, snapshot(store), good_yaml, good_pdf


# --------------------------------------------------------------------------- hostile inputs (issue 8 §1–2)
#
# Every case here runs WITHOUT the private-host opt-in and with the usual roots (reports/ and
# inputs/). Two things are measured while a case runs, beside its verdict:
#   reads outside the roots  a file outside the roots (the secret folder, /etc, /proc, /dev) was
#                            opened (seen by an audit hook on `open`), or the secret's canary word
#                            reached the store
#   internal requests        a socket connect to anything but the simulated public host, or an
#                            accept on the recording listener (127.0.0.1)
# The "public" host is simulated: `public.test` resolves to 127.0.0.1 and is treated as public, so
# redirects from it to internal addresses are tested without sending anything off this machine.
# Every other connect is recorded and blocked.

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
            f"redirect-to-{name}", lambda w, to=to: f"http://{PUBLIC}:{SERVER.port}/redirect?to={to()}", expect, group="redirect"
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


def run_hostile(work: Path, store: Store, good: dict[str, str], good_yaml: str) -> tuple[list[Result], int, int]:
    """Run the hostile family; returns its results, reads outside the roots and internal requests (cases)."""
    global LISTENER_PORT
    setup_hostile(work)
    _install_watch()
    sock, close = _listener()
    LISTENER_PORT = sock.getsockname()[1]  # type: ignore[attr-defined]
    WATCH.forbidden = tuple(
        os.path.realpath(p)
        for p in (work / "secret", work / "reports-evil", "/etc", "/proc/self", "/dev/zero", "/dev/urandom", "/root")
    )
    WATCH.allowed_connect = ("127.0.0.1", SERVER.port)
    results, reads, requests = [], 0, 0
    try:
        for case in hostile_catalogue():
            WATCH.reads.clear()
            WATCH.connects.clear()
            before = WATCH.accepts
            WATCH.active = True
            try:
                r = run_case(case, work, store, good, good_yaml)
            finally:
                WATCH.active = False
            read = bool(WATCH.reads) or canary_stored(store) or r.verdict in ("unclear", "recovered")
            internal = bool(WATCH.connects) or WATCH.accepts > before
            if read and case.group == "confine":
                reads += 1
                r.message = f"READ OUTSIDE THE ROOTS {WATCH.reads[:2]}: {r.message}"
                r.verdict = "unclear" if r.verdict == "clear" else r.verdict
            if internal:
                requests += 1
                r.message = f"INTERNAL REQUEST {WATCH.connects[:2]}: {r.message}"
                r.verdict = "unclear" if r.verdict == "clear" else r.verdict
            results.append(r)
    finally:
        close()
    return results, reads, requests


def main() -> int:
    global SERVER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true", help="print every case with its message")
    ap.add_argument("--rounds", type=int, default=3, help="concurrent-process rounds (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep the temp work folder")
    ap.add_argument("--no-round2", action="store_true", help="skip issue 23's families (eval/bad_inputs_round2.py)")
    ap.add_argument("--round2-only", action="store_true", help="only issue 23's families")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bad_inputs."))
    if args.round2_only:
        return _round2_only(work, args)
    files = {
        "page.html": (b"<html><body><p>x</p></body></html>", "text/html"),
        "login.pdf": (b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>log in</body></html>", "text/html"),
        "image.pdf": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
    }
    t_all = time.perf_counter()
    try:
        with serve() as closed:
            ENDPOINTS.closed_port = closed.port  # a port that was just freed: connections are refused
        with serve(files) as server:
            SERVER = ENDPOINTS.server = server
            store, good, good_yaml, good_pdf = setup_store(work)
            cases = catalogue(good_pdf) + pathological_cases() + memory_cases()
            results = [run_case(c, work, store, good, good_yaml) for c in cases]
            hostile, reads_outside, internal_requests = run_hostile(work, store, good, good_yaml)
            results += hostile
            second = None if args.no_round2 else round2.run_round2(work / "round2", server)
        results += list(concurrent_cases(work, store, good, args.rounds))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    verdicts = Counter(r.verdict for r in results)
    lost = [r for r in results if r.lost]
    for r in results:
        if args.verbose or r.verdict in ("crash", "unclear") or r.lost:
            flag = "LOST " if r.lost else ""
            print(f"{flag}{r.verdict:9s} {r.case.group:11s} {r.case.name:34s} {r.seconds:5.2f}s  {r.message[:150]}")
            for item in r.lost:
                print(f"          lost: {item}")
    by_group = Counter(r.case.group for r in results)
    print()
    print(f"inputs tried: {len(results)}  ({', '.join(f'{g} {n}' for g, n in sorted(by_group.items()))})")
    print(f"clear errors: {verdicts['clear']}")
    print(f"recovered (damaged but readable): {verdicts['recovered']}")
    print(f"unclear messages: {verdicts['unclear']}")
    print(f"crashes: {verdicts['crash']}")
    hangs = [r for r in results if (r.ingest_seconds if r.ingest_seconds is not None else r.seconds) > HANG_SECONDS]
    print(f"hangs (a report over {HANG_SECONDS:.0f} s): {len(hangs)}" + "".join(f"\n          {r.case.name}" for r in hangs))
    peaks = [(r.peak_mb, r.case.name) for r in results if r.peak_mb is not None]
    if peaks:
        top, name = max(peaks)
        print(f"peak memory of any input (its worker process): {top:.0f} MB ({name}; target <= 1024 MB)")
    driver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this driver process: {driver:.0f} MB")
    print(f"data lost: {len(lost)}")
    print(f"reads outside the roots: {reads_outside}")
    print(f"internal requests: {internal_requests}")
    if second is not None:
        print("\n".join(round2.report(second, args.verbose)))
    print(f"time: {time.perf_counter() - t_all:.1f} s" + (f"  (work folder kept: {work})" if args.keep else ""))
    ok2 = second is None or round2.passed(second)
    return 0 if not verdicts["crash"] and not lost and not reads_outside and not internal_requests and ok2 else 1


def _round2_only(work: Path, args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    try:
        with serve() as server:
            second = round2.run_round2(work / "round2", server)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n".join(round2.report(second, args.verbose)))
    print(f"time: {time.perf_counter() - t0:.1f} s")
    return 0 if round2.passed(second) else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
