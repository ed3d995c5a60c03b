"""Review page: settle automatic cells one report at a time, attach a source, watch the agreement.

A curator sees each cell's automatic value with its ranked evidence sentences and page (and, for
level dimensions, the indicator checklist), then accepts it, picks another category of the lens,
or writes a value. The decision goes into the report's YAML `curated:` block through
`ingest.outputs.curate` (round-trip: every other key and comment is kept), and the report's tables are
rebuilt by the pipeline at once. `FRL_READ_ONLY=1` shows the cells without any write control.
Everything a user or a report file wrote is shown as plain text (`views.plain`, st.text, tables, and
each cell's one HTML block, where every value is escaped).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import streamlit as st

from ingest.analysis import comparison, confidence
from ingest.analysis.lens import NOT_ASSESSED, Lens
from ingest.analysis.references import method_of
from ingest.outputs import curate, review
from ingest.sources.fetch import FetchSettings
from ingest.sources.registry import SpecFileError, load_report
from ingest.sources.schema import ID_PATTERN, CuratedCell, ReportSpec, Source
from views import data, htmltable, nav
from views.plain import message

ACTIONS = {"accept": "accept the automatic value", "category": "pick a category", "write": "write a value"}
MSG = "review_msg"
EVIDENCE_CAPTION = "Ranked evidence sentences (best first within each category)"


def report_file(report_id: str) -> Path | None:
    """The report's YAML in the reports folder (the only place the page writes), if it exists."""
    if not re.match(ID_PATTERN, report_id):
        return None
    p = data.reports_dir() / f"{report_id}.yaml"
    return p if p.is_file() else None


def _flash(kind: str, title: str, text: str = "") -> None:
    st.session_state[MSG] = (kind, title, text)


def _show_flash() -> None:
    kind, title, text = st.session_state.pop(MSG, ("", "", ""))
    if kind:
        message(kind, f"{title}\n{text}" if text else title)


def _rebuild(path: Path) -> str:
    """Re-run the pipeline on one report (cached text: only the tables are rebuilt); a one-line outcome."""
    from ingest.pipeline import run  # deferred: about 0.2 s of CPU (bench/import_costs.py) until a rebuild
    from ingest.pipeline_settings import Settings  # deferred: about 0.2 s of CPU (bench/import_costs.py) until a rebuild

    settings = Settings(
        data_dir=data.data_dir(),
        source_roots=data.source_roots(),
        fetch_settings=FetchSettings(allow_private_hosts=data.allow_private_hosts()),
    )
    result = run(files=[path], reports_dir=data.reports_dir(), settings=settings)
    data.clear()
    return "; ".join(f"{o.report_id}: {o.status} — {o.message}" for o in result.outcomes)


def decide(lens: Lens, path: Path, row: dict, ev: pd.DataFrame, action: str, picked: list[str], note: str) -> str:
    """Write one decision (see `ingest.outputs.curate.record_decision`) and rebuild the report's tables.
    Accepting a method named by reference ("as in K1.5 → GRPO") saves the method it resolved to."""
    auto = [method_of(v) for v in review.split(row.get("auto_value"))]
    if action == "accept":
        values = auto
        quote, page = (row.get("quote"), review.page_of(row.get("page"), row.get("page_label")))
        if row.get("origin") != "auto":  # the table row shows the curated quote; take the automatic one
            quote, page = review.best_quote(ev, values)
        why = "accepted the automatic value"
    else:
        values = picked
        quote, page = review.best_quote(ev, values)
        why = f"changed from automatic {comparison.join(auto)}" if auto else "set by hand"
    if not isinstance(quote, str) or not quote.strip() or len(quote) > curate.MAX_QUOTE:
        quote, page = None, None  # no supporting sentence (or one too long to be a quote)
    full = f"{why}: {note.strip()}" if note.strip() else why
    curate.record_decision(path, str(row["dimension"]), values, full, quote, page, lens=lens)
    return _rebuild(path)


