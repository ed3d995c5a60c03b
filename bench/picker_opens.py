"""Does a selectbox below a page's plain charts open on a click? (a diagnosis, no target)

    .venv/bin/python bench/picker_opens.py --store DIR [--page Benchmarks] [--label "Keyword for the density"]
        [--tabs 8] [--css ".frl-c{content-visibility:visible !important}"] [--app app.py]

bench/app_speed.py has reported "no option shown after the click" for Benchmarks' "Keyword for the
density" and "Level dimension" pickers, on main as on branches. This opens the page in `--tabs` new tabs
on a copy of an existing store (a folder with data/ and reports/, as `tests.app_fixtures.scale_store`
leaves it) and, in each, clicks the picker three times as app_speed's `act` does (scroll it into view,
click its input, wait up to 5 s for an option; Escape). It prints, per tab, "ok" or the first failure
with what the page did around the click: scroll events of the main block (with its scrollTop), a listbox
added or removed, focus and pointer events, ms after the click's preparation began. `--css` adds a style
sheet to every tab before the clicks, to test a cause (e.g. the charts' `content-visibility:auto`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_interactions import DRAWN, IDLE, PAGES, store_copy  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402

#: Logs, in `window.__log`, what happens around a click: scrolls (main block's scrollTop), listboxes
#: added or removed, focus and pointer events (target tag), each with its time in ms.
SPY = """() => { window.__log = []; const t0 = performance.now(), at = () => Math.round(performance.now() - t0);
  const main = document.querySelector('[data-testid="stMain"]');
  addEventListener('scroll', () => window.__log.push(['scroll', at(), main ? Math.round(main.scrollTop) : null]), true);
  const box = (n) => n.nodeType === 1
    && (n.getAttribute('role') === 'listbox' || n.querySelector('[role=listbox],[role=option]'));
  new MutationObserver((ms) => { for (const m of ms) {
    for (const n of m.addedNodes) if (box(n)) window.__log.push(['listbox+', at()]);
    for (const n of m.removedNodes) if (box(n)) window.__log.push(['listbox-', at()]); } })
    .observe(document.body, {childList: true, subtree: true});
  for (const ev of ['mousedown', 'click', 'focusin', 'focusout'])
    addEventListener(ev, (e) => window.__log.push([ev, at(), e.target.tagName || '']), true);
}"""


def tab(browser, url: str, page_name: str, label: str, css: str) -> str:  # type: ignore[no-untyped-def]
    """One new tab: "ok" when the picker opened on all three clicks, else the first failure's log."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = ctx.new_page()
    try:
        page.goto(url)
        page.wait_for_function(DRAWN, arg=PAGES[page_name][1], timeout=120_000, polling=10)
        if css:
            page.add_style_tag(content=css)
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE, timeout=120_000)
        for i in range(3):
            page.evaluate(SPY)
            combo = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first.get_by_role("combobox")
            combo.scroll_into_view_if_needed()
            combo.click()
            try:
                page.get_by_role("option").first.wait_for(timeout=5_000)
            except PlaywrightTimeout:
                log = " ".join(f"{e[0]}@{e[1]}" + "".join(f"={x}" for x in e[2:] if x not in ("", None))
                               for e in page.evaluate("window.__log"))  # fmt: skip
                return f"click {i + 1}: no option; {log}"
            page.keyboard.press("Escape")
            page.wait_for_timeout(200)
        return "ok"
    finally:
        ctx.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--page", default="Benchmarks", choices=list(PAGES))
    ap.add_argument("--label", default="Keyword for the density", help="the selectbox's label (or part of it)")
    ap.add_argument("--tabs", type=int, default=8)
    ap.add_argument("--css", default="", help="a style sheet added to every tab before the clicks")
    ap.add_argument("--app", type=Path, default=REPO / "app.py")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="frl-picker-"))
    store_copy(a.store, tmp)
    proc, server = start_app(tmp / "data", tmp / "reports", tmp / "streamlit.log", script=a.app.resolve())
    failed = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
            print(f"{a.page} '{a.label}' ({a.app}){' with ' + a.css if a.css else ''}")
            for k in range(a.tabs):
                out = tab(browser, server + PAGES[a.page][0].split("?")[0], a.page, a.label, a.css)
                failed += out != "ok"
                print(f"  tab {k + 1}: {out}", flush=True)
            browser.close()
    finally:
        stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"picker did not open in {failed} of {a.tabs} tabs")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
