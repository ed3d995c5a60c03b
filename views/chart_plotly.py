"""Plotly renderer of chart specs (views.chart_data): zoom, pan and the HTML figure export.

Draws a spec as it is: no data shaping here. Plotly reads a subset of HTML in labels and hovers
(<a>, <span style>), so every text is escaped (views.plain.plotly_text). A mark's click target rides
in its `customdata` ([href]); `clicked` turns a selection event back into the page and parameters.
"""

from __future__ import annotations

import plotly.graph_objects as go

from views.chart_data import BarSpec, ChartSpec, HeatSpec, ScatterSpec, target
from views.plain import plotly_text as _t

_MARGIN = {"l": 10, "r": 10, "t": 60, "b": 10}


def _title(spec: ChartSpec, note: str = "") -> dict:
    text = _t(spec.title) + (f"<br><sup>{_t(note)}</sup>" if note else "")
    return {"text": text}


def heat(spec: HeatSpec) -> go.Figure:
    """Rows × columns, colour = each cell's share; an invisible marker over each cell carries its
    hover text and click target (plotly heatmaps send no selection events)."""
    if not spec.rows:
        return go.Figure(layout={"title": _title(spec), "height": 200})
    labels = [_t(label) for label, _ in spec.rows]
    cols = [_t(c) for c in spec.columns]
    z = [[None if c is None else c.share for c in cells] for _, cells in spec.rows]
    text = [["" if c is None else _t(c.text) for c in cells] for _, cells in spec.rows]
    blues = {"colorscale": "Blues", "zmin": 0, "zmax": 1, "showscale": False, "hoverinfo": "skip"}
    fig = go.Figure(go.Heatmap(z=z, x=cols, y=labels, text=text, texttemplate="%{text}", **blues))
    xs, ys, cds, tips = [], [], [], []
    for label, (_, cells) in zip(labels, spec.rows, strict=True):
        for col, cell in zip(cols, cells, strict=True):
            if cell is not None:
                xs.append(col)
                ys.append(label)
                cds.append([cell.href])
                tips.append(_t(cell.tip or cell.text))
    fig.add_scatter(
        x=xs, y=ys, customdata=cds, text=tips, mode="markers", showlegend=False, name="cells",
        hovertemplate="%{text}<extra></extra>", marker={"symbol": "square", "size": 18, "color": "rgba(0,0,0,0)"},
        selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 1}},
    )  # fmt: skip
    fig.update_layout(title=_title(spec), height=max(300, 24 * len(labels) + 130), margin=_MARGIN,
                      yaxis={"autorange": "reversed"}, xaxis={"side": "top"}, clickmode="event+select")  # fmt: skip
    return fig


def bars(spec: BarSpec) -> go.Figure:
    """Horizontal stacked bars, a trace per series (the legend), rows top to bottom in spec order."""
    fig = go.Figure()
    labels = [_t(label) for label, _, _ in spec.rows]
    for series, colour in spec.colours.items():
        xs, ys, cds, tips = [], [], [], []
        for label, (_, segs, _) in zip(labels, spec.rows, strict=True):
            for s in segs:
                if s.series == series:
                    xs.append(s.value)
                    ys.append(label)
                    cds.append([s.href])
                    tips.append(_t(s.tip))
        if xs:
            fig.add_bar(x=xs, y=ys, orientation="h", name=_t(series), marker_color=colour, customdata=cds,
                        hovertext=tips, hovertemplate="%{hovertext}<extra></extra>")  # fmt: skip
    fig.update_layout(
        barmode="stack", title=_title(spec), height=max(260, 24 * len(labels) + 120), margin=_MARGIN,
        yaxis={"categoryorder": "array", "categoryarray": list(reversed(labels))}, xaxis_title=_t(spec.value_title),
        legend={"orientation": "h", "y": -0.15}, clickmode="event+select",
    )  # fmt: skip
    return fig


def scatter(spec: ScatterSpec) -> go.Figure:
    """A trace per series; names beside the points when the spec says so, else on hover."""
    fig = go.Figure()
    mode = "markers+text" if spec.labels else "markers"
    for series, colour in spec.colours.items():
        pts = [p for p in spec.points if p.series == series]
        if not pts:
            continue
        fig.add_scatter(
            x=[_t(p.x) if spec.categories else p.x for p in pts], y=[p.y for p in pts], mode=mode, name=_t(series),
            text=[_t(p.label) for p in pts], textposition="top center", customdata=[[p.href] for p in pts],
            hovertext=[_t(p.tip or p.label) for p in pts], hovertemplate="%{hovertext}<extra></extra>",
            marker={"size": 11, "color": colour, "symbol": "diamond" if series in spec.diamonds else "circle"},
        )  # fmt: skip
    xaxis: dict = {"title": _t(spec.x_title)}
    if spec.categories:
        cats = [_t(c) for c in spec.categories]
        xaxis |= {"type": "category", "categoryorder": "array", "categoryarray": cats, "range": [-0.5, len(cats) - 0.5]}
    fig.update_layout(title=_title(spec, spec.note), xaxis=xaxis, yaxis_title=_t(spec.y_title), height=420,
                      margin=_MARGIN, clickmode="event+select")  # fmt: skip
    return fig


def figure(spec: ChartSpec) -> go.Figure:
    """A chart spec as a plotly figure."""
    if isinstance(spec, HeatSpec):
        return heat(spec)
    if isinstance(spec, BarSpec):
        return bars(spec)
    return scatter(spec)


def clicked(selection: object) -> tuple[str, dict[str, str]] | None:
    """The page and parameters a clicked mark opens, from a plotly selection event (None: no mark)."""
    try:
        points = selection["selection"]["points"]  # type: ignore[index]
    except (KeyError, TypeError, AttributeError):
        return None
    for p in points or []:
        cd = p.get("customdata") if isinstance(p, dict) else None
        if isinstance(cd, list | tuple) and cd and isinstance(cd[0], str):
            return target(cd[0])
    return None
