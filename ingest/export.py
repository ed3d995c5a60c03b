"""Export: stored tables as CSV or Markdown, by pure functions the CLI and the dashboard share."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from . import stats, study_tables
from .mdtable import to_markdown
from .report_card import report_card
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
    "comparison": study_tables.comparison_table,
    "summary": study_tables.summary_table,
    "stats": stats.stats_table,
    "stats-measured": lambda store: stats.stats_table(store, source="measured"),
    "tiers": study_tables.tiers_table,
}
__all__ = ["TABLES", "render", "report_card", "to_markdown"]


def render(df: pd.DataFrame, fmt: Format) -> str:
    """The table as text in the requested format."""
    if fmt == "csv":
        return df.to_csv(index=False)
    if fmt == "md":
        return to_markdown(df)
    raise ValueError(f"unknown format {fmt!r}; use csv or md")
