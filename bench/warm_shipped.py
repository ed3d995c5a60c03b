"""A warm re-run on the shipped reports, as `make app` does it the second time: `python -m ingest
--offline` on reports/ with nothing changed, wall and CPU (the process and its workers).

    python bench/warm_shipped.py [--repeat 3]

The shipped reports hold Review decisions (curated cells) beside measured ones, so a run refits the
confidence model; the refit is kept under its examples' digest (data/cache/confidence-refit.json).
Printed: the warm run as it is, and the same run after deleting that file (what every warm run cost
when the refit was not kept: importing scikit-learn and fitting). Target: warm <= 0.5 s past start-up,
where start-up is `python -m ingest --help`'s time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_log import recorded

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, with the children it waited for) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(argv: list[str], repeat: int, before: list[str] | None = None) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        if before:
            subprocess.run(before, check=False)
        runs.append(timed(argv))
    return min(w for w, _ in runs), min(c for _, c in runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="frl-warm-"))
    data = tmp / "data"
    ingest = [sys.executable, "-m", "ingest", "--offline", "--quiet", "--data-dir", str(data)]
    try:
        subprocess.run(ingest, cwd=ROOT, capture_output=True, check=False)  # cold: fills the store
        subprocess.run(ingest, cwd=ROOT, capture_output=True, check=False)  # keeps the refit
        start = best([sys.executable, "-m", "ingest", "--help"], args.repeat)
        warm = best(ingest, args.repeat)
        refit = best(ingest, args.repeat, ["rm", "-f", str(data / "cache" / "confidence-refit.json")])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    past = warm[1] - start[1]
    print(f"shipped reports (reports/), python -m ingest --offline, best of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    print(f"  start-up (python -m ingest --help)   {start[0]:6.2f} s wall   {start[1]:5.2f} s CPU")
    print(f"  warm re-run                          {warm[0]:6.2f} s wall   {warm[1]:5.2f} s CPU")
    print(f"  warm re-run, refit not kept          {refit[0]:6.2f} s wall   {refit[1]:5.2f} s CPU")
    ok = past <= TARGET_S
    print(f"warm re-run past start-up: {past:.2f} s CPU   target <= {TARGET_S} s {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
