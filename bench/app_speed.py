"""Dashboard speed at scale: first render and a filter rerun with 500 synthetic reports.

    .venv/bin/python bench/app_speed.py [--reports 500] [--repeat 5]

Runs the real app in-process with streamlit's AppTest against a synthetic store (tables of
the contract, written with the real Store). Targets (issue 5): first render < 2 s, filter
rerun < 300 ms. "first render" is a fresh session's first run in a fresh process: imports,
table loading and page build included. Prints the numbers; exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIRST_TARGET_S = 2.0
RERUN_TARGET_S = 0.300


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5, help="filter changes to time (median reported)")
    args = ap.parse_args()

    from tests.app_fixtures import write_store

    with tempfile.TemporaryDirectory() as tmp:
        write_store(Path(tmp) / "data", args.reports)
        os.environ["FRL_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["FRL_REPORTS_DIR"] = str(Path(tmp) / "reports")
        t0 = time.perf_counter()
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
        first = time.perf_counter() - t0
        assert not at.exception, [e.value for e in at.exception]
        n_rows = len(at.dataframe[0].value)
        times = []
        orgs = ["Lab A", "Lab B", "Lab C", "Lab D"]
        for i in range(args.repeat):
            t = time.perf_counter()
            at.multiselect(key="org").set_value([orgs[i % len(orgs)]]).run()
            times.append(time.perf_counter() - t)
            assert not at.exception
        filtered = len(at.dataframe[0].value)
        t = time.perf_counter()
        at.switch_page("views/keywords.py").run()
        kw_first = time.perf_counter() - t
        t = time.perf_counter()
        at.radio(key="scope").set_value("body").run()
        kw = time.perf_counter() - t
        rerun = statistics.median(times)

    print(f"reports in store:          {args.reports} ({n_rows} rows shown, {filtered} after the filter)")
    print(f"first render (Compare):    {first * 1000:.0f} ms  (target < {FIRST_TARGET_S * 1000:.0f} ms, incl. imports)")
    print(f"filter rerun (Compare):    {rerun * 1000:.0f} ms median of {args.repeat}, max {max(times) * 1000:.0f} ms "
          f"(target < {RERUN_TARGET_S * 1000:.0f} ms)")  # fmt: skip
    print(f"open Keywords page:        {kw_first * 1000:.0f} ms (heatmap of {args.reports} reports)")
    print(f"scope change (Keywords):   {kw * 1000:.0f} ms")
    print("(server-side script time; the browser's drawing of the page is not included)")
    ok = first < FIRST_TARGET_S and rerun < RERUN_TARGET_S
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
