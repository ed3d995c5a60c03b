"""Compare page: reports × lens dimensions as a matrix of short coloured chips, with URL-bound filters.

Everything about the columns comes from the active lens (dimensions, labels, kinds, categories and
the default columns, `summary_columns`), so a second lens shows its own columns without code. The
matrix is HTML (drawn by `views.markup`): the model column is pinned, each cell is a chip per category
(colour = category, or a light-to-dark shade for a level), marked ✎ curated, ⚙ automatic, ⚠ disagreement;
hovering a cell shows the full wording and the quote; clicking the model opens its card, a chip its
evidence. One filter box holds every facet (organization, doc type, the lens's summary dimensions),
each bound to its own URL parameter; it, the search box and the column chooser open from buttons
(popovers), so their widgets cost a first render nothing.
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Mapping
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from ingest import export, stats, study_tables
from ingest.lens import NOT_ASSESSED, NOT_DISCLOSED, Dimension, Lens
from views import data, markup, nav

#: Filter key (also the URL query parameter) -> reports column.
META_FILTERS: dict[str, str] = {"org": "organization", "doc": "doc_type"}
CURATED_MARK, AUTO_MARK, DISAGREE_MARK = "✎", "⚙", "⚠"
PAGE_ROWS = 25  # a filter change redraws the page's rows: fewer rows, a faster re-render
LEGEND = (
    f"{CURATED_MARK} curated (hand-checked) · {AUTO_MARK} automatic · {DISAGREE_MARK} the automatic reading disagrees · "
    "“not disclosed” is a finding; “not assessed” means nobody has looked yet. Hover a cell for the wording and the "
    "quote; click a chip for the evidence, or a model for its card."
)
FILTER_KEY = "filters"  # the filter box's widget key (its state: the chosen (facet, value) pairs)
MATRICES_KEPT = 64  # matrices (a page of rows in some columns) kept per store generation
#: Category colours (soft, distinguishable, readable with dark text); a level uses LEVEL_SHADES.
PALETTE = ("#cfe3ff", "#ffe0b3", "#d4f0d0", "#f6d0e8", "#e3d9ff", "#fff3b0", "#cdeff0", "#ffd6d1", "#e8e0cf", "#dfe7c4")
LEVEL_SHADES = ("#f2f2f2", "#dbe8f7", "#a9c8ec", "#5f98d6", "#2a66b0", "#143e73")
CSS = (  # a bare style sheet (views.markup draws it with the matrix)
    ".frl-wrap{max-height:72vh;overflow:auto;border:1px solid #e6e6e6;border-radius:6px}"
    "table.frl{border-collapse:separate;border-spacing:0;width:100%;table-layout:fixed;font-size:13px}"
    "table.frl th{position:sticky;top:0;background:#fafafa;z-index:2;text-align:left;padding:6px;"
    "border-bottom:1px solid #ddd;font-weight:600;overflow-wrap:anywhere}"
    "table.frl td{padding:5px 6px;border-bottom:1px solid #eee;vertical-align:top;overflow-wrap:break-word}"
    "table.frl th.model,table.frl td.model{position:sticky;left:0;background:#fff;z-index:1;width:190px}"
    "table.frl th.model{z-index:3;background:#fafafa}"
    "table.frl td.model a{font-weight:600;text-decoration:none}"
    "table.frl .meta{color:#666;font-size:11px}"
    ".chip{display:inline-block;border-radius:10px;padding:1px 7px;margin:1px 2px 1px 0;color:#1a1a1a;"
    "font-size:12px;line-height:18px;white-space:nowrap;max-width:100%;overflow:hidden;text-overflow:ellipsis;"
    "text-decoration:none;background:#e0e0e0}"
    ".chip.k{color:#fff}.chip.none{background:#eee;color:#555}.chip.na{background:#fff;color:#888;border:1px dashed #bbb}"
    ".chip.dis{outline:2px solid #d9730d}.chip i{font-style:normal;margin-left:3px;font-size:11px}"
    + "".join(f".chip.c{i}{{background:{c}}}" for i, c in enumerate(PALETTE))
    + "".join(f".chip.l{i}{{background:{c}}}" for i, c in enumerate(LEVEL_SHADES))
)


def split_values(v: object) -> list[str]:
    """A cell's categories (several are joined by '; ')."""
    return [s.strip() for s in str(v).split(";") if s.strip()] if isinstance(v, str) else []


