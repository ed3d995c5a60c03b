"""Claims across reports opens on a benchmark two reports can be compared on: the one most reports
print, never a table's average or a column the catalogue does not know, however many rows those have."""

from __future__ import annotations

import pandas as pd

from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.results import RESULT_COLUMNS
from ingest.outputs.leaderboard import benchmarks_by_reach, leaderboard

CAT = load_catalogue()


def _row(report: str, model: str, bench: str, value: str) -> dict:
    b = CAT.lookup(bench)
    base = {c: "" for c in RESULT_COLUMNS}
    return base | {"report_id": report, "page": "3", "table": "Table 1", "model": model, "benchmark": bench, "value": value,
                   "score": float(value), "benchmark_id": b.id if b else "", "category": b.category if b else "",
                   "origin": "auto", "own": False}  # fmt: skip


def test_claims_across_reports_opens_on_the_benchmark_most_reports_share():
    rows = [_row("a", f"M{i}", "AA-Index", str(60 + i)) for i in range(9)]  # unknown aggregate, most rows
    rows += [_row("a", f"M{i}", "Average", str(50 + i)) for i in range(6)]  # the table's own average
    rows += [_row("a", f"M{i}", "MMLU", str(70 + i)) for i in range(5)]  # one report, many rows
    rows += [_row("a", "M1", "AIME 2024", "71.0"), _row("b", "M1", "AIME 2024", "71.0")]  # two reports
    board = leaderboard(pd.DataFrame(rows), CAT)
    order = benchmarks_by_reach(board)
    assert order[0] == "AIME 2024" and order[1] == "MMLU"
    assert set(order[2:]) == {"AA-Index", "Average over AA-Index, AIME 2024, MMLU"}
    assert benchmarks_by_reach(board.iloc[0:0]) == []
