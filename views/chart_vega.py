"""Vega-Lite renderer of chart specs (views.chart_data): Streamlit's native charts and the SVG/PNG export.

Builds a plain Vega-Lite JSON dict (for `st.vega_lite_chart`, or `vl_convert` offline) from a spec as
it is: no data shaping here. A mark's click target is its `href` channel (a click opens the page) and
its hover text the `tooltip`; Vega draws text as text, so report text needs no escaping.
"""

from __future__ import annotations

from views.chart_data import BarSpec, ChartSpec, HeatSpec, ScatterSpec, legend

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
#: The blues of views.htmlchart (light to dark), so a heat cell has the same colour in every renderer.
BLUES = ["#f7fbff", "#c6dbef", "#6baed6", "#2171b5", "#08306b"]


def _base(spec: ChartSpec, width: int | str, values: list[dict]) -> dict:
    title: dict = {"text": spec.title, "anchor": "start"}
    if isinstance(spec, ScatterSpec) and spec.note:
        title["subtitle"] = spec.note
    return {"$schema": SCHEMA, "title": title, "width": width, "data": {"values": values},
            "config": {"view": {"stroke": None}}}  # fmt: skip


def _colour(spec: BarSpec | ScatterSpec) -> dict:
    pairs = legend(spec)
    return {"field": "series", "type": "nominal", "title": None,
            "scale": {"domain": [n for n, _ in pairs], "range": [c for _, c in pairs]}}  # fmt: skip


def heat(spec: HeatSpec, width: int | str = "container") -> dict:
    """Rows × columns of coloured cells with their text written in them."""
    values = [
        {"row": label, "col": col, "text": c.text, "share": c.share, "tip": c.tip or c.text, "href": c.href}
        for label, cells in spec.rows
        for col, c in zip(spec.columns, cells, strict=True)
        if c is not None
    ]
    out = _base(spec, width, values)
    x = {"field": "col", "type": "nominal", "sort": list(spec.columns), "title": None, "axis": {"orient": "top", "labelAngle": 0}}
    y = {"field": "row", "type": "nominal", "sort": [label for label, _ in spec.rows], "title": None}
    out["height"] = {"step": 22}
    out["encoding"] = {"x": x, "y": y}
    out["layer"] = [
        {"mark": {"type": "rect", "cursor": "pointer"},
         "encoding": {"color": {"field": "share", "type": "quantitative", "legend": None,
                                "scale": {"domain": [0, 1], "range": BLUES}},
                      "href": {"field": "href"}, "tooltip": {"field": "tip"}}},
        {"mark": {"type": "text", "fontSize": 11},
         "encoding": {"text": {"field": "text"}, "href": {"field": "href"}, "tooltip": {"field": "tip"},
                      "color": {"condition": {"test": "datum.share > 0.55", "value": "white"}, "value": "black"}}},
    ]  # fmt: skip
    return out


def bars(spec: BarSpec, width: int | str = "container") -> dict:
    """Horizontal stacked bars, rows top to bottom in spec order, the value text at the bar's end."""
    order = [label for label, _, _ in spec.rows]
    values = [
        {"label": label, "series": s.series, "value": s.value, "tip": s.tip, "href": s.href, "k": i}
        for label, segs, _ in spec.rows
        for i, s in enumerate(segs)
        if s.value > 0
    ]
    out = _base(spec, width, values)
    out["height"] = {"step": 20}
    out["mark"] = {"type": "bar", "cursor": "pointer"}
    out["encoding"] = {
        "y": {"field": "label", "type": "nominal", "sort": order, "title": None},
        "x": {"field": "value", "type": "quantitative", "stack": "zero", "title": spec.value_title or None},
        "color": _colour(spec), "order": {"field": "k"}, "href": {"field": "href"}, "tooltip": {"field": "tip"},
    }  # fmt: skip
    return out


def scatter(spec: ScatterSpec, width: int | str = "container") -> dict:
    """Points on linear axes or x categories; diamonds for the named series; names beside the points."""
    values = [{"x": p.x, "y": p.y, "series": p.series, "label": p.label, "tip": p.tip or p.label, "href": p.href}
              for p in spec.points]  # fmt: skip
    out = _base(spec, width, values)
    out["height"] = 320
    x: dict = {"field": "x", "title": spec.x_title}
    if spec.categories:
        x |= {"type": "ordinal", "sort": list(spec.categories), "scale": {"domain": list(spec.categories)}}
    else:
        x["type"] = "quantitative"
    enc = {"x": x, "y": {"field": "y", "type": "quantitative", "title": spec.y_title}}
    shape = {"field": "series", "type": "nominal", "title": None,
             "scale": {"domain": [n for n, _ in legend(spec)],
                       "range": ["diamond" if n in spec.diamonds else "circle" for n, _ in legend(spec)]}}  # fmt: skip
    marks = {"color": _colour(spec), "shape": shape, "href": {"field": "href"}, "tooltip": {"field": "tip"}}
    points = {"mark": {"type": "point", "filled": True, "size": 70, "cursor": "pointer"}, "encoding": marks}
    out["encoding"] = enc
    out["layer"] = [points]
    if spec.labels:
        out["layer"].append({"mark": {"type": "text", "dy": -10, "fontSize": 10}, "encoding": {"text": {"field": "label"}}})
    return out


def _empty(spec: ChartSpec) -> bool:
    if isinstance(spec, HeatSpec):
        return not any(c is not None for _, cells in spec.rows for c in cells)
    if isinstance(spec, BarSpec):
        return not any(s.value > 0 for _, segs, _ in spec.rows for s in segs)
    return not spec.points


def vega_lite(spec: ChartSpec, width: int | str = "container") -> dict:
    """A chart spec as a Vega-Lite dict; `width` in pixels for a standalone figure, "container" on a page.
    A chart with no mark is its title over one line that says so (empty axes have no size to draw)."""
    if _empty(spec):
        out = _base(spec, width, [{"text": "nothing to draw for this selection"}])
        return out | {"height": 30, "mark": {"type": "text", "align": "left", "x": 0},
                      "encoding": {"text": {"field": "text"}}}  # fmt: skip
    if isinstance(spec, HeatSpec):
        return heat(spec, width)
    if isinstance(spec, BarSpec):
        return bars(spec, width)
    return scatter(spec, width)