def marks(c: dict) -> str:
    """✎ curated, ⚙ automatic, ⚠ where the automatic reading disagrees."""
    m = CURATED_MARK if c.get("origin") == "curated" else AUTO_MARK if c.get("origin") == "auto" else ""
    return m + (DISAGREE_MARK if c.get("disagree") is True else "")


def display_cell(c: dict) -> str:
    """A cell as plain text: value plus marks (and what the automatic reading says when it disagrees)."""
    text = str(c.get("value") or NOT_ASSESSED)
    mk = marks(c)
    if mk:
        text += f" {mk}"
    if c.get("disagree") is True:
        text += f" auto: {c.get('auto_value')}"
    return text


def wide_table(reports: pd.DataFrame, comparison: pd.DataFrame, dims: list[str]) -> pd.DataFrame:
    """One row per report: metadata, the cell (dict) of each dimension, its category list `_<dim>`, search text."""
    base = reports[["report_id", "model", "organization", "doc_type", "params"]].copy()
    cmp_ = comparison[comparison["dimension"].isin(dims)] if not comparison.empty else comparison
    recs = cmp_.to_dict("records")
    by = {(r["report_id"], r["dimension"]): r for r in recs}
    texts: dict[str, list[str]] = {}
    for r in recs:
        texts.setdefault(r["report_id"], []).extend(str(r.get(k) or "") for k in ("value", "detail", "quote"))
    for dim in dims:
        cells = [by.get((rid, dim)) for rid in base["report_id"]]
        base[dim] = [c or {} for c in cells]
        base[f"_{dim}"] = [split_values(c.get("value")) if c else [NOT_ASSESSED] for c in cells]
    base["disagree"] = [any(by.get((rid, d), {}).get("disagree") is True for d in dims) for rid in base["report_id"]]
    m = reports[["model", "organization", "params", "notes"]].fillna("").astype(str)
    meta = m["model"] + " " + m["organization"] + " " + m["params"] + " " + m["notes"]
    base["_text"] = (meta + " " + base["report_id"].map(lambda r: " ".join(texts.get(r, [])))).str.lower().to_numpy()
    base["_sort"] = base["model"].astype(str).str.casefold()
    return base.sort_values("_sort", kind="stable").reset_index(drop=True)


def options(wide: pd.DataFrame, key: str) -> list[str]:
    """Choices of one filter (a META_FILTERS key or a dimension id), from the data, sorted case-insensitively."""
    if key in META_FILTERS:
        return sorted(wide[META_FILTERS[key]].dropna().astype(str).unique(), key=str.casefold)
    col = f"_{key}"
    return sorted({v for vs in wide[col] for v in vs}, key=str.casefold) if col in wide else []


def filter_rows(wide: pd.DataFrame, chosen: dict[str, list[str]], query: str = "") -> pd.DataFrame:
    """Rows matching every filter (any of its chosen values) and the free-text search."""
    mask = pd.Series(True, index=wide.index)
    for key, picked in chosen.items():
        if not picked:
            continue
        if key in META_FILTERS:
            mask &= wide[META_FILTERS[key]].isin(picked)
        else:
            sel = set(picked)
            mask &= wide[f"_{key}"].map(lambda vs, sel=sel: bool(sel.intersection(vs)))
    if query.strip():
        mask &= wide["_text"].str.contains(query.strip().lower(), regex=False)
    return wide[mask]


def chip_class(dim: Dimension, lens: Lens, value: str) -> str:
    """The colour class of a category chip: `c<i>` by its place among the lens's categories (no class:
    a value the lens does not know), or `l<i> [k]` by its level (k: white text on a dark shade)."""
    if dim.kind == "level":
        levels = dim.values
        i = levels.index(value) if value in levels else 0
        shade = min(len(LEVEL_SHADES) - 1, round(i * (len(LEVEL_SHADES) - 1) / max(1, len(levels) - 1)))
        return f"l{shade} k" if i * 2 > len(levels) else f"l{shade}"
    names = lens.allowed_values(dim.id)
    return f"c{names.index(value) % len(PALETTE)}" if value in names else ""


def hover(c: dict, dim: Dimension) -> str:
    """The full cell for a chip's tooltip: value, origin, the study's wording, quote and page."""
    parts = [f"{dim.label}: {c.get('value') or NOT_ASSESSED} ({c.get('origin') or 'none'})"]
    if isinstance(c.get("detail"), str) and c["detail"]:
        parts.append(f"the study's wording: {c['detail']}")
    if c.get("disagree") is True:
        parts.append(f"the automatic reading says: {c.get('auto_value')}")
    if isinstance(c.get("quote"), str) and c["quote"]:
        page = c.get("page_label") if isinstance(c.get("page_label"), str) and c.get("page_label") else c.get("page")
        parts.append(f"“{c['quote']}” (p. {page})")
    if isinstance(c.get("notes"), str) and c["notes"]:
        parts.append(f"notes: {c['notes']}")
    return "\n".join(parts)


