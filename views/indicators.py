"""Indicators page: indicators × reports for a level dimension, FMTI-style (ingest.outputs.indicators).

Each cell says whether a sentence of the report fired the indicator, on which page; a fired cell's
hover text is that sentence, and a click on it (or on the report's name) opens the dimension's
evidence for the report. A score per report (indicators met / indicators) heads the grid, best first.
Reports without a checklist (no source text) are named below the grid: they are not assessed, not "no"
on every indicator.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ingest.outputs import export
from ingest.outputs.indicators import Indicators, indicator_grid
from ingest.outputs.neutral import to_csv
from views import chart_data as cd
from views import chart_export, data, nav
from views import htmlchart as hc
from views.plain import escape_md

#: Report columns drawn (best scores first); the CSV has them all.
COLUMNS = 20


@st.cache_resource(show_spinner=False, max_entries=8)
def _grid(key: data.Stamp, lens_id: str, dim_id: str) -> Indicators:
    tbl, _ = data.tables()
    return indicator_grid(tbl["comparison"], data.read("evidence", filters=[("dimension", "==", dim_id)]), data.lens(), dim_id)


@st.cache_data(show_spinner=False, max_entries=16)
def _grid_html(key: data.Stamp, lens_id: str, dim_id: str) -> str:
    """The drawn grid (`grid_spec`, rendered), once per store generation, lens and dimension."""
    return hc.render(grid_spec(_grid(key, lens_id, dim_id), data.names()[0], dim_id))


def grid_spec(g: Indicators, models: dict[str, str], dim_id: str, limit: int = COLUMNS) -> cd.HeatSpec:
    """The grid as a heat table (indicators as rows, reports as columns), a score row first."""
    shown = g.scores[:limit]
    cols = [str(models.get(s.report_id, s.report_id)) for s in shown]
    score_row = tuple(
        cd.HeatCell(f"{s.met}/{s.total}", s.share, f"{models.get(s.report_id, s.report_id)}: {s.met} of {s.total} "
                    f"indicators; level {s.level or 'not assessed'}")
        for s in shown
    )  # fmt: skip
    rows: list[cd.HeatRow] = [("Score (indicators met)", score_row)]
    hrefs = ["evidence?" + urlencode({"report": s.report_id, "dim": dim_id}) for s in shown]
    for n in g.names:
        cells = []
        for s, href in zip(shown, hrefs, strict=True):
            c = g.cells.get((n, s.report_id))
            if c is None:
                cells.append(None)
            elif c.fired:
                text = f"yes · p. {c.page}" if c.page else "yes"
                cells.append(cd.HeatCell(text, 0.7, f"“{c.quote}”" if c.quote else "fired", href))
            else:  # no sentence fired it: "no" says it all; the report's heading opens its evidence
                cells.append(cd.HeatCell("no", 0.0))
        rows.append((g.labels.get(n, n), tuple(cells)))
    title = "Indicators × reports (hover a cell for the sentence; click it, or a report's name, for the evidence)"
    return cd.HeatSpec("indicators", title, tuple(cols), tuple(rows), tuple(hrefs))


def render() -> None:
    """Draw the page."""
    st.title("Indicators")
    _body()


@st.fragment
def _body() -> None:
    """The dimension picker and its grid: a fragment, so a pick redraws this section only, not the
    app's navigation and title (nor re-runs app.py)."""
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    lens = data.lens()
    levels = {d.id: d for d in lens.dimensions if d.kind == "level"}
    if not levels:
        st.text("The lens declares no level dimension, so there are no indicators to show.")
        return
    dim_id = nav.select("Level dimension", list(levels), "dim", lambda d: levels[d].label)
    st.caption(escape_md(
        f"Each indicator of “{levels[dim_id].label}” is met when a sentence of the report matches it "
        "(the lens, data/lenses); a report's level follows from how many are met. Hand-checked levels "
        "are on the Compare page."
    ))  # fmt: skip
    g = _grid(key, lens.id, dim_id)
    models = data.names()[0]
    if not g.scores:
        st.text("No report has a checklist yet: add a source file to a report to measure it.")
    else:
        if len(g.scores) > COLUMNS:
            st.caption(f"The {COLUMNS} highest scores of {len(g.scores)} reports; the CSV has them all.")
        st.html(_grid_html(key, lens.id, dim_id))
        c1, c2, c3 = st.columns(3)
        with c3:
            chart_export.controls([("indicators", "Indicators", lambda: grid_spec(g, models, dim_id))])
        # the frames of the downloads are built when one is clicked (a frame of every report and indicator)
        c1.download_button("Indicators (CSV)", lambda: to_csv(g.frame(models)), file_name="indicators.csv",
                           mime="text/csv", key="dl_indicators_csv", on_click="ignore")  # fmt: skip
        c2.download_button("Indicators (Markdown)", lambda: export.to_markdown(g.frame(models)),
                           file_name="indicators.md", mime="text/markdown", key="dl_indicators_md",
                           on_click="ignore")  # fmt: skip
    if g.unscored:
        names = ", ".join(str(models.get(r, r)) for r in g.unscored[:40]) + (" …" if len(g.unscored) > 40 else "")
        st.text(f"Not assessed ({len(g.unscored)}: no source text was read): {names}")


if __name__ == "__main__":
    render()
