"""Where an interaction's browser time goes: one of bench/app_speed.py's INTERACTIONS, traced in Chromium.

    .venv/bin/python bench/rerun_profile.py --store DIR --page Review --what next [--app app.py] [--repeat 3]

Serves `--app` on a copy of an existing store (a folder with data/ and reports/, as
`tests.app_fixtures.scale_store` or `bench/scale.py --keep DIR` leave it), opens the interaction's page as
bench/app_speed.py does, and records a Chromium trace (devtools.timeline) around each action until its
rerun has finished. Prints, per action, the renderer main thread's time by kind of work (script, style,
layout, paint, HTML parsing) and the five JavaScript functions with the most self time (a sampled CPU
profile) and the eight script files with the most (a file of the frontend's bundle names its part:
a component, DOMPurify, React), then the DOM size and the elements the main block holds by Streamlit kind, so a page's rerun
cost can be put on what it draws. Diagnostic only: no target (its runs are logged in bench/RESULTS.md
like every bench script's).
"""

from __future__ import annotations

import collections
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_interactions import IDLE, act, diagnosis, open_drawn  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

#: Trace event name -> kind of renderer work (the rest of the main thread's complete events is "other").
KINDS = {
    "FunctionCall": "script", "EvaluateScript": "script", "v8.compile": "script", "TimerFire": "script",
    "EventDispatch": "script", "FireAnimationFrame": "script", "RunMicrotasks": "script",
    "UpdateLayoutTree": "style", "RecalculateStyles": "style", "ParseAuthorStyleSheet": "style",
    "Layout": "layout", "UpdateLayerTree": "layout", "PrePaint": "paint", "Paint": "paint", "Layerize": "paint",
    "ParseHTML": "html",
}  # fmt: skip
#: Streamlit's elements in the main block by kind (data-testid), and the DOM size.
DOM = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const kinds = {};
  for (const el of main.querySelectorAll('[data-testid="stElementContainer"] > *:first-child'))
    kinds[el.getAttribute('data-testid') || el.tagName] = (kinds[el.getAttribute('data-testid') || el.tagName] || 0) + 1;
  return [document.getElementsByTagName('*').length, kinds];
}"""


def renderer_times(events: list[dict]) -> tuple[dict[str, float], float]:  # type: ignore[type-arg]
    """ms per kind of work on the renderer main thread (top-level events only), and the busiest thread's total."""
    main_tid = collections.Counter(
        (e["pid"], e["tid"]) for e in events if e.get("name") in ("Layout", "UpdateLayoutTree") and e.get("ph") == "X"
    ).most_common(1)
    if not main_tid:
        return {}, 0.0
    pid, tid = main_tid[0][0]
    own = sorted((e for e in events if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X" and "dur" in e),
                 key=lambda e: (e["ts"], -e["dur"]))  # fmt: skip
    out: dict[str, float] = collections.defaultdict(float)
    end = -1.0
    for e in own:  # a kind's time is its outermost event's; nested events are inside their parent's time
        kind = KINDS.get(e["name"])
        if kind is None:
            continue
        if e["ts"] >= end:
            out[kind] += e["dur"] / 1000
            end = e["ts"] + e["dur"]
    return dict(out), sum(out.values())


#: A CPU profile's pseudo-functions that are not JavaScript (native work, waiting): left out of the files' sums.
NOT_JS = frozenset({"(program)", "(idle)", "(garbage collector)", "(root)"})


def top_functions(profile: dict, n: int = 5, by_file: bool = False) -> list[tuple[str, float]]:  # type: ignore[type-arg]
    """The n JavaScript functions (name and file) with the most self time in a CPU profile, ms; with
    `by_file`, the n script files (a file of the frontend's bundle: a component, DOMPurify, React) instead,
    native work and idle time left out."""
    nodes = {x["id"]: x for x in profile["nodes"]}
    dt = collections.defaultdict(float)
    for sid, d in zip(profile.get("samples", []), profile.get("timeDeltas", []), strict=False):
        f = nodes[sid]["callFrame"]
        if by_file:
            if f["functionName"] not in NOT_JS:
                dt[f["url"].rsplit("/", 1)[-1] or f"({f['functionName'] or 'native'})"] += d / 1000
        else:
            dt[f"{f['functionName'] or '(anonymous)'} {f['url'].rsplit('/', 1)[-1]}:{f['lineNumber']}"] += d / 1000
    return sorted(dt.items(), key=lambda kv: -kv[1])[:n]


def main() -> int:
    a, d = diagnosis(__doc__, 3, "frl-profile-")
    tmp = d.tmp
    proc, server = start_app(tmp / "data", tmp / "reports", tmp / "streamlit.log", script=a.app.resolve())
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            cdp = page.context.new_cdp_session(page)
            open_drawn(page, server + d.path.format(**d.fill), a.page)
            print(f"{a.page} {a.what} ({a.app}): {d.n_reports} reports")
            events: list[dict] = []  # type: ignore[type-arg]
            done: list[int] = []
            cdp.on("Tracing.dataCollected", lambda m: events.extend(m["value"]))
            cdp.on("Tracing.tracingComplete", lambda m: done.append(1))
            for i in range(a.repeat):
                events.clear()
                done.clear()
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                cdp.send("Tracing.start", {"categories": "devtools.timeline,disabled-by-default-devtools.timeline",
                                           "transferMode": "ReportEvents"})  # fmt: skip
                cdp.send("Profiler.start")
                t = act(page, d.how, i, d.sel)
                page.wait_for_selector(IDLE, timeout=120_000)
                page.wait_for_timeout(200)
                prof = cdp.send("Profiler.stop")["profile"]
                cdp.send("Tracing.end")
                while not done:
                    page.wait_for_timeout(50)
                kinds, total = renderer_times(events)
                n_dom, els = page.evaluate(DOM)
                print(f"  action {i + 1}: {t * 1000:5.0f} ms; renderer main thread {total:5.0f} ms: "
                      + ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))  # fmt: skip
                print("    most self time: " + "; ".join(f"{f} {v:.0f} ms" for f, v in top_functions(prof)))
                print("    by script file: " + "; ".join(f"{f} {v:.0f} ms" for f, v in top_functions(prof, 8, by_file=True)))
                print(f"    DOM {n_dom} nodes; main block: {json.dumps(els, sort_keys=True)}")
                page.keyboard.press("Escape")
            browser.close()
    finally:
        stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