def chip_label(dim: Dimension, lens: Lens, value: str) -> str:
    """The short display label of a category (the lens's `label`, else its name)."""
    src = lens.dimension(dim.source) if dim.kind == "mentioned" and dim.source else dim
    cat = next((c for c in src.categories if c.name == value), None)
    return (cat.label or cat.name) if cat is not None else value


def chips(dim: Dimension, lens: Lens) -> dict[str, tuple[str, str]]:
    """Each category of a dimension -> (its chip's colour class, its escaped label), worked out once
    per matrix instead of once per chip."""
    return {v: (chip_class(dim, lens, v), html.escape(chip_label(dim, lens, v))) for v in lens.allowed_values(dim.id)}


def cell_html(c: dict, dim: Dimension, lens: Lens, rid: str, known: Mapping[str, tuple[str, str]] | None = None) -> str:
    """A table cell: chips, each a link to the Evidence page of this report and dimension; the full
    wording and quote are the cell's tooltip (once per cell, not per chip: the markup stays small)."""
    href = html.escape("evidence?" + urlencode({"report": rid, "dim": dim.id}))
    title = f' title="{html.escape(hover(c, dim), quote=True)}"' if c else ""
    values = split_values(c.get("value")) if c else []
    if not values or values == [NOT_ASSESSED]:
        return f'<td{title}><a class="chip na" href="{href}" target="_self">{NOT_ASSESSED}</a></td>'
    mk = marks(c)
    mark = f"<i>{mk}</i>" if mk else ""
    dis = " dis" if c.get("disagree") is True else ""
    out = []
    for v in values:
        hit = known.get(v) if known is not None else None
        cls, label = hit or (chip_class(dim, lens, v), html.escape(chip_label(dim, lens, v)))
        cls = "na" if v == NOT_ASSESSED else "none" if v == NOT_DISCLOSED else cls
        out.append(f'<a class="chip {cls}{dis}" href="{href}" target="_self">{label}{mark}</a>')
    return f"<td{title}>{''.join(out)}</td>"


def matrix_html(rows: pd.DataFrame, dims: list[Dimension], lens: Lens, css: bool = True) -> str:
    """The pinned-model-column matrix of the given rows (already filtered and paged); `css=False`
    leaves out the style sheet (the page draws it once, in an element a rerun does not replace)."""
    head = '<th class="model">Model</th>' + "".join(f"<th>{html.escape(d.label)}</th>" for d in dims)
    known = {d.id: chips(d, lens) for d in dims}
    body = []
    # Only the columns drawn: the wide table's others (every dimension's cells, the search text) made
    # to_dict 45 ms of a filter change at 10,000 reports (cProfile).
    keep = [c for c in ("report_id", "model", "organization", "doc_type", "params", *(d.id for d in dims)) if c in rows]
    for r in rows[keep].to_dict("records"):
        rid = str(r["report_id"])
        meta = " · ".join(html.escape(v) for v in (r["organization"], r["doc_type"], r["params"]) if isinstance(v, str) and v)
        model = (f'<td class="model"><a href="report?{urlencode({"report": rid})}" target="_self">'
                 f'{html.escape(str(r["model"]))}</a><div class="meta">{meta}</div></td>')  # fmt: skip
        cells = "".join(cell_html(r.get(d.id) or {}, d, lens, rid, known[d.id]) for d in dims)
        body.append(f"<tr>{model}{cells}</tr>")
    table = f'<table class="frl"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return f'{f"<style>{CSS}</style>" if css else ""}<div class="frl-wrap">{table}</div>'


# A shared object (st.cache_resource), not a copy: st.cache_data would unpickle the whole table of
# cell dicts on every rerun (0.36 s at 10,000 reports). Callers only filter it, never change it.
@st.cache_resource(show_spinner=False, max_entries=4)
def _wide(key: data.Stamp, dims: tuple[str, ...]) -> pd.DataFrame:
    tbl, _ = data.tables()
    return wide_table(tbl["reports"], tbl["comparison"], list(dims))


@st.cache_resource(show_spinner=False, max_entries=4)
def _wide_by_id(key: data.Stamp, dims: tuple[str, ...]) -> pd.DataFrame:
    """`_wide` indexed by report id, for the matrix's row lookups (shared, read-only)."""
    return _wide(key, dims).set_index("report_id", drop=False)


