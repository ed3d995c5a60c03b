"""The bad-input catalogue of issue 4, one test each: a clear message, no crash, and no lost results.

Each test starts from a store in which report `r` was ingested successfully, points `r` (or a
new report) at a bad input, runs the pipeline, and checks the message and that `r`'s last good
results are still stored and still in the tables.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from fpdf import FPDF

from ingest.pipeline import run
from ingest.pipeline_settings import Outcome, Settings
from ingest.reading.extract import extract_file
from ingest.sources.fetch import FetchSettings
from ingest.store.store import Store

from .conftest import REPO, write_pdf, write_report
from .local_http import LocalServer, serve

#: The server is on 127.0.0.1, so these settings opt in to private hosts.
FAST = FetchSettings(
    connect_timeout=1, read_timeout=0.3, total_timeout=1.0, retries=1, backoff=0.01, max_bytes=1_000_000,
    allow_private_hosts=True,
)  # fmt: skip
GOOD_LINES = ["Introduction", "The agent uses a tool and gets a reward.", "Agentic training with credit assignment."]


@dataclass
class Env:
    reports: Path
    data: Path
    good_pdf: Path
    good_sha: str

    def settings(self, **kw: object) -> Settings:
        # Inputs are written beside the reports folder: that folder is an allowed source root.
        return Settings(data_dir=self.data, fetch_settings=FAST, source_roots=(self.reports.parent,), **kw)  # type: ignore[arg-type]

    def run_one(self, yaml_path: Path, **kw: object) -> Outcome:
        res = run(files=[yaml_path], reports_dir=self.reports, settings=self.settings(**kw))
        assert len(res.outcomes) == 1, res.outcomes
        return res.outcomes[0]

    def point_r_at(self, body: str) -> Path:
        return write_report(self.reports, "r", body)

    def assert_r_kept(self) -> None:
        """`r`'s last good bundle is untouched and the tables still show its measured counts."""
        store = Store(self.data)
        bundle = store.load_bundle("r")
        assert bundle and bundle.meta.sha256 == self.good_sha and bundle.counts
        reports = store.read_table("reports").set_index("report_id")
        assert bool(reports.loc["r", "measured"]) and int(reports.loc["r", "words"]) > 0
        assert (store.read_table("counts")["report_id"] == "r").any()


