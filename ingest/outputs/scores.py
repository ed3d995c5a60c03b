"""Benchmark scores across reports, from the stored `results` table: pure DataFrame functions.

What the dashboard's Benchmarks page (and any export) shows about result tables: which benchmark
categories each report evaluates on (coverage), each report's own-model score on one benchmark with
its table and page, a whole result table rebuilt as printed (model × benchmark), and the report's
claims (scores on the lens's `claims_categories`) beside its disclosure level. Category ids and
labels come from the catalogue (`data/benchmarks.yaml`), levels and claims categories from the
lens; nothing here names a category, level or dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ingest.analysis.keywords import density, density_unit
from ingest.analysis.lens import NOT_ASSESSED

CURATED_MARK = "✎"
FLAG_MARK = "⚑"
OWN_MARK = "★"
#: Column label for benchmarks the catalogue does not know (their category is empty).
UNCATALOGUED = "not in catalogue"


@dataclass(frozen=True)
class ReportResults:
    """Which reports have result cells read from their tables, only curated ones, or none."""

    read: list[str]
    curated_only: list[str]
    none: list[str]


def _bench_key(df: pd.DataFrame) -> pd.Series:
    """A benchmark's identity: its catalogue id, or its printed name when the catalogue lacks it."""
    ids = df["benchmark_id"].fillna("").astype(str)
    return ids.where(ids != "", "?" + df["benchmark"].fillna("").astype(str).str.casefold())


def report_results(reports: pd.DataFrame, results: pd.DataFrame) -> ReportResults:
    """Sort every report by where its scores come from (table reading, a curated block, nothing)."""
    ids = reports["report_id"].astype(str).tolist() if len(reports) else []
    origins = results.groupby("report_id")["origin"].agg(set).to_dict() if len(results) else {}
    read = [r for r in ids if "auto" in origins.get(r, set())]
    cur = [r for r in ids if r not in read and "curated" in origins.get(r, set())]
    return ReportResults(read, cur, [r for r in ids if r not in read and r not in cur])


def coverage_matrix(reports: pd.DataFrame, results: pd.DataFrame, categories: dict[str, str]) -> pd.DataFrame:
    """Reports × categories: how many distinct benchmarks of each category a report's tables score.

    Rows are indexed by report_id (every report, zeros included); columns are the catalogue's
    category labels in catalogue order, plus "not in catalogue" when unknown names occur. Only
    columns with at least one benchmark are kept.
    """
    ids = reports["report_id"].astype(str).tolist() if len(reports) else []
    cols = list(categories.values())
    if not len(results):
        return pd.DataFrame(0, index=pd.Index(ids, name="report_id"), columns=cols).loc[:, []]
    df = results.assign(_b=_bench_key(results), _c=results["category"].fillna("").astype(str))
    df["_c"] = df["_c"].map(lambda c: categories.get(c, c or UNCATALOGUED))
    counts = df.drop_duplicates(["report_id", "_b"]).groupby(["report_id", "_c"]).size().unstack(fill_value=0)
    extra = [c for c in counts.columns if c not in cols]
    counts = counts.reindex(index=ids, columns=cols + extra, fill_value=0).fillna(0).astype(int)
    counts.index.name = "report_id"
    counts.columns.name = None
    return counts.loc[:, counts.sum(axis=0) > 0]


def benchmark_choices(results: pd.DataFrame) -> pd.DataFrame:
    """Catalogued benchmarks with a numeric own-model score: benchmark_id, reports, most reports first."""
    cols = ["benchmark_id", "reports"]
    if not len(results):
        return pd.DataFrame(columns=cols)
    own = results[results["own"].astype(bool) & results["score"].notna() & (results["benchmark_id"].fillna("") != "")]
    g = own.groupby("benchmark_id")["report_id"].nunique().rename("reports").reset_index()
    return g.sort_values(["reports", "benchmark_id"], ascending=[False, True], kind="stable")[cols].reset_index(drop=True)


def table_key(page: object, table: object) -> str:
    """A result table's id within a report, readable in a URL: "Table 2, page 15".

    A post's page is its section heading ("Table in 'Results', section Results"); curated scores
    without a figure name are "curated scores, page 4".
    """
    page_s = "" if page is None or (isinstance(page, float) and pd.isna(page)) else str(page)
    table_s = "" if table is None or (isinstance(table, float) and pd.isna(table)) else str(table)
    table_s = table_s or "curated scores"
    if not page_s:
        return table_s
    return f"{table_s}, page {page_s}" if page_s.isdigit() else f"{table_s}, section {page_s}"


