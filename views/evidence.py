"""Evidence page: the sentences behind a number — comparison quotes per dimension, KWIC lines per term.

Quotes are shown whole and wrapped, columns are named for readers, and every quote links to
"see the page" (the source page with the sentence highlighted).
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from ingest.outputs.mdtable import blank
from ingest.reading.sections import SECTIONS
from views import data, htmltable, nav
from views.review import show_auto_beside_curated

ALL = "*"
KWIC_LIMIT = 500
#: Table cells and candidate sentences drawn for "all reports" at first (10,000 reports hold 10,000 cells and
#: 30,000 sentences per dimension: 18 MB of HTML, seconds to build and to draw); the first by report
#: name, and a sentence says how many there are; "Show more rows" adds as many again, and picking one
#: report shows all of its own. Picking "all reports" is an interaction timed by bench/app_speed.py, and
#: the browser's work on it grows with the rows drawn (its renderer CPU is printed beside it).
ROW_LIMIT = 25
#: Rows per table for one picked report (its own rows, as before "all reports" was cut to ROW_LIMIT).
REPORT_LIMIT = 50
MORE = "ev_rows"  # session state: (report, dimension, rows shown) after "Show more rows"
KWIC_COLUMNS = data.KWIC_COLUMNS


def kwic_rows(kwic: pd.DataFrame, report: str, term: str, section: str) -> pd.DataFrame:
    """KWIC lines for a term, optionally one report and one section, with page and section."""
    if kwic.empty or not term:
        return pd.DataFrame(columns=KWIC_COLUMNS)
    m = kwic["term"] == term
    if report != ALL:
        m &= kwic["report_id"] == report
    if section:
        m &= kwic["section"] == section
    return data.shape_kwic(kwic[m])


def dimension_rows(comparison: pd.DataFrame, evidence: pd.DataFrame, report: str, dim: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table cells of a dimension (with their quote) and the ranked candidate evidence sentences."""
    cells = comparison[comparison["dimension"] == dim] if not comparison.empty else comparison
    ev = evidence[evidence["dimension"] == dim] if not evidence.empty else evidence
    if report != ALL:
        cells = cells[cells["report_id"] == report] if not cells.empty else cells
        ev = ev[ev["report_id"] == report] if not ev.empty else ev
    return cells, ev


def first_by_report(rows: pd.DataFrame, models: dict[str, str], limit: int = ROW_LIMIT) -> tuple[pd.DataFrame, int]:
    """The first `limit` rows in report-name order (a report's own rows keep their order), and how many
    rows there were."""
    if len(rows) <= 1:
        return rows, len(rows)
    names = pd.Series([str(models.get(r, r)).casefold() for r in rows["report_id"].unique()], index=rows["report_id"].unique())
    order = rows["report_id"].map(names)
    return rows.assign(_name=order.to_numpy()).sort_values("_name", kind="stable").drop(columns="_name").head(limit), len(rows)


def _more(shown: int, total: int, what: str) -> str:
    """The sentence under a table cut at ROW_LIMIT rows ("" when every row is shown)."""
    if total <= shown:
        return ""
    return (f"{total:,} {what}; the first {shown:,} by report name are shown. "
            "“Show more rows” below adds more; pick one report above to see its own.")  # fmt: skip


def people_cells(cells: pd.DataFrame, models: dict[str, str]) -> pd.DataFrame:
    """Table cells with reader-facing columns: Report, Value, Origin, Study's wording, Quote, Page, Section, Notes."""
    rows = []
    for c in cells.to_dict("records"):
        rid = c["report_id"]
        auto = c.get("auto_value") if c.get("disagree") is True else None
        rows.append({
            "Report": models.get(rid, rid), "Value": c.get("value"), "Origin": c.get("origin") or "none",
            "Automatic reading (disagrees)": auto, "Study's wording": c.get("detail"), "Quote": c.get("quote"),
            "Page": htmltable.page_of(c), "Section": c.get("section"), "Notes": c.get("notes"),
            "": htmltable.see_link(rid, c, c.get("quote")),
        })  # fmt: skip
    df = pd.DataFrame(rows)
    keep = [c for c in df.columns if c == "" or df[c].map(lambda v: not blank(v) and str(v) != "").any()]
    return df.loc[:, keep] if len(df) else df


