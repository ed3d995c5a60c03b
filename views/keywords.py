"""Keywords page: heatmap, section bars, length scatter, and measured vs reported side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest import export, summaries
from views import data, figures, nav
from views.plain import escape_md, message

SCOPE_LABELS: dict[str, str] = {
    "all": "whole document",
    "body": "body only",
    "body+appendix": "body + appendix",
    "references": "references",
}


@st.cache_data(show_spinner=False, max_entries=16)
def _matrix(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str) -> pd.DataFrame:
    tbl, _ = data.tables()
    return figures.keyword_matrix(tbl["reports"], tbl["counts"], tbl["reported"], list(terms), group, scope, prefer)  # type: ignore[arg-type]


def _open_evidence(event: object, report: str | None = None) -> None:
    target = figures.click_target(event)
    if target:
        if report and "report" not in target:
            target["report"] = report
        nav.go("evidence", **target)


def render() -> None:
    """Draw the page."""
    st.title("Keywords")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    lex = data.lexicon()
    groups = {g.id: g for g in lex.groups}
    with st.sidebar:
        st.header("Keywords")
        gid = st.selectbox("Lexicon group", list(groups), format_func=lambda g: groups[g].label, key="group",
                           bind="query-params")  # fmt: skip
        scope = st.radio("Section scope", list(SCOPE_LABELS), format_func=SCOPE_LABELS.get, key="scope",
                         bind="query-params")  # fmt: skip
        metric = st.radio("Show", ["density", "count"], key="metric", bind="query-params", horizontal=True)
        prefer = st.radio("Figures", ["measured", "reported"], key="figures", bind="query-params", horizontal=True,
                          help="Whole-document scope: the study's reported figures fill in where nothing was measured; "
                               "pick 'reported' to prefer them.")  # fmt: skip
    group = groups[gid]
    terms = [t.name for t in group.terms]
    st.caption(escape_md(group.description or ""))
    matrix = _matrix(key, gid, tuple(terms), scope, prefer)
    if matrix.empty:
        message("info", f"No {SCOPE_LABELS[scope]} figures for “{group.label}”: nothing measured yet"
                + (" (reported figures cover the whole document only)." if scope != "all" else "."))  # fmt: skip
    else:
        mixed = set(matrix["figures"])
        st.caption("Figures shown: " + ", ".join(sorted(mixed)) + ". Density is per 1,000 words of the chosen scope.")
        ev = st.plotly_chart(figures.heatmap(matrix, terms, metric), key="kw_heatmap", on_select="rerun",
                             selection_mode="points", width="stretch")  # fmt: skip
        _open_evidence(ev)
    c1, c2 = st.columns(2)
    with c1:
        ids = tbl["reports"]["report_id"].tolist()
        bars = st.plotly_chart(figures.section_bars(tbl["counts"], ids, terms, gid), key="kw_bars",
                               on_select="rerun", selection_mode="points", width="stretch")  # fmt: skip
        _open_evidence(bars)
    with c2:
        term = st.selectbox("Term for the scatter", terms, key="scatter", bind="query-params")
        pts = st.plotly_chart(figures.length_scatter(matrix, term), key="kw_scatter", on_select="rerun",
                              selection_mode="points", width="stretch")  # fmt: skip
        _open_evidence(pts)
    st.subheader("Measured vs study-reported (whole document)")
    whole = _matrix(key, gid, tuple(terms), "all", "measured")
    sbs = figures.side_by_side(whole, tbl["reported"], terms)
    if sbs.empty:
        st.caption("No report has both measured and reported figures for this group.")
    else:
        n = int(sbs["differs"].sum())
        st.caption(f"{n} of {len(sbs)} figures differ (highlighted). The study's figures are never overwritten.")
        st.dataframe(sbs.style.apply(lambda r: ["background-color: #fde2e1" if r["differs"] else "" for _ in r], axis=1),
                     hide_index=True, width="stretch")  # fmt: skip
    st.download_button(
        "Statistics table (Markdown)",
        lambda: export.to_markdown(summaries.stats_frame(tbl["reports"], tbl["reported"], tbl["counts"], source=prefer)),
        file_name="stats.md", mime="text/markdown", key="dl_kw_stats", on_click="ignore",
    )  # fmt: skip
    st.download_button("Counts (CSV)", lambda: tbl["counts"].to_csv(index=False), file_name="counts.csv",
                       mime="text/csv", key="dl_counts_csv", on_click="ignore")  # fmt: skip


if __name__ == "__main__":
    render()
