"""Adding one report as a fresh `python -m ingest NEW.yaml`: two checkouts in alternation (issue 35 item 10).

    .venv/bin/python bench/ab_add_one.py --a /work/main --store-a /tmp/s10k --b . --store-b /tmp/s10k-b [--rounds 3]

Each round runs checkout A once on its store, then checkout B on its own (`bench/scale.py`'s
`add_one_cli`: interpreter, imports, the job, the table update; CPU with every descendant), so
both see the same load. Two stores, because the registry cache is keyed by the code that reads
reports: one checkout's cache is another's cold start. Each store is `bench/scale.py --keep DIR`'s
(a copy made with `cp -a` holds other paths: its first run rebuilds every table; run one
untimed round first, `--warm`). Prints every run and the best and median CPU and wall of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scale  # noqa: E402
from bench.results_log import recorded  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", type=Path, required=True, help="checkout A (its .venv is this one's)")
    p.add_argument("--b", type=Path, required=True, help="checkout B")
    p.add_argument("--store-a", type=Path, required=True, help="bench/scale.py --keep folder for A")
    p.add_argument("--store-b", type=Path, required=True, help="bench/scale.py --keep folder for B")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warm", action="store_true", help="one untimed round first")
    args = p.parse_args(argv)
    scale.become_subreaper()
    scale.REPO = args.a.resolve()
    scale.bytecode_caches(args.store_a)  # cached bytecode, as bench/scale.py's fresh processes use
    sides = {"A": (args.a.resolve(), args.store_a), "B": (args.b.resolve(), args.store_b)}
    runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    for r in range(args.rounds + (1 if args.warm else 0)):
        for side, (checkout, store) in sides.items():
            scale.REPO = checkout  # the fresh process runs in (and imports) this checkout
            secs, cpu, parts = scale.add_one_cli(store / "data", store / "reports")
            if args.warm and r == 0:
                continue
            runs[side].append((secs, cpu))
            print(f"round {r}  {side} {checkout.name:<12} wall {secs:5.2f} s  cpu {cpu:5.2f} s  parts {parts}", flush=True)
    for side, got in runs.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        print(f"{side} {sides[side][0].name:<12} cpu best {min(cpus):.2f} median {statistics.median(cpus):.2f}   "
              f"wall best {min(walls):.2f} median {statistics.median(walls):.2f}   ({len(got)} runs)")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    with recorded(__file__):
        main()