def evidence_view(ev: pd.DataFrame, report_id: str) -> pd.DataFrame:
    """`review.ranked_evidence` rows in readers' words; the cue score only where it varies."""
    records = ev.to_dict("records")
    out = pd.DataFrame({
        "Category": ev["category"], "Rank": ev["rank"], "Cue score": ev.get("score"), "Quote": ev["quote"],
        "Page": [htmltable.page_of(e) for e in records], "Section": ev.get("section"),
        "": [htmltable.see_link(report_id, e, e.get("quote")) for e in records],
    })  # fmt: skip
    if len(out) and out["Cue score"].nunique(dropna=False) <= 1:
        out = out.drop(columns="Cue score")
    return out


def checklist_view(items: pd.DataFrame) -> pd.DataFrame:
    """A level's indicator checklist in readers' words: Indicator, Found (yes/no), Page, and Quote if known."""
    cols = {"indicator": "Indicator", "fired": "Found", "page_label": "Page", "quote": "Quote"}
    return items[[c for c in cols if c in items.columns]].rename(columns=cols)


def beside_view(rows: pd.DataFrame, models: dict[str, str]) -> pd.DataFrame:
    """`review.auto_beside_curated` rows in readers' words (model names, no ids)."""
    cols = {"curated_value": "Curated value", "auto_value": "Automatic value", "category": "Category", "rank": "Rank",
            "quote": "Quote", "page_label": "Page", "section": "Section"}  # fmt: skip
    out = rows[list(cols)].rename(columns=cols)
    out.insert(0, "Report", [models.get(r, r) for r in rows["report_id"]])
    return out


def agreement_view(agree: pd.DataFrame) -> pd.DataFrame:
    """`review.agreement` in readers' words: the dimension's label, not its id."""
    out = agree.drop(columns="dimension").rename(columns={"label": "Dimension"})
    return out.rename(columns={c: c.capitalize() for c in out.columns if c != "Dimension"})


class ControlKeys(NamedTuple):
    """The session keys of one cell's decision controls: named once, so `_cell_controls` draws them and
    `nav.keep_typed` keeps them from the same list (a key missing from one would lose what was typed)."""

    act: str
    cat: str
    cats: str
    val: str
    note: str


def control_keys(d: str) -> ControlKeys:
    """The decision controls' keys of dimension `d` ("note_<d>" …)."""
    return ControlKeys(*(f"{name}_{d}" for name in ControlKeys._fields))


def _cell_controls(lens: Lens, path: Path, row: dict, ev: pd.DataFrame) -> None:
    dim = lens.dimension(str(row["dimension"]))
    d = dim.id
    k = control_keys(d)
    auto = [method_of(v) for v in review.split(row.get("auto_value"))]
    actions = list(ACTIONS) if auto else ["category", "write"]
    action = st.radio("Decision", actions, format_func=ACTIONS.get, key=k.act, horizontal=True)
    picked: list[str] = []
    if action == "category":
        options = list(dict.fromkeys([*lens.allowed_values(d), *auto]))  # a method the report introduced counts too
        if dim.kind in ("single", "level"):
            picked = [st.selectbox("Category", options, key=k.cat)]
        else:
            picked = st.multiselect("Categories", options, default=[a for a in auto if a in options], key=k.cats)
    elif action == "write":
        text = st.text_input("Value (several separated by ';')", key=k.val, max_chars=curate.MAX_VALUE)
        picked = review.split(text)
    note = st.text_input("Note (short)", key=k.note, max_chars=curate.MAX_NOTE)
    if st.button("Save decision", key=f"save_{d}", type="primary"):
        try:
            outcome = decide(lens, path, row, ev, action, picked, note)
        except SpecFileError as exc:
            _flash("error", "Decision refused; the report file is unchanged.", "\n".join(str(e) for e in exc.errors))
        except OSError as exc:
            _flash("error", "Could not write the report file; it is unchanged.", str(exc))
        else:
            _flash("success", f"Saved the decision on {dim.label}.", outcome)
        st.rerun()


