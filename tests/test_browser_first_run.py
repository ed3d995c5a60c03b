"""The first run a new user sees: `make app`'s own ingest of (a copy of) the shipped reports, offline, then every page.

The shipped reports carry three source PDFs (reports/files, see its SOURCES.tsv), so a machine
without network still gets measured content on every page: evidence with quotes and pages, KWIC
lines, result tables, a claims-vs-disclosure chart with points. Also the Review link by id and a
Benchmarks bar click that brings its table into view. Read-only dashboard: nothing in reports/ is
written. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_runs import settle, watch
from tests.conftest import SHIPPED_FILES, copy_shipped
from tests.test_browser import ARTIFACTS, BROWSER_TESTS, launch, picked, start_app, stop

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "reports" / "files"

pytestmark = BROWSER_TESTS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh data folder filled by the Makefile's ingest command (`python -m ingest`, here with
    --offline so no test reaches the network), then the app on it."""
    root = tmp_path_factory.mktemp("first-run")
    data, reports = root / "data", copy_shipped(root / "reports")
    proc = subprocess.run(
        [sys.executable, "-m", "ingest", "--offline", "--quiet", "--data-dir", str(data), "--reports-dir", str(reports)],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr  # 1: the URL-only reports cannot be fetched offline
    app, url = start_app(data, reports, root / "streamlit.log", {"FRL_READ_ONLY": "1"})
    try:
        yield url
    finally:
        stop(app)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def context(browser) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """One context per module, so its HTTP cache keeps the app's JavaScript between tests; each test
    gets its own page (its own Streamlit session)."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    watch(ctx)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)  # a shared, loaded machine draws slowly; the checks are about content
    pg = context.new_page()
    try:
        yield pg
    finally:
        pg.close()


def visit(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    settle(page)


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"first_run_{name}.png"))


def test_bundled_sources_are_listed_with_origin_commit_hash_and_licence() -> None:
    import hashlib

    lines = (BUNDLED / "SOURCES.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    assert head[:8] == ["file", "origin", "repository", "path_in_repository", "commit", "sha256", "licence", "licence_evidence"]
    rows = [dict(zip(head, ln.split("\t"), strict=True)) for ln in lines[1:]]
    # every shipped PDF is listed (files a user uploads beside them are the user's, not listed here)
    assert {r["file"] for r in rows} == {n for n in SHIPPED_FILES if n.endswith(".pdf")}
    for r in rows:
        assert hashlib.sha256((BUNDLED / r["file"]).read_bytes()).hexdigest() == r["sha256"]
        assert len(r["commit"]) == 40 and r["licence"]


def test_compare_shows_automatic_cells_beside_curated_ones(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/compare")
    expect(page.get_by_text("11 of 11 reports")).to_be_visible()
    assert page.locator("table.frl").get_by_text("⚙").count() > 0  # an automatic (measured) cell
    shot(page, "compare")


def test_keywords_and_evidence_show_measured_lines_with_pages(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/keywords")
    expect(page.get_by_text("Measured vs study-reported").first).to_be_visible()
    expect(page.get_by_text("Measured hits by section").first).to_be_visible()  # the charts are drawn
    shot(page, "keywords")
    for rid in ("glm-4.5", "minimax-m1", "deepseek-r1"):  # every bundled PDF
        visit(page, f"{server}/evidence?report={rid}&term=reward")
        expect(page.get_by_text("line(s)").first).to_be_visible()  # KWIC lines of the bundled PDF
        visit(page, f"{server}/evidence?report={rid}&dim=reward_source")
        expect(page.get_by_text("Candidate evidence sentences")).to_be_visible()
        expect(page.get_by_text("see the page").first).to_be_visible()  # a quote with its page
    shot(page, "evidence")


def test_report_card_has_measured_figures(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/report?report=minimax-m1")
    expect(page.get_by_text("measured (whole document)")).to_be_visible()


def test_benchmarks_has_result_tables_and_a_claims_chart_with_points(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/benchmarks")
    expect(page.get_by_text("Scores read from the reports' result tables (3)", exact=False)).to_be_visible()
    page.locator('[data-chart="bench_claims"] .m').first.wait_for(state="attached", timeout=30_000)  # not empty
    assert page.locator('[data-chart="bench_claims"] .n').count() > 0  # points carry report names
    assert page.locator('[data-table="bench_table"] td').count() > 0
    width = page.evaluate("() => document.querySelector('[data-chart=bench_coverage] table').scrollWidth")
    assert width <= 1440 - 300, f"coverage matrix is {width} px wide"
    assert page.get_by_text("(id)").count() == 0 and page.get_by_text("lens id").count() == 0


def test_claims_across_reports_opens_on_a_benchmark_two_reports_print(page, server: str) -> None:  # type: ignore[no-untyped-def]
    visit(page, f"{server}/benchmarks")
    board = page.locator('[data-table="leaderboard"]')
    board.scroll_into_view_if_needed()
    sources = board.locator("td").all_inner_texts()
    reports = {w.split(" ", 1)[0] for cell in sources for w in cell.split("; ") if " p" in w}
    assert len(reports & {"glm-4.5", "minimax-m1", "deepseek-r1"}) >= 2, sources[:20]
    chosen = picked(page, "Benchmark (catalogue name")
    assert chosen and "Average" not in chosen and "AA-Index" not in chosen, chosen
    shot(page, "claims_across_reports")


def test_benchmarks_bar_click_brings_its_table_into_view(page, server: str) -> None:  # type: ignore[no-untyped-def]
    visit(page, f"{server}/benchmarks")
    bar = page.locator('[data-chart="bench_bars"] a').last
    bar.scroll_into_view_if_needed()
    bar.click()
    page.wait_for_function("() => location.search.includes('table=')", timeout=30_000)
    settle(page)
    on_screen = """() => { const t = document.querySelector('[data-table="bench_table"]');
        if (!t) return false; const y = t.getBoundingClientRect().top; return y >= 0 && y < 1000; }"""
    page.wait_for_function(on_screen, timeout=30_000)  # the table is on screen, not 1,600 px below
    shot(page, "benchmarks_click")


def test_review_link_by_id_and_an_unknown_id(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/review?rid=glm-4.5")
    expect(page.get_by_text("automatic: ", exact=False).first).to_be_visible()
    assert "rid=glm-4.5" in page.url
    assert page.get_by_text("no source text was read").count() < 6  # measured cells, not only "none"
    visit(page, f"{server}/review?rid=qwen3x")
    expect(page.get_by_text("No report with id 'qwen3x'", exact=False)).to_be_visible()
    assert page.get_by_text("automatic: ", exact=False).count() == 0


def test_indicators_view_shows_checklists_with_pages(page, server: str) -> None:  # type: ignore[no-untyped-def]
    visit(page, f"{server}/indicators")
    cell = page.locator('[data-chart="indicators"] a', has_text="yes · p.").first
    cell.wait_for(state="attached", timeout=30_000)
    assert "evidence?report=" in (cell.get_attribute("href") or "")
    shot(page, "indicators")


def test_search_view_finds_any_phrase_with_kwic_lines(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    visit(page, f"{server}/search?q=reward+shaping")
    expect(page.get_by_text("[reward shaping]", exact=False).first).to_be_visible()
    expect(page.get_by_text("see the page").first).to_be_visible()
    shot(page, "search")


def test_timeline_view_places_dated_reports(page, server: str) -> None:  # type: ignore[no-untyped-def]
    visit(page, f"{server}/timeline")
    page.locator('[data-chart="timeline"] a.m').first.wait_for(state="attached", timeout=30_000)
    assert page.locator('[data-chart="timeline"] a.m').count() >= 2
    shot(page, "timeline")
