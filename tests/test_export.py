"""Exports: the study's tables come out of the tool cell for cell (summary, stats, tiers, card, CLI)."""

from __future__ import annotations

import io
import os
import re
import stat
from pathlib import Path

import pandas as pd
import pytest

from ingest.analysis.lens import load_lens
from ingest.cli import main
from ingest.outputs import export, stats, study_tables
from ingest.outputs.distinctive import distinctive_terms
from ingest.store.store import Store

from .conftest import SHIPPED_IDS

REPO = Path(__file__).resolve().parents[1]
LENS = load_lens()
LAB = {d.id: d.label for d in LENS.dimensions}  # headers come from the lens
ALGO = next(d.id for d in LENS.dimensions if d.kind == "algorithm")
STUDY = REPO.parent / "shared" / "study" / "study_tables.md"


@pytest.fixture(scope="module")
def shipped_store(shipped) -> Store:
    """The shipped reports ingested offline, once per session (tests/conftest.py `shipped`; read-only)."""
    return Store(shipped.data)


def parse_md_table(text: str) -> list[dict[str, str]]:
    """Rows of the first Markdown table in `text` (header row -> keys)."""
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for ln in text.splitlines():
        if not ln.startswith("|"):
            if header is not None:
                break
            continue
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set("".join(cells)) <= set("-: "):
            rows.append(dict(zip(header, cells, strict=True)))
    return rows


STUDY_STATS_FALLBACK = {
    "Kimi K3": {"words": "28,771", "agentic": "50 (1.7)", "credit assignment": "0"},
    "Qwen3": {"agentic": "0 (0.0)"},
    "Gemma 4": {"agentic": "3 (all in references)", "tool": "10 (1.4)", "reward": "0 (0.0)"},
}


def test_stats_markdown_reproduces_study_statistics_table(shipped_store: Store) -> None:
    md = export.render(export.TABLES["stats"](shipped_store), "md")
    # the study's rows: reported figures (a bundled report without them is measured, marked in `figures`)
    ours = {
        r["model"]: {k: v for k, v in r.items() if k != "figures"}
        for r in parse_md_table(md)
        if r.get("figures", "reported") == "reported"
    }
    if STUDY.exists():
        text = STUDY.read_text(encoding="utf-8")
        study = {r["model"]: r for r in parse_md_table(text.split("## Statistics table", 1)[1])}
        assert len(study) == 10
        assert set(study) == set(ours)
        for model, row in study.items():  # the study printed bare counts beside a references-only note
            bare = any("references" in v for v in row.values())
            assert {k: v.split(" (")[0] if bare and "references" not in v else v for k, v in ours[model].items()} == row, model
        assert list(next(iter(study.values()))) == list(next(iter(ours.values())))
    for model, cells in STUDY_STATS_FALLBACK.items():
        for col, want in cells.items():
            assert ours[model][col] == want


def test_stats_keeps_reported_figures_after_measuring() -> None:
    reports = pd.DataFrame([{"report_id": "k", "model": "K", "measured": True, "words": 1000}])
    reported = pd.DataFrame(
        [{"report_id": "k", "term": "agentic", "count": 50, "words": 28771, "note": None},
         {"report_id": "k", "term": "tool", "count": 3, "words": 28771, "note": None}]
    )  # fmt: skip
    counts = pd.DataFrame(
        [{"report_id": "k", "section": s, "group": "study", "term": t, "count": n, "words": w}
         for s, t, n, w in [("all", "agentic", 7, 1000), ("references", "agentic", 0, 100),
                            ("all", "tool", 4, 1000), ("references", "tool", 4, 100)]]
    )  # fmt: skip
    rep = stats.stats_frame(reports, reported, counts, terms=["agentic", "tool"])
    assert rep.iloc[0].to_dict() == {"model": "K", "words": "28,771", "agentic": "50 (1.7)", "tool": "3 (0.1)"}
    meas = stats.stats_frame(reports, reported, counts, terms=["agentic", "tool"], source="measured")
    # a row with a references-only note keeps the densities of its other cells
    assert meas.iloc[0].to_dict() == {"model": "K", "words": "1,000", "agentic": "7 (7.0)", "tool": "4 (all in references)"}


def test_stats_flags_rows_whose_figures_come_from_the_other_source() -> None:
    reports = pd.DataFrame([{"report_id": "a", "model": "A", "measured": False, "words": None},
                            {"report_id": "b", "model": "B", "measured": False, "words": None}])  # fmt: skip
    reported = pd.DataFrame([{"report_id": "a", "term": "tool", "count": 2, "words": 2000, "note": None}])
    out = stats.stats_frame(reports, reported, pd.DataFrame(), terms=["tool"])
    assert out["figures"].tolist() == ["reported", "none"]
    assert out.loc[1, "tool"] == "n/a"