class Cell(NamedTuple):
    """One dimension of the shown report, ready to draw: its comparison row, ranked evidence, and
    the two HTML tables (None when there is nothing to show)."""

    row: dict
    ev: pd.DataFrame
    ev_html: str | None
    checklist_html: str | None


def report_cells(lens: Lens, cmp_: pd.DataFrame, evidence: pd.DataFrame, rid: str) -> list[Cell]:
    """Every dimension of the lens for one report (a dimension without a row is "not assessed")."""
    rows = cmp_[cmp_["report_id"] == rid].to_dict("records") if not cmp_.empty else []
    by_dim = {r["dimension"]: r for r in rows}
    # The report's sentences split by dimension once: a dimension without any (most, for most reports)
    # skips the filtering and sorting, which on frames this small is all pandas overhead.
    mine = evidence[evidence["report_id"] == rid] if not evidence.empty else evidence
    has = set(mine["dimension"]) if not mine.empty else set()
    out = []
    for dim in lens.dimensions:
        row = by_dim.get(dim.id) or {"report_id": rid, "dimension": dim.id, "value": NOT_ASSESSED, "origin": "none"}
        source = review.evidence_dimension(lens, dim.id)
        ev = review.ranked_evidence(mine if source in has else mine.iloc[:0], lens, rid, dim.id)
        ev_html = htmltable.table(evidence_view(ev, rid), raw=("",), caption=EVIDENCE_CAPTION) if len(ev) else None
        checklist = None
        if dim.kind == "level" and isinstance(row.get("indicators"), str):
            items = checklist_view(pd.DataFrame(comparison.parse_checklist(row["indicators"])))
            checklist = htmltable.table(items, caption="Indicator checklist behind the level")
        out.append(Cell(row, ev, ev_html, checklist))
    return out


# Shared objects (st.cache_resource): the page only reads them. A decision or a new source makes a
# new store generation, so a report's cells are never shown stale.
@st.cache_resource(show_spinner=False, max_entries=64)
def _report_cells(key: data.Stamp, lens_id: str, rid: str) -> tuple[list[Cell], list[str]]:
    """`report_cells` and `review.unreviewed` once per store generation, lens and report (0.1-0.2 s
    of pandas work per visit before)."""
    cmp_ = data.tables()[0]["comparison"]
    return report_cells(data.lens(), cmp_, data.read("evidence", report_ids=[rid]), rid), review.unreviewed(cmp_, rid)


#: The look of a cell's one HTML block (drawn once, outside the fragment, with the tables' CSS).
CELL_CSS = """<style>
.frl-cell{border:1px solid rgba(49,51,63,.2);border-radius:.5rem;padding:1rem;margin:0 0 1rem}
.frl-cell .frl-head{margin:0 0 .3rem}
.frl-cell .frl-lines{white-space:pre-wrap;overflow-wrap:break-word;margin:0 0 .5rem;font-size:14px}
.frl-cell .frl-qwrap{margin:0 0 .5rem}
</style>"""


def cell_lines(cell: Cell, cur: CuratedCell | None) -> list[str]:
    """The plain-text lines of one cell: automatic value and confidence, curated value, disagreement."""
    row = cell.row
    lines = []
    if isinstance(row.get("auto_value"), str):
        conf = row.get("confidence")
        sure = "" if not confidence.unsure(row.get("origin"), conf) else ", below the threshold: check it"
        lines.append(f"automatic: {row['auto_value']}" + (f" (confidence {conf:.2f}{sure})" if pd.notna(conf) else ""))
    else:
        lines.append("automatic: none (no source text was read)")
    if cur is not None:
        extra = [f"reviewed {cur.reviewed}" if cur.reviewed else "", cur.notes or ""]
        lines.append(f"curated: {comparison.join(cur.values)}" + "".join(f" | {x}" for x in extra if x))
    if row.get("disagree") is True:
        lines.append("the automatic reading disagrees with the curated value")
    return lines


