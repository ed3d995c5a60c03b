"""The benchmark results as one wide table: a row per report × model × setting, a column per benchmark.

The stored `results` table is long (one row per score), which suits filtering but not a paper: a
reader wants the grid a lab prints. Columns are named by the catalogue's canonical id when the
benchmark is known (so "SWE-bench Verified" and "SWE-Bench (Verified)" share one column) and by the
printed name otherwise; cells hold the value as printed. A model scored twice on one benchmark (two
tables, or two metrics) keeps the first score in table order, and the `scored twice` column names
those benchmarks so nothing is silently dropped. Cells flagged for review are kept (a whole table
may be flagged for one odd cell) and named in the `flagged for review` column.
"""

from __future__ import annotations

import pandas as pd

from ingest.analysis.benchmarks import load_catalogue
from ingest.outputs.mdtable import blank
from ingest.store.store import Store

KEY_COLUMNS = ["report", "model", "setting", "own"]


def wide_results(
    results: pd.DataFrame, reports: pd.DataFrame, names: dict[str, str] | None = None, own_only: bool = False
) -> pd.DataFrame:
    """The wide table (see the module docstring). `names` maps catalogue ids to the names the column
    headers show (the catalogue's); `own_only` keeps the reports' own models."""
    if results.empty:
        return pd.DataFrame(columns=[*KEY_COLUMNS, "scored twice", "flagged for review"])
    df = results.copy()
    if own_only:
        df = df[df["own"].astype(bool)]
    models = dict(zip(reports["report_id"], reports["model"], strict=False)) if len(reports) else {}
    df["report"] = df["report_id"].map(lambda r: models.get(r, r))
    shown = names or {}
    df["column"] = [
        shown.get(b, b) if isinstance(b, str) and b else str(p) for b, p in zip(df["benchmark_id"], df["benchmark"], strict=True)
    ]
    df["setting"] = df["setting"].map(lambda s: "" if blank(s) else str(s))
    df["own"] = df["own"].map(lambda o: "yes" if bool(o) else "")
    keys = ["report", "model", "setting", "own"]
    dup = df.duplicated([*keys, "column"], keep="first")
    twice = df[dup].groupby(keys, sort=False)["column"].agg(lambda c: ", ".join(dict.fromkeys(c)))
    first = df[~dup]
    flagged = first[first["flag"].fillna("").astype(str) != ""].groupby(keys, sort=False)["column"]
    flagged = flagged.agg(lambda c: ", ".join(dict.fromkeys(c)))
    cols = list(dict.fromkeys(first["column"]))
    wide = first.pivot(index=keys, columns="column", values="value")
    wide = wide.reindex(columns=cols).reset_index()
    wide["scored twice"] = [twice.get(tuple(k), "") for k in wide[keys].itertuples(index=False)]
    wide["flagged for review"] = [flagged.get(tuple(k), "") for k in wide[keys].itertuples(index=False)]
    order = list(dict.fromkeys(df["report"]))
    wide["_r"] = wide["report"].map(order.index)
    wide = wide.sort_values(["_r", "own", "model"], ascending=[True, False, True], kind="stable").drop(columns="_r")
    wide.columns.name = None
    return wide.astype(object).where(wide.notna(), "").reset_index(drop=True)


def catalogue_names() -> dict[str, str]:
    """Catalogue id -> the benchmark's name (data/benchmarks.yaml)."""
    return {b.id: b.name for b in load_catalogue().benchmarks}


def wide_table(store: Store) -> pd.DataFrame:
    """The wide table of the stored data, headed by the catalogue's benchmark names."""
    return wide_results(store.read_table("results"), store.read_table("reports"), catalogue_names())
