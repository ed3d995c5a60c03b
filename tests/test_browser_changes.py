"""Real browser: the Changes view of a revised report (Playwright + /usr/bin/chromium), reached from
the Compare page's mark; no request leaves for another host."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.browser_runs import settle, watch
from tests.test_browser import BROWSER_TESTS, launch, shot, start_app, stop
from tests.test_versions_diff import ADDED, REMOVED
from tests.versions_fixtures import build_revised_store

pytestmark = BROWSER_TESTS


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("browser_changes")
    data, reports = build_revised_store(root)
    proc, url = start_app(data, reports, root / "streamlit.log")
    try:
        yield url
    finally:
        stop(proc)


def test_changes_view_in_a_browser(app_url: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
            watch(ctx)
            page = ctx.new_page()
            foreign: list[str] = []
            host = urlparse(app_url).netloc
            page.on("request", lambda r: foreign.append(r.url) if urlparse(r.url).netloc not in (host, "") else None)
            page.goto(f"{app_url}/compare")
            settle(page)
            mark = page.locator(".frl-changed a").first
            mark.wait_for(timeout=60_000)
            mark.click()
            page.wait_for_url("**/changes?report=lens-7b", timeout=60_000)
            settle(page)
            page.get_by_text("Result tables").first.wait_for(timeout=60_000)
            # the sections are drawn one after another: wait for the last one's content, not its heading
            page.wait_for_function("() => document.body.innerText.includes('41.3')", timeout=60_000)
            page.get_by_text("Keyword counts").first.wait_for(timeout=60_000)
            text = page.inner_text("body")
            shot(page, "changes_view")
            for expected in ("Comparison cells", "Result tables", "44.8", "41.3", "BFCL v3", ADDED, REMOVED):
                assert expected in text, expected
            assert "Keyword counts" in text and "Pages and words" in text
            assert foreign == []
        finally:
            browser.close()
