"""Dashboard: every page and filter through streamlit's AppTest, plus the pure figure builders.

AppTest has no plotly element, so charts are checked twice: the builders' figures directly,
and the JSON spec the page actually sent (an UnknownElement's `proto.spec`).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ingest.summaries import load_dimensions
from tests.app_fixtures import build_tables, write_store
from views import compare, evidence, figures
from views.add_report import spec_from_fields, spec_from_yaml, write_report

APP = str(Path(__file__).resolve().parents[1] / "app.py")
N = 8


@pytest.fixture
def store_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A synthetic store of N reports the app reads via FRL_DATA_DIR (reports dir: an empty tmp folder)."""
    root = tmp_path / "data"
    write_store(root, N)
    monkeypatch.setenv("FRL_DATA_DIR", str(root))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(tmp_path / "reports"))
    return root


def run_app(page: str | None = None, **params: str) -> AppTest:
    """Run the app; on the default page `params` arrive as the URL's query string, on other pages as
    widget state (AppTest drops the query string on a page switch; the browser test covers that path)."""
    at = AppTest.from_file(APP, default_timeout=60)
    if not page:
        at.query_params.update(params)
    at.run()
    if page:
        for k, v in params.items():
            at.session_state[k] = v
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> list[str]:
    """The plain-text messages on the page (views.plain.message shows them as st.text)."""
    return [t.value for t in at.text]


def _decode(v: object) -> object:
    """Plotly ships numeric arrays as {"dtype", "bdata"(, "shape")}; turn them back into lists."""
    if isinstance(v, dict) and "bdata" in v:
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if "shape" in v:
            arr = arr.reshape([int(x) for x in str(v["shape"]).split(",")])
        return arr.tolist()
    if isinstance(v, dict):
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x) for x in v]
    return v


def specs(at: AppTest) -> list[dict]:
    """The plotly figures the page sent (the JSON spec of each chart), arrays decoded."""
    return [_decode(json.loads(el.proto.spec)) for el in at.get("plotly_chart")]


LABELS = {d.id: d.label for d in load_dimensions()}


# ------------------------------------------------------------------------------------------- Compare
def test_compare_shows_every_report_with_curated_and_disagreement_marks(store_env: Path) -> None:
    at = run_app()
    assert at.title[0].value.startswith("Compare")
    df = at.dataframe[0].value
    assert len(df) == N
    first = df.set_index("model").loc["Model 0000"]
    assert first[LABELS["rl_algorithm"]].endswith(f"{compare.CURATED_MARK} {compare.DISAGREE_MARK} auto: PPO")
    assert compare.AUTO_MARK in df.set_index("model").loc["Model 0001", LABELS["rl_algorithm"]]
    assert any("disagrees" in w.value for w in at.warning)


@pytest.mark.parametrize(
    ("key", "value", "column"),
    [
        ("org", "Lab B", "organization"),
        ("doc", "blog", "doc type"),
        ("disclosure", "low", LABELS["disclosure"]),
        ("algorithm", "GRPO", LABELS["rl_algorithm"]),
        ("reward", "reward-model", LABELS["reward_source"]),
        ("granularity", "token", LABELS["credit_granularity"]),
    ],
)
def test_compare_filter_narrows_rows_and_reads_url(store_env: Path, key: str, value: str, column: str) -> None:
    at = run_app()
    at.multiselect(key=key).set_value([value]).run()
    df = at.dataframe[0].value
    assert 0 < len(df) < N
    assert all(str(v).startswith(value) for v in df[column])
    shared = run_app(**{key: value})  # the same view from a shared URL
    assert shared.multiselect(key=key).value == [value]
    assert shared.dataframe[0].value.equals(df)


def test_compare_search_matches_wording_and_quotes(store_env: Path) -> None:
    at = run_app()
    at.text_input(key="q").set_value("sandboxes").run()
    assert at.dataframe[0].value["model"].tolist() == ["Model 0001"]
    at.text_input(key="q").set_value("no such words").run()
    assert at.dataframe[0].value.empty


def test_compare_exports_are_offered(store_env: Path) -> None:
    at = run_app()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Summary (Markdown)", "Statistics (Markdown)", "Tiers (Markdown)", "Comparison (CSV)"]


def test_empty_store_explains_how_to_fill_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "nothing"))
    for page in (None, "keywords", "evidence", "report"):
        at = run_app(page)
        assert any("No results in nothing yet" in t for t in texts(at))


