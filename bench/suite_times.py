"""How long the developers' loops take: `make check`, `make test`, and the whole suite under load.

Usage:  python bench/suite_times.py [--check] [--test] [--loaded 3] [--load 2]

* `--check` times `make check` (ruff, then every test not marked slow), target <= 60 s on 2 cores;
* `--test` times `make test` (the whole suite on every core), target <= 300 s;
* `--loaded N` runs `make test` N times in a row while `--load` busy-loop processes (one core's
  worth of work each) compete for the CPU, and reports each run's time and whether it passed: a
  suite that depends on wall-clock luck fails here first.

With no option it does all three (`--loaded 3`). Each `make` runs with the virtualenv's set-up
steps taken as done (`make -o .venv/.dev -o .venv/.runtime`), so what is timed is the target's
recipe, never an install. The load average before each step is printed beside its time, and the
CPU time of everything the step ran: on a shared machine the wall time measures the other
processes too, while CPU / cores is what the step needs of a quiet machine at least.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402

TARGETS = {"check": 60.0, "test": 300.0}
MAKE = ["make", "-o", ".venv/.dev", "-o", ".venv/.runtime"]
BUSY = "while True:\n    pass\n"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(target: str) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit status, last line of pytest's output) of `make TARGET`."""
    t, c = time.monotonic(), _children_cpu()
    out = subprocess.run([*MAKE, target], cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    summary = next((ln for ln in reversed(lines) if " in " in ln and ("passed" in ln or "failed" in ln)), "")
    for ln in lines:  # what failed, by name (pytest's short summary)
        if ln.startswith(("FAILED ", "ERROR ")):
            print(f"    {ln[:200]}")
    return time.monotonic() - t, _children_cpu() - c, out.returncode, summary.strip("= ")


def step(target: str) -> bool:
    before = load()
    secs, cpu, rc, summary = timed(target)
    ok = rc == 0 and secs <= TARGETS[target]
    cores = os.cpu_count() or 1
    print(
        f"make {target:5s} {secs:6.1f} s (target <= {TARGETS[target]:.0f} s) exit {rc}  [{summary}]  load before {before}"
        f"   {'ok' if ok else 'MISSED'}"
    )
    print(f"           CPU {cpu:6.1f} s: at least {cpu / cores:.1f} s of a quiet {cores}-core machine")
    return ok


def loaded(runs: int, busy: int) -> bool:
    """`make test` `runs` times in a row beside `busy` busy-loop processes; True when every run passed."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        passed = 0
        for i in range(runs):
            secs, cpu, rc, summary = timed("test")
            passed += rc == 0
            print(
                f"  under load ({busy} busy processes) run {i + 1}/{runs}: {secs:6.1f} s (CPU {cpu:.1f} s) exit {rc}  "
                f"[{summary}]  load {load()}"
            )
        print(f"suite under a CPU load of {busy}: {passed}/{runs} runs passed   {'ok' if passed == runs else 'FAILED'}")
        return passed == runs
    finally:
        for p in procs:  # only the processes started here
            p.kill()
            p.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="time make check")
    ap.add_argument("--test", action="store_true", help="time make test")
    ap.add_argument("--loaded", type=int, default=None, metavar="N", help="run make test N times under load")
    ap.add_argument("--load", type=int, default=2, metavar="K", help="busy-loop processes beside the suite (default 2)")
    args = ap.parse_args(argv)
    everything = not (args.check or args.test or args.loaded)
    print(f"{os.cpu_count()} cores; load average {load()}")
    ok = True
    if args.check or everything:
        ok &= step("check")
    if args.test or everything:
        ok &= step("test")
    if args.loaded or everything:
        ok &= loaded(args.loaded or 3, args.load)
    return 0 if ok else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
