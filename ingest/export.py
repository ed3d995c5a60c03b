"""Export: stored tables as CSV or Markdown, by pure functions the CLI and the dashboard share."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from . import review, summaries
from .store import Store

Format = str  # "csv" | "md"


def _stored(name: str) -> Callable[[Store], pd.DataFrame]:
    def get(store: Store) -> pd.DataFrame:
        return store.read_table(name)

    get.__doc__ = f"The stored `{name}` table."
    return get


def counts_table(store: Store) -> pd.DataFrame:
    """Tidy counts: one row per report × section × term (sections body/appendix/references/all)."""
    df = store.read_table("counts")
    if df.empty:
        return df
    cols = ["report_id", "section", "term", "count", "words", "density", "group", "rule"]
    return df[cols]


#: Every exportable table: name -> builder. The CLI's `--table` choices derive from this.
TABLES: dict[str, Callable[[Store], pd.DataFrame]] = {
    "counts": counts_table,
    "reports": _stored("reports"),
    "sections": _stored("sections"),
    "kwic": _stored("kwic"),
    "reported": _stored("reported"),
    "status": _stored("status"),
    "evidence": _stored("evidence"),
    "comparison": summaries.comparison_table,
    "summary": summaries.summary_table,
    "stats": summaries.stats_table,
    "stats-measured": lambda store: summaries.stats_table(store, source="measured"),
    "tiers": summaries.tiers_table,
    "agreement": review.agreement_table,
}
report_card = summaries.report_card


def _md_cell(v: object) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    return str(v).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency such as tabulate)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def render(df: pd.DataFrame, fmt: Format) -> str:
    """The table as text in the requested format."""
    if fmt == "csv":
        return df.to_csv(index=False)
    if fmt == "md":
        return to_markdown(df)
    raise ValueError(f"unknown format {fmt!r}; use csv or md")
