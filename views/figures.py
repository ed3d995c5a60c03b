"""Pure data shaping of the Keywords figures (no Streamlit calls): the keyword matrix, section hits,
point caps. The charts are specs built from these (views.keyword_charts) and drawn by a renderer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Literal

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ingest.analysis.keywords import density, density_unit

Scope = Literal["body", "body+appendix", "references", "all"]
Metric = Literal["density", "count"]
Prefer = Literal["measured", "reported"]

#: Which stored sections each scope of the Keywords page adds up.
SCOPES: dict[str, tuple[str, ...]] = {
    "body": ("body",),
    "body+appendix": ("body", "appendix"),
    "references": ("references",),
    "all": ("all",),
}
MATRIX_COLUMNS = ["report_id", "model", "term", "count", "words", "density", "figures", "unit"]


def isin(values: pd.Series, wanted: Iterable[object]) -> pd.Series:
    """`values.isin(wanted)`, computed by Arrow for string columns: pandas walks Arrow-backed strings
    as Python objects, slow for the row counts a 10,000-report store reaches."""

    wanted = list(wanted)
    if pd.api.types.is_string_dtype(values.dtype) and all(isinstance(w, str) for w in wanted):
        try:
            hit = pc.is_in(pa.array(values.array), value_set=pa.array(wanted, pa.string()))
            return pd.Series(hit.to_numpy(zero_copy_only=False).astype(bool), index=values.index)
        except (pa.ArrowException, TypeError, ValueError):
            pass  # an object column holding non-strings: pandas decides
    return values.isin(wanted)


def densities(count: pd.Series, words: pd.Series) -> list[float | None]:
    """`ingest.analysis.keywords.density` of each row (the project's one density), computed once per distinct
    (count, words) pair: a report's terms share its word count, so most rows repeat a pair."""
    memo: dict[tuple[object, object], float | None] = {}
    out = []
    for pair in zip(count.tolist(), words.tolist(), strict=True):
        if pair not in memo:
            memo[pair] = density(*pair)  # type: ignore[arg-type]
        out.append(memo[pair])
    return out


#: The keyword scope each `reported.scope` of a report file counts (data entered for "body" shows under
#: "body only", never under the whole document); body + appendix has no reported counterpart.
REPORTED_SCOPE: dict[str, str] = {"all": "whole-document", "body": "body", "references": "references"}


def keyword_matrix(
    reports: pd.DataFrame,
    counts: pd.DataFrame,
    reported: pd.DataFrame,
    terms: list[str],
    group: str,
    scope: Scope = "all",
    prefer: Prefer = "measured",
) -> pd.DataFrame:
    """Long table report × term with count, words and density for one section scope.

    Measured counts come from the `counts` table; the reported figures of the same scope (a report
    file's `reported.scope`, whole-document by default) fill in when a report has no measurement, or
    replace measurement when `prefer="reported"`. The `figures` column says which one each row is. A one-section scope takes
    the density stored with each count (ingest computed it with `ingest.analysis.keywords.density`); a scope
    that adds sections up, and the study's figures, compute it from the sums.
    """
    sections = SCOPES[scope]
    parts = []
    if not counts.empty:
        c = counts[(counts["group"] == group) & isin(counts["section"], sections) & isin(counts["term"], terms)]
        if len(c):
            if len(sections) == 1 and "density" in c.columns:  # one row per report and term: nothing to add up
                g = c[["report_id", "term", "count", "words", "density"]].drop_duplicates(["report_id", "term"])
            else:
                g = c.groupby(["report_id", "term"], as_index=False, sort=False)[["count", "words"]].sum()
            parts.append(g.assign(figures="measured"))
    rscope = REPORTED_SCOPE.get(scope)
    if rscope and not reported.empty:
        scopes = reported["scope"].fillna(REPORTED_SCOPE["all"]) if "scope" in reported.columns else REPORTED_SCOPE["all"]
        r = reported[(scopes == rscope) & isin(reported["term"], terms)]
        r = r[["report_id", "term", "count", "words"]].dropna(subset=["count"])
        if len(r):
            parts.append(r.assign(figures="reported"))
    if not parts:
        return pd.DataFrame(columns=MATRIX_COLUMNS)
    df = pd.concat(parts, ignore_index=True)
    if len(parts) > 1:
        df["rank"] = (df["figures"] != prefer).astype(int)
        df = df.sort_values("rank", kind="stable").drop_duplicates(["report_id", "term"]).drop(columns="rank")
    if not reports.empty:
        cols = ["report_id", "model", *(["word_rule"] if "word_rule" in reports.columns else [])]
        df = df.merge(reports[cols].drop_duplicates("report_id"), on="report_id", how="inner")
    else:
        df["model"] = None
    if "word_rule" not in df.columns:
        df["word_rule"] = None
    df["count"] = df["count"].astype(int)
    df["words"] = pd.to_numeric(df["words"], errors="coerce")
    if "density" not in df.columns:
        df["density"] = None
    todo = df["density"].isna() | (df["figures"] != "measured")
    if todo.any():
        found = densities(df.loc[todo, "count"], df.loc[todo, "words"])
        df["density"] = df["density"].astype(float)
        df.loc[todo, "density"] = [float("nan") if d is None else d for d in found]
    df["density"] = df["density"].astype(float)
    rules = df["word_rule"].where(df["figures"] == "measured")
    units = {r: density_unit(r) for r in rules.dropna().unique()}
    df["unit"] = rules.map(units).fillna(density_unit(None)).astype(str)
    df = df[MATRIX_COLUMNS].sort_values(["model", "term"], key=lambda s: s.astype(str).str.casefold(), kind="stable")
    return df.reset_index(drop=True)


#: Clearly different colours for the two kinds of figures, used by every chart.
FIGURE_COLOURS: dict[str, str] = {"measured": "#1f5fbf", "reported": "#d9730d"}
SECTION_COLOURS: dict[str, str] = {"body": "#1f5fbf", "appendix": "#7fa7e0", "references": "#b0b0b0"}


def cjk_note(frame: pd.DataFrame) -> str:
    """A label's note when some rows count characters (CJK documents) rather than words."""
    return " (characters for CJK documents)" if "unit" in frame and (frame["unit"] == "characters").any() else ""


def section_hits(
    counts: pd.DataFrame, report_ids: list[str], terms: list[str], group: str, scope: Scope = "all"
) -> tuple[list[str], dict[tuple[str, str], int]] | None:
    """The sections of the scope and the measured hits per (term, section), summed over the reports;
    None when nothing is measured."""
    sections = [s for s in SECTION_COLOURS if scope == "all" or s in SCOPES[scope]]
    c = counts
    if not c.empty:
        c = c[(c["group"] == group) & isin(c["term"], terms) & isin(c["section"], sections)]
        c = c[isin(c["report_id"], report_ids)]
    if c.empty or int(c["count"].sum()) == 0:
        return None
    return sections, {k: int(v) for k, v in c.groupby(["term", "section"])["count"].sum().items()}


#: The most points a scatter draws (plain or plotly; $FRL_CHART_POINTS overrides it). One mark per
#: report makes the browser slow on a large store; beyond the cap the first points by report
#: name are drawn and the page says how many, and how to narrow them, in a sentence (as the heatmap's rows).
#: 100, not 300: each point is a link with its hover text, so more points cost the browser more time to
#: draw the Keywords page (bench/app_speed.py times it), for a cloud no easier to read; the interactive
#: chart obeys the same cap.
SCATTER_POINTS = 100


def scatter_points() -> int:
    """The point cap in force: $FRL_CHART_POINTS when it is a positive number, else SCATTER_POINTS."""
    raw = os.environ.get("FRL_CHART_POINTS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else SCATTER_POINTS


def named(frame: pd.DataFrame, rq: str, column: str = "model") -> pd.DataFrame:
    """The rows whose name (`column`) contains `rq`, case-insensitively (all rows when `rq` is empty),
    sorted by that name case-insensitively (stable, so rows of one name keep their order)."""
    if frame.empty:
        return frame
    if rq:
        frame = frame[frame[column].astype(str).str.casefold().str.contains(rq.casefold(), regex=False)]
    return frame.sort_values(column, key=lambda s: s.astype(str).str.casefold(), kind="stable")


def first_points(frame: pd.DataFrame, rq: str, limit: int, column: str = "model") -> tuple[pd.DataFrame, int]:
    """A scatter's points: the first `limit` rows by name among those whose name contains `rq`, and how
    many rows matched (so the page can say "the first 100 of 10,005")."""
    m = named(frame, rq, column)
    return m.head(limit), len(m)


def points_note(shown: int, matched: int, narrow: str) -> str:
    """The sentence under a capped scatter ("" when every point is drawn): how many and how to narrow."""
    if matched <= shown:
        return ""
    return f"Showing the first {shown:,} of {matched:,} points (reports in name order); {narrow}."


def scatter_rows(matrix: pd.DataFrame, term: str) -> pd.DataFrame:
    """The rows of one term that have a word count: the points of the length scatter."""
    return matrix[(matrix["term"] == term) & matrix["words"].notna()] if not matrix.empty else matrix


def side_by_side(matrix_measured: pd.DataFrame, reported: pd.DataFrame, terms: list[str]) -> pd.DataFrame:
    """Measured vs study-reported counts (whole document) where both exist, with the difference."""
    cols = ["model", "term", "reported", "measured", "difference", "reported words", "measured words", "differs"]
    m = matrix_measured[matrix_measured["figures"] == "measured"] if not matrix_measured.empty else matrix_measured
    if m.empty or reported.empty:
        return pd.DataFrame(columns=cols)
    r = reported[reported["term"].isin(terms)][["report_id", "term", "count", "words"]]
    j = m.merge(r, on=["report_id", "term"], suffixes=("_m", "_r"))
    out = pd.DataFrame(
        {
            "model": j["model"],
            "term": j["term"],
            "reported": j["count_r"].astype(int),
            "measured": j["count_m"].astype(int),
            "reported words": j["words_r"],
            "measured words": j["words_m"],
        }
    )
    out["difference"] = out["measured"] - out["reported"]
    out["differs"] = out["difference"] != 0
    return out[cols].reset_index(drop=True)
