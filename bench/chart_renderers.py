"""Chart renderers compared in a real browser: the same chart specs drawn as plain HTML and as plotly,
in one run.

    .venv/bin/python bench/app_speed.py --renderers-only [--reports 20] [--repeat 5]

The Keywords page's three charts (heatmap, section bars, length scatter) are built once from a store
made by the real pipeline (tests/app_fixtures.py `scale_store`) with the page's own spec builders
(views.keyword_charts), pickled, and served by a small Streamlit app (`APP`) that draws them with the
renderer its URL names. For each renderer, a new tab opens the app and the time runs until the
script is idle and all three charts have a drawn element with a size (checked every 10 ms). The
browser has visited each renderer once (its JavaScript is cached, as for a returning user); the
renderers take turns in every round, so load on this shared machine hits them alike, and the median
of the rounds is printed. The default renderer (views.chart_data.DEFAULT_RENDERER) must be the
fastest or within 10 % of it.
"""

from __future__ import annotations

import pickle
import statistics
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from ingest.analysis.lexicon import load_lexicon
from ingest.store.store import Store
from tests.app_fixtures import scale_store
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop
from views import figures, keyword_charts
from views.chart_data import DEFAULT_RENDERER, RENDERERS, ChartSpec

REPO = Path(__file__).resolve().parent.parent
#: The default may be this much slower than the fastest renderer (issue 25: "within 10 %").
TOLERANCE = 0.10
#: Per renderer: what says a chart is drawn (inside each chart's own element).
DRAWN_MARK: dict[str, str] = {
    "html": "[data-chart] .frl-h, [data-chart] .frl-b, [data-chart] .frl-s",
    "plotly": ".js-plotly-plot .main-svg",
}
#: All `n` charts are drawn: the app is idle and `n` elements matching `sel` have a size.
DRAWN_ALL = """([sel, n]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  return [...document.querySelectorAll(sel)].filter(shown).length >= n;
}"""
APP = """import pickle, sys
import streamlit as st
sys.path.insert(0, {repo!r})
from views import htmlchart, chart_plotly

specs = pickle.loads(open({specs!r}, "rb").read())
how = st.query_params.get("r", "html")
st.title("charts")
for spec in specs:
    if how == "html":
        st.html(htmlchart.render(spec))
    else:
        st.plotly_chart(chart_plotly.figure(spec), width="stretch")
"""


def keyword_specs(data: Path) -> list[ChartSpec]:
    """The Keywords page's three charts on this store, built as the page builds them."""
    # Imported here: the page module's st.cache decorators log a warning each outside a Streamlit run,
    # which every `app_speed.py` run (and --help) would print otherwise.
    from views.keywords import HEATMAP_ROWS

    store = Store(data)
    reports, counts, reported = (store.read_table(t) for t in ("reports", "counts", "reported"))
    group = load_lexicon().groups[0]
    terms = [t.name for t in group.terms]
    counts = counts[counts["group"] == group.id]
    m = figures.keyword_matrix(reports, counts, reported, terms, group.id)
    models = m["model"].unique()[:HEATMAP_ROWS]
    heat = keyword_charts.heatmap(m[m["model"].isin(models)], terms)
    bars = keyword_charts.section_bars(counts, reports["report_id"].tolist(), terms, group.id)
    rows, n = figures.first_points(figures.scatter_rows(m, terms[0]), "", figures.SCATTER_POINTS)
    note = figures.points_note(len(rows), n, "narrow them")
    scatter = keyword_charts.length_scatter(rows, terms[0], note=note)
    return [s for s in (heat, bars, scatter) if s is not None]


def _first_render(browser, ctx, url: str, sel: str, n: int) -> float:  # type: ignore[no-untyped-def]
    """Seconds from opening `url` in a new tab of `ctx` until its `n` charts are drawn."""
    page = ctx.new_page()
    try:
        t = time.perf_counter()
        page.goto(url)
        page.wait_for_function(DRAWN_ALL, arg=[sel, n], timeout=120_000, polling=10)
        return time.perf_counter() - t
    finally:
        page.close()


def compare(n_reports: int, repeat: int, tmp: Path) -> dict[str, float]:
    """Median first render (seconds) of the Keywords charts per renderer; prints the comparison."""
    data, reports = scale_store(tmp / f"charts{n_reports}", n_reports)
    specs = keyword_specs(data)
    (tmp / "specs.pkl").write_bytes(pickle.dumps(specs))
    app = tmp / "charts_app.py"
    app.write_text(APP.format(repo=str(REPO), specs=str(tmp / "specs.pkl")), encoding="utf-8")
    proc, server = start_app(data, reports, tmp / "streamlit-charts.log", script=app)
    times: dict[str, list[float]] = {r: [] for r in RENDERERS}
    cold: dict[str, float] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            warm = browser.new_context(viewport={"width": 1440, "height": 1000})
            for r in RENDERERS:  # a fresh profile (downloads the renderer's JS), then the cached visit
                fresh = browser.new_context(viewport={"width": 1440, "height": 1000})
                cold[r] = _first_render(browser, fresh, f"{server}/?r={r}", DRAWN_MARK[r], len(specs))
                fresh.close()
                _first_render(browser, warm, f"{server}/?r={r}", DRAWN_MARK[r], len(specs))
            for _ in range(repeat):
                for r in RENDERERS:
                    times[r].append(_first_render(browser, warm, f"{server}/?r={r}", DRAWN_MARK[r], len(specs)))
            browser.close()
    finally:
        stop(proc)
    return report(times, cold, specs, n_reports)


def report(times: dict[str, list[float]], cold: dict[str, float], specs: list[ChartSpec], n_reports: int) -> dict[str, float]:
    """Print each renderer's median beside the fastest, and whether the default is within TOLERANCE."""
    med = {r: statistics.median(v) for r, v in times.items()}
    best = min(med, key=med.__getitem__)
    kinds = ", ".join(f"{type(s).__name__} {s.key}" for s in specs)
    print(f"\nchart renderers: the Keywords page's {len(specs)} charts ({kinds}) on {n_reports:,} reports, "
          "first render in a new tab")  # fmt: skip
    for r, m in med.items():
        mark = " (default)" if r == DEFAULT_RENDERER else ""
        print(f"  renderer {r:<7}{m * 1000:6.0f} ms median of {len(times[r])} (max {max(times[r]) * 1000:.0f}; "
              f"fresh browser profile {cold[r] * 1000:.0f} ms){mark}{'   fastest' if r == best else ''}")  # fmt: skip
    ok = med[DEFAULT_RENDERER] <= med[best] * (1 + TOLERANCE)
    print(f"  default renderer {DEFAULT_RENDERER}: {med[DEFAULT_RENDERER] / med[best]:.2f} × the fastest ({best})   "
          f"target <= {1 + TOLERANCE:.2f} × {'ok' if ok else 'MISSED'}")  # fmt: skip
    return med
