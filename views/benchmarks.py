"""Benchmarks page: coverage by category, own-model scores with provenance, a table rebuilt as
printed, and claims (scores) beside disclosure. Data from `ingest.outputs.scores`; chart specs from
`views.benchmark_charts`; categories from the catalogue, levels and claims categories from the lens.
"""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import streamlit as st

from ingest.analysis.benchmarks import DEFAULT_CATALOGUE, Catalogue, load_catalogue
from ingest.analysis.lens import NOT_ASSESSED
from ingest.outputs import mdtable, results_wide, scores
from ingest.outputs.leaderboard import benchmarks_by_reach, disagreements, leaderboard
from ingest.outputs.neutral import to_csv
from ingest.outputs.report_card import VERIFIED_MEANS
from ingest.outputs.stats import STATS_GROUP
from views import benchmark_charts as bc
from views import chart_data as cd
from views import chart_export, chart_plotly, data, figures, htmltable, nav
from views import htmlchart as hc
from views.plain import escape_md, message, redact

BARS_KEY = "bench_bars"
#: Set when a click on a chart picked a table: the chart's fragment then reruns the whole page, whose
#: table section is outside the fragments.
_OPENED = "bench_chart_opened"
CLAIMS_KEY = "bench_claims"
#: Rows drawn by the plain (HTML) coverage table and score bars; the CSV downloads have them all.
COVERAGE_ROWS = 40
BAR_ROWS = 60
#: Leaderboard rows drawn for the picked benchmark (highest first); its CSV has every benchmark's rows.
BOARD_ROWS = 20


@st.cache_data(show_spinner=False, max_entries=4)
def _catalogue(mtime: int) -> Catalogue:
    return load_catalogue()


def catalogue() -> Catalogue:
    """The benchmark catalogue (data/benchmarks.yaml), reloaded when the file changes."""
    return _catalogue(DEFAULT_CATALOGUE.stat().st_mtime_ns)


def claims_categories(cat: Catalogue) -> list[str]:
    """The active lens's declared claims categories that the catalogue knows (unknown ones are dropped)."""
    return [c for c in data.lens().claims_categories if c in cat.categories]


def _names(sentence: str, ids: list[str], models: dict[str, str]) -> str:
    shown = [models.get(r, r) for r in ids]
    more = f" and {len(shown) - 12} more" if len(shown) > 12 else ""
    return f"{sentence} ({len(ids)}): " + ", ".join(shown[:12]) + more + "."


def provenance_sentence(rr: scores.ReportResults, models: dict[str, str]) -> str:
    """One sentence saying which reports have scores read from tables, curated ones only, or none."""
    parts = []
    if rr.read:
        parts.append(_names("Scores read from the reports' result tables", rr.read, models))
    cur = rr.curated_only
    parts.append(_names("Curated scores only", cur, models) if cur else "No report has curated scores only.")
    if rr.none:
        parts.append(
            _names("No benchmark results", rr.none, models)
            + " They have no source text or no readable result table; scores a reader takes from an image go in the "
            "report's results: block."
        )
    return " ".join(parts)


# Cached on the store's stamp (shared, st.cache_resource: the page only reads these frames, and a hit
# is not unpickled): a rerun that changes one picker recomputes only what depends on it.
@st.cache_resource(show_spinner=False, max_entries=4)
def _coverage_matrix(key: data.Stamp) -> pd.DataFrame:
    tbl, _ = data.tables()
    return scores.coverage_matrix(tbl["reports"], tbl["results"], catalogue().categories)


@st.cache_data(show_spinner=False, max_entries=4)
def _provenance(key: data.Stamp) -> str:
    """`provenance_sentence` of the stored tables, once per store generation (a groupby over every score)."""
    tbl, _ = data.tables()
    return provenance_sentence(scores.report_results(tbl["reports"], tbl["results"]), _models(key))


def _models(key: data.Stamp) -> dict[str, str]:
    return data.names()[0]


@st.cache_data(show_spinner=False, max_entries=16)
def _level_of(key: data.Stamp, dim_id: str) -> dict[str, str]:
    return scores.level_of(data.tables()[0]["comparison"], dim_id)


def _named_coverage(key: data.Stamp, rq: str) -> pd.DataFrame:
    """The coverage matrix's rows of reports whose name contains `rq` (all when empty)."""
    m, names = _coverage_matrix(key), _models(key)
    return m[[rq.casefold() in str(names.get(r, r)).casefold() for r in m.index]] if rq else m


