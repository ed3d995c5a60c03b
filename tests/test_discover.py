"""`python -m ingest discover`: candidates from arXiv, GitHub and feeds served on 127.0.0.1 in each API's
documented format; duplicates (URL, arXiv id in any version, SHA-256) left out; proposals that `check`
accepts; accept / dismiss; rate limits and Retry-After obeyed; no network: one line, nothing written."""

from __future__ import annotations

import datetime as dt
import json
import socket
from pathlib import Path

import pytest
import yaml

from ingest.cli import main
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.api import ApiClient, ApiError, retry_after
from ingest.sources.discover import url_key
from ingest.sources.feeds import FeedError, parse_arxiv, parse_feed
from ingest.sources.watch import Api, load_state

from .conftest import write_pdf, write_report
from .discover_fixtures import ARXIV_ERROR, ARXIV_FEED, SINCE, routes, serve_api, watch_yaml

EXPECTED_NEW = {"kimi-k3.5", "exaone-5.0", "kimi-k4", "qwen3.5", "gemma-5"}


@pytest.fixture
def field(tmp_path: Path):
    """A reports folder with three known reports (one ingested from a PDF that a watched repository also holds)."""
    k3 = write_pdf(tmp_path / "k3.pdf", [["Kimi K3 technical report.", "We train agents with RL and rewards."]])
    k4 = write_pdf(tmp_path / "k4.pdf", [["Kimi K4 technical report: a new model."]])
    reports = tmp_path / "reports"
    write_report(
        reports,
        "qwen3",
        model="Qwen3",
        doc_type="arxiv",
        arxiv_id="2505.09388",
        source={"url": "https://arxiv.org/abs/2505.09388"},
    )
    write_report(
        reports, "qwen3-coder", model="Qwen3-Coder", doc_type="blog", source={"url": "https://qwenlm.github.io/blog/qwen3-coder"}
    )
    k3_yaml = write_report(reports, "kimi-k3", model="Kimi K3", source={"path": str(k3)})
    data = tmp_path / "data"
    res = run(files=[k3_yaml], reports_dir=reports, settings=Settings(data_dir=data, offline=True, source_roots=(tmp_path,)))
    assert not [o for o in res.outcomes if o.report_id == "kimi-k3" and o.failed]
    with serve_api(routes(k4.read_bytes(), k3.read_bytes())) as server:
        watch = tmp_path / "watch.yaml"
        watch.write_text(watch_yaml(server.url()))
        yield reports, data, watch, server


def _discover(reports: Path, data: Path, watch: Path, *extra: str) -> int:
    args = ["discover", "--watch", str(watch), "--reports-dir", str(reports), "--data-dir", str(data), *extra]
    return main(args)


def test_discover_lists_the_expected_candidates_and_writes_valid_proposals(field, capsys, monkeypatch):
    reports, data, watch, server = field
    monkeypatch.setenv("FRL_TEST_GITHUB_TOKEN", "s3cret")
    assert _discover(reports, data, watch, "--since", SINCE, "--allow-private-hosts") == 0
    out = capsys.readouterr().out
    incoming = reports / "incoming"
    assert {p.stem for p in incoming.glob("*.yaml")} == EXPECTED_NEW
    assert not EXPECTED_NEW & {p.stem for p in reports.glob("*.yaml")}, "no proposal is a report already present"
    lines = {ln.split()[0]: ln for ln in out.splitlines()[2:] if ln.strip()}
    assert "new version v3 of qwen3" in out and "already present (qwen3-coder)" in out and "same file as kimi-k3" in out
    assert all("new" in lines[i] for i in EXPECTED_NEW)
    assert "survey" not in out.lower() and "GLM-5" not in out and "offsite" not in out and "javascript" not in out
    assert main(["check", "--reports-dir", str(incoming)]) == 0  # every proposal passes `check`
    k35 = yaml.safe_load((incoming / "kimi-k3.5.yaml").read_text())
    assert k35["organization"] == "Moonshot AI" and "organization-guessed" in k35["tags"]
    assert k35["arxiv_id"] == "2611.04321" and k35["source"]["url"] == "https://arxiv.org/abs/2611.04321"
    assert str(k35["released"]) == "2026-11-20" and k35["model"] == "Kimi K3.5"
    k4 = yaml.safe_load((incoming / "kimi-k4.yaml").read_text())
    assert k4["source"]["url"] == "https://github.com/MoonshotAI/Kimi-K4/blob/main/tech_report.pdf"
    assert k4["doc_type"] == "github-pdf" and str(k4["released"]) == "2026-11-27"
    # the token goes to the GitHub API only
    gh_requests = sum(n for path, n in server.hits.items() if path.startswith("/gh/"))
    assert gh_requests == 1 + 2 + 3  # repositories, two trees, three commit lists
    assert sum(1 for h in server.headers if h.get("Authorization") == "Bearer s3cret") == gh_requests
    assert load_state(data).last_run == dt.datetime.now(dt.UTC).date()


