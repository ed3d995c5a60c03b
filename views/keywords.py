"""Keywords page: heatmap, section bars, length scatter, and measured vs reported side by side."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from ingest.outputs import export, stats
from views import chart_export, chart_plotly, data, figures, htmltable, keyword_charts, nav
from views import htmlchart as hc
from views.chart_data import ChartSpec
from views.plain import escape_md, message

SCOPE_LABELS: dict[str, str] = {
    "all": "whole document",
    "body": "body only",
    "body+appendix": "body + appendix",
    "references": "references",
}


# Shared (st.cache_resource), not unpickled on every rerun; callers filter it and never change it.
@st.cache_resource(show_spinner=False, max_entries=8)
def _group_counts(key: data.Stamp, group: str) -> pd.DataFrame:
    """The counts of one lexicon group (1/8 of the table): a scope or figures change filters these rows,
    not the whole counts table (2.8 million rows at 10,000 reports)."""
    counts = data.tables()[0]["counts"]
    return counts[counts["group"] == group].reset_index(drop=True) if not counts.empty else counts


@st.cache_resource(show_spinner=False, max_entries=16)
def _matrix(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str) -> pd.DataFrame:
    tbl, _ = data.tables()
    counts = _group_counts(key, group)
    return figures.keyword_matrix(tbl["reports"], counts, tbl["reported"], list(terms), group, scope, prefer)  # type: ignore[arg-type]


HEATMAP_ROWS = 30
#: Rows of the measured-vs-reported table drawn on the page (the CSV download has them all); differences
#: come first. 20, not 40: the table sits below the fold, and every row adds elements to a first render.
SIDE_BY_SIDE_ROWS = 20
# Figures are cached as objects (st.cache_resource): st.cache_data would pickle a plotly Figure on
# every hit, which costs more than building it. st.plotly_chart copies a Figure (to_dict), so the
# cached one is never changed.


def _heatmap_rows(m: pd.DataFrame, rq: str) -> tuple[pd.DataFrame, int]:
    """The rows of the first HEATMAP_ROWS reports (alphabetical) whose name contains `rq`, and how many matched."""
    if rq:
        m = figures.named(m, rq)  # (the matrix is in name order already; `named` keeps it)
    models = m["model"].unique()  # in the matrix's (name) order
    return m[figures.isin(m["model"], [str(x) for x in models[:HEATMAP_ROWS]])], len(models)


@st.cache_resource(show_spinner=False, max_entries=32)
def _heatmap(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str, metric: str, rq: str):  # type: ignore[no-untyped-def]
    """The heatmap of at most HEATMAP_ROWS reports (alphabetical; `rq` narrows by name), and how many matched."""
    shown, n = _heatmap_rows(_matrix(key, group, terms, scope, prefer), rq)
    return chart_plotly.figure(keyword_charts.heatmap(shown, list(terms), metric)), n  # type: ignore[arg-type]


@st.cache_data(show_spinner=False, max_entries=32)
def _heatmap_html(
    key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str, metric: str, rq: str
) -> tuple[str, int]:
    """The HTML heatmap of at most HEATMAP_ROWS reports (as `_heatmap`), and how many matched."""
    shown, n = _heatmap_rows(_matrix(key, group, terms, scope, prefer), rq)
    return hc.bare(hc.render(keyword_charts.heatmap(shown, list(terms), metric))), n  # type: ignore[arg-type]


@st.cache_data(show_spinner=False, max_entries=32)
def _bars_html(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str) -> str | None:
    tbl, _ = data.tables()
    spec = keyword_charts.section_bars(_group_counts(key, group), tbl["reports"]["report_id"].tolist(), list(terms), group, scope)  # type: ignore[arg-type]
    return None if spec is None else hc.bare(hc.render(spec))


#: How the sentence under a capped scatter tells the reader to narrow its points.
NARROW_BY_NAME = "narrow them with “Reports whose name contains” under More options in the sidebar"


def _scatter_points(
    key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str, term: str, rq: str, limit: int
) -> tuple[pd.DataFrame, str]:
    """The length scatter's rows (the first `limit` by name among those whose name contains `rq`) and
    the sentence saying how many of how many are drawn ("" when all are)."""
    rows, n = figures.first_points(figures.scatter_rows(_matrix(key, group, terms, scope, prefer), term), rq, limit)
    return rows, figures.points_note(len(rows), n, NARROW_BY_NAME)


@st.cache_data(show_spinner=False, max_entries=32)
def _scatter_html(
    key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str, term: str, rq: str, limit: int
) -> tuple[str | None, str]:
    rows, note = _scatter_points(key, group, terms, scope, prefer, term, rq, limit)
    spec = keyword_charts.length_scatter(rows, term, note=note)
    return (None if spec is None else hc.bare(hc.render(spec))), note


@st.cache_resource(show_spinner=False, max_entries=32)
def _bars(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str):  # type: ignore[no-untyped-def]
    tbl, _ = data.tables()
    spec = keyword_charts.section_bars(_group_counts(key, group), tbl["reports"]["report_id"].tolist(), list(terms), group, scope)  # type: ignore[arg-type]
    return None if spec is None else chart_plotly.figure(spec)


@st.cache_resource(show_spinner=False, max_entries=32)
def _scatter(key: data.Stamp, group: str, terms: tuple[str, ...], scope: str, prefer: str, term: str, rq: str, limit: int):  # type: ignore[no-untyped-def]
    rows, note = _scatter_points(key, group, terms, scope, prefer, term, rq, limit)
    spec = keyword_charts.length_scatter(rows, term, note=note)
    return (None if spec is None else chart_plotly.figure(spec)), note


# Shared (st.cache_resource): read-only here, and a hit is not unpickled on every rerun.
@st.cache_resource(show_spinner=False, max_entries=16)
def _side_by_side(key: data.Stamp, group: str, terms: tuple[str, ...]) -> pd.DataFrame:
    tbl, _ = data.tables()
    return figures.side_by_side(_matrix(key, group, terms, "all", "measured"), tbl["reported"], list(terms))


@st.cache_data(show_spinner=False, max_entries=16)
def _side_by_side_view(key: data.Stamp, group: str, terms: tuple[str, ...]) -> str:
    """The measured-vs-reported table (the first SIDE_BY_SIDE_ROWS rows, differences first) with its
    sentence as the table's caption (one element, not two), once per store generation and group: it
    depends on neither the scope nor the figures."""
    sbs = _side_by_side(key, group, terms)
    n = int(sbs["differs"].sum())
    shown = sbs.sort_values("differs", ascending=False, kind="stable").head(SIDE_BY_SIDE_ROWS)
    more = f" The {len(shown)} shown put differences first; all {len(sbs)} are in the CSV below." if len(sbs) > len(shown) else ""
    caption = f"{n} of {len(sbs)} figures differ (marked ⚠). The study's figures are never overwritten.{more}"
    marked = shown.assign(differs=shown["differs"].map({True: "⚠", False: ""}))
    return htmltable.bare(htmltable.table(marked, wide=(), caption=caption))


def _export(
    key: data.Stamp, gid: str, terms: tuple[str, ...], view: tuple[str, str, str], rq: str, picked: dict[str, str]
) -> None:
    """The page's charts as figures (views.chart_export): each spec is built from the cached frames, as
    the page builds it, only when its download is clicked. `view` is (scope, prefer, metric); the
    scatter's term is the one its fragment last left in `picked`."""
    scope, prefer, metric = view
    tbl, _ = data.tables()

    def heat() -> ChartSpec | None:
        return keyword_charts.heatmap(_heatmap_rows(_matrix(key, gid, terms, scope, prefer), rq)[0], list(terms), metric)  # type: ignore[arg-type]

    def bars() -> ChartSpec | None:
        ids = tbl["reports"]["report_id"].tolist()
        return keyword_charts.section_bars(_group_counts(key, gid), ids, list(terms), gid, scope)  # type: ignore[arg-type]

    def scatter() -> ChartSpec | None:
        term = picked.get("term") or terms[0]
        rows, note = _scatter_points(key, gid, terms, scope, prefer, term, rq, figures.scatter_points())
        return keyword_charts.length_scatter(rows, term, note=note)

    charts = [("kw_heatmap", "Heatmap", heat), ("kw_bars", "Section bars", bars), ("kw_scatter", "Length scatter", scatter)]
    chart_export.controls(charts, "Export charts as figures")