def cell_html(lens: Lens, cell: Cell, cur: CuratedCell | None) -> str:
    """One dimension's reading as one HTML block: its label and state, the value lines, the ranked
    sentences (or why there are none) and the checklist. Every value is escaped (plain text). One
    element, not one per part: a pick of another report re-sends and re-draws fewer elements."""
    row = cell.row
    dim = lens.dimension(str(row["dimension"]))
    state = "curated" if cur is not None else ("unreviewed" if row.get("auto_value") else "not assessed")
    parts = [f'<p class="frl-head"><strong>{html.escape(dim.label)}</strong> · {state}</p>',
             f'<div class="frl-lines">{html.escape(chr(10).join(cell_lines(cell, cur)))}</div>']  # fmt: skip
    if cell.ev_html is not None:
        parts.append(htmltable.bare(cell.ev_html))
    elif isinstance(row.get("auto_value"), str):
        parts.append(htmltable.note("No candidate sentence matched a cue: the automatic value is “not disclosed”."))
    if cell.checklist_html is not None:
        parts.append(htmltable.bare(cell.checklist_html))
    return f'<div class="frl-cell">{"".join(parts)}</div>'


#: The session key (and widget) naming the dimension whose decision controls are open, if any.
DECIDE = "decide"


def decide_picker(lens: Lens, cells: list[Cell]) -> str | None:
    """The dimension whose decision controls are open: one pills widget for all cells ("Decide a cell"),
    clicked again to close. One element, not a button per cell (and one HTML block for the cells, not a
    bordered container, block and button each): a pick of another report sends 12 messages, not 30, and
    the browser draws fewer elements (bench/app_speed.py, Review). The pills follow the lens's order, so
    they stay in place from report to report; the controls open below their cell."""
    shown = {str(c.row["dimension"]) for c in cells}
    dims = [d.id for d in lens.dimensions if d.id in shown]
    picked = st.pills("Decide a cell", dims, format_func=lambda d: lens.dimension(d).label, key=DECIDE)
    for d in dims:  # what was typed in closed controls is kept for when they open again
        if d != picked:
            nav.keep_typed(control_keys(d))
    return picked


def draw_cells(lens: Lens, cells: list[Cell], spec: ReportSpec | None, path: Path | None) -> None:
    """The report's cells as one HTML block, split only where the open cell's controls go (below it)."""
    opened = decide_picker(lens, cells) if path is not None else None
    block: list[str] = []
    for cell in cells:
        d = str(cell.row["dimension"])
        block.append(cell_html(lens, cell, spec.curated.get(d) if spec else None))
        if d == opened and path is not None:
            st.html("".join(block))
            block = []
            _cell_controls(lens, path, cell.row, cell.ev)
    if block:
        st.html("".join(block))


