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

import hashlib
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


#: The catalogue category of a table's average column ("Avg.", "Overall"): a column, not a benchmark.
AGGREGATE = "aggregate"

#: How many of the other values a disagreement names; the rest are counted. Listing every other value
#: on every row would make the view quadratic in the number of claims (2,000 reports printing
#: different values would write 2,000 × 2,000 names).
OTHERS_SHOWN = 5

#: How many other reports a row looks at for those names (the count of all of them is exact).
OTHERS_LOOKED = 50

#: How many benchmark names an aggregate's scope spells out before it counts the rest.
SCOPE_NAMES = 6


def _verified(row: dict[str, object]) -> bool:
    if "verified" in row:
        return bool(row["verified"])
    return not str(row.get("flag", "") or "")


def _value_key(value: str, score: float | None) -> str:
    return f"{score:.6g}" if score is not None and score == score else "".join(str(value).split())


def _aggregate_scopes(df: pd.DataFrame, names: dict[str, str]) -> dict[tuple[str, str], tuple[str, str]]:
    """(report, table) → (scope key, scope label) of the table's aggregate columns: the set of
    benchmarks the table averages over. Two reports' "Average" columns are one quantity only when
    they average the same benchmarks; otherwise each is its own benchmark on the leaderboard."""
    members: dict[tuple[str, str], dict[str, str]] = {}
    for rid, page, table, bid, bench, cat in zip(
        df["report_id"], df["page"], df["table"], df["benchmark_id"], df["benchmark"], df["category"], strict=True
    ):
        where = (str(rid), str(table) or f"p{page}")
        seen = members.setdefault(where, {})
        if str(cat) != AGGREGATE:
            key = str(bid) or "?" + norm_name(str(bench))
            seen.setdefault(key, names.get(str(bid), str(bench)))
    scopes = {}
    for where, seen in members.items():
        keys = sorted(seen)
        if not keys:  # an average of nothing the table names: never the same as another report's
            scopes[where] = ("\x1e".join(where), f"{where[0]} {where[1]}")
            continue
        labels = [seen[k] for k in keys]
        label = ", ".join(labels[:SCOPE_NAMES])
        if len(labels) > SCOPE_NAMES:
            digest = hashlib.sha1("\x1f".join(keys).encode("utf-8")).hexdigest()[:6]
            label += f" +{len(labels) - SCOPE_NAMES} more [{digest}]"
        scopes[where] = ("\x1f".join(keys), label)
    return scopes


@dataclass
class _Value:
    """One distinct value of a claim group, with every claim that prints it."""

    key: str
    row: dict[str, object]
    claims: list[Claim]

    @property
    def reports(self) -> set[str]:
        return {c.report_id for c in self.claims}


def _others(values: list[_Value], reports_of: dict[str, set[str]]) -> list[str]:
    """For each value, whether other reports print another value (exactly: some report in the group
    does not print it), and up to OTHERS_SHOWN of those values by name, looking at no more than
    OTHERS_LOOKED reports beyond its own: O(claims + values × OTHERS_LOOKED) per group."""
    by_report: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        for r in dict.fromkeys(c.report_id for c in v.claims):
            by_report.setdefault(r, []).append(i)
    out = []
    for v in values:
        mine = reports_of[v.key]
        rest = len(by_report) - len(mine)
        if rest <= 0:
            out.append("")
            continue
        shown: dict[int, None] = {}
        looked = 0
        for r, idx in by_report.items():
            if r in mine:
                continue
            looked += 1
            for i in idx:
                shown.setdefault(i, None)
            if len(shown) >= OTHERS_SHOWN or looked >= OTHERS_LOOKED:
                break
        named = [
            f"{values[i].row['value']} ({'; '.join(_dedupe(c.where() for c in values[i].claims))})"
            for i in list(shown)[:OTHERS_SHOWN]
        ]
        more = f" (values from {rest:,} other reports in all)" if rest > looked else ""
        out.append("other reports print " + " | ".join(named) + more)
    return out


def leaderboard(results: pd.DataFrame, catalogue: Catalogue | None = None) -> pd.DataFrame:
    """One row per benchmark × metric × setting × model × distinct value, ranked within each
    benchmark (higher first unless the catalogue says lower is better). `disagreement` names the
    other values other reports print for the same model, benchmark, metric and setting. A table's
    aggregate column is scoped to the benchmarks that table names."""
    if results is None or not len(results):
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    df = results.fillna({c: "" for c in ("metric", "setting", "page", "table", "benchmark_id", "category", "flag")})
    names = {b.id: b.name for b in catalogue.benchmarks} if catalogue is not None else {}
    scopes = _aggregate_scopes(df, names)
    groups: dict[tuple[str, str, str, str], dict[str, _Value]] = {}
    for row in df.to_dict("records"):
        score = row["score"] if pd.notna(row["score"]) else None
        claim = Claim(str(row["report_id"]), str(row["page"]), str(row["table"]), bool(row["own"]), _verified(row))
        bench = str(row["benchmark_id"]) or "?" + norm_name(str(row["benchmark"]))
        row["_name"] = names.get(str(row["benchmark_id"]), str(row["benchmark"]))
        if str(row["category"]) == AGGREGATE:
            scope, label = scopes[(str(row["report_id"]), str(row["table"]) or f"p{row['page']}")]
            bench, row["_name"] = f"{bench}\x1e{scope}", f"{row['_name']} over {label}"
        key = (bench, norm_name(str(row["metric"] or "")), norm_name(str(row["setting"] or "")), norm_name(str(row["model"])))
        vk = _value_key(str(row["value"]), score)
        groups.setdefault(key, {}).setdefault(vk, _Value(vk, row, [])).claims.append(claim)
    out = []
    for key, by_value in groups.items():
        values = list(by_value.values())
        reports_of = {v.key: v.reports for v in values}
        for v, others in zip(values, _others(values, reports_of), strict=True):
            first, claims = v.row, v.claims
            out.append(
                {
                    "benchmark": first["_name"],
                    "benchmark_id": first["benchmark_id"],
                    "category": first["category"],
                    "metric": first["metric"],
                    "setting": first["setting"],
                    "model": first["model"],
                    "value": first["value"],
                    "score": first["score"] if pd.notna(first["score"]) else None,
                    "sources": "; ".join(_dedupe(c.where() for c in claims)),
                    "reports": len(reports_of[v.key]),
                    "own_claim": any(c.own for c in claims),
                    "verified": all(c.verified for c in claims),
                    "disagreement": others,
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