@st.cache_resource(show_spinner=False, max_entries=16)
def _coverage(key: data.Stamp, rq: str = "") -> object:
    """The plotly coverage heatmap: the first COVERAGE_ROWS reports by name whose name contains `rq`."""
    m, names = _named_coverage(key, rq), _models(key)
    order = sorted(m.index, key=lambda r: str(names.get(r, r)).casefold())[:COVERAGE_ROWS]
    return chart_plotly.figure(bc.coverage_table(m.loc[order], names, COVERAGE_ROWS)[0])


def _coverage_spec(key: data.Stamp, rq: str) -> cd.HeatSpec:
    """The coverage chart's spec (the figure export builds it when a download is clicked)."""
    return bc.coverage_table(_named_coverage(key, rq), _models(key), COVERAGE_ROWS)[0]


@st.cache_data(show_spinner=False, max_entries=16)
def _coverage_html(key: data.Stamp, rq: str = "") -> tuple[str, int]:
    """The plain coverage table (first COVERAGE_ROWS reports by name whose name contains `rq`) and how
    many reports with results matched."""
    spec, n = bc.coverage_table(_named_coverage(key, rq), _models(key), COVERAGE_ROWS)
    return hc.bare(hc.render(spec)), n


def _more_options(n_reports: int, limit: int) -> tuple[str, bool]:
    """The sidebar's "More options" popover (as on Keywords): the "Reports whose name contains" box,
    which narrows the coverage table and both scatters (drawn only when there are more reports than a
    scatter draws points, or a link set it), and the "Interactive charts" switch. In a popover since
    every widget kind adds to a page's first render (bench/app_speed.py measures it), while a closed
    popover's widgets are not drawn; its label says what is set."""
    box = n_reports > limit or nav.is_set("rq")
    on = [w for k, w, sw in (("rq", "name filter", False), ("interactive", "interactive charts", True)) if nav.is_set(k, sw)]
    with st.popover(f"More options ({', '.join(on)})" if on else "More options", width="stretch", key="bench_more"):
        rq = st.text_input("Reports whose name contains", key="rq", bind="query-params", max_chars=200) if box else ""
        interactive = st.toggle("Interactive charts", key="interactive", bind="query-params",
                                help="Plotly charts with zoom and pan; slower to draw (the plain charts link "
                                     "every bar and point to its table as well).")  # fmt: skip
    return str(rq or "").strip(), bool(interactive)


def _narrowing(has_box: bool, extra: str = "") -> str:
    """How the sentence under a capped scatter tells the reader to narrow its points."""
    box = ["use “Reports whose name contains” under More options in the sidebar"] if has_box else []
    ways = box + ([extra] if extra else [])
    return "narrow them: " + " or ".join(ways) if ways else "the others are not drawn"


def _here() -> list[tuple[str, str]]:
    """This page's URL parameters (a chart's links keep them)."""
    return [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]


@st.cache_resource(show_spinner=False, max_entries=4)
def _choices(key: data.Stamp) -> pd.DataFrame:
    return scores.benchmark_choices(data.tables()[0]["results"])


@st.cache_resource(show_spinner=False, max_entries=32)
def _own(key: data.Stamp, bench: str) -> pd.DataFrame:
    tbl, _ = data.tables()
    return scores.own_scores(tbl["results"], tbl["reports"], bench)


@st.cache_resource(show_spinner=False, max_entries=32)
def _claims(key: data.Stamp, dim_id: str, levels: tuple[str, ...], cats: tuple[str, ...]) -> pd.DataFrame:
    tbl, _ = data.tables()
    percent = {b.id for b in catalogue().benchmarks if b.unit == "%"}
    return scores.claims(tbl["results"], tbl["reports"], tbl["comparison"], dim_id, list(levels), list(cats), percent)


@st.cache_resource(show_spinner=False, max_entries=32)
def _density(key: data.Stamp, cats: tuple[str, ...], term: str) -> pd.DataFrame:
    tbl, _ = data.tables()
    return scores.coverage_vs_density(tbl["reports"], tbl["results"], tbl["counts"], tbl["reported"], list(cats),
                                      STATS_GROUP, term)  # fmt: skip


# The plain charts' HTML, once per store generation and choice (a spec and its markup cost tens of ms
# per chart on every rerun otherwise). `here` is the page's URL parameters, which the charts' links keep.
@st.cache_data(show_spinner=False, max_entries=32)
def _bars_html(key: data.Stamp, bench: str, name: str, here: tuple[tuple[str, str], ...]) -> str:
    return hc.bare(hc.render(bc.score_bars(_own(key, bench), name, list(here), BAR_ROWS)))


