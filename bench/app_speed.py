"""Dashboard speed in a real browser: first render of every page and re-render after a filter change.

    .venv/bin/python bench/app_speed.py [--reports 20 500] [--repeat 3]

For each store size, builds the data with the real pipeline (6 generated reports ingested, then
cloned under new ids and the tables rebuilt by the real table builders: tests/app_fixtures.py
`scale_store`), starts `streamlit run app.py`, and drives Chromium with Playwright:

* first render: a new tab (a new Streamlit session) opens the page's URL; the time until the
  script has finished (stApp's `data-test-script-state` is `notRunning`) and the page's main
  element is visible. The browser has visited the app before (its JavaScript is cached, as for a
  returning user); a visit with a fresh browser profile, which also downloads the app's
  JavaScript and warms the server, is printed beside it.
* filter re-render: on Compare, picking an organization in the Filters popover (until the "N of M
  reports" line shows the new count; opening the popover is not timed); on Keywords, changing the
  section scope (until the rerun has finished).

Targets (issue 11): first render <= 2.0 s for every page and filter re-render <= 300 ms at 500
reports. The machine may be shared, so numbers are noisy: the median of --repeat runs is printed,
beside how much longer than a one-line Streamlit app measured the same way (the framework's own
cost under the same load), and the server-side script time of each page (`FRL_TIMING`), which
load disturbs least.
Exits 1 if a target is missed at the largest size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIRST_TARGET_S = 2.0
RERUN_TARGET_S = 0.300
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: page -> (URL path with query, selector of the element that means "the page is there")
PAGES: dict[str, tuple[str, str]] = {
    "Compare": ("/compare", "table.frl"),
    "Keywords": ("/keywords", '[data-chart="kw_heatmap"] table.frl-h'),
    "Evidence": ("/evidence?report=r00&dim={dim}", "table.frl-q"),
    "Report": ("/report?report=r02", "table.frl-q"),
    "Benchmarks": ("/benchmarks", '[data-chart="bench_coverage"]'),
    "Review": ("/review?rid=r00", "table.frl-q"),
    "Add report": ("/add", '[data-testid="stForm"]'),
}
#: Records every change of the script state with its time, so a rerun can be timed without races.
OBSERVER = """() => {
  window.__frl = [];
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => window.__frl.push([app.getAttribute('data-test-script-state'), performance.now()]))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
RERUN_DONE = """(t0) => {
  const s = window.__frl || [];
  const i = s.findIndex(([st, t]) => st === 'running' && t >= t0);
  return i >= 0 && s.slice(i).some(([st]) => st === 'notRunning');
}"""


def first_render(browser, url: str, selector: str, ctx=None) -> float:  # type: ignore[no-untyped-def]
    """Open `url` in a new tab (a new Streamlit session) until the page is drawn and idle.

    With `ctx` (a browser context that has visited the app) the app's static JavaScript comes from
    the browser cache, as for a returning user; without, a fresh context downloads it too.
    """
    own = ctx is None
    ctx = ctx or browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    try:
        t = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(selector, state="visible", timeout=120_000)
        page.wait_for_selector(IDLE, timeout=120_000)
        return time.perf_counter() - t
    finally:
        page.close()
        if own:
            ctx.close()


def open_filters(page):  # type: ignore[no-untyped-def]
    """Compare's Organization filter, opening the Filters popover first (its widgets are drawn only when open)."""
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Organization")
    if not box.count():
        page.locator('[data-testid="stPopover"]').filter(has_text="Filters").locator("button").first.click()
    box.wait_for(timeout=60_000)
    return box


