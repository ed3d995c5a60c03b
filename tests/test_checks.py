"""`python -m ingest check`: every planted error of one file is found in one run (ingest/checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest import checks, cli

from .conftest import copy_shipped

PLANTED = """id: planted
model: Planted
organization: Lab
doc_type: pdf
source:
  path: files/nope.pdf
reported:
  from: a study
  counts: {agentc: 3, agent: 2}
curated:
  rewardsource:
    value: [rule-based/verifiable]
  reward_source:
    value: [rule-basd]
  rl_algorithm:
    value: [MyPO]
"""


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "planted.yaml").write_text(PLANTED, encoding="utf-8")
    return reports


def test_check_finds_every_planted_error_of_one_file_in_one_run(planted: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--reports-dir", str(planted)]) == 1
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert any("doc_type:" in ln for ln in errors)  # a bad field value (schema)
    assert any("curated.rewardsource: unknown dimension" in ln and "reward_source" in ln for ln in errors)
    assert any("source.path:" in ln and "does not exist" in ln for ln in errors)  # a missing source
    assert any("reported.counts.agentc: not a term of the lexicon" in ln and "'agentic'" in ln for ln in errors)
    assert any("curated.reward_source.value: 'rule-basd'" in ln for ln in errors)  # a value outside the lens
    assert len(errors) == 5, err
    # a method name the lens lacks in an algorithm dimension may be the report's own: a warning, not an error
    assert any(ln.startswith("warning: ") and "'MyPO'" in ln for ln in err.splitlines())


def test_check_accepts_the_shipped_reports(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--reports-dir", str(copy_shipped(tmp_path / "reports"))]) == 0
    out = capsys.readouterr()
    assert "error:" not in out.err and out.out.count("ok: ") >= 10


def test_curated_values_match_the_lens_whatever_their_case_and_spacing() -> None:
    vocab = checks.load_vocabulary()
    found = checks.curated_findings("x.yaml", {"reward_source": {"value": ["Rule-based/verifiable ", "not  disclosed"]}}, vocab)
    assert found == []


def test_a_file_that_is_not_yaml_gets_one_error_and_no_crash(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("id: [unclosed\n", encoding="utf-8")
    found = checks.check_file(p, (tmp_path,), checks.load_vocabulary())
    assert len(found) == 1 and found[0].severity == "error"


def test_check_reports_every_error_after_an_unquoted_invalid_date(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`released: 2025-13-45` (unquoted) is one error among the others, not a stop before them."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "dated.yaml").write_text(
        "id: dated\nmodel: M\norganization: Lab\ndoc_type: pdf\nreleased: 2025-13-45\ntags: 5\nsorce: {url: x}\n"
        "curated:\n  reward_sauce: {value: x}\n",
        encoding="utf-8",
    )
    assert cli.main(["check", "--reports-dir", str(reports)]) == 1
    errors = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error: ")]
    fields = {ln.split(": ")[2] for ln in errors}
    assert {"released", "doc_type", "tags", "sorce", "curated.reward_sauce"} <= fields, errors
    assert any("released" in ln and "YYYY-MM-DD" in ln for ln in errors)


@pytest.mark.parametrize("page", ["-3", "0", "'-1'"])
def test_check_refuses_a_page_below_one_in_curated_cells_and_results(tmp_path: Path, page: str) -> None:
    p = tmp_path / "paged.yaml"
    p.write_text(
        "id: paged\nmodel: M\norganization: Lab\ndoc_type: other\n"
        f"curated:\n  rl_algorithm: {{value: PPO, page: {page}}}\n"
        f"results:\n  - {{benchmark: B, model: M, value: 1, page: {page}}}\n",
        encoding="utf-8",
    )
    found = checks.check_file(p, (tmp_path,), checks.load_vocabulary())
    assert {f.field for f in found if "1 or more" in f.message} == {"curated.rl_algorithm.page", "results.0.page"}, found


def test_a_page_given_as_a_section_heading_is_accepted(tmp_path: Path) -> None:
    p = tmp_path / "post.yaml"
    p.write_text(
        "id: post\nmodel: M\norganization: Lab\ndoc_type: blog\ncurated:\n  rl_algorithm: {value: PPO, page: 'Training'}\n",
        encoding="utf-8",
    )
    assert [f for f in checks.check_file(p, (tmp_path,), checks.load_vocabulary()) if f.severity == "error"] == []
