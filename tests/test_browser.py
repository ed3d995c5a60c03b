"""Real-browser smoke test: `streamlit run app.py` driven by Playwright with Debian's chromium.

Covers what AppTest cannot: the URL-bound filters in a real URL, a click on a plotly bar
opening Evidence, and the Markdown download. Leaves a screenshot in tests/artifacts/.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app_fixtures import write_store

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "tests" / "artifacts"
CHROME_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium not installed (CI installs it with apt)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The app on 127.0.0.1:<free port>, reading a synthetic 8-report store."""
    write_store(tmp_path / "data", 8)
    port = free_port()
    env = os.environ | {"FRL_DATA_DIR": str(tmp_path / "data"), "FRL_REPORTS_DIR": str(tmp_path / "reports")}
    cmd = [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]  # fmt: skip
    log = (tmp_path / "streamlit.log").open("wb")
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{(tmp_path / 'streamlit.log').read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def settle(page) -> None:  # type: ignore[no-untyped-def]
    """Wait until the script finished its run (the app marks that on stApp)."""
    page.wait_for_timeout(150)
    page.wait_for_selector(IDLE, timeout=30_000)


def test_browser_filter_click_through_download_and_screenshot(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True,
            viewport={"width": 1400, "height": 1000}, accept_downloads=True,
        )  # fmt: skip
        try:
            page = ctx.new_page()
            page.goto(server)
            settle(page)
            expect(page.get_by_text("8 of 8 reports")).to_be_visible()

            # a filter: pick an organization; the URL carries it, so the view can be shared
            box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Organization")
            box.locator("input").click()
            page.get_by_role("option", name="Lab B").click()
            page.keyboard.press("Escape")
            settle(page)
            expect(page.get_by_text("2 of 8 reports")).to_be_visible()
            assert "org=Lab+B" in page.url or "org=Lab%20B" in page.url
            page.goto(page.url)  # the shared link reproduces the view
            settle(page)
            expect(page.get_by_text("2 of 8 reports")).to_be_visible()

            # the Markdown export of what is shown
            with page.expect_download() as dl:
                page.get_by_role("button", name="Summary (Markdown)").click()
            md = Path(dl.value.path()).read_text(encoding="utf-8")
            assert md.startswith("| model | organization |")
            assert "| Model 0001 | Lab B |" in md and "Model 0000" not in md

            # a chart click opens Evidence with the lines behind the bar
            page.goto(f"{server}/keywords")
            settle(page)
            bar = page.locator(".js-plotly-plot .barlayer .point path").first
            bar.scroll_into_view_if_needed()
            bar.click(force=True)
            page.wait_for_url("**/evidence?**", timeout=30_000)
            settle(page)
            assert "term=agentic" in page.url and "section=body" in page.url
            expect(page.get_by_role("heading", name="Evidence")).to_be_visible()
            expect(page.get_by_text("line(s)")).to_be_visible()

            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shot = ARTIFACTS / "browser_evidence.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot: {shot}")
            assert shot.stat().st_size > 10_000
        finally:
            ctx.close()
