"""One chart layer (issue 25 §3): a spec drawn by every renderer alike, exported as a valid figure,
and the renderer comparison's report (bench/chart_renderers.py) printed from its timings."""

from __future__ import annotations

import dataclasses
import pickle
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench import chart_renderers
from views import chart_data as cd
from views import chart_export, chart_plotly, htmlchart

HOSTILE = "<script>alert(1)</script> & “quotes”"
HEAT = cd.HeatSpec(
    "kw_heatmap", "Density " + HOSTILE, ("agent", "tool"),
    (("alpha model", (cd.HeatCell("1.50", 1.0, "alpha · agent", "evidence?report=r01&term=agent"), None)),
     (HOSTILE, (cd.HeatCell("0.20", 0.1, HOSTILE, "evidence?report=r02&term=agent"),
                cd.HeatCell("3.00", 1.0, "tip", "evidence?report=r02&term=tool")))),
)  # fmt: skip
BARS = cd.BarSpec(
    "kw_bars", "Measured hits by section",
    (("agent", (cd.Segment(4, "body", "agent in body", "evidence?term=agent&section=body"),
                cd.Segment(1, "references", "agent in references", "evidence?term=agent&section=references")), "5"),),
    {"body": "#1f5fbf", "appendix": "#7fa7e0", "references": "#b0b0b0"}, "hits",
)  # fmt: skip
SCATTER = cd.ScatterSpec(
    "kw_scatter", "Length vs density",
    (cd.Point(1200.0, 2.5, "measured", "alpha model", "alpha: 1,200 words", "evidence?report=r01&term=agent"),
     cd.Point(800.0, 0.5, "reported", HOSTILE, HOSTILE, "evidence?report=r02&term=agent"),
     cd.Point(300.0, 1.0, "measured", "beta", "beta", "evidence?report=r03&term=agent")),
    {"measured": "#1f5fbf", "reported": "#d9730d"}, "words", "per 1,000 words", diamonds=("reported",), note="All 3 points.",
)  # fmt: skip
LEVELS = cd.ScatterSpec(
    "bench_claims", "Claims vs disclosure", (cd.Point("low", 80.0, "swe", "R1", "R1: 80", "benchmarks?report=r1&table=T"),),
    {"swe": "#1f5fbf"}, "level", "score", categories=("not assessed", "none", "low"),
)  # fmt: skip
SPECS = [HEAT, BARS, SCATTER, LEVELS]
#: A chart with nothing to draw (a page says so in its title): still a valid figure.
EMPTY = [cd.BarSpec("bench_bars", "No own-model score for X", ()), cd.ScatterSpec("timeline", "No date", (), {}, "", "")]


def _hrefs(spec: cd.ChartSpec) -> list[str]:
    if isinstance(spec, cd.HeatSpec):
        return [c.href for _, cells in spec.rows for c in cells if c is not None]
    if isinstance(spec, cd.BarSpec):
        return [s.href for _, segs, _ in spec.rows for s in segs]
    return [p.href for p in spec.points]


@pytest.mark.parametrize("spec", SPECS, ids=[s.key for s in SPECS])
def test_every_renderer_draws_the_same_marks_and_click_targets_of_one_spec(spec: cd.ChartSpec) -> None:
    want = sorted(_hrefs(spec))
    html = htmlchart.render(spec)
    assert f'data-chart="{spec.key}"' in html and "<script>" not in html
    assert sorted(h.replace("&amp;", "&") for h in re.findall(r'href="([^"]*)"', html)) == want
    fig = chart_plotly.figure(spec)
    marks = [cd_[0] for tr in fig.data if tr.customdata is not None for cd_ in tr.customdata]
    assert sorted(marks) == want
    assert all("<script>" not in str(t) for tr in fig.data for t in (tr.hovertext or tr.text or []) if t is not None)
    assert chart_plotly.clicked({"selection": {"points": [{"customdata": [want[0]]}]}}) == cd.target(want[0])


@pytest.fixture(scope="module")
def static_figures() -> Iterator[None]:
    """One browser for every static figure of this module (kaleido starts one per figure otherwise)."""
    if chart_export.static_problem():
        pytest.skip(chart_export.static_problem())
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    yield
    kaleido.stop_sync_server(silence_warnings=True)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS + EMPTY, ids=[s.key for s in SPECS] + ["empty bars", "empty scatter"])
