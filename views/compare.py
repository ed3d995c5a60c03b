"""Compare page: reports × lens dimensions as a matrix of short coloured chips, with URL-bound filters.

Everything about the columns comes from the active lens (dimensions, labels, kinds, categories and
the default columns, `summary_columns`), so a second lens shows its own columns without code. The
matrix (drawn by `views.matrix`, which filters and pages in the browser) pins the model column; each
cell is a chip per category (colour = category, or a light-to-dark shade for a level), marked ✎
curated, ⚙ automatic, ⚠ disagreement; hovering a cell shows the full wording and the quote; clicking
the model opens its card, a chip its evidence. Its filter holds every facet (organization, doc type,
the lens's summary dimensions), each bound to its own URL parameter. The search box and the column
chooser are Streamlit widgets in popovers (a rerun sends the matrix the rows they keep).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd
import streamlit as st

from ingest.analysis.confidence import unsure
from ingest.analysis.lens import NOT_ASSESSED, NOT_DISCLOSED, Dimension, Lens
from ingest.analysis.references import DERIVED_ARROW
from ingest.outputs import export, stats, study_tables
from views import changes, data, matrix, nav

T = TypeVar("T")

#: Filter key (also the URL query parameter) -> reports column.
META_FILTERS: dict[str, str] = {"org": "organization", "doc": "doc_type"}
CURATED_MARK, AUTO_MARK, DISAGREE_MARK, UNSURE_MARK = "✎", "⚙", "⚠", "?"
LEGEND = (
    f"{CURATED_MARK} curated (hand-checked) · {AUTO_MARK} automatic · {AUTO_MARK}{UNSURE_MARK} automatic with low "
    f"confidence (to review) · {DISAGREE_MARK} the automatic reading disagrees · "
    "“not disclosed” is a finding; “not assessed” means nobody has looked yet; “ingest failed”: the report could not "
    "be read (hover for why). Hover a cell for the wording and the quote; click a chip for the evidence, or a model "
    "for its card."
)
#: The matrix's wording (views.matrix shows it; `{n}` and the like are filled in the browser).
TEXTS = matrix.Texts(
    filter="Filter", find="Type to find a value: organization, doc type, a category…", clear="Clear all",
    count="{n} of {total} reports", by=" (filtered by {what})", search="Search",
    empty="No report matches every filter; remove a value under Filter or clear the search to see more.",
    warn=f"{{n}} report(s) where the automatic reading disagrees with the curated value ({DISAGREE_MARK}).",
    prev="← Previous", next="Next →", page="Page {p} of {pages}: reports {lo}–{hi} of {n}", model="Model",
)  # fmt: skip
#: The cell of a report whose last ingest failed and that has no reading (hovering shows why).
INGEST_FAILED = "ingest failed"
MODELS_KEPT = 16  # encoded rows and matrix data kept per store generation
_SETTLED = "_matrix_settled"  # session state: what the last run of the matrix settled on (a Settled)
#: Category colours (soft, distinguishable, readable with dark text); a level uses LEVEL_SHADES.
PALETTE = ("#cfe3ff", "#ffe0b3", "#d4f0d0", "#f6d0e8", "#e3d9ff", "#fff3b0", "#cdeff0", "#ffd6d1", "#e8e0cf", "#dfe7c4")
LEVEL_SHADES = ("#f2f2f2", "#dbe8f7", "#a9c8ec", "#5f98d6", "#2a66b0", "#143e73")
CSS = (  # a bare style sheet (views.matrix draws it with the matrix)
    ".frl-wrap{max-height:72vh;overflow:auto;border:1px solid var(--st-border-color,#e6e6e6);border-radius:6px}"
    "table.frl{border-collapse:separate;border-spacing:0;width:100%;table-layout:fixed;font-size:13px}"
    "table.frl th{position:sticky;top:0;background:var(--st-secondary-background-color,#fafafa);z-index:2;"
    "text-align:left;padding:6px;border-bottom:1px solid var(--st-border-color,#ddd);font-weight:600;overflow-wrap:anywhere}"
    "table.frl td{padding:5px 6px;border-bottom:1px solid var(--st-border-color,#eee);vertical-align:top;"
    "overflow-wrap:break-word}"
    "table.frl th.model,table.frl td.model{position:sticky;left:0;background:var(--st-background-color,#fff);"
    "z-index:1;width:190px}"
    "table.frl th.model{z-index:3;background:var(--st-secondary-background-color,#fafafa)}"
    "table.frl td.model a{font-weight:600;text-decoration:none}"
    "table.frl .meta{opacity:.65;font-size:11px}"
    ".chip{display:inline-block;border-radius:10px;padding:1px 7px;margin:1px 2px 1px 0;color:#1a1a1a;"
    "font-size:12px;line-height:18px;white-space:nowrap;max-width:100%;overflow:hidden;text-overflow:ellipsis;"
    "text-decoration:none;background:#e0e0e0}"
    ".chip.k{color:#fff}.chip.none{background:#eee;color:#555}.chip.nostage{background:#f3efe6;color:#5b4a2a;font-style:italic}"
    ".chip.na{background:#fff;color:#888;border:1px dashed #bbb}"
    ".chip.dis{outline:2px solid #d9730d}.chip i{font-style:normal;margin-left:3px;font-size:11px}"
    + "".join(f".chip.c{i}{{background:{c}}}" for i, c in enumerate(PALETTE))
    + "".join(f".chip.l{i}{{background:{c}}}" for i, c in enumerate(LEVEL_SHADES))
)


def split_values(v: object) -> list[str]:
    """A cell's categories (several are joined by '; ')."""
    return [s.strip() for s in str(v).split(";") if s.strip()] if isinstance(v, str) else []