def _source() -> None:
    """Attach or replace the source of the shown report (an existing one whose file the page can write),
    keeping everything else in its file. Drawn outside the Review fragment, below the cells: it reads the
    shown report (the picker's state) and its file only when opened, which reruns the whole page."""
    rid = st.session_state.get("rid")
    path = report_file(rid) if isinstance(rid, str) else None
    if path is None or data.read_only():
        return
    pop = st.popover("Source: attach or replace a file or URL", key="source_pop", on_change="rerun")
    if not pop.open:  # its widgets are drawn (and sent) only while it is open
        nav.keep_typed(("src_url", "src_only"))
        return
    try:
        spec = load_report(path)
    except SpecFileError:
        with pop:
            message("error", "The report file does not load; fix it before attaching a source.")
        return
    with pop:
        src = spec.source
        st.text(f"url:  {src.url if src and src.url else '—'}\npath: {src.path if src and src.path else '—'}")
        up = st.file_uploader("File (PDF, Markdown or HTML; stored as reports/sources/<id>.<ext>)",
                              type=["pdf", "md", "markdown", "txt", "html", "htm"], key="src_file")  # fmt: skip
        url = st.text_input("URL", key="src_url", max_chars=2000)
        only = st.checkbox("use only this source (remove the other of url/path)", key="src_only")
        if not st.button("Attach and ingest", key="src_save"):
            return
        try:
            if url.strip().lower().startswith("file:"):
                raise ValueError("file:// URLs are not accepted here; upload the file instead")
            if url.strip():
                Source(url=url.strip())  # the schema's URL check before anything is written
            rel = curate.store_upload(data.reports_dir(), path.stem, up.name, curate.upload_bytes(up)) if up is not None else None
            curate.set_source(path, url=url.strip() or None, path=rel, only=only)
        except SpecFileError as exc:
            _flash("error", "Source refused; the report file is unchanged.", "\n".join(str(e) for e in exc.errors))
        except (ValueError, OSError) as exc:
            _flash("error", "Source refused; the report file is unchanged.", str(exc))
        else:
            with st.spinner("ingesting…"):
                _flash("success", "Source saved; the report was ingested again.", _rebuild(path))
        st.rerun()


# Shared (st.cache_resource), once per store generation and choice: building the rows costs a pandas
# pass per disagreeing report, which every rerun of the Evidence page for all reports paid again.
@st.cache_resource(show_spinner=False, max_entries=32)
def _beside_rows(
    key: data.Stamp, lens_id: str, report: str, dim: str, _comparison: pd.DataFrame,
    _evidence: pd.DataFrame | Callable[[str], pd.DataFrame],
) -> pd.DataFrame:  # fmt: skip
    """`review.auto_beside_curated` of the stored tables (the arguments after `dim` are those tables)."""
    lens = data.lens()
    ev = _evidence(review.evidence_dimension(lens, dim)) if callable(_evidence) else _evidence
    return review.auto_beside_curated(_comparison, ev, report, dim, lens)


def show_auto_beside_curated(
    comparison_df: pd.DataFrame, evidence: pd.DataFrame | Callable[[str], pd.DataFrame], report: str, dim: str,
    limit: int,
) -> bool:
    """Evidence page: on a disagreement, the automatic value and its sentences beside the curated one.

    `evidence` may be a function of the evidence dimension that reads only its rows: it is called
    only when the dimension has a disagreement, so most pages never read the evidence table.
    `comparison_df` is the stored comparison table: the rows are kept per store generation. At most
    `limit` rows are drawn (the Evidence page's page of rows); returns whether some were left out.
    """
    lens = data.lens()  # the active lens (FRL_LENS, else the one the stored table holds)
    c = comparison_df
    if c.empty or "disagree" not in c.columns or dim not in lens.ids:
        return False
    hit = (c["dimension"] == dim) & c["disagree"].fillna(False).astype(bool)
    if report != "*":
        hit &= c["report_id"] == report
    if not hit.any():
        return False
    rows = _beside_rows(data.tables()[1], lens.id, report, dim, comparison_df, evidence)
    if rows.empty:
        return False
    n = rows["report_id"].nunique()
    more = f" Showing the first {limit} rows; pick one report to see all of its." if len(rows) > limit else ""
    said = f"{n} report(s) where the automatic value disagrees with the curated one, with the sentences behind it.{more}"
    # Title, and the sentence as the table's caption, in one element; the page draws htmltable.CSS once.
    table = htmltable.bare(htmltable.table(beside_view(rows.head(limit), data.names()[0]), caption=said))
    st.html(htmltable.subheading("Automatic reading beside the curated value") + table)
    return len(rows) > limit


