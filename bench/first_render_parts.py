"""Where a dashboard page's first render goes, beside the framework's floor (a diagnosis, no target).

    .venv/bin/python bench/first_render_parts.py [--reports 500] [--repeat 5] [--pages Compare "Add report"]

bench/app_speed.py says how much longer than a one-line Streamlit app a page's first render takes;
this says why. It opens, in one warm browser context (the app's JavaScript cached, as for a returning
user), interleaved, each a new tab until drawn and idle (app_speed's `DRAWN`):

* `one-line /`: the one-line app at /; `one-line /x`: the same app at a path (every dashboard page is
  at one: the frontend first probes `/<path>/_stcore/health`, gets 404 and retries at / after 100 ms);
* `nav shell`: `st.set_page_config` and `st.navigation` with the real page list (views.nav.PAGES:
  titles, icons, sidebar) whose pages draw one title: the app shell without any page's content;
* each dashboard page asked for (app_speed's PAGES; all by default).

For each: the median wall time; the renderer's main-thread CPU time (Chromium's `ThreadTime`, which
other processes' load inflates less than wall time); when, after the navigation started, the
websocket was opened, its first and last messages came, the app went idle and the page was drawn
(in-page `performance.now()`, median); the `/_stcore/health`
probes made; the script runs per render (the server's `script_finished` messages); and, from one
render, the page's delta messages by element kind with their bytes.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.app_interactions import cpu_ms, path_values  # noqa: E402
from bench.app_speed import DRAWN, MINIMAL_APP, PAGES  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.app_fixtures import scale_store  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402
from views import nav  # noqa: E402

#: Milestones in the page, from navigation start: the websocket opened, the app went idle after running.
MARKS = """() => {
  window.__marks = {};
  const WS = window.WebSocket;
  window.WebSocket = function (...a) {
    const w = new WS(...a);
    w.addEventListener('open', () => { window.__marks.ws ??= performance.now(); });
    w.addEventListener('message', () => { window.__marks.msg1 ??= performance.now(); window.__marks.last = performance.now(); });
    return w;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, WS);
  const watch = new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) return;
    watch.disconnect();
    new MutationObserver(() => {
      const s = app.getAttribute('data-test-script-state');
      if (s === 'running') window.__marks.ran = true;
      if (s === 'notRunning' && window.__marks.ran) window.__marks.idle = performance.now();
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  });
  document.addEventListener('DOMContentLoaded', () => watch.observe(document.body, {childList: true, subtree: true}));
}"""
PROBES = "() => performance.getEntriesByType('resource').filter(e => e.name.endsWith('/_stcore/health')).length"


def shell_script(folder: Path) -> Path:
    """The app shell alone: the real page list in st.navigation, each page drawing one title."""
    lines = ["import streamlit as st", "", 'st.set_page_config(page_title="shell", layout="wide")', "pages = ["]
    for i, (name, (_, title, icon)) in enumerate(nav.PAGES.items()):
        page = folder / f"shell_{name}.py"
        page.write_text(f"import streamlit as st\n\nst.title({title!r})\n", encoding="utf-8")
        if i == 0:
            lines.append(f"    st.Page({str(page)!r}, title={title!r}, url_path='home', default=True, visibility='hidden'),")
        hidden = "hidden" if name in nav.HIDDEN else "visible"
        lines.append(f"    st.Page({str(page)!r}, title={title!r}, icon={icon!r}, url_path={name!r}, visibility={hidden!r}),")
    lines += ["]", "st.navigation(pages, position='sidebar').run()", ""]
    script = folder / "shell_app.py"
    script.write_text("\n".join(lines), encoding="utf-8")
    return script


def render(ctx, server: str, path: str, sel: str, frames: list | None = None) -> tuple[float, ...]:  # type: ignore[no-untyped-def]
    """One first render in a new tab: wall ms, main-thread CPU ms, websocket-open ms, idle ms, health probes,
    drawn ms (in-page time when the drawn check passed, within its 10 ms polling), first and last websocket
    message ms (in-page times, from navigation start).
    With `frames`, the websocket frames the server sent are appended to it."""
    page = ctx.new_page()
    try:
        if frames is not None:
            page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        cdp = ctx.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(server + "/_stcore/health")  # same origin first, so the renderer's CPU time is this page's
        page.add_init_script(f"({MARKS})()")
        cpu0 = cpu_ms(cdp)
        t = time.perf_counter()
        page.goto(server + path)
        page.wait_for_function(
            f"(sel) => ({DRAWN})(sel) && (window.__marks.drawn = performance.now())", arg=sel, timeout=120_000, polling=10
        )
        wall = (time.perf_counter() - t) * 1000
        cpu = cpu_ms(cdp) - cpu0
        m = page.evaluate("() => window.__marks")
        nan = float("nan")
        return (wall, cpu, m.get("ws", nan), m.get("idle", m["drawn"]), page.evaluate(PROBES), m["drawn"],
                m.get("msg1", nan), m.get("last", nan))  # fmt: skip
    finally:
        page.close()


def deltas(frames: list) -> tuple[int, str]:
    """Script runs and the delta messages by element kind (count, bytes) in these websocket frames."""
    kinds: collections.Counter = collections.Counter()
    size: collections.Counter = collections.Counter()
    runs = 0
    for f in frames:
        if isinstance(f, str):
            continue
        msg = ForwardMsg()
        msg.ParseFromString(f)
        kind = msg.WhichOneof("type")
        runs += kind == "script_finished"
        if kind != "delta":
            continue
        d = msg.delta
        what = d.WhichOneof("type")
        k = (
            d.new_element.WhichOneof("type")
            if what == "new_element"
            else d.add_block.WhichOneof("type")
            if what == "add_block"
            else what
        )
        kinds[k] += 1
        size[k] += len(f)
    parts = ", ".join(f"{k} {n}× {size[k] / 1000:.1f} kB" for k, n in kinds.most_common())
    return runs, f"{sum(kinds.values())} deltas, {sum(size.values()) / 1000:.1f} kB: {parts}"


def page_store(tmp: Path, n: int) -> tuple[Path, Path, dict[str, str]]:
    """A store of `n` reports under `tmp` (tests/app_fixtures.py `scale_store`): its data and reports
    folders, and the values app_speed's PAGES paths take ({dim}, {r0}, {r2})."""
    data, reports = scale_store(tmp / "store", n)
    return data, reports, path_values(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=500, help="store size to build (tests/app_fixtures.py scale_store)")
    ap.add_argument("--repeat", type=int, default=5, help="renders per target (the median is printed)")
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES), help="dashboard pages to open")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        data, reports, fill = page_store(tmp, args.reports)
        (tmp / "one.py").write_text(MINIMAL_APP, encoding="utf-8")
        procs: list = []
        try:
            for folder, log, script in (
                (tmp, "one", tmp / "one.py"),
                (tmp, "shell", shell_script(tmp)),
                (data, "app", REPO / "app.py"),
            ):
                procs.append(start_app(folder, reports if log == "app" else tmp, tmp / f"{log}.log", script=script))
            one, shell, app = procs
            targets = [("one-line /", one[1], "/", "h1"), ("one-line /x", one[1], "/x", "h1"),
                       ("nav shell", shell[1], "/add", "h1")]  # fmt: skip
            targets += [(name, app[1], PAGES[name][0].format(**fill), PAGES[name][1]) for name in args.pages]
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
                ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
                found: dict[str, tuple[int, str]] = {}
                for name, server, path, sel in targets:  # warm the cache and the servers; keep one render's frames
                    frames: list = []
                    render(ctx, server, path, sel, frames)
                    found[name] = deltas(frames)
                runs: dict[str, list] = {t[0]: [] for t in targets}
                for _ in range(args.repeat):
                    for name, server, path, sel in targets:
                        runs[name].append(render(ctx, server, path, sel))
                browser.close()
        finally:
            for proc, _ in procs:
                stop(proc)
    base = [statistics.median(r[i] for r in runs["one-line /"]) for i in range(2)]
    print(f"{args.reports:,} reports; median of {args.repeat} first renders each, interleaved, JavaScript cached")
    print("target        wall ms (x /)  main-thread CPU ms (x /)  ws open  1st msg  last msg  idle drawn  probes  runs")
    for name, _, _, _ in targets:
        r = runs[name]
        wall, cpu, ws, idle = (statistics.median(x[i] for x in r) for i in range(4))
        n_runs, parts = found[name]
        drawn, msg1, last = (statistics.median(x[i] for x in r) for i in (5, 6, 7))
        row = (
            f"{wall:7.0f} {wall / base[0]:5.2f} {cpu:18.0f} {cpu / base[1]:5.2f} {ws:8.0f} {msg1:8.0f} {last:9.0f} "
            f"{idle:5.0f} {drawn:5.0f}"
        )
        print(f"{name:<13} {row} {statistics.median(x[4] for x in r):7.0f} {n_runs:5d}")
        print(f"{'':<13} {parts}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