def _open_evidence(event: object) -> None:
    target = chart_plotly.clicked(event)
    if target:
        nav.go(*target[:1], **target[1])


class _Choices(NamedTuple):
    """What the pickers picked."""

    gid: str
    scope: str
    metric: str
    prefer: str
    rq: str
    interactive: bool


def _more_options() -> tuple[str, bool]:
    """The sidebar's options popover: the name filter and the chart switch (rarely changed)."""
    with st.sidebar:
        st.header("Keywords")
        # The name box and the chart switch sit in a popover: a closed popover's widgets are not drawn,
        # and a text box and a toggle add to a first render (bench/app_speed.py measures it). Its label says what is set.
        on = [w for k, w, sw in (("rq", "name filter", False), ("interactive", "interactive charts", True)) if nav.is_set(k, sw)]
        with st.popover(f"More options ({', '.join(on)})" if on else "More options", width="stretch", key="kw_more"):
            rq = st.text_input("Reports whose name contains", key="rq", bind="query-params", max_chars=200)
            interactive = st.toggle("Interactive charts", key="interactive", bind="query-params",
                                    help="Plotly charts with zoom and pan; slower to draw (the plain charts link "
                                         "every cell, bar and point to its lines as well).")  # fmt: skip
    return rq.strip(), interactive