@st.cache_data(show_spinner=False, max_entries=8)
def _agreement_html(key: data.Stamp, lens_id: str) -> str:
    """The agreement table, once per store generation and lens (it reads every cell of every report)."""
    tbl, _ = data.tables()
    return htmltable.table(agreement_view(review.agreement(tbl["comparison"], data.lens())))


@st.cache_resource(show_spinner=False, max_entries=8)
def _pending_reports(key: data.Stamp) -> frozenset[str]:
    """Reports with at least one automatic cell not yet curated, once per store generation."""
    cmp_ = data.tables()[0]["comparison"]
    return frozenset(cmp_.loc[cmp_["origin"] == "auto", "report_id"]) if not cmp_.empty else frozenset()


@st.cache_resource(show_spinner=False, max_entries=8)
def _confident(key: data.Stamp) -> tuple[int, int]:
    """`review.confident_counts` of the stored table, once per store generation."""
    return review.confident_counts(data.tables()[0]["comparison"])


@st.cache_resource(show_spinner=False, max_entries=8)
def _doubt(key: data.Stamp) -> review.QueueDoubt:
    """`review.queue_doubt` of the stored table, once per store generation."""
    return review.queue_doubt(data.tables()[0]["comparison"])


def doubt_note(n_conf: int, n_auto: int, d: review.QueueDoubt) -> str:
    """What the queue order means: "confident" only where a cut was right >= 95% held out; otherwise
    how many wrong cells the least-sure third is expected to hold (from the cells' confidences)."""
    tail = " A saved decision trains the confidence model the next time eval/train_confidence.py runs."
    head = (
        f"{n_conf} of {n_auto} automatic cells are confident (confidence ≥ {confidence.load_model().threshold}); "
        if review.labels_confident()
        else "No cell is labelled confident: no confidence cut was right 95% of the time on reports it had not seen. "
    )
    if not d.pending:
        return head + "Every automatic cell has a curated value." + tail
    share = f" ({d.wrong_first / d.wrong_all:.0%} of the {d.wrong_all:.0f} expected in all)" if d.wrong_all else ""
    return (head + f"The queue shows the least sure first: its first third ({d.first} of {d.pending} pending cells) is "
            f"expected to hold about {d.wrong_first:.0f} wrong cells{share}." + tail)  # fmt: skip


def _queue_of(cells: list[Cell]) -> pd.DataFrame:
    """The shown report's rows as a comparison frame (for `review.review_queue`)."""
    rows = [c.row for c in cells if c.row.get("origin") == "auto"]
    cols = ["report_id", "dimension", "origin", "auto_value", "confidence"]
    return pd.DataFrame([{k: r.get(k) for k in cols} for r in rows], columns=cols)


@st.cache_resource(show_spinner=False, max_entries=8)
def _queue_reports(key: data.Stamp) -> tuple[str, ...]:
    """The reports of `review.review_queue` in its order (least sure pending cell first), each once, once
    per store generation: sorting the queue on every click of "Next least sure" cost 30-50 ms at 500 reports."""
    return tuple(review.queue_reports(data.tables()[0]["comparison"]))


def next_reviewable(
    order: Iterable[str], ids: Iterable[str], file_of: Callable[[str], Path | None], after: str | None
) -> str | None:
    """`review.next_in_queue` over the queue's reports in `order`, among `ids` and those a decision can be
    written for (`file_of`; tested only until one is found, not for every report): the first other than
    `after`, else `after` itself if it is in the queue; None when no such report has a pending cell."""
    known = set(ids)
    return review.next_in_queue(order, after, lambda r: r in known and file_of(r) is not None)


def _go_next(key: data.Stamp, ids: list[str]) -> None:
    """To the report holding the least sure pending cell (the review queue's order) among the reports
    a decision can be written for (checked here, when clicked, and only down the queue until one is found:
    a file test per report on every run of the page cost tens of milliseconds at 500 reports)."""
    nxt = next_reviewable(_queue_reports(key), ids, report_file, st.session_state.get("rid"))
    if nxt is None:
        _flash("success", "Every automatic cell has a curated value.")
    else:
        st.session_state["rid"] = nxt


