"""Small things a user hits (issue 24, item 7), each guarded by a test named after it."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError
from streamlit.testing.v1 import AppTest

from ingest.analysis import keywords
from ingest.analysis.results_web import table_name
from ingest.run import mainmod
from ingest.sources.registry import validation_errors
from ingest.sources.schema import ReportSpec
from tests.app_fixtures import build_store
from views import figures
from views.evidence import kwic_line
from views.report import meta_label

REPO = Path(__file__).resolve().parents[1]


def test_kwic_line_never_splits_a_word() -> None:
    assert kwic_line("the accuracy ", "reward", "s are computed") == "…the accuracy [reward]s are computed…"
    assert kwic_line("a multi-", "agent", " setup") == "…a multi-[agent] setup…"
    assert kwic_line("we use a ", "tool", " call") == "…we use a [tool] call…"


def test_kwic_context_is_cut_at_word_boundaries() -> None:
    text = "x" * 100 + " the accuracy rewards are computed from verifiable outcomes of each rollout and compared with a mean"
    i = text.find("reward")
    left, right = keywords.left_context(text, i), keywords.right_context(text, i + len("reward"))
    assert left == "the accuracy " and right.startswith("s are computed") and right.endswith("compared")
    assert keywords.left_context("short text reward", 11) == "short text "


def test_reported_figures_show_in_the_scope_the_report_file_gives() -> None:
    reports = pd.DataFrame([{"report_id": "a", "model": "A"}])
    reported = pd.DataFrame([
        {"report_id": "a", "term": "tool", "count": 4, "words": 1000, "scope": "body"},
    ])  # fmt: skip
    empty = pd.DataFrame(columns=["report_id", "section", "group", "term", "count", "words", "density"])
    body = figures.keyword_matrix(reports, empty, reported, ["tool"], "study", "body", "reported")
    assert body["figures"].tolist() == ["reported"] and body["count"].tolist() == [4]
    assert figures.keyword_matrix(reports, empty, reported, ["tool"], "study", "all", "reported").empty


def test_keywords_says_when_no_reported_figures_exist_for_the_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, reports = build_store(tmp_path, 3)
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    at = AppTest.from_file(str(REPO / "views" / "keywords.py"), default_timeout=60)
    at.query_params.update({"scope": "body", "figures": "reported"})
    at.run()
    assert not at.exception
    body = next(el.proto.body for el in at.get("html") if "Figures shown" in el.proto.body)  # (the heatmap's block)
    assert "no report has reported figures for body only" in body


def test_a_markdown_source_shows_sections_not_pages() -> None:
    assert meta_label("pages", "Pages", "markdown") == "Sections"
    assert meta_label("pages", "Pages", "html") == "Sections"
    assert meta_label("pages", "Pages", "pdf") == "Pages"


def test_a_post_table_captioned_table_1_keeps_its_label() -> None:
    assert table_name("Table 1: Results on agentic benchmarks", "Results") == "Table 1"
    assert table_name("Our results are below.", "Results") == "Table in 'Results'"


def test_a_bad_id_gets_a_readable_rule_not_a_regex() -> None:
    with pytest.raises(ValidationError) as exc:
        ReportSpec.model_validate({"id": "Kimi K1.5!", "model": "m", "organization": "o", "doc_type": "arxiv"})
    (err,) = validation_errors(exc.value, "f")
    assert "lowercase letters, digits" in err.message and "^[" not in str(err)


def test_job_processes_do_not_import_the_dashboards_page_script(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Streamlit page runs as a `__main__` with a file; a job's process must not import it."""
    page = types.ModuleType("__main__")
    page.__file__ = str(REPO / "views" / "add_report.py")
    monkeypatch.setitem(sys.modules, "__main__", page)
    with mainmod.main_unnamed():
        assert getattr(sys.modules["__main__"], "__file__", None) is None
    assert sys.modules["__main__"] is page


def test_app_adds_its_folder_to_sys_path_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "none"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.run()
    before = sys.path.count(str(REPO))
    at.run()
    at.run()
    assert sys.path.count(str(REPO)) == before
