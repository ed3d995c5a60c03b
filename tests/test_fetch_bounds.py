"""Bounded fetching (issue 23): every network byte is decoded under a cap, in a limited child
process, within one total deadline that the report's `--timeout` includes.

All against the local server on 127.0.0.1 (tests/local_http.py): a body compressed twice with
1 GiB inside (2.6 KB on the wire), three layers, and a server that sends its headers one byte
at a time (which no read timeout notices).
"""

from __future__ import annotations

import gzip
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.decode import BoundedDecoder, DecodeError
from ingest.sources.fetch import FetchError, FetchSettings, fetch_url

from .conftest import write_report
from .local_http import LocalServer, encoded, serve

BOUNDED = FetchSettings(
    connect_timeout=1, read_timeout=1, total_timeout=2.0, retries=0, backoff=0.01, allow_private_hosts=True, memory_mb=512
)  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve() as srv:
        yield srv


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _refused(server: LocalServer, path: str, tmp_path: Path, settings: FetchSettings = BOUNDED) -> tuple[str, float]:
    t0 = time.monotonic()
    with pytest.raises(FetchError) as err:
        fetch_url(server.url(path), tmp_path / "cache", settings=settings)
    return str(err.value), time.monotonic() - t0


def test_two_gzip_layers_with_a_gibibyte_inside_stop_at_the_cap_in_the_child(server: LocalServer, tmp_path: Path) -> None:
    assert len(encoded(("gzip", "gzip"), 1024)) < 4096  # the bomb is small on the wire
    before = _peak_mb()
    msg, took = _refused(server, "/encoded/gzip,gzip/1024", tmp_path, FetchSettings(**{**vars(BOUNDED), "total_timeout": 30.0}))
    # 100 MB decoded in bounded steps under a 512 MB limit: the size cap speaks, not the memory limit.
    assert "size cap" in msg and "memory" not in msg, msg
    assert took < 10
    assert _peak_mb() - before < 50  # nothing was inflated in this process


def test_more_than_two_layers_are_refused(server: LocalServer, tmp_path: Path) -> None:
    msg, _ = _refused(server, "/encoded/gzip,gzip,gzip/1", tmp_path)
    assert "compressed 3 times" in msg


def test_compressed_body_within_the_cap_is_decoded(server: LocalServer, tmp_path: Path) -> None:
    for codings in ("gzip", "gzip,gzip", "deflate"):
        got = fetch_url(server.url(f"/encoded/{codings}/1"), tmp_path / codings, settings=BOUNDED)
        data = got.path.read_bytes()
        assert data.startswith(b"%PDF-1.4\n") and len(data) == len(b"%PDF-1.4\n") + (1 << 20), codings


def test_headers_one_byte_at_a_time_stop_at_the_total_deadline(server: LocalServer, tmp_path: Path) -> None:
    msg, took = _refused(server, "/drip-headers", tmp_path)
    assert "too slow" in msg and "2 s" in msg, msg
    assert took < BOUNDED.total_timeout + 4  # the deadline, the kill grace and a process start


def test_report_timeout_covers_the_download(server: LocalServer, tmp_path: Path) -> None:
    """`--timeout 3` with the default 300 s download limit: the download is stopped at 3 s."""
    reports = tmp_path / "reports"
    write_report(reports, "drip", source={"url": server.url("/drip-headers")})
    fs = FetchSettings(connect_timeout=1, read_timeout=1, retries=0, allow_private_hosts=True)
    t0 = time.monotonic()
    res = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data", fetch_settings=fs, timeout=3, jobs=1))
    took = time.monotonic() - t0
    (o,) = res.outcomes
    assert o.status == "failed" and "too slow" in o.message, o.message
    assert took < 3 + 8, took


def test_decoder_caps_every_layer_and_refuses_unknown_codings() -> None:
    inner = gzip.compress(bytes(4 << 20))
    d = BoundedDecoder("gzip, gzip", max_bytes=1 << 20)
    with pytest.raises(DecodeError, match="size cap"):
        for _ in d.feed(gzip.compress(inner)):
            pass
    with pytest.raises(DecodeError, match="does not accept"):
        BoundedDecoder("br", 1)
    d = BoundedDecoder("gzip", 1 << 30)
    list(d.feed(inner[:100]))
    with pytest.raises(DecodeError, match="incomplete"):
        d.finish()
