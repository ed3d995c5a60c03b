"""Study-format tables from the stored comparison table, driven by the lens: summary, tiers, comparison.

Which dimensions form the summary, their labels, and which level groups the tiers all come from
the lens (`summary_columns`, `tier_level`, see the header of data/lenses/agentic_rl.yaml); no
dimension id is written here. The `*_table(store)` wrappers pick the lens the store was built
with (`lens.lens_for` its dimension ids) unless one is given.
"""

from __future__ import annotations

import typing

import pandas as pd

from ingest.analysis.comparison import SEP
from ingest.analysis.confidence import unsure
from ingest.analysis.lens import NOT_ASSESSED, Lens, lens_for
from ingest.outputs.mdtable import blank
from ingest.sources.schema import DocType
from ingest.store.store import Store

#: How the study names each schema doc type in its tier table.
DOC_KINDS: dict[str, str] = {
    "github-pdf": "PDF tech report on GitHub (no arXiv)",
    "arxiv": "arXiv preprint",
    "blog": "official blog post",
    "other": "other document",
}
#: The `wording` column of the summary: where each row's cells come from.
STUDY_WORDING, CATEGORY_WORDING = "study", "categories"

COMPARISON_COLUMNS = [
    "report_id", "dimension", "value", "origin", "confidence", "quote", "page", "page_label", "section", "detail",
    "notes", "auto_value", "disagree", "indicators",
]  # fmt: skip


def lens_of(comparison: pd.DataFrame) -> Lens:
    """The lens whose dimensions the stored comparison table holds."""
    return lens_for(comparison["dimension"].unique() if not comparison.empty else [])


def uses_study_wording(row: pd.Series | dict, lens: Lens) -> bool:
    """A curated cell with the study's own words (`detail`) prints them, except on level dimensions."""
    detail = row.get("detail")
    dim = row.get("dimension")
    kind = lens.dimension(dim).kind if dim in lens.ids else ""
    return isinstance(detail, str) and bool(detail) and kind != "level"


def display_value(value: object, dim_id: object, lens: Lens) -> str:
    """A stored cell value in the lens's display labels ("Rule-based / verifiable; Code execution / tests"):
    each category name becomes its `label`; names the lens lacks (a method a report introduced, a
    level) stay as stored."""
    if blank(value):
        return ""
    if dim_id not in lens.ids:
        return str(value)
    dim = lens.dimension(str(dim_id))
    src = lens.dimension(dim.source) if dim.kind == "mentioned" and dim.source else dim
    labels = {c.name: c.label or c.name for c in src.categories}
    return SEP.join(labels.get(v.strip(), v.strip()) for v in str(value).split(SEP.strip()) if v.strip())


def cell_text(row: pd.Series | dict, lens: Lens, marks: bool = False) -> str:
    """A comparison cell as the study writes it: the curated wording when present, else the value(s)
    in the lens's display labels. With `marks`, each cell says where it comes from: `[curated]`
    (hand-checked, the study's wording when it has some) or `[automatic]` (found by the pipeline)."""
    dim = row.get("dimension")
    text = str(row["detail"]) if uses_study_wording(row, lens) else display_value(row.get("value"), dim, lens)
    if marks:
        if row.get("origin") == "curated":
            text += " [curated]"
        elif row.get("origin") == "auto":
            low = unsure("auto", row.get("confidence"))
            text += " [automatic, low confidence]" if low else " [automatic]"
        if row.get("disagree") is True and isinstance(row.get("auto_value"), str):
            text += f" [auto disagrees: {display_value(row.get('auto_value'), dim, lens)}]"
    return text


def evidence_text(row: pd.Series | dict) -> str:
    """A cell's supporting quote and page, “…” (p. 5), or '' when it has none."""
    quote = row.get("quote")
    if blank(quote) or not str(quote).strip():
        return ""
    page = row.get("page_label") if not blank(row.get("page_label")) else row.get("page")
    return f"“{str(quote).strip()}”" + ("" if blank(page) else f" (p. {page})")


