"""Browser CPU per page visit, for the two Chromium builds the browser tests may drive.

    .venv/bin/python bench/browser_cpu.py [--rounds 2]

Why: `make test` is bound by CPU on a 2-core machine, and the browser tests' Chromium was the largest
consumer. The same pages of the 6-report dashboard store the tests use (tests/app_fixtures.py, built by
the real pipeline) are opened in new tabs of one browser context, each until the script is idle, with
the full browser (`/usr/bin/chromium`, new headless mode) and with Chromium's headless shell
(`/usr/bin/chromium-headless-shell`, Debian's build of the old headless mode, which Playwright itself
runs for headless tests). The builds take turns in every round, so load on a shared machine hits both.
Printed per build: the CPU seconds of all its processes (read from /proc, sampled every 0.2 s) per
visit, and the wall time per visit. tests/test_browser.py drives the headless shell when it is installed.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.results_log import recorded
from tests.app_fixtures import build_store
from tests.test_browser import CHROME_ARGS, CHROMIUM, HEADLESS_SHELL, IDLE, start_app, stop

PAGES = ("compare", "keywords", "evidence?report=r00&dim=rl_algorithm", "benchmarks", "report?report=r01", "review")
HZ = os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> set[int]:
    kids: dict[int, list[int]] = collections.defaultdict(list)
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    kids[int(f.read().rsplit(")", 1)[1].split()[1])].append(int(d))
            except OSError:
                continue
    out, stack = set(), [root]
    while stack:
        pid = stack.pop()
        out.add(pid)
        stack += kids.get(pid, [])
    return out


class BrowserCpu:
    """CPU seconds of every Chromium process under this one (one build runs at a time; the last value
    seen per process, so processes that exit between samples keep what they used)."""

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in _descendants(os.getpid()):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if b"chromium" not in f.read().split(b"\0", 1)[0]:
                            continue
                    with open(f"/proc/{pid}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    self.seen[pid] = (int(fields[11]) + int(fields[12])) / HZ
                except OSError:
                    continue
            time.sleep(0.2)

    def __enter__(self) -> BrowserCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def seconds(self) -> float:
        return sum(self.seen.values())


def visit_all(pw, build: Path, url: str) -> tuple[float, float, int]:  # type: ignore[no-untyped-def]
    """(browser CPU s, wall s, visits) for one browser launch that opens every page in a new tab."""
    t0 = time.perf_counter()
    with BrowserCpu() as cpu:
        browser = pw.chromium.launch(executable_path=str(build), args=CHROME_ARGS, headless=True)
        try:
            ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
            for page_path in PAGES:
                page = ctx.new_page()
                page.goto(f"{url}/{page_path}")
                page.wait_for_timeout(200)
                page.wait_for_selector(IDLE, timeout=120_000)
                page.close()
        finally:
            browser.close()
        time.sleep(0.3)  # one more sample after the processes ended
    return cpu.seconds, time.perf_counter() - t0, len(PAGES)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2, help="launches per build, taking turns (default 2)")
    args = ap.parse_args()
    builds = [b for b in (CHROMIUM, HEADLESS_SHELL) if b.exists()]
    if not builds:
        print("no Chromium installed (apt-get install chromium chromium-headless-shell)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        data, reports = build_store(Path(tmp), 6)
        proc, url = start_app(data, reports, Path(tmp) / "streamlit.log")
        totals: dict[Path, list[tuple[float, float, int]]] = {b: [] for b in builds}
        try:
            with sync_playwright() as pw:
                for _ in range(args.rounds):
                    for b in builds:
                        totals[b].append(visit_all(pw, b, url))
        finally:
            stop(proc)
    print(f"browser CPU per page visit: {len(PAGES)} dashboard pages x {args.rounds} launches per build, "
          f"each in a new tab until the script is idle (6-report store; load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    for b, runs in totals.items():
        cpu, wall, n = (sum(r[i] for r in runs) for i in range(3))
        print(f"  {b.name:<24} {cpu / n:5.2f} CPU s per visit   {wall / n:5.2f} s wall per visit")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
