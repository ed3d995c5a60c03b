"""Comparison table: curated cells override automatic ones, disagreements are flagged, empty is honest."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ingest.analysis.comparison import COMPARISON_COLUMNS, comparison_rows, parse_checklist
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.cli import main
from ingest.common.records import Annotation, Cell, ChecklistItem
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.schema import ReportSpec
from ingest.store.store import Store

from .conftest import write_pdf, write_report


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def spec(**curated: dict) -> ReportSpec:
    return ReportSpec.model_validate({"id": "x", "model": "X", "organization": "L", "doc_type": "other", "curated": curated})


def auto(lens, **values: list[str]) -> Annotation:
    cells = {d: Cell(tuple(v), 0.75, f"quote {d}", 4, "4", "body") for d, v in values.items()}
    return Annotation(lens.id, lens.fingerprint, cells)


def by_dim(rows: list[dict]) -> dict[str, dict]:
    return {r["dimension"]: r for r in rows}


def test_rows_follow_lens_order_and_contract_columns(lens) -> None:
    rows = comparison_rows(lens, spec(), None)
    assert [r["dimension"] for r in rows] == lens.ids
    assert all(set(r) == set(COMPARISON_COLUMNS) for r in rows)


def test_no_source_and_no_curated_cell_is_not_assessed(lens) -> None:
    row = by_dim(comparison_rows(lens, spec(), None))["reward_source"]
    assert (row["value"], row["origin"], row["confidence"], row["auto_value"]) == ("not assessed", "none", None, None)


def test_curated_cell_overrides_automatic_and_flags_disagreement(lens) -> None:
    s = spec(rl_algorithm={"value": ["CISPO"], "quote": "We use CISPO.", "page": 7, "notes": "checked"})
    rows = by_dim(comparison_rows(lens, s, auto(lens, rl_algorithm=["GRPO"], reward_source=["reward-model"])))
    row = rows["rl_algorithm"]
    assert (row["value"], row["origin"], row["auto_value"], row["disagree"]) == ("CISPO", "curated", "GRPO", True)
    got = (row["quote"], row["page"], row["page_label"], row["notes"], row["confidence"])
    assert got == ("We use CISPO.", 7, "7", "checked", None)
    other = rows["reward_source"]
    assert (other["origin"], other["value"], other["disagree"], other["page"]) == ("auto", "reward-model", False, 4)


def test_curated_agreeing_with_automatic_is_not_a_disagreement(lens) -> None:
    s = spec(reward_source={"value": ["code-execution/test-cases", "reward-model"]})
    a = auto(lens, reward_source=["reward-model", "code-execution/test-cases"])
    row = by_dim(comparison_rows(lens, s, a))["reward_source"]
    assert row["disagree"] is False
    assert row["value"] == "code-execution/test-cases; reward-model"


def test_curated_not_disclosed_is_a_value_and_blog_heading_is_the_page_label(lens) -> None:
    s = spec(credit_granularity={"value": "not disclosed", "page": "Post-training"})
    row = by_dim(comparison_rows(lens, s, None))["credit_granularity"]
    assert (row["value"], row["origin"], row["page"], row["page_label"]) == ("not disclosed", "curated", None, "Post-training")


def test_curated_value_outside_the_lens_is_noted(lens) -> None:
    row = by_dim(comparison_rows(lens, spec(rl_algorithm={"value": "GRPOO"}), None))["rl_algorithm"]
    assert "not in lens" in row["notes"]


def test_annotation_from_another_lens_is_ignored(lens) -> None:
    other = Annotation("helpfulness_reward", "", {"reward_source": Cell(("rules",), None)})
    assert by_dim(comparison_rows(lens, spec(), other))["reward_source"]["origin"] == "none"


def test_pipeline_fills_comparison_and_export_prints_it(tmp_path: Path, capsys) -> None:
    """End to end on a generated PDF: auto cells with quotes on their page, curated-only rows without a source."""
    reports = tmp_path / "reports"
    reports.mkdir()
    write_pdf(
        reports / "lab.pdf",
        [
            ["Introduction", "We study reinforcement learning for large language models and agents."],
            ["Reinforcement Learning", "We adopt CISPO as our RL algorithm, unlike GRPO (Shao et al., 2024).",
             "For math we use a rule-based reward that checks the final answer."],
        ],
    )  # fmt: skip
    write_report(reports, "lab", source={"path": "lab.pdf"})
    write_report(reports, "paper-only", body="curated:\n  rl_algorithm: {value: [GRPO], detail: GRPO variant}\n")
    data = tmp_path / "data"
    result = run(reports_dir=reports, settings=Settings(data_dir=data))
    assert not result.failed, [o.message for o in result.failed]
    df = Store(data).read_table("comparison")
    lab = df[df.report_id == "lab"].set_index("dimension")
    assert lab.loc["rl_algorithm", "value"] == "CISPO" and lab.loc["rl_algorithm", "origin"] == "auto"
    assert lab.loc["rl_algorithm", "page"] == 2
    assert lab.loc["rl_algorithm_mentioned", "value"] == "GRPO"
    assert lab.loc["reward_source", "value"] == "rule-based/verifiable"
    paper = df[df.report_id == "paper-only"].set_index("dimension")
    assert (paper.loc["rl_algorithm", "origin"], paper.loc["rl_algorithm", "value"]) == ("curated", "GRPO")
    assert paper.loc["reward_source", "value"] == "not assessed"
    ev = Store(data).read_table("evidence")
    assert {"report_id", "dimension", "category", "rank", "score", "quote", "page", "page_label", "section"} <= set(ev.columns)
    assert (ev[ev.report_id == "lab"].section != "references").all()
    capsys.readouterr()
    assert main(["export", "--table", "comparison", "--format", "csv", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("report_id,dimension,value,origin,confidence,quote,page")
    assert "lab,rl_algorithm,CISPO,auto" in out


def test_shipped_study_reports_show_curated_rows_without_sources(shipped) -> None:
    """The default dataset: the nine study reports appear curated even though none has a local source."""
    assert not shipped.result.spec_errors
    df = Store(shipped.data).read_table("comparison")
    study = {"kimi-k3", "ax-k2", "solar-open-2", "glm-4.5", "deepseek-v4", "qwen3", "k-exaone-2.0", "llama-4", "gemma-4"}
    cur = df[(df.origin == "curated") & (df.dimension == "rl_algorithm")]
    assert study <= set(cur.report_id)
    assert df[(df.report_id == "solar-open-2") & (df.dimension == "credit_granularity")].value.item() == "mixed"


def test_level_row_lists_every_indicator_yes_or_no_with_its_page(lens) -> None:
    cl = (
        ChecklistItem("rl_stage", "RL stage", True, 2, "We apply RL.", 3, "3"),
        ChecklistItem("reward_hacking", "Hacking", False, 0, None, None, None),
    )
    a = auto(lens, rl_disclosure=["low"])
    a.cells["rl_disclosure"] = replace(a.cells["rl_disclosure"], indicators=("rl_stage",), checklist=cl)
    row = by_dim(comparison_rows(lens, spec(), a))["rl_disclosure"]
    assert row["indicators"] == "rl_stage: yes (p. 3); reward_hacking: no"
    assert parse_checklist(row["indicators"]) == [
        {"indicator": "rl_stage", "fired": True, "page_label": "3"},
        {"indicator": "reward_hacking", "fired": False, "page_label": None},
    ]
    assert by_dim(comparison_rows(lens, spec(), a))["reward_source"]["indicators"] is None