def summary_frame(
    reports: pd.DataFrame, comparison: pd.DataFrame, lens: Lens | None = None, marks: bool = False, quotes: bool = False
) -> pd.DataFrame:
    """The study's summary table: model, organization, one column per lens summary dimension, `wording`.

    `wording` says where the row's cells come from: `study` (the curated wording of the study),
    `categories` (the lens's category labels), or which columns use the study's wording when mixed.
    `marks` tags each cell curated/automatic; `quotes` adds a "<label>: quote" column after each
    dimension with the supporting sentence and its page.
    """
    lens = lens or lens_of(comparison)
    dims = lens.summary_ids
    labels = {d.id: d.label for d in lens.dimensions}
    by = {(r["report_id"], r["dimension"]): r for r in comparison.to_dict("records")} if not comparison.empty else {}
    out = []
    for r in reports.itertuples(index=False):
        line: dict[str, object] = {"model": r.model, "organization": r.organization}
        study_cols, cat_cols = [], []
        for dim in dims:
            cell = by.get((r.report_id, dim))
            if quotes:
                line[f"{labels[dim]}: quote"] = evidence_text(cell) if cell is not None else ""
            if cell is None:
                line[labels[dim]] = NOT_ASSESSED
                continue
            line[labels[dim]] = cell_text(cell, lens, marks) or NOT_ASSESSED
            (study_cols if uses_study_wording(cell, lens) else cat_cols).append(labels[dim])
        if study_cols and cat_cols:
            line["wording"] = f"{STUDY_WORDING}: " + ", ".join(study_cols) + f"; {CATEGORY_WORDING}: " + ", ".join(cat_cols)
        else:
            line["wording"] = STUDY_WORDING if study_cols else CATEGORY_WORDING
        out.append(line)
    shown = [c for d in dims for c in ([labels[d], f"{labels[d]}: quote"] if quotes else [labels[d]])]
    return pd.DataFrame(out, columns=["model", "organization", *shown, "wording"])


def _level_order(lens: Lens, values: typing.Sequence[str]) -> list[str]:
    """Levels from the highest down (the lens lists them lowest first); unknown ones after, alphabetically."""
    level = lens.level_id
    cats = tuple(reversed(lens.dimension(level).values)) if level else ()
    known = [c for c in cats if c in values]
    return known + sorted((v for v in values if v not in cats), key=str.casefold)


def tiers_frame(reports: pd.DataFrame, comparison: pd.DataFrame, lens: Lens | None = None) -> pd.DataFrame:
    """The disclosure-tier table: reports grouped by document kind × the lens's tier level."""
    lens = lens or lens_of(comparison)
    level = lens.level_id
    label = lens.dimension(level).label if level else "level"
    cols = ["document kind", label, "models", "wording"]
    disc = comparison[comparison["dimension"] == level] if not comparison.empty and level else comparison.iloc[0:0]
    by_id = {r.report_id: r for r in disc.itertuples(index=False)} if not disc.empty else {}
    rows = []
    for r in reports.itertuples(index=False):
        c = by_id.get(r.report_id)
        lv = NOT_ASSESSED if c is None or blank(c.value) else str(c.value)
        detail = getattr(c, "detail", None) if c is not None else None
        rows.append({"doc_type": r.doc_type, "level": lv, "model": r.model, "detail": detail})
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    doc_order = list(typing.get_args(DocType))
    levels = _level_order(lens, df["level"].unique().tolist())
    out = []
    for dt in sorted(df["doc_type"].unique(), key=lambda x: doc_order.index(x) if x in doc_order else 99):
        sub = df[df["doc_type"] == dt]
        for lv in [lv for lv in levels if lv in set(sub["level"])]:
            g = sub[sub["level"] == lv]
            details = g["detail"].dropna()
            out.append(
                {
                    "document kind": DOC_KINDS.get(dt, dt),
                    label: lv,
                    "models": ", ".join(sorted(g["model"], key=str.casefold)),
                    "wording": details.mode().iloc[0] if len(details) else "",
                }
            )
    return pd.DataFrame(out, columns=cols)


def comparison_frame(comparison: pd.DataFrame) -> pd.DataFrame:
    """The comparison table for export: fixed columns, missing values empty (never `<NA>`/`None`)."""
    if comparison.empty:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    df = comparison.reindex(columns=COMPARISON_COLUMNS).astype(object)
    return df.where(~df.map(blank), "")


def comparison_table(store: Store) -> pd.DataFrame:
    """The stored comparison table (ingest/analysis/comparison.py builds it on every run), export-ready."""
    return comparison_frame(store.read_table("comparison"))


def summary_table(store: Store, lens: Lens | None = None, marks: bool = True, quotes: bool = False) -> pd.DataFrame:
    """Summary table of the stored data; each cell marked curated/automatic as the dashboard's download."""
    return summary_frame(store.read_table("reports"), store.read_table("comparison"), lens, marks=marks, quotes=quotes)


def tiers_table(store: Store, lens: Lens | None = None) -> pd.DataFrame:
    """Tier table of the stored data."""
    return tiers_frame(store.read_table("reports"), store.read_table("comparison"), lens)
