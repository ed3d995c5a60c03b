"""Caps that keep the dashboard's charts and tables small on a store of thousands of reports.

One HTML mark per report took the browser more than 10 s at 10,000 reports, and Evidence for all
reports sent 18 MB of HTML. Each scatter now draws at most a few hundred points (the first by report
name among those a name filter keeps) and says how many in a sentence; Evidence's tables for all
reports stop at ROW_LIMIT rows. `FRL_CHART_POINTS` lowers the point cap so the pages can be checked
on the small stores the real pipeline builds here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from tests.test_app import built, html_of, run_app, store_env  # noqa: F401  (fixtures)
from tests.test_app_benchmarks import built as bench_built  # noqa: F401  (fixture)
from tests.test_app_benchmarks import page as bench_page
from views import evidence, figures
from views import htmlchart as hc


def _block(page: str, chart: str) -> str:
    return page.split(f'data-chart="{chart}"', 1)[1].split('data-chart="', 1)[0]


def _marks(block: str) -> list[str]:
    """The hover tips of a scatter's point marks."""
    return re.findall(r'<a class="m(?: d)?"[^>]* title="([^"]*)"', block)


# ------------------------------------------------------------------------------------------- the helpers
def test_plain_scatter_never_draws_more_than_max_points_and_says_so() -> None:
    pts = [hc.Point(float(i), float(i % 7), "measured", f"r{i}", href=f"evidence?report=r{i}") for i in range(5000)]
    out = hc.scatter("t", pts, {"measured": "#1f5fbf"}, "x", "y", note="Showing some.")
    assert len(_marks(out)) == hc.MAX_POINTS < 5000
    assert f"Showing some. Only the first {hc.MAX_POINTS:,} of 5,000 points are drawn." in out
    assert 'class="n"' in hc.scatter("t", pts[:3], {"measured": "#1f5fbf"}, "x", "y")  # few points keep their names


def test_scatter_points_are_the_first_names_among_those_the_filter_keeps() -> None:
    frame = pd.DataFrame({"model": ["b", "A", "c", "ab", "B2"], "y": range(5)})
    rows, n = figures.first_points(frame, "", 2)
    assert list(rows["model"]) == ["A", "ab"] and n == 5  # case-insensitive name order
    rows, n = figures.first_points(frame, "B", 9)
    assert list(rows["model"]) == ["ab", "b", "B2"] and n == 3
    assert figures.points_note(2, 5, "narrow them") == "Showing the first 2 of 5 points (reports in name order); narrow them."
    assert figures.points_note(3, 3, "narrow them") == ""


def test_chart_point_cap_reads_a_positive_override_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRL_CHART_POINTS", raising=False)
    assert figures.scatter_points() == figures.SCATTER_POINTS <= hc.MAX_POINTS
    for bad in ("0", "-3", "many", ""):
        monkeypatch.setenv("FRL_CHART_POINTS", bad)
        assert figures.scatter_points() == figures.SCATTER_POINTS
    monkeypatch.setenv("FRL_CHART_POINTS", "7")
    assert figures.scatter_points() == 7


def test_evidence_tables_for_all_reports_stop_at_the_row_limit_in_name_order() -> None:
    n = evidence.ROW_LIMIT + 50
    rows = pd.DataFrame({"report_id": [f"r{i:04d}" for i in range(n) for _ in range(2)], "rank": [1, 2] * n})
    models = {f"r{i:04d}": f"Model {n - i:04d}" for i in range(n)}  # name order is the reverse of id order
    shown, total = evidence.first_by_report(rows, models)
    assert total == 2 * n and len(shown) == evidence.ROW_LIMIT
    assert shown["report_id"].iloc[0] == f"r{n - 1:04d}" and list(shown["rank"][:2]) == [1, 2]
    assert f"the first {evidence.ROW_LIMIT} by report name are shown" in evidence._more(len(shown), total, "table cells")
    assert evidence._more(3, 3, "table cells") == ""


# ------------------------------------------------------------------------------------------- the pages
def test_keywords_scatter_draws_at_most_the_point_cap_and_says_how_to_narrow(
    store_env: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    every = _marks(_block(html_of(run_app("keywords")), "kw_scatter"))
    assert len(every) > 2
    monkeypatch.setenv("FRL_CHART_POINTS", "2")
    at = run_app("keywords")
    block = _block(html_of(at), "kw_scatter")
    assert len(_marks(block)) == 2
    assert f"Showing the first 2 of {len(every)} points (reports in name order)" in block
    assert "Reports whose name contains" in block
    assert _marks(block)[0].startswith("alpha model")  # the first by name, case-insensitively
    at.text_input(key="rq").set_value("model 03").run()
    block = _block(html_of(at), "kw_scatter")
    assert [t.split(" (")[0] for t in _marks(block)] == ["Model 03"] and "Showing the first" not in block


def test_keywords_interactive_scatter_obeys_the_same_cap(store_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("FRL_CHART_POINTS", "2")
    at = run_app("keywords", interactive=True)  # type: ignore[arg-type]
    from tests.test_app import specs

    scatter = specs(at)[-1]
    assert sum(len(t["x"]) for t in scatter["data"]) == 2
    assert any(c.value.startswith("Showing the first 2 of") for c in at.caption)


def test_benchmark_scatters_draw_at_most_the_point_cap_with_a_name_box(
    bench_built: tuple[Path, Path],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, reports = bench_built
    monkeypatch.setenv("FRL_DATA_DIR", str(data))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(reports))
    at = bench_page(plain=True)
    assert not at.text_input  # 4 reports, 100 points a chart: no name box
    every = len(_marks(_block(html_of(at), "bench_density")))
    assert every > 1
    monkeypatch.setenv("FRL_CHART_POINTS", "1")
    at = bench_page(plain=True)
    page = html_of(at)
    density, claims = _block(page, "bench_density"), _block(page, "bench_claims")
    assert len(_marks(density)) == 1 and len(_marks(claims)) == 1
    assert f"Showing the first 1 of {every} points" in density and "Reports whose name contains" in density
    assert "or pick fewer benchmark categories" in claims
    at.text_input(key="rq").set_value("post").run()
    density = _block(html_of(at), "bench_density")
    assert [t.split(":")[0] for t in _marks(density)] == ["Post-9B"] and "Showing the first" not in density
