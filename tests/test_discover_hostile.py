"""`discover` against hostile servers and files (issue 34): every value a server or feed sends is read
by a bounded, total reader; one bad item or source never stops the others (a good source beside
each hostile one is still proposed); the API client has the download's bounds (every decoded layer
capped, one total deadline that covers the headers, the memory limit of a child process); a
proposal the user touched is never overwritten; the watch list goes through the guarded YAML loader.

Every server is on 127.0.0.1 (tests/local_http.py, tests/discover_fixtures.py); waits go through
injected sleep and clock functions, never the wall clock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import resource
import time
from pathlib import Path

import pytest

from ingest.cli import main
from ingest.run.isolate import isolate
from ingest.sources import api as api_module
from ingest.sources.api import ApiClient, ApiError
from ingest.sources.feeds import parse_arxiv, parse_feed, parse_repos, parse_tree
from ingest.sources.values import BadValue, content_length, date_value, epoch_seconds, retry_after, whole_number
from ingest.sources.watch import Api, WatchError, load_state, load_watch

from .conftest import write_report
from .discover_fixtures import ARXIV_FEED, QWEN_RSS, SINCE, routes, serve_api, watch_yaml
from .local_http import serve

HOSTILE_STRINGS = ["", " ", "²", "٣", "1e400", "big", "soon", "-1", "+", "9" * 5000, "\x00", "Tue, 24 Nov 99999999999 00:00:00",
                   "99999999999-01-01", "2026-13-45", "NaN", "inf", "0x10", "1_000", "١٢٣", "Ⅻ", "🙂" * 50]  # fmt: skip


@pytest.mark.parametrize("value", [*HOSTILE_STRINGS, None, 1e400, float("nan"), True, -5, 10**30, [], {}])
def test_value_readers_are_total_on_hostile_values(value: object) -> None:
    """Each reader returns a value or raises BadValue, for anything a server or feed may send."""
    for read in (
        lambda v: date_value(v, "date"),
        lambda v: whole_number(v, "size"),
        lambda v: retry_after(v, 0.0),
        lambda v: epoch_seconds(v, "X-RateLimit-Reset"),
        content_length,
    ):
        with contextlib.suppress(BadValue):
            read(value)


def test_value_readers_read_the_documented_forms() -> None:
    assert date_value("Tue, 24 Nov 2026 00:00:00 +0000", "pubDate") == dt.date(2026, 11, 24)
    assert date_value("2026-11-20T17:59:58Z", "published") == dt.date(2026, 11, 20)
    assert retry_after("7", 0) == 7.0 and retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470.0) == 10.0
    assert whole_number("2000", "size") == 2000 and content_length("12") == 12 and epoch_seconds("4102444800", "r") == 4102444800
    for bad in ("Tue, 24 Nov 99999999999 00:00:00 +0000", "99999999999-01-01"):
        with pytest.raises(BadValue, match=r"out of range|not a date"):
            date_value(bad, "pubDate")
    with pytest.raises(BadValue, match="not a date"):  # a superscript two passes str.isdigit(), not this reader
        retry_after("²", 0)


def test_a_feed_item_dated_year_99999999999_is_skipped_and_the_others_kept() -> None:
    bad = QWEN_RSS.replace("Mon, 16 Nov 2026 00:00:00 +0000", "Mon, 16 Nov 99999999999 00:00:00 +0000")
    parsed = parse_feed(bad.encode())
    assert len(parsed.items) == 2 and len(parsed.skipped) == 1
    assert "Qwen3-Coder" in parsed.skipped[0] and "pubDate" in parsed.skipped[0]
    arxiv = parse_arxiv(ARXIV_FEED.replace("2026-11-21T10:00:00Z", "99999999999-11-21T10:00:00Z").encode())
    assert len(arxiv.items) == 4 and "EXAONE" in arxiv.skipped[0]


def test_github_sizes_and_dates_that_are_not_numbers_skip_only_their_item() -> None:
    tree = b'{"tree": [{"path": "a.pdf", "type": "blob", "size": "big"}, {"path": "b.pdf", "type": "blob", "size": 1e400},'
    tree += b' {"path": "c.pdf", "type": "blob", "size": ' + b"9" * 5000 + b'}, {"path": "d.pdf", "type": "blob", "size": 12}]}'
    parsed = parse_tree(tree)
    assert [f.path for f in parsed.items] == ["d.pdf"] and len(parsed.skipped) == 3
    repos = b'[{"full_name": "o/a", "default_branch": "main", "pushed_at": "99999999999-01-01"},'
    repos += b' {"full_name": "o/b", "default_branch": "main", "pushed_at": "2026-11-20T00:00:00Z"}]'
    parsed_repos = parse_repos(repos)
    assert [r.full_name for r in parsed_repos.items] == ["o/b"] and "o/a" in parsed_repos.skipped[0]


# ------------------------------------------------------------------------------------------ header fields


def _client(**kw) -> tuple[ApiClient, list[float]]:
    waits: list[float] = []
    api = Api(arxiv="http://x", github="http://x", **{"min_interval": 0, "max_wait": 5, "timeout": 5, **kw})
    return ApiClient(api, allow_private_hosts=True, sleep=waits.append, wall=lambda: 1_000_000.0), waits


@pytest.mark.parametrize("value", ["²", "Wed, 21 Oct 99999999999 07:28:00 GMT", "soon", "9" * 5000])
def test_unreadable_retry_after_counts_as_absent(value: str) -> None:
    busy = (503, b"busy", "text/plain", {"Retry-After": value})
    with serve_api({"/q": (200, b"ok", "text/plain", {})}, {"/q": [busy]}) as server:
        client, waits = _client()
        assert client.get(server.url("/q")).body == b"ok"
    assert waits == [2.0]  # the client's own pause, as without the header


@pytest.mark.parametrize("reset", ["soon", "²", "1e400", "9" * 5000, ""])
def test_unreadable_rate_limit_reset_blocks_the_host_without_an_error_of_the_run(reset: str) -> None:
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    with serve_api({"/r": (200, b"[]", "application/json", limited)}) as server:
        client, waits = _client()
        assert client.get(server.url("/r")).body == b"[]"
        with pytest.raises(ApiError, match="rate limit reached earlier"):
            client.get(server.url("/r"))
    with serve_api({"/r": (403, b"{}", "application/json", limited)}) as server:
        client, waits = _client()
        with pytest.raises(ApiError, match="API rate limit reached"):
            client.get(server.url("/r"))
    assert waits == []


# ------------------------------------------------------------------------------------------ bounds


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_layered_gzip_through_the_api_client_stops_at_the_cap_in_a_child() -> None:
    api_module.PEAKS.mb = 0.0
    with serve() as server:
        client, _ = _client(max_bytes=5 * 1024 * 1024, timeout=20)
        client.isolate, client.memory_mb = isolate, 512
        before = _rss_mb()
        with pytest.raises(ApiError, match="size cap"):
            client.get(server.url("/encoded/gzip,gzip/1024"))  # 1 GiB of zeros in a few KB
    assert _rss_mb() - before < 50  # nothing was inflated in this process
    assert 0 < api_module.PEAKS.mb < 512


@pytest.mark.parametrize("in_child", [False, True], ids=["in-process", "child"])
def test_api_headers_sent_one_byte_at_a_time_stop_at_the_deadline(in_child: bool) -> None:
    with serve() as server:
        client, _ = _client(timeout=2)
        if in_child:
            client.isolate = isolate
        t0 = time.monotonic()
        with pytest.raises(ApiError, match="too slow"):
            client.get(server.url("/drip-headers"))
    assert time.monotonic() - t0 < 2 + 4  # the deadline, the kill grace and a process start


# ------------------------------------------------------------------------------------------ whole runs


@pytest.fixture
def field(tmp_path: Path):
    k4 = tmp_path / "k4.pdf"
    k4.write_bytes(b"%PDF-1.4\n% Kimi K4\n")
    reports, data = tmp_path / "reports", tmp_path / "data"
    write_report(reports, "qwen3", model="Qwen3", doc_type="arxiv", arxiv_id="2505.09388")
    with serve_api(routes(k4.read_bytes(), b"%PDF-1.4\n% K3\n")) as server:
        yield reports, data, tmp_path / "watch.yaml", server


def _discover(reports: Path, data: Path, watch: Path) -> int:
    args = ["discover", "--watch", str(watch), "--reports-dir", str(reports), "--data-dir", str(data)]
    return main([*args, "--since", SINCE, "--allow-private-hosts"])


def test_a_good_feed_beside_hostile_sources_is_still_proposed(tmp_path: Path, capsys) -> None:
    """A dripping feed, a layered gzip bomb, a feed of unreadable dates and a GitHub organisation of
    hostile headers and dates beside the good sources: every good candidate is proposed, and the run
    says what it skipped and why."""
    reports, data, watch = tmp_path / "reports", tmp_path / "data", tmp_path / "watch.yaml"
    write_report(reports, "qwen3", model="Qwen3", doc_type="arxiv", arxiv_id="2505.09388")
    table = routes(b"%PDF-1.4\n% Kimi K4\n", b"%PDF-1.4\n% K3\n")
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "soon"}
    table["/gh/orgs/Evil/repos"] = (
        200,
        b'[{"full_name": "Evil/x", "pushed_at": "99999999999-01-01"}]',
        "application/json",
        limited,
    )
    bad_dates = QWEN_RSS.replace("Tue, 24 Nov 2026", "Tue, 24 Nov 99999999999").encode()
    table["/feeds/dates.xml"] = (200, bad_dates, "application/rss+xml", {"Retry-After": "²"})
    with serve() as slow, serve_api(table) as server, serve_api(table) as blogs:  # the blogs are not GitHub's host
        text = watch_yaml(server.url()).replace("timeout: 5", "timeout: 2").replace(server.url("/feeds/"), blogs.url("/feeds/"))
        feeds = [slow.url("/drip-headers"), slow.url("/encoded/gzip,gzip/1024"), blogs.url("/feeds/dates.xml")]
        watch.write_text(
            text + f"  - {{name: Evil, models: [Qwen], github: [Evil], feeds: [{', '.join(repr(f) for f in feeds)}]}}\n"
        )
        assert _discover(reports, data, watch) == 0
    err = capsys.readouterr().err
    made = {p.stem for p in (reports / "incoming").glob("*.yaml")}
    assert {"kimi-k3.5", "exaone-5.0", "kimi-k4", "qwen3.5", "gemma-5"} <= made, (made, err)
    assert "too slow" in err and "size cap" in err and "Traceback" not in err
    assert "skipped: feed" in err and "pubDate" in err and "skipped: GitHub Evil" in err and "pushed_at" in err


def test_an_edited_proposal_is_never_overwritten(field, capsys) -> None:
    reports, data, watch, server = field
    watch.write_text(watch_yaml(server.url()))
    assert _discover(reports, data, watch) == 0
    proposal = reports / "incoming" / "kimi-k3.5.yaml"
    edited = proposal.read_text().replace("organization: Moonshot AI", "organisation: Moonshot AI")  # a typo: invalid now
    proposal.write_text(edited)
    capsys.readouterr()
    assert _discover(reports, data, watch) == 0
    out = capsys.readouterr().out
    assert proposal.read_text() == edited and "you edited it" in out
    assert not list((reports / "incoming").glob("kimi-k3.5-*.yaml"))  # its candidate is not proposed again
    assert "kimi-k3.5" in load_state(data).proposed


def test_a_file_under_the_name_a_proposal_would_take_is_left_alone(field) -> None:
    reports, data, watch, server = field
    watch.write_text(watch_yaml(server.url()))
    mine = reports / "incoming" / "gemma-5.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own notes, not a proposal\n")
    assert _discover(reports, data, watch) == 0
    assert mine.read_text() == "# my own notes, not a proposal\n"
    assert (reports / "incoming" / "gemma-5-2.yaml").is_file()  # the tool's proposal takes a free name
    assert "gemma-5-2" in load_state(data).proposed and "gemma-5" not in load_state(data).proposed


def test_accept_never_replaces_a_report_saved_meanwhile(field, capsys) -> None:
    reports, data, watch, server = field
    watch.write_text(watch_yaml(server.url()))
    assert _discover(reports, data, watch) == 0
    write_report(reports, "gemma-5", model="Mine")
    before = (reports / "gemma-5.yaml").read_text()
    assert main(["discover", "--accept", "gemma-5", "--reports-dir", str(reports), "--data-dir", str(data)]) == 1
    assert (reports / "gemma-5.yaml").read_text() == before and (reports / "incoming" / "gemma-5.yaml").is_file()
    assert "exists already" in capsys.readouterr().err


def test_watch_yaml_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        lines.append(f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} [{', '.join(['*' + prev] * 9)}]")
    watch = tmp_path / "watch.yaml"
    watch.write_text("version: 1\nlabs: []\nx:\n" + "\n".join("  " + x for x in lines) + "\n")
    before, t0 = _rss_mb(), time.monotonic()
    with pytest.raises(WatchError, match="too many YAML aliases"):
        load_watch(watch)
    assert time.monotonic() - t0 < 2 and _rss_mb() - before < 50


def test_accept_while_an_ingest_runs_loses_nothing(tmp_path: Path) -> None:
    """`discover --accept` in the middle of `python -m ingest` (at its first report, through the run's
    progress hook: no wall-clock luck): the run ends as it would have, the proposal is a report, the
    next run ingests it, and nothing is half-written or lost."""
    from ingest.pipeline import Settings, run
    from ingest.sources.discover import move_proposal
    from ingest.store.store import Store

    reports, data = tmp_path / "reports", tmp_path / "data"
    for rid in ("a", "b"):
        (tmp_path / f"{rid}.md").write_text(f"# {rid}\n\nThe agent uses a tool and a reward.\n", encoding="utf-8")
        write_report(reports, rid, source={"path": str(tmp_path / f"{rid}.md")})
    write_report(reports / "incoming", "new-one", model="New One")
    settings = Settings(data_dir=data, source_roots=(tmp_path,), offline=True, jobs=1)
    said: list[str] = []

    def meanwhile(items):  # type: ignore[no-untyped-def]
        for n, item in enumerate(items):
            if n == 0:
                said.append(move_proposal(reports, data, "new-one", accept=True))
            yield item

    first = run(reports_dir=reports, settings=settings, progress=meanwhile)
    assert said and said[0].startswith("accepted:")
    assert {o.report_id: o.status for o in first.outcomes} == {"a": "ok", "b": "ok"}
    assert (reports / "new-one.yaml").is_file() and not (reports / "incoming" / "new-one.yaml").exists()
    second = run(reports_dir=reports, settings=settings)
    assert {o.report_id for o in second.outcomes} == {"a", "b", "new-one"}
    assert set(Store(data).read_table("reports")["report_id"]) == {"a", "b", "new-one"}
    assert not list(data.rglob("*.tmp")) and not list(reports.rglob(".*.tmp"))