@st.cache_resource(show_spinner=False, max_entries=4)
def _options(key: data.Stamp, dims: tuple[str, ...]) -> dict[str, list[str]]:
    """Every filter's choices, once per store generation: walking every cell's categories on each
    filter change was about a tenth of its script time at 500 reports (a profile). Shared, read-only."""
    wide = _wide(key, dims)
    return {k: options(wide, k) for k in (*META_FILTERS, *dims)}


@st.cache_resource(show_spinner=False, max_entries=4)
def _matrices(key: data.Stamp, lens_id: str) -> OrderedDict[tuple[tuple[str, ...], tuple[str, ...]], str]:
    """The matrices drawn in this generation, by (columns, row ids), the latest MATRICES_KEPT: a dict
    lookup, where st.cache_data hashed its arguments and copied the markup on every filter change."""
    return OrderedDict()


def _matrix(key: data.Stamp, lens_id: str, dims: tuple[str, ...], ids: tuple[str, ...]) -> str:
    kept = _matrices(key, lens_id)
    html_ = kept.get((dims, ids))
    if html_ is None:
        lens = data.lens()
        wide = _wide_by_id(key, tuple(d.id for d in lens.dimensions))
        html_ = matrix_html(wide.loc[list(ids)], [lens.dimension(d) for d in dims], lens, css=False)
        kept[(dims, ids)] = html_
        while len(kept) > MATRICES_KEPT:
            kept.popitem(last=False)
    return html_


def render() -> None:
    """Draw the page."""
    lens = data.lens()
    st.title(f"Compare: {lens.label}")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    # The legend does not change with the filters, so it sits outside their fragment (not redrawn).
    st.caption(LEGEND)
    shown_ids: dict[str, pd.Series] = {}
    _matrix_and_filters(shown_ids)
    _downloads(tbl, shown_ids, lens)


@st.fragment
def _matrix_and_filters(shown_ids: dict[str, pd.Series]) -> None:
    """Filters and the matrix: a fragment, so a filter change reruns only this part (not the
    navigation and the page around it) and the browser redraws only its elements. It leaves the
    shown reports' ids in `shown_ids` (the same object on every rerun of the fragment) for the
    exports, which sit outside it: they are not redrawn on a filter change, and read it when clicked."""
    lens = data.lens()
    _, key = data.tables()
    all_dims = tuple(d.id for d in lens.dimensions)
    wide = _wide(key, all_dims)
    choices = _options(key, all_dims)
    labels = {d.id: d.label for d in lens.dimensions}
    facets = {"org": "Organization", "doc": "Doc type", **{d: labels[d] for d in lens.summary_ids}}

    def show(k: str, v: str) -> str:
        return v if k in META_FILTERS else chip_label(lens.dimension(k), lens, v)

    # A bar of three popovers: the filter box (one multiselect for every facet), the search box and the
    # column chooser. A closed popover's widgets are not drawn: a text box and a multiselect drawn up front
    # added about 0.4 s to the first render at 10,000 reports (bench/app_speed.py, 2.29 s). Each element of
    # the fragment is redrawn on every filter change, and that redraw is most of a filter's time in the
    # browser: one popover per facet took 0.03-0.06 s longer per filter change than one box for all
    # (one-off A/B in Chromium at 500 reports, the matrix already drawn by views.markup).
    chooser = {k: (label, choices.get(k, [])) for k, label in facets.items()}
    with st.container(horizontal=True, vertical_alignment="center"):
        with st.popover(_filter_label(chooser), key="facet_filter"):
            chosen = nav.facets("Filter", chooser, FILTER_KEY, show, width=520, help="Type to find a value; within a "
                                "facet any value matches, across facets all must (the URL keeps the choice).",
                                placeholder=", ".join(facets.values()) + "…")  # fmt: skip
        with st.popover(f"Search: {nav.typed('q', 20)}" if nav.is_set("q") else "Search", key="facet_q"):
            query = st.text_input("Search", key="q", bind="query-params", max_chars=200, width=320,
                                  placeholder="model, wording, quote…")  # fmt: skip
        with st.popover("Columns", key="facet_cols"):
            cols = nav.select("Columns", list(all_dims), "cols", labels.get, widget="multiselect", default=lens.summary_ids,
                              help="Which dimensions of the lens to show (the URL keeps the choice).")  # fmt: skip
    on = (["Search"] if query.strip() else []) + [label for k, label in facets.items() if chosen.get(k)]
    shown = filter_rows(wide, chosen, query)
    st.caption(f"{len(shown)} of {len(wide)} reports" + (f" (filtered by {', '.join(on)})" if on else ""))
    if shown.empty:
        st.caption("No report matches every filter; remove a value under Filter or clear the search to see more.")
    part = _paged(shown)
    markup.block(_matrix(key, lens.id, tuple(cols or lens.summary_ids), tuple(part["report_id"])), CSS, key="matrix")
    n_dis = int(shown["disagree"].sum())
    if n_dis:
        st.warning(f"{n_dis} report(s) where the automatic reading disagrees with the curated value ({DISAGREE_MARK}).")
    shown_ids["ids"] = shown["report_id"]


