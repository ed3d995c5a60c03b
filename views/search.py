"""Search page: any word or phrase in the stored text of every measured report, as KWIC lines.

The text is the one each report was read from (ingest.outputs.search reads the store's text cache);
the query is literal text, shown back as plain text. Each line links to its page ("see the page").
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest.outputs import search
from ingest.store.store import Store
from views import data, htmltable
from views.evidence import kwic_line
from views.plain import escape_md

#: Lines drawn on a first render; a button draws the rest (up to search.MAX_HITS): every line is HTML the
#: browser sanitises and lays out on every visit (bench/app_speed.py times the page at 500 reports).
SHOWN = 100
ALL = "search_all"  # session state: the query whose lines are all shown


@st.cache_data(show_spinner=False, max_entries=32)
def _search(key: data.Stamp, query: str) -> tuple[pd.DataFrame, int, int]:
    """KWIC rows of `query` in every measured report (name order), reports searched, reports with text."""
    tbl, _ = data.tables()
    models, order = data.names()
    reports = tbl["reports"].set_index("report_id")
    sources = [
        (rid, str(reports.at[rid, "sha256"]), str(reports.at[rid, "engine"]))
        for rid in order
        if rid in reports.index and isinstance(reports.at[rid, "sha256"], str) and isinstance(reports.at[rid, "engine"], str)
    ]
    hits, read = search.search_store(Store(data.data_dir()), sources, query)
    rows = pd.DataFrame({
        "Report": [models.get(h.report_id, h.report_id) for h in hits],
        "Page": [h.label or str(h.page) for h in hits],
        "Line": [kwic_line(h.left, h.match, h.right) for h in hits],
        "": [htmltable.see_link(h.report_id, {"page": h.page}, h.match) for h in hits],
    })  # fmt: skip
    return rows, len(sources), read


def render() -> None:
    """Draw the page."""
    st.title("Search")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    query = st.text_input("Word or phrase (any text, not only lexicon terms; case-insensitive)", key="q",
                          bind="query-params", max_chars=search.MAX_QUERY)  # fmt: skip
    q = search.clean_query(query)
    if not q:
        st.caption("Searches the text every measured report was read from; each line links to its page.")
        return
    rows, n_sources, n_read = _search(key, q)
    cap = f" (at most {search.PER_REPORT} lines per report, {search.MAX_HITS} in all)" if len(rows) >= search.PER_REPORT else ""
    st.caption(escape_md(f"{len(rows)} line(s) with “{q}” in {n_read} report(s) with stored text{cap}."))
    if n_read < n_sources:
        st.caption(f"{n_sources - n_read} report(s) have no stored text any more: run `python -m ingest` to read them again.")
    if len(rows) > SHOWN and st.session_state.get(ALL) != q:  # "show all" holds for this query only
        st.html(htmltable.table(rows.head(SHOWN), wide=("Line",), raw=("",)))
        st.button(f"Show all {len(rows)} lines (the first {SHOWN} are shown)", key="search_more",
                  on_click=st.session_state.__setitem__, args=(ALL, q))  # fmt: skip
    elif len(rows):
        st.html(htmltable.table(rows, wide=("Line",), raw=("",)))


if __name__ == "__main__":
    render()
