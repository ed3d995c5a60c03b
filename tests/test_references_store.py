"""Methods named by reference resolve across the store, through the real pipeline (issue 33, item 2).

Why: annotation reads one report at a time and writes "as in NAME"; the table build sees every report,
so it shows the referenced report's method there, and must update the referring row when that report
comes, changes or goes — without re-reading the referring report's source."""

from __future__ import annotations

from pathlib import Path

from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import write_pdf, write_report

FOLLOWER = [
    ["Introduction", "We study reinforcement learning for reasoning models."],
    ["Reinforcement Learning", "We train the policy with the same RL algorithm as in Zeta-2.5 for all math tasks.",
     "The reward is a rule-based check of the final answer."],
]  # fmt: skip


def target_pages(method: str) -> list[list[str]]:
    return [
        ["Introduction", "We study reinforcement learning for reasoning models."],
        ["Reinforcement Learning", f"We adopt {method} as our RL algorithm for the policy model.",
         "The reward is a rule-based check of the final answer."],
    ]  # fmt: skip


def algorithm_cell(data: Path, report_id: str) -> tuple[str, str]:
    df = Store(data).read_table("comparison")
    row = df[(df.report_id == report_id) & (df.dimension == "rl_algorithm")].iloc[0]
    return str(row["value"]), str(row["notes"] or "")


def test_reference_resolves_from_the_store_and_follows_the_referenced_report(tmp_path: Path) -> None:
    reports, data = tmp_path / "reports", tmp_path / "data"
    reports.mkdir()
    write_pdf(reports / "follower.pdf", FOLLOWER)
    write_report(reports, "follower", model="Follower 1", source={"path": "follower.pdf"})
    settings = Settings(data_dir=data)
    assert not run(reports_dir=reports, settings=settings).failed
    assert algorithm_cell(data, "follower")[0] == "as in Zeta-2.5"  # the referenced report is not in the store

    # The referenced report is ingested on its own: the follower's row now shows its method, derived.
    write_pdf(reports / "zeta.pdf", target_pages("GRPO"))
    new = write_report(reports, "zeta-2.5", model="Zeta 2.5", source={"path": "zeta.pdf"})
    before = Store(data).bundle_stamps()["follower"]
    result = run([new], reports_dir=reports, settings=settings)
    assert not result.failed, [o.message for o in result.failed]
    assert [o.report_id for o in result.outcomes] == ["zeta-2.5"]
    value, notes = algorithm_cell(data, "follower")
    assert value == "as in Zeta-2.5 → GRPO"
    assert "derived" in notes and "zeta-2.5" in notes and "We adopt GRPO" in notes and "(p. 2)" in notes
    assert Store(data).bundle_stamps()["follower"] == before  # the follower itself was not ingested again
    assert algorithm_cell(data, "zeta-2.5")[0] == "GRPO"
    deps = Store(data).manifest().refs["follower"]  # what the follower's row was resolved against
    assert deps.names == ("Zeta-2.5",) and deps.near == ("zeta-2.5",)

    # A second report whose name also holds the words makes the name ambiguous: no report is guessed.
    write_pdf(reports / "zeta-mini.pdf", target_pages("DPO"))
    mini = write_report(reports, "zeta-2.5-mini", model="Zeta 2.5 Mini", source={"path": "zeta-mini.pdf"})
    assert not run([mini], reports_dir=reports, settings=settings).failed
    assert algorithm_cell(data, "follower")[0] == "as in Zeta-2.5"
    mini.unlink()
    assert not run(reports_dir=reports, settings=settings).failed
    assert algorithm_cell(data, "follower")[0] == "as in Zeta-2.5 → GRPO"

    # The referenced report changes: the follower's row follows.
    write_pdf(reports / "zeta.pdf", target_pages("CISPO"))
    assert not run([new], reports_dir=reports, settings=settings).failed
    assert algorithm_cell(data, "follower")[0] == "as in Zeta-2.5 → CISPO"

    # It goes: the reference is a name again.
    new.unlink()
    assert not run(reports_dir=reports, settings=settings).failed
    assert algorithm_cell(data, "follower")[0] == "as in Zeta-2.5"
