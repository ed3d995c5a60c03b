"""The Keywords page's charts as specs (views.chart_data): heatmap, section bars, length scatter.

Any renderer draws them (views.htmlchart by default, plotly behind the page's "Interactive charts"
switch); each mark links to the Evidence page with ids (report, term, section).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd

from views import chart_data as cd
from views.figures import FIGURE_COLOURS, SECTION_COLOURS, Metric, Scope, cjk_note, scatter_rows, section_hits


def evidence_href(report: str = "", term: str = "", section: str = "") -> str:
    """The Evidence page for a report / term / section (ids; empty ones left out)."""
    q = {k: v for k, v in (("report", report), ("term", term), ("section", section)) if v}
    return "evidence?" + urlencode(q)


def heatmap(matrix: pd.DataFrame, terms: list[str], metric: Metric = "density") -> cd.HeatSpec:
    """Reports × terms, the value in each cell, colour = share of the term's largest value (so a rare
    term stays visible); a cell with hits opens Evidence for its report and term. Rows from the study's
    reported figures say "(reported)"."""
    if matrix.empty:
        return cd.HeatSpec("kw_heatmap", "No keyword figures for this selection", tuple(terms), ())
    m = matrix.assign(
        label=matrix["model"].astype(str).where(matrix["figures"] != "reported", matrix["model"].astype(str) + " (reported)")
    )
    col_max = m.groupby("term")[metric].max().to_dict()
    fmt = "{:.2f}" if metric == "density" else "{:.0f}"
    cells: dict[str, dict[str, cd.HeatCell]] = {}
    for r in m.itertuples(index=False):
        v = getattr(r, metric)
        if pd.isna(v):
            continue
        top = col_max.get(r.term) or 0
        unit = f"per 1,000 {r.unit}" if metric == "density" else "count"
        text = fmt.format(v)
        tip = f"{r.label} · {r.term}: {text} {unit} ({r.figures})"  # the title says a click opens the lines
        # a cell without hits has no lines to open: no link (the HTML heat table then draws the bare cell)
        href = evidence_href(r.report_id, r.term) if v else ""
        cells.setdefault(r.label, {})[r.term] = cd.HeatCell(text, float(v) / top if top else 0.0, tip, href)
    rows = tuple((label, tuple(cells[label].get(t) for t in terms)) for label in sorted(cells, key=str.casefold))
    what = "Density per 1,000 words" + cjk_note(m) if metric == "density" else "Count"
    title = f"{what} by report and term (colour: share of each term's maximum; click a cell for its lines)"
    return cd.HeatSpec("kw_heatmap", title, tuple(terms), rows)


def section_bars(
    counts: pd.DataFrame, report_ids: list[str], terms: list[str], group: str, scope: Scope = "all"
) -> cd.BarSpec | None:
    """Per term, measured hits in each section of the scope, stacked; a segment opens Evidence for the
    term in that section. None when nothing is measured (the page says so in a sentence)."""
    hits = section_hits(counts, report_ids, terms, group, scope)
    if hits is None:
        return None
    sections, sums = hits
    rows = []
    for t in terms:
        segs = [cd.Segment(float(sums.get((t, s), 0)), s, f"“{t}” in {s}: {int(sums.get((t, s), 0)):,}; click for the lines",
                           evidence_href(term=t, section=s)) for s in sections]  # fmt: skip
        rows.append((t, tuple(segs), f"{int(sum(x.value for x in segs)):,}"))
    colours = {s: SECTION_COLOURS[s] for s in sections}
    return cd.BarSpec("kw_bars", "Measured hits by section (click a bar for the lines)", tuple(rows), colours, "hits")


def length_scatter(matrix: pd.DataFrame, term: str, labels_up_to: int = 60, note: str = "") -> cd.ScatterSpec | None:
    """Document length vs density of one term, one point per report (measured and reported apart);
    names written beside points up to `labels_up_to` points, on hover beyond. The caller narrows the
    rows to a few hundred (views.figures.first_points) and says so in `note`."""
    m = scatter_rows(matrix, term)
    if m.empty:
        return None
    pts = tuple(
        cd.Point(float(r.words), float(r.density), r.figures, str(r.model),
                 f"{r.model} ({r.figures}): {int(r.words):,} {r.unit}, {r.density:.2f} per 1,000",
                 evidence_href(r.report_id, term))
        for r in m.itertuples(index=False)
    )  # fmt: skip
    unit = cjk_note(m)
    return cd.ScatterSpec(
        "kw_scatter", f"Document length vs density of “{term}” (click a point for its lines)", pts, FIGURE_COLOURS,
        "words" + unit, "per 1,000 words" + unit, diamonds=("reported",), labels=len(pts) <= labels_up_to, note=note,
    )  # fmt: skip
