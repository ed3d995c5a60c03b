"""Report page: one report's card — metadata, figures, table row with quotes, sections, distinctive terms."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from ingest.analysis import comparison
from ingest.analysis.lens import Lens
from ingest.outputs.distinctive import TermWeights, term_weights, top_terms
from ingest.outputs.mdtable import blank
from ingest.outputs.report_card import report_card
from ingest.outputs.stats import STATS_GROUP, stats_frame
from ingest.store.store import Store
from views import data, htmltable, nav
from views.compare import chip_label, split_values
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
    terms = [t.name for t in data.lexicon().group(STATS_GROUP).terms]  # (the cached lexicon: no YAML read per report)
    out = []
    for src in ("reported", "measured"):
        frame = stats_frame(one, reported, counts, terms, source=src)  # type: ignore[arg-type]
        if "figures" not in frame.columns:
            out.append((src, frame.drop(columns="model")))
    return out


def value_labels(lens: Lens, dim_id: str, value: object) -> object:
    """A cell's categories by their labels, as Compare's chips show them (several joined by '; ')."""
    if not isinstance(value, str) or dim_id not in lens.ids:
        return value
    dim = lens.dimension(dim_id)
    return "; ".join(chip_label(dim, lens, v) for v in split_values(value))


def meta_label(field: str, label: str, kind: object) -> str:
    """A metadata row's label: a Markdown or HTML source is read section by section, so its "pages"
    are sections (a blog post has no page 9)."""
    return "Sections" if field == "pages" and isinstance(kind, str) and kind not in ("", "pdf") else label


def _show(v: object) -> str:
    """Whole numbers stored as floats (pandas NaN-able columns) print without '.0'."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _checklists(rows: pd.DataFrame, evidence: pd.DataFrame | None, labels: dict[str, str]) -> list[tuple[str, str]]:
    """The indicator checklist behind each disclosure level, as (expander title, HTML table): every
    indicator yes/no with its quote."""
    if "indicators" not in rows.columns:
        return []
    out = []
    for r in rows[rows["indicators"].notna()].itertuples():
        items = pd.DataFrame(comparison.parse_checklist(r.indicators))
        if items.empty:
            continue
        if evidence is not None and not evidence.empty:
            mine = (evidence["report_id"] == r.report_id) & (evidence["dimension"] == r.dimension)
            ev = evidence[mine & (evidence["rank"] == 1)]
            items["quote"] = items["indicator"].map(dict(zip(ev["category"], ev["quote"], strict=False)))
        title = f"Checklist behind {labels.get(r.dimension, r.dimension)}: {r.value}"
        out.append((title, htmltable.table(checklist_view(items))))
    return out


class Card(NamedTuple):
    """One report's card, ready to draw: plain-text header and notices, HTML tables (None: not measured)."""

    model: str
    status: tuple[str, str] | None  # (message kind, text) of the last run
    #: Metadata, figures and the comparison table row, with their titles: one HTML block.
    top_html: str
    checklists: list[tuple[str, str]]  # (title, table): each in an expander
    #: Sections and distinctive terms, with their titles: one HTML block.
    bottom_html: str