def own_scores(results: pd.DataFrame, reports: pd.DataFrame, benchmark_id: str) -> pd.DataFrame:
    """Every report's own-model scores on one benchmark, one row per cell, with its provenance.

    A report with several own rows (model sizes, thinking modes, metrics, two tables) keeps them
    all; `label` tells them apart (model, setting, metric, table).
    """
    cols = ["report_id", "report", "model", "setting", "metric", "group", "value", "score", "page", "table",
            "caption", "origin", "flag", "table_key", "label"]  # fmt: skip
    if not len(results) or not benchmark_id:
        return pd.DataFrame(columns=cols)
    m = results["own"].astype(bool) & (results["benchmark_id"].fillna("") == benchmark_id) & results["score"].notna()
    df = results[m].copy()
    if df.empty:
        return pd.DataFrame(columns=cols)
    names = dict(zip(reports["report_id"], reports["model"], strict=False)) if len(reports) else {}
    df["report"] = df["report_id"].map(lambda r: names.get(r, r))
    df = df.fillna({c: "" for c in ("setting", "metric", "group", "page", "table", "caption", "flag")})
    df["table_key"] = [table_key(p, t) for p, t in zip(df["page"], df["table"], strict=True)]
    several_tables = df.groupby("report_id")["table_key"].transform("nunique") > 1

    def label(r: pd.Series, with_table: bool) -> str:
        bits = ", ".join(x for x in (r["setting"], r["metric"], r["group"]) if x)
        text = f"{r['report']} · {r['model']}" + (f" ({bits})" if bits else "")
        return text + (f" [{r['table_key']}]" if with_table else "")

    df["label"] = [label(r, bool(w)) for (_, r), w in zip(df.iterrows(), several_tables, strict=True)]
    # Labels must be unique (one bar each): number any that still coincide.
    dup = df.groupby("label").cumcount()
    df["label"] = [lb if n == 0 else f"{lb} #{n + 1}" for lb, n in zip(df["label"], dup, strict=True)]
    return df.sort_values(["score"], ascending=False, kind="stable")[cols].reset_index(drop=True)


def report_tables(results: pd.DataFrame, report_id: str) -> list[str]:
    """The table keys of one report, in the order they were stored (page order)."""
    if not len(results) or not report_id:
        return []
    df = results[results["report_id"] == report_id]
    return list(dict.fromkeys(table_key(p, t) for p, t in zip(df["page"], df["table"], strict=True)))


def _cell(value: object, origin: object, flag: object) -> str:
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    if origin == "curated":
        text += f" {CURATED_MARK}"
    if isinstance(flag, str) and flag:
        text += f" {FLAG_MARK}"
    return text


