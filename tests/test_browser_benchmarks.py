"""Real-browser test of the Benchmarks page: `streamlit run app.py` driven by Playwright with Debian's
chromium, on a store the real pipeline built (tests/bench_fixtures.py).

Covers what AppTest cannot: a click on a bar (the plain HTML chart, and plotly behind the
"Interactive charts" switch) opens that report's table below, and the URL then carries the report
and table ids, so the view can be shared; the coverage chart's "Export as a figure" popover downloads
a valid SVG and a standalone HTML page, made on the click (views/chart_export.py). Leaves screenshots
in tests/artifacts/.
"""

from __future__ import annotations

import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_runs import open_popover, settle, watch
from tests.test_browser import ARTIFACTS, BROWSER_TESTS, launch, start_app, stop
from views import chart_export

pytestmark = BROWSER_TESTS


@pytest.fixture(scope="module")
def server(bench_store: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on 127.0.0.1:<free port>, read-only, reading the pipeline-built store (shared by the session)."""
    data, reports = bench_store
    proc, url = start_app(data, reports, tmp_path_factory.mktemp("bench-browser") / "streamlit.log", {"FRL_READ_ONLY": "1"})
    try:
        yield url
    finally:
        stop(proc)


@pytest.mark.parametrize("interactive", [False, True], ids=["plain", "plotly"])
def test_browser_bar_click_opens_the_table_and_the_url_carries_it(server: str, tmp_path: Path, interactive: bool) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            watch(page)
            page.goto(f"{server}/benchmarks?benchmark=tau-bench" + ("&interactive=true" if interactive else ""))
            settle(page)
            expect(page.get_by_role("heading", name="Benchmarks")).to_be_visible()
            expect(page.get_by_text("No benchmark results (1): Bare_Model_.", exact=False)).to_be_visible()
            # Before the click the table section shows the first report with results, not Post-9B.
            expect(page.get_by_text("Post-9B — Table in 'Results'", exact=False)).to_have_count(0)

            if interactive:
                bar = page.locator(".js-plotly-plot .barlayer .point path").first
            else:
                bar = page.locator('[data-chart="bench_bars"] a').first
            bar.scroll_into_view_if_needed()
            bar.click(force=True)
            page.wait_for_function("() => location.search.includes('report=post-9b')", timeout=30_000)
            settle(page)
            query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
            assert query["report"] == ["post-9b"] and query["benchmark"] == ["tau-bench"]
            # The report's first table is the picker's default, which a bound widget leaves out of the URL.
            assert query.get("table", ["Table in 'Results', section Results"]) == ["Table in 'Results', section Results"]
            caption = page.get_by_text("Post-9B — Table in 'Results', section Results", exact=False)
            expect(caption).to_be_visible()
            caption.scroll_into_view_if_needed()
            grid = page.locator('[data-table="bench_table"]').filter(has=page.get_by_text("Rival-10B"))
            expect(grid.first).to_be_visible()  # the rebuilt table holds the other models of the table too

            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shot = ARTIFACTS / f"browser_benchmarks_table_{'plotly' if interactive else 'plain'}.png"
            page.screenshot(path=str(shot))  # the app scrolls inside its own container: shoot the viewport
            print(f"screenshot: {shot}")
            assert shot.stat().st_size > 10_000

            # the shared link reproduces the view: opened in a new tab (the same tab would only
            # follow the address's #fragment, without a new session)
            shared = browser.new_page(viewport={"width": 1400, "height": 1200})
            watch(shared)
            shared.goto(page.url)
            settle(shared)
            expect(shared.get_by_text("Post-9B — Table in 'Results', section Results", exact=False)).to_be_visible()
        finally:
            browser.close()


def test_browser_coverage_chart_downloads_as_svg_and_offline_html(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
            watch(page)
            page.goto(f"{server}/benchmarks")
            settle(page)
            popover = page.locator(".st-key-dl_fig_bench_coverage_html")
            open_popover(page.get_by_role("button", name="Export as a figure").first, popover)
            got = {}
            for fmt in ("html",) if chart_export.static_problem() else ("svg", "html"):
                with page.expect_download(timeout=60_000) as dl:
                    page.locator(f".st-key-dl_fig_bench_coverage_{fmt}").get_by_role("button", name=fmt.upper()).click()
                got[fmt] = dl.value.suggested_filename, Path(dl.value.path()).read_bytes()
        finally:
            browser.close()
    if "svg" in got:  # (kaleido draws SVG with a Chrome it finds: where it cannot, only HTML is offered)
        name, svg = got["svg"]
        root = ET.fromstring(svg)
        assert name == "bench_coverage.svg" and root.tag == "{http://www.w3.org/2000/svg}svg"
        texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
        assert "Benchmarks per category" in texts
    name, page_html = got["html"]
    assert name == "bench_coverage.html" and b"Plotly.newPlot" in page_html and b"<script src=" not in page_html


def test_claims_point_click_in_its_fragment_still_opens_the_table(server: str) -> None:
    """The claims section is a fragment (a pick there redraws it alone); a click on one of its plotly
    points must still rerun the whole page, so the table section below shows the clicked report."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            watch(page)
            page.goto(f"{server}/benchmarks?interactive=true")
            settle(page)
            expect(page.get_by_text("Post-9B — Table in 'Results'", exact=False)).to_have_count(0)
            points = page.locator(".st-key-bench_claims .js-plotly-plot .scatterlayer .point")
            points.first.wait_for(state="attached", timeout=30_000)
            for i in range(points.count()):  # the point of Post-9B (its report holds the only such table)
                points.nth(i).scroll_into_view_if_needed()
                points.nth(i).click(force=True)
                settle(page)
                if "report=post-9b" in page.url:
                    break
            assert "report=post-9b" in page.url
            expect(page.get_by_text("Post-9B — Table in 'Results'", exact=False).first).to_be_attached()
        finally:
            browser.close()
