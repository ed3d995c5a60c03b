"""Real-browser test of the figure export (views/chart_export.py): on the Benchmarks page, the
coverage chart's "Export as a figure" popover downloads a valid SVG and a standalone HTML page, made
on the click (Streamlit's deferred download data). `streamlit run app.py` driven by Playwright with
Debian's chromium, on a store the real pipeline built (tests/bench_fixtures.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.test_browser import CHROME_ARGS, CHROMIUM, IDLE, start_app, stop

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium not installed (CI installs it with apt)"),
]


@pytest.fixture(scope="module")
def server(bench_store: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on 127.0.0.1:<free port>, read-only, reading the pipeline-built store (shared by the session)."""
    data, reports = bench_store
    proc, url = start_app(data, reports, tmp_path_factory.mktemp("export-browser") / "streamlit.log", {"FRL_READ_ONLY": "1"})
    try:
        yield url
    finally:
        stop(proc)


def test_browser_coverage_chart_downloads_as_svg_and_offline_html(server: str, tmp_path: Path) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
            page.goto(f"{server}/benchmarks")
            page.wait_for_timeout(300)
            page.wait_for_selector(IDLE, timeout=90_000)
            popover = page.locator(".st-key-dl_fig_bench_coverage_svg")
            page.get_by_role("button", name="Export as a figure").first.click()
            expect(popover).to_be_visible(timeout=30_000)
            got = {}
            for fmt in ("svg", "html"):
                with page.expect_download(timeout=60_000) as dl:
                    page.locator(f".st-key-dl_fig_bench_coverage_{fmt}").get_by_role("button", name=fmt.upper()).click()
                got[fmt] = dl.value.suggested_filename, Path(dl.value.path()).read_bytes()
        finally:
            browser.close()
    name, svg = got["svg"]
    root = ET.fromstring(svg)
    assert name == "bench_coverage.svg" and root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "Benchmarks per category" in " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    name, page_html = got["html"]
    assert name == "bench_coverage.html" and b"Plotly.newPlot" in page_html and b"<script src=" not in page_html