def rebuild_table(results: pd.DataFrame, report_id: str, key: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """All cells of one stored table pivoted back: a row per model (and setting), a column per
    benchmark (and metric); a group describing models joins the row, else the column.

    Cells carry ✎ when curated and ⚑ when flagged; own models carry ★. Returns the table and its
    facts (page, table, caption, flags) for the caption. Empty when the table is unknown.
    """
    if not len(results):
        return pd.DataFrame(), {}
    df = results[results["report_id"] == report_id]
    df = df[[table_key(p, t) == key for p, t in zip(df["page"], df["table"], strict=True)]]
    if df.empty:
        return pd.DataFrame(), {}
    df = df.fillna({c: "" for c in ("setting", "metric", "group", "flag", "caption", "page", "table")})
    # A group that is constant per model and differs between models describes the models.
    per_model = df.groupby("model")["group"].nunique()
    group_on_model = bool((per_model <= 1).all()) and df["group"].nunique() > 1
    rows, cols = [], []
    for r in df.itertuples(index=False):
        name = f"{r.model} {OWN_MARK}" if bool(r.own) else str(r.model)
        row = " · ".join(x for x in ((r.group if group_on_model else ""), name, r.setting) if x)
        col = " / ".join(x for x in ((r.group if not group_on_model else ""), str(r.benchmark)) if x)
        rows.append(row)
        cols.append(f"{col} ({r.metric})" if r.metric else col)
    marked = [_cell(v, o, f) for v, o, f in zip(df["value"], df["origin"], df["flag"], strict=True)]
    cells = df.assign(_row=rows, _col=cols, _cell=marked)
    piv = cells.pivot_table(index="_row", columns="_col", values="_cell", aggfunc=" | ".join, sort=False).fillna("")
    piv.index.name = "model"
    piv.columns.name = None
    first = df.iloc[0]
    facts = {
        "page": str(first["page"]),
        "table": str(first["table"]),
        "caption": str(first["caption"]),
        "origin": ", ".join(sorted(set(df["origin"].astype(str)))),
        "flags": "; ".join(sorted({f for f in df["flag"] if f})),
        "cells": str(len(df)),
    }
    return piv.reset_index(), facts


def claims(
    results: pd.DataFrame,
    reports: pd.DataFrame,
    comparison: pd.DataFrame,
    dimension: str,
    levels: list[str],
    categories: list[str],
    percent_ids: set[str] | None = None,
) -> pd.DataFrame:
    """The best own-model score per report × benchmark of the given categories, beside the report's
    level on a level dimension (`levels` lowest first; a report without a cell is "not assessed").

    Cells flagged for review are left out. `percent_ids`, when given, keeps only benchmarks scored
    in percent, so one axis fits them all.
    """
    cols = ["report_id", "report", "level", "level_rank", "benchmark_id", "benchmark", "model", "setting", "metric",
            "value", "score", "page", "table", "table_key", "origin"]  # fmt: skip
    if not len(results):
        return pd.DataFrame(columns=cols)
    m = results["own"].astype(bool) & results["category"].isin(categories) & results["score"].notna()
    m &= results["flag"].fillna("").astype(str) == ""  # a cell flagged for review is no claim to plot
    if percent_ids is not None:
        m &= results["benchmark_id"].isin(percent_ids)
    df = results[m].copy()
    if df.empty:
        return pd.DataFrame(columns=cols)
    df = df.fillna({c: "" for c in ("setting", "metric", "page", "table")})
    df = df.sort_values("score", ascending=False, kind="stable").drop_duplicates(["report_id", "benchmark_id"])
    lv = level_of(comparison, dimension)
    names = dict(zip(reports["report_id"], reports["model"], strict=False)) if len(reports) else {}
    df["report"] = df["report_id"].map(lambda r: names.get(r, r))
    df["level"] = df["report_id"].map(lambda r: lv.get(r, NOT_ASSESSED))
    order = [NOT_ASSESSED, *levels]
    df["level_rank"] = df["level"].map(lambda v: order.index(v) if v in order else -1)
    df["table_key"] = [table_key(p, t) for p, t in zip(df["page"], df["table"], strict=True)]
    return df.sort_values(["level_rank", "report", "benchmark"], kind="stable")[cols].reset_index(drop=True)


def level_of(comparison: pd.DataFrame, dimension: str) -> dict[str, str]:
    """report_id -> the stored value of one (level) dimension."""
    if not len(comparison):
        return {}
    c = comparison[(comparison["dimension"] == dimension) & comparison["value"].notna()]
    return {str(r): str(v) for r, v in zip(c["report_id"], c["value"], strict=True) if str(v)}


def coverage_vs_density(
    reports: pd.DataFrame,
    results: pd.DataFrame,
    counts: pd.DataFrame,
    reported: pd.DataFrame,
    categories: list[str],
    group: str,
    term: str,
) -> pd.DataFrame:
    """Per report: distinct benchmarks of `categories` its tables score, and the whole-document
    density of one lexicon term — measured, else the study-reported figure — per 1,000 of `unit`
    (words; characters for a measured CJK document)."""
    cols = ["report_id", "report", "coverage", "density", "figures", "has_results", "unit"]
    if not len(reports):
        return pd.DataFrame(columns=cols)
    ids = reports["report_id"].astype(str).tolist()
    cov: dict[str, int] = {}
    if len(results):
        sub = results[results["category"].isin(categories)]
        cov = sub.assign(_b=_bench_key(sub)).groupby("report_id")["_b"].nunique().to_dict()
    with_rows = set(results["report_id"]) if len(results) else set()
    dens: dict[str, tuple[float, str]] = {}
    if len(reported):
        r = reported[(reported["term"] == term) & reported["count"].notna() & (reported["words"].fillna(0) > 0)]
        dens.update({k: (density(c, w), "reported") for k, c, w in zip(r["report_id"], r["count"], r["words"], strict=True)})
    if len(counts):
        c = counts[(counts["group"] == group) & (counts["section"] == "all") & (counts["term"] == term)]
        c = c[c["words"].fillna(0) > 0]
        dens.update({k: (density(n, w), "measured") for k, n, w in zip(c["report_id"], c["count"], c["words"], strict=True)})
    names = dict(zip(reports["report_id"], reports["model"], strict=False))
    rules = dict(zip(reports["report_id"], reports["word_rule"], strict=False)) if "word_rule" in reports else {}
    rows = [
        {"report_id": rid, "report": names.get(rid, rid), "coverage": int(cov.get(rid, 0)),
         "density": dens[rid][0], "figures": dens[rid][1], "has_results": rid in with_rows,
         "unit": density_unit(rules.get(rid) if dens[rid][1] == "measured" else None)}
        for rid in ids if rid in dens
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)
