"""What each kind of Streamlit element adds to a first render (a diagnosis for page design, no target).

    .venv/bin/python bench/element_costs.py [--repeat 5] [--counts 1 6] [--kinds selectbox radio]

bench/first_render_parts.py shows that a dashboard page's first render costs more than a one-line app
because of the page's own elements. This says which elements: one generated app draws a title and then
`n` elements of one kind (`?kind=K&n=N`), each opened in a new tab of one warm browser context (the
app's JavaScript cached, as for a returning user), interleaved with the title-only app. For each kind
and count: the median wall time and the renderer's main-thread CPU time (Chromium's `ThreadTime`) until
the app is idle and the last element is drawn (bench/app_speed.py's `DRAWN`), and their excess over the
title alone. Two counts separate what the first element of a kind costs (its code loaded and run in a
new tab) from what each further one adds.
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

from bench.first_render_parts import render  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

#: kind -> the code that draws element `i` (a Python expression statement using `st` and `i`).
KINDS: dict[str, str] = {
    "markdown": 'st.markdown(f"**Bold {i}** · some *text* with a [link](https://example.org)")',
    "caption": 'st.caption(f"A caption line {i} saying what the table shows.")',
    "text": 'st.text(f"plain text {i}\\nsecond line")',
    "heading": 'st.subheader(f"Section {i}")',
    "html_small": 'st.html(f"<p>html {i}</p>")',
    "html_table": "st.html(TABLE)",
    "container": 'st.container(border=True).text(f"boxed {i}")',
    "columns": 'st.columns(3)[0].text(f"column {i}")',
    "expander": 'st.expander(f"Details {i}").text("inside")',
    "popover": 'st.popover(f"Options {i}").text("inside")',
    "button": 'st.button(f"Button {i}", key=f"b{i}")',
    "download_button": 'st.download_button(f"Download {i}", b"x", file_name="x.txt", key=f"d{i}", on_click="ignore")',
    "link_button": 'st.link_button(f"Link {i}", "https://example.org")',
    "selectbox": 'st.selectbox(f"Pick {i}", [f"option {j}" for j in range(50)], key=f"s{i}")',
    "radio": 'st.radio(f"Choose {i}", ["one", "two", "three"], horizontal=True, key=f"r{i}")',
    "multiselect": 'st.multiselect(f"Several {i}", [f"option {j}" for j in range(50)], key=f"m{i}")',
    "text_input": 'st.text_input(f"Name {i}", key=f"t{i}")',
    "checkbox": 'st.checkbox(f"Check {i}", key=f"c{i}")',
    "toggle": 'st.toggle(f"Toggle {i}", key=f"g{i}")',
    "segmented_control": 'st.segmented_control(f"Mode {i}", ["one", "two", "three"], key=f"sc{i}")',
    "pills": 'st.pills(f"Tags {i}", ["one", "two", "three"], key=f"p{i}")',
    "tabs": 'st.tabs([f"Tab {i}a", f"Tab {i}b"])[0].text("inside")',
    "file_uploader": 'st.file_uploader(f"File {i}", key=f"f{i}")',
}
APP = """import streamlit as st

ROW = "<tr><td>row {{}}</td><td>{{}}</td><td>a longer cell of text {{}}</td></tr>"
TABLE = "<table>" + "".join(ROW.format(r, r * 7, r) for r in range(40)) + "</table>"
st.title("elements")
kind, n = st.query_params.get("kind", ""), int(st.query_params.get("n", "0"))
for i in range(n):
{branches}
st.header("end")  # the last element (the page's only h2): drawn means the page is
"""


def app_source() -> str:
    """The generated app: one branch per kind of KINDS."""
    branches = [f"    {'if' if j == 0 else 'elif'} kind == {k!r}:\n        {code}" for j, (k, code) in enumerate(KINDS.items())]
    return APP.format(branches="\n".join(branches))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="renders per target (the median is printed)")
    ap.add_argument("--counts", type=int, nargs="+", default=[1, 6], help="elements of the kind per page")
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS), help="element kinds to measure")
    args = ap.parse_args()
    targets = [("title only", "/?n=0")] + [(f"{k} ×{n}", f"/?kind={k}&n={n}") for k in args.kinds for n in args.counts]
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        script = tmp / "app.py"
        script.write_text(app_source(), encoding="utf-8")
        proc, server = start_app(tmp, tmp, tmp / "app.log", script=script)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
                ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
                for _, path in targets:  # warm the cache and the server
                    render(ctx, server, path, "h2")
                runs: dict[str, list] = {name: [] for name, _ in targets}
                for _ in range(args.repeat):
                    for name, path in targets:
                        runs[name].append(render(ctx, server, path, "h2"))
                browser.close()
        finally:
            stop(proc)
    base = [statistics.median(r[i] for r in runs["title only"]) for i in range(2)]
    print(f"median of {args.repeat} first renders each, interleaved, JavaScript cached; excess over the title alone")
    print(f"{'page':<24} {'wall ms':>8} {'excess':>7} {'CPU ms':>7} {'excess':>7}")
    for name, _ in targets:
        wall, cpu = (statistics.median(x[i] for x in runs[name]) for i in range(2))
        print(f"{name:<24} {wall:8.0f} {wall - base[0]:+7.0f} {cpu:7.0f} {cpu - base[1]:+7.0f}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