def _pickers(groups: dict, rq: str, interactive: bool) -> _Choices:  # type: ignore[type-arg]
    """The row of pickers above the charts: lexicon group, section scope, metric and figures."""
    row = nav.picker_row()
    gid = nav.select("Lexicon group", list(groups), "group", lambda g: groups[g].label, row, width=220)
    scope = nav.select("Section scope", list(SCOPE_LABELS), "scope", SCOPE_LABELS.get, row, widget="radio", horizontal=True)
    metric = row.radio("Show", ["density", "count"], key="metric", bind="query-params", horizontal=True)
    prefer = row.radio("Figures", ["measured", "reported"], key="figures", bind="query-params", horizontal=True,
                      help="Whole-document scope: the study's reported figures fill in where nothing was measured; "
                           "pick 'reported' to prefer them.")  # fmt: skip
    return _Choices(gid, scope, metric, prefer, rq, interactive)


def _heatmap_section(key: data.Stamp, group, terms: tuple[str, ...], c: _Choices) -> bool:  # type: ignore[no-untyped-def]
    """The group's description and the term × report heatmap's sentence (which figures, the density unit,
    rows cut), then the heatmap: the plain chart's sentences in its HTML block (one element), the
    interactive chart's in one caption; whether there was anything to draw."""
    about = escape_md(group.description or "")
    matrix = _matrix(key, c.gid, terms, c.scope, c.prefer)
    if matrix.empty:
        if about:
            st.caption(about)
        message("info", f"No {SCOPE_LABELS[c.scope]} figures for “{group.label}”: nothing is measured for these terms"
                + (" (the study's reported figures cover the whole document only)." if c.scope != "all" else "."))  # fmt: skip
        return False
    mixed = {str(f) for f in matrix["figures"].unique()}
    if c.interactive:
        fig, n_models = _heatmap(key, c.gid, terms, c.scope, c.prefer, c.metric, c.rq)
    else:
        heat, n_models = _heatmap_html(key, c.gid, terms, c.scope, c.prefer, c.metric, c.rq)
    more = (
        f" Showing the first {HEATMAP_ROWS} of {n_models} reports; narrow them by name under More options in the sidebar."
        if n_models > HEATMAP_ROWS
        else ""
    )
    none_reported = (
        f" (no report has reported figures for {SCOPE_LABELS[c.scope]}, so the measured ones are shown)"
        if c.prefer == "reported" and "reported" not in mixed
        else ""
    )
    shown = (
        "Figures shown: "
        + ", ".join(sorted(mixed))
        + none_reported
        + ". Density is per 1,000 words of the chosen scope (per 1,000 characters for Chinese,"
        " Japanese and Korean documents, whose words are counted as characters)." + more
    )
    if c.interactive:
        st.caption((about + "\n\n" if about else "") + shown)
        ev = st.plotly_chart(fig, key="kw_heatmap", on_select="rerun", selection_mode="points", width="stretch")
        _open_evidence(ev)
    else:  # the sentences in the chart's HTML block: one element, not a Markdown caption beside it
        st.html((htmltable.note(group.description) if group.description else "") + htmltable.note(shown) + heat)
    return True


