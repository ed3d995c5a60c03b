"""The interactions bench/app_speed.py times on every page, and what each cost the browser.

Split from bench/app_speed.py (which imports everything here): the pages and their "drawn" checks,
each filter, pick and click a reader makes (INTERACTIONS), how one is performed and timed until its
rerun has finished (`act`, `timed_click`), and what it cost besides wall time (`Cost`: the renderer
main thread's CPU time and the websocket messages and bytes the rerun sent).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import TimeoutError as PlaywrightTimeout

RERUN_TARGET_S = 0.300
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: page -> (URL path with query, selector of the element that means "the page is there")
PAGES: dict[str, tuple[str, str]] = {
    "Compare": ("/compare", "table.frl"),
    "Keywords": ("/keywords", '[data-chart="kw_heatmap"] table.frl-h'),
    "Evidence": ("/evidence?report={r0}&dim={dim}", "table.frl-q"),
    "Report": ("/report?report={r2}", "table.frl-q"),
    "Benchmarks": ("/benchmarks", '[data-chart="bench_coverage"]'),
    "Review": ("/review?rid={r0}", "table.frl-q"),
    "Indicators": ("/indicators", '[data-chart="indicators"]'),
    "Search": ("/search?q=agent", "table.frl-q"),
    "Timeline": ("/timeline", '[data-chart="timeline"]'),
    "Add report": ("/add", '[data-testid="stForm"]'),
}
#: The page is drawn: the app is idle and the element `sel` is visible (a box with a size, not hidden).
#: Checked every 10 ms in the page; Playwright's `wait_for_selector` backs off to one check every 500 ms
#: after the first 270 ms, which added up to half a second to a first render.
DRAWN = """(sel) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const el = document.querySelector(sel);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}"""
#: Records every change of the script state with its time, so a rerun can be timed without races.
OBSERVER = """() => {
  window.__frl = [];
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => window.__frl.push([app.getAttribute('data-test-script-state'), performance.now()]))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
#: The rerun started after t0 has finished. A fast rerun can go running -> notRunning within one frame,
#: so the attribute may never change; then the element `sel` showing other text than `before` (the
#: rerun's output) while the app is idle means the same.
RERUN_DONE = """([t0, sel, before]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const s = window.__frl || [];
  const i = s.findIndex(([st, t]) => st === 'running' && t >= t0);
  if (i >= 0 && s.slice(i).some(([st]) => st === 'notRunning')) return true;
  const el = document.querySelector(sel);
  return !!el && el.innerText !== before;
}"""
TEXT_OF = "(sel) => { const el = document.querySelector(sel); return el ? el.innerText : null; }"
#: Counts the messages and bytes the server sends (an init script, before the app's own code): what a rerun
#: sends is read as the difference around an interaction (every element of the rerun is one delta message).
WS_COUNT = """() => {
  window.__ws = {n: 0, bytes: 0};
  const WS = window.WebSocket;
  window.WebSocket = function (...a) {
    const w = new WS(...a);
    w.addEventListener('message', (e) => {
      window.__ws.n += 1;
      window.__ws.bytes += e.data.byteLength ?? e.data.size ?? e.data.length ?? 0;
    });
    return w;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, WS);
}"""
WS_READ = "() => window.__ws ? [window.__ws.n, window.__ws.bytes] : [0, 0]"
MAIN = '[data-testid="stMain"]'


def path_values(data: Path) -> dict[str, str]:
    """What PAGES' and INTERACTIONS' paths take on the store in `data`: {dim} (the lens's algorithm
    dimension), {r0} and {r2} (the first and third report ids in order)."""
    from ingest.analysis.lens import load_lens
    from ingest.store.store import Store

    ids = sorted(Store(data).read_table("reports", columns=["report_id"])["report_id"])
    dim = next(d.id for d in load_lens().dimensions if d.kind == "algorithm")
    return {"dim": dim, "r0": ids[0], "r2": ids[min(2, len(ids) - 1)]}


def store_copy(store: Path, tmp: Path) -> tuple[Path, Path]:
    """A copy of an existing store (a folder with data/ and reports/) under `tmp`, so a run never
    writes the original: its data and reports folders."""
    shutil.copytree(store / "data", tmp / "data", ignore=shutil.ignore_patterns(".lock"))
    shutil.copytree(store / "reports", tmp / "reports")
    return tmp / "data", tmp / "reports"


