"""The leaderboard's cost as claims grow: CPU seconds and written size of `leaderboard()` when N
reports each print a different value for one model and benchmark (every row a disagreement, the
worst case for the conflicts view), and when N reports print the values of ten models on ten
benchmarks (the ordinary case).

Usage:  python bench/conflicts_speed.py [--claims 2000 20000] [--repeat 3]

Prints, per N: best-of CPU seconds, rows, rows flagged, and the bytes of the board as CSV. Both
should grow about linearly in N: each row names at most a few other values and counts the rest.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.benchmarks import load_catalogue  # noqa: E402
from ingest.analysis.results import RESULT_COLUMNS  # noqa: E402
from ingest.outputs.leaderboard import leaderboard  # noqa: E402

BENCHES = ["GSM8K", "MMLU", "AIME 2024", "GPQA", "MATH-500", "HumanEval", "MBPP", "ARC-C", "HellaSwag", "IFEval"]


def _claim(report: str, model: str, bench: str, score: float) -> dict:
    row = dict.fromkeys(RESULT_COLUMNS, "")
    return row | {"report_id": report, "page": "1", "table": "Table 1", "model": model, "own": False, "benchmark": bench,
                  "value": f"{score:.1f}", "score": round(score, 1), "category": "", "benchmark_id": ""}  # fmt: skip


def conflicting(n: int) -> pd.DataFrame:
    """n reports, each printing its own value for model M on GSM8K."""
    return pd.DataFrame([_claim(f"r{i}", "M", "GSM8K", i / 10) for i in range(n)])


def ordinary(n: int) -> pd.DataFrame:
    """n claims: reports printing ten models on ten benchmarks, the values mostly agreeing."""
    rows = []
    for i in range(n):
        report, model, bench = f"r{i // 100}", f"M{i % 10}", BENCHES[(i // 10) % 10]
        rows.append(_claim(report, model, bench, 50 + (i % 10) + (0.1 if i % 700 == 0 else 0.0)))
    return pd.DataFrame(rows)


def measure(frame: pd.DataFrame, repeat: int) -> tuple[float, pd.DataFrame]:
    cat = load_catalogue()
    best, board = float("inf"), pd.DataFrame()
    for _ in range(repeat):
        t = time.process_time()
        board = leaderboard(frame, cat)
        best = min(best, time.process_time() - t)
    return best, board


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{'case':<12} {'claims':>7} {'CPU s':>7} {'rows':>7} {'flagged':>8} {'CSV bytes':>11}")
    for n in args.claims:
        for name, build in (("conflicting", conflicting), ("ordinary", ordinary)):
            took, board = measure(build(n), args.repeat)
            flagged = int((board["disagreement"] != "").sum())
            size = len(board.to_csv(index=False).encode("utf-8"))
            print(f"{name:<12} {n:>7,} {took:>7.2f} {len(board):>7,} {flagged:>8,} {size:>11,}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
