"""The cross-report leaderboard: every claimed score of a model on a benchmark, from every report,
ranked per benchmark, with the claims that disagree flagged.

A public leaderboard keeps one number per model and benchmark. Reports do not agree on that
number: a lab prints its own model's score, a competitor prints another in its comparison table,
both under the same benchmark and setting. This view keeps who claims what about whom: one row per
(benchmark, metric, setting, model, value) with every report, page and table that prints it; when
two reports print different values for the same model, benchmark, metric and setting, each value's
row says so and names the other claims.

Pure functions on the stored `results` table (`RESULT_COLUMNS`), shared by the `export --table
leaderboard` command and the dashboard's Benchmarks page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ingest.analysis.benchmarks import Catalogue, norm_name

LEADERBOARD_COLUMNS = [
    "benchmark",
    "benchmark_id",
    "category",
    "metric",
    "setting",
    "rank",
    "model",
    "value",
    "score",
    "sources",
    "reports",
    "own_claim",
    "verified",
    "disagreement",
]

#: Two printed scores closer than this are the same claim ("71.2" and "71.20").
SAME_SCORE = 1e-6


@dataclass(frozen=True)
class Claim:
    """One printed value, where it is printed, and whether the printing report is the model's own."""

    report_id: str
    page: str
    table: str
    own: bool
    verified: bool

    def where(self) -> str:
        return " ".join(x for x in (self.report_id, f"p{self.page}" if self.page else "", self.table) if x)


def _key(row: pd.Series) -> tuple[str, str, str, str]:
    bench = row["benchmark_id"] or "?" + norm_name(str(row["benchmark"]))
    return bench, norm_name(str(row["metric"] or "")), norm_name(str(row["setting"] or "")), norm_name(str(row["model"]))


def _value_key(value: str, score: float | None) -> str:
    return f"{score:.6g}" if score is not None and score == score else "".join(str(value).split())


def _verified(row: pd.Series) -> bool:
    if "verified" in row.index:
        return bool(row["verified"])
    return not str(row.get("flag", "") or "")


def leaderboard(results: pd.DataFrame, catalogue: Catalogue | None = None) -> pd.DataFrame:
    """One row per benchmark × metric × setting × model × distinct value, ranked within each
    benchmark (higher first unless the catalogue says lower is better). `disagreement` names the
    other values other reports print for the same model, benchmark, metric and setting."""
    if results is None or not len(results):
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    df = results.fillna({c: "" for c in ("metric", "setting", "page", "table", "benchmark_id", "category", "flag")})
    groups: dict[tuple[str, str, str, str], dict[str, list[tuple[pd.Series, Claim]]]] = {}
    for _i, row in df.iterrows():
        score = row["score"] if pd.notna(row["score"]) else None
        claim = Claim(str(row["report_id"]), str(row["page"]), str(row["table"]), bool(row["own"]), _verified(row))
        groups.setdefault(_key(row), {}).setdefault(_value_key(str(row["value"]), score), []).append((row, claim))
    out = []
    names = {b.id: b.name for b in catalogue.benchmarks} if catalogue is not None else {}
    for key, by_value in groups.items():
        for vk, items in by_value.items():
            first = items[0][0]
            claims = [c for _r, c in items]
            mine = {c.report_id for c in claims}
            others = [
                f"{its[0][0]['value']} ({'; '.join(_dedupe(c.where() for _r, c in its))})"
                for ok, its in by_value.items()
                if ok != vk and {c.report_id for _r, c in its} - mine
            ]
            out.append(
                {
                    "benchmark": names.get(str(first["benchmark_id"]), str(first["benchmark"])),
                    "benchmark_id": first["benchmark_id"],
                    "category": first["category"],
                    "metric": first["metric"],
                    "setting": first["setting"],
                    "model": first["model"],
                    "value": first["value"],
                    "score": first["score"] if pd.notna(first["score"]) else None,
                    "sources": "; ".join(_dedupe(c.where() for c in claims)),
                    "reports": len({c.report_id for c in claims}),
                    "own_claim": any(c.own for c in claims),
                    "verified": all(c.verified for c in claims),
                    "disagreement": ("other reports print " + " | ".join(others)) if others else "",
                    "_group": "\x1f".join(key[:3]),
                }
            )
    board = pd.DataFrame(out)
    lower = {b.id for b in catalogue.benchmarks if not b.higher_is_better} if catalogue is not None else set()
    board["_asc"] = board["benchmark_id"].isin(lower)
    board["_s"] = [
        (s if asc else -s) if s is not None and s == s else float("inf")
        for s, asc in zip(board["score"], board["_asc"], strict=True)
    ]
    board = board.sort_values(["benchmark", "_group", "_s", "model"], kind="stable")
    board["rank"] = board.groupby("_group", sort=False)["_s"].rank(method="min").astype(int)
    return board[LEADERBOARD_COLUMNS].reset_index(drop=True)


def disagreements(board: pd.DataFrame) -> pd.DataFrame:
    """Only the rows whose model, benchmark, metric and setting other reports print differently."""
    if not len(board):
        return board
    return board[board["disagreement"] != ""].reset_index(drop=True)


#: The catalogue category of a table's average row ("Avg.", "Overall"): a column, not a benchmark.
AGGREGATE = "aggregate"


def benchmarks_by_reach(board: pd.DataFrame) -> list[str]:
    """The leaderboard's benchmarks, the one most reports print first (then the one with most rows):
    where claims across reports can be compared at all. Aggregates and names the catalogue does not
    know come last, since two reports' averages or unnamed columns are never the same quantity."""
    if not len(board):
        return []
    reports = board["sources"].map(lambda s: {w.split(" ", 1)[0] for w in str(s).split("; ") if w})
    comparable = (board["benchmark_id"].astype(str) != "") & (board["category"].astype(str) != AGGREGATE)
    by = pd.DataFrame({"benchmark": board["benchmark"], "reports": reports, "ok": comparable})
    stats = by.groupby("benchmark", sort=False).agg(
        ok=("ok", "all"), reach=("reports", lambda r: len(set().union(*r))), rows=("reports", "size")
    )
    stats = stats.sort_values(["ok", "reach", "rows"], ascending=False, kind="stable")
    return list(stats.index)


UNKNOWN_COLUMNS = ["benchmark", "reports", "cells", "where"]


def unknown_benchmarks(results: pd.DataFrame) -> pd.DataFrame:
    """Benchmark names read from tables that the catalogue does not know, most widespread first:
    the list to grow `data/benchmarks.yaml` from (an alias for a known one, or a new entry)."""
    if results is None or not len(results):
        return pd.DataFrame(columns=UNKNOWN_COLUMNS)
    df = results[results["benchmark_id"].fillna("") == ""]
    rows = []
    for _k, g in df.groupby(df["benchmark"].map(lambda b: norm_name(str(b))), sort=False):
        where = _dedupe(f"{r} p{p} {t}".strip() for r, p, t in zip(g["report_id"], g["page"], g["table"], strict=True))
        rows.append({"benchmark": str(g["benchmark"].iloc[0]), "reports": g["report_id"].nunique(), "cells": len(g),
                     "where": "; ".join(where[:5]) + (" …" if len(where) > 5 else "")})  # fmt: skip
    out = pd.DataFrame(rows, columns=UNKNOWN_COLUMNS)
    return out.sort_values(["reports", "cells", "benchmark"], ascending=[False, False, True], kind="stable").reset_index(
        drop=True
    )


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
