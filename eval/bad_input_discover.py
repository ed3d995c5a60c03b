"""Following the field against hostile servers (round 3): `discover` reads feeds and APIs from hosts the
user does not control, on a schedule, with nobody watching.

Each case serves one hostile source beside a good one (an Atom feed on another origin, whose post
must still be proposed): dates in the year 99999999999, `Retry-After: ²` and a `Retry-After` date
in that year, `X-RateLimit-Reset: soon`, file sizes of "big", 1e400 and 5,000 digits, numbers and
nesting that break JSON parsers, an entity bomb, a body compressed twice (1 GiB inside), headers sent
one byte at a time, a redirect to another host; then the proposals the user touched. Every server is
on 127.0.0.1; a connect spy counts any connection elsewhere (requests to other hosts). Discover runs
in this process (its in-process bounds: stepwise decoding, one total deadline), so this process's
growth is what a request cost; one case runs the bomb in a child process to show that child's peak.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path

from bad_input_cases import Catalogue, Check, rss_mb

from ingest.run.isolate import isolate
from ingest.sources import api, discover
from ingest.sources.fetch import FetchSettings
from ingest.sources.isolation import Isolate, in_process
from ingest.store.store import Store
from tests.discover_fixtures import ARXIV_FEED, GEMMA_ATOM, QWEN_RSS, SINCE, TREE_K4, serve_api
from tests.local_http import serve

FEED, ATOM, JSON = "application/rss+xml", "application/atom+xml", "application/json"
ENTITY_BOMB = (
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    b"<rss><channel><item><title>&b;</title></item></channel></rss>"
)
TREE_HOSTILE = (
    b'{"tree": [{"path": "a.pdf", "type": "blob", "size": "big"}, {"path": "b.pdf", "type": "blob", "size": 1e400}, '
    b'{"path": "c.pdf", "type": "blob", "size": ' + b"9" * 5000 + b'}, {"path": "ok.pdf", "type": "blob", "size": 12}]}'
)
BAD_DATE = "99999999999"
#: name -> (path served by the hostile host, its answer, words the run must say on stderr)
HOSTILE: dict[str, tuple[str, tuple[int, bytes, str, dict[str, str]], tuple[str, ...]]] = {
    "rss-date-year-99999999999": (
        "/feed", (200, QWEN_RSS.replace("Nov 2026", f"Nov {BAD_DATE}").encode(), FEED, {}), ("skipped:", "pubDate"),
    ),
    "atom-date-year-99999999999": (
        "/feed", (200, GEMMA_ATOM.replace("2026-11-26T12", f"{BAD_DATE}-11-26T12").encode(), ATOM, {}), ("skipped:",),
    ),
    "arxiv-date-year-99999999999": (
        "/arxiv", (200, ARXIV_FEED.replace("2026-11-20T17", f"{BAD_DATE}-11-20T17").encode(), ATOM, {}), ("skipped: arXiv",),
    ),
    "retry-after-superscript-two": ("/feed", (503, b"busy", "text/plain", {"Retry-After": "\u00b2"}), ("HTTP 503",)),
    "retry-after-date-year-99999999999": (
        "/feed", (503, b"busy", "text/plain", {"Retry-After": f"Wed, 21 Oct {BAD_DATE} 07:28:00 GMT"}), ("HTTP 503",),
    ),
    "ratelimit-reset-soon": (
        "/gh/orgs/Evil/repos", (403, b"{}", JSON, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "soon"}), ("rate limit",),
    ),
    "tree-sizes-big-1e400-5000-digits": ("/gh/repos/Evil/x/git/trees/main", (200, TREE_HOSTILE, JSON, {}), ("skipped: GitHub",)),
    "content-length-superscript": ("/feed", (200, QWEN_RSS.encode(), FEED, {"Content-Length": "\u00b2"}), ("warning: feed",)),
    "json-nested-100000-deep": ("/gh/orgs/Evil/repos", (200, b"[" * 100_000 + b"]" * 100_000, JSON, {}), ("not JSON",)),
    "xml-entity-bomb": ("/feed", (200, ENTITY_BOMB, FEED, {}), ("not XML",)),
    "redirect-to-another-host": ("/feed", (302, b"", "text/plain", {"Location": "http://elsewhere.test/f"}), ("warning: feed",)),
}  # fmt: skip
#: Cases served by tests/local_http.py (a bomb, a drip): name -> (path, words).
STREAMED = {
    "gzip,gzip-1GiB-feed": ("/encoded/gzip,gzip/1024", ("size cap",)),
    "headers-byte-by-byte-feed": ("/drip-headers", ("too slow",)),
}
REPOS_OK = json.dumps([{"full_name": "Evil/x", "default_branch": "main", "pushed_at": "2026-11-28T09:12:00Z"}]).encode()
#: What the hostile host serves besides the case's own answer.
ORDINARY = {
    "/gh/orgs/Evil/repos": (200, REPOS_OK, JSON, {}),
    "/gh/repos/Evil/x/git/trees/main": (200, json.dumps(TREE_K4).encode(), JSON, {}),
    "/feed": (200, QWEN_RSS.encode(), FEED, {}),
    "/arxiv": (200, ARXIV_FEED.encode(), ATOM, {}),
}


class ConnectSpy:
    """Counts connections to anything but 127.0.0.1 while `active` (and refuses them)."""

    def __init__(self) -> None:
        self.active, self.elsewhere = False, 0
        real = socket.socket.connect
        spy = self

        def connect(sock: socket.socket, address: object) -> None:
            if spy.active and isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1"):
                spy.elsewhere += 1
                raise ConnectionRefusedError(f"bad_inputs refused a connect to {address!r}")
            real(sock, address)

        socket.socket.connect = connect  # type: ignore[method-assign]


def _watch(base: str, blog: str, feed: str) -> str:
    return f"""version: 1
