"""What the browser spends on one `st.html` block: Streamlit's sanitizer (DOMPurify) against parsing and layout.

    .venv/bin/python bench/html_sanitize.py --store DIR [--repeat 31]

Why (issue 35 item 9): the Evidence page's pick of "all reports" costs the browser about 100 ms of
renderer CPU more than a pick of one report, and what it adds is HTML: three tables of up to ROW_LIMIT
rows. Streamlit's `st.html` runs every body through DOMPurify before React sets it as innerHTML. This
script builds the tables the Evidence page draws for "all reports" on the first algorithm dimension
(views/evidence.py: the table cells, the candidate sentences, the automatic reading beside the curated
value; three `st.html` blocks, timed here as one) from an existing store (a folder with data/ and
reports/, as `tests.app_fixtures.scale_store` leaves it), serves the app once for its copy of DOMPurify
(the same build and settings `st.html` uses), and times in Chromium, median of `--repeat`: DOMPurify's
sanitize, then setting the result as innerHTML of a 1100 px wide box with a forced layout. Variants say
what a part costs: without the "see the page" links, with the rows cut to half, without the beside
table. Diagnostic only: no target.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
import streamlit  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_interactions import store_copy  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

#: Sanitizes and draws every variant `n` times in turn; medians of (sanitize ms, innerHTML + layout ms).
#: The settings are `st.html`'s (streamlit's Html element: USE_PROFILES html, FORCE_BODY).
JS = """async ([module, variants, css, n]) => {
  const m = await import(module);
  const purify = Object.values(m).find((x) => x && typeof x.sanitize === 'function');
  const cfg = {USE_PROFILES: {html: true}, FORCE_BODY: true};
  document.head.insertAdjacentHTML('beforeend', css);
  const host = document.createElement('div');
  host.style.width = '1100px';
  document.body.appendChild(host);
  const out = {};
  for (let r = 0; r < n; r++) for (const [k, h] of Object.entries(variants)) {
    const t0 = performance.now();
    const s = purify.sanitize(h, cfg);
    const t1 = performance.now();
    host.innerHTML = s; host.offsetHeight;
    const t2 = performance.now();
    host.innerHTML = ''; host.offsetHeight;
    (out[k] = out[k] || []).push([t1 - t0, t2 - t1]);
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [med(v.map((x) => x[0])), med(v.map((x) => x[1]))]]));
}"""
LINK = re.compile(r'<a href="[^"]*" target="_self">see the page</a>')


def half_rows(block: str) -> str:
    """Every table of `block` with the second half of its body rows left out."""

    def cut(m: re.Match[str]) -> str:
        rows = re.findall(r"<tr>.*?</tr>", m.group(1))
        return "<tbody>" + "".join(rows[: (len(rows) + 1) // 2]) + "</tbody>"

    return re.sub(r"<tbody>(.*?)</tbody>", cut, block)


def evidence_block(data_dir: Path, reports: Path) -> tuple[str, str, str]:
    """The Evidence page's tables for "all reports" on the first algorithm dimension (its three `st.html`
    bodies, joined: the table cells, the candidate sentences, the automatic reading beside the curated
    value), the same without the beside table, and the tables' CSS (views/htmltable.py)."""
    import os

    os.environ["FRL_DATA_DIR"], os.environ["FRL_REPORTS_DIR"] = str(data_dir), str(reports)
    from ingest.analysis.lens import load_lens
    from views import data, evidence, htmltable, review

    tbl, key = data.tables()
    lens = load_lens()
    dim = next(d.id for d in lens.dimensions if d.kind == "algorithm")
    view = evidence._dimension_view(key, evidence.ALL, dim, evidence.ROW_LIMIT)
    rows = review._beside_rows(key, data.lens().id, evidence.ALL, dim, tbl["comparison"], lambda d: data.evidence_rows(None, d))
    beside = htmltable.table(review.beside_view(rows.head(evidence.ROW_LIMIT), data.names()[0]), caption="beside")
    head = view.cells_html + (view.ev_html or "")
    return head + htmltable.bare(beside), head, htmltable.CSS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=31)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="frl-sanitize-"))
    try:
        store_copy(a.store, tmp)
        block, no_beside, css = evidence_block(tmp / "data", tmp / "reports")
        variants = {
            "as drawn": block,
            'without the "see the page" links': LINK.sub("", block),
            "half the rows of each table": half_rows(block),
            "without the beside table": no_beside,
        }
        static = Path(streamlit.__file__).parent / "static" / "static" / "js"
        module = "/static/js/" + next(static.glob("purify.es.*.js")).name
        proc, server = start_app(tmp / "data", tmp / "reports", tmp / "streamlit.log", script=REPO / "app.py")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1440, "height": 1000})
                page.goto(server + "/add")
                page.wait_for_timeout(2000)
                res = page.evaluate(JS, [module, variants, css, a.repeat])
                browser.close()
        finally:
            stop(proc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'Evidence, "all reports", its three tables: DOMPurify (st.html sanitizer) vs innerHTML + layout, median of {a.repeat}')
    for name, (san, lay) in res.items():
        body = variants[name]
        print(f"  {name:<34} {len(body) / 1024:5.1f} KB, {body.count('<tr>'):3d} rows, {body.count('<'):5d} tags: "
              f"sanitize {san:6.1f} ms, innerHTML + layout {lay:5.1f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
