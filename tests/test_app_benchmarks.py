"""Benchmarks page: every control through AppTest, on a store the real pipeline built from a
generated PDF with a result table, a Markdown post with a pipe table, a curated-only report and a
report with nothing; plus the pure functions of ingest/outputs/scores.py and the figure builders.

AppTest cannot see inside a plotly chart, so charts are checked through the JSON spec the page sent.
The page file is also run on its own (`AppTest.from_file("views/benchmarks.py")`) so its URL
parameters arrive as a real query string.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.lens import NOT_ASSESSED, load_lens
from ingest.outputs import scores
from tests.app_fixtures import html_tables as fixture_tables
from tests.test_app import _decode
from views import benchmark_charts as bc
from views import chart_export, chart_plotly
from views.benchmarks import claims_categories

REPO = Path(__file__).resolve().parents[1]
APP = str(REPO / "app.py")
PAGE = str(REPO / "views" / "benchmarks.py")


@pytest.fixture(scope="module")
def built(bench_store: tuple[Path, Path]) -> tuple[Path, Path]:
    """(data dir, reports dir) built once per session by the real pipeline (tests/conftest.py; read-only)."""
    return bench_store


@pytest.fixture
def env(built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data, reports = built
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    yield data


def page(plain: bool = False, **params: str) -> AppTest:
    """The page run on its own, with `params` as the URL's query string (as a shared link).

    Interactive (plotly) charts unless `plain`: AppTest reads their JSON spec; the plain (HTML)
    charts, the page's default, are checked through their markup."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update(params if plain else {"interactive": "true", **params})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def specs(at: AppTest) -> dict[str, dict]:
    """The plotly figures the page sent (arrays decoded), by chart title."""
    out = {}
    for el in at.get("plotly_chart"):
        spec = _decode(json.loads(el.proto.spec))
        title = spec["layout"].get("title", {})
        out[title.get("text", "") if isinstance(title, dict) else str(title)] = spec
    return out


def chart(at: AppTest, prefix: str) -> dict:
    hits = [s for t, s in specs(at).items() if t.startswith(prefix)]
    assert hits, list(specs(at))
    return hits[0]


def html_tables(at: AppTest, marker: str = "") -> list[pd.DataFrame]:
    """The quote-style HTML tables of the page (inside the block marked `marker`, if given), as frames of text."""
    bodies = [el.proto.body for el in at.get("html") if "frl-q" in el.proto.body and (not marker or marker in el.proto.body)]
    return [t for b in bodies for t in fixture_tables(b)]


def table(at: AppTest) -> pd.DataFrame:
    """The rebuilt result table (the HTML table marked `bench_table`)."""
    frames = html_tables(at, 'data-table="bench_table"')
    assert frames
    return frames[0]