def test_a_second_run_proposes_nothing_twice_and_accept_moves_a_proposal(field, capsys):
    reports, data, watch, _ = field
    assert _discover(reports, data, watch, "--since", SINCE, "--allow-private-hosts") == 0
    assert _discover(reports, data, watch, "--accept", "kimi-k4") == 0
    assert (reports / "kimi-k4.yaml").is_file() and not (reports / "incoming" / "kimi-k4.yaml").exists()
    assert _discover(reports, data, watch, "--dismiss", "gemma-5") == 0
    assert not (reports / "incoming" / "gemma-5.yaml").exists()
    capsys.readouterr()
    assert _discover(reports, data, watch, "--since", SINCE, "--allow-private-hosts") == 0
    out = capsys.readouterr().out
    assert "0 new proposal(s)" in out and "already present (kimi-k4)" in out and "dismissed" in out
    assert {p.stem for p in (reports / "incoming").glob("*.yaml")} == EXPECTED_NEW - {"kimi-k4", "gemma-5"}
    assert _discover(reports, data, watch, "--accept", "../qwen3") == 2
    assert _discover(reports, data, watch, "--accept", "nothing-here") == 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "base,extra",
    [("http://127.0.0.1:{closed_port}", ["--allow-private-hosts"]), ("http://no-such-host.invalid", [])],
    ids=["closed-local-port", "unknown-host"],
)
def test_unreachable_network_is_one_line_and_writes_nothing(tmp_path, capsys, base, extra):
    # The port is picked as the test runs: picked at collection it would name the test differently in each
    # `pytest -n` worker (which then refuse to run) and could be taken by the time the test runs.
    base = base.format(closed_port=_closed_port())
    reports, data = tmp_path / "reports", tmp_path / "data"
    write_report(reports, "qwen3", model="Qwen3")
    watch = tmp_path / "watch.yaml"
    watch.write_text(watch_yaml(base))
    assert _discover(reports, data, watch, "--since", SINCE, *extra) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "cannot reach the network" in err and "nothing written" in err
    assert not (reports / "incoming").exists() and not (data / "watch_state.json").exists()


def test_local_endpoints_are_refused_without_the_opt_in(field, capsys):
    reports, data, watch, server = field
    assert _discover(reports, data, watch, "--since", SINCE) == 1
    err = capsys.readouterr().err
    assert "internal addresses are refused" in err
    assert sum(server.hits.values()) == 0 and not (reports / "incoming").exists()
    assert not (data / "watch_state.json").exists()


def test_the_default_since_is_the_last_run(field, capsys):
    reports, data, watch, _ = field
    (data / "watch_state.json").write_text(json.dumps({"last_run": "2026-11-23", "dismissed": []}))
    assert _discover(reports, data, watch, "--allow-private-hosts") == 0
    out = capsys.readouterr().out
    assert out.startswith("since 2026-11-23:")
    assert {p.stem for p in (reports / "incoming").glob("*.yaml")} == {"kimi-k4", "qwen3.5", "gemma-5"}


# ------------------------------------------------------------------------------------------ the API client


def _client(**kw) -> tuple[ApiClient, list[float]]:
    waits: list[float] = []
    api = Api(arxiv="http://x", github="http://x", min_interval=0, max_wait=5, timeout=5, **kw)
    return ApiClient(api, allow_private_hosts=True, sleep=waits.append), waits


def test_retry_after_is_obeyed_and_a_long_one_skips_the_source():
    busy = (503, b"busy", "text/plain", {"Retry-After": "2"})
    ok = (200, b"<feed xmlns='http://www.w3.org/2005/Atom'/>", "application/atom+xml", {})
    with serve_api({"/q": ok}, {"/q": [busy]}) as server:
        client, waits = _client()
        assert client.get(server.url("/q")).body.startswith(b"<feed")
        assert waits == [2.0] and server.hits["/q"] == 2
    with serve_api({"/q": (429, b"slow down", "text/plain", {"Retry-After": "120"})}) as server:
        client, waits = _client()
        with pytest.raises(ApiError, match="asks to wait 120 s"):
            client.get(server.url("/q"))
        assert waits == [] and server.hits["/q"] == 1