# ------------------------------------------------------------------------------------------- Keywords
def test_keywords_heatmap_follows_metric_scope_and_group(store_env: Path) -> None:
    at = run_app("keywords")
    heat = specs(at)[0]
    assert heat["layout"]["title"]["text"].startswith("Density")
    assert heat["data"][0]["x"] == list(build_tables(1)["counts"]["term"].unique())
    at.radio(key="metric").set_value("count").run()
    assert specs(at)[0]["layout"]["title"]["text"].startswith("Count")
    at.radio(key="scope").set_value("references").run()
    z_refs = specs(at)[0]["data"][0]["z"]
    counts = build_tables(N)["counts"]
    refs = counts[(counts["section"] == "references") & (counts["term"] == "agentic")]
    assert sorted(int(row[0]) for row in z_refs) == sorted(refs["count"].tolist())
    at.selectbox(key="group").set_value("rl_algorithms").run()
    assert not at.exception
    assert any("nothing measured" in t for t in texts(at))


def test_keywords_bars_and_scatter_carry_click_targets(store_env: Path) -> None:
    at = run_app("keywords")
    _, bars, _ = specs(at)
    assert [t["name"] for t in bars["data"]] == ["body", "appendix", "references"]
    assert bars["layout"]["barmode"] == "stack"
    assert bars["data"][0]["customdata"][0] == ["agentic", "body"]
    at.selectbox(key="scatter").set_value("tool").run()
    assert "tool" in specs(at)[2]["layout"]["title"]["text"]


def test_keywords_shows_measured_beside_reported_with_differences(store_env: Path) -> None:
    at = run_app("keywords")
    sbs = at.dataframe[0].value
    assert set(sbs["model"]) == {"Model 0000"}
    assert (sbs["reported"] == 5).all()
    assert sbs["differs"].tolist() == (sbs["measured"] != 5).tolist()


def test_keywords_reported_preference_uses_study_figures(store_env: Path) -> None:
    at = run_app("keywords", figures="reported", metric="count")
    heat = specs(at)[0]
    row = heat["data"][0]["y"].index("Model 0000 (reported)")
    assert [int(v) for v in heat["data"][0]["z"][row][:4]] == [5, 5, 5, 5]


# ------------------------------------------------------------------------------------------- Evidence / Report
def test_evidence_lists_kwic_lines_for_term_from_url(store_env: Path) -> None:
    at = run_app("evidence")
    assert "Pick a dimension" in at.info[0].value
    at = run_app("evidence", term="agent", report="r0001")
    lines = at.dataframe[0].value
    assert len(lines) >= 1
    assert set(lines["report_id"]) == {"r0001"}
    assert {"page", "section", "left", "match", "right"} <= set(lines.columns)


def test_evidence_lists_cells_and_sentences_for_dimension(store_env: Path) -> None:
    at = run_app("evidence")
    at.selectbox(key="dim").set_value("rl_algorithm").run()
    cells, ev = at.dataframe[0].value, at.dataframe[1].value
    assert len(cells) == N and len(ev) == N
    assert cells["quote"].str.startswith("We use").all()
    at.selectbox(key="report").set_value("r0000").run()
    assert at.dataframe[0].value["origin"].tolist() == ["curated"]


def test_report_page_shows_card_parts(store_env: Path) -> None:
    at = run_app("report", id="r0002")
    assert at.header[0].value == "Model 0002"
    subheaders = [s.value for s in at.subheader]
    assert subheaders[:2] == ["Figures", "Comparison table row"]
    frames = [d.value for d in at.dataframe]
    assert any("tfidf" in f.columns for f in frames)
    assert any(set(f.get("section", [])) == {"body", "references", "appendix"} for f in frames)
    assert [b.proto.label for b in at.get("download_button")] == ["Report card (Markdown)"]


# ------------------------------------------------------------------------------------------- Add report
def test_add_report_rejects_invalid_input_with_schema_message(store_env: Path, tmp_path: Path) -> None:
    at = run_app("add_report")
    at.text_input(key="add_id").set_value("Bad ID!")
    at.text_input(key="add_model").set_value("X")
    at.text_input(key="add_organization").set_value("Lab")
    at.button[0].click().run()
    assert any("id" in t for t in texts(at))
    assert not (tmp_path / "reports").exists() or not list((tmp_path / "reports").glob("*.yaml"))


