"""End to end through `run` and the CLI: cache hits, failures keep results, reported stays apart."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ingest.cli import main
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import REPO, write_pdf, write_report

PAGES = [
    ["Agentic reinforcement learning with tool use.", "The reward comes from unit tests in a sandbox."],
    ["We adopt GRPO for training.", "References", "Doe. An agentic benchmark for tools. 2025."],
]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Settings]:
    reports = tmp_path / "reports"
    reports.mkdir()
    write_pdf(reports / "paper.pdf", PAGES)
    write_report(
        reports,
        "paper",
        "source:\n  path: paper.pdf\nreported:\n  from: a study\n  words: 999\n  counts: {agentic: 7}\n",
    )
    write_report(reports, "nosrc", "reported:\n  from: a study\n  words: 100\n  counts: {agent: 1}\n")
    return reports, Settings(data_dir=tmp_path / "data")


def table(settings: Settings, name: str) -> pd.DataFrame:
    return Store(settings.data_dir).read_table(name)


def test_run_produces_tables_with_measured_and_reported_apart(setup):
    reports, settings = setup
    res = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes} == {"paper": "ok", "nosrc": "no-source"}
    counts = table(settings, "counts")
    row = counts[(counts.report_id == "paper") & (counts.term == "agentic") & (counts.section == "all")].iloc[0]
    assert (row["count"], row["words"]) == (2, 28)  # 6 + 9 + 5 + 1 + 7 words
    ref = counts[(counts.report_id == "paper") & (counts.term == "agentic") & (counts.section == "references")].iloc[0]
    assert ref["count"] == 1
    reported = table(settings, "reported")
    assert set(reported.report_id) == {"paper", "nosrc"}
    assert reported[reported.report_id == "paper"].iloc[0][["term", "count", "words"]].tolist() == ["agentic", 7, 999]
    reps = table(settings, "reports").set_index("report_id")
    assert bool(reps.loc["paper", "measured"]) and not bool(reps.loc["nosrc", "measured"])
    assert Store(settings.data_dir).check(full=True) == []  # one checked generation (no whole-table CSV copies)


def test_rerun_on_unchanged_inputs_uses_the_stored_results(setup):
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    again = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in again.outcomes}["paper"] == "cached"


def test_text_cache_hit_when_only_the_lexicon_changes(setup, tmp_path):
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    lex = tmp_path / "lexicon.yaml"
    lex.write_text("version: 1\ngroups:\n  - id: g\n    label: G\n    terms:\n      - {name: sandbox, rule: word}\n")
    res = run(reports_dir=reports, settings=Settings(data_dir=settings.data_dir, lexicon_path=lex))
    out = {o.report_id: o for o in res.outcomes}["paper"]
    assert (out.status, out.message) == ("ok", "text from cache")
    assert set(table(settings, "counts").term) == {"sandbox"}


def test_changed_source_is_recounted(setup):
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    write_pdf(reports / "paper.pdf", [["Only one agentic page."]])
    res = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes}["paper"] == "ok"
    counts = table(settings, "counts")
    assert counts[(counts.report_id == "paper") & (counts.term == "agentic") & (counts.section == "all")]["count"].item() == 1


def test_failed_report_keeps_its_last_good_results(setup):
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    (reports / "paper.pdf").write_bytes(b"%PDF-1.4 truncated garbage")
    res = run(reports_dir=reports, settings=settings)
    out = {o.report_id: o for o in res.outcomes}["paper"]
    assert out.status == "failed" and "PDF" in out.message
    counts = table(settings, "counts")
    assert counts[(counts.report_id == "paper") & (counts.section == "all") & (counts.term == "agentic")]["count"].item() == 2
    status = table(settings, "status").set_index("report_id")
    assert status.loc["paper", "status"] == "failed"


def test_broken_yaml_keeps_the_report_and_its_results(setup):
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    (reports / "paper.yaml").write_text((reports / "paper.yaml").read_text() + "colour: red\n")
    res = run(reports_dir=reports, settings=settings)
    assert [o.report_id for o in res.failed] == ["paper"]
    assert "colour" in res.failed[0].message
    assert "paper" in set(table(settings, "reports").report_id)
    assert "paper" in set(table(settings, "counts").report_id)


def test_cli_exit_status_summary_and_export(setup, capsys):
    reports, settings = setup
    code = main(["--reports-dir", str(reports), "--data-dir", str(settings.data_dir)])
    out = capsys.readouterr().out
    assert code == 0 and "paper" in out and "no-source" in out
    assert main(["export", "--table", "counts", "--format", "csv", "--data-dir", str(settings.data_dir)]) == 0
    import csv as csv_mod

    csv = list(csv_mod.reader(capsys.readouterr().out.splitlines()))  # text fields are quoted (RFC 4180)
    assert csv[0][:6] == ["report_id", "section", "term", "count", "words", "density"]
    assert any(row[:4] == ["paper", "references", "agentic", "1"] for row in csv)
    assert {row[1] for row in csv[1:]} == {"body", "appendix", "references", "all"}


def test_cli_exits_nonzero_when_a_report_fails_but_stores_the_others(setup):
    reports, settings = setup
    write_report(reports, "missing", "source:\n  path: nowhere.pdf\n")
    code = main(["--quiet", "--reports-dir", str(reports), "--data-dir", str(settings.data_dir)])
    assert code == 1
    assert {"paper", "nosrc", "missing"} <= set(table(settings, "reports").report_id)
    assert "paper" in set(table(settings, "counts").report_id)


def test_cli_single_file_and_export_to_file(setup, tmp_path):
    reports, settings = setup
    code = main(["--quiet", str(reports / "paper.yaml"), "--reports-dir", str(reports), "--data-dir", str(settings.data_dir)])
    assert code == 0
    out = tmp_path / "counts.md"
    assert main(["export", "--table", "counts", "--format", "md", "--out", str(out), "--data-dir", str(settings.data_dir)]) == 0
    assert out.read_text().startswith("| report_id | section | term |")


def test_export_without_results_says_what_to_do(tmp_path, capsys):
    assert main(["export", "--data-dir", str(tmp_path / "none")]) == 1
    assert "run `python -m ingest` first" in capsys.readouterr().err


def test_python_dash_m_ingest_runs_as_a_process(setup):
    reports, _settings = setup
    proc = subprocess.run(
        [sys.executable, "-m", "ingest", "check", "--reports-dir", str(reports)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ok:" in proc.stdout


def test_metadata_edit_without_source_change_updates_the_tables(setup):
    """Warm re-runs skip rebuilding tables only while every YAML is unchanged."""
    reports, settings = setup
    run(reports_dir=reports, settings=settings)
    p = reports / "paper.yaml"
    p.write_text(p.read_text().replace("model: PAPER", "model: Paper v2"))
    res = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes}["paper"] == "cached"
    assert table(settings, "reports").set_index("report_id").loc["paper", "model"] == "Paper v2"


def test_settings_are_validated():
    with pytest.raises(ValueError, match="engine"):
        Settings(engine="ocr")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_pages"):
        Settings(max_pages=0)


def test_page_progress_is_reported_while_a_pdf_is_read(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    write_pdf(reports / "long.pdf", [[f"page {i} says reward"] for i in range(60)])
    write_report(reports, "long", "source:\n  path: long.pdf\n")
    seen: list[tuple[int, int]] = []
    run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "data"), page_progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 60) and seen[-1] == (60, 60)


def test_cli_broken_lens_is_a_clear_error_not_a_traceback(setup, tmp_path, capsys):
    reports, settings = setup
    lens = tmp_path / "lens.yaml"
    lens.write_text("version: 1\nid: x\nlabel: X\ndimensions:\n  - id: d\n    colour: red\n")
    code = main(["--quiet", "--lens", str(lens), "--reports-dir", str(reports), "--data-dir", str(settings.data_dir)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"error: {lens}" in err and "colour" in err and "Traceback" not in err


def test_worker_server_starts_early_only_for_a_named_report_not_stored_yet(setup, monkeypatch):
    """A new report named on the command line starts the worker server before the registry and the
    model load (its start-up overlaps them); an unchanged one, or a run of the whole folder, does not."""
    import ingest.pipeline as pipeline

    reports, settings = setup
    calls: list[object] = []
    monkeypatch.setattr(pipeline, "start_server_early", lambda limits: calls.append(limits) or False)
    res = run(files=[reports / "paper.yaml"], reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes} == {"paper": "ok"}
    assert calls == [settings.limits()]
    again = run(files=[reports / "paper.yaml"], reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in again.outcomes} == {"paper": "cached"}
    run(reports_dir=reports, settings=settings)
    assert len(calls) == 1
