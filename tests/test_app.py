"""Dashboard: every page and filter through streamlit's AppTest, plus the pure figure builders.

AppTest has no plotly element, so charts are checked twice: the builders' figures directly,
and the JSON spec the page actually sent (an UnknownElement's `proto.spec`).
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.store.store import Store
from tests.app_fixtures import QUOTE, copy_built, copy_store, html_tables
from views import compare, htmlchart, matrix

APP = str(Path(__file__).resolve().parents[1] / "app.py")
REPO = Path(__file__).resolve().parents[1]
N = 6
LENS = load_lens()
LABELS = {d.id: d.label for d in LENS.dimensions}
#: Dimension ids used below, taken from the lens by kind (no id is spelled out in a test either).
ALGO = next(d.id for d in LENS.dimensions if d.kind == "algorithm")
LEVEL = LENS.level_id
MULTI = next(d.id for d in LENS.dimensions if d.kind == "multi")


@pytest.fixture(scope="module")
def built(pipeline_store) -> Path:
    """A store of N reports made by the real pipeline from generated PDFs and Markdown (see app_fixtures);
    built once per session and shared (read-only: tests that write use `private_env`)."""
    return pipeline_store(N)[0]


@pytest.fixture
def store_env(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app reads the built store via FRL_DATA_DIR (reports dir for Add report: an empty tmp folder)."""
    monkeypatch.setenv("FRL_DATA_DIR", str(built))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(tmp_path / "reports"))
    monkeypatch.delenv("FRL_LENS", raising=False)
    return built


