"""What the elements of a page cost a rerun in the browser, inside and outside a fragment (a diagnosis).

    .venv/bin/python bench/rerun_elements.py [--counts 0 100 300] [--repeat 4] [--rounds 2]

Why (issue 35 item 9): a pick on a dashboard page costs more than the same pick on a one-line app.
A generated app draws a title, a selectbox of `k` options (`--options`; 20 by default, as the
one-line app of bench/app_speed.py) with a caption (the "pick"), then `n` plain text lines;
the selectbox and caption are either part of the whole script (`fragment=0`: a pick reruns all, the
`n` lines are sent again) or a fragment (`fragment=1`: only the picker and its caption are sent; the
`n` lines stay mounted); with `--inside`, the `n` elements are drawn by the fragment and change with
the pick (as a page's content does). `--kinds` says what they are (text, subheader, caption, html,
a bordered container holding a text, a closed popover, a toggle, a button). Each pick is timed as bench/app_speed.py
times an interaction (until its rerun has finished; `timed_rerun`), with the renderer main thread's CPU time (`Cost`), median of
`repeat` picks per tab, `rounds` rounds taking turns, so load on a shared machine hits all alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_interactions import IDLE, OBSERVER, measured_tab  # noqa: E402
from bench.app_speed import timed_rerun  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

APP = """import streamlit as st

q = st.query_params
n, frag, k, kind = int(q.get("n", "0")), q.get("frag") == "1", int(q.get("k", "20")), q.get("kind", "text")
st.title("elements")


def line(i, v):
    s = f"line {i} of {v}"
    if kind == "text":
        st.text(s)
    elif kind == "subheader":
        st.subheader(s)
    elif kind == "caption":
        st.caption(s)
    elif kind == "html":
        st.html(f"<p>{s}</p>")
    elif kind == "container":
        st.container(border=True).text(s)
    elif kind == "popover":
        st.popover(s, key=f"pop{i}", on_change="rerun")
    elif kind == "toggle":
        st.toggle(s, key=f"tog{i}")
    elif kind == "button":
        st.button(s, key=f"but{i}")


def body():
    v = st.selectbox("Pick", [f"option {i}" for i in range(k)], key="p")
    st.caption(f"picked {v}")
    if q.get("inside") == "1":
        for i in range(n):
            line(i, v)


st.fragment(body)() if frag else body()
if q.get("inside") != "1":
    for i in range(n):
        line(i, "static")
"""


def picks(browser, url: str, repeat: int) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    """`repeat` selectbox picks in one tab: (seconds, renderer CPU ms) each."""
    ctx, page, cost = measured_tab(browser)
    try:
        page.goto(url)
        page.wait_for_selector(IDLE, timeout=120_000)
        page.wait_for_timeout(300)
        page.evaluate(OBSERVER)
        out = []
        for i in range(repeat):
            page.locator('[data-testid="stSelectbox"]').get_by_role("combobox").click()
            option = page.get_by_role("option").nth(1 + i % 3)
            option.wait_for()
            out.append(timed_rerun(page, option, cost))
        return out
    finally:
        ctx.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", type=int, nargs="+", default=[0, 100, 300], help="text lines besides the picker")
    ap.add_argument("--repeat", type=int, default=4, help="picks per tab")
    ap.add_argument("--rounds", type=int, default=2, help="rounds over every case, taking turns")
    kinds = ["text", "subheader", "caption", "html", "container", "popover", "toggle", "button"]
    ap.add_argument("--kinds", nargs="+", default=["text"], choices=kinds,
                    help="what the n elements are (a container: a bordered one holding a text; a popover: closed)")  # fmt: skip
    ap.add_argument("--inside", action="store_true",
                    help="the n elements change with the pick: drawn by the picker's run, re-sent on every pick")  # fmt: skip
    ap.add_argument("--options", type=int, nargs="+", default=[20],
                    help="options of the picked selectbox (a report picker offers up to nav.PICKER_LIMIT)")  # fmt: skip
    args = ap.parse_args()
    frags = ("1",) if args.inside else ("0", "1")
    cases = [(n, f, k, kind) for kind in args.kinds for k in args.options for n in args.counts for f in frags]
    runs: dict[tuple[int, str, int, str], list[tuple[float, float]]] = {c: [] for c in cases}
    inside = "&inside=1" if args.inside else ""
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app.py"
        app.write_text(APP, encoding="utf-8")
        proc, server = start_app(Path(tmp), Path(tmp), Path(tmp) / "app.log", script=app)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
                picks(browser, f"{server}/?n=0&frag=0", 1)  # warm the server and the browser cache
                for _ in range(args.rounds):
                    for n, f, k, kind in cases:
                        url = f"{server}/?n={n}&frag={f}&k={k}&kind={kind}{inside}"
                        runs[(n, f, k, kind)] += picks(browser, url, args.repeat)
                browser.close()
        finally:
            stop(proc)
    print(f"a selectbox pick, median of {args.repeat} x {args.rounds}: wall ms and renderer CPU ms")
    for (n, f, k, kind), r in runs.items():
        wall, cpu = statistics.median(x[0] for x in r) * 1000, statistics.median(x[1] for x in r)
        where = "picker in a fragment (the lines stay mounted)" if f == "1" else "whole script reruns (the lines re-sent)"
        if args.inside:
            where = "in the picker's fragment (re-sent, changed)"
        print(f"  {k:4d} options, {n:4d} {kind + ' elements,':<20} {where:<46} {wall:6.0f} ms wall   {cpu:5.0f} ms renderer CPU")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