def test_add_report_writes_yaml_ingests_and_never_overwrites(store_env: Path, tmp_path: Path) -> None:
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


def test_add_report_yaml_paste_reports_unknown_keys(store_env: Path) -> None:
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


# ------------------------------------------------------------------------------------------- pure builders
def test_keyword_matrix_prefers_measured_and_falls_back_to_reported() -> None:
    t = build_tables(2)
    m = figures.keyword_matrix(t["reports"], t["counts"], t["reported"], ["agentic"], "study", "all", "measured")
    assert set(m["figures"]) == {"measured"}
    r = figures.keyword_matrix(t["reports"], t["counts"], t["reported"], ["agentic"], "study", "all", "reported")
    assert r.set_index("report_id").loc["r0000", "figures"] == "reported"
    only_reported = figures.keyword_matrix(t["reports"], t["counts"].iloc[0:0], t["reported"], ["agentic"], "study")
    assert only_reported["report_id"].tolist() == ["r0000"]
    body_app = figures.keyword_matrix(t["reports"], t["counts"], t["reported"], ["agentic"], "study", "body+appendix")
    c = t["counts"]
    want = c[(c.report_id == "r0001") & (c.term == "agentic") & c.section.isin(["body", "appendix"])]["count"].sum()
    assert body_app.set_index("report_id").loc["r0001", "count"] == want


def test_heatmap_cells_carry_report_ids() -> None:
    t = build_tables(3)
    m = figures.keyword_matrix(t["reports"], t["counts"], t["reported"], ["agentic", "tool"], "study")
    fig = figures.heatmap(m, ["agentic", "tool"], "density")
    assert list(fig.data[0].y) == ["Model 0000", "Model 0001", "Model 0002"]
    assert fig.data[0].customdata[1][0] == "r0001"
    assert figures.heatmap(m.iloc[0:0], ["agentic"]).layout.title.text.startswith("no keyword")


@pytest.mark.parametrize(
    ("event", "want"),
    [
        (
            {"selection": {"points": [{"x": "tool", "customdata": ["tool", "references"]}]}},
            {"term": "tool", "section": "references"},
        ),
        ({"selection": {"points": [{"x": 9000, "customdata": ["r1", "tool"]}]}}, {"report": "r1", "term": "tool"}),
        ({"selection": {"points": [{"x": "agent", "y": "M", "customdata": "r2"}]}}, {"report": "r2", "term": "agent"}),
        ({"selection": {"points": []}}, None),
        (None, None),
    ],
)
def test_click_target_maps_chart_clicks_to_evidence(event: object, want: dict | None) -> None:
    assert figures.click_target(event) == want


def test_filter_rows_combines_filters_with_and_values_with_or() -> None:
    t = build_tables(8)
    wide = compare.wide_table(t["reports"], t["comparison"], list(figures.SCOPES) and list(compare.TABLE_DIMS))
    both = compare.filter_rows(wide, {"org": ["Lab A", "Lab B"]})
    assert set(both["organization"]) == {"Lab A", "Lab B"}
    narrowed = compare.filter_rows(wide, {"org": ["Lab A", "Lab B"], "doc": ["arxiv"]})
    assert set(narrowed["organization"]) == {"Lab A"}
    assert compare.options(wide, "algorithm") == sorted(set(t["comparison"].query("dimension == 'rl_algorithm'")["value"]))


def test_kwic_rows_filters_by_section() -> None:
    t = build_tables(2)
    assert evidence.kwic_rows(t["kwic"], "*", "agent", "references").empty
    assert not evidence.kwic_rows(t["kwic"], "*", "agent", "body").empty
    assert isinstance(evidence.kwic_rows(pd.DataFrame(), "*", "", ""), pd.DataFrame)


def test_app_reloads_tables_when_store_files_change(store_env: Path) -> None:
    at = run_app()
    assert len(at.dataframe[0].value) == N
    write_store(store_env, 3)  # a new ingest run rewrites the parquet files
    at.run()
    assert len(at.dataframe[0].value) == 3


def test_section_bars_say_when_nothing_is_measured() -> None:
    fig = figures.section_bars(pd.DataFrame(), ["r1"], ["agentic"], "study")
    assert fig.layout.title.text.startswith("No measured hits")
    t = build_tables(2)
    assert figures.section_bars(t["counts"], ["r0000"], ["agentic"], "study").layout.title.text.startswith("Measured")