# ------------------------------------------------------------------------------------- the page
def test_benchmarks_page_is_in_the_navigation_and_says_where_scores_come_from(env: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("views/benchmarks.py").run()
    assert not at.exception
    assert at.title[0].value == "Benchmarks"
    sentence = next(t.value for t in at.text if "Scores read" in t.value)
    assert "Scores read from the reports' result tables (2): Lens-7B, Post-9B." in sentence
    assert "Curated scores only (1): Curio." in sentence
    assert "No benchmark results (1): Bare_Model_." in sentence  # plain text: underscores survive
    assert [s.value for s in at.subheader] == [
        "Coverage", "Scores on one benchmark", "Result table", "Claims across reports", "Claims vs disclosure"]  # fmt: skip


def test_coverage_matrix_counts_benchmarks_per_catalogue_category(env: Path) -> None:
    at = page()
    heat = chart(at, "Benchmarks per category")["data"][0]
    cats = load_catalogue().categories
    assert heat["x"] == [cats["knowledge"], cats["software-engineering"], cats["agentic"]]  # catalogue order, used only
    rows = dict(zip(heat["y"], heat["text"], strict=True))
    assert rows["Lens-7B"] == ["1", "1", "2"]  # MMLU; SWE-bench Verified; BFCL + curated Terminal-Bench
    assert rows["Post-9B"] == ["1", "1", "1"]
    assert rows["Curio"] == ["", "1", ""]  # no benchmark in a category: an empty cell, as the plain table
    assert "Bare_Model_" not in rows  # no results: not a row (named in the provenance sentence)


def test_benchmark_picker_shows_own_scores_with_table_and_page_and_reads_url(env: Path) -> None:
    at = page()
    assert at.selectbox(key="benchmark").value == "swe-bench-verified"  # most reports first
    bars = chart(at, "SWE-bench Verified")
    labels = [y for t in bars["data"] for y in t["y"]]
    assert {"Post-9B · Post-9B (thinking)", "Post-9B · Post-9B (non-thinking)", "Lens-7B · Lens-7B",
            "Lens-7B · Lens-7B-RL", "Curio · Curio"} == set(labels)  # fmt: skip
    assert "Alpha-8B" not in " ".join(labels) and "Rival" not in " ".join(labels)  # only own models
    auto = next(t for t in bars["data"] if t["name"] == "auto")
    hover = dict(zip(auto["y"], auto["hovertext"], strict=True))
    assert "Table 1, page 1" in hover["Lens-7B · Lens-7B-RL"]
    assert "Comparison of Lens-7B" in hover["Lens-7B · Lens-7B-RL"]
    clicks = {
        y: chart_plotly.clicked({"selection": {"points": [{"customdata": c}]}})
        for y, c in zip(auto["y"], auto["customdata"], strict=True)
    }
    picked = clicks["Lens-7B · Lens-7B-RL"][1]
    assert (picked["report"], picked["table"]) == ("lens-7b", "Table 1, page 1")
    at.selectbox(key="benchmark").set_value("bfcl").run()
    bars = chart(at, "BFCL")
    assert [y for t in bars["data"] for y in t["y"]] == ["Lens-7B · Lens-7B-RL (Acc.)", "Lens-7B · Lens-7B (Acc.)"]
    assert "⚑ percentage above 100" in bars["data"][0]["hovertext"][0]
    shared = page(benchmark="tau-bench")  # the view from a shared link
    assert shared.selectbox(key="benchmark").value == "tau-bench"
    assert [y for t in chart(shared, "TAU-bench")["data"] for y in t["y"]] == [
        "Post-9B · Post-9B (thinking)", "Post-9B · Post-9B (non-thinking)"]  # fmt: skip


#: The labels of a chart's figure-export buttons (views.chart_export.controls).
FIGURE_FORMATS = ("SVG", "PNG", "HTML")
#: Those shown on this machine: SVG and PNG only where kaleido can draw them.
SHOWN_FORMATS = ("HTML",) if chart_export.static_problem() else FIGURE_FORMATS


def test_scores_expander_lists_provenance_and_offers_csv(env: Path) -> None:
    at = page(benchmark="terminal-bench")
    assert not any("report_id" in d.columns for d in html_tables(at))  # in a popover drawn once opened
    at.session_state["bench_scores_pop"] = True
    at.run()
    prov = next(d for d in html_tables(at) if "report_id" in d.columns)
    assert prov[["report_id", "model", "value", "table", "origin"]].values.tolist() == [
        ["lens-7b", "Lens-7B-RL", "33.0", "Figure 2", "curated"]]  # fmt: skip
    assert not {b.proto.label for b in at.get("download_button")} & set(FIGURE_FORMATS)  # closed: drawn when opened
    for chart in ("bench_coverage", "bench_bars", "bench_claims", "bench_density"):
        at.session_state[f"fig_{chart}"] = True  # open every figure-export popover (views.chart_export.controls)
    at.run()
    buttons = at.get("download_button")
    labels = [b.proto.label for b in buttons if b.proto.label not in FIGURE_FORMATS]
    figs = {(b.proto.help, b.proto.label) for b in buttons if b.proto.label in FIGURE_FORMATS}
    assert {(c, f) for c in ("Coverage", "Scores", "Claims", "Coverage vs density") for f in SHOWN_FORMATS} == figs
    assert labels == ["Coverage (CSV)", "Shown scores (CSV)", "All results, long (CSV)", "All results, wide (CSV)",
                      "All results, wide (Markdown)", "Leaderboard, all benchmarks (CSV)"]  # fmt: skip


def test_table_picker_rebuilds_the_table_with_own_curated_and_flag_marks(env: Path) -> None:
    at = page(report="lens-7b")
    assert at.selectbox(key="table").options == ["Table 1, page 1", "Figure 2"]
    t = table(at).set_index("model")
    assert list(t.columns) == ["MMLU (EM)", "SWE-bench Verified", "BFCL v3 (Acc.)"]
    assert list(t.index) == ["Alpha-8B", f"Lens-7B {scores.OWN_MARK}", f"Lens-7B-RL {scores.OWN_MARK}"]
    assert t.loc[f"Lens-7B-RL {scores.OWN_MARK}", "BFCL v3 (Acc.)"] == f"104.0 {scores.FLAG_MARK}"
    assert t.loc["Alpha-8B", "MMLU (EM)"] == "65.3"
    assert any(t.value.startswith("Lens-7B — Table 1, page 1") and "Comparison of Lens-7B" in t.value for t in at.text)
    assert any("percentage above 100" in t.value for t in at.text)  # the flag, as plain text
    at.selectbox(key="table").set_value("Figure 2").run()
    assert table(at).set_index("model").loc[f"Lens-7B-RL {scores.OWN_MARK}", "Terminal-Bench"] == f"33.0 {scores.CURATED_MARK}"
    at.selectbox(key="report").set_value("post-9b").run()  # another report: its first table
    assert at.selectbox(key="table").value == "Table in 'Results', section Results"
    assert set(table(at)["model"]) == {"Post-9B (thinking) ★", "Post-9B (non-thinking) ★", "Rival-10B"}


def test_table_from_url_and_unknown_table_falls_back(env: Path) -> None:
    at = page(report="lens-7b", table="Figure 2")
    assert at.selectbox(key="table").value == "Figure 2"
    at = page(report="lens-7b", table="no such table")
    assert at.selectbox(key="table").value == "Table 1, page 1"


def test_curated_only_report_shows_its_notes(env: Path) -> None:
    at = page(report="curated-only")
    assert table(at).set_index("model").loc["Curio ★", "SWE-bench Verified"] == f"61.5 {scores.CURATED_MARK}"
    assert any(t.value == "curated results only (no source text)" for t in at.text)


def test_claims_scatter_uses_lens_levels_and_declared_categories(env: Path) -> None:
    lens = load_lens()
    assert lens.claims_categories and set(lens.claims_categories) <= set(load_catalogue().categories)
    at = page()
    assert at.multiselect(key="claims").value == claims_categories(load_catalogue())
    level_dims = [d for d in lens.dimensions if d.kind == "level"]
    assert at.selectbox(key="level").value == level_dims[0].id
    sc = chart(at, "Claims vs disclosure")
    assert sc["layout"]["xaxis"]["categoryarray"] == [NOT_ASSESSED, *[lv.name for lv in level_dims[0].levels]]
    assert sc["layout"]["xaxis"]["title"]["text"] == level_dims[0].label
    points = {(t["name"], r, y) for t in sc["data"] for r, y in zip(t["text"], t["y"], strict=True)}
    # best own score per report and benchmark; BFCL's 104.0 is flagged for review, so 55.0 is Lens-7B's point
    assert ("bfcl", "Lens-7B", 55.0) in points and not any(y > 100 for _, _, y in points)
    assert ("swe-bench-verified", "Lens-7B", 41.3) in points and ("swe-bench-verified", "Post-9B", 52.4) in points
    assert ("tau-bench", "Post-9B", 61.0) in points and ("terminal-bench", "Lens-7B", 33.0) in points
    assert ("swe-bench-verified", "Curio", 61.5) in points
    assert not any(name == "mmlu" for name, _, _ in points)
    assert any(t.value.startswith("Reports without such a score (1): Bare_Model_") for t in at.text)
    if len(level_dims) > 1:
        at.selectbox(key="level").set_value(level_dims[1].id).run()
        assert chart(at, "Claims vs disclosure")["layout"]["xaxis"]["title"]["text"] == level_dims[1].label
    at.multiselect(key="claims").set_value(["knowledge"]).run()
    assert {t["name"] for t in chart(at, "Claims vs disclosure")["data"]} == {"mmlu"}
    shared = page(claims="knowledge")
    assert shared.multiselect(key="claims").value == ["knowledge"]


def test_density_scatter_follows_the_term_picker(env: Path) -> None:
    at = page()
    terms = at.selectbox(key="term").options
    assert terms[0] == "agentic"
    sc = chart(at, "Benchmark coverage vs density")
    pts = {r: (x, y) for t in sc["data"] for r, x, y in zip(t["text"], t["x"], t["y"], strict=True)}
    assert pts["Curio"] == (1, 3.0)  # reported figures: 3 per 1,000 words; one SE benchmark
    assert pts["Lens-7B"][0] == 3 and pts["Lens-7B"][1] > 0  # BFCL, Terminal-Bench, SWE-bench Verified
    at.selectbox(key="term").set_value("agent").run()
    sc = chart(at, "Benchmark coverage vs density")
    assert "agent" in sc["layout"]["title"]["text"]
    pts = {r: y for t in sc["data"] for r, y in zip(t["text"], t["y"], strict=True)}
    assert pts["Curio"] == 5.0


def test_page_on_the_shipped_reports_offline_shows_bundled_results(shipped, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, the shipped reports with a bundled source (reports/files) have result tables and claims;
    the others are named as having no results."""
    data = shipped.data
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    at = page()
    sentence = next(t.value for t in at.text if "No benchmark results" in t.value)
    assert "Scores read from the reports' result tables (3): DeepSeek-R1, GLM-4.5, MiniMax-M1." in sentence
    assert "Gemma 4" in sentence and "Llama 4" in sentence
    claims = chart(at, "Claims vs disclosure")
    assert sum(len(t["y"]) for t in claims["data"]) > 0  # measured scores beside the curated levels
    dens = chart(at, "Benchmark coverage vs density")
    assert max(x for t in dens["data"] for x in t["x"]) > 0  # not every point at zero coverage
    assert not table(at).empty


def test_empty_store_explains_how_to_fill_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRL_DATA_DIR", str(tmp_path / "nothing"))
    at = page()
    assert any("No results in nothing yet" in t.value for t in at.text)


# ------------------------------------------------------------------------------------- pure parts
def test_own_scores_keep_every_own_setting_apart_and_unique() -> None:
    res = pd.DataFrame(
        [
            {"report_id": "a", "page": "3", "table": "Table 1", "caption": "c", "model": "A-7B", "own": True,
             "benchmark": "SWE-bench Verified", "metric": "", "group": "", "setting": s, "value": v, "score": float(v),
             "benchmark_id": "swe-bench-verified", "category": "software-engineering", "origin": "auto", "flag": ""}
            for s, v in (("thinking", "50.0"), ("non-thinking", "40.0"), ("thinking", "50.0"))
        ]
    )  # fmt: skip
    own = scores.own_scores(res, pd.DataFrame({"report_id": ["a"], "model": ["A"]}), "swe-bench-verified")
    assert own["label"].tolist() == ["A · A-7B (thinking)", "A · A-7B (thinking) #2", "A · A-7B (non-thinking)"]
    assert scores.own_scores(res, pd.DataFrame(), "mmlu").empty


def test_rebuild_table_puts_a_model_group_on_the_rows() -> None:
    base = {"report_id": "a", "page": "2", "table": "Table 3", "caption": "", "own": False, "metric": "",
            "setting": "", "score": 1.0, "benchmark_id": "", "category": "", "origin": "auto", "flag": ""}  # fmt: skip
    rows = [
        base | {"model": "M1", "group": "Tree search", "benchmark": "miniF2F", "value": "1"},
        base | {"model": "M1", "group": "Tree search", "benchmark": "ProofNet", "value": "2"},
        base | {"model": "M2", "group": "Whole proof", "benchmark": "miniF2F", "value": "3"},
    ]
    piv, facts = scores.rebuild_table(pd.DataFrame(rows), "a", "Table 3, page 2")
    assert piv["model"].tolist() == ["Tree search · M1", "Whole proof · M2"]
    assert list(piv.columns) == ["model", "miniF2F", "ProofNet"]
    assert facts["page"] == "2" and facts["cells"] == "3"
    assert scores.rebuild_table(pd.DataFrame(rows), "a", "nope")[0].empty


@pytest.mark.parametrize(
    ("event", "want"),
    [
        (
            {"selection": {"points": [{"customdata": [bc.table_href([("benchmark", "b")], "r1", "Table 2, page 5")]}]}},
            ("benchmarks", {"benchmark": "b", "report": "r1", "table": "Table 2, page 5"}),
        ),
        ({"selection": {"points": [{"customdata": "r1"}]}}, None),
        ({"selection": {"points": []}}, None),
        (None, None),
    ],
)
def test_bar_target_maps_a_click_to_report_and_table(event: object, want: tuple | None) -> None:
    assert chart_plotly.clicked(event) == want


def test_figures_escape_report_text_for_plotly() -> None:
    own = pd.DataFrame([{"report_id": "x", "report": "<a href='http://h'>R</a>", "model": "M", "setting": "",
                         "metric": "", "group": "", "value": "1", "score": 1.0, "page": "1", "table": "T",
                         "caption": "<img src=x>", "origin": "auto", "flag": "", "table_key": "T, page 1",
                         "label": "<a href='http://h'>R</a> · M"}])  # fmt: skip
    fig = chart_plotly.figure(bc.score_bars(own, "B", [], 10))
    assert "<a " not in fig.data[0].y[0] and "&lt;a" in fig.data[0].y[0]
    assert "<img" not in fig.data[0].hovertext[0]


# ------------------------------------------------------------------------------------- plain charts
def _marks(at: AppTest, chart_key: str) -> list[tuple[str, str, str]]:
    """(href, title, text) of every linked mark of one plain (HTML) chart, unescaped."""
    body = "\n".join(el.proto.body for el in at.get("html"))
    block = body.split(f'data-chart="{chart_key}"', 1)[1].split('data-chart="', 1)[0]
    found = re.findall(r'<a[^>]* href="([^"]*)"[^>]* title="([^"]*)"[^>]*>([^<]*)</a>', block)
    return [tuple(html.unescape(x) for x in m) for m in found]  # type: ignore[misc]


def test_plain_charts_are_the_default_and_draw_without_plotly(env: Path) -> None:
    at = page(plain=True)
    assert not at.get("plotly_chart")
    cov = _marks(at, "bench_coverage")
    by_tip = {t.split(":")[0]: (h, x) for h, t, x in cov}
    assert by_tip[f"Lens-7B · {load_catalogue().categories['agentic']}"] == ("report?report=lens-7b", "2")
    assert not any(t.startswith("Bare_Model_") for _, t, _ in cov)  # a report without results has no row


def test_plain_score_bars_open_their_table_keeping_the_url(env: Path) -> None:
    at = page(plain=True, benchmark="tau-bench", claims="knowledge")
    bars = _marks(at, "bench_bars")
    assert len(bars) == 2 and all(t.startswith("Post-9B · Post-9B") for _, t, _ in bars)
    href = bars[0][0]
    assert href.startswith("benchmarks?") and "benchmark=tau-bench" in href and "claims=knowledge" in href
    assert href.endswith("&report=post-9b&table=Table+in+%27Results%27%2C+section+Results#result-table")  # scrolled to the table
    assert len(_marks(page(plain=True), "bench_bars")) == 5  # SWE-bench Verified: five own scores


def test_plain_claims_and_density_points_link_and_skip_flagged_scores(env: Path) -> None:
    at = page(plain=True)
    claims = _marks(at, "bench_claims")
    assert any(t.startswith("Lens-7B · bfcl: 55") for _, t, _ in claims)
    assert not any(t.startswith("Lens-7B · bfcl: 104") for _, t, _ in claims)  # flagged for review: left out
    assert claims and all(h.startswith("benchmarks?report=") and "&table=" in h for h, _, _ in claims)
    dens = _marks(at, "bench_density")
    assert any(h == "report?report=curated-only" and "Curio: 1 benchmark(s)" in t for h, t, _ in dens)
