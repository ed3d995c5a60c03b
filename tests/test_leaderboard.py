"""The cross-report leaderboard: every claim with its report, page and table, ranked per
benchmark, and two reports printing different values for one model, benchmark and setting flagged."""

from __future__ import annotations

import pandas as pd

from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.results import RESULT_COLUMNS
from ingest.cli import main
from ingest.outputs.leaderboard import LEADERBOARD_COLUMNS, disagreements, leaderboard
from ingest.pipeline import run
from ingest.pipeline_settings import Settings

from .conftest import REPO, write_report

CAT = load_catalogue()


def _row(report: str, model: str, bench: str, value: str, own: bool = False, page: str = "3", **kw: object) -> dict:
    b = CAT.lookup(bench)
    base = {c: "" for c in RESULT_COLUMNS}
    base |= {"report_id": report, "page": page, "table": "Table 1", "model": model, "own": own, "benchmark": bench,
             "value": value, "score": float(value), "benchmark_id": b.id if b else "", "category": b.category if b else "",
             "origin": "auto"}  # fmt: skip
    return base | kw


def test_two_reports_printing_different_values_for_one_model_are_both_shown_and_flagged():
    df = pd.DataFrame(
        [
            _row("lens", "Lens-7B", "MMLU", "71.2", own=True),
            _row("rival", "Lens-7B", "MMLU", "69.0", page="9", table="Table 4"),
            _row("rival", "Rival-9B", "MMLU", "73.5", own=True, page="9", table="Table 4"),
            _row("lens", "Rival-9B", "MMLU", "73.5"),
            _row("lens", "Lens-7B", "MMLU", "80.1", setting="5-shot"),
            _row("lens", "Lens-7B", "Python", "61.0"),
        ]
    )
    board = leaderboard(df, CAT)
    assert list(board.columns) == LEADERBOARD_COLUMNS
    mmlu = board[(board["benchmark_id"] == "mmlu") & (board["setting"] == "")]
    assert list(zip(mmlu["rank"], mmlu["model"], mmlu["value"], strict=True)) == [
        (1, "Rival-9B", "73.5"), (2, "Lens-7B", "71.2"), (3, "Lens-7B", "69.0")
    ]  # fmt: skip
    agreed = mmlu[mmlu["model"] == "Rival-9B"].iloc[0]
    assert agreed["sources"] == "rival p9 Table 4; lens p3 Table 1" and agreed["reports"] == 2 and agreed["disagreement"] == ""
    own = mmlu[mmlu["value"] == "71.2"].iloc[0]
    assert own["own_claim"] and own["disagreement"] == "other reports print 69.0 (rival p9 Table 4)"
    other = mmlu[mmlu["value"] == "69.0"].iloc[0]
    assert not other["own_claim"] and other["disagreement"] == "other reports print 71.2 (lens p3 Table 1)"
    # another setting is another claim, and an unknown benchmark is kept with an empty id
    assert set(board[board["setting"] == "5-shot"]["disagreement"]) == {""}
    assert board[board["benchmark"] == "Python"]["benchmark_id"].tolist() == [""]
    assert set(disagreements(board)["value"]) == {"71.2", "69.0"}


def test_export_leaderboard_csv_and_markdown(tmp_path, capsys):
    reports = tmp_path / "reports"
    write_report(reports, "lens", model="Lens-7B",
                 results=[{"benchmark": "MMLU", "model": "Lens-7B", "value": 71.2, "page": 3}])  # fmt: skip
    write_report(reports, "rival", model="Rival-9B",
                 results=[{"benchmark": "MMLU", "model": "Lens-7B", "value": 69.0, "page": 9},
                          {"benchmark": "MMLU", "model": "Rival-9B", "value": 73.5, "page": 9}])  # fmt: skip
    data = tmp_path / "data"
    run(reports_dir=reports, settings=Settings(data_dir=data, offline=True))
    assert main(["export", "--table", "leaderboard", "--format", "csv", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ",".join(LEADERBOARD_COLUMNS) and len(lines) == 4
    assert any("Lens-7B,71.2" in ln and "other reports print 69.0 (rival p9)" in ln for ln in lines)
    assert main(["export", "--table", "leaderboard", "--format", "md", "--data-dir", str(data)]) == 0
    md = capsys.readouterr().out
    assert "| benchmark | benchmark_id |" in md and "Rival-9B" in md


def test_benchmarks_page_shows_the_claims_across_reports(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.bench_fixtures import build

    data, reports = build(tmp_path)
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    at = AppTest.from_file(str(REPO / "views" / "benchmarks.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Claims across reports" in [s.value for s in at.subheader]
    box = at.selectbox(key="board")
    assert box.options and box.value == box.options[0]
    box.set_value(box.options[-1]).run()
    assert not at.exception
    assert any('data-table="leaderboard"' in h.proto.body for h in at.get("html"))


def test_unknown_benchmarks_are_listed_for_the_catalogue_s_growth():
    from ingest.outputs.leaderboard import UNKNOWN_COLUMNS, unknown_benchmarks

    df = pd.DataFrame(
        [
            _row("lens", "Lens-7B", "Python", "61.0"),
            _row("rival", "Rival-9B", "python", "55.0", page="2"),
            _row("lens", "Lens-7B", "Rust", "40.0"),
            _row("lens", "Lens-7B", "MMLU", "71.2"),
        ]
    )
    out = unknown_benchmarks(df)
    assert list(out.columns) == UNKNOWN_COLUMNS
    assert out.values.tolist() == [
        ["Python", 2, 2, "lens p3 Table 1; rival p2 Table 1"], ["Rust", 1, 1, "lens p3 Table 1"]
    ]  # fmt: skip


def _avg(report: str, model: str, value: str, table: str, benches: dict[str, str]) -> list[dict]:
    rows = [_row(report, model, b, v, table=table) for b, v in benches.items()]
    return [*rows, _row(report, model, "Average", value, table=table)]


def test_averages_over_different_benchmark_sets_are_different_benchmarks_and_never_disagree():
    df = pd.DataFrame(
        _avg("a", "M", "83.9", "Table 2", {"AIME 2024": "80.0", "MMLU": "87.8"})
        + _avg("b", "M", "43.8", "Table 5", {"AIME 2024": "80.0", "GPQA": "7.6"})
        + _avg("c", "M", "80.0", "Table 1", {"MMLU": "87.8", "AIME 2024": "80.0"})
    )
    board = leaderboard(df, CAT)
    averages = board[board["category"] == "aggregate"]
    assert set(averages["benchmark"]) == {"Average over AIME 2024, GPQA", "Average over AIME 2024, MMLU"}
    assert averages[averages["value"] == "43.8"]["disagreement"].tolist() == [""]
    # the same set in two reports is one quantity: its two values are a real disagreement
    same = averages[averages["benchmark"] == "Average over AIME 2024, MMLU"]
    assert sorted(same["value"]) == ["80.0", "83.9"] and (same["disagreement"] != "").all()


def test_conflicts_among_thousands_of_claims_name_a_few_and_count_the_rest():
    rows = [_row(f"r{i}", "M", "GSM8K", f"{i / 10:.1f}") for i in range(2000)]
    board = leaderboard(pd.DataFrame(rows), CAT)
    assert len(board) == 2000 and (board["disagreement"] != "").all()
    one = board["disagreement"].iloc[0]
    assert one.count(" | ") == 4 and "values from 1,999 other reports in all" in one
    # the written view grows with the claims, not with their square
    assert board["disagreement"].str.len().max() < 300