def compare_filter(browser, server: str, n: int, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    out = []
    try:
        page.goto(f"{server}/compare")
        page.wait_for_selector("table.frl", timeout=120_000)
        page.wait_for_selector(IDLE, timeout=120_000)
        for i in range(repeat):
            box = open_filters(page)
            box.locator("input").click()
            # The multiselect's first option is "Select all", which would keep every report.
            option = page.get_by_role("option").filter(has_not_text="Select all").nth(i % 3)
            option.wait_for()
            t = time.perf_counter()
            option.click()
            page.wait_for_function(f"() => !document.body.innerText.includes('{n} of {n} reports')", timeout=180_000)
            page.wait_for_selector(IDLE, timeout=180_000)
            out.append(time.perf_counter() - t)
            page.keyboard.press("Escape")
            page.goto(f"{server}/compare")  # back to all reports
            page.wait_for_selector(IDLE, timeout=120_000)
            page.wait_for_selector("table.frl", timeout=120_000)
    finally:
        ctx.close()
    return out


def keywords_scope(browser, server: str, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    out = []
    scopes = ["body only", "whole document"]
    try:
        page.goto(f"{server}/keywords")
        page.wait_for_selector(PAGES["Keywords"][1], timeout=120_000)
        page.wait_for_selector(IDLE, timeout=120_000)
        page.evaluate(OBSERVER)
        for i in range(repeat * 2):
            label = page.locator('[data-testid="stRadio"] label').filter(has_text=scopes[i % 2]).first
            t0 = page.evaluate("() => performance.now()")
            t = time.perf_counter()
            label.click()
            page.wait_for_function(RERUN_DONE, arg=t0, timeout=180_000, polling=10)
            out.append(time.perf_counter() - t)
    finally:
        ctx.close()
    return out


def baseline(repeat: int, tmp: Path) -> float:
    """First render of a one-line Streamlit app on this machine: what the framework alone costs."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop

    app = tmp / "minimal_app.py"
    app.write_text('import streamlit as st\n\nst.title("minimal")\n', encoding="utf-8")
    proc, server = start_app(tmp, tmp, tmp / "streamlit-minimal.log", script=app)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            warm = browser.new_context(viewport={"width": 1440, "height": 1000})
            first_render(browser, server, "h1")
            times = [first_render(browser, server, "h1", warm) for _ in range(repeat)]
            browser.close()
    finally:
        stop(proc)
    med = statistics.median(times)
    print(f"reference: a one-line Streamlit app renders in {med * 1000:.0f} ms (median of {repeat}) on this machine now")
    return med


def show(what: str, times: list[float]) -> None:
    med = statistics.median(times)
    print(f"  filter        {what:<11} {med * 1000:6.0f} ms median of {len(times)} (max {max(times) * 1000:.0f})")


def measure(n: int, repeat: int, tmp: Path, base: float) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    from ingest.lens import load_lens
    from tests.app_fixtures import scale_store
    from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop

    t = time.perf_counter()
    data, reports = scale_store(tmp / f"n{n}", n)
    print(f"\n{n} reports (store built in {time.perf_counter() - t:.1f} s)")
    dim = next(d.id for d in load_lens().dimensions if d.kind == "algorithm")
    log = tmp / f"streamlit-{n}.log"
    proc, server = start_app(data, reports, log, {"FRL_TIMING": "1"})
    res: dict[str, float] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            try:
                warm = browser.new_context(viewport={"width": 1440, "height": 1000})
                for name, (path, sel) in PAGES.items():
                    url = server + path.format(dim=dim)
                    try:
                        cold = first_render(browser, url, sel)  # fresh context: downloads the JS; warms the server
                        times = [first_render(browser, url, sel, warm) for _ in range(repeat)]
                    except Exception as exc:  # a timeout on an overloaded machine: say so, measure the rest
                        print(f"  first render  {name:<11} not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                        res[f"first render: {name}"] = float("inf")
                        continue
                    res[f"first render: {name}"] = statistics.median(times)
                    med = statistics.median(times)
                    over = (med - base) * 1000
                    print(f"  first render  {name:<11} {med * 1000:6.0f} ms median of {repeat} (max {max(times) * 1000:.0f}; "
                          f"{over:+.0f} over the one-line app; fresh browser profile {cold * 1000:.0f} ms)")  # fmt: skip
                warm.close()
                for what, fn in (("Compare org", lambda: compare_filter(browser, server, n, repeat)),
                                 ("Keywords", lambda: keywords_scope(browser, server, repeat))):  # fmt: skip
                    try:
                        times = fn()
                    except Exception as exc:  # a timeout on an overloaded machine: say so, measure the rest
                        print(f"  filter        {what:<11} not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                        res[f"filter: {what}"] = float("inf")
                        continue
                    res[f"filter: {what}"] = statistics.median(times)
                    show(what, times)
            finally:
                browser.close()
    finally:
        stop(proc)
    server_times: dict[str, list[float]] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("FRL_TIMING "):
            _, page, secs = line.split()
            server_times.setdefault(page, []).append(float(secs))
    print("  server-side script time per run, median (all runs of the page):", ", ".join(
        f"{p} {statistics.median(v) * 1000:.0f} ms" for p, v in server_times.items()))  # fmt: skip
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, nargs="+", default=[20, 500])
    ap.add_argument("--repeat", type=int, default=3, help="measurements per number (the median is printed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = baseline(args.repeat, Path(tmp))
        results = {n: measure(n, args.repeat, Path(tmp), base) for n in args.reports}
    largest = results[max(results)]
    missed = [k for k, v in largest.items() if v > (FIRST_TARGET_S if k.startswith("first") else RERUN_TARGET_S)]
    print(
        f"\ntargets at {max(results)} reports: first render <= {FIRST_TARGET_S:.1f} s, filter <= {RERUN_TARGET_S * 1000:.0f} ms"
    )
    print("targets met" if not missed else "TARGET MISSED: " + ", ".join(missed))
    print("(Playwright + Chromium on this machine; shared CPUs make single numbers noisy)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