@st.cache_data(show_spinner=False, max_entries=32)
def _claims_html(
    key: data.Stamp, dim: tuple[str, tuple[str, ...], str], cats: tuple[str, ...], narrow: tuple[str, int, bool],
    here: tuple[tuple[str, str], ...],
) -> str:  # fmt: skip
    """The plain claims scatter of level dimension `dim` (id, levels, label)."""
    (dim_id, values, label), (rq, limit, has_box) = dim, narrow
    shown, n = figures.first_points(_claims(key, dim_id, values, cats), rq, limit, column="report")
    note = figures.points_note(len(shown), n, _narrowing(has_box, "pick fewer benchmark categories"))
    return hc.bare(hc.render(bc.claims_scatter(shown, [NOT_ASSESSED, *values], label, list(here), note)))


@st.cache_data(show_spinner=False, max_entries=32)
def _density_html(key: data.Stamp, cats: tuple[str, ...], term: str, narrow: tuple[str, int, bool]) -> str:
    rq, limit, has_box = narrow
    shown, n = figures.first_points(_density(key, cats, term), rq, limit, column="report")
    return hc.bare(hc.render(bc.density_scatter(shown, term, figures.points_note(len(shown), n, _narrowing(has_box)))))


def _on_click(chart_key: str) -> None:
    """A clicked bar or point opens its table below (report and table are URL-bound)."""
    target = chart_plotly.clicked(st.session_state.get(chart_key))
    params = target[1] if target else {}
    if params.get("report") and params.get("table"):
        st.session_state["report"], st.session_state["table"] = params["report"], params["table"]
        st.session_state[_OPENED] = True


def _rerun_if_opened() -> None:
    """End a fragment's run with a run of the whole page when one of its charts picked a table."""
    if st.session_state.pop(_OPENED, False):
        st.rerun(scope="app")


def render() -> None:
    """Draw the page."""
    st.title("Benchmarks")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    reports, results = tbl["reports"], tbl["results"]
    models = _models(key)
    cat = catalogue()
    message("info", _provenance(key))
    # The plain charts' and tables' style sheets, once, outside the fragments (every chart and table is
    # drawn without: `hc.bare`, `htmltable.bare`): a <style> in a redrawn element restyles the whole page.
    st.html(hc.CSS + htmltable.CSS)
    limit = figures.scatter_points()
    with st.sidebar:
        rq, interactive = _more_options(len(reports), limit)
    has_box = len(reports) > limit or bool(rq)

    st.subheader("Coverage")
    cov, n = _coverage_html(key, rq)
    if n > COVERAGE_ROWS:
        st.caption(f"The first {COVERAGE_ROWS} of {n} reports with results, by name; the CSV has them all.")
    if interactive:
        st.plotly_chart(_coverage(key, rq), key="bench_coverage", width="stretch")
    else:
        st.html(cov)
    st.download_button("Coverage (CSV)", lambda: to_csv(_coverage_matrix(key), index=True), file_name="coverage.csv",
                       mime="text/csv", key="dl_bench_coverage", on_click="ignore")  # fmt: skip
    chart_export.controls([("bench_coverage", "Coverage", lambda: _coverage_spec(key, rq))])

    _scores_section(key, cat, interactive)
    _table_section(results, tbl["result_notes"], models)
    _leaderboard_section(key)
    _claims_section(key, tbl, cat, interactive, (rq, limit, has_box))