def open_drawn(page, url: str, page_name: str) -> None:  # type: ignore[no-untyped-def]
    """Open one of PAGES and wait until it is drawn, not only idle (stApp says "notRunning" once the
    script has ended on the server, while the browser may still be mounting its elements: acting then
    found controls missing or half drawn), then install the rerun observer: where every action starts."""
    page.goto(url)
    page.wait_for_function(DRAWN, arg=PAGES[page_name][1], timeout=120_000, polling=10)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.evaluate(OBSERVER)


class Diagnosis(NamedTuple):
    """One interaction of INTERACTIONS to diagnose, on a copy of a store (bench/rerun_messages.py,
    bench/rerun_profile.py): its URL path, action and redrawn element, and the copy."""

    path: str
    how: tuple[str, str]
    sel: str
    tmp: Path
    fill: dict[str, str]
    n_reports: int


def diagnosis(doc: str, repeat: int, prefix: str) -> tuple[argparse.Namespace, Diagnosis]:
    """The command line of a one-interaction diagnosis (--store, --page, --what, --app, --repeat) and
    the interaction on a copy of `--store` in a new temporary folder (the caller removes it)."""
    from ingest.store.store import Store

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--what", required=True)
    ap.add_argument("--app", type=Path, default=Path(__file__).resolve().parent.parent / "app.py")
    ap.add_argument("--repeat", type=int, default=repeat)
    a = ap.parse_args()
    _, _, path, how, sel = next(s for s in INTERACTIONS if s[0] == a.page and s[1] == a.what)
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    store_copy(a.store, tmp)
    n_reports = len(Store(tmp / "data").read_table("reports", columns=["report_id"]))
    return a, Diagnosis(path, how, sel, tmp, path_values(tmp / "data"), n_reports)


#: One interaction per row: page, what, the page's URL path, how to act (see `act`), and the element the
#: action redraws (its text changes; RERUN_DONE's fallback when a fast rerun shows no state change).
#: Selectboxes alternate between their second and first option, so every pick changes the value.
INTERACTIONS: list[tuple[str, str, str, tuple[str, str], str]] = [
    ("Compare", "sort", "/compare", ("sort", "table.frl thead button.frl-sort"), "table.frl tbody"),
    ("Keywords", "scope", "/keywords", ("radio", "body only|whole document"), '[data-chart="kw_heatmap"]'),
    ("Keywords", "group", "/keywords", ("select", "Lexicon group"), '[data-chart="kw_heatmap"]'),
    ("Keywords", "term", "/keywords", ("select", "Term for the scatter"), '[data-chart="kw_scatter"]'),
    ("Evidence", "dimension", "/evidence?report={r0}&dim={dim}", ("select", "Dimension"), MAIN),
    ("Evidence", "report", "/evidence?report={r0}&dim={dim}", ("select", "Report"), MAIN),
    ("Report", "report", "/report?report={r2}", ("select", "Report"), "h2"),
    ("Benchmarks", "benchmark", "/benchmarks", ("select", "Benchmark"), '[data-chart="bench_bars"]'),
    ("Benchmarks", "claims", "/benchmarks", ("select", "Benchmark (catalogue name"), '[data-table="leaderboard"]'),
    ("Benchmarks", "level", "/benchmarks", ("select", "Level dimension"), MAIN),
    ("Benchmarks", "keyword", "/benchmarks", ("select", "Keyword for the density"), MAIN),
    ("Indicators", "dimension", "/indicators", ("select", "Level dimension"), '[data-chart="indicators"]'),
    ("Search", "query", "/search?q=agent", ("type", "Word or phrase|reward model|agent"), MAIN),
    ("Timeline", "keyword", "/timeline", ("select", "Keyword"), '[data-chart="timeline"]'),
    ("Review", "next", "/review?rid={r0}", ("button", "Next least sure"), MAIN),
    ("Review", "report", "/review?rid={r0}", ("select", "Report"), MAIN),
]


