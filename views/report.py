"""Report page: one report's card — metadata, figures, table row with quotes, sections, distinctive terms."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest import comparison, summaries
from ingest.store import Store
from views import data
from views.plain import escape_md, message


@st.cache_data(show_spinner=False, max_entries=64)
def _top_terms(key: data.Stamp, report_id: str) -> pd.DataFrame:
    tbl, _ = data.tables()
    return summaries.distinctive_terms(tbl["counts"], report_id)


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
            st.dataframe(items, hide_index=True, width="stretch")


def render() -> None:
    """Draw the page."""
    st.title("Report")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    reports = tbl["reports"]
    models = dict(zip(reports["report_id"], reports["model"], strict=False))
    rid = st.selectbox("Report", list(models), format_func=lambda r: models.get(r, r), key="id", bind="query-params")
    row = reports[reports["report_id"] == rid].iloc[0]
    st.header(escape_md(row["model"]))
    meta = {k: row.get(k) for k in ("organization", "country", "released", "doc_type", "arxiv_id", "params",
                                     "source_url", "pages", "words", "notes")}  # fmt: skip
    st.dataframe(pd.DataFrame([{"field": k, "value": _show(v)} for k, v in meta.items() if pd.notna(v) and str(v)]),
                 hide_index=True)  # fmt: skip
    status = tbl["status"]
    if not status.empty and (status["report_id"] == rid).any():
        s = status[status["report_id"] == rid].iloc[0]
        message("error" if s["status"] == "failed" else "info", f"Last run: {s['status']} — {s['message']}")
    one = reports[reports["report_id"] == rid]
    st.subheader("Figures")
    for src in ("reported", "measured"):
        st_ = summaries.stats_frame(one, tbl["reported"], tbl["counts"], source=src)
        if "figures" in st_.columns:
            continue
        st.caption(f"{src} (whole document)")
        st.dataframe(st_.drop(columns="model"), hide_index=True)
    st.subheader("Comparison table row")
    cmp_ = tbl["comparison"]
    labels = data.dim_labels()
    cells = cmp_[cmp_["report_id"] == rid].copy() if not cmp_.empty else cmp_
    if len(cells):
        cells["dimension"] = cells["dimension"].map(lambda d: labels.get(d, d))
        cols = [c for c in ("dimension", "value", "origin", "detail", "quote", "page_label", "section", "notes",
                            "auto_value", "disagree") if c in cells.columns]  # fmt: skip
        st.dataframe(cells[cols], hide_index=True, width="stretch")
        _checklists(cmp_[cmp_["report_id"] == rid], tbl.get("evidence"), labels)
    secs = tbl["sections"]
    secs = secs[secs["report_id"] == rid] if not secs.empty else secs
    st.subheader("Sections")
    if len(secs):
        st.dataframe(secs.drop(columns="report_id"), hide_index=True)
    else:
        st.caption("Not measured: no sections.")
    st.subheader("Distinctive terms (TF-IDF against the other reports)")
    top = _top_terms(key, rid)
    if len(top):
        st.dataframe(top, hide_index=True)
    else:
        st.caption("Not measured: no terms.")
    st.download_button("Report card (Markdown)", lambda: summaries.report_card(Store(data.data_dir()), rid),
                       file_name=f"{rid}.md", mime="text/markdown", key="dl_card", on_click="ignore")  # fmt: skip


if __name__ == "__main__":
    render()