def render() -> None:
    """Draw the page."""
    st.title("Review")
    st.html(htmltable.CSS + CELL_CSS)  # once, outside the fragment (see `htmltable.bare`)
    # The pickers' search and the Source popover sit outside the fragment: the same for every report
    # (Source reads the shown report when opened), so a pick or "Next least sure" does not send them again.
    nav.search_popover(len(data.names()[0]), "rid")
    _body()
    _source()
    tbl, key = data.tables()
    if not data.is_empty(tbl):  # (else the fragment said so: `data.no_data_notice`)
        # Outside the fragment: the same for every report, so a pick or "Next least sure" does not redraw it.
        st.subheader("Agreement: automatic vs curated, all reports")
        st.caption("Per dimension: reports with an automatic cell, with a curated one, with both, and how many of "
                   "those agree; Agreement = Agree / Both (empty when no report has both).")  # fmt: skip
        st.html(htmltable.bare(_agreement_html(key, data.lens().id)))


@st.fragment
def _body() -> None:
    """The report picker and its cells: a fragment, so "Next least sure" or a pick redraws this section
    only, not the app's navigation and title nor the agreement table below (nor re-runs app.py). Saving
    a decision or a source reruns the whole app (`st.rerun()`: the store changed)."""
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    lens = data.lens()  # the active lens (FRL_LENS, else the one the stored table holds)
    models = data.names()[0]  # id -> model name, in the reports table's order
    ids = list(models)

    def name(r: str) -> str:
        return str(models.get(r, r))

    asked = nav.unknown_id("rid", ids)
    if asked is not None:  # a link to a report the store lacks: say so, never open another one
        nav.no_such_report(asked)
    row = nav.picker_row("bottom")  # the button level with the picker's box
    # ?rid=<id> like every other page's parameter (nav.select writes the id, not the shown name)
    # with more than a picker's worth of reports, the search box sits in a popover (nav.narrow)
    offered = nav.narrow(ids, "rid", name)  # its search popover: above, outside the fragment
    rid = nav.select("Report", offered, "rid", name, row, **({"index": None} if asked else {}))
    # "Next least sure" visits only reports whose file can take a decision (the picker lists all).
    row.button(
        "Next least sure",
        key="next",
        on_click=_go_next,
        args=(key, ids),
        help="the report whose pending automatic cell has the lowest confidence (the review queue)",
    )
    _show_flash()
    if rid is None:
        return
    cells, pending = _report_cells(key, lens.id, rid)
    # Same count as `review.unreviewed` per report, in one pass (one filter per report would grow with the reports squared).
    pending_ids = _pending_reports(key)
    n_reports = sum(1 for r in ids if r in pending_ids)
    st.caption(f"{len(pending)} automatic cell(s) of this report still unreviewed; {n_reports} report(s) in all.\n\n"
               + doubt_note(*_confident(key), _doubt(key)))  # one element: both lines change with the report
    order = {d: i for i, d in enumerate(review.review_queue(_queue_of(cells))["dimension"])}
    cells = sorted(cells, key=lambda c: order.get(str(c.row["dimension"]), len(order)))  # pending, least sure first
    path = report_file(rid)
    spec: ReportSpec | None = None
    if path is not None:
        try:
            spec = load_report(path)
        except SpecFileError as exc:
            message("error", "The report file does not load; fix it before reviewing.\n" + "\n".join(map(str, exc.errors)))
            path = None
    writable = path is not None and not data.read_only()
    if data.read_only():
        message("info", "Read-only dashboard (FRL_READ_ONLY): cells are shown, decisions cannot be written.")
    elif path is None:
        message("warning", f"No loadable file {rid}.yaml in the reports folder, so decisions cannot be written.")
    draw_cells(lens, cells, spec, path if writable else None)


if __name__ == "__main__":
    render()