#: How long a control may take to appear once its page is drawn before it counts as not on the store.
CONTROL_WAIT_MS = 15_000
#: What the page looked like when a picker did not open: the app's script state, whether the combobox says
#: it is expanded, and the element under the middle of the combobox (something drawn over it?).
STATE_OF = """(el) => {
  const r = el.getBoundingClientRect(), top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return `script state ${document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state')}, ` +
    `aria-expanded ${el.getAttribute('aria-expanded')}, at its middle ${top ? top.tagName + '.' + top.className : 'nothing'}` +
    `${top === el ? ' (itself)' : ''}, ${document.querySelectorAll('[role="option"]').length} option(s) in the page`;
}"""


def state_of(page, el) -> str:  # type: ignore[no-untyped-def]
    """STATE_OF for a control, or why it could not be read."""
    try:
        return str(el.evaluate(STATE_OF))
    except Exception as exc:  # detached meanwhile: that is the answer
        return f"could not read it: {type(exc).__name__}: {str(exc).splitlines()[0]}"


def cpu_ms(cdp) -> float:  # type: ignore[no-untyped-def]
    """The renderer main thread's CPU time so far, in ms (Chromium's `ThreadTime`)."""
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "ThreadTime") * 1000


class Cost:
    """What an interaction cost in the browser besides its wall time: the renderer main thread's CPU time
    (Chromium's `ThreadTime`, `cpu_ms`) and the websocket messages and bytes the server sent, from before
    the action to the end of its rerun."""

    def __init__(self, page, cdp) -> None:  # type: ignore[no-untyped-def]
        self.page, self.cdp = page, cdp
        self.start = (0.0, 0, 0)

    def read(self) -> tuple[float, int, int]:
        n, size = self.page.evaluate(WS_READ)
        return cpu_ms(self.cdp), int(n), int(size)