def test_github_rate_limit_headers_are_obeyed():
    import time

    soon = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3)}
    later = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3600)}
    with serve_api({"/r": (200, b"[]", "application/json", {})}, {"/r": [(403, b"{}", "application/json", soon)]}) as server:
        client, waits = _client()
        assert client.get(server.url("/r")).body == b"[]"
        assert len(waits) == 1 and 1 <= waits[0] <= 3
    with serve_api({"/r": (403, b"{}", "application/json", later)}) as server:
        client, waits = _client()
        with pytest.raises(ApiError, match="rate limit reached"):
            client.get(server.url("/r"))
        with pytest.raises(ApiError, match="rate limit reached earlier"):
            client.get(server.url("/r"))
        assert server.hits["/r"] == 1 and waits == []


def test_answers_are_size_capped_and_budgeted():
    with serve_api({"/big": (200, b"x" * 5000, "text/plain", {})}) as server:
        client, _ = _client(max_bytes=1024)
        with pytest.raises(ApiError, match="cap"):
            client.get(server.url("/big"))
        client, _ = _client(max_requests=1)
        client.api = client.api.model_copy(update={"max_bytes": 10_000})
        client.get(server.url("/big"))
        with pytest.raises(ApiError, match="budget"):
            client.get(server.url("/big"))


def test_retry_after_dates_and_seconds():
    assert retry_after("7", 0) == 7.0
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470.0) == 10.0
    assert retry_after("soon", 0) is None and retry_after(None, 0) is None


# ------------------------------------------------------------------------------------------ parsers


def test_arxiv_feed_is_parsed_with_versions_and_an_error_entry_is_an_error():
    entries = parse_arxiv(ARXIV_FEED.encode())
    assert [(e.arxiv_id, e.version) for e in entries][:3] == [("2611.04321", 1), ("2505.09388", 3), ("2611.05555", 1)]
    assert entries[0].title == "Kimi K3.5: Scaling Agentic Intelligence" and entries[0].published == dt.date(2026, 11, 20)
    with pytest.raises(FeedError, match="incorrect id format"):
        parse_arxiv(ARXIV_ERROR.encode())
    with pytest.raises(FeedError, match="not XML"):
        parse_arxiv(b"Rate exceeded.")


def test_feeds_refuse_entities_and_drop_non_http_links():
    bomb = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>'
    bomb += b"<rss><channel><item><title>&b;</title></item></channel></rss>"
    with pytest.raises(FeedError):
        parse_feed(bomb)
    from .discover_fixtures import GEMMA_ATOM

    assert [i.url for i in parse_feed(GEMMA_ATOM.encode())] == ["https://deepmind.google/blog/gemma-5/"]


def test_url_key_matches_the_same_document_in_its_usual_spellings():
    assert url_key("https://arxiv.org/abs/2505.09388v2") == url_key("http://arxiv.org/pdf/2505.09388")
    assert url_key("https://github.com/o/r/blob/main/a.pdf") == url_key("https://raw.githubusercontent.com/o/r/main/a.pdf")
    assert url_key("https://Example.org/post/") == url_key("https://example.org/post#top")


def test_one_failing_organisation_does_not_stop_the_others(field, capsys):
    reports, data, watch, _ = field
    watch.write_text(watch.read_text().replace("github: [MoonshotAI]", "github: [NoSuchOrg, MoonshotAI]"))
    assert _discover(reports, data, watch, "--since", SINCE, "--allow-private-hosts") == 0
    err = capsys.readouterr().err
    assert "warning: GitHub NoSuchOrg: HTTP 404" in err and err.count("\n") == 1
    assert {p.stem for p in (reports / "incoming").glob("*.yaml")} == EXPECTED_NEW


def test_hostile_titles_become_plain_valid_fields(field, capsys):
    reports, data, watch, server = field
    from .discover_fixtures import QWEN_RSS

    evil = QWEN_RSS.replace("Qwen3.5: Towards Native Agents", "Qwen9 ../../etc/passwd\n\t &lt;script&gt;: x" + "y" * 500)
    with serve_api({"/feeds/qwen.xml": (200, evil.encode(), "application/rss+xml", {})}) as other:
        watch.write_text(watch.read_text().replace(server.url("/feeds/qwen.xml"), other.url("/feeds/qwen.xml")))
        assert _discover(reports, data, watch, "--since", SINCE, "--allow-private-hosts") == 0
    made = sorted(p.name for p in (reports / "incoming").glob("*.yaml"))
    assert all(p.parent == reports / "incoming" for p in (reports / "incoming").glob("**/*.yaml"))
    assert main(["check", "--reports-dir", str(reports / "incoming")]) == 0
    qwen = [yaml.safe_load((reports / "incoming" / n).read_text()) for n in made if n.startswith("qwen9")]
    assert len(qwen) == 1 and "\n" not in qwen[0]["model"] and len(qwen[0]["model"]) <= 80
    assert "/" not in made[[n.startswith("qwen9") for n in made].index(True)]
