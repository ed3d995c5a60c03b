"""Real-browser tests: `streamlit run app.py` driven by Playwright with Debian's chromium.

One test per drill-down path (Compare row -> Report, heatmap cell / bar / scatter point -> Evidence,
shared URL -> same view after reload), plus "see the page" and no request to a host other than
the app's. The data is built by the real pipeline (tests/app_fixtures.py). Screenshots go to
tests/artifacts/.
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
from urllib.parse import parse_qs, urlparse

import pytest

from tests.app_fixtures import copy_built
from tests.browser_runs import IDLE, open_popover, settle, watch

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
#: What the browser tests drive: Chromium's headless shell (Debian's chromium-headless-shell: the same
#: build in its old headless mode, which Playwright itself runs for headless tests) when installed, as it
#: takes about half the browser CPU of the full browser in headless mode (bench/browser_cpu.py prints
#: both); else the full browser. The benches time pages in the full browser, as a reader sees them.
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
BROWSER = HEADLESS_SHELL if HEADLESS_SHELL.exists() else CHROMIUM
ARTIFACTS = REPO / "tests" / "artifacts"
CHROME_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

#: The marks of every browser test module (`pytestmark = BROWSER_TESTS`): marked `browser`, skipped
#: with the reason when no Chromium is installed.
BROWSER_TESTS = [
    pytest.mark.browser,
    pytest.mark.skipif(not BROWSER.exists(), reason="/usr/bin/chromium not installed (CI installs it with apt)"),
]
pytestmark = BROWSER_TESTS


def launch(pw):  # type: ignore[no-untyped-def]
    """Chromium for a test, from a running `sync_playwright()`: BROWSER, headless, with CHROME_ARGS."""
    return pw.chromium.launch(executable_path=str(BROWSER), args=CHROME_ARGS, headless=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(
    data: Path, reports: Path, log_path: Path, env_extra: dict[str, str] | None = None, script: Path = REPO / "app.py"
) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free local port, waiting for its health check.

    Another process (a parallel test worker, say) may take the port between `free_port` and Streamlit's
    bind: a server that exits before its health check is started again on a new port (three tries)."""
    env = os.environ | {"FRL_DATA_DIR": str(data), "FRL_REPORTS_DIR": str(reports)} | (env_extra or {})
    for _ in range(3):
        port = free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]  # fmt: skip
        with log_path.open("ab") as log:
            proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        if _healthy(proc, url):
            return proc, url
        if proc.poll() is None:  # still starting after the deadline: not a port clash
            break
    stop(proc)
    pytest.fail(f"streamlit did not start:\n{log_path.read_text()}")