def _filter_label(chooser: Mapping[str, tuple[str, object]]) -> str:
    """The filter box's popover label, drawn before the box: how many values are chosen (the box's
    state, else the URL's values of every facet)."""
    picked = st.session_state.get(FILTER_KEY)
    n = len(picked) if picked is not None else sum(len(st.query_params.get_all(k)) for k in chooser)
    return f"Filter ({n})" if n else "Filter"


def _turn(step: int) -> None:
    st.session_state["page"] = st.session_state.get("page", 1) + step


def _paged(shown: pd.DataFrame) -> pd.DataFrame:
    """The rows of the current page (PAGE_ROWS a page) with Previous/Next buttons when there are more.

    Buttons rather than a number box: the page already draws buttons, and every other kind of
    widget adds its own code to a first render. A changed filter starts again at the first page.
    """
    pages = max(1, -(-len(shown) // PAGE_ROWS))
    # Which rows are shown, by their positions in the wide table (an integer array hashes in
    # microseconds; a tuple of 10,000 Arrow-backed ids took ~4 ms to build on every rerun).
    rows = hash(shown.index.to_numpy().tobytes())
    if st.session_state.get("page_of") != rows:
        st.session_state["page_of"], st.session_state["page"] = rows, 1
    page = min(max(1, int(st.session_state.get("page", 1))), pages)
    st.session_state["page"] = page
    if pages > 1:
        # One horizontal container, not st.columns (a block per column): fewer elements to redraw per filter change.
        with st.container(horizontal=True, vertical_alignment="center"):
            st.button("← Previous", key="prev", on_click=_turn, args=(-1,), disabled=page == 1)
            st.button("Next →", key="next", on_click=_turn, args=(1,), disabled=page == pages)
            lo, hi = (page - 1) * PAGE_ROWS + 1, min(page * PAGE_ROWS, len(shown))
            st.caption(f"Page {page} of {pages}: reports {lo}–{hi} of {len(shown)}")
    return shown.iloc[(page - 1) * PAGE_ROWS : page * PAGE_ROWS]


def _downloads(tbl: Mapping[str, pd.DataFrame], shown_ids: Mapping[str, pd.Series], lens: Lens) -> None:
    """Exports of the reports the filters show (the lens's columns, curated/automatic marks kept),
    generated only when clicked, from the ids the matrix's fragment last left in `shown_ids`: nothing
    is filtered on a rerun (at 10,000 reports that costs 0.1–0.2 s)."""

    def shown(name: str) -> pd.DataFrame:
        t = tbl[name]
        return t[t["report_id"].isin(shown_ids.get("ids", ()))] if not t.empty else t

    cmp_ = tbl["comparison"]
    st.subheader("Export")
    st.caption("The reports the filters above show, in the lens's columns.")
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button(
        "Summary (Markdown)", lambda: export.to_markdown(study_tables.summary_frame(shown("reports"), cmp_, lens, marks=True)),
        file_name="summary.md", mime="text/markdown", key="dl_summary_md", on_click="ignore",
    )  # fmt: skip
    c2.download_button(
        "Statistics (Markdown)",
        lambda: export.to_markdown(stats.stats_frame(shown("reports"), tbl["reported"], tbl["counts"])),
        file_name="stats.md", mime="text/markdown", key="dl_stats_md", on_click="ignore",
    )  # fmt: skip
    c3.download_button(
        "Tiers (Markdown)", lambda: export.to_markdown(study_tables.tiers_frame(shown("reports"), cmp_, lens)),
        file_name="tiers.md", mime="text/markdown", key="dl_tiers_md", on_click="ignore",
    )  # fmt: skip
    c4.download_button(
        "Comparison (CSV)", lambda: study_tables.comparison_frame(shown("comparison")).to_csv(index=False),
        file_name="comparison.csv", mime="text/csv", key="dl_comparison_csv", on_click="ignore",
    )  # fmt: skip


if __name__ == "__main__":
    render()
