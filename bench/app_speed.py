"""Dashboard speed in a real browser: first render of every page and re-render after a filter change.

    .venv/bin/python bench/app_speed.py [--reports 20 500] [--repeat 3]
    .venv/bin/python bench/app_speed.py --store /tmp/s10k --repeat 2   # bench/scale.py's 10,000-report store

For each store size, builds the data with the real pipeline (6 generated reports ingested, then
cloned under new ids and the tables rebuilt by the real table builders: tests/app_fixtures.py
`scale_store`; about a minute per 500 reports, so 10,000 is better served by `--store`), starts
`streamlit run app.py`, and drives Chromium with Playwright. `--store DIR` serves an existing store
instead (a folder holding data/ and reports/, as `bench/scale.py --keep DIR` leaves it): it is copied
to a temporary folder first, so the original is never written.

* first render: a new tab (a new Streamlit session) opens the page's URL; the time until the
  script has finished (stApp's `data-test-script-state` is `notRunning`) and the page's main
  element is visible, checked in the page every 10 ms (`DRAWN`; Playwright's own
  `wait_for_selector` polls every 500 ms after its first few tries, which overstated first
  renders by up to half a second before 2026-12-01). The browser has visited the app before
  (its JavaScript is cached, as for a returning user); a visit with a fresh browser profile,
  which also downloads the app's JavaScript and warms the server, is printed beside it.
* interactions (INTERACTIONS): on every page, each filter, sort, pick and click a reader makes (a
  selectbox pick, a radio, a button, the matrix's sort, a typed query), from the action until the rerun
  it starts has finished; `--interactions-only` skips the first renders. Each tab first waits until its
  page is drawn (`DRAWN`, as a first render), then for the control; a selectbox is opened by a click on
  its input, and if it shows no option the error says what the page looked like.
* filter re-render: on Compare, picking an organization in the matrix's filter panel, until the
  matrix shows the new rows (its "N of M reports" line changed; opening the panel is not timed).
  Since 2026-12-01 (second session) the matrix filters in the browser (views.matrix), so this is
  no longer a rerun; the rerun that follows and records the choice (URL, exports, the page's hover
  texts) is printed beside it, with no target. Before, the filter was a multiselect in a popover
  and the time ran until that rerun had drawn the new count. On Keywords, changing the section
  scope is one of the interactions.

Targets (issues 11, 12 and 35, at 500 reports): first render <= 1.6x the one-line app at the page's URL,
the filter and every interaction <= 300 ms, and (issue 12) peak memory of the dashboard process <= 2 GB (its high-water
RSS, read from /proc when the run ends). The machine may be shared, so numbers are noisy: the
median of --repeat runs is printed, beside how much longer than a one-line Streamlit app measured
the same way takes — its first render, and its re-render after a multiselect pick and after a radio
click, the widgets of the two filters: the framework's own cost under the same load — and the server-side script time of each page
(`FRL_TIMING`: wall and the script thread's CPU time, the first run apart from the warm ones),
which load disturbs least. A page's first render is also given as a ratio to the one-line app's
first renders taken one by one between the page's (a reference measured once, before the store is
built, can see another load than the pages, which moved every ratio together): opened at / and also
at the page's own URL (SAME_PATH: Streamlit's frontend probes a deep link's path as a base URL first,
a cost of every Streamlit page not at /).
Exits 1 if a target is missed at the largest size.
First, the chart renderers are compared on the smallest store (bench/chart_renderers.py; alone with
`--renderers-only`, which exits 1 when the default renderer is not within 10 % of the fastest; skipped
with `--pages` or `--apps`).

Each interaction also says what it cost the browser (since 2026-12-03): the renderer main thread's CPU
time (Chromium's `ThreadTime`) and the websocket messages and KB the server sent, from the action to the
end of its rerun plus 200 ms, median per action; a rerun sends one message per element it draws, so
these say how much a rerun re-draws. The server-side times include fragment reruns (views/timing.py).
`--pages Keywords Evidence` limits a run to some pages; `--apps main=/work/main/app.py branch=app.py`
serves two checkouts' apps on copies of one store and takes turns between them on every interaction,
for a paired A/B on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402

from bench import chart_renderers  # noqa: E402
from bench.app_interactions import (  # noqa: E402
    DRAWN,
    IDLE,
    OBSERVER,
    PAGES,
    RERUN_TARGET_S,
    Cost,
    interactions,
    measured_tab,
    path_values,
    show_interactions,
    store_copy,
    timed_click,
)
from bench.results_log import recorded  # noqa: E402
from ingest.store.store import Store  # noqa: E402
from tests.app_fixtures import scale_store  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402
from views.chart_data import DEFAULT_RENDERER  # noqa: E402

#: A page's first render at most this many times the one-line app's at the same URL (issue 35: the app
#: shell and each kind of Streamlit element cost the rest; the earlier 1.3x needs a custom component).
FIRST_RATIO = 1.6
MEMORY_TARGET_MB = 2048
#: Compare's matrix shows other rows: its count line no longer says "N of N reports" (views.matrix redraws
#: the count and the rows together, in the click's own task).
MATRIX_CHANGED = """(all) => {
  const el = document.querySelector('.frl-count');
  return !!el && !el.textContent.includes(all) && document.querySelectorAll('table.frl tbody tr').length > 0;
}"""
#: The rerun that records a pick has finished: the URL holds the organization and the app is idle.
RECORDED = """() => new URLSearchParams(location.search).has('org') &&
  document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state') === 'notRunning'"""


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
        page.wait_for_function(DRAWN, arg=selector, timeout=120_000, polling=10)
        return time.perf_counter() - t
    finally:
        page.close()
        if own:
            ctx.close()