def people_evidence(ev: pd.DataFrame, models: dict[str, str]) -> pd.DataFrame:
    """Candidate sentences: Report, Category, Rank, Quote, Page, Section; the cue score only where it varies."""
    rows = [{
        "Report": models.get(e["report_id"], e["report_id"]), "Category": e.get("category"), "Rank": e.get("rank"),
        "Cue score": e.get("score"), "Quote": e.get("quote"), "Page": htmltable.page_of(e), "Section": e.get("section"),
        "": htmltable.see_link(e["report_id"], e, e.get("quote")),
    } for e in ev.to_dict("records")]  # fmt: skip
    df = pd.DataFrame(rows)
    if len(df) and df["Cue score"].nunique(dropna=False) <= 1:
        df = df.drop(columns="Cue score")
    return df


ORIGIN_NOTE = "Origin: curated = hand-checked (from the report file), auto = found by the pipeline, none = not assessed."
NO_EVIDENCE = "No automatic evidence stored for this selection."


class DimensionView(NamedTuple):
    """A dimension's evidence for one report (or all), ready to draw: the table cells and the ranked
    candidate sentences as HTML without the CSS (the page draws `htmltable.CSS` once), each with its
    explanation and the sentence saying how many rows were cut as the table's caption."""

    cells_html: str
    ev_html: str | None  # None: no automatic evidence stored for this selection
    cut: bool  # a table was cut at `limit` rows


# Shared objects (st.cache_resource; the page only reads them), once per store generation and choice:
# a revisit or a rerun (a widget elsewhere on the page) does no pandas work.
@st.cache_resource(show_spinner=False, max_entries=64)
def _dimension_view(key: data.Stamp, report: str, dim: str, limit: int = ROW_LIMIT) -> DimensionView:
    models, _ = data.names()
    # Filtered reads (views/data.py): only this dimension's (and report's) evidence is loaded.
    cmp_ = data.tables()[0]["comparison"]
    cells, ev = dimension_rows(cmp_, data.evidence_rows(None if report == ALL else report, dim), report, dim)
    cells, n_cells = first_by_report(cells, models, limit)
    said = " ".join(x for x in (ORIGIN_NOTE, _more(len(cells), n_cells, "table cells")) if x)
    cells_html = htmltable.bare(htmltable.table(people_cells(cells, models), raw=("",), caption=said))
    if ev.empty:
        return DimensionView(cells_html, None, n_cells > len(cells))
    ev, n_ev = first_by_report(ev, models, limit)
    table = htmltable.table(people_evidence(ev, models), raw=("",), caption=_more(len(ev), n_ev, "candidate sentences"))
    return DimensionView(cells_html, htmltable.bare(table), n_cells > len(cells) or n_ev > len(ev))


def _rows(report: str, dim: str) -> int:
    """How many rows per table the reader asked for on this selection ("Show more rows"; a new one starts
    at ROW_LIMIT)."""
    r, d, n = st.session_state.get(MORE, ("", "", ROW_LIMIT))
    return n if (r, d) == (report, dim) else ROW_LIMIT


def _show_more(report: str, dim: str) -> None:
    st.session_state[MORE] = (report, dim, _rows(report, dim) + ROW_LIMIT)


def kwic_line(left: object, match: object, right: object) -> str:
    """One KWIC line, "…left [match] right…", that never splits a word: a match inside a longer word
    (the study counts substrings) stays glued to it ("[reward]s", "multi-[agent]"), with a space
    only where the text has one."""
    a, m, b = (x if isinstance(x, str) else "" for x in (left, match, right))
    gap_l = " " if a[-1:].isspace() else ""
    gap_r = " " if b[:1].isspace() else ""
    return f"…{a.strip()}{gap_l}[{m}]{gap_r}{b.strip()}…"


