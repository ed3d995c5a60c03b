"""Real-browser test of the review workflow: review a cell, reload, see it curated, YAML round-tripped.

The data are built with the real pipeline from small Markdown sources (tests/review_fixtures.py);
`streamlit run app.py` serves them on a free 127.0.0.1 port and Debian's Chromium drives the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.sources.registry import load_report
from tests import review_fixtures as rf
from tests.browser_runs import open_popover, rerun, settle, watch
from tests.test_browser import ARTIFACTS, BROWSER_TESTS, launch, start_app, stop

pytestmark = BROWSER_TESTS


@pytest.fixture
def review_server(review_store: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The app on a free port over a private copy of reports built by the real pipeline; yields (url, reports_dir)."""
    reports, data = rf.copy_built(review_store, tmp_path)
    proc, url = start_app(data, reports, tmp_path / "streamlit.log", {"FRL_READ_ONLY": "0"})
    try:
        yield url, reports
    finally:
        stop(proc)


def test_browser_review_a_cell_reload_see_it_curated_and_yaml_round_tripped(
    review_server: tuple[str, Path], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, reports = review_server
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            watch(page)
            page.goto(f"{url}/review?rid=alpha")
            expect(page.get_by_role("heading", name="Review")).to_be_visible(timeout=90_000)
            expect(page.get_by_text("automatic: GRPO").first).to_be_visible(timeout=90_000)
            settle(page)

            note = page.locator(".st-key-note_rl_algorithm input")
            pill = page.locator(".st-key-decide").get_by_role("radio", name="RL algorithm", exact=True)
            open_popover(pill, note)  # its pill ("Decide a cell") opens the controls
            note.fill("checked in the browser")
            rerun(page, lambda: note.press("Enter"))  # the note is committed by the run Enter starts
            rerun(page, page.locator(".st-key-save_rl_algorithm button").click)
            expect(page.get_by_text("Saved the decision on RL algorithm.")).to_be_visible(timeout=30_000)

            page.reload()
            expect(page.get_by_text("curated: GRPO", exact=False).first).to_be_visible(timeout=90_000)

            text = (reports / "alpha.yaml").read_text(encoding="utf-8")
            assert text.startswith(rf.ALPHA_YAML)  # every comment, key and quote kept
            cell = load_report(reports / "alpha.yaml").curated["rl_algorithm"]
            assert cell.values == ["GRPO"] and cell.notes == "accepted the automatic value: checked in the browser"

            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shot = ARTIFACTS / "browser_review.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
