"""Timeline page: reports by release date, with their disclosure level and a keyword's density.

Dates come from `released:`, else the month an arXiv id encodes (marked so); undated reports are
named below. The chart spaces months evenly and puts a point per report: the term's density per
1,000 words, coloured by the chosen level dimension's level. Data from ingest.outputs.timeline.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from ingest.outputs import timeline as tl
from ingest.outputs.neutral import to_csv
from ingest.outputs.scores import level_of
from ingest.outputs.stats import STATS_GROUP
from views import chart_data as cd
from views import chart_export, data, htmltable, nav
from views import htmlchart as hc
from views.benchmark_charts import palette

#: Rows of the table under the chart (the chart and the CSV have every dated report): a rerun after a
#: pick redraws the table, and at 500 reports it was 500 rows.
TABLE_ROWS = 50


# Shared (st.cache_resource): read-only here, and a hit is not unpickled on every rerun.
@st.cache_resource(show_spinner=False, max_entries=16)
def _timeline(key: data.Stamp, dim_id: str, term: str, today: dt.date) -> tuple[pd.DataFrame, list[str]]:
    tbl, _ = data.tables()
    counts = data.read("counts", filters=[("section", "==", "all"), ("group", "==", STATS_GROUP)])
    return tl.timeline(tbl["reports"], level_of(tbl["comparison"], dim_id), tbl["reported"], counts, term, today=today)


@st.cache_data(show_spinner=False, max_entries=16)
def _drawn(key: data.Stamp, dim: tuple[str, str, tuple[str, ...]], term: str, today: dt.date) -> tuple[str, str]:
    """The chart and the table (its first TABLE_ROWS rows) as HTML, once per store generation, level
    dimension (id, label, levels) and term."""
    dim_id, label, values = dim
    df, _ = _timeline(key, dim_id, term, today)
    shown = df.head(TABLE_ROWS).drop(columns=["report_id", "month"])
    shown = shown.rename(columns={"model": "Report", "level": label, "density": f"“{term}” per 1,000 words"})
    return hc.render(chart(df, term, label, list(values))), htmltable.table(shown) if len(df) else ""


def chart(df: pd.DataFrame, term: str, level_label: str, levels: list[str]) -> cd.ScatterSpec:
    """Density of `term` by month, a point per report coloured by its level; a point opens the report card."""
    dense = df[df["density"].notna()]
    if dense.empty:
        return cd.ScatterSpec("timeline", f"“{term}” over time: no report with a date has figures", (), {}, "", "")
    months = tl.months_between(str(dense["month"].min()), str(dense["month"].max()))
    colours = palette([lv for lv in [*levels, "not assessed"] if lv in set(dense["level"].replace("", "not assessed"))])
    pts = tuple(
        cd.Point(r["month"], float(r["density"]), r["level"] or "not assessed", str(r["model"]),
                 f"{r['model']} · {r['date']} ({r['dated by']}) · {level_label}: {r['level'] or 'not assessed'} · "
                 f"“{term}” {r['density']:.2f} per 1,000 words ({r['figures']})",
                 "report?" + urlencode({"report": r["report_id"]}))
        for r in dense.to_dict("records")
    )  # fmt: skip
    return cd.ScatterSpec("timeline", f"Density of “{term}” over time (colour: {level_label})", pts, colours, "month",
                          "per 1,000 words (whole document)", categories=tuple(months))  # fmt: skip


def render() -> None:
    """Draw the page."""
    st.title("Timeline")
    _body()


@st.fragment
def _body() -> None:
    """Pickers, chart, table and the undated reports: a fragment, so picking a dimension or a keyword
    redraws this section only, not the app's navigation and title (nor re-runs app.py)."""
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    lens = data.lens()
    levels = {d.id: d for d in lens.dimensions if d.kind == "level"}
    terms = [t.name for t in data.lexicon().group(STATS_GROUP).terms]
    row = nav.picker_row()
    dim_id = nav.select("Level dimension", list(levels), "dim", lambda d: levels[d].label, row) if levels else ""
    term = nav.select("Keyword", terms, "term", str, row)
    today = dt.date.today()
    df, undated = _timeline(key, dim_id, term, today)
    models = data.names()[0]
    label = levels[dim_id].label if dim_id else "level"
    values = tuple(levels[dim_id].values) if dim_id else ()
    chart_html, table_html = _drawn(key, (dim_id, label, values), term, today)
    st.html(chart_html)
    chart_export.controls([("timeline", "Timeline", lambda: chart(df, term, label, list(values)))])
    st.caption("Dated by `released:` in the report file, else by the month its arXiv id encodes (marked "
               "“arXiv id (month)”); click a point for the report card.")  # fmt: skip
    if len(df):
        if len(df) > TABLE_ROWS:
            st.caption(f"The first {TABLE_ROWS} of {len(df)} dated reports (oldest first) are listed; the CSV has them all.")
        st.html(table_html)
        st.download_button("Timeline (CSV)", lambda: to_csv(df), file_name="timeline.csv", mime="text/csv",
                           key="dl_timeline", on_click="ignore")  # fmt: skip
    if undated:
        names = ", ".join(str(models.get(r, r)) for r in undated[:40]) + (" …" if len(undated) > 40 else "")
        st.text(f"No date, or one before {tl.EARLIEST.year} or over a year ahead ({len(undated)}; add or correct a line "
                f"released: YYYY-MM-DD in the report file): {names}")  # fmt: skip


if __name__ == "__main__":
    render()