@st.fragment
def _scores_section(key: data.Stamp, cat: Catalogue, interactive: bool) -> None:
    """One benchmark's own-model scores. A fragment: picking another benchmark redraws this section
    only; a click that opens a table below reruns the page (the table section is outside it)."""
    st.subheader("Scores on one benchmark")
    choices = _choices(key)
    if choices.empty:
        st.caption("No own-model score is stored yet, so there is nothing to compare on one benchmark.")
        return
    n_reports = dict(zip(choices["benchmark_id"], choices["reports"], strict=True))

    # nav.select: the picker shows names while the URL carries the catalogue id.
    bench = nav.select("Benchmark", list(n_reports), "benchmark", lambda b: cat.by_id[b].name if b in cat.by_id else b)
    entry = cat.by_id.get(bench)
    own = _own(key, bench)
    # One caption, always drawn: an element that comes and goes between picks shifts every element
    # after it, and the browser then re-creates them instead of updating them.
    about = [] if entry is None else [escape_md(f"{entry.name}: {cat.categories.get(entry.category, entry.category)}, "
                                                f"own-model scores in {n_reports.get(bench, 0)} report(s).")]  # fmt: skip
    if len(own) > BAR_ROWS:
        about.append(f"The {BAR_ROWS} highest of {len(own)} own-model scores; the CSV below has them all.")
    st.caption(" ".join(about))
    if interactive:
        st.plotly_chart(
            chart_plotly.figure(bc.score_bars(own, entry.name if entry else bench, _here(), BAR_ROWS)), key=BARS_KEY,
            on_select=lambda: _on_click(BARS_KEY), selection_mode="points", width="stretch",
        )  # fmt: skip
    else:
        st.html(_bars_html(key, bench, entry.name if entry else bench, tuple(_here())))
    base = _here()
    chart_export.controls([("bench_bars", "Scores", lambda: bc.score_bars(own, entry.name if entry else bench, base, BAR_ROWS))])
    st.caption(
        "Only the reports' own models (★ in tables); a report with several own rows (sizes, modes, metrics, "
        f"tables) has a bar each. {scores.CURATED_MARK} curated · {scores.FLAG_MARK} flagged for review."
    )
    shown = own.drop(columns=["label", "table_key"]).rename(columns={"report": "report model"})
    # A lazy popover: its table and download are sent and drawn only while it is open (opening it reruns
    # this fragment), not on the page's first render nor on every benchmark pick.
    pop = st.popover("Scores with their table and page", key="bench_scores_pop", on_change="rerun")
    if pop.open:
        with pop:
            st.html(htmltable.bare(htmltable.table(shown.head(BAR_ROWS), wide=("caption",))))
            st.download_button("Shown scores (CSV)", lambda: to_csv(shown), file_name=f"{bench}-scores.csv",
                               mime="text/csv", key="dl_bench_scores", on_click="ignore")  # fmt: skip
    _rerun_if_opened()


def _table_section(results: pd.DataFrame, notes: pd.DataFrame, models: dict[str, str]) -> None:
    st.subheader("Result table", anchor=bc.TABLE_ANCHOR)
    with_rows = list(dict.fromkeys(results["report_id"])) if len(results) else []
    if not with_rows:
        st.caption("No result table stored.")
        return
    _result_downloads(results)
    row = nav.picker_row()
    nav.sync_in("report", with_rows)
    rid = row.selectbox("Report", with_rows, key="report", format_func=lambda r: str(models.get(r, r)))
    # as for the table below: a clicked bar's report stays in the address even when it is the first one
    nav.sync_out("report", rid, None if "table" in st.query_params else with_rows[0])
    keys = scores.report_tables(results, rid)
    nav.sync_in("table", keys)
    if st.session_state.get("table") not in keys:
        st.session_state["table"] = keys[0]
    key = row.selectbox("Table", keys, key="table")
    # A table the URL names stays in it, the first one too: removing a parameter rewrites the address
    # and drops the #result-table fragment of a clicked bar before the table is scrolled into view.
    nav.sync_out("table", key, None if "table" in st.query_params else keys[0])
    piv, facts = _rebuilt(data.tables()[1], rid, key)
    if piv.empty:
        st.caption("This table has no stored cells.")
        return
    st.text(redact(f"{models.get(rid, rid)} — {key} ({facts['cells']} cells, {facts['origin']}): {facts['caption']}".strip()))
    st.html(f'<div data-table="bench_table">{htmltable.bare(htmltable.table(piv, wide=()))}</div>')
    if "table" in st.query_params:  # a clicked bar or point (or a link) named this table: bring it into view
        _scroll_to(bc.TABLE_ANCHOR, f"{rid}\x1f{key}")
    st.caption(
        f"{scores.OWN_MARK} the report's own model · {scores.CURATED_MARK} curated (entered by hand in the report's "
        f"YAML) · {scores.FLAG_MARK} flagged for review · values as printed, footnote markers removed."
    )
    if facts["flags"]:
        message("warning", f"Needs review (not every number verified): {facts['flags']}")
    elif facts["origin"] == "auto":
        st.caption(VERIFIED_MEANS)
    mine = notes[notes["report_id"] == rid]["note"].tolist() if len(notes) else []
    if mine:
        with st.expander(f"Notes on this report's result tables ({len(mine)})"):
            for n in mine:
                st.text(redact(n))