def _bars_and_scatter(key: data.Stamp, group, terms: tuple[str, ...], c: _Choices, picked: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """Two columns: hits by section, and one term's count against the report's length (a fragment,
    which leaves its term in `picked` for the figure exports)."""
    c1, c2 = st.columns(2)
    with c1:
        fig = _bars(key, c.gid, terms, c.scope) if c.interactive else _bars_html(key, c.gid, terms, c.scope)
        if fig is None:
            st.info(f"No measured hits of “{group.label}” in {SCOPE_LABELS[c.scope]}: the reports have only "
                    "study-reported whole-document figures, which have no split by section. Add a source file "
                    "to a report to measure it.")  # fmt: skip
        elif c.interactive:
            bars = st.plotly_chart(fig, key="kw_bars", on_select="rerun", selection_mode="points", width="stretch")
            _open_evidence(bars)
        else:
            st.html(fig)
    with c2:
        _scatter_section(key, terms, c, picked)


@st.fragment
def _scatter_section(key: data.Stamp, terms: tuple[str, ...], c: _Choices, picked: dict[str, str]) -> None:
    """The term picker and the length scatter: a fragment, so picking another term redraws this column
    only. The term goes into `picked` (the same object on every rerun of the fragment), which the figure
    exports outside it read when clicked."""
    term = nav.select("Term for the scatter", list(terms), "scatter")
    picked["term"] = term
    fig, note = (_scatter if c.interactive else _scatter_html)(key, c.gid, terms, c.scope, c.prefer, term, c.rq,
                                                               figures.scatter_points())  # fmt: skip
    if fig is None:
        st.info(f"No figures for “{term}” with a word count in this scope, so there is nothing to plot.")
    elif c.interactive:
        if note:
            st.caption(note)
        pts = st.plotly_chart(fig, key="kw_scatter", on_select="rerun", selection_mode="points", width="stretch")
        _open_evidence(pts)
    else:
        st.html(fig)  # the note is the chart's second line


def _measured_vs_reported(key: data.Stamp, gid: str, terms: tuple[str, ...]) -> None:
    """Whole-document figures a report both measured and reported, differences first, with a CSV."""
    title = htmltable.subheading("Measured vs study-reported (whole document)")
    sbs = _side_by_side(key, gid, terms)
    if sbs.empty:
        st.html(title + htmltable.note("No report has both measured and reported figures for this group."))
        return
    st.html(title + _side_by_side_view(key, gid, terms))
    st.download_button("Measured vs reported (CSV)", lambda: export.to_csv(sbs), file_name="measured-vs-reported.csv",
                       mime="text/csv", key="dl_sbs_csv", on_click="ignore")  # fmt: skip


def _downloads(tbl, prefer: str) -> None:  # type: ignore[no-untyped-def]
    """The statistics table (Markdown) and the counts (CSV) of every report."""
    st.download_button(
        "Statistics table (Markdown)",
        lambda: export.to_markdown(
            stats.stats_frame(tbl["reports"], tbl["reported"], tbl["counts"], source=prefer, figures=True)
        ),
        file_name="stats.md", mime="text/markdown", key="dl_kw_stats", on_click="ignore",
    )  # fmt: skip
    st.download_button("Counts (CSV)", lambda: export.to_csv(tbl["counts"]), file_name="counts.csv",
                       mime="text/csv", key="dl_counts_csv", on_click="ignore")  # fmt: skip


def render() -> None:
    """Draw the page: the options popover in the sidebar, then the pickers and everything they choose."""
    st.title("Keywords")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    rq, interactive = _more_options()
    # The plain charts' and the table's style sheets, once, outside the fragment (its charts and table are
    # drawn without: `hc.bare`, `htmltable.bare`): a <style> in a redrawn element restyles the whole page.
    st.html(hc.CSS + htmltable.CSS)
    _body(rq, interactive)


@st.fragment
def _body(rq: str, interactive: bool) -> None:
    """Pickers, heatmap, bars and scatter, measured vs reported, downloads: a fragment, so a pick of the
    group, scope, metric or figures redraws this section only, not the app's navigation, sidebar and
    title (nor re-runs app.py). The sidebar's options rerun the whole page (a fragment takes them as arguments)."""
    tbl, key = data.tables()
    groups = {g.id: g for g in data.lexicon().groups}
    choices = _pickers(groups, rq, interactive)
    group = groups[choices.gid]
    terms = tuple(t.name for t in group.terms)
    drawn = _heatmap_section(key, group, terms, choices)
    picked: dict[str, str] = {}
    _bars_and_scatter(key, group, terms, choices, picked)
    if drawn:
        _export(key, choices.gid, terms, (choices.scope, choices.prefer, choices.metric), choices.rq, picked)
    _measured_vs_reported(key, choices.gid, terms)
    _downloads(tbl, choices.prefer)


if __name__ == "__main__":
    render()
