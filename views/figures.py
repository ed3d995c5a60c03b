"""Pure data shaping and plotly figure builders for the dashboard (no Streamlit calls).

Tests assert on what these return, because AppTest cannot see inside a plotly chart.
Every clickable mark carries `customdata` so a click can open the Evidence page.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Literal

import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import pyarrow.compute as pc

from ingest.analysis.keywords import density, density_unit
from views.plain import plotly_text as _t

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


#: Clearly different colours (and symbols) for the two kinds of figures, used by every chart.
FIGURE_COLOURS: dict[str, str] = {"measured": "#1f5fbf", "reported": "#d9730d"}
FIGURE_SYMBOLS: dict[str, str] = {"measured": "circle", "reported": "diamond"}
SECTION_COLOURS: dict[str, str] = {"body": "#1f5fbf", "appendix": "#7fa7e0", "references": "#b0b0b0"}


def cjk_note(frame: pd.DataFrame) -> str:
    """A label's note when some rows count characters (CJK documents) rather than words."""
    return " (characters for CJK documents)" if "unit" in frame and (frame["unit"] == "characters").any() else ""


def target(report: str = "", term: str = "", section: str = "") -> list[str]:
    """The `customdata` of a clickable mark: [report_id, term, section] ("" = any)."""
    return [report, term, section]


def heatmap(matrix: pd.DataFrame, terms: list[str], metric: Metric = "density") -> go.Figure:
    """Reports × terms heatmap with the value written in each cell.

    Colour is normalised per column (each term's largest value is full colour), so a rare term
    such as "credit assignment" stays as visible as "tool"; the numbers in the cells are the
    real values. Rows from the study's reported figures are labelled "(reported)". Plotly
    heatmaps send no selection events, so an invisible marker over each cell carries the click
    target (report, term).
    """
    if matrix.empty:
        return go.Figure(layout={"title": "no keyword figures for this selection"})
    # Plotly reads a subset of HTML in labels (<a>, <span>): report text is escaped, like the Benchmarks page's.
    model = matrix["model"].astype(str).map(_t)
    m = matrix.assign(label=model.where(matrix["figures"] != "reported", model + " (reported)"))
    z = m.pivot_table(index="label", columns="term", values=metric, aggfunc="first").reindex(columns=terms)
    z = z.loc[sorted(z.index, key=str.casefold)]
    ids = m.pivot_table(index="label", columns="term", values="report_id", aggfunc="first").reindex(index=z.index, columns=terms)
    col_max = z.max(axis=0).replace(0, float("nan"))
    norm = (z / col_max).fillna(0.0).where(z.notna())
    fmt = "{:.2f}" if metric == "density" else "{:.0f}"
    text = z.map(lambda v: "" if pd.isna(v) else fmt.format(v))
    units = m.pivot_table(index="label", columns="term", values="unit", aggfunc="first").reindex(index=z.index, columns=terms)
    fig = go.Figure(
        go.Heatmap(
            z=norm.to_numpy(),
            x=terms,
            y=list(z.index),
            text=text.to_numpy(),
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=1,
            colorbar={"title": "share of the<br>term's maximum", "tickformat": ".0%"},
            hoverinfo="skip",  # the overlay below carries hover and click
        )
    )
    xs, ys, cds, tips = [], [], [], []
    for label in z.index:
        for t in terms:
            rid = ids.at[label, t]
            if isinstance(rid, str):
                xs.append(t)
                ys.append(label)
                cds.append(target(rid, t))
                unit = f"per 1,000 {units.at[label, t]}" if metric == "density" else "count"
                tips.append(f"{label}<br>{t}: {text.at[label, t]} {unit}")
    fig.add_scatter(
        x=xs, y=ys, customdata=cds, text=tips, mode="markers", showlegend=False, name="cells",
        hovertemplate="%{text}<extra></extra>", marker={"symbol": "square", "size": 18, "color": "rgba(0,0,0,0)"},
        selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 1}},
    )  # fmt: skip
    fig.update_layout(
        title=f"{'Density per 1,000 words' + cjk_note(m) if metric == 'density' else 'Count'} by report and term "
        "(colour: share of each term's maximum; click a cell for its lines)",
        height=max(300, 24 * len(z.index) + 130),
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        yaxis={"autorange": "reversed"},
        clickmode="event+select",
    )
    return fig


