"""Report page: one report's card — metadata, figures, table row with quotes, sections, distinctive terms."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest import comparison
from ingest.distinctive import TermWeights, term_weights, top_terms
from ingest.mdtable import blank
from ingest.report_card import report_card
from ingest.stats import stats_frame
from ingest.store import Store
from views import data, htmltable, nav
from views.evidence import people_cells
from views.plain import escape_md, message
from views.review import checklist_view

META: dict[str, str] = {
    "organization": "Organization", "country": "Country", "released": "Released", "doc_type": "Document type",
    "arxiv_id": "arXiv", "params": "Parameters", "source_url": "Source", "pages": "Pages", "words": "Words",
    "notes": "Notes",
}  # fmt: skip


@st.cache_resource(show_spinner=False, max_entries=4)
def _weights(key: data.Stamp) -> TermWeights | None:
    """Every report's TF-IDF weights, once per store generation (0.3 s at 10,000 reports; a report's
    terms are then a row lookup). Only the counts' "all" rows are read."""
    return term_weights(data.read("counts", filters=[("section", "==", "all")]))


@st.cache_data(show_spinner=False, max_entries=64)
def _top_terms(key: data.Stamp, report_id: str) -> pd.DataFrame:
    return top_terms(_weights(key), report_id)


@st.cache_data(show_spinner=False, max_entries=64)
def _figures(key: data.Stamp, report_id: str) -> list[tuple[str, pd.DataFrame]]:
    """The report's reported and measured whole-document figures (only its own rows are read)."""
    tbl, _ = data.tables()
    one = tbl["reports"][tbl["reports"]["report_id"] == report_id]
    reported = tbl["reported"]
    reported = reported[reported["report_id"] == report_id] if not reported.empty else reported
    counts = data.read("counts", report_ids=[report_id])
    out = []
    for src in ("reported", "measured"):
        frame = stats_frame(one, reported, counts, source=src)  # type: ignore[arg-type]
        if "figures" not in frame.columns:
            out.append((src, frame.drop(columns="model")))
    return out


def _show(v: object) -> str:
    """Whole numbers stored as floats (pandas NaN-able columns) print without '.0'."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _checklists(rows: pd.DataFrame, evidence: pd.DataFrame | None, labels: dict[str, str]) -> None:
    """The indicator checklist behind each disclosure level: every indicator yes/no with its quote."""
    if "indicators" not in rows.columns:
        return
    for r in rows[rows["indicators"].notna()].itertuples():
        items = pd.DataFrame(comparison.parse_checklist(r.indicators))
        if items.empty:
            continue
        if evidence is not None and not evidence.empty:
            mine = (evidence["report_id"] == r.report_id) & (evidence["dimension"] == r.dimension)
            ev = evidence[mine & (evidence["rank"] == 1)]
            items["quote"] = items["indicator"].map(dict(zip(ev["category"], ev["quote"], strict=False)))
        with st.expander(f"Checklist behind {labels.get(r.dimension, r.dimension)}: {r.value}"):
            st.html(htmltable.table(checklist_view(items)))


def render() -> None:
    """Draw the page."""
    st.title("Report")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    reports = tbl["reports"]
    models, order = data.names()
    rid = nav.select("Report", nav.narrow(order, "report", lambda r: str(models.get(r, r))), "report", lambda r: models.get(r, r))
    row = reports[reports["report_id"] == rid].iloc[0]
    st.header(escape_md(str(row["model"])))
    meta = [
        {"Field": label, "Value": _show(row.get(k))} for k, label in META.items() if not blank(row.get(k)) and str(row.get(k))
    ]
    st.html(htmltable.table(pd.DataFrame(meta), wide=("Value",)))
    status = tbl["status"]
    if not status.empty and (status["report_id"] == rid).any():
        s = status[status["report_id"] == rid].iloc[0]
        message("error" if s["status"] == "failed" else "info", f"Last run: {s['status']} — {s['message']}")
    st.subheader("Figures")
    for src, frame in _figures(key, rid):
        frame = frame.rename(columns={"words": "Words"})
        st.html(htmltable.table(frame, num=tuple(frame.columns), caption=f"{src} (whole document)"))
    st.subheader("Comparison table row")
    # Filtered reads (views/data.py): this report's rows only, never the whole comparison/evidence/sections.
    cells = data.read("comparison", report_ids=[rid])
    labels = data.dim_labels()
    if len(cells):
        view = people_cells(cells, models).drop(columns="Report")
        view.insert(0, "Dimension", [labels.get(d, d) for d in cells["dimension"]])
        st.html(htmltable.table(view, raw=("",)))
        _checklists(cells, data.read("evidence", report_ids=[rid]), labels)
    secs = data.read("sections", report_ids=[rid])
    st.subheader("Sections")
    if len(secs):
        cols = {"section": "Section", "heading": "Heading", "start_page": "From page", "end_page": "To page", "words": "Words"}
        st.html(htmltable.table(secs[[c for c in cols if c in secs]].rename(columns=cols), wide=("Heading",)))
    else:
        st.caption("Not measured: no sections (only reported figures are stored for this report).")
    st.subheader("Distinctive terms (TF-IDF against the other reports)")
    top = _top_terms(key, rid)
    if len(top):
        st.html(htmltable.table(top.rename(columns={"term": "Term", "group": "Group", "count": "Count", "tfidf": "TF-IDF"})))
    else:
        st.caption("Not measured: no terms.")
    st.download_button("Report card (Markdown)", lambda: report_card(Store(data.data_dir()), rid, data.lens()),
                       file_name=f"{rid}.md", mime="text/markdown", key="dl_card", on_click="ignore")  # fmt: skip


if __name__ == "__main__":
    render()
