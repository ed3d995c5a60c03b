"""Benchmarks page speed: first render and a picker rerun on a stored data folder.

    .venv/bin/python bench/benchmarks_page_speed.py --data-dir DIR [--repeat 5]

Runs the page in-process with streamlit's AppTest against an ingested store (for the corpus:
`python -m ingest --data-dir /tmp/lens-corpus --source-root ../shared/corpus examples/corpus/*.yaml`).
Without --data-dir it builds the small pipeline store of tests/bench_fixtures.py. Prints the first
render (imports and table loading included) and the median rerun after a benchmark-picker change.
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
from streamlit.testing.v1 import AppTest  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from tests.bench_fixtures import build  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5, help="picker changes to time (median reported)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data = args.data_dir
        if data is None:
            data, _ = build(Path(tmp) / "store")
        os.environ["FRL_DATA_DIR"] = str(data)
        at = AppTest.from_file(str(REPO / "views" / "benchmarks.py"), default_timeout=120)
        t0 = time.perf_counter()
        at.run()
        first = time.perf_counter() - t0
        if at.exception:
            print("page failed:", [e.value for e in at.exception])
            return 1
        box = at.selectbox(key="benchmark") if any(s.key == "benchmark" for s in at.selectbox) else None
        options = list(box.options) if box is not None else []
        reruns = []
        for i in range(args.repeat if options else 0):
            t0 = time.perf_counter()
            at.selectbox(key="benchmark").set_value(options[(i + 1) % len(options)]).run()
            reruns.append(time.perf_counter() - t0)
        print(f"store: {Path(data).name}  benchmarks to pick: {len(options)}")
        print(f"first render       {first:6.2f} s")
        if reruns:
            print(f"picker rerun (median of {len(reruns)}) {statistics.median(reruns):6.3f} s")
        return 0


if __name__ == "__main__":
    with recorded(__file__):
        sys.exit(main())