# A shared object (st.cache_resource): Card is defined in a page script, which pickling (st.cache_data)
# cannot import; the page only reads it.
@st.cache_resource(show_spinner=False, max_entries=64)
def _card(key: data.Stamp, lens_id: str, rid: str) -> Card:
    """The card of one report, once per store generation and lens: every table is read filtered to
    this report (views/data.py), never whole, and a revisit costs no pandas work."""
    tbl, _ = data.tables()
    models, _ = data.names()
    reports = tbl["reports"]
    row = reports[reports["report_id"] == rid].iloc[0]
    meta = [
        {"Field": meta_label(k, label, row.get("kind")), "Value": _show(row.get(k))}
        for k, label in META.items()
        if not blank(row.get(k)) and str(row.get(k))
    ]
    status = tbl["status"]
    last = None
    if not status.empty and (status["report_id"] == rid).any():
        s = status[status["report_id"] == rid].iloc[0]
        last = ("error" if s["status"] == "failed" else "info", f"Last run: {s['status']} — {s['message']}")
    figures = []
    for src, frame in _figures(key, rid):
        frame = frame.rename(columns={"words": "Words"})
        figures.append(htmltable.bare(htmltable.table(frame, num=tuple(frame.columns), caption=f"{src} (whole document)")))
    cells = data.read("comparison", report_ids=[rid])
    labels = data.dim_labels()
    row_html, checklists = None, []
    if len(cells):
        view = people_cells(cells, models).drop(columns="Report")
        lens = data.lens()
        for col in ("Value", "Automatic reading (disagrees)"):
            if col in view:
                view[col] = [value_labels(lens, d, v) for d, v in zip(cells["dimension"], view[col], strict=True)]
        view.insert(0, "Dimension", [labels.get(d, d) for d in cells["dimension"]])
        row_html = htmltable.bare(htmltable.table(view, raw=("",)))
        checklists = [(t, htmltable.bare(h)) for t, h in _checklists(cells, data.read("evidence", report_ids=[rid]), labels)]
    secs = data.read("sections", report_ids=[rid])
    cols = {"section": "Section", "heading": "Heading", "start_page": "From page", "end_page": "To page", "words": "Words"}
    secs = secs[[c for c in cols if c in secs]].rename(columns=cols)
    top = _top_terms(key, rid).rename(columns={"term": "Term", "group": "Group", "count": "Count", "tfidf": "TF-IDF"})
    sub, bare = htmltable.subheading, htmltable.bare
    top_html = "".join([
        bare(htmltable.table(pd.DataFrame(meta), wide=("Value",))),
        sub("Figures"), *figures,
        sub("Comparison table row"), row_html or "",
    ])  # fmt: skip
    bottom_html = "".join([
        sub("Sections"),
        bare(htmltable.table(secs, wide=("Heading",))) if len(secs)
        else htmltable.note("Not measured: no sections (only reported figures are stored for this report)."),
        sub("Distinctive terms (TF-IDF against the other reports)"),
        bare(htmltable.table(top)) if len(top) else htmltable.note("Not measured: no terms."),
    ])  # fmt: skip
    return Card(str(row["model"]), last, top_html, checklists, bottom_html)


def render() -> None:
    """Draw the page."""
    st.title("Report")
    st.html(htmltable.CSS)  # once, outside the fragment (the card's tables are drawn `htmltable.bare`)
    nav.search_popover(len(data.names()[1]), "report")  # (many reports) outside the fragment, as on Review
    _body()


@st.fragment
def _body() -> None:
    """The report picker and the card: a fragment, so picking another report redraws this section only,
    not the app's navigation and title (nor re-runs app.py)."""
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    models, order = data.names()
    asked = nav.unknown_id("report", order)
    if asked is not None:  # a link to a report the store lacks: say so, never open another one
        nav.no_such_report(asked)
    options = nav.narrow(order, "report", lambda r: str(models.get(r, r)))
    rid = nav.select("Report", options, "report", lambda r: models.get(r, r), **({"index": None} if asked else {}))
    if rid is None:
        return
    card = _card(key, data.lens().id, rid)
    st.header(escape_md(card.model))
    if card.status is not None:
        message(*card.status)
    # Few elements, each section's title inside its HTML block: a pick of another report redraws them all.
    st.html(card.top_html)
    for title, table in card.checklists:
        with st.expander(title):
            st.html(table)
    st.html(card.bottom_html)
    st.download_button("Report card (Markdown)", lambda: report_card(Store(data.data_dir()), rid, data.lens()),
                       file_name=f"{rid}.md", mime="text/markdown", key="dl_card", on_click="ignore")  # fmt: skip


if __name__ == "__main__":
    render()