# Shared (st.cache_resource): the page only reads it. A pivot of the report's cells, once per store
# generation, report and table, not on every rerun of the page.
@st.cache_resource(show_spinner=False, max_entries=64)
def _rebuilt(key: data.Stamp, rid: str, table: str) -> tuple[pd.DataFrame, dict]:  # type: ignore[type-arg]
    return scores.rebuild_table(data.tables()[0]["results"], rid, table)


def _result_downloads(results: pd.DataFrame) -> None:
    """Every stored score: long (a row per score, with table and page) and wide (a row per report ×
    model × setting, a column per benchmark), built only when clicked."""

    def wide() -> pd.DataFrame:
        tbl, _ = data.tables()
        return results_wide.wide_results(results, tbl["reports"], {b.id: b.name for b in catalogue().benchmarks})

    c1, c2, c3 = st.columns(3)
    c1.download_button("All results, long (CSV)", lambda: to_csv(results), file_name="results-long.csv",
                       mime="text/csv", key="dl_results_long", on_click="ignore")  # fmt: skip
    c2.download_button("All results, wide (CSV)", lambda: to_csv(wide()), file_name="results-wide.csv",
                       mime="text/csv", key="dl_results_wide", on_click="ignore")  # fmt: skip
    c3.download_button("All results, wide (Markdown)", lambda: mdtable.to_markdown(wide()), file_name="results-wide.md",
                       mime="text/markdown", key="dl_results_wide_md", on_click="ignore")  # fmt: skip


#: Scrolls the page to an element id once it is laid out, when the address's fragment names it. Streamlit
#: scrolls to a heading's anchor as soon as the heading is drawn, while the page below it is still short,
#: so the scroll stops short of a table drawn after it; this runs after the table.
#: st.html runs it in the page itself (no iframe); `shown` differs per table, so a rerun that shows
#: another table draws a new element and the script runs again. Both are ids and a hash, never report text.
_SCROLL_JS = """<script data-shown="%s">
(() => { const id = %s; let n = 0;
  const go = () => { const el = document.getElementById(id);
    if (location.hash === "#" + id && el) { el.scrollIntoView({block: "start"}); }
    else if (n++ < 20) { setTimeout(go, 100); } };
  setTimeout(go, 50); })();
</script>"""


def _scroll_to(anchor: str, shown: str) -> None:
    """Bring the heading `anchor` to the top of the window when the URL's fragment names it."""
    tag = hashlib.sha256(shown.encode("utf-8")).hexdigest()[:12]
    st.html(_SCROLL_JS % (tag, json.dumps(anchor)), unsafe_allow_javascript=True)


# Shared (st.cache_resource, as the other frames below the pickers): read-only, and not unpickled on
# every rerun (st.cache_data copies a frame by pickling it on each hit).
@st.cache_resource(show_spinner=False, max_entries=4)
def _board(key: data.Stamp) -> pd.DataFrame:
    return leaderboard(data.tables()[0]["results"], catalogue())


@st.cache_resource(show_spinner=False, max_entries=4)
def _reach(key: data.Stamp) -> list[str]:
    """The leaderboard's benchmarks in `benchmarks_by_reach` order, once per store generation."""
    return benchmarks_by_reach(_board(key))


@st.cache_resource(show_spinner=False, max_entries=32)
def _board_rows(key: data.Stamp, pick: str) -> tuple[pd.DataFrame, int]:
    """One benchmark's leaderboard rows and how many of them another report prints differently."""
    board = _board(key)
    shown = board[board["benchmark"] == pick].drop(columns=["benchmark", "category"])
    return shown, len(disagreements(shown))


@st.cache_data(show_spinner=False, max_entries=32)
def _board_html(key: data.Stamp, pick: str) -> str:
    """The drawn leaderboard rows of one benchmark (the first BOARD_ROWS), as HTML."""
    shown, _ = _board_rows(key, pick)
    table = htmltable.bare(htmltable.table(shown.head(BOARD_ROWS), wide=("sources", "disagreement")))
    return f'<div data-table="leaderboard">{table}</div>'