def section_hits(
    counts: pd.DataFrame, report_ids: list[str], terms: list[str], group: str, scope: Scope = "all"
) -> tuple[list[str], dict[tuple[str, str], int]] | None:
    """The sections of the scope and the measured hits per (term, section), summed over the reports;
    None when nothing is measured. Shared by the plotly and the plain section bars."""
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


def section_bars(
    counts: pd.DataFrame, report_ids: list[str], terms: list[str], group: str, scope: Scope = "all"
) -> go.Figure | None:
    """Per term, hits in the sections of the chosen scope stacked (summed over the shown reports).

    None when nothing is measured: the page says so in a sentence instead of drawing empty axes.
    """
    hits = section_hits(counts, report_ids, terms, group, scope)
    if hits is None:
        return None
    sections, sums = hits
    fig = go.Figure()
    for section in sections:
        fig.add_bar(
            name=section, x=terms, y=[sums.get((t, section), 0) for t in terms],
            customdata=[target("", t, section) for t in terms],
            marker_color=SECTION_COLOURS[section], hovertemplate="%{x} in " + section + ": %{y}<extra></extra>",
        )  # fmt: skip
    fig.update_layout(
        barmode="stack",
        title="Measured hits by section (click a bar for the lines)",
        height=380,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": -0.15},
    )
    return fig


#: Up to this many points the scatter writes each report's name beside its point; beyond, names
#: overlap into an unreadable block and cost the browser one SVG text each, so they show on hover only.
SCATTER_LABELS = 60


def length_scatter(matrix: pd.DataFrame, term: str) -> go.Figure | None:
    """Document length vs density of one term; one labelled point per report, measured and reported apart
    (names on hover only above SCATTER_LABELS points)."""
    m = scatter_rows(matrix, term)
    if m.empty:
        return None
    mode = "markers+text" if len(m) <= SCATTER_LABELS else "markers"
    fig = go.Figure()
    for figures in ("measured", "reported"):
        sub = m[m["figures"] == figures]
        if sub.empty:
            continue
        fig.add_scatter(
            x=sub["words"], y=sub["density"], mode=mode, name=figures, text=sub["model"].astype(str).map(_t),
            textposition="top center", textfont={"size": 10},
            marker={"color": FIGURE_COLOURS[figures], "symbol": FIGURE_SYMBOLS[figures], "size": 10},
            customdata=[[*target(r, term), u] for r, u in zip(sub["report_id"], sub["unit"], strict=True)],
            hovertemplate="%{text}<br>%{x:,} %{customdata[3]}<br>%{y:.2f} per 1,000 %{customdata[3]}"
            "<extra>" + figures + "</extra>",
        )  # fmt: skip
    fig.update_layout(
        title=f"Document length vs density of “{term}” (click a point for its lines)",
        xaxis_title="words" + cjk_note(m),
        yaxis_title="per 1,000 words" + cjk_note(m),
        height=380,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


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


def click_target(selection: object) -> dict[str, str] | None:
    """Evidence-page query params (ids) from a plotly selection event: the clicked mark's `customdata`."""
    try:
        points = selection["selection"]["points"]  # type: ignore[index]
    except (KeyError, TypeError):
        return None
    for p in points or []:
        cd = p.get("customdata")
        if isinstance(cd, (list, tuple)) and len(cd) >= 3 and all(isinstance(v, str) for v in cd[:3]):
            out = dict(zip(("report", "term", "section"), cd[:3], strict=True))  # a 4th item is the hover's unit
            return {k: v for k, v in out.items() if v}
    return None