@pytest.fixture
def private_env(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the built store, for tests that ingest into it (Add report)."""
    root = copy_store(built, tmp_path / "data")
    monkeypatch.setenv("FRL_DATA_DIR", str(root))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(tmp_path / "reports"))
    return root


def run_app(page: str | None = None, **params: str) -> AppTest:
    """Run the app; on the default page `params` arrive as the URL's query string, on other pages as
    widget state (AppTest drops the query string on a page switch; the browser tests cover that path)."""
    at = AppTest.from_file(APP, default_timeout=90)
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


def qp(at: AppTest) -> dict[str, list[str]]:
    """The app's query parameters, every value as a list."""
    return {k: v if isinstance(v, list) else [v] for k, v in dict(at.query_params).items()}


def html_of(at: AppTest) -> str:
    """Every HTML block of the page, joined (st.html: the quote tables and the charts)."""
    return "\n".join(el.proto.body for el in at.get("html"))


def matrix_data(at: AppTest) -> dict:
    """What Compare's matrix component got (views.matrix): its model parsed, the view, the hover texts."""
    for el in at.get("bidi_component"):
        d = json.loads(el.proto.json) if el.proto.json else {}
        if isinstance(d.get("model"), str) and el.proto.id.endswith(matrix.KEY):
            d["model"] = json.loads(d["model"])
            return d
    raise AssertionError("no matrix on the page")


def shown_rows(at: AppTest) -> list[list]:
    """The rows the matrix shows on its page, as its JavaScript picks them: a row is kept when, in
    every facet with chosen values, it holds one of them (the browser test checks the two agree)."""
    d = matrix_data(at)
    m, view = d["model"], d["view"]
    want = [{f["values"].index(v) for k, v in view["filters"] if k == f["key"] and v in f["values"]} for f in m["facets"]]
    rows = [r for r in m["rows"] if all(not w or w & set(r[4][i]) for i, w in enumerate(want))]
    per = m["page_rows"]
    return rows[(view["page"] - 1) * per : view["page"] * per]


def matrix_rows(at: AppTest) -> list[str]:
    """Model names shown in the Compare matrix, in order."""
    return [r[1] for r in shown_rows(at)]


def columns_of(at: AppTest) -> list[str]:
    """The matrix's column labels."""
    return [c["label"] for c in matrix_data(at)["model"]["columns"]]


def pick(at: AppTest, pairs: list[tuple[str, str]], page: int = 1) -> AppTest:
    """Choose filter values in the matrix as the browser does: its component state, sent with a rerun."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    el = next(e for e in at.get("bidi_component") if e.proto.id.endswith(matrix.KEY))
    seq = matrix_data(at)["view"]["seq"] + 1
    view = {"view": {"filters": [list(p) for p in pairs], "page": page, "seq": seq}}
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=el.proto.id, json_value=json.dumps(view)))
    at._tree._runner._run(states)
    return at


# ------------------------------------------------------------------------------------------- Compare
def test_compare_shows_every_report_with_lens_columns_and_marks(store_env: Path) -> None:
    at = run_app()
    assert at.title[0].value == f"Compare: {LENS.label}"
    rows = matrix_rows(at)
    assert len(rows) == N
    assert rows == sorted(rows, key=str.casefold)  # case-insensitive: "alpha model" first
    assert columns_of(at) == [LABELS[d] for d in LENS.summary_ids]
    marks = {c[1] for r in shown_rows(at) for c in r[5]}
    assert compare.CURATED_MARK + compare.DISAGREE_MARK in marks  # r00's curated algorithm, disagreed with
    # automatic cells, confident or not (the committed model's threshold decides which)
    assert marks & {compare.AUTO_MARK, compare.AUTO_MARK + compare.UNSURE_MARK}
    assert "r02" in [r[0] for r in shown_rows(at)]
    assert sum(r[3] for r in shown_rows(at)) and "disagrees" in matrix_data(at)["model"]["texts"]["warn"]


def test_compare_hover_texts_come_with_the_shown_page(store_env: Path) -> None:
    """The full wording and quote of each shown cell travel with the run (too long to ship for every report)."""
    at = run_app()
    d = matrix_data(at)
    assert set(d["titles"]) == {r[0] for r in shown_rows(at)}
    assert any("the study's wording: PPO (as the study words it)" in t for ts in d["titles"].values() for t in ts)


def test_compare_column_chooser_is_bound_to_the_url(store_env: Path) -> None:
    extra = next(d.id for d in LENS.dimensions if d.id not in LENS.summary_ids)
    at = run_app(cols=extra)
    assert columns_of(at) == [LABELS[extra]]
    assert qp(at)["cols"] == [extra]


@pytest.mark.parametrize(("key", "value"), [("org", "Lab B"), ("doc", "blog"), (ALGO, "DAPO"), (MULTI, "rule-based/verifiable")])
def test_compare_filter_narrows_rows_and_reads_url(store_env: Path, key: str, value: str) -> None:
    at = pick(run_app(), [(key, value)])
    rows = matrix_rows(at)
    assert 0 < len(rows) < N
    assert qp(at)[key] == [value]  # each facet keeps its own URL parameter
    shared = run_app(**{key: value})  # the same view from a shared URL
    assert matrix_data(shared)["view"]["filters"] == [[key, value]]
    assert matrix_rows(shared) == rows


def test_compare_search_matches_wording_and_quotes(store_env: Path) -> None:
    at = run_app()
    at.text_input(key="q").set_value("as the study words it").run()
    assert matrix_rows(at) == ["Model 00"]
    assert matrix_data(at)["searched"] and matrix_data(at)["total"] == N
    at.text_input(key="q").set_value("no such words").run()
    assert matrix_rows(at) == []


def test_compare_exports_are_offered(store_env: Path) -> None:
    at = run_app()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Summary (Markdown)", "Summary with quotes (Markdown)", "Statistics (Markdown)", "Tiers (Markdown)",
                      "Comparison (CSV)"]  # fmt: skip


def test_compare_sends_only_its_own_class_names(store_env: Path) -> None:
    """The matrix is built in the browser with DOM calls from this data: text stays text (the browser
    test shows it), and a chip's class is one of the short names views.compare makes."""
    model = matrix_data(run_app())["model"]
    classes = {cls for c in model["columns"] for cls, _ in c["chips"]}
    assert all(re.fullmatch(r"[a-z0-9 ]*", c) for c in classes) and "na" in classes


def test_compare_keeps_hostile_text_as_plain_strings() -> None:
    reports = pd.DataFrame([{"report_id": "x", "model": "<script>x</script>", "organization": "L", "doc_type": "blog",
                             "params": None, "notes": None}])  # fmt: skip
    cmp_ = pd.DataFrame([{"report_id": "x", "dimension": MULTI, "value": "<b>v</b>", "origin": "auto",
                          "quote": "a \"quote\" <i>", "disagree": False}])  # fmt: skip
    wide = compare.wide_table(reports, cmp_, [MULTI])
    cols = compare.columns(LENS, [MULTI], wide)
    facets = [matrix.Facet("org", "Organization", (("L", "L"),))]
    row = json.loads(matrix.encode_rows(compare.matrix_frame(wide, cols, facets), cols, facets)[0])
    assert row[1] == "<script>x</script>"  # a string for textContent, not markup
    assert ("<b>v</b>", "", "<b>v</b>") in cols[0].chips  # an unknown value keeps its own name, uncoloured


def test_empty_store_explains_how_to_fill_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "nothing"))
    for page in (None, "keywords", "evidence", "report"):
        at = run_app(page)
        assert any("No results in nothing yet" in t for t in texts(at))


