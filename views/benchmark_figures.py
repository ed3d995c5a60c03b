"""Plotly figures of the Benchmarks page, built from `ingest.outputs.scores` frames (no Streamlit calls).

Each clickable bar carries `customdata` [report_id, table key] so a click opens that table.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from views.figures import cjk_note
from views.plain import plotly_text as _t

_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def coverage_heatmap(matrix: pd.DataFrame, names: dict[str, str]) -> go.Figure:
    """Reports × benchmark categories, the number of distinct benchmarks written in each cell."""
    if matrix.empty or matrix.shape[1] == 0:
        return go.Figure(layout={"title": "no benchmark results stored yet", "height": 200})
    y = [_t(names.get(r, r)) for r in matrix.index]
    z = matrix.to_numpy()
    fig = go.Figure(
        go.Heatmap(
            z=z, x=[_t(c) for c in matrix.columns], y=y, customdata=[[r] * matrix.shape[1] for r in matrix.index],
            text=z, texttemplate="%{text}", colorscale="Blues", showscale=False,
            hovertemplate="%{y}<br>%{x}: %{z} benchmark(s)<extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        title="Benchmarks per category (distinct benchmarks in each report's result tables)",
        height=max(260, 26 * len(y) + 160),
        margin=_MARGIN,
        yaxis={"autorange": "reversed"},
        xaxis={"side": "bottom", "tickangle": -30},
    )
    return fig


def score_bars(scores: pd.DataFrame, title: str) -> go.Figure:
    """One horizontal bar per own-model score; hover gives value, table, page and caption."""
    if scores.empty:
        return go.Figure(layout={"title": f"no own-model score for {_t(title)}", "height": 200})
    fig = go.Figure()
    for origin, sub in scores.groupby("origin", sort=True):
        hover = [
            f"{_t(r.report)} · {_t(r.model)}<br>value as printed: {_t(r.value)}"
            + (f"<br>setting: {_t(r.setting)}" if r.setting else "")
            + (f"<br>metric: {_t(r.metric)}" if r.metric else "")
            + f"<br>{_t(r.table) or 'no table'} · page {_t(r.page) or '—'}"
            + (f"<br>{_t(str(r.caption)[:120])}" if r.caption else "")
            + (f"<br>⚑ {_t(r.flag)}" if r.flag else "")
            + f"<br>origin: {_t(r.origin)}"
            for r in sub.itertuples(index=False)
        ]
        fig.add_bar(
            x=sub["score"], y=[_t(x) for x in sub["label"]], orientation="h", name=str(origin),
            customdata=[[r, k] for r, k in zip(sub["report_id"], sub["table_key"], strict=True)],
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        )  # fmt: skip
    fig.update_layout(
        title=f"{_t(title)}: each report's own-model scores (click a bar for its table)",
        height=max(260, 24 * len(scores) + 120),
        margin=_MARGIN,
        yaxis={"categoryorder": "array", "categoryarray": [_t(x) for x in reversed(scores["label"].tolist())]},
        xaxis_title="score as printed",
        legend_title="origin",
    )
    return fig


def claims_scatter(frame: pd.DataFrame, levels: list[str], level_label: str) -> go.Figure:
    """Disclosure level (ordered, from the lens) against own scores, one trace per benchmark."""
    fig = go.Figure()
    for bench, sub in frame.groupby("benchmark_id", sort=True) if len(frame) else []:
        fig.add_scatter(
            x=[_t(x) for x in sub["level"]], y=sub["score"], mode="markers", name=_t(bench), text=[_t(x) for x in sub["report"]],
            customdata=[[r, k] for r, k in zip(sub["report_id"], sub["table_key"], strict=True)],
            marker={"size": 11},
            hovertemplate="%{text}<br>" + _t(bench) + ": %{y}<br>" + _t(level_label) + ": %{x}<extra></extra>",
        )  # fmt: skip
    fig.update_layout(
        title="Claims vs disclosure" + ("" if len(frame) else ": no own-model score in these categories"),
        xaxis={"title": _t(level_label), "categoryorder": "array", "categoryarray": [_t(x) for x in levels], "type": "category"},
        yaxis_title="own-model score (best setting)",
        height=400,
        margin=_MARGIN,
    )
    fig.update_xaxes(range=[-0.5, len(levels) - 0.5])
    return fig


def density_scatter(frame: pd.DataFrame, term: str) -> go.Figure:
    """Benchmark coverage in the claims categories against the density of one lexicon term."""
    fig = go.Figure()
    for figures, sub in frame.groupby("figures", sort=True) if len(frame) else []:
        fig.add_scatter(
            x=sub["coverage"], y=sub["density"], mode="markers", name=f"{figures} density", text=[_t(x) for x in sub["report"]],
            customdata=[[r, u] for r, u in zip(sub["report_id"], sub["unit"], strict=True)], marker={"size": 11},
            hovertemplate="%{text}<br>%{x} benchmark(s)<br>“" + _t(term) + "”: %{y:.2f} per 1,000 %{customdata[1]}"
            "<extra></extra>",
        )  # fmt: skip
    fig.update_layout(
        title=f"Benchmark coverage vs density of “{_t(term)}”",
        xaxis_title="distinct benchmarks in the claims categories",
        yaxis_title="per 1,000 words (whole document)" + cjk_note(frame),
        height=400,
        margin=_MARGIN,
    )
    return fig


def bar_target(selection: object) -> tuple[str, str] | None:
    """(report_id, table key) of a clicked bar or claims point, from a plotly selection event."""
    try:
        points = selection["selection"]["points"]  # type: ignore[index]
    except (KeyError, TypeError, AttributeError):
        return None
    if not points:
        return None
    cd = points[0].get("customdata")
    if isinstance(cd, (list, tuple)) and len(cd) == 2 and all(isinstance(x, str) for x in cd):
        return str(cd[0]), str(cd[1])
    return None