@pytest.fixture(scope="module")
def good_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding good.pdf, reports/r.yaml pointing at it (relative path) and data/ with `r`
    ingested by the real pipeline: built once per module, copied by every test."""
    root = tmp_path_factory.mktemp("good-store")
    write_pdf(root / "good.pdf", [GOOD_LINES, ["Results", "More agent text."]])
    write_report(root / "reports", "r", "source:\n  path: ../good.pdf\n")
    res = run(reports_dir=root / "reports", settings=Settings(data_dir=root / "data", source_roots=(root,)))
    assert [o.status for o in res.outcomes] == ["ok"], res.outcomes
    return root


@pytest.fixture
def env(good_store: Path, tmp_path: Path) -> Env:
    """A private copy of `good_store` in tmp_path: `r` was ingested successfully."""
    shutil.copytree(good_store, tmp_path, dirs_exist_ok=True)
    reports, data = tmp_path / "reports", tmp_path / "data"
    return Env(reports, data, tmp_path / "good.pdf", Store(data).load_bundle("r").meta.sha256)


def bad_file(env: Env, name: str, data: bytes) -> Outcome:
    """Point `r` at a file with these bytes and ingest it."""
    p = env.reports.parent / name
    p.write_bytes(data)
    return env.run_one(env.point_r_at(f"source:\n  path: {p}\n"))


def fpdf_bytes(pages: int = 2, encrypt: str | None = None, image: Path | None = None) -> bytes:
    pdf = FPDF()
    if encrypt:
        pdf.set_encryption(owner_password="owner", user_password=encrypt)
    pdf.set_font("helvetica", size=11)
    for i in range(pages):
        pdf.add_page()
        if image:
            pdf.image(str(image), x=10, y=10, w=150)
        else:
            pdf.text(20, 20, f"Page {i + 1}: the agent calls a tool and gets a reward.")
    return bytes(pdf.output())


# --------------------------------------------------------------------------- files


def test_zero_byte_file_is_reported_empty(env):
    out = bad_file(env, "empty.pdf", b"")
    assert out.failed and "empty file (0 bytes)" in out.message
    env.assert_r_kept()


def test_truncated_pdf_is_reported_unreadable(env):
    data = env.good_pdf.read_bytes()
    out = bad_file(env, "trunc.pdf", data[: len(data) // 2])
    assert out.failed and "unreadable PDF" in out.message and "truncated" in out.message
    env.assert_r_kept()


def test_truncated_pdf_with_pdfplumber_engine_is_a_clear_error_not_internal(env):
    data = env.good_pdf.read_bytes()
    p = env.reports.parent / "trunc.pdf"
    p.write_bytes(data[: len(data) // 3])
    out = env.run_one(env.point_r_at(f"source:\n  path: {p}\n"), engine="pdfplumber")
    assert out.failed and "unreadable PDF" in out.message and "internal error" not in out.message
    env.assert_r_kept()


def test_pdf_with_broken_xref_is_read_by_repairing_it(env, tmp_path):
    data = fpdf_bytes(3)
    broken = re.sub(rb"startxref\n\d+", b"startxref\n999999", data)
    broken = re.sub(rb"xref\n.*?trailer", b"xref\nthis is not an xref table\ntrailer", broken, flags=re.S)
    assert broken != data
    (tmp_path / "ok.pdf").write_bytes(data)
    (tmp_path / "broken.pdf").write_bytes(broken)
    assert extract_file(tmp_path / "broken.pdf").text == extract_file(tmp_path / "ok.pdf").text


def test_pdf_with_broken_xref_and_no_trailer_is_reported_unreadable(env):
    broken = re.sub(rb"xref.*", b"", fpdf_bytes(3), flags=re.S)
    out = bad_file(env, "noxref.pdf", broken)
    assert out.failed and "unreadable PDF" in out.message
    env.assert_r_kept()


def test_encrypted_pdf_asks_for_a_password(env):
    out = bad_file(env, "secret.pdf", fpdf_bytes(1, encrypt="user-pass"))
    assert out.failed and "encrypted PDF" in out.message and "password" in out.message
    env.assert_r_kept()


def test_scanned_pdf_reports_no_text_layer_not_zero_counts(env, tmp_path):
    from PIL import Image

    img = tmp_path / "scan.png"
    Image.new("RGB", (400, 300), "white").save(img)
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(fpdf_bytes(2, image=img))
    path = write_report(env.reports, "scan", f"source:\n  path: {pdf}\n")
    out = env.run_one(path)
    assert out.failed and "no text layer" in out.message and out.words is None
    store = Store(env.data)
    row = store.read_table("reports").set_index("report_id").loc["scan"]
    assert not bool(row["measured"]) and pd.isna(row["words"])  # no measurement, never a zero count
    assert not (store.read_table("counts")["report_id"] == "scan").any()
    assert "no text layer" in store.read_table("status").set_index("report_id").loc["scan", "message"]
    env.assert_r_kept()


def test_non_pdf_bytes_named_pdf(env):
    out = bad_file(env, "fake.pdf", b"PK\x03\x04 this is a zip archive, not a PDF " * 20)
    assert out.failed and "not a PDF" in out.message
    env.assert_r_kept()


def test_very_large_page_count_is_bounded_and_shows_progress(tmp_path):
    n = 2000
    pdf = tmp_path / "long.pdf"
    pdf.write_bytes(fpdf_bytes(n))
    seen: list[tuple[int, int]] = []
    t0 = time.perf_counter()
    doc = extract_file(pdf, max_pages=3000, progress=lambda done, total: seen.append((done, total)))
    assert len(doc.pages) == n and time.perf_counter() - t0 < 15
    assert seen[-1] == (n, n) and len(seen) == n
    t0 = time.perf_counter()
    with pytest.raises(Exception, match=f"PDF has {n} pages, more than the limit of 500"):
        extract_file(pdf, max_pages=500)
    assert time.perf_counter() - t0 < 2  # refused before reading any page


def test_page_limit_failure_through_the_pipeline_keeps_results(env, tmp_path):
    pdf = tmp_path / "long.pdf"
    pdf.write_bytes(fpdf_bytes(60))
    out = env.run_one(env.point_r_at(f"source:\n  path: {pdf}\n"), max_pages=50)
    assert out.failed and "more than the limit of 50" in out.message
    env.assert_r_kept()


# --------------------------------------------------------------------------- YAML


def test_malformed_yaml_names_line_and_keeps_results(env):
    p = env.reports / "r.yaml"
    p.write_text("id: r\nmodel: [unclosed\norganization: Lab\n")
    out = env.run_one(p)
    assert out.failed and "invalid YAML" in out.message and "line" in out.message and str(p) in out.message
    env.assert_r_kept()


def test_unknown_key_is_rejected_and_keeps_results(env):
    out = env.run_one(env.point_r_at(f"sorce:\n  path: {env.good_pdf}\n"))
    assert out.failed and "sorce" in out.message and "unknown key" in out.message
    env.assert_r_kept()


def test_wrong_types_are_rejected_and_keep_results(env):
    p = env.reports / "r.yaml"
    p.write_text(
        f"id: r\nmodel: R\norganization: Lab\ndoc_type: other\nreleased: yesterday\ntags: 5\nsource:\n  path: {env.good_pdf}\n"
    )
    out = env.run_one(p)
    assert out.failed and "released" in out.message and "tags" in out.message and "YYYY-MM-DD" in out.message
    env.assert_r_kept()


@pytest.mark.parametrize("bad_id", ["../x", "../../etc/passwd", "/abs", "a/b", "..", ".hidden", "UPPER", "x" * 65, ""])
def test_id_that_would_escape_the_data_folder_is_rejected(env, bad_id):
    p = env.reports / "escape.yaml"
    p.write_text(f"id: '{bad_id}'\nmodel: M\norganization: Lab\ndoc_type: other\nsource:\n  path: {env.good_pdf}\n")
    out = env.run_one(p)
    assert out.failed and "id" in out.message and "file name" in out.message
    assert Store(env.data).bundle_ids() == ["r"]
    root = env.reports.parent
    assert not [q for q in root.rglob("*") if q.name.startswith(("x.", "passwd", "abs.", "UPPER"))]
    env.assert_r_kept()


def test_missing_path_is_reported(env):
    out = env.run_one(env.point_r_at("source:\n  path: no/such/file.pdf\n"))
    assert out.failed and "not found" in out.message and "no/such/file.pdf" in out.message
    env.assert_r_kept()


def test_directory_as_path_is_reported(env):
    out = env.run_one(env.point_r_at(f"source:\n  path: {env.reports}\n"))
    assert out.failed and "is a directory" in out.message
    env.assert_r_kept()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_pipe_as_path_is_not_reported_missing(env):
    fifo = env.reports.parent / "pipe.pdf"
    os.mkfifo(fifo)
    out = env.run_one(env.point_r_at(f"source:\n  path: {fifo}\n"))
    assert out.failed and "not a regular file" in out.message
    env.assert_r_kept()


def test_device_outside_the_roots_is_refused_unread(env):
    out = env.run_one(env.point_r_at("source:\n  path: /dev/zero\n"))
    assert out.failed and "outside the allowed source folders" in out.message
    env.assert_r_kept()


def test_yaml_bomb_is_refused_quickly(env):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        lines.append(f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} [{', '.join(['*' + prev] * 9)}]")
    p = env.reports / "r.yaml"
    p.write_text("id: r\nmodel: M\norganization: Lab\ndoc_type: other\nnotes:\n" + "\n".join("  " + x for x in lines) + "\n")
    t0 = time.perf_counter()
    out = env.run_one(p)
    assert out.failed and "too many YAML aliases" in out.message and time.perf_counter() - t0 < 10
    env.assert_r_kept()


def test_deeply_nested_yaml_is_refused_not_a_recursion_crash(env):
    p = env.reports / "r.yaml"
    p.write_text("id: r\nmodel: M\norganization: Lab\ndoc_type: other\ntags: " + "[" * 5000 + "]" * 5000 + "\n")
    t0 = time.perf_counter()
    out = env.run_one(p)
    assert out.failed and "nested too deeply" in out.message and time.perf_counter() - t0 < 5
    env.assert_r_kept()


def test_impossible_date_gets_a_date_hint_not_an_alias_hint(env):
    p = env.reports / "r.yaml"
    p.write_text("id: r\nmodel: M\norganization: Lab\ndoc_type: other\nreleased: 2026-13-45\n")
    out = env.run_one(p)
    assert out.failed and "YYYY-MM-DD" in out.message and "aliases" not in out.message
    env.assert_r_kept()


def test_huge_yaml_file_is_refused(env):
    p = env.reports / "r.yaml"
    p.write_text("id: r\nmodel: M\norganization: Lab\ndoc_type: other\nnotes: '" + "x" * 300_000 + "'\n")
    out = env.run_one(p)
    assert out.failed and "file too large" in out.message
    env.assert_r_kept()


# --------------------------------------------------------------------------- URLs (127.0.0.1 only)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve({"page.html": (b"<html><body><p>x</p></body></html>", "text/html")}) as srv:
        yield srv


def url_outcome(env: Env, server: LocalServer, path: str) -> Outcome:
    return env.run_one(env.point_r_at(f"source:\n  url: {server.url(path)}\n"))


def test_url_that_times_out(env, server):
    t0 = time.perf_counter()
    out = url_outcome(env, server, "/slow-headers")
    # a read timeout, or the total deadline when the machine is busy (each ends the download, with its words)
    assert out.failed and ("timed out" in out.message or "too slow" in out.message) and time.perf_counter() - t0 < 5
    env.assert_r_kept()


def test_url_that_redirects_forever(env, server):
    out = url_outcome(env, server, "/loop/a")
    assert out.failed and "redirect loop" in out.message
    env.assert_r_kept()


def test_url_with_endless_redirect_chain(env, server):
    out = url_outcome(env, server, "/chain/40/page.html")
    assert out.failed and "too many redirects" in out.message
    env.assert_r_kept()


def test_url_that_returns_404(env, server):
    out = url_outcome(env, server, "/status/404")
    assert out.failed and "HTTP 404" in out.message
    env.assert_r_kept()


def test_url_that_returns_500(env, server):
    out = url_outcome(env, server, "/status/500")
    assert out.failed and "HTTP 500" in out.message and "2 attempts" in out.message
    env.assert_r_kept()


def test_url_serving_more_than_the_size_cap(env, server):
    t0 = time.perf_counter()
    out = url_outcome(env, server, "/endless")
    assert out.failed and "size cap" in out.message and time.perf_counter() - t0 < 5
    env.assert_r_kept()


def test_shipped_url_reports_offline_fail_clearly_and_keep_reported_figures(shipped):
    by_id = {o.report_id: o for o in shipped.result.outcomes}
    for rid in ("qwen3", "llama-4"):  # URL only
        assert by_id[rid].failed and "offline" in by_id[rid].message and "not in the download cache" in by_id[rid].message
    for rid in ("glm-4.5", "minimax-m1"):  # URL and a bundled copy (reports/files): read offline
        assert by_id[rid].status == "ok", by_id[rid].message
    reported = Store(shipped.data).read_table("reported")
    assert {"glm-4.5", "qwen3", "minimax-m1", "llama-4"} <= set(reported["report_id"])


# --------------------------------------------------------------------------- concurrency


def test_two_ingest_processes_at_once_on_one_store(tmp_path):
    reports, data = tmp_path / "reports", tmp_path / "data"
    for i in range(6):
        pdf = write_pdf(tmp_path / f"p{i}.pdf", [[f"Report {i}", "The agent uses a tool."] * (i + 1)])
        write_report(reports, f"c{i}", f"source:\n  path: {pdf}\n")
    cmd = [sys.executable, "-m", "ingest", "--quiet", "--reports-dir", str(reports), "--data-dir", str(data)]
    cmd += ["--source-root", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err.decode()
        assert b"Traceback" not in err
    store = Store(data)
    assert store.bundle_ids() == [f"c{i}" for i in range(6)]
    assert all(store.load_bundle(f"c{i}").counts for i in range(6))
    table = store.read_table("reports")
    assert sorted(table["report_id"]) == [f"c{i}" for i in range(6)] and table["measured"].all()
    assert not list(data.rglob("*.tmp"))  # no half-written files left behind


# --------------------------------------------------------------------------- the catalogue (eval/bad_inputs.py)
def _eval_modules():  # type: ignore[no-untyped-def]
    """The catalogue's modules (eval/ is not a package: its folder goes on sys.path, as the script does)."""
    folder = str(REPO / "eval")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import bad_input_cases
    import bad_input_confine
    import bad_input_discover
    import bad_input_ingest
    import bad_input_loss
    import bad_input_tables
    import bad_input_yaml

    return (
        bad_input_cases,
        bad_input_confine,
        bad_input_discover,
        bad_input_ingest,
        bad_input_loss,
        bad_input_tables,
        bad_input_yaml,
    )