def test_density_rounds_half_up() -> None:
    assert stats.density_text(1, 4000) == "0.3"  # 0.25 -> 0.3, not banker's 0.2
    assert stats.density_text(50, 28771) == "1.7"


def test_summary_matches_study_wording(shipped_store: Store) -> None:
    df = export.TABLES["summary"](shipped_store)
    lab = LAB
    assert list(df.columns) == ["model", "organization", *(lab[d] for d in LENS.summary_ids), "wording"]
    row = df.set_index("model").loc["A.X K2"]
    assert row[lab["rl_algorithm"]] == "CISPO + GDPO [curated]"  # every cell says where it comes from
    assert row[lab["disclosure"]] == "detailed [curated]"
    llama = df.set_index("model").loc["Llama 4"]
    assert llama[lab["credit_granularity"]] == "not disclosed [curated]"
    # MiniMax-M1's supplement gives no granularity: its bundled PDF gives an automatic one, in the lens's label
    # (marked low confidence or not, by the confidence model)
    assert df.set_index("model").loc["MiniMax-M1", lab["credit_granularity"]] in (
        "Trajectory / outcome [automatic]",
        "Trajectory / outcome [automatic, low confidence]",
    )
    # a report without a source and without that cell is "not assessed", never a blank
    unmarked = study_tables.summary_table(shipped_store, marks=False).set_index("model")
    assert unmarked.loc["A.X K2", lab["rl_algorithm"]] == "CISPO + GDPO"


def test_summary_uses_the_lens_display_labels_and_optional_quote_columns() -> None:
    reports = pd.DataFrame([{"report_id": "a", "model": "A", "organization": "Lab"}])
    cmp_ = pd.DataFrame(
        [{"report_id": "a", "dimension": "reward_source", "value": "rule-based/verifiable; code-execution/test-cases",
          "origin": "auto", "quote": "We reward passing tests.", "page": 4, "page_label": "4", "confidence": 1.0}]
    )  # fmt: skip
    df = study_tables.summary_frame(reports, cmp_, marks=True, quotes=True)
    label = LAB["reward_source"]
    assert df.loc[0, label] == "Rule-based / verifiable; Code execution / tests [automatic]"
    assert df.loc[0, f"{label}: quote"] == "“We reward passing tests.” (p. 4)"
    assert list(df.columns).index(f"{label}: quote") == list(df.columns).index(label) + 1


def test_cli_summary_quotes_and_wide_results(shipped_store: Store, capsys: pytest.CaptureFixture) -> None:
    root = str(shipped_store.root)
    assert main(["export", "--table", "summary-quotes", "--format", "md", "--data-dir", root]) == 0
    out = capsys.readouterr().out
    # Markdown escapes the brackets (no text from a report may become a link): "\\[curated\\]"
    assert "\\[automatic" in out and "\\[curated\\]" in out and ": quote |" in out and "(p. " in out
    assert main(["export", "--table", "results-wide", "--format", "csv", "--data-dir", root]) == 0
    wide = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype=str, keep_default_na=False)
    assert list(wide.columns[:4]) == ["report", "model", "setting", "own"]
    own = wide[(wide["report"] == "MiniMax-M1") & (wide["own"] == "yes")]
    assert len(own) and "AIME 2024" in wide.columns  # headed by the catalogue's names
    assert set(own["AIME 2024"]) & {"86.0", "83.3"}


def test_summary_marks_curated_and_disagreement_when_asked() -> None:
    reports = pd.DataFrame([{"report_id": "a", "model": "A", "organization": "Lab"}])
    cmp_ = pd.DataFrame(
        [{"report_id": "a", "dimension": "rl_algorithm", "value": "GRPO", "origin": "curated", "detail": "GRPO variant",
          "disagree": True, "auto_value": "PPO"}]
    )  # fmt: skip
    marked = study_tables.summary_frame(reports, cmp_, marks=True)
    lab = LAB
    assert marked.loc[0, lab["rl_algorithm"]] == "GRPO variant [curated] [auto disagrees: PPO]"
    assert marked.loc[0, lab["reward_source"]] == "not assessed"
    assert marked.loc[0, "wording"] == "study"


