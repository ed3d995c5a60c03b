"""The Benchmarks page's charts as specs (views.chart_data), from `ingest.outputs.scores` frames.

Any renderer draws them (views.htmlchart by default, plotly behind the page's "Interactive charts"
switch). A bar or point links to the same page with `report` and `table` set,
keeping the page's other URL parameters, so the clicked table opens below.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import pandas as pd

from views import chart_data as cd
from views.figures import FIGURE_COLOURS, cjk_note

#: Distinct colours for series without a fixed colour (benchmarks, origins), cycled.
PALETTE = ("#1f5fbf", "#d9730d", "#2e8b57", "#b8336a", "#6a4c93", "#8c6d1f", "#1b998b", "#c44536", "#4d4d4d", "#7fa7e0")


#: The anchor of the page's "Result table" heading: a clicked mark's link scrolls there (Streamlit scrolls
#: to a heading whose anchor the URL's fragment names), so the table shows instead of the page top.
TABLE_ANCHOR = "result-table"


def table_href(base: Sequence[tuple[str, str]], report_id: str, table_key: str) -> str:
    """This page with the report's table chosen, other parameters (`base`) kept, scrolled to the table."""
    kept = [(k, v) for k, v in base if k not in ("report", "table")]
    return "benchmarks?" + urlencode([*kept, ("report", report_id), ("table", table_key)]) + "#" + TABLE_ANCHOR


def palette(names: Sequence[str]) -> dict[str, str]:
    """A colour per name, in order, from PALETTE."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(dict.fromkeys(names))}


def coverage_table(matrix: pd.DataFrame, names: dict[str, str], rows: int) -> tuple[cd.HeatSpec, int]:
    """Reports with results × categories, the number of distinct benchmarks in each cell (first `rows`
    reports by name), and how many reports have results."""
    if matrix.empty or matrix.shape[1] == 0:
        return cd.HeatSpec("bench_coverage", "No benchmark results stored yet", (), ()), 0
    m = matrix[matrix.sum(axis=1) > 0]
    order = sorted(m.index, key=lambda r: str(names.get(r, r)).casefold())
    top = float(m.to_numpy().max()) if len(m) else 0.0
    out = []
    for rid in order[:rows]:
        cells = []
        for col in m.columns:
            v = int(m.at[rid, col])
            tip = f"{names.get(rid, rid)} · {col}: {v} benchmark(s)"
            cells.append(cd.HeatCell(str(v), v / top if top else 0.0, tip, "report?" + urlencode({"report": rid})) if v else None)
        out.append((str(names.get(rid, rid)), tuple(cells)))
    title = "Benchmarks per category (distinct benchmarks in each report's result tables; click a cell for the report card)"
    return cd.HeatSpec("bench_coverage", title, tuple(str(c) for c in m.columns), tuple(out)), len(order)


def score_bars(scores: pd.DataFrame, title: str, base: Sequence[tuple[str, str]], rows: int) -> cd.BarSpec:
    """One horizontal bar per own-model score (highest first, at most `rows`), coloured by origin; a bar
    opens its table below."""
    if scores.empty:
        return cd.BarSpec("bench_bars", f"No own-model score for {title}", ())
    colours = palette(sorted(scores["origin"].astype(str).unique()))
    out = []
    for r in scores.head(rows).itertuples(index=False):
        tip = (f"{r.report} · {r.model}: {r.value} as printed" + (f" · {r.setting}" if r.setting else "")
               + (f" · {r.metric}" if r.metric else "") + f" · {r.table or 'no table'}, page {r.page or '—'}"
               + (f" · {str(r.caption)[:120]}" if r.caption else "")
               + (f" · ⚑ {r.flag}" if r.flag else "") + f" · origin: {r.origin}")  # fmt: skip
        href = table_href(base, str(r.report_id), str(r.table_key))
        out.append((str(r.label), (cd.Segment(float(r.score), str(r.origin), tip, href),), str(r.value)))
    title = f"{title}: each report's own-model scores (click a bar for its table)"
    return cd.BarSpec("bench_bars", title, tuple(out), colours, "score as printed")


def claims_scatter(
    frame: pd.DataFrame, levels: list[str], level_label: str, base: Sequence[tuple[str, str]], note: str = ""
) -> cd.ScatterSpec:
    """Disclosure level (ordered, from the lens) against own scores, coloured by benchmark. The caller
    narrows the rows to a few hundred (views.figures.first_points) and says so in `note`."""
    colours = palette(sorted(frame["benchmark_id"].astype(str).unique())) if len(frame) else {}
    pts = tuple(
        cd.Point(str(r.level), float(r.score), str(r.benchmark_id), str(r.report),
                 f"{r.report} · {r.benchmark_id}: {r.score:g} · {level_label}: {r.level}",
                 table_href(base, str(r.report_id), str(r.table_key)))
        for r in frame.itertuples(index=False)
    )  # fmt: skip
    title = "Claims vs disclosure" + ("" if len(frame) else ": no own-model score in these categories")
    return cd.ScatterSpec("bench_claims", title, pts, colours, level_label, "own-model score (best setting)",
                          categories=tuple(levels), note=note)  # fmt: skip


def density_scatter(frame: pd.DataFrame, term: str, note: str = "") -> cd.ScatterSpec:
    """Benchmark coverage in the claims categories against the density of one lexicon term; a point
    opens the report's card. The caller narrows the rows (one per report) and says so in `note`."""
    colours = {f"{k} density": c for k, c in FIGURE_COLOURS.items()}
    pts = tuple(
        cd.Point(float(r.coverage), float(r.density), f"{r.figures} density", str(r.report),
                 f"{r.report}: {r.coverage} benchmark(s), “{term}” {r.density:.2f} per 1,000 {r.unit}",
                 "report?" + urlencode({"report": r.report_id}))
        for r in frame.itertuples(index=False)
    )  # fmt: skip
    return cd.ScatterSpec(
        "bench_density", f"Benchmark coverage vs density of “{term}”", pts, colours,
        "distinct benchmarks in the claims categories", "per 1,000 words (whole document)" + cjk_note(frame),
        diamonds=("reported density",), note=note,
    )  # fmt: skip
