"""Real browser (issue 23): payloads in a report's fields and in every query string send no request
to another host, and a read-only dashboard writes no file while serving them.

The report is ingested by the real pipeline with Markdown images, links and HTML tags pointing at
`evil.test` in its model name, organization and notes; the app runs with FRL_READ_ONLY=1; every
page is opened with the payloads in its query parameters, the Source page with ever new `q=`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest
import yaml

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from tests.browser_runs import settle, watch
from tests.test_browser import BROWSER_TESTS, launch, start_app, stop
from views import nav

pytestmark = BROWSER_TESTS

PAYLOAD = '![x](http://evil.test/md.png) [l](http://evil.test/) <img src="http://evil.test/tag.png"> **b**'
PARAMS = ("q", "rq", "dim", "term", "section", "group", "scope")


def _files(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d, _s, names in os.walk(root):
        for n in names:
            st = os.stat(os.path.join(d, n))
            out[os.path.join(d, n)] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    from reportlab.pdfgen import canvas

    root = tmp_path_factory.mktemp("hostile_browser")
    reports = root / "reports"
    reports.mkdir()
    c = canvas.Canvas(str(reports / "h.pdf"))
    c.drawString(50, 750, "The agent uses a tool and gets a reward.")
    c.showPage()
    c.save()
    spec = {"id": "h", "model": PAYLOAD, "organization": PAYLOAD, "notes": PAYLOAD, "doc_type": "other",
            "source": {"path": "h.pdf"}}  # fmt: skip
    (reports / "h.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    run(reports_dir=reports, settings=Settings(data_dir=root / "data", jobs=1))
    proc, url = start_app(root / "data", reports, root / "streamlit.log", env_extra={"FRL_READ_ONLY": "1"})
    try:
        yield url, root
    finally:
        stop(proc)


def test_no_request_to_another_host_and_nothing_written(hostile_app: tuple[str, Path]) -> None:
    from playwright.sync_api import sync_playwright

    url, root = hostile_app
    host = urlparse(url).netloc
    foreign: list[str] = []
    query = "&".join(f"{k}={quote(PAYLOAD)}" for k in PARAMS)
    visits = [f"{url}/{name}?report=h&rid=h&p=1&{query}" for name in nav.PAGES]
    visits += [f"{url}/source?report=h&p=1&q={quote(PAYLOAD + f' {i}')}" for i in range(3)]
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            watch(page)
            page.on("request", lambda req: foreign.append(req.url) if urlparse(req.url).netloc not in (host, "") else None)
            before = _files(root / "data") | _files(root / "reports")
            for v in visits:
                page.goto(v)
                settle(page)
                page.wait_for_load_state("networkidle")  # late requests (images, fonts) are counted too
            assert page.locator('[data-testid="stImage"] img').count() >= 1  # the Source page shows the page
            after = _files(root / "data") | _files(root / "reports")
        finally:
            browser.close()
    assert not foreign, f"requests to other hosts: {foreign}"
    assert after == before, "the read-only dashboard wrote files"
