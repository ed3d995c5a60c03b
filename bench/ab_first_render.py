"""A/B of dashboard first renders: this working tree against another commit, on one store, interleaved.

    .venv/bin/python bench/ab_first_render.py --base HEAD [--reports 500] [--repeat 9] [--pages Review Compare]

A change meant to make a page draw faster is judged here, not by two runs of bench/app_speed.py: the
machine's load moves a page's first render by 10-20 % between runs minutes apart (bench/RESULTS.md),
which is as much as most changes save. This script checks out `--base` into a temporary git worktree,
starts its app and this tree's app on the same store (tests/app_fixtures.py `scale_store`), and opens
each page in both, alternating A and B within every round, in one warm browser context (the app's
JavaScript cached, as for a returning user; both apps serve the same Streamlit build). It prints, per
page, the median wall time and renderer main-thread CPU time (bench/first_render_parts.py `render`)
of each side, their ratio B/A, and how many of the paired rounds B was faster in.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.app_speed import PAGES  # noqa: E402
from bench.first_render_parts import page_store, render  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from tests.test_browser import CHROME_ARGS, CHROMIUM, start_app, stop  # noqa: E402


def worktree(rev: str, where: Path) -> Path:
    """A detached checkout of `rev` at `where` (removed by `drop_worktree`)."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(where), rev], check=True)
    return where


def drop_worktree(where: Path) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(where)], check=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="the commit to compare against (A); B is this working tree")
    ap.add_argument("--reports", type=int, default=500, help="store size to build (tests/app_fixtures.py scale_store)")
    ap.add_argument("--repeat", type=int, default=9, help="paired rounds per page (the median is printed)")
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES), help="dashboard pages to open")
    args = ap.parse_args()
    base = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.base], check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        data, reports, fill = page_store(tmp, args.reports)
        old = worktree(args.base, tmp / "base")
        procs: list = []
        try:
            procs.append(start_app(data, reports, tmp / "a.log", script=old / "app.py"))
            procs.append(start_app(data, reports, tmp / "b.log", script=REPO / "app.py"))
            (_, a), (_, b) = procs
            runs: dict[str, dict[str, list]] = {p: {"A": [], "B": []} for p in args.pages}
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True)
                ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
                for name in args.pages:  # warm the cache and both servers
                    path, sel = PAGES[name][0].format(**fill), PAGES[name][1]
                    render(ctx, a, path, sel)
                    render(ctx, b, path, sel)
                for i in range(args.repeat):
                    for name in args.pages:
                        path, sel = PAGES[name][0].format(**fill), PAGES[name][1]
                        sides = [("A", a), ("B", b)] if i % 2 == 0 else [("B", b), ("A", a)]
                        for side, server in sides:
                            runs[name][side].append(render(ctx, server, path, sel))
                browser.close()
        finally:
            for proc, _ in procs:
                stop(proc)
            drop_worktree(old)
    print(
        f"{args.reports:,} reports; A = {base}, B = this working tree; {args.repeat} paired rounds per page (order alternating)"
    )
    head = f"{'wall A':>6} {'wall B':>6} {'B/A':>5} {'B faster':>9}   {'CPU A':>6} {'CPU B':>6} {'B/A':>5} {'B less':>9}"
    print(f"{'page':<12} {head}")
    for name in args.pages:
        ra, rb = runs[name]["A"], runs[name]["B"]
        cols = []
        for i in (0, 1):
            ma, mb = statistics.median(x[i] for x in ra), statistics.median(x[i] for x in rb)
            wins = sum(y[i] < x[i] for x, y in zip(ra, rb, strict=True))
            cols.append(f"{ma:6.0f} {mb:6.0f} {mb / ma:5.2f} {wins:>4}/{len(ra)}")
        print(f"{name:<12} {cols[0]}   {cols[1]}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