def test_summary_says_which_cells_are_the_studys_wording() -> None:
    reports = pd.DataFrame([{"report_id": "a", "model": "A", "organization": "Lab"}])
    cmp_ = pd.DataFrame(
        [{"report_id": "a", "dimension": LENS.summary_ids[0], "value": "x", "origin": "auto", "detail": None},
         {"report_id": "a", "dimension": ALGO, "value": "GRPO", "origin": "curated", "detail": "GRPO variant"}]
    )  # fmt: skip
    df = study_tables.summary_frame(reports, cmp_)
    assert df.loc[0, "wording"] == f"study: {LAB[ALGO]}; categories: {LAB[LENS.summary_ids[0]]}"


def test_comparison_markdown_prints_no_na(shipped_store: Store, capsys: pytest.CaptureFixture) -> None:
    assert main(["export", "--table", "comparison", "--format", "md", "--data-dir", str(shipped_store.root)]) == 0
    out = capsys.readouterr().out
    assert "<NA>" not in out and "| None |" not in out and "| nan |" not in out


def test_tiers_group_by_doc_type_and_level(shipped_store: Store) -> None:
    df = export.TABLES["tiers"](shipped_store)
    level = LAB[LENS.level_id]
    rows = {(r["document kind"], r[level]): r["models"] for r in df.to_dict("records")}
    assert rows[("PDF tech report on GitHub (no arXiv)", "detailed")] == "A.X K2, Kimi K3"
    assert rows[("arXiv preprint", "low")] == "DeepSeek-V4, MiniMax-M1, Qwen3"
    assert rows[("official blog post", "none")] == "Llama 4"
    assert sum(len(m.split(", ")) for m in rows.values()) == len(SHIPPED_IDS)


def test_report_card_lists_metadata_figures_and_cells(shipped_store: Store) -> None:
    card = export.report_card(shipped_store, "gemma-4")
    assert card.startswith("# Gemma 4\n")
    assert "| 7,337 | 3 (all in references) |" in card
    assert "not disclosed (only tool-call format examples in an appendix)" in card
    with pytest.raises(KeyError):
        export.report_card(shipped_store, "nope")


def test_distinctive_terms_prefers_rare_terms() -> None:
    counts = pd.DataFrame(
        [{"report_id": r, "section": "all", "group": "g", "term": t, "count": n}
         for r, t, n in [("a", "tool", 10), ("a", "MCTS", 3), ("b", "tool", 12), ("b", "MCTS", 0), ("c", "tool", 9)]]
    )  # fmt: skip
    top = distinctive_terms(counts, "a")
    assert top.iloc[0]["term"] == "MCTS"
    assert distinctive_terms(counts, "zzz").empty


def test_cli_export_stats_md_and_report_card(shipped_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["export", "--table", "stats", "--format", "md", "--data-dir", str(shipped_store.root)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\| Kimi K3 \| 28,771 \| 50 \(1\.7\) \|", out)
    dest = tmp_path / "card.md"
    assert main(["export", "--report", "kimi-k3", "--data-dir", str(shipped_store.root), "--out", str(dest)]) == 0
    assert dest.read_text(encoding="utf-8").startswith("# Kimi K3")
    assert main(["export", "--report", "nope", "--data-dir", str(shipped_store.root)]) == 1
    for name in ("summary", "tiers", "comparison", "counts"):
        assert main(["export", "--table", name, "--format", "csv", "--data-dir", str(shipped_store.root)]) == 0


def test_stats_can_keep_the_figures_column_for_any_selection() -> None:
    """The dashboard's downloads: the same columns whichever reports are shown."""
    reports = pd.DataFrame([{"report_id": "a", "model": "A", "measured": False, "words": None}])
    reported = pd.DataFrame([{"report_id": "a", "term": "tool", "count": 2, "words": 2000, "note": None}])
    assert "figures" not in stats.stats_frame(reports, reported, pd.DataFrame(), terms=["tool"]).columns
    kept = stats.stats_frame(reports, reported, pd.DataFrame(), terms=["tool"], figures=True)
    assert list(kept.columns) == ["model", "words", "tool", "figures"] and kept.loc[0, "figures"] == "reported"


def test_out_files_get_the_users_file_mode(shipped_store: Store, tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        dest = tmp_path / "counts.csv"
        assert main(["export", "--table", "counts", "--data-dir", str(shipped_store.root), "--out", str(dest)]) == 0
        assert stat.S_IMODE(dest.stat().st_mode) == 0o640  # 0666 less the umask, as `>` would give
    finally:
        os.umask(old)


def test_no_stage_value_is_exported_as_declared_not_as_not_disclosed() -> None:
    from ingest.outputs.study_tables import display_value

    lens = load_lens()
    ns = lens.no_stage
    assert ns is not None
    for dim in ns.dimensions:
        assert display_value(ns.value, dim, lens) == ns.value
