"""Evidence page: the sentences behind a number — comparison quotes per dimension, KWIC lines per term."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest.sections import SECTIONS
from views import data
from views.plain import escape_md
from views.review import show_auto_beside_curated

ALL = "*"
KWIC_LIMIT = 500


def kwic_rows(kwic: pd.DataFrame, report: str, term: str, section: str) -> pd.DataFrame:
    """KWIC lines for a term, optionally one report and one section, with page and section."""
    if kwic.empty or not term:
        return pd.DataFrame(columns=["report_id", "page", "section", "left", "match", "right"])
    m = kwic["term"] == term
    if report != ALL:
        m &= kwic["report_id"] == report
    if section:
        m &= kwic["section"] == section
    out = kwic[m].copy()
    out["page"] = out["page_label"].where(out["page_label"].notna() & (out["page_label"].astype(str) != ""), out["page"])
    return out[["report_id", "page", "section", "left", "match", "right"]].sort_values(["report_id", "page"], kind="stable")


def dimension_rows(comparison: pd.DataFrame, evidence: pd.DataFrame, report: str, dim: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table cells of a dimension (with their quote) and the ranked candidate evidence sentences."""
    cells = comparison[comparison["dimension"] == dim] if not comparison.empty else comparison
    ev = evidence[evidence["dimension"] == dim] if not evidence.empty else evidence
    if report != ALL:
        cells = cells[cells["report_id"] == report] if not cells.empty else cells
        ev = ev[ev["report_id"] == report] if not ev.empty else ev
    cell_cols = [c for c in ("report_id", "value", "origin", "detail", "quote", "page_label", "page", "section", "notes",
                             "auto_value", "disagree") if c in cells.columns]  # fmt: skip
    ev_cols = [c for c in ("report_id", "category", "rank", "score", "quote", "page_label", "page", "section") if c in ev.columns]
    return cells[cell_cols], ev[ev_cols]


def render() -> None:
    """Draw the page."""
    st.title("Evidence")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    reports = tbl["reports"]
    models = dict(zip(reports["report_id"], reports["model"], strict=False))
    labels = data.dim_labels()
    terms = sorted({t.name for g in data.lexicon().groups for t in g.terms})
    c1, c2, c3, c4 = st.columns(4)
    report = c1.selectbox("Report", [ALL, *models], format_func=lambda r: "all reports" if r == ALL else models.get(r, r),
                          key="report", bind="query-params")  # fmt: skip
    dim = c2.selectbox("Dimension", ["", *labels], format_func=lambda d: labels.get(d, "—"), key="dim", bind="query-params")
    term = c3.selectbox("Term", ["", *terms], format_func=lambda t: t or "—", key="term", bind="query-params")
    section = c4.selectbox("Section", ["", *SECTIONS], format_func=lambda s: s or "any",
                           key="section", bind="query-params")  # fmt: skip
    if not dim and not term:
        st.info("Pick a dimension or a term (or click a heatmap cell or bar on the Keywords page).")
        return
    if dim:
        # Filtered reads (views/data.py): only this dimension's (and report's) evidence is loaded.
        cells, ev = dimension_rows(tbl["comparison"], data.evidence_rows(None if report == ALL else report, dim), report, dim)
        st.subheader(escape_md(f"{labels.get(dim, dim)}: table cells"))
        st.caption("origin: curated = hand-checked (quote from the report file), auto = pipeline, none = not assessed.")
        st.dataframe(cells, hide_index=True, width="stretch")
        st.subheader("Candidate evidence sentences")
        if ev.empty:
            st.caption("No automatic evidence stored for this selection.")
        else:
            st.dataframe(ev, hide_index=True, width="stretch")
        show_auto_beside_curated(tbl["comparison"], tbl["evidence"], report, dim)
    if term:
        rows = data.kwic_rows(None if report == ALL else report, term, section)  # never the whole KWIC table
        where = "all reports" if report == ALL else models.get(report, report)
        st.subheader(escape_md(f"“{term}” in {where}" + (f" ({section})" if section else "")))
        if rows.empty:
            st.caption("No keyword-in-context lines stored (the report may be unmeasured: reported figures have no lines).")
        else:
            st.caption(f"{len(rows)} line(s)" + (f"; showing the first {KWIC_LIMIT}" if len(rows) > KWIC_LIMIT else ""))
            st.dataframe(rows.head(KWIC_LIMIT), hide_index=True, width="stretch")


if __name__ == "__main__":
    render()