arxiv: {{categories: [cs.CL], phrases: [technical report], max_results: 50}}
github: {{token_env: FRL_NO_TOKEN, files: ["*.pdf"], max_repos: 5, max_commits: 5}}
api: {{arxiv: "{base}/arxiv", github: "{base}/gh", github_raw: "{base}/raw", min_interval: 0, arxiv_interval: 0,
      max_wait: 5, timeout: 3}}
labs:
  - {{name: Evil Lab, models: [Qwen, Kimi], github: [Evil], feeds: ["{feed}"]}}
  - {{name: Google DeepMind, models: [Gemma], feeds: ["{blog}/gdm.xml"]}}
"""


def run_discover(root: Path, watch: str, isolate_: Isolate = in_process) -> tuple[int, str, str]:
    """`discover` on a fresh folder; (exit status, stdout, stderr)."""
    (root / "reports").mkdir(parents=True, exist_ok=True)
    (root / "watch.yaml").write_text(watch, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    since = discover.dt.date.fromisoformat(SINCE)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = discover.run(root / "watch.yaml", root / "reports", Store(root / "data"), since=since,
                            fetch_settings=FetchSettings(allow_private_hosts=True), isolate=isolate_)  # fmt: skip
    return code, out.getvalue(), err.getvalue()


def _judge(root: Path, code: int, err: str, words: tuple[str, ...], grew: float, took: float, elsewhere: int) -> Check:
    good = (root / "reports" / "incoming" / "gemma-5.yaml").is_file()
    said = all(w in err for w in words)
    ok = code == 0 and good and said and "Traceback" not in err and not elsewhere
    msg = f"exit {code}, good source proposed {good}, said {said}: {err.strip().splitlines()[-1][:120] if err.strip() else ''}"
    return Check(ok, msg, wrong=int(not good), other_hosts=elsewhere, peak_mb=grew, process="discover (growth)", seconds=took)


def discover_family(cat: Catalogue, work: Path) -> dict[str, bool]:
    """Every hostile source beside a good one; returns case name -> whether the good source was proposed."""
    spy = ConnectSpy()
    beside: dict[str, bool] = {}

    def case(name: str, table: dict, feed_path: str, words: tuple[str, ...], streamed: str | None = None,
             isolate_: Isolate = in_process) -> Callable[[], Check]:  # fmt: skip
        def one() -> Check:
            root = work / "discover" / name
            with serve_api({"/gdm.xml": (200, GEMMA_ATOM.encode(), ATOM, {})}) as blog, serve_api(table) as host, serve() as slow:
                feed = slow.url(streamed) if streamed else host.url(feed_path)
                before_rss, before, t0 = rss_mb(), spy.elsewhere, time.perf_counter()
                spy.active = True
                try:
                    code, _out, err = run_discover(root, _watch(host.url(), blog.url(), feed), isolate_)
                finally:
                    spy.active = False
                took, elsewhere = time.perf_counter() - t0, spy.elsewhere - before
                check = _judge(root, code, err, words, rss_mb() - before_rss, took, elsewhere)
            beside[name] = (root / "reports" / "incoming" / "gemma-5.yaml").is_file()
            return check

        return one

    for name, (path, answer, words) in HOSTILE.items():
        cat.add(3, "discover", name, case(name, {**ORDINARY, path: answer}, "/feed", words))
    for name, (path, words) in STREAMED.items():
        cat.add(3, "discover", name, case(name, {}, "/feed", words, streamed=path))
    api.PEAKS.mb = 0.0
    name = "gzip,gzip-1GiB-feed-in-a-child"
    bomb = case(name, {}, "/feed", ("size cap",), streamed="/encoded/gzip,gzip/1024", isolate_=isolate)

    def in_child() -> Check:
        check = bomb()
        check.peak_mb, check.process = max(check.peak_mb or 0.0, api.PEAKS.mb), "request process"
        return check

    cat.add(3, "discover", name, in_child)
    proposals_family(cat, work)
    return beside


def proposals_family(cat: Catalogue, work: Path) -> None:
    """A proposal the user edited (into one that no longer validates) is never overwritten nor proposed
    again; a file of the user's under the name a proposal would take is left alone."""

    def one() -> Check:
        root = work / "proposals"
        with serve_api({"/gdm.xml": (200, GEMMA_ATOM.encode(), ATOM, {})}) as blog, serve_api({}) as host:
            watch = _watch(host.url(), blog.url(), host.url("/feed"))
            mine = root / "reports" / "incoming" / "gemma-5.yaml"
            run_discover(root, watch)
            edited = mine.read_text().replace("organization:", "organisation:")
            mine.write_text(edited)
            run_discover(root, watch)
            kept = mine.read_text() == edited
            again = len(list((root / "reports" / "incoming").glob("gemma-5*.yaml")))
        return Check(kept and again == 1, f"edited proposal kept {kept}, proposals of it {again}", lost=int(not kept),
                     wrong=int(again != 1))  # fmt: skip

    cat.add(3, "discover", "edited-proposal-never-overwritten", one)