def marks(c: Mapping[str, object]) -> str:
    """✎ curated, ⚙ automatic (⚙? with low confidence), ⚠ where the automatic reading disagrees."""
    m = CURATED_MARK if c.get("origin") == "curated" else AUTO_MARK if c.get("origin") == "auto" else ""
    if unsure(c.get("origin"), c.get("confidence")):
        m += UNSURE_MARK
    return m + (DISAGREE_MARK if c.get("disagree") is True else "")


def failed_reports(status: pd.DataFrame | None) -> dict[str, str]:
    """Report id -> why its last ingest failed (the status table's message), for reports whose last run failed."""
    if status is None or status.empty:
        return {}
    bad = status[status["status"] == "failed"]
    return {str(r): str(m or "") for r, m in zip(bad["report_id"], bad["message"], strict=True)}


def wide_table(
    reports: pd.DataFrame, comparison: pd.DataFrame, dims: list[str], status: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per report: metadata, the cell (dict) of each dimension, its category list `_<dim>`, search text.
    A report whose last ingest failed (`status`) and that has no cell shows INGEST_FAILED, with the reason."""
    base = reports[["report_id", "model", "organization", "doc_type", "params"]].copy()
    failed = failed_reports(status)
    base["failed"] = [failed.get(r, "") for r in base["report_id"]]
    cmp_ = comparison[comparison["dimension"].isin(dims)] if not comparison.empty else comparison
    recs = cmp_.to_dict("records")
    by = {(r["report_id"], r["dimension"]): r for r in recs}
    texts: dict[str, list[str]] = {}
    for r in recs:
        texts.setdefault(r["report_id"], []).extend(str(r.get(k) or "") for k in ("value", "detail", "quote"))
    for dim in dims:
        cells = [_or_failed(by.get((rid, dim)), failed.get(rid)) for rid in base["report_id"]]
        base[dim] = [c or {} for c in cells]
        base[f"_{dim}"] = [split_values(c.get("value")) if c else [NOT_ASSESSED] for c in cells]
    base["disagree"] = [any(by.get((rid, d), {}).get("disagree") is True for d in dims) for rid in base["report_id"]]
    m = reports[["model", "organization", "params", "notes"]].fillna("").astype(str)
    meta = m["model"] + " " + m["organization"] + " " + m["params"] + " " + m["notes"]
    base["_text"] = (meta + " " + base["report_id"].map(lambda r: " ".join(texts.get(r, [])))).str.lower().to_numpy()
    base["_sort"] = base["model"].astype(str).str.casefold()
    return base.sort_values("_sort", kind="stable").reset_index(drop=True)


def _or_failed(cell: dict | None, reason: str | None) -> dict | None:
    """The cell as stored; for a report whose last ingest failed (`reason`) and that nobody assessed
    (no reading, no curated value), INGEST_FAILED with the reason instead of "not assessed"."""
    unassessed = cell is None or (
        cell.get("origin") in (None, "none") and split_values(cell.get("value")) in ([], [NOT_ASSESSED])
    )
    if reason is None or not unassessed:
        return cell
    return {"value": INGEST_FAILED, "origin": "failed", "notes": f"the last ingest failed: {reason}"[:300]}


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
    """Each category of a dimension -> (its chip's colour class, its label)."""
    return {v: (chip_class(dim, lens, v), chip_label(dim, lens, v)) for v in lens.allowed_values(dim.id)}


def columns(lens: Lens, dims: Sequence[str], wide: pd.DataFrame) -> list[matrix.Column]:
    """The drawn dimensions with their chips: the lens's categories, then any other value the store
    holds (shown under its own name, uncoloured), "not assessed" and "ingest failed" last."""
    out = []
    for d in dims:
        dim = lens.dimension(d)
        known = chips(dim, lens)
        seen = {v for vs in wide[f"_{d}"] for v in vs} if f"_{d}" in wide else set()
        last = [NOT_ASSESSED, *([INGEST_FAILED] if INGEST_FAILED in seen else [])]
        values = [*known, *sorted(seen - set(known) - set(last), key=str.casefold), *last]
        out.append(matrix.Column(d, dim.label, tuple(
            (v, "na" if v in last else "none" if v == NOT_DISCLOSED else "nostage" if v == lens.no_stage_value
             else known.get(v.rpartition(DERIVED_ARROW)[2], ("", ""))[0],
             NOT_ASSESSED if v == NOT_ASSESSED else known[v][1] if v in known else v)
            for v in values)))  # fmt: skip
    return out


def cell_of(c: Mapping[str, object]) -> tuple[list[str], str, bool]:
    """A cell as the matrix draws it: its categories ("not assessed" when none), marks, whether the
    automatic reading disagrees (marks and outline only on an assessed cell)."""
    values = split_values(c.get("value")) if c else []
    if not values or values == [NOT_ASSESSED]:
        return [NOT_ASSESSED], "", False
    return values, marks(c), c.get("disagree") is True


def matrix_frame(wide: pd.DataFrame, cols: Sequence[matrix.Column], facets: Sequence[matrix.Facet]) -> pd.DataFrame:
    """The wide table's rows in the shape `matrix.encode_rows` reads (every report, in the wide table's order)."""
    m = wide[["organization", "doc_type", "params"]]
    meta = [" · ".join(v for v in vals if isinstance(v, str) and v) for vals in m.itertuples(index=False)]
    if "failed" in wide:  # said beside the model, for a report with old readings too
        meta = [f"{x} · ingest failed: {why[:120]}" if why else x for x, why in zip(meta, wide["failed"], strict=True)]
    out = pd.DataFrame({"report_id": wide["report_id"], "model": wide["model"].astype(str), "meta": meta,
                        "disagree": wide["disagree"]})  # fmt: skip
    for f in facets:
        src = wide[META_FILTERS[f.key]] if f.key in META_FILTERS else wide[f"_{f.key}"]
        out[f"facet:{f.key}"] = [[v] if isinstance(v, str) else list(v) if isinstance(v, list) else [] for v in src]
    for c in cols:
        out[f"cell:{c.id}"] = [cell_of(x) for x in wide[c.id]]
    return out


def titles(rows: pd.DataFrame, dims: Sequence[Dimension]) -> dict[str, list[str]]:
    """The hover text of each drawn cell (the full wording and the quote), by report id: sent for the
    shown page only, since quotes for every report would make the matrix's data too large to ship."""
    return {str(r["report_id"]): [hover(r[d.id], d) if r[d.id] else "" for d in dims] for r in rows.to_dict("records")}


# A shared object (st.cache_resource), not a copy: st.cache_data would unpickle the whole table of
# cell dicts on every rerun (0.36 s at 10,000 reports). Callers only filter it, never change it.
@st.cache_resource(show_spinner=False, max_entries=4)
def _wide(key: data.Stamp, dims: tuple[str, ...]) -> pd.DataFrame:
    tbl, _ = data.tables()
    return wide_table(tbl["reports"], tbl["comparison"], list(dims), tbl["status"])


@st.cache_resource(show_spinner=False, max_entries=4)
def _options(key: data.Stamp, dims: tuple[str, ...]) -> dict[str, list[str]]:
    """Every filter's choices, once per store generation: walking every cell's categories on each
    filter change was about a tenth of its script time at 500 reports (a profile). Shared, read-only."""
    wide = _wide(key, dims)
    return {k: options(wide, k) for k in (*META_FILTERS, *dims)}


@st.cache_resource(show_spinner=False, max_entries=4)
def _models(key: data.Stamp, lens_id: str) -> OrderedDict[tuple[object, ...], object]:
    """This generation's encoded rows (by columns) and matrix data (by columns and search), the latest
    MODELS_KEPT: encoding 10,000 rows takes a while, picking the ones a search keeps does not."""
    return OrderedDict()


@dataclass(frozen=True)
class Settled:
    """What a run of the matrix settled on: the (facet, value) pairs, the page, the search and columns
    it was for, and the browser's change count it has seen (echoed back to the browser)."""

    pairs: list[tuple[str, str]]
    page: int
    query: tuple[str, tuple[str, ...]]
    seq: int


def _kept(key: data.Stamp, lens_id: str, what: tuple[object, ...], make: Callable[[], T]) -> T:
    """`make()` once per store generation and `what` (kept in `_models`)."""
    kept = _models(key, lens_id)
    if what not in kept:
        kept[what] = make()
        while len(kept) > MODELS_KEPT:
            kept.popitem(last=False)
    return kept[what]  # type: ignore[return-value]


def _facets(lens: Lens, choices: Mapping[str, list[str]]) -> list[matrix.Facet]:
    """The filter's facets: organization, doc type and the lens's summary dimensions, with their values."""
    labels = {"org": "Organization", "doc": "Doc type", **{d: lens.dimension(d).label for d in lens.summary_ids}}
    return [
        matrix.Facet(
            k, label, tuple((v, v if k in META_FILTERS else chip_label(lens.dimension(k), lens, v)) for v in choices.get(k, []))
        )
        for k, label in labels.items()
    ]


def legend(lens: Lens) -> str:
    """The legend, with the lens's own value for a report without its stage (`no_stage:`) when it declares one."""
    ns = lens.no_stage
    if ns is None:
        return LEGEND
    return f"{LEGEND} “{ns.value}”: {ns.description or 'the report has no such stage'} (not the same as “not disclosed”)."


def render() -> None:
    """Draw the page."""
    lens = data.lens()
    st.title(f"Compare: {lens.label}")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    # The legend does not change with the filters, so it sits outside their fragment (not redrawn).
    st.caption(legend(lens))
    changes.compare_note()  # reports whose latest version changed a cell, linked to their Changes view
    shown_ids: dict[str, pd.Series] = {}
    _matrix_and_filters(shown_ids)
    _downloads(tbl, shown_ids, lens)


@st.fragment
def _matrix_and_filters(shown_ids: dict[str, pd.Series]) -> None:
    """The search box, the column chooser and the matrix (which filters and pages in the browser,
    `views.matrix`): a fragment, so the rerun that follows a choice in the browser (it writes the
    URL and sends the page's hover texts) reruns only this part. It leaves the shown reports' ids in
    `shown_ids` (the same object on every rerun of the fragment) for the exports, which sit outside
    it and read it when clicked."""
    lens = data.lens()
    _, key = data.tables()
    all_dims = tuple(d.id for d in lens.dimensions)
    wide = _wide(key, all_dims)
    labels = {d.id: d.label for d in lens.dimensions}
    # Two popovers: a closed popover's widgets are not drawn, and a text box and a multiselect drawn up
    # front added about 0.4 s to the first render at 10,000 reports (bench/app_speed.py, 2.29 s).
    with st.container(horizontal=True, vertical_alignment="center"):
        with st.popover(f"Search: {nav.typed('q', 20)}" if nav.is_set("q") else "Search", key="facet_q"):
            query = st.text_input("Search", key="q", bind="query-params", max_chars=200, width=320,
                                  placeholder="model, wording, quote…")  # fmt: skip
        with st.popover("Columns", key="facet_cols"):
            cols = nav.select("Columns", list(all_dims), "cols", labels.get, widget="multiselect", default=lens.summary_ids,
                              help="Which dimensions of the lens to show (the URL keeps the choice).")  # fmt: skip
    dims = tuple(cols or lens.summary_ids)
    facets = _kept(key, lens.id, ("facets",), lambda: _facets(lens, _options(key, all_dims)))
    drawn = _kept(key, lens.id, ("columns", dims), lambda: columns(lens, dims, wide))
    encoded = _kept(key, lens.id, ("rows", dims), lambda: matrix.encode_rows(matrix_frame(wide, drawn, facets), drawn, facets))
    q = query.strip()
    base = filter_rows(wide, {}, q) if q else wide

    def model() -> matrix.Model:
        rows = encoded if not q else [encoded[i] for i in wide.index.get_indexer(base.index)]
        return matrix.model_json(rows, drawn, facets, TEXTS)

    data_ = _kept(key, lens.id, ("model", dims, q), model)
    news = matrix.sent()
    last: Settled | None = st.session_state.get(_SETTLED)
    pairs = nav.facet_choice({f.key: [v for v, _ in f.values] for f in facets}, news.pairs if news else None,
                             last.pairs if last else None)  # fmt: skip
    shown = filter_rows(base, {f.key: [v for k, v in pairs if k == f.key] for f in facets})
    pages = max(1, -(-len(shown) // matrix.PAGE_ROWS))
    # The browser's page; else the first after the rows changed under it (a search, a link), else the last one.
    same = last is not None and last.pairs == pairs and last.query == (q, dims)
    page = min(news.page if news else last.page if same and last else 1, pages)
    now = Settled(pairs, page, (q, dims), news.seq if news else last.seq if last else 0)
    st.session_state[_SETTLED] = now
    part = shown.iloc[(page - 1) * matrix.PAGE_ROWS : page * matrix.PAGE_ROWS]
    if news and news.ids:  # the browser sorted the rows: the hover texts of the rows it shows
        part = shown[shown["report_id"].isin(news.ids)]
    matrix.draw(data_, pairs, page, now.seq, len(wide), bool(q), titles(part, [lens.dimension(d) for d in dims]), CSS)
    shown_ids["ids"] = shown["report_id"]


def _downloads(tbl: Mapping[str, pd.DataFrame], shown_ids: Mapping[str, pd.Series], lens: Lens) -> None:
    """Exports of the reports the filters show (the lens's columns, curated/automatic marks kept),
    generated only when clicked, from the ids the matrix's fragment last left in `shown_ids`: nothing
    is filtered on a rerun (at 10,000 reports that costs 0.1–0.2 s)."""

    def shown(name: str) -> pd.DataFrame:
        t = tbl[name]
        return t[t["report_id"].isin(shown_ids.get("ids", ()))] if not t.empty else t

    cmp_ = tbl["comparison"]
    # In a popover: a closed popover's buttons are not drawn, and five download buttons in five columns
    # drawn up front added two element kinds to the first render (bench/ab_first_render.py measures it).
    with st.popover("Export the shown reports", key="cmp_export"):
        st.caption("The reports the filters above show, in the lens's columns.")
        st.download_button(
            "Summary (Markdown)",
            lambda: export.to_markdown(study_tables.summary_frame(shown("reports"), cmp_, lens, marks=True)),
            file_name="summary.md", mime="text/markdown", key="dl_summary_md", on_click="ignore",
        )  # fmt: skip
        st.download_button(
            "Summary with quotes (Markdown)",
            lambda: export.to_markdown(study_tables.summary_frame(shown("reports"), cmp_, lens, marks=True, quotes=True)),
            file_name="summary-quotes.md", mime="text/markdown", key="dl_summary_quotes_md", on_click="ignore",
        )  # fmt: skip
        st.download_button(
            "Statistics (Markdown)",  # the `figures` column always: the same columns whichever reports are shown
            lambda: export.to_markdown(stats.stats_frame(shown("reports"), tbl["reported"], tbl["counts"], figures=True)),
            file_name="stats.md", mime="text/markdown", key="dl_stats_md", on_click="ignore",
        )  # fmt: skip
        st.download_button(
            "Tiers (Markdown)", lambda: export.to_markdown(study_tables.tiers_frame(shown("reports"), cmp_, lens)),
            file_name="tiers.md", mime="text/markdown", key="dl_tiers_md", on_click="ignore",
        )  # fmt: skip
        st.download_button(
            "Comparison (CSV)", lambda: export.to_csv(study_tables.comparison_frame(shown("comparison"))),
            file_name="comparison.csv", mime="text/csv", key="dl_comparison_csv", on_click="ignore",
        )  # fmt: skip


if __name__ == "__main__":
    render()