def open_filters(page):  # type: ignore[no-untyped-def]
    """The Compare matrix's filter panel (views.matrix: a button above the matrix opens it)."""
    panel = page.locator(".frl-panel")
    if not panel.is_visible():
        page.locator(".frl-bar > button").first.click()
    panel.wait_for(timeout=60_000)
    return panel


def compare_filter(browser, server: str, n: int, repeat: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """Picking an organization in the matrix's filter: the seconds until the matrix shows the new rows
    (its count line changed), and until the rerun that records the choice (URL, exports, the page's
    hover texts) has finished."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    shown, settled = [], []
    try:
        page.goto(f"{server}/compare")
        page.wait_for_selector("table.frl", timeout=120_000)
        page.wait_for_selector(IDLE, timeout=120_000)
        for i in range(repeat):
            panel = open_filters(page)
            option = panel.locator("label").filter(has_text="Organization: ").nth(i % 3)
            option.wait_for()
            t = time.perf_counter()
            option.click()
            page.wait_for_function(MATRIX_CHANGED, arg=f"{n} of {n} reports", timeout=180_000, polling=10)
            shown.append(time.perf_counter() - t)
            page.wait_for_function(RECORDED, timeout=180_000, polling=10)
            settled.append(time.perf_counter() - t)
            page.goto(f"{server}/compare")  # back to all reports
            page.wait_for_selector(IDLE, timeout=120_000)
            page.wait_for_selector("table.frl", timeout=120_000)
    finally:
        ctx.close()
    return shown, settled


#: Why the one-line app is also opened at each page's own URL (`/compare`, `/report?report=…`): a page at a
#: path other than / costs every Streamlit app more before its script even runs. The frontend takes the
#: path as a possible base URL and probes `/<path>/_stcore/health` and `host-config` first; they answer
#: 404, and after its first retry delay (100 ms) it probes `/_stcore/...` and connects. The one-line app
#: at / skips that, so "x the one-line app measured beside it" charges the framework's deep-link cost to
#: the page; "x the one-line app at the page's URL" compares like with like (the one-line app draws the same title at
#: any path).
SAME_PATH = "the one-line app at the page's URL"
CAPTION = '[data-testid="stCaptionContainer"]'
MINIMAL_APP = """import streamlit as st

st.title("minimal")
if st.query_params.get("widgets"):
    picked = st.multiselect("Organization", [f"Org {i}" for i in range(20)])
    scope = st.radio("Section scope", ["whole document", "body only"], horizontal=True)
    one = st.selectbox("Report", [f"Report {i}" for i in range(20)])
    st.caption(f"{len(picked)} of 20 picked; {scope}; {one}")
"""


def timed_rerun(page, target, cost: Cost) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """A click on the one-line app timed as an interaction is (`timed_click`, then idle + 200 ms for the
    renderer's CPU time): (seconds, renderer CPU ms)."""
    t = timed_click(page, target, CAPTION, 60_000, cost=cost)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.wait_for_timeout(200)
    cpu = cost.read()[0] - cost.start[0]
    page.keyboard.press("Escape")
    return t, cpu


def baseline_rerun(browser, server: str, repeat: int) -> dict[str, list[tuple[float, float]]]:  # type: ignore[no-untyped-def]
    """Re-render of the one-line app after picking a multiselect option, a selectbox option and clicking
    a radio (timed as the app's interactions are, with the renderer's CPU time: `Cost`): what the
    framework alone costs for a widget change. widget -> [(seconds, renderer CPU ms)]."""
    out: dict[str, list[tuple[float, float]]] = {"multiselect": [], "selectbox": [], "radio": []}
    for i in range(repeat):  # a new browser context each time: a reload in the same tab keeps the session's widget state
        ctx, page, cost = measured_tab(browser)
        try:
            page.goto(f"{server}/?widgets=1")
            page.wait_for_selector(IDLE, timeout=120_000)
            page.evaluate(OBSERVER)
            page.locator('[data-testid="stMultiSelect"] input').click()
            option = page.get_by_role("option").filter(has_not_text="Select all").nth(i % 3)
            option.wait_for()
            out["multiselect"].append(timed_rerun(page, option, cost))
            page.locator('[data-testid="stSelectbox"]').get_by_role("combobox").click()
            option = page.get_by_role("option").nth(1 + i % 3)
            option.wait_for()
            out["selectbox"].append(timed_rerun(page, option, cost))
            label = page.locator('[data-testid="stRadio"] label').filter(has_text="body only").first
            out["radio"].append(timed_rerun(page, label, cost))
        finally:
            ctx.close()
    return out


def baseline(repeat: int, tmp: Path) -> tuple[float, float, float]:
    """A one-line Streamlit app on this machine (what the framework alone costs): its first render,
    and its re-render after a multiselect pick and after a radio click (and a selectbox pick, printed)."""

    app = tmp / "minimal_app.py"
    app.write_text(MINIMAL_APP, encoding="utf-8")
    proc, server = start_app(tmp, tmp, tmp / "streamlit-minimal.log", script=app)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            warm = browser.new_context(viewport={"width": 1440, "height": 1000})
            first_render(browser, server, "h1")
            times = [first_render(browser, server, "h1", warm) for _ in range(repeat)]
            reruns = baseline_rerun(browser, server, repeat)
            browser.close()
    finally:
        stop(proc)
    med = statistics.median(times)
    (pick, pick_cpu), (sel, sel_cpu), (radio, radio_cpu) = (
        (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for v in reruns.values()
    )
    print(f"reference: a one-line Streamlit app renders in {med * 1000:.0f} ms (median of {repeat}) on this machine now;")
    print(f"           it re-renders in {pick * 1000:.0f} ms after a multiselect pick, {radio * 1000:.0f} ms after a "
          f"radio click, {sel * 1000:.0f} ms after a selectbox pick (renderer CPU {pick_cpu:.0f}, {radio_cpu:.0f}, "
          f"{sel_cpu:.0f} ms)")  # fmt: skip
    return med, pick, radio


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"


def show_first(name: str, times: list[float], beside: list[float], cold: float, base: float, same: list[float]) -> float:
    """A page's median first render beside the one-line app's (the reference, and the renders taken
    between the page's, at / and at the page's own URL: SAME_PATH), and the target on the ratio to the
    one-line app at the page's URL (like with like); returns that ratio."""
    med, ref, ref_path = statistics.median(times), statistics.median(beside), statistics.median(same)
    ratio = med / ref_path
    print(f"  first render  {name:<11} {med * 1000:6.0f} ms median of {len(times)} (max {max(times) * 1000:.0f}; "
          f"{(med - base) * 1000:+.0f} over the one-line app; {med / ref:.2f}x the one-line app measured beside it, "
          f"{ref * 1000:.0f} ms; {ratio:.2f}x {SAME_PATH}, {ref_path * 1000:.0f} ms; "
          f"fresh browser profile {cold * 1000:.0f} ms)"
          f"   target <= {FIRST_RATIO:.1f}x {verdict(ratio, FIRST_RATIO)}")  # fmt: skip
    return ratio


def show(what: str, times: list[float], base: float) -> None:
    """A filter's median beside the one-line app's re-render after the same kind of widget, and the target."""
    med = statistics.median(times)
    print(f"  filter        {what:<11} {med * 1000:6.0f} ms median of {len(times)} (max {max(times) * 1000:.0f}; "
          f"{(med - base) * 1000:+.0f} over the one-line app after the same widget)"
          f"   target <= {RERUN_TARGET_S * 1000:.0f} ms {verdict(med, RERUN_TARGET_S)}")  # fmt: skip


def peak_rss_mb(pid: int) -> float:
    """The high-water resident memory of a running process (Linux /proc), in MB; NaN elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def served_store(n: int | None, store: Path | None, tmp: Path) -> tuple[Path, Path, str]:
    """The data and reports folders to serve, and how they were made: built (n reports) or copied (`store`)."""
    t = time.perf_counter()
    if store is not None:
        data, reports = store_copy(store, tmp / "store")
        return data, reports, f"copied from {store} in {time.perf_counter() - t:.1f} s"

    data, reports = scale_store(tmp / f"n{n}", n or 0)
    return data, reports, f"store built in {time.perf_counter() - t:.1f} s"


def start_apps(apps: dict[str, Path], data: Path, reports: Path, prefix: Path) -> tuple[dict, dict, dict[str, Path]]:  # type: ignore[type-arg]
    """A server (with FRL_TIMING) per app, each on its own copy of the data folder but the first:
    (processes, URLs, logs), by label."""
    servers, procs, logs = {}, {}, {}
    for k, (label, script) in enumerate(apps.items()):
        d = data if k == 0 else Path(shutil.copytree(data, f"{prefix}data-{k}", ignore=shutil.ignore_patterns(".lock")))
        logs[label] = Path(f"{prefix}streamlit-{k}.log")
        procs[label], servers[label] = start_app(d, reports, logs[label], {"FRL_TIMING": "1"}, script=script)
    return procs, servers, logs


def measure(
    n: int | None,
    repeat: int,
    tmp: Path,
    base: tuple[float, float, float],
    store: Path | None = None,
    firsts: bool = True,
    pages: set[str] | None = None,
    apps: dict[str, Path] | None = None,
) -> tuple[int, dict[str, float]]:
    """Every page's first render (of `pages`, or all), the filter re-render and every interaction on one store;
    prints each beside its target. With several `apps` (label -> app.py; another checkout's, say), each gets
    its own server and copy of the store, and they take turns on every interaction (first renders and the
    filter are measured on the first app only)."""

    data, reports, how = served_store(n, store, tmp)
    ids = sorted(Store(data).read_table("reports", columns=["report_id"])["report_id"])
    n = len(ids)
    print(f"\n{n:,} reports ({how})")
    fill = path_values(data)
    apps = apps or {"": REPO / "app.py"}
    procs, servers, logs = start_apps(apps, data, reports, tmp / f"n{n}-")
    proc, server = procs[next(iter(apps))], servers[next(iter(apps))]
    # The one-line app again, measured beside each page (a load that changes during the run moves both).
    proc0, server0 = start_app(tmp, tmp, tmp / f"streamlit-minimal-{n}.log", script=tmp / "minimal_app.py")
    res: dict[str, float] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            try:
                warm = browser.new_context(viewport={"width": 1440, "height": 1000})
                first_render(browser, server0, "h1", warm)  # its server's first run
                for name, (path, sel) in PAGES.items() if firsts else ():
                    if pages is not None and name not in pages:
                        continue
                    url = server + path.format(**fill)
                    try:
                        cold = first_render(browser, url, sel)  # fresh context: downloads the JS; warms the server
                        times, beside, beside_path = [], [], []
                        for _ in range(repeat):
                            beside.append(first_render(browser, server0, "h1", warm))
                            # the same app at the page's own URL: Streamlit's frontend first probes
                            # /<page>/_stcore/health, then / after a 100 ms retry delay (SAME_PATH)
                            beside_path.append(first_render(browser, server0 + path.format(**fill), "h1", warm))
                            times.append(first_render(browser, url, sel, warm))
                    except Exception as exc:  # a timeout on an overloaded machine: say so, measure the rest
                        print(f"  first render  {name:<11} not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                        res[f"first render: {name}"] = float("inf")
                        continue
                    res[f"first render: {name}"] = show_first(name, times, beside, cold, base[0], beside_path)
                warm.close()
                filters = (("Compare org", lambda: compare_filter(browser, server, n, repeat), base[1]),)
                for what, fn, ref in filters if pages is None or "Compare" in pages else ():
                    try:
                        times, settled = fn()
                    except Exception as exc:  # a timeout on an overloaded machine: say so, measure the rest
                        print(f"  filter        {what:<11} not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                        res[f"filter: {what}"] = float("inf")
                        continue
                    res[f"filter: {what}"] = statistics.median(times)
                    show(what, times, ref)
                    if settled:
                        print(f"                then the rerun that records it (URL, exports, hover texts) ends "
                              f"{statistics.median(settled) * 1000:.0f} ms after the pick (median; no target)")  # fmt: skip
                res.update(show_interactions(interactions(browser, servers, fill, repeat, pages)))
            finally:
                browser.close()
        rss = peak_rss_mb(proc.pid)
    finally:
        for p in procs.values():
            stop(p)
        stop(proc0)
    res["memory"] = rss
    print(f"  dashboard process peak memory (VmHWM) {rss:,.0f} MB   target <= {MEMORY_TARGET_MB} MB "
          f"{verdict(rss, MEMORY_TARGET_MB) if rss == rss else 'not measured'}")  # fmt: skip
    for label, path in logs.items():
        show_server_times(label, path)
    return n, res


def show_server_times(label: str, log: Path) -> None:
    """The server-side script time of each page's full runs (app.py's FRL_TIMING lines) and of fragment
    reruns (views/timing.py: `<page>/<fragment>`), from the app's log."""
    server_times: dict[str, list[tuple[float, float]]] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("FRL_TIMING "):
            _, page, wall, *cpu = line.split()
            server_times.setdefault(page, []).append((float(wall), float(cpu[0]) if cpu else float("nan")))
    # The first run of a page after the server starts also reads the store and fills the caches (once per
    # store generation); the warm runs are what a visitor waits for afterwards. CPU time is the script
    # thread's own (pyarrow's reader threads not included), which other processes' load disturbs least.
    print(f"  {label}server-side script time per run (wall / CPU of the script thread, ms): first run; median of the "
          "others (page/function: a fragment's own reruns)")  # fmt: skip
    for page, v in server_times.items():
        rest = v[1:] or v
        wall, cpu = statistics.median(w for w, _ in rest), statistics.median(c for _, c in rest)
        print(f"    {page:<24} first {v[0][0] * 1000:5.0f} / {v[0][1] * 1000:5.0f}   warm {wall * 1000:5.0f} / {cpu * 1000:5.0f}"
              f"   ({len(v)} runs)")  # fmt: skip


def missed(res: dict[str, float]) -> list[str]:
    def target(k: str) -> float:
        return MEMORY_TARGET_MB if k == "memory" else FIRST_RATIO if k.startswith("first") else RERUN_TARGET_S

    return [k for k, v in res.items() if v > target(k)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, nargs="+", default=None, help="store sizes to build (default 20 500)")
    ap.add_argument("--store", type=Path, default=None,
                    help="also serve this existing store (a folder with data/ and reports/, e.g. bench/scale.py --keep DIR); "
                         "copied first, never written")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3, help="measurements per number (the median is printed)")
    ap.add_argument("--renderers-only", action="store_true", help="only the chart-renderer comparison (bench/chart_renderers.py)")
    ap.add_argument("--interactions-only", action="store_true", help="skip the first renders (the filter and every interaction)")
    ap.add_argument(
        "--pages", nargs="+", choices=list(PAGES), default=None, help="only these pages (first renders, interactions)"
    )
    ap.add_argument("--apps", nargs="+", default=None, metavar="LABEL=APP.PY",
                    help="serve these apps (e.g. main=/work/main/app.py branch=app.py), taking turns on every interaction "
                         "(implies --interactions-only)")  # fmt: skip
    args = ap.parse_args()
    sizes = args.reports if args.reports is not None else ([] if args.store else [20, 500])
    with tempfile.TemporaryDirectory() as tmp:
        # the renderer comparison is a whole-app question: not repeated by a run of some pages or an A/B of apps
        skip = (args.pages or args.apps) and not args.renderers_only
        charts = {} if skip else chart_renderers.compare(min(sizes or [20]), max(args.repeat, 5), Path(tmp))
        if args.renderers_only:
            return 0 if charts[DEFAULT_RENDERER] <= min(charts.values()) * (1 + chart_renderers.TOLERANCE) else 1
        base = baseline(args.repeat, Path(tmp))
        apps = {f"[{k}] ": Path(v).resolve() for k, v in (a.split("=", 1) for a in args.apps)} if args.apps else None
        firsts = not (args.interactions_only or (apps and len(apps) > 1))
        pages = set(args.pages) if args.pages else None
        results = dict(measure(n, args.repeat, Path(tmp), base, firsts=firsts, pages=pages, apps=apps) for n in sizes)
        if args.store:
            results.update([measure(None, args.repeat, Path(tmp), base, args.store, firsts, pages, apps)])
    largest = max(results)
    gone = missed(results[largest])
    print(f"\ntargets at {largest:,} reports: first render <= {FIRST_RATIO:.1f}x the one-line app at the page's URL, "
          f"filter and every interaction <= {RERUN_TARGET_S * 1000:.0f} ms, "
          f"peak memory <= {MEMORY_TARGET_MB} MB")  # fmt: skip
    print("targets met" if not gone else "TARGET MISSED: " + ", ".join(gone))
    print(
        f"(Playwright + Chromium on this machine, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        "shared CPUs make single numbers noisy: compare with the one-line app and the server-side times)"
    )
    return 1 if gone else 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