def test_the_bad_input_catalogue_keeps_its_size_per_round() -> None:
    """A floor on the inputs of each round's largest families (the catalogue only grows)."""
    _cases, confine, discover, ingest, _loss, _tables, _yaml = _eval_modules()
    assert len(ingest.report_cases(b"%PDF-1.4 x")) >= 150  # rounds 1: files, YAML, URLs, hostile text
    assert len(confine.hostile_catalogue()) >= 70  # round 1: reads outside the roots, internal addresses
    assert len(discover.HOSTILE) + len(discover.STREAMED) >= 13  # round 3: hostile sources beside a good one


def test_the_cheap_families_of_every_round_hold(tmp_path: Path) -> None:
    """The families that need no server and little time, counted as the eval counts them (the others
    have their own tests: test_fetch_bounds, test_page_render, test_safe_exports, test_nothing_lost,
    test_discover_hostile, test_tables_command, test_app_hostile, test_reports_folder_links)."""
    cases, _confine, _discover, _ingest, loss, tables, yaml_cases = _eval_modules()
    cat = cases.Catalogue()
    yaml_cases.yaml_caps_family(cat)
    loss.no_loss_family(cat, tmp_path)
    yaml_cases.every_yaml_family(cat, tmp_path / "yaml")
    tables.search_family(cat)
    loss.accept_during_ingest(cat, tmp_path)
    loss.history_growth(cat, tmp_path)
    # (a hang says so: a case over its time limit is a finding even when its check held)
    bad = [(f.name, f.check.message, "crash" * f.crash or f"hang {f.own_seconds:.1f} s > {f.check.limit:.0f} s" * f.hang)
           for f in cat.findings if not f.check.ok or f.crash or f.hang]  # fmt: skip
    assert not bad, bad
    assert len(cat.findings) >= 23 and {f.round for f in cat.findings} == {2, 3}
    assert not any(f.check.lost or f.check.wrong or f.check.other_hosts for f in cat.findings)
    assert max((f.check.peak_mb or 0) for f in cat.findings if f.family == "yaml-caps") < 50