def measured_tab(browser, count_messages: bool = False):  # type: ignore[no-untyped-def]
    """A new context and tab whose renderer CPU `Cost` reads (and, when asked, whose websocket messages
    it counts; the count is installed before the page's own scripts). Returns (context, page, cost);
    the caller closes the context."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Performance.enable")
    if count_messages:
        page.add_init_script(f"({WS_COUNT})()")
    return ctx, page, Cost(page, cdp)


class Absent(Exception):
    """The page has no such control on this store (e.g. no benchmark picker without result tables)."""


def act(page, how: tuple[str, str], i: int, sel: str, cost: Cost | None = None) -> float:  # type: ignore[no-untyped-def]
    """Perform the i-th action of one kind and time it until its rerun (if any) has finished."""
    kind, arg = how
    if kind == "select":  # open the selectbox (not timed), then pick the first option it does not show
        box = page.locator('[data-testid="stSelectbox"]').filter(has_text=arg).first
        try:  # the page is drawn (see `interactions`), but a section can still be mounting: wait for it
            box.wait_for(state="visible", timeout=CONTROL_WAIT_MS)
        except PlaywrightTimeout:
            raise Absent(arg) from None
        combo = box.get_by_role("combobox")  # what a reader clicks: the input, not the middle of label + input
        combo.scroll_into_view_if_needed()
        shown = combo.input_value() or box.inner_text()
        combo.click()
        options = page.get_by_role("option")
        try:
            options.first.wait_for(timeout=60_000)
        except PlaywrightTimeout:
            raise RuntimeError(f"{arg}: no option shown after the click; {state_of(page, combo)}") from None
        texts = options.all_inner_texts()
        other = next((k for k, t in enumerate(texts) if t.strip() and t.strip() not in shown), None)
        if other is None:
            raise Absent(f"{arg}: one option")
        return timed_click(page, options.nth(other), sel, cost=cost)
    if kind == "radio":
        a, b = arg.split("|")
        label = page.locator('[data-testid="stRadio"] label').filter(has_text=(a, b)[i % 2]).first
        return timed_click(page, label, sel, cost=cost)
    if kind == "button":
        return timed_click(page, page.get_by_role("button", name=arg).first, sel, cost=cost)
    if kind == "sort":  # the matrix sorts in the browser: until its rows are in another order
        head = page.locator(arg).nth(1 + i % 2)
        head.scroll_into_view_if_needed()
        return timed_click(page, head, sel, cost=cost)
    label, *words = arg.split("|")  # type a query (not timed), then press Enter
    box = page.get_by_label(label)
    box.fill(words[i % 2])
    if cost is not None:
        cost.start = cost.read()
    before = page.evaluate(TEXT_OF, sel)
    t0 = page.evaluate("() => performance.now()")
    t = time.perf_counter()
    box.press("Enter")
    page.wait_for_function(RERUN_DONE, arg=[t0, sel, before], timeout=180_000, polling=10)
    return time.perf_counter() - t


def interactions(  # type: ignore[no-untyped-def]
    browser, servers: dict[str, str], fill: dict[str, str], repeat: int, pages: set[str] | None = None
) -> dict[tuple[str, str, str], list[tuple[float, float, int, int]]]:
    """Every interaction of INTERACTIONS (on `pages` only, if given), `repeat` times each (one tab per
    interaction, warm server), on each app of `servers` (name -> URL) in turn before the next interaction,
    so load on a shared machine hits all alike: (app, page, what) -> [(seconds, renderer CPU ms, messages,
    bytes)] per action (see `Cost`)."""
    out: dict[tuple[str, str, str], list[tuple[float, float, int, int]]] = {}
    for page_name, what, path, how, sel in INTERACTIONS:
        if pages is not None and page_name not in pages:
            continue
        for app_name, server in servers.items():
            interaction(browser, server, fill, repeat, (app_name, page_name, what, path, how, sel), out)
    return out


def interaction(browser, server, fill, repeat, spec, out) -> None:  # type: ignore[no-untyped-def]
    """One interaction of INTERACTIONS, `repeat` times in one tab, into `out` (see `interactions`)."""
    app_name, page_name, what, path, how, sel = spec
    key, name = (app_name, page_name, what), f"{app_name}{page_name} {what}"
    ctx, page, cost = measured_tab(browser, count_messages=True)
    try:
        open_drawn(page, server + path.format(**fill), page_name)
        out[key] = []
        for i in range(repeat):
            t = act(page, how, i, sel, cost)
            page.wait_for_selector(IDLE, timeout=120_000)
            page.wait_for_timeout(200)  # the browser finishes drawing (counted in its CPU time)
            (c0, n0, b0), (c1, n1, b1) = cost.start, cost.read()
            out[key].append((t, c1 - c0, n1 - n0, b1 - b0))
            page.keyboard.press("Escape")
    except Absent as exc:
        print(f"  interaction   {name:<22} not on this store ({exc})")
        out.pop(key, None)
    except Exception as exc:  # a timeout on an overloaded machine: say so, measure the rest
        print(f"  interaction   {name:<22} not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        out[key] = [(float("inf"), float("nan"), 0, 0)]
    finally:
        ctx.close()


def timed_click(page, target, sel: str, timeout_ms: int = 180_000, cost: Cost | None = None) -> float:  # type: ignore[no-untyped-def]
    """Click `target` and wait until the rerun it starts has finished (RERUN_DONE; `sel` is an element
    the rerun redraws with other text); the seconds from the click to then. `cost.start` is read just before."""
    if cost is not None:
        cost.start = cost.read()
    before = page.evaluate(TEXT_OF, sel)
    t0 = page.evaluate("() => performance.now()")
    t = time.perf_counter()
    target.click()
    page.wait_for_function(RERUN_DONE, arg=[t0, sel, before], timeout=timeout_ms, polling=10)
    return time.perf_counter() - t


def show_interactions(found: dict[tuple[str, str, str], list[tuple[float, float, int, int]]]) -> dict[str, float]:
    """Each interaction's median beside the target, with the renderer's CPU time and what the server sent
    (median per action; a failed one is printed where it failed); apps taking turns are printed together."""
    out = {}
    for (app_name, page_name, what), runs in found.items():
        times = [r[0] for r in runs]
        med = out[f"interaction: {app_name}{page_name} {what}"] = statistics.median(times)
        if med != float("inf"):
            cpu, msgs, size = (statistics.median(r[i] for r in runs) for i in (1, 2, 3))
            print(f"  interaction   {app_name + page_name + ' ' + what:<28} {med * 1000:6.0f} ms median of {len(times)} "
                  f"(max {max(times) * 1000:4.0f}; renderer CPU {cpu:4.0f} ms; {msgs:3.0f} messages, {size / 1024:6.1f} KB)"
                  f"   target <= {RERUN_TARGET_S * 1000:.0f} ms {'ok' if med <= RERUN_TARGET_S else 'MISSED'}")  # fmt: skip
    return out
