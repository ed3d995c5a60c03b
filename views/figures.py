"""Pure data shaping and plotly figure builders for the dashboard (no Streamlit calls).

Tests assert on what these return, because AppTest cannot see inside a plotly chart.
Every clickable mark carries `customdata` so a click can open the Evidence page.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd
import plotly.graph_objects as go

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
MATRIX_COLUMNS = ["report_id", "model", "term", "count", "words", "density", "figures"]


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

    Measured counts come from the `counts` table; the study's reported figures (whole-document)
    fill in for the `all` scope when a report has no measurement, or replace measurement when
    `prefer="reported"`. The `figures` column says which one each row is.
    """
    models = dict(zip(reports["report_id"], reports["model"], strict=False)) if not reports.empty else {}
    parts = []
    if not counts.empty:
        c = counts[(counts["group"] == group) & counts["section"].isin(SCOPES[scope]) & counts["term"].isin(terms)]
        if len(c):
            g = c.groupby(["report_id", "term"], as_index=False)[["count", "words"]].sum()
            g["figures"] = "measured"
            parts.append(g)
    if scope == "all" and not reported.empty:
        r = reported[reported["term"].isin(terms)][["report_id", "term", "count", "words"]].dropna(subset=["count"])
        if len(r):
            r = r.assign(figures="reported")
            parts.append(r)
    if not parts:
        return pd.DataFrame(columns=MATRIX_COLUMNS)
    df = pd.concat(parts, ignore_index=True)
    df["rank"] = (df["figures"] != prefer).astype(int)
    df = df.sort_values("rank").drop_duplicates(["report_id", "term"]).drop(columns="rank")
    df = df[df["report_id"].isin(models)] if models else df
    df["count"] = df["count"].astype(int)
    df["words"] = pd.to_numeric(df["words"], errors="coerce")
    df["density"] = (df["count"] * 1000.0 / df["words"].where(df["words"] > 0)).round(3)
    df["model"] = df["report_id"].map(models)
    return df[MATRIX_COLUMNS].sort_values(["model", "term"]).reset_index(drop=True)


def heatmap(matrix: pd.DataFrame, terms: list[str], metric: Metric = "density") -> go.Figure:
    """Reports × terms heatmap; rows from the study's reported figures are labelled "(reported)"."""
    if matrix.empty:
        return go.Figure(layout={"title": "no keyword figures for this selection"})
    m = matrix.assign(label=matrix["model"].where(matrix["figures"] != "reported", matrix["model"] + " (reported)"))
    z = m.pivot_table(index="label", columns="term", values=metric, aggfunc="first").reindex(columns=terms)
    ids = m.pivot_table(index="label", columns="term", values="report_id", aggfunc="first").reindex(index=z.index, columns=terms)
    fig = go.Figure(
        go.Heatmap(
            z=z.to_numpy(),
            x=terms,
            y=list(z.index),
            customdata=ids.to_numpy(),
            colorscale="Blues",
            colorbar={"title": "per 1,000 words" if metric == "density" else "count"},
            hovertemplate="%{y}<br>%{x}: %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"{'Density per 1,000 words' if metric == 'density' else 'Count'} by report and term",
        height=max(300, 22 * len(z.index) + 120),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        yaxis={"autorange": "reversed"},
    )
    return fig


def section_bars(counts: pd.DataFrame, report_ids: list[str], terms: list[str], group: str) -> go.Figure:
    """Per term, hits in body / appendix / references stacked (summed over the shown reports)."""
    fig = go.Figure()
    c = counts
    if not c.empty:
        c = c[(c["group"] == group) & c["report_id"].isin(report_ids) & c["term"].isin(terms)]
    for section in ("body", "appendix", "references"):
        s = c[c["section"] == section].groupby("term")["count"].sum().reindex(terms, fill_value=0) if len(c) else None
        y = [0] * len(terms) if s is None else [int(v) for v in s.to_numpy()]
        fig.add_bar(name=section, x=terms, y=y, customdata=[[t, section] for t in terms],
                    hovertemplate="%{x} in " + section + ": %{y}<extra></extra>")  # fmt: skip
    empty = all(sum(t.y) == 0 for t in fig.data)
    fig.update_layout(
        barmode="stack",
        title="No measured hits for these reports (reported figures have no section split)"
        if empty
        else "Measured hits by section (click a bar for the lines)",
        height=380,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def length_scatter(matrix: pd.DataFrame, term: str) -> go.Figure:
    """Document length vs density of one term; one point per report."""
    m = matrix[matrix["term"] == term] if not matrix.empty else matrix
    fig = go.Figure()
    for figures, sub in m.groupby("figures") if len(m) else []:
        fig.add_scatter(
            x=sub["words"], y=sub["density"], mode="markers", name=str(figures), text=sub["model"],
            customdata=list(zip(sub["report_id"], [term] * len(sub), strict=True)),
            hovertemplate="%{text}<br>%{x:,} words<br>%{y:.2f} per 1,000<extra></extra>",
        )  # fmt: skip
    fig.update_layout(
        title=f"Document length vs density of “{term}”",
        xaxis_title="words",
        yaxis_title="per 1,000 words",
        height=380,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
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
    """Evidence-page query params from a plotly selection event (heatmap cell, bar or point)."""
    try:
        points = selection["selection"]["points"]  # type: ignore[index]
    except (KeyError, TypeError):
        return None
    if not points:
        return None
    p = points[0]
    cd = p.get("customdata")
    if isinstance(cd, (list, tuple)) and len(cd) == 2 and p.get("x") == cd[0]:  # bar: [term, section]
        return {"term": str(cd[0]), "section": str(cd[1])}
    if isinstance(cd, (list, tuple)) and len(cd) == 2:  # scatter: [report_id, term]
        return {"report": str(cd[0]), "term": str(cd[1])}
    if isinstance(cd, str) and p.get("x") is not None:  # heatmap cell: report_id, column term
        return {"report": cd, "term": str(p["x"])}
    return None
