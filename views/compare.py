"""Compare page: the evidence-linked comparison table with URL-bound filters and exports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest import export, summaries
from views import data, nav

#: Filter key (also the URL query parameter) -> comparison dimension it filters on.
DIM_FILTERS: dict[str, str] = {
    "disclosure": "disclosure",
    "algorithm": "rl_algorithm",
    "reward": "reward_source",
    "granularity": "credit_granularity",
}
#: Filter key -> reports column.
META_FILTERS: dict[str, str] = {"org": "organization", "doc": "doc_type"}
TABLE_DIMS: tuple[str, ...] = ("reward_source", "credit_granularity", "rl_algorithm", "rl_algorithm_mentioned", "disclosure")
CURATED_MARK, AUTO_MARK, DISAGREE_MARK = "✎", "⚙", "⚠"


def split_values(v: object) -> list[str]:
    """A cell's categories (several are joined by '; ')."""
    return [s.strip() for s in str(v).split(";") if s.strip()] if isinstance(v, str) else []


def display_cell(c: dict) -> str:
    """Value plus markers: ✎ curated, ⚙ automatic, ⚠ where the automatic reading disagrees."""
    text = str(c.get("value") or summaries.NOT_ASSESSED)
    origin = c.get("origin")
    if origin == "curated":
        text += f" {CURATED_MARK}"
    elif origin == "auto":
        text += f" {AUTO_MARK}"
    if c.get("disagree") is True:
        text += f" {DISAGREE_MARK} auto: {c.get('auto_value')}"
    return text


def wide_table(reports: pd.DataFrame, comparison: pd.DataFrame, dims: list[str]) -> pd.DataFrame:
    """One row per report: metadata, a display column per dimension, hidden `_<dim>` category lists."""
    base = reports[["report_id", "model", "organization", "doc_type", "params"]].copy()
    cmp_ = comparison[comparison["dimension"].isin(dims)] if not comparison.empty else comparison
    by = {(r["report_id"], r["dimension"]): r for r in cmp_.to_dict("records")}
    texts = {r["report_id"]: [] for r in cmp_.to_dict("records")}
    for r in cmp_.to_dict("records"):
        texts[r["report_id"]] += [str(r.get(k) or "") for k in ("value", "detail", "quote")]
    for dim in dims:
        cells = [by.get((rid, dim), {}) for rid in base["report_id"]]
        base[dim] = [display_cell(c) if c else summaries.NOT_ASSESSED for c in cells]
        base[f"_{dim}"] = [split_values(c.get("value")) if c else [summaries.NOT_ASSESSED] for c in cells]
    base["disagree"] = [any(by.get((rid, d), {}).get("disagree") is True for d in dims) for rid in base["report_id"]]
    m = reports[["model", "organization", "params", "notes"]].fillna("").astype(str)
    meta = m["model"] + " " + m["organization"] + " " + m["params"] + " " + m["notes"]
    base["_text"] = (meta + " " + base["report_id"].map(lambda r: " ".join(texts.get(r, [])))).str.lower().to_numpy()
    return base


def options(wide: pd.DataFrame, key: str) -> list[str]:
    """Choices of one filter, from the data (sorted)."""
    if key in META_FILTERS:
        return sorted(wide[META_FILTERS[key]].dropna().astype(str).unique())
    col = f"_{DIM_FILTERS[key]}"
    return sorted({v for vs in wide[col] for v in vs}) if col in wide else []


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
            mask &= wide[f"_{DIM_FILTERS[key]}"].map(lambda vs, sel=sel: bool(sel.intersection(vs)))
    if query.strip():
        mask &= wide["_text"].str.contains(query.strip().lower(), regex=False)
    return wide[mask]


@st.cache_data(show_spinner=False, max_entries=4)
def _wide(key: data.Stamp, dims: tuple[str, ...]) -> pd.DataFrame:
    tbl, _ = data.tables()
    return wide_table(tbl["reports"], tbl["comparison"], list(dims))


def render() -> None:
    """Draw the page."""
    st.title("Compare: agentic-RL design")
    tbl, key = data.tables()
    if data.no_data_notice(tbl):
        return
    labels = data.dim_labels()
    dims = tuple(d for d in TABLE_DIMS if d in labels) or TABLE_DIMS
    wide = _wide(key, dims)
    filter_labels = {"org": "Organization", "doc": "Doc type"} | {k: labels.get(d, d) for k, d in DIM_FILTERS.items()}
    chosen: dict[str, list[str]] = {}
    with st.sidebar:
        st.header("Filters")
        query = st.text_input("Search", key="q", bind="query-params", placeholder="model, wording, quote…")
        for k, label in filter_labels.items():
            chosen[k] = st.multiselect(label, options(wide, k), key=k, bind="query-params")
    shown = filter_rows(wide, chosen, query)
    st.caption(
        f"{len(shown)} of {len(wide)} reports · {CURATED_MARK} curated (hand-checked, the study's wording in Report) · "
        f"{AUTO_MARK} automatic (quote in Evidence) · {DISAGREE_MARK} automatic reading disagrees · "
        "“not disclosed” is a finding; “not assessed” means nobody has looked yet"
    )
    cols = ["model", "organization", "doc_type", "params", *dims]
    view = shown[cols].fillna({"params": "—", "organization": "—"})
    view = view.rename(columns={"doc_type": "doc type", **{d: labels.get(d, d) for d in dims}})
    event = st.dataframe(
        view, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row", key="compare_table"
    )
    n_dis = int(shown["disagree"].sum())
    if n_dis:
        st.warning(f"{n_dis} report(s) where the automatic reading disagrees with the curated value ({DISAGREE_MARK}).")
    rows = getattr(getattr(event, "selection", None), "rows", None) or []
    if rows:
        rid = str(shown.iloc[rows[0]]["report_id"])
        nav.go("report", id=rid)
    ids = shown["report_id"].tolist()
    _downloads(tbl, ids)


def _downloads(tbl: dict[str, pd.DataFrame], ids: list[str]) -> None:
    """Exports of the shown reports, generated only when clicked."""
    reports = tbl["reports"][tbl["reports"]["report_id"].isin(ids)]
    cmp_ = tbl["comparison"]
    st.subheader("Export")
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button(
        "Summary (Markdown)", lambda: export.to_markdown(summaries.summary_frame(reports, cmp_)),
        file_name="summary.md", mime="text/markdown", key="dl_summary_md", on_click="ignore",
    )  # fmt: skip
    c2.download_button(
        "Statistics (Markdown)",
        lambda: export.to_markdown(summaries.stats_frame(reports, tbl["reported"], tbl["counts"])),
        file_name="stats.md", mime="text/markdown", key="dl_stats_md", on_click="ignore",
    )  # fmt: skip
    c3.download_button(
        "Tiers (Markdown)", lambda: export.to_markdown(summaries.tiers_frame(reports, cmp_)),
        file_name="tiers.md", mime="text/markdown", key="dl_tiers_md", on_click="ignore",
    )  # fmt: skip
    c4.download_button(
        "Comparison (CSV)", lambda: cmp_[cmp_["report_id"].isin(ids)].to_csv(index=False),
        file_name="comparison.csv", mime="text/csv", key="dl_comparison_csv", on_click="ignore",
    )  # fmt: skip


if __name__ == "__main__":
    render()