@st.fragment
def _leaderboard_section(key: data.Stamp) -> None:
    """Every report's claims on one benchmark, ranked, with the values two reports print differently
    for one model, metric and setting flagged (ingest/outputs/leaderboard.py). A fragment: picking
    another benchmark redraws this section only."""
    st.subheader("Claims across reports")
    board = _board(key)
    if board.empty:
        st.caption("No result stored yet.")
        return
    pick = st.selectbox("Benchmark (catalogue name, or as printed when unknown)", _reach(key), key="board")
    shown, split = _board_rows(key, pick)
    if len(shown) > BOARD_ROWS:
        st.caption(f"The first {BOARD_ROWS} of {len(shown)} rows; the CSV below has them all.")
    st.html(_board_html(key, pick))
    st.caption(
        "One row per model, metric, setting and printed value, with every report, page and table that prints it; "
        "own_claim: printed by the model's own report; verified: every cell of its table validated. "
        + (f"{split} row(s) here have a different value in another report (see disagreement)." if split else "")
    )
    st.download_button("Leaderboard, all benchmarks (CSV)", lambda: to_csv(board), file_name="leaderboard.csv",
                       mime="text/csv", key="dl_leaderboard", on_click="ignore")  # fmt: skip


@st.fragment
def _claims_section(
    key: data.Stamp, tbl: dict[str, pd.DataFrame], cat: Catalogue, interactive: bool, narrow: tuple[str, int, bool]
) -> None:
    """Claims vs disclosure and coverage vs density: each scatter draws at most `limit` points (the
    first by report name among those whose name contains `rq`) and says how many in a sentence. A
    fragment, as the scores section is."""
    rq, limit, has_box = narrow
    st.subheader("Claims vs disclosure")
    level_dims = [d for d in data.dimensions() if d.kind == "level"]
    if not level_dims:
        st.caption("The lens declares no level dimension.")
        return
    by_id = {d.id: d for d in level_dims}
    c1, c2 = st.columns(2)
    dim_id = nav.select("Level dimension", list(by_id), "level", lambda d: by_id[d].label, c1)
    dim = by_id[dim_id]
    declared = claims_categories(cat)
    picked = nav.select("Benchmark categories for the claims", list(cat.categories), "claims",
                        lambda c: str(cat.categories.get(c, c)), c2, widget="multiselect", default=declared)  # fmt: skip
    levels = [NOT_ASSESSED, *dim.values]  # a level dimension's values are its levels, lowest first
    reports = tbl["reports"]
    frame = _claims(key, dim_id, tuple(dim.values), tuple(picked))
    shown, n = figures.first_points(frame, rq, limit, column="report")
    note = figures.points_note(len(shown), n, _narrowing(has_box, "pick fewer benchmark categories"))
    if interactive:
        if note:
            st.caption(note)
        st.plotly_chart(
            chart_plotly.figure(bc.claims_scatter(shown, levels, dim.label, _here(), note)), key=CLAIMS_KEY,
            on_select=lambda: _on_click(CLAIMS_KEY),
            selection_mode="points", width="stretch",
        )  # fmt: skip
    else:
        st.html(_claims_html(key, (dim_id, tuple(dim.values), dim.label), tuple(picked), (rq, limit, has_box), tuple(_here())))
    claims, base = shown, _here()
    chart_export.controls([("bench_claims", "Claims", lambda: bc.claims_scatter(claims, levels, dim.label, base, note))])
    lv = _level_of(key, dim_id)
    scored = set(frame["report_id"])
    silent = [r for r in reports["report_id"].tolist() if r not in scored]
    models = _models(key)
    st.caption("One point per report and benchmark: the highest own-model score (percent benchmarks only; "
               f"cells flagged {scores.FLAG_MARK} for review are left out); click a point for its table.")  # fmt: skip
    if silent:
        shown = ", ".join(f"{models.get(r, r)} ({lv.get(r, NOT_ASSESSED)})" for r in silent[:30])
        st.text(f"Reports without such a score ({len(silent)}): {shown}" + (" …" if len(silent) > 30 else ""))
    terms = [t.name for t in data.lexicon().group(STATS_GROUP).terms]
    term = st.selectbox("Keyword for the density", terms, key="term", bind="query-params")
    dens = _density(key, tuple(picked), term)
    shown, n = figures.first_points(dens, rq, limit, column="report")
    note = figures.points_note(len(shown), n, _narrowing(has_box))
    if interactive:
        if note:
            st.caption(note)
        st.plotly_chart(chart_plotly.figure(bc.density_scatter(shown, term, note)), key="bench_density", width="stretch")
    else:
        st.html(_density_html(key, tuple(picked), term, (rq, limit, has_box)))
    chart_export.controls([("bench_density", "Coverage vs density", lambda: bc.density_scatter(shown, term, note))])
    if len(dens) and not dens["has_results"].any():
        st.caption("No report here has benchmark results yet: every point sits at zero coverage.")
    _rerun_if_opened()


if __name__ == "__main__":
    render()