def _healthy(proc: subprocess.Popen, url: str, wait: float = 120) -> bool:
    """Poll the server's health check until it answers, the process exits or `wait` seconds pass (generous:
    on a loaded machine, with the other test worker starting its own server and Chromium, start-up alone
    has taken over 40 s)."""
    deadline = time.monotonic() + wait
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server(pipeline_store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on 127.0.0.1:<free port>, reading a private copy of the session's 6-report store (real pipeline)."""
    root = tmp_path_factory.mktemp("browser")
    data, reports = copy_built(pipeline_store(6), root)
    proc, url = start_app(data, reports, root / "streamlit.log")
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def context(browser) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """One browser context per module: its HTTP cache keeps the app's JavaScript bundles between
    tests (a new context fetches and compiles them again). Each test still gets its own page,
    hence its own Streamlit session; the app keeps no state in the browser but the URL."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    watch(ctx)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context, server: str) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A fresh 1440-px-wide page; records every request to a host other than the app's."""
    pg = context.new_page()
    pg.foreign = []  # type: ignore[attr-defined]
    host = urlparse(server).netloc
    pg.on("request", lambda req: pg.foreign.append(req.url) if urlparse(req.url).netloc not in (host, "") else None)
    try:
        yield pg
    finally:
        pg.close()


def params(page) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    return parse_qs(urlparse(page.url).query)


def picked(page, label: str) -> str:  # type: ignore[no-untyped-def]
    """The option a selectbox shows (its combobox input's value)."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    inp = box.locator("input").first
    return str(inp.input_value() or inp.get_attribute("aria-label") or box.inner_text())


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def click_plotly_point(page, chart_key: str, selector: str, index: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Click a mark of a plotly chart (Streamlit adds `st-key-<key>` to the chart's container)."""
    mark = page.locator(f".st-key-{chart_key} .js-plotly-plot {selector}").nth(index)
    _click(page, mark, chart_key)


def click_plain_mark(page, chart_key: str, selector: str = "a", index: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Click a linked mark of a plain (HTML) chart (`data-chart="<key>"`)."""
    _click(page, page.locator(f'[data-chart="{chart_key}"] {selector}').nth(index), chart_key)


def _click(page, mark, chart_key: str) -> None:  # type: ignore[no-untyped-def]
    try:
        mark.wait_for(state="attached", timeout=60_000)
    except Exception:
        shot(page, f"failed_{chart_key}")
        raise
    mark.scroll_into_view_if_needed()
    mark.click(force=True)


def test_compare_row_opens_that_reports_card(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(f"{server}/compare")
    settle(page)
    expect(page.get_by_text("6 of 6 reports")).to_be_visible()
    assert not page.get_by_text("Page not found").count()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 1440, f"Compare is {width} px wide at a 1440 px window"
    page.locator("table.frl td.model a", has_text="Model 02").click()
    page.wait_for_url("**/report?report=r02", timeout=30_000)
    settle(page)
    expect(page.get_by_role("heading", name="Model 02", exact=True)).to_be_visible()
    shot(page, "browser_report")
    assert not page.foreign, f"requests to other hosts: {page.foreign}"


def test_compare_columns_sort_on_a_header_click_and_keep_their_hover_texts(page, server: str) -> None:  # type: ignore[no-untyped-def]
    """Model sorts by name (a second click reverses); a dimension by its first category in the lens's
    order, so equal values stand together; the rows shown after a sort get their hover texts."""
    page.goto(f"{server}/compare")
    page.wait_for_selector("table.frl tbody tr", timeout=60_000)
    settle(page)
    names = lambda: page.locator("table.frl td.model a").all_inner_texts()  # noqa: E731
    page.locator("table.frl th.model button.frl-sort").click()
    up = names()
    assert up == sorted(up, key=str.casefold)
    assert page.locator("table.frl th.model").get_attribute("aria-sort") == "ascending"
    page.locator("table.frl th.model button.frl-sort").click()
    assert names() == list(reversed(up))
    head = page.locator("table.frl thead th:not(.model) button.frl-sort").first
    head.click()
    assert head.inner_text().endswith("▲")
    firsts = page.evaluate(
        "() => [...document.querySelectorAll('table.frl tbody tr')].map((tr) => "
        "(tr.cells[1].querySelector('a.chip') || {textContent: ''}).textContent)"
    )
    seen: list[str] = []
    for label in firsts:  # each value in one run: a value never comes back after another one
        assert not seen or label == seen[-1] or label not in seen, firsts
        seen.append(label)
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.frl tbody tr')].every((tr) => tr.querySelector('td[title]'))",
        timeout=30_000,
    )


#: The Keywords charts: plain HTML (the default) and plotly (the "Interactive charts" switch).
CHARTS = pytest.mark.parametrize("interactive", [False, True], ids=["plain", "plotly"])


def _keywords(page, server: str, interactive: bool, query: str = "") -> None:  # type: ignore[no-untyped-def]
    params = "&".join(x for x in (query, "interactive=true" if interactive else "") if x)
    page.goto(f"{server}/keywords" + (f"?{params}" if params else ""))
    settle(page)


@CHARTS
def test_heatmap_cell_opens_evidence_for_report_and_term(page, server: str, interactive: bool) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    _keywords(page, server, interactive)
    if interactive:
        click_plotly_point(page, "kw_heatmap", ".scatterlayer .point", 0)  # the first row is "alpha model", first term
    else:
        click_plain_mark(page, "kw_heatmap")
    page.wait_for_url("**/evidence?**", timeout=30_000)
    settle(page)
    q = params(page)
    assert q["report"] == ["r01"] and q["term"] == ["agentic"], page.url
    expect(page.get_by_text("“agentic” in alpha model")).to_be_visible()
    expect(page.get_by_text("line(s)")).to_be_visible()
    assert not page.foreign, f"requests to other hosts: {page.foreign}"


@CHARTS
def test_bar_opens_evidence_for_term_and_section(page, server: str, interactive: bool) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    _keywords(page, server, interactive, "scope=body")
    if interactive:
        click_plotly_point(page, "kw_bars", ".barlayer .point path", 0)
    else:
        click_plain_mark(page, "kw_bars")
    page.wait_for_url("**/evidence?**", timeout=30_000)
    settle(page)
    q = params(page)
    assert q["term"] == ["agentic"] and q["section"] == ["body"], page.url
    expect(page.get_by_text("line(s)")).to_be_visible()
    shot(page, "browser_evidence")


@CHARTS
def test_scatter_point_opens_evidence_with_that_report(page, server: str, interactive: bool) -> None:  # type: ignore[no-untyped-def]
    _keywords(page, server, interactive)
    if interactive:
        click_plotly_point(page, "kw_scatter", ".scatterlayer .point", 0)
    else:
        click_plain_mark(page, "kw_scatter", "a.m")
    page.wait_for_url("**/evidence?**", timeout=30_000)
    settle(page)
    q = params(page)
    assert q.get("report") and q["report"][0].startswith("r") and q["term"] == ["agentic"], page.url
    shown = picked(page, "Report")
    assert shown and shown != "all reports", shown


def test_shared_url_shows_the_same_view_after_reload(page, server: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(f"{server}/evidence?report=r00&dim=rl_algorithm")
    settle(page)
    expect(page.get_by_text("RL algorithm: table cells")).to_be_visible()
    assert picked(page, "Report") == "Model 00"
    page.reload()
    settle(page)
    assert params(page) == {"report": ["r00"], "dim": ["rl_algorithm"]}
    expect(page.get_by_text("RL algorithm: table cells")).to_be_visible()
    assert picked(page, "Report") == "Model 00"
    # a Compare filter is shared the same way
    page.goto(f"{server}/compare?org=Lab+B")
    settle(page)
    expect(page.get_by_text("2 of 6 reports")).to_be_visible()
    page.reload()
    settle(page)
    expect(page.get_by_text("2 of 6 reports")).to_be_visible()


def test_sidebar_menu_lists_each_page_once_and_opens_it(page, server: str) -> None:  # type: ignore[no-untyped-def]
    """Streamlit's own menu: "/" (Compare under a hidden alias) lists Compare once, the link-only
    Source page is not listed, and a menu link opens its page with the page's title."""
    from playwright.sync_api import expect

    from views.nav import HIDDEN, PAGES

    page.goto(server)
    settle(page)
    links = page.locator('[data-testid="stSidebarNavLink"]')
    expect(links.first).to_be_visible()
    listed = [t.strip().splitlines()[-1] for t in links.all_inner_texts()]  # (the icon's name comes first)
    assert listed == [title for n, (_, title, _) in PAGES.items() if n not in HIDDEN]
    links.filter(has_text="Benchmarks").first.click()
    page.wait_for_function("() => location.pathname.endsWith('/benchmarks')")
    settle(page)
    expect(page.locator("h1").first).to_have_text("Benchmarks")


def test_see_the_page_renders_the_pdf_page_with_the_quote(page, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server}/evidence?report=r00&dim=rl_algorithm")
    settle(page)
    page.get_by_role("link", name="see the page").first.click()
    page.wait_for_url("**/source?**", timeout=30_000)
    settle(page)
    img = page.locator('[data-testid="stImage"] img').first
    img.wait_for(timeout=30_000)
    assert page.evaluate("(el) => el.naturalWidth", img.element_handle()) > 500
    shot(page, "browser_source_page")


def test_compare_exports_follow_a_filter_picked_in_the_box(page, server: str) -> None:  # type: ignore[no-untyped-def]
    """The matrix filters in the browser, then sends its choice (a fragment rerun): the URL and the
    exports follow it, and the CSV holds exactly the reports the matrix shows."""
    import csv
    import io

    from playwright.sync_api import expect

    page.goto(f"{server}/compare")
    settle(page)
    page.locator(".frl-bar > button").click()  # the matrix's Filter button
    page.locator(".frl-panel label").filter(has_text="Organization: Lab B").click()
    expect(page.locator(".frl-count")).to_have_text("2 of 6 reports (filtered by Organization)")
    # the component's style sheet applies (the script once removed it with the parent's children)
    assert page.locator(".frl-panel").evaluate("(e) => getComputedStyle(e).position") == "absolute"
    assert page.locator("table.frl a.chip").first.evaluate("(e) => getComputedStyle(e).borderRadius") == "10px"
    expect(page.locator(".frl-bar > button")).to_have_text("Filter (1)")
    # the fragment rerun writes the URL: that is its event (a fragment's run may leave stApp's
    # script state alone, so no run end is awaited here), then the app is idle
    page.wait_for_function("() => new URLSearchParams(location.search).get('org') === 'Lab B'", timeout=30_000)
    page.wait_for_selector(IDLE, timeout=90_000)
    shown = set(page.locator("table.frl td.model a").all_inner_texts())
    page.keyboard.press("Escape")  # close the filter panel
    opener = page.get_by_role("button", name="Export the shown reports")  # the exports' popover
    button = page.locator(".st-key-dl_comparison_csv")
    open_popover(opener, button)
    with page.expect_download() as dl:
        button.locator("button").click()
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
    assert rows and len({r["report_id"] for r in rows}) == len(shown) == 2
    page.keyboard.press("Escape")  # close the exports' popover
    expect(button).to_be_hidden(timeout=30_000)
    page.locator(".frl-picked button").click()  # remove the value again: every report, the URL cleared
    expect(page.locator(".frl-count")).to_have_text("6 of 6 reports")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('org')", timeout=30_000)


HOSTILE_APP = """import sys
sys.path.insert(0, {repo!r})
import pandas as pd
from views import matrix

bad = "<img src=x onerror=window.__owned={{}}>"
cols = [matrix.Column("d", bad.format(1), (("v", 'c0" onmouseover="window.__owned=2', bad.format(3)),))]
facets = [matrix.Facet("org", bad.format(4), (("L", bad.format(5)),))]
rows = pd.DataFrame({{"report_id": ['x" onclick="window.__owned=6'], "model": [bad.format(7)], "meta": [bad.format(8)],
                     "disagree": [True], "facet:org": [["L"]], "cell:d": [(["v"], bad.format(9), True)]}})
texts = matrix.Texts(*(bad.format(10) + " {{n}}" for _ in range(12)))
model = matrix.model_json(matrix.encode_rows(rows, cols, facets), cols, facets, texts)
matrix.draw(model, [], 1, 0, 1, False, {{'x" onclick="window.__owned=6': [bad.format(11)]}}, "")
"""


def test_matrix_shows_hostile_text_as_text(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """views.matrix builds the table in the browser with DOM calls: markup in a model name, label,
    category, facet, hover text or wording shows as text, runs nothing, and an odd class name is dropped."""
    app = tmp_path / "hostile_app.py"
    app.write_text(HOSTILE_APP.format(repo=str(REPO)), encoding="utf-8")
    proc, url = start_app(tmp_path, tmp_path, tmp_path / "streamlit.log", script=app)
    ctx = browser.new_context()
    watch(ctx)
    try:
        pg = ctx.new_page()
        pg.goto(url)
        pg.wait_for_selector("table.frl td.model a", timeout=60_000)
        pg.wait_for_selector(IDLE, timeout=60_000)
        root = pg.locator("table.frl")
        assert root.locator("td.model a").inner_text() == "<img src=x onerror=window.__owned=7>"
        assert root.locator("td.model a").get_attribute("href") == "report?report=x%22+onclick%3D%22window.__owned%3D6"
        chip = root.locator("a.chip")
        assert chip.get_attribute("class") == "chip dis" and "<img" in chip.inner_text()
        assert "window.__owned=11" in (root.locator("td").nth(1).get_attribute("title") or "")
        pg.locator(".frl-bar > button").click()
        pg.locator(".frl-panel label").first.click()
        pg.keyboard.press("Escape")  # closes the panel
        assert pg.locator(".frl-panel").is_hidden()
        chip.hover()
        root.locator("td.model a").hover()
        assert pg.locator(".frl-bar").locator("xpath=..").locator("img, script").count() == 0
        assert pg.evaluate("window.__owned") is None
    finally:
        ctx.close()
        stop(proc)


def test_compare_pages_in_the_browser_and_keeps_quick_picks(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """On 60 reports: Next draws page 2 at once and the rerun brings its cells' hover texts; two picks
    in quick succession both hold (an answer to the first must not undo the second) and reach the URL."""
    from playwright.sync_api import expect

    from tests.app_fixtures import scale_store

    data, reports = scale_store(tmp_path, 60)
    proc, url = start_app(data, reports, tmp_path / "streamlit.log")
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    watch(ctx)
    try:
        pg = ctx.new_page()
        pg.goto(f"{url}/compare")
        pg.wait_for_selector("table.frl tbody tr", timeout=60_000)
        settle(pg)
        assert pg.locator("table.frl tbody tr").count() == 25
        first = pg.locator("table.frl td.model a").first.inner_text()
        pg.locator(".frl-pager button").filter(has_text="Next").click()
        expect(pg.locator(".frl-pager span")).to_have_text("Page 2 of 3: reports 26–50 of 60")
        assert pg.locator("table.frl td.model a").first.inner_text() != first
        pg.wait_for_function("() => [...document.querySelectorAll('table.frl tbody td[title]')].length > 0", timeout=30_000)
        pg.locator(".frl-bar > button").click()
        boxes = pg.locator(".frl-panel label").filter(has_text="Organization: ")
        boxes.nth(0).click()
        boxes.nth(1).click()  # before the first pick's rerun has answered
        pg.wait_for_function("() => new URLSearchParams(location.search).getAll('org').length === 2", timeout=30_000)
        settle(pg)
        assert pg.locator(".frl-bar > button").inner_text() == "Filter (2)"
        assert pg.locator(".frl-panel input[type=checkbox]:checked").count() == 2
        expect(pg.locator(".frl-pager span")).to_be_hidden()  # the picks start again at page 1 (one page left)
        # Away and back through the menu: the matrix is drawn anew (its change count starts over while the
        # session remembers the last one); a pick there still holds and reaches the URL.
        links = pg.locator('[data-testid="stSidebarNavLink"]')
        links.filter(has_text="Keywords").first.click()
        pg.wait_for_function("() => location.pathname.endsWith('/keywords')")
        settle(pg)
        links.filter(has_text="Compare").first.click()
        pg.wait_for_selector("table.frl tbody tr", timeout=60_000)
        settle(pg)
        pg.locator(".frl-bar > button").click()
        pg.locator(".frl-panel label").filter(has_text="Organization: ").nth(2).click()
        pg.wait_for_function("() => new URLSearchParams(location.search).getAll('org').length === 1", timeout=30_000)
        settle(pg)
        assert pg.locator(".frl-bar > button").inner_text() == "Filter (1)"
    finally:
        ctx.close()
        stop(proc)
