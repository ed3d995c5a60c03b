"""Dashboard, part two: the Add report page (writing, ingesting, deleting report YAML) through
streamlit's AppTest, and the pure view helpers (chart click targets, row filters, KWIC rows, the
reload on a changed store). The pages that read the store are in tests/test_app.py, whose
fixtures and helpers these tests share.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ingest.store.store import Store
from tests import test_app
from tests.app_fixtures import copy_store
from tests.test_app import ALGO, LENS, N, matrix_rows, run_app, texts
from views import chart_plotly, compare, evidence, keyword_charts
from views.add_report import DELETED_DIR, spec_from_fields, spec_from_yaml, write_report

# The dashboard tests' shared fixtures (pytest finds a fixture by its name in the test module).
built, private_env = test_app.built, test_app.private_env


# ------------------------------------------------------------------------------------------- Add report
def test_add_report_rejects_invalid_input_with_schema_message(private_env: Path, tmp_path: Path) -> None:
    at = run_app("add_report")
    at.text_input(key="add_id").set_value("Bad ID!")
    at.text_input(key="add_model").set_value("X")
    at.text_input(key="add_organization").set_value("Lab")
    at.button[0].click().run()
    assert any("id" in t for t in texts(at))
    assert not (tmp_path / "reports").exists() or not list((tmp_path / "reports").glob("*.yaml"))


def test_add_report_writes_yaml_ingests_and_never_overwrites(private_env: Path, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    at = run_app("add_report")
    for k, v in {"id": "new-one", "model": "New One", "organization": "Lab Z"}.items():
        at.text_input(key=f"add_{k}").set_value(v)
    at.button[0].click().run()
    assert not at.exception
    path = reports / "new-one.yaml"
    assert path.exists()
    assert spec_from_yaml(path.read_text()).model == "New One"
    assert any("no-source" in t for t in texts(at))
    before = path.read_bytes()
    at = run_app("add_report")
    for k, v in {"id": "new-one", "model": "Other", "organization": "Lab Z"}.items():
        at.text_input(key=f"add_{k}").set_value(v)
    at.button[0].click().run()
    assert any("already exists" in t for t in texts(at))
    assert path.read_bytes() == before


def test_add_report_yaml_paste_reports_unknown_keys(private_env: Path) -> None:
    at = run_app("add_report")
    at.radio(key="add_mode").set_value("YAML").run()
    at.text_area(key="add_yaml").set_value("id: x\nmodel: X\norganization: L\ndoc_type: blog\nsorce: {url: http://x}\n")
    at.button[0].click().run()
    assert any("sorce" in t for t in texts(at))


def test_write_report_keeps_existing_file_and_uploaded_pdf(tmp_path: Path) -> None:
    spec = spec_from_fields({"id": "a", "model": "A", "organization": "L", "doc_type": "arxiv", "tags": "x, y"})
    assert spec.tags == ["x", "y"]
    path = write_report(spec, tmp_path, pdf=b"%PDF-1.4 fake")
    assert (tmp_path / "files" / "a.pdf").read_bytes() == b"%PDF-1.4 fake"
    with pytest.raises(FileExistsError):
        write_report(spec, tmp_path)
    assert write_report(spec, tmp_path, replace=True) == path


def test_write_report_accepts_markdown_and_html_sources(tmp_path: Path) -> None:
    spec = spec_from_fields({"id": "b", "model": "B", "organization": "L", "doc_type": "blog"})
    write_report(spec, tmp_path, pdf=b"# Title\n\ntext", suffix=".md")
    assert (tmp_path / "files" / "b.md").read_bytes().startswith(b"# Title")
    with pytest.raises(ValueError):
        write_report(spec, tmp_path, replace=True, pdf=b"x", suffix=".exe")


def test_delete_report_needs_confirmation_and_keeps_the_file(private_env: Path, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    write_report(spec_from_fields({"id": "gone", "model": "Gone", "organization": "L", "doc_type": "blog"}), reports)
    at = run_app("add_report")
    assert at.button(key="del_go").disabled
    at.selectbox(key="del_id").set_value("gone").run()
    at.checkbox(key="del_sure").check().run()
    at.button(key="del_go").click().run()
    assert not (reports / "gone.yaml").exists()
    assert len(list((reports / DELETED_DIR).glob("gone.*.yaml"))) == 1  # kept under a timestamped name
    assert any("Removed gone" in t for t in texts(at))  # a plain-text message


def test_add_report_marks_required_fields_and_links_the_new_card(private_env: Path) -> None:
    at = run_app("add_report")
    assert at.text_input(key="add_id").label.endswith("*") and not at.text_input(key="add_country").label.endswith("*")
    for k, v in {"id": "linked", "model": "Linked", "organization": "Lab Z"}.items():
        at.text_input(key=f"add_{k}").set_value(v)
    at.button[0].click().run()
    assert any('href="report?report=linked"' in m.value for m in at.markdown)


# ------------------------------------------------------------------------------------------- pure builders
@pytest.mark.parametrize(
    ("event", "want"),
    [
        (
            {"selection": {"points": [{"x": "tool", "customdata": ["evidence?term=tool&section=references"]}]}},
            ("evidence", {"term": "tool", "section": "references"}),
        ),
        (
            {"selection": {"points": [{"x": 9000, "customdata": ["evidence?report=r1&term=tool"]}]}},
            ("evidence", {"report": "r1", "term": "tool"}),
        ),
        ({"selection": {"points": [{"customdata": ["https://elsewhere.example/x?report=r1"]}]}}, None),
        ({"selection": {"points": [{"customdata": ["javascript:alert(1)"]}]}}, None),
        ({"selection": {"points": []}}, None),
        (None, None),
    ],
)
def test_click_target_maps_chart_clicks_to_evidence(event: object, want: tuple | None) -> None:
    assert chart_plotly.clicked(event) == want


def test_filter_rows_combines_filters_with_and_values_with_or(built: Path) -> None:
    store = Store(built)
    wide = compare.wide_table(store.read_table("reports"), store.read_table("comparison"), LENS.ids)
    both = compare.filter_rows(wide, {"org": ["Lab A", "Lab B"]})
    assert set(both["organization"]) == {"Lab A", "Lab B"}
    narrowed = compare.filter_rows(wide, {"org": ["Lab A", "Lab B"], "doc": ["arxiv"]})
    assert set(narrowed["organization"]) == {"Lab A"}
    cmp_ = store.read_table("comparison")
    want = {v.strip() for x in cmp_[cmp_["dimension"] == ALGO]["value"] for v in str(x).split(";")}
    assert set(compare.options(wide, ALGO)) == want


def test_kwic_rows_filters_by_section(built: Path) -> None:
    kwic = Store(built).read_table("kwic")
    assert not evidence.kwic_rows(kwic, "*", "credit assignment", "references").empty
    assert evidence.kwic_rows(kwic, "*", "credit assignment", "body").empty
    assert isinstance(evidence.kwic_rows(pd.DataFrame(), "*", "", ""), pd.DataFrame)


def test_app_reloads_tables_when_store_files_change(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_store(built, tmp_path / "data")
    monkeypatch.setenv("FRL_DATA_DIR", str(root))
    at = run_app()
    assert len(matrix_rows(at)) == N
    store = Store(root)
    reports = store.read_table("reports")
    store.write_table("reports", reports[reports["report_id"] != "r02"])  # a new run rewrites the tables
    at.run()
    assert len(matrix_rows(at)) == N - 1


def test_section_bars_say_when_nothing_is_measured() -> None:
    assert keyword_charts.section_bars(pd.DataFrame(), ["r1"], ["agentic"], "study") is None