def test_exported_figures_are_valid_svg_png_and_offline_html(spec: cd.ChartSpec, tmp_path: Path, static_figures: None) -> None:
    svg = chart_export.write(spec, tmp_path / chart_export.file_name(spec, "svg"))
    root = ET.parse(svg).getroot()  # well-formed XML: report text is escaped, not markup
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and float(root.get("width", "0")) > 0
    assert "<script" not in svg.read_text(encoding="utf-8") and "evidence?" not in svg.read_text(encoding="utf-8")
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert spec.title.split(" <")[0] in texts
    png = chart_export.write(spec, tmp_path / "chart.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    page = chart_export.write(spec, tmp_path / "chart.html").read_text(encoding="utf-8")
    assert "<script src=" not in page and "Plotly.newPlot" in page and len(page) > 1_000_000  # plotly.js embedded
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.slow  # renders SVG and PNG through a headless Chrome (kaleido): seconds per figure
def test_paper_figures_have_no_links_and_no_click_hints() -> None:
    clickable = [
        dataclasses.replace(
            HEAT, title="Density by report and term (colour: share of each term's maximum; click a cell for its lines)"
        ),
        dataclasses.replace(BARS, title="Measured hits by section (click a bar for the lines)"),
        dataclasses.replace(SCATTER, note="All 3 points (click a point for its lines)."),
        LEVELS,
    ]
    for spec in clickable:
        plain = chart_export.paper_spec(spec)
        assert "click" not in plain.title.lower() and "click" not in str(getattr(plain, "note", "")).lower(), spec.key
    assert chart_export.paper_spec(clickable[0]).title.endswith("share of each term's maximum)")
    assert chart_export.paper_spec(clickable[1]).title == "Measured hits by section"
    if not chart_export.static_problem():  # kaleido and a browser on this machine: the SVG itself
        for spec in clickable:
            svg = chart_export.to_svg(spec)
            assert "<a " not in svg and 'href="http' not in svg and "click" not in svg.lower(), spec.key


def test_offline_html_figure_needs_no_browser(tmp_path: Path) -> None:
    page = chart_export.write(HEAT, tmp_path / "chart.html").read_text(encoding="utf-8")
    assert "<script src=" not in page and "Plotly.newPlot" in page and len(page) > 1_000_000  # plotly.js embedded


def test_static_figure_without_a_browser_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_browser(*_a: object, **_k: object) -> bytes:
        raise RuntimeError("Kaleido requires Google Chrome to be installed.")

    monkeypatch.setattr(chart_plotly.go.Figure, "to_image", no_browser)
    with pytest.raises(chart_export.FigureError, match="needs the kaleido package and Chrome or Chromium"):
        chart_export.figure_bytes(HEAT, "svg")


def test_export_refuses_an_unknown_format_and_names_files_by_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown figure format"):
        chart_export.write(HEAT, tmp_path / "chart.exe")
    assert chart_export.file_name(cd.HeatSpec("../x y", "t", (), ()), "svg") == "_x_y.svg"


def test_click_targets_stay_inside_the_dashboard() -> None:
    assert cd.target("evidence?report=r1&term=tool") == ("evidence", {"report": "r1", "term": "tool"})
    for foreign in ("https://elsewhere.example/evidence?report=r1", "javascript:alert(1)", "//host/x", "", "a/b?c=d"):
        assert cd.target(foreign) is None


def test_renderer_comparison_prints_every_renderer_and_checks_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    times = {"html": [0.50, 0.40, 0.45], "plotly": [1.9, 2.1, 2.0]}
    cold = {"html": 0.6, "plotly": 3.0}
    med = chart_renderers.report(times, cold, SPECS[:3], 20)
    out = capsys.readouterr().out
    assert med == pytest.approx({"html": 0.45, "plotly": 2.0})
    assert all(f"renderer {r}" in out for r in cd.RENDERERS)
    assert f"default renderer {cd.DEFAULT_RENDERER}" in out and ("ok" in out.splitlines()[-1])
    slow = {"html": [2.5], "plotly": [2.0]}
    chart_renderers.report(slow, cold, SPECS[:3], 20)
    assert "MISSED" in capsys.readouterr().out.splitlines()[-1]


def test_renderer_app_draws_each_spec_with_the_renderer_its_url_names(tmp_path: Path) -> None:
    """The bench's small app, run by AppTest: the two renderings of the same specs."""
    (tmp_path / "specs.pkl").write_bytes(pickle.dumps(SPECS[:3]))
    app = tmp_path / "charts_app.py"
    app.write_text(chart_renderers.APP.format(repo=str(chart_renderers.REPO), specs=str(tmp_path / "specs.pkl")))
    seen = {}
    for r in cd.RENDERERS:
        at = AppTest.from_file(str(app), default_timeout=60)
        at.query_params["r"] = r
        at.run()
        assert not at.exception
        seen[r] = (len(at.get("html")), len(at.get("plotly_chart")))
    assert seen == {"html": (3, 0), "plotly": (0, 3)}