@st.cache_resource(show_spinner=False, max_entries=64)
def _kwic_view(key: data.Stamp, report: str, term: str, section: str) -> tuple[int, str | None]:
    """How many KWIC lines there are and the first KWIC_LIMIT as an HTML table (None: no lines)."""
    models, _ = data.names()
    rows = data.kwic_rows(None if report == ALL else report, term, section)  # never the whole KWIC table
    if rows.empty:
        return 0, None
    rows = rows.assign(_m=rows["report_id"].map(lambda r: str(models.get(r, r)).casefold()))
    shown = rows.sort_values(["_m", "page_no"], kind="stable").head(KWIC_LIMIT)
    view = pd.DataFrame({
        "Report": shown["report_id"].map(lambda r: models.get(r, r)), "Page": shown["page"].astype(str),
        "Section": shown["section"],
        "Line": [kwic_line(a, m, b) for a, m, b in zip(shown["left"], shown["match"], shown["right"], strict=True)],
        "": [htmltable.see_link(r["report_id"], r, r["match"]) for r in shown.to_dict("records")],
    })  # fmt: skip
    return len(rows), htmltable.table(view, wide=("Line",), raw=("",))


def render() -> None:
    """Draw the page."""
    st.title("Evidence")
    st.html(htmltable.CSS)  # once, outside the fragment (see `htmltable.bare`)
    # With more reports than a picker lists, its search box: a popover above the pickers, outside the
    # fragment (the same for every pick), as on Review.
    nav.search_popover(len(data.names()[1]) + 1, "report", keep=1)
    _body()


@st.fragment
def _body() -> None:
    """The pickers and what they select: a fragment, so a pick redraws this section only, not the
    app's navigation and title (nor re-runs app.py)."""
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    models, order = data.names()
    labels = data.dim_labels()
    terms = sorted({t.name for g in data.lexicon().groups for t in g.terms}, key=str.casefold)
    row = nav.picker_row()

    def label(r: str) -> str:
        return "all reports" if r == ALL else str(models.get(r, r))

    asked = nav.unknown_id("report", [ALL, *order])
    if asked is not None:  # a link to a report the store lacks: say so, never show all reports instead
        nav.no_such_report(asked)
    report = nav.select("Report", nav.narrow([ALL, *order], "report", label, keep=1), "report", label, row,
                        **({"index": None} if asked else {}))  # fmt: skip
    dim = nav.select("Dimension", ["", *labels], "dim", lambda d: labels.get(d, "—"), row)
    term = nav.select("Term", ["", *terms], "term", lambda t: t or "—", row)
    section = nav.select("Section", ["", *SECTIONS], "section", lambda s: s or "any", row)
    if report is None:
        return
    if not dim and not term:
        st.info("Pick a dimension or a term (or click a heatmap cell or bar on the Keywords page).")
        return
    if dim:
        limit = _rows(report, dim) if report == ALL else max(REPORT_LIMIT, _rows(report, dim))
        view = _dimension_view(key, report, dim, limit)
        # One HTML block: each table under its title (htmltable.subheading), each explanation its caption.
        st.html(htmltable.subheading(f"{labels.get(dim, dim)}: table cells") + view.cells_html
                + htmltable.subheading("Candidate evidence sentences")
                + (htmltable.note(NO_EVIDENCE) if view.ev_html is None else view.ev_html))  # fmt: skip
        cut = show_auto_beside_curated(tbl["comparison"], lambda d: data.evidence_rows(None if report == ALL else report, d),
                                       report, dim, limit)  # fmt: skip
        if view.cut or cut:
            st.button(f"Show {ROW_LIMIT} more rows", key="ev_more", on_click=_show_more, args=(report, dim))
    if term:
        n, table = _kwic_view(key, report, term, section)
        where = "all reports" if report == ALL else models.get(report, report)
        title = htmltable.subheading(f"“{term}” in {where}" + (f" ({section})" if section else ""))
        if table is None:
            said = "No keyword-in-context lines stored (the report may be unmeasured: reported figures have no lines)."
            st.html(title + htmltable.note(said))
        else:
            said = f"{n} line(s)" + (f"; showing the first {KWIC_LIMIT}" if n > KWIC_LIMIT else "")
            st.html(title + htmltable.note(said) + htmltable.bare(table))


if __name__ == "__main__":
    render()
