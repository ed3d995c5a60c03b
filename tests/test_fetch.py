"""The fetcher end to end against a server on 127.0.0.1: corpus files, the cache, and every way a download goes wrong."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fpdf import FPDF

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.reading.extract import extract_file
from ingest.sources.fetch import FetchError, FetchSettings, cache_entry, fetch_url, locate, sniff_content
from ingest.sources.schema import Source
from ingest.sources.urls import normalize_url

from .local_http import LocalServer, serve

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: Generous time limits, so no test depends on how fast a loaded machine answers: a test of a time
#: limit sets that one limit short and counts the attempts. A small size cap and backoff keep the
#: failure paths quick. The server is on 127.0.0.1, so opted in.
FAST = FetchSettings(
    connect_timeout=10,
    read_timeout=10,
    total_timeout=60,
    retries=2,
    backoff=0.01,
    max_bytes=2_000_000,
    allow_private_hosts=True,
)
#: What every time-limit test allows a download that must stop: far above the limit under test, far
#: below "hangs" (the server's slow routes never end on their own).
STOPPED_WITHIN = 40.0


def small_pdf(text: str = "Agentic tool use with a verifiable reward.") -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


HTML = (FIXTURES / "lab_blog.html").read_bytes()
FILES = {
    "small.pdf": (small_pdf(), "application/pdf"),
    "post.html": (HTML, "text/html; charset=utf-8"),
    "notes.md": (b"# Notes\n\nThe agent calls a tool.\n", "text/markdown"),
    "login.pdf": (b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please log in</body></html>", "text/html"),
    "image.pdf": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    files = dict(FILES)
    if CORPUS.is_dir():
        files["report.pdf"] = ((CORPUS / "pdf" / "kimi-k1.5.pdf").read_bytes(), "application/pdf")
        files["blog.md"] = ((CORPUS / "blog" / "gspo-blog.md").read_bytes(), "text/plain; charset=utf-8")
    with serve(files) as srv:
        yield srv


def fetch(server: LocalServer, path: str, cache: Path, **kw) -> object:
    return fetch_url(server.url(path), cache, settings=kw.pop("settings", FAST), **kw)


def fail(server: LocalServer, path: str, cache: Path, **kw) -> str:
    with pytest.raises(FetchError) as err:
        fetch(server, path, cache, **kw)
    return str(err.value)


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


# --------------------------------------------------------------------------- corpus files over HTTP


@pytest.mark.corpus
@needs_corpus
def test_corpus_pdf_fetched_cached_and_extracted(server, tmp_path):
    got = fetch(server, "/files/report.pdf", tmp_path)
    want = hashlib.sha256((CORPUS / "pdf" / "kimi-k1.5.pdf").read_bytes()).hexdigest()
    assert got.sha256 == want and got.path.name == f"{want}.pdf" and got.path.is_file()
    entry = cache_entry(tmp_path, server.url("/files/report.pdf"))
    assert entry["url"] == server.url("/files/report.pdf") and entry["final_url"] == server.url("/files/report.pdf")
    assert entry["headers"]["etag"] and entry["headers"]["last-modified"] and entry["fetched_at"]
    doc = extract_file(got.path, max_pages=200)
    assert doc.kind == "pdf" and len(doc.pages) > 10 and "reinforcement" in doc.text.lower()


@pytest.mark.corpus
@needs_corpus
def test_corpus_markdown_fetched_as_markdown(server, tmp_path):
    got = fetch(server, "/files/blog.md", tmp_path)
    doc = extract_file(got.path)
    assert got.path.suffix == ".md" and doc.kind == "markdown" and "GSPO" in doc.text


def test_html_page_fetched_and_article_extracted_with_headings(server, tmp_path):
    got = fetch(server, "/files/post.html", tmp_path)
    doc = extract_file(got.path)
    assert doc.kind == "html"
    assert [p.label for p in doc.pages][1:4] == ["Overview", "Reinforcement learning", "Results"]
    assert "Careers" not in doc.text and "analytics" not in doc.text  # navigation and scripts dropped


# --------------------------------------------------------------------------- cache and conditional re-fetch


def test_refetch_is_conditional_and_304_reuses_cached_copy(server, tmp_path):
    first = fetch(server, "/files/notes.md", tmp_path)
    n = len(server.seen_headers)
    second = fetch(server, "/files/notes.md", tmp_path)
    sent = server.seen_headers[n]
    assert sent.get("If-None-Match") and sent.get("If-Modified-Since")
    assert second.path == first.path and second.sha256 == first.sha256 and "not modified" in second.note


def test_identical_bytes_from_two_urls_share_one_object(server, tmp_path):
    a = fetch(server, "/files/small.pdf", tmp_path)
    b = fetch(server, "/chain/1/small.pdf", tmp_path)
    assert a.path == b.path
    assert len(list((tmp_path / "objects").iterdir())) == 1 and len(list((tmp_path / "index").iterdir())) == 2


def test_offline_uses_cache_only(server, tmp_path):
    fetch(server, "/files/small.pdf", tmp_path)
    hits = sum(server.hits.values())
    got = fetch(server, "/files/small.pdf", tmp_path, offline=True)
    assert got.path.is_file() and sum(server.hits.values()) == hits and "offline" in got.note


def test_offline_uncached_url_is_a_clear_error(server, tmp_path):
    msg = fail(server, "/files/never-fetched.pdf", tmp_path, offline=True)
    assert "offline" in msg and "not in the download cache" in msg and "path:" in msg


def test_offline_message_names_the_normalised_url(tmp_path):
    with pytest.raises(FetchError) as err:
        fetch_url("https://arxiv.org/abs/2508.06471", tmp_path, offline=True)
    assert "https://arxiv.org/pdf/2508.06471" in str(err.value) and "normalised from" in str(err.value)


def test_server_error_after_caching_falls_back_to_cached_copy(server, tmp_path):
    good = fetch(server, "/files/small.pdf", tmp_path)
    # Point the cached entry's URL at a failing route by caching under that URL first via a flaky route.
    url = server.url("/flaky/100/small.pdf")
    entry = json.loads(json.dumps(cache_entry(tmp_path, server.url("/files/small.pdf"))))
    entry["request_url"] = url
    from ingest.sources.fetch import _write_entry

    _write_entry(tmp_path, entry)
    got = fetch_url(url, tmp_path, settings=FAST)
    assert got.sha256 == good.sha256 and "HTTP 500" in got.note and "cached" in got.note


def test_corrupt_index_entry_is_a_cache_miss(server, tmp_path):
    fetch(server, "/files/small.pdf", tmp_path)
    for p in (tmp_path / "index").iterdir():
        p.write_text("{not json")
    assert fetch(server, "/files/small.pdf", tmp_path).path.is_file()


# --------------------------------------------------------------------------- errors: status codes, retries


def test_404_is_not_retried(server, tmp_path):
    msg = fail(server, "/status/404", tmp_path)
    assert "HTTP 404" in msg and "check the link" in msg and server.hits["/status/404"] == 1


def test_403_is_not_retried(server, tmp_path):
    assert "HTTP 403" in fail(server, "/status/403", tmp_path) and server.hits["/status/403"] == 1


def test_500_is_retried_with_backoff_then_reported(server, tmp_path):
    msg = fail(server, "/status/503", tmp_path)
    assert "HTTP 503" in msg and "3 attempts" in msg and server.hits["/status/503"] == 3


def test_transient_500_recovers_on_retry(server, tmp_path):
    got = fetch(server, "/flaky/2/small.pdf", tmp_path)
    assert got.path.is_file() and server.hits["/flaky/2/small.pdf"] == 3


# --------------------------------------------------------------------------- errors: redirects


def test_redirect_loop_is_detected(server, tmp_path):
    msg = fail(server, "/loop/a", tmp_path)
    assert "redirect loop" in msg and "/loop/b" in msg and server.hits["/loop/a"] == 1


def test_redirects_within_the_cap_are_followed_and_final_url_recorded(server, tmp_path):
    got = fetch(server, "/chain/3/small.pdf", tmp_path)
    assert got.final_url == server.url("/files/small.pdf")
    assert cache_entry(tmp_path, server.url("/chain/3/small.pdf"))["redirects"][-1] == server.url("/files/small.pdf")


def test_redirects_beyond_the_cap_are_refused(server, tmp_path):
    settings = FetchSettings(**{**vars(FAST), "max_redirects": 2})
    assert "too many redirects" in fail(server, "/chain/5/small.pdf", tmp_path, settings=settings)


def test_redirect_to_a_local_file_is_refused(server, tmp_path):
    msg = fail(server, "/redirect?to=file:///etc/passwd", tmp_path)
    assert "only http(s) redirects" in msg and not list(tmp_path.rglob("objects/*"))


# --------------------------------------------------------------------------- errors: slow, endless, oversize, wrong content


def test_silent_server_times_out_on_every_attempt(server, tmp_path):
    """The read timeout ends each of the 1 + retries attempts (the server answers only after 5 s)."""
    settings = FetchSettings(**{**vars(FAST), "read_timeout": 0.3})
    before = server.hits["/slow-headers"]
    t0 = time.monotonic()
    msg = fail(server, "/slow-headers", tmp_path, settings=settings)
    assert "timed out" in msg and "3 attempts" in msg and server.hits["/slow-headers"] - before == 3
    assert time.monotonic() - t0 < STOPPED_WITHIN


def test_trickling_body_stops_at_the_deadline(server, tmp_path):
    """A body that never ends, one byte per 50 ms: only the total deadline stops it (one attempt)."""
    settings = FetchSettings(**{**vars(FAST), "total_timeout": 1.0})
    before = server.hits["/trickle"]
    t0 = time.monotonic()
    msg = fail(server, "/trickle", tmp_path, settings=settings)
    assert "too slow" in msg and server.hits["/trickle"] - before == 1
    assert time.monotonic() - t0 < STOPPED_WITHIN


def test_endless_body_stops_at_the_size_cap(server, tmp_path):
    """A body that never ends, as fast as the server can send: the size cap stops it, long before
    the (generous) deadline."""
    before = server.hits["/endless"]
    msg = fail(server, "/endless", tmp_path)
    assert "size cap" in msg and server.hits["/endless"] - before == 1
    assert not list((tmp_path / "tmp").iterdir())  # partial download removed


def test_declared_oversize_body_is_refused_before_download(server, tmp_path):
    msg = fail(server, "/big", tmp_path)
    assert "1,000,000,000 bytes" in msg and "size cap" in msg


def test_pdf_link_returning_html_says_so(server, tmp_path):
    msg = fail(server, "/files/login.pdf", tmp_path)
    assert "expected a PDF" in msg and "HTML page" in msg
    assert cache_entry(tmp_path, server.url("/files/login.pdf")) is None  # never cached as good


def test_image_is_not_accepted_as_a_report(server, tmp_path):
    assert "PNG image" in fail(server, "/files/image.pdf", tmp_path)


def test_empty_body_is_an_error(server, tmp_path):
    assert "empty body" in fail(server, "/empty", tmp_path)


def test_body_shorter_than_declared_is_an_error(server, tmp_path):
    assert "broke before the whole file arrived" in fail(server, "/short", tmp_path)


def test_unreachable_host_is_a_clear_error(tmp_path):
    with serve() as srv:
        url = srv.url("/files/x.pdf")
    with pytest.raises(FetchError, match=r"cannot connect to 127\.0\.0\.1"):
        fetch_url(url, tmp_path, settings=FAST)


# --------------------------------------------------------------------------- schemes, settings, locate


@pytest.mark.parametrize("url", ["ftp://example.org/x.pdf", "gopher://example.org/", "mailto:someone@example.org"])
def test_unsupported_schemes_refused_without_network(url, tmp_path):
    with pytest.raises(FetchError, match="unsupported URL scheme"):
        fetch_url(url, tmp_path)


def test_file_url_reads_local_file(tmp_path):
    p = tmp_path / "a report.pdf"
    p.write_bytes(small_pdf())
    got = fetch_url(p.as_uri(), tmp_path / "cache", roots=(tmp_path.resolve(),))
    assert got.path == p.resolve() and got.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "bad",
    [
        {"read_timeout": 0},
        {"connect_timeout": -1},
        {"total_timeout": float("inf")},
        {"max_bytes": 0},
        {"retries": -1},
        {"retries": 1.5},
        {"max_redirects": 100},
        {"backoff": -1},
        {"user_agent": " "},
    ],
)
def test_fetch_settings_are_validated(bad):
    with pytest.raises(ValueError, match="FetchSettings"):
        FetchSettings(**bad)


def test_locate_prefers_existing_path_and_names_both_failures(server, tmp_path):
    (tmp_path / "r.md").write_text("# r\n\ntext\n")
    roots = (tmp_path.resolve(),)
    got = locate(Source(path="r.md", url=server.url("/status/404")), tmp_path, tmp_path / "c", settings=FAST, roots=roots)
    assert got.origin == "path:r.md"
    with pytest.raises(FetchError) as err:
        locate(Source(path="gone.pdf", url=server.url("/status/404")), tmp_path, tmp_path / "c", settings=FAST, roots=roots)
    assert "gone.pdf" in str(err.value) and "HTTP 404" in str(err.value)


def test_sniff_content_kinds():
    assert sniff_content(b"%PDF-1.7\n") == "pdf"
    assert sniff_content(b"\xef\xbb\xbf<!doctype html><p>x") == "html"
    assert sniff_content("# Überschrift\n".encode()) == "text"
    with pytest.raises(FetchError, match="ZIP"):
        sniff_content(b"PK\x03\x04rest")


# --------------------------------------------------------------------------- through the pipeline


def test_pipeline_fetches_url_report_then_serves_it_offline(server, tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "web.yaml").write_text(
        f"id: web\nmodel: Web\norganization: Lab\ndoc_type: blog\nsource:\n  url: {server.url('/files/post.html')}\n"
    )
    settings = Settings(data_dir=tmp_path / "data", fetch_settings=FAST)
    res = run(reports_dir=reports, settings=settings)
    assert [o.status for o in res.outcomes] == ["ok"], res.outcomes
    assert res.outcomes[0].words and res.outcomes[0].words > 100
    off = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data", offline=True, fetch_settings=FAST))
    assert off.outcomes[0].status == "cached" and "offline" in off.outcomes[0].message


def test_normalised_arxiv_url_is_the_cache_key(tmp_path):
    # Two spellings of one paper share one cache entry: caching under the PDF URL serves the abs URL offline.
    from ingest.sources.fetch import _write_entry

    obj = tmp_path / "objects"
    obj.mkdir(parents=True)
    data = small_pdf()
    digest = hashlib.sha256(data).hexdigest()
    (obj / f"{digest}.pdf").write_bytes(data)
    _write_entry(
        tmp_path,
        {
            "version": 1,
            "url": "https://arxiv.org/pdf/2508.06471",
            "request_url": normalize_url("https://arxiv.org/abs/2508.06471"),
            "final_url": "https://arxiv.org/pdf/2508.06471",
            "fetched_at": "2026-01-01T00:00:00+00:00",
            "sha256": digest,
            "size": len(data),
            "kind": "pdf",
            "file": f"objects/{digest}.pdf",
            "headers": {},
        },
    )
    got = fetch_url("http://arxiv.org/abs/2508.06471", tmp_path, offline=True)
    assert got.sha256 == digest