def test_second_lens_shows_its_own_columns_everywhere(pipeline_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lens_path = REPO / "data" / "lenses" / "helpfulness_reward.yaml"
    other = load_lens(lens_path)
    data, _ = copy_built(pipeline_store(3, lens_path), tmp_path)
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    at = run_app()
    assert at.title[0].value == f"Compare: {other.label}"
    assert columns_of(at) == [other.dimension(dim).label for dim in other.summary_ids]
    assert not set(columns_of(at)) & set(LABELS.values())
    assert not any(r[3] for r in shown_rows(at))  # no disagreement to warn of
    at = run_app("report", report="r00")
    assert other.dimension(other.summary_ids[0]).label in html_of(at)
    at = run_app("evidence")
    assert [o for o in at.selectbox(key="dim").options if o != "—"] == [d.label for d in other.dimensions]
    at = run_app("review")  # the Review page reads the active lens too (it once loaded the default one)
    shown = html_of(at)  # each cell is one HTML block whose label is <strong>, escaped (views/review.cell_html)
    assert all(f"<strong>{html.escape(d.label)}</strong>" in shown for d in other.dimensions)
    own = {d.label for d in other.dimensions}
    assert not any(f"<strong>{html.escape(lab)}</strong>" in shown for lab in LABELS.values() if lab not in own)
    from ingest.outputs import export

    summary = export.TABLES["summary"](Store(data))
    assert list(summary.columns)[2:-1] == [other.dimension(d).label for d in other.summary_ids]
    assert (summary.iloc[:, 2:-1] != "not assessed").any().any()
    tiers = export.TABLES["tiers"](Store(data))
    assert other.dimension(other.level_id).label in tiers.columns


# ------------------------------------------------------------------------------------------- URL ids
def test_url_parameters_carry_ids_not_labels(store_env: Path) -> None:
    at = run_app("report", report="r03")
    assert at.header[0].value == "Model 03"
    assert qp(at)["report"] == ["r03"]
    at = run_app("evidence", report="r00", dim=ALGO, term="agent", section="body")
    assert qp(at) == {"report": ["r00"], "dim": [ALGO], "term": ["agent"], "section": ["body"]}
    at = run_app("keywords", scope="body")
    assert qp(at)["scope"] == ["body"]


def test_hand_written_report_url_is_honoured(store_env: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["report"] = "r04"
    at.switch_page("views/report.py").run()
    at.query_params["report"] = "r04"
    at.run()
    assert at.header[0].value == "Model 04"


def test_report_pickers_search_when_there_are_many_reports(store_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past nav.PICKER_LIMIT reports a search box narrows the pickers (10,000 options take seconds to draw);
    the default (first) report and the current one stay offered, so the URL keeps meaning the same."""
    monkeypatch.setenv("FRL_PICKER_LIMIT", "2")
    at = run_app("report", report="r04", report_find_pop=True)  # its popover (above the picker) opened
    assert at.header[0].value == "Model 04"
    box = at.selectbox(key="report")
    assert box.options == ["alpha model", "Model 04", "Model 00", "Model 02"]  # first, current, then 2 matches
    at.text_input(key="report_find").set_value("model 03").run()
    assert at.selectbox(key="report").options == ["alpha model", "Model 04", "Model 03"]
    at.selectbox(key="report").set_value("r03").run()
    assert at.header[0].value == "Model 03" and qp(at)["report"] == ["r03"]
    ev = run_app("evidence", report="r02", dim=ALGO, report_find_pop=True)
    assert ev.selectbox(key="report").options[:2] == ["all reports", "Model 02"]
    assert ev.text_input(key="report_find").label.startswith("Search 6 reports")
    closed = run_app("evidence", report="r02", dim=ALGO)  # closed, the popover draws no box (and keeps no text)
    assert not [t for t in closed.text_input if t.key == "report_find"]


# ------------------------------------------------------------------------------------------- Keywords
def test_keywords_heatmap_follows_metric_scope_and_group(store_env: Path) -> None:
    at = run_app("keywords", interactive=True)  # type: ignore[arg-type]
    heat = specs(at)[0]
    assert heat["layout"]["title"]["text"].startswith("Density")
    terms = heat["data"][0]["x"]
    assert "credit assignment" in terms
    at.radio(key="metric").set_value("count").run()
    heat = specs(at)[0]
    assert heat["layout"]["title"]["text"].startswith("Count")
    cells = heat["data"][1]
    assert cells["customdata"][0] == [f"evidence?report=r01&term={terms[0]}"]  # "alpha model" sorts first, case-insensitively
    at.radio(key="scope").set_value("references").run()
    heat = specs(at)[0]
    col = terms.index("credit assignment")
    assert {row[col] for row in heat["data"][0]["text"]} == {"1"}  # every report cites it once, in references
    assert max(row[col] for row in heat["data"][0]["z"]) == 1.0  # per-column scale: the small column is visible
    at.selectbox(key="group").set_value("rl_algorithms").run()
    assert not at.exception


def test_section_bars_obey_the_scope_and_carry_click_targets(store_env: Path) -> None:
    at = run_app("keywords", scope="body", interactive=True)  # type: ignore[arg-type]
    bars = next(s for s in specs(at) if s["data"][0]["type"] == "bar")
    assert [t["name"] for t in bars["data"]] == ["body"]
    assert bars["data"][0]["customdata"][0] == ["evidence?term=agentic&section=body"]
    at = run_app("keywords", interactive=True)  # type: ignore[arg-type]
    bars = next(s for s in specs(at) if s["data"][0]["type"] == "bar")
    assert [t["name"] for t in bars["data"]] == ["body", "appendix", "references"]


def test_scatter_points_are_labelled_and_coloured_by_kind(store_env: Path) -> None:
    at = run_app("keywords", figures="reported", interactive=True)  # type: ignore[arg-type]
    scatter = specs(at)[-1]
    names = [t["name"] for t in scatter["data"]]
    assert set(names) == {"measured", "reported"}
    colours = {t["name"]: t["marker"]["color"] for t in scatter["data"]}
    assert colours["measured"] != colours["reported"]
    assert all("text" in t["mode"] for t in scatter["data"])
    at.selectbox(key="scatter").set_value("tool").run()
    assert "tool" in specs(at)[-1]["layout"]["title"]["text"]


def test_nothing_measured_is_said_in_a_sentence(store_env: Path) -> None:
    at = run_app("keywords", group="rl_algorithms", scope="references", interactive=True)  # type: ignore[arg-type]
    assert any("no split by section" in i.value or "nothing" in i.value for i in at.info)
    assert all(s["data"] for s in specs(at))  # no empty axes
    at = run_app("keywords", group="rl_algorithms", scope="references")
    assert any("no split by section" in i.value or "nothing" in i.value for i in at.info)
    charts = html_of(at).split('data-chart="')[1:]
    assert all('class="m' in c for c in charts if 'class="p"' in c)  # the plain charts draw no empty axes either


def test_keywords_shows_measured_beside_reported_with_differences(store_env: Path) -> None:
    at = run_app("keywords")
    block = next(el.proto.body for el in at.get("html") if "frl-q" in el.proto.body and "differs" in el.proto.body)
    sbs = html_tables(block)[0]
    assert set(sbs["model"]) == {"Model 00"}
    assert (sbs["differs"] == "⚠").tolist() == (sbs["measured"] != sbs["reported"]).tolist()


# Plain (HTML) charts: what the page draws by default, without plotly (first render in well under 2 s).
def _cells(page: str, chart: str) -> list[tuple[str, str, str]]:
    """(href, title, text) of every linked mark of one plain chart."""
    block = page.split(f'data-chart="{chart}"', 1)[1].split('data-chart="', 1)[0]
    return re.findall(r'<a[^>]* href="([^"]*)"[^>]* title="([^"]*)"[^>]*>([^<]*)</a>', block)


def test_plain_heatmap_follows_metric_scope_and_links_cells_to_evidence(store_env: Path) -> None:
    at = run_app("keywords")
    page = html_of(at)
    assert "Density per 1,000 words by report and term" in page and not at.get("plotly_chart")
    cells = _cells(page, "kw_heatmap")
    assert cells[0][0] == "evidence?report=r01&amp;term=agentic"  # "alpha model" sorts first, case-insensitively
    at.radio(key="metric").set_value("count").run()
    assert "Count by report and term" in html_of(at)
    at.radio(key="scope").set_value("references").run()
    credit = [c for c in _cells(html_of(at), "kw_heatmap") if "term=credit+assignment" in c[0]]
    assert credit and {c[2] for c in credit} == {"1"}  # every report cites it once, in references
    full = re.findall(r'<td class="(h\d+)"><a[^>]*>1</a>', html_of(at))
    assert full and set(full) == {f"h{htmlchart.STEPS}"}  # per-column scale: the small column is full colour
    assert f"td.h{htmlchart.STEPS}{{background:#08306b" in html_of(at)


def test_plain_section_bars_obey_the_scope_and_link_to_evidence(store_env: Path) -> None:
    at = run_app("keywords", scope="body")
    bars = _cells(html_of(at), "kw_bars")
    assert bars and all(h.endswith("&amp;section=body") for h, _, _ in bars)
    assert bars[0][0] == "evidence?term=agentic&amp;section=body"
    at = run_app("keywords")
    sections = {h.rsplit("=", 1)[1] for h, _, _ in _cells(html_of(at), "kw_bars")}
    assert {"body", "references"} <= sections <= {"body", "appendix", "references"}  # the fixture has no appendix hits


def test_plain_scatter_labels_points_and_tells_kinds_apart(store_env: Path) -> None:
    at = run_app("keywords", figures="reported")
    block = html_of(at).split('data-chart="kw_scatter"', 1)[1]
    marks = re.findall(r'class="(m(?: d)?)"[^>]*style="[^"]*background:(#[0-9a-f]{6})', block)
    kinds = {cls: colour for cls, colour in marks}
    assert set(kinds) == {"m", "m d"} and kinds["m"] != kinds["m d"]  # measured circles, reported diamonds
    assert 'class="n"' in block  # names written beside the points
    assert all(h.startswith("evidence?report=") and "term=agentic" in h for h, _, _ in _cells(html_of(at), "kw_scatter"))


# ------------------------------------------------------------------------------------------- Evidence / Report
def test_evidence_lists_kwic_lines_for_term_from_url(store_env: Path) -> None:
    at = run_app("evidence")
    assert "Pick a dimension" in at.info[0].value
    at = run_app("evidence", term="agent", report="r01")
    page = html_of(at)
    assert "<th>Report</th>" in page and "<th>Line</th>" in page and "report_id" not in page
    assert "see the page" in page


def test_evidence_lists_cells_and_sentences_for_dimension_in_readers_words(store_env: Path) -> None:
    at = run_app("evidence", dim=ALGO, report="r00")
    page = html_of(at)
    for bad in ("page_label", "report_id", ">None<", "<th>score</th>"):
        assert bad not in page
    assert "<th>Quote</th>" in page and "<th>Origin</th>" in page
    assert "curated" in page and "PPO (as the study words it)" in page
    assert QUOTE in page  # the automatic evidence sentence, whole


def test_report_page_shows_card_parts(store_env: Path) -> None:
    at = run_app("report", report="r02")
    assert at.header[0].value == "Model 02"
    page = html_of(at)  # each section's title sits in its HTML block (views.htmltable.subheading)
    titles = re.findall(r"<h3>(.*?)</h3>", page)
    assert titles == ["Figures", "Comparison table row", "Sections", "Distinctive terms (TF-IDF against the other reports)"]
    assert not at.subheader and page.count("<style>") == 1  # the tables' style sheet once, outside the fragment
    frames = html_tables(page)
    assert any("TF-IDF" in f.columns for f in frames)
    assert any({"body", "references"} <= set(f.get("Section", [])) for f in frames)
    figures = [f for f in frames if f.attrs["caption"].endswith("(whole document)")]
    assert figures and all("Words" in f.columns for f in figures)
    assert "page_label" not in html_of(at)
    assert [b.proto.label for b in at.get("download_button")] == ["Report card (Markdown)"]


def test_report_and_review_pages_draw_no_dataframe_grid(store_env: Path) -> None:
    """Their tables are plain HTML: st.dataframe loads the canvas data grid (most of a second per page)."""
    for page, params in (("report", {"report": "r02"}), ("review", {"rid": "r00"}), ("evidence", {"dim": ALGO, "report": "r00"})):
        at = run_app(page, **params)
        assert not at.dataframe, page
        assert html_tables(html_of(at)), page


def test_see_the_page_renders_only_the_reports_own_source(store_env: Path, tmp_path: Path) -> None:
    from ingest.outputs import pageimage
    from ingest.run.isolate import isolate

    store = Store(store_env)
    row = store.read_table("reports").set_index("report_id").loc["r00"].to_dict()
    pdf = pageimage.source_file(store, row)
    assert pdf is not None and pdf.name == "r00.pdf"
    img = pageimage.render_pdf_page(pdf, row["sha256"], 1, QUOTE, isolate=isolate)
    assert img.boxes >= 1 and len(img.png) > 5_000
    miss1 = pageimage.render_pdf_page(pdf, row["sha256"], 1, "words not on the page", isolate=isolate)
    miss2 = pageimage.render_pdf_page(pdf, row["sha256"], 1, "other words not there", isolate=isolate)
    assert miss1.boxes == 0 and miss1.png == miss2.png  # a URL's made-up quotes share one unmarked image
    with pytest.raises(ValueError):
        pageimage.render_pdf_page(pdf, row["sha256"], 99, QUOTE, isolate=isolate)
    tampered = dict(row, source_path="../../../../etc/passwd")
    assert pageimage.source_file(store, tampered) is None  # only a file with the stored hash is ever opened
    at = run_app("source")
    assert "Open this page from a quote" in at.info[0].value
    md = store.read_table("reports").set_index("report_id").loc["r01"].to_dict()
    heading, text = pageimage.block_text(store, md, 1)
    assert heading == "Training" and "reinforcement learning" in text


def _popover_labels(at: AppTest) -> list[str]:
    """The labels of every popover on the page (AppTest has no accessor for them)."""
    out: list[str] = []

    def walk(node: object) -> None:
        from streamlit.proto.Block_pb2 import Block

        proto = getattr(node, "proto", None)
        if isinstance(proto, Block) and proto.WhichOneof("type") == "popover":
            out.append(proto.popover.label)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def test_compare_filter_box_offers_every_facet_and_says_what_is_set(store_env: Path) -> None:
    at = run_app()
    # the filter is the matrix's own (views.matrix); the exports sit in a popover below it
    assert _popover_labels(at) == ["Search", "Columns", "Export the shown reports"]
    facets = {f["label"]: f for f in matrix_data(at)["model"]["facets"]}
    assert {"Organization", "Doc type"} <= set(facets)
    for dim in LENS.summary_ids:  # every summary dimension's categories, under the dimension's label
        assert facets[LABELS[dim]]["values"], dim
    pick(at, [("org", "Lab B"), ("org", "Lab A"), ("doc", "arxiv")])
    at.text_input(key="q").set_value("model").run()
    assert qp(at)["org"] == ["Lab B", "Lab A"] and qp(at)["doc"] == ["arxiv"]
    filters = [["org", "Lab B"], ["org", "Lab A"], ["doc", "arxiv"]]
    assert matrix_data(at)["view"]["filters"] == filters  # kept, in the order picked, over a search
    assert _popover_labels(at) == ["Search: model", "Columns", "Export the shown reports"]
    pick(at, [("doc", "arxiv")])
    assert "org" not in qp(at)  # a facet emptied leaves the URL
    shared = run_app(org="Lab B", doc="no such type")  # a shared URL's unknown value is dropped, not an error
    assert matrix_data(shared)["view"]["filters"] == [["org", "Lab B"]]
    shared = run_app(org="Lab B", q="*grpo* [x](y)")
    assert _popover_labels(shared)[0] == "Search: \\*grpo\\* \\[x\\]\\(y\\)"  # typed text escaped


def test_compare_echoes_the_browsers_change_count_and_restarts_paging_on_a_search(store_env: Path) -> None:
    """The run echoes the browser's change count (so a late answer cannot undo a newer click), and a
    search sends the first page."""
    at = pick(run_app(), [("doc", "arxiv")], page=2)
    assert matrix_data(at)["view"] == {"filters": [["doc", "arxiv"]], "page": 1, "seq": 1}  # one page only: clamped
    at.text_input(key="q").set_value("model").run()
    assert matrix_data(at)["view"]["page"] == 1 and matrix_data(at)["view"]["seq"] == 1


def test_compare_reads_a_forged_browser_state_within_bounds(store_env: Path) -> None:
    """The matrix's state comes from the browser, so it is untrusted: odd shapes, types and sizes are
    dropped, not errors, and only values the store has are kept."""
    forged = [["org", "Lab B"], ["org", 7], ["org"], ["doc", "x" * 5_000], "junk", *[["org", f"Lab {i}"] for i in range(5_000)]]
    at = pick(run_app(), forged, page=10**9)  # type: ignore[arg-type]
    assert not at.exception
    view = matrix_data(at)["view"]
    assert view["filters"] == [["org", "Lab B"]] and view["page"] == 1


def test_no_stage_value_has_its_own_chip_and_legend_distinct_from_not_disclosed() -> None:
    ns = LENS.no_stage
    assert ns is not None
    dim = ns.dimensions[-1]
    wide = pd.DataFrame({f"_{dim}": [[ns.value], ["not disclosed"]]})
    (col,) = compare.columns(LENS, [dim], wide)
    cls = {v: c for v, c, _ in col.chips}
    assert cls[ns.value] == "nostage" and cls["not disclosed"] == "none"
    assert ns.value in LENS.allowed_values(dim)  # Review offers it, curation accepts it
    assert ns.value in compare.legend(LENS) and "not the same as" in compare.legend(LENS)


def test_a_method_named_by_reference_shows_as_derived_in_its_methods_colour() -> None:
    """A cell "as in K1.5 → GRPO" (resolved from the store, ingest/outputs/tables.py) keeps its own label, so the
    reader sees it was derived, and GRPO's colour, so it groups with GRPO."""
    dim = next(d for d in LENS.dimensions if d.kind == "algorithm")
    wide = pd.DataFrame({f"_{dim.id}": [["as in K1.5 → GRPO"], ["GRPO"], ["as in K9"]]})
    (col,) = compare.columns(LENS, [dim.id], wide)
    chips = {v: (c, label) for v, c, label in col.chips}
    assert chips["as in K1.5 → GRPO"] == (chips["GRPO"][0], "as in K1.5 → GRPO") and chips["GRPO"][0]
    assert chips["as in K9"][0] == ""
