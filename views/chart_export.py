"""Every chart as a figure for a paper: SVG and PNG (Vega-Lite, drawn offline by vl-convert) and a
standalone interactive HTML page (plotly, with plotly.js embedded: the machine may have no internet,
so no CDN link).

Function route: `write(spec, path)` (the format from the suffix) or `figure_bytes(spec, fmt)`; on the
pages, `controls(charts)` draws an "Export as a figure" popover with a download button per chart and format.
The figure is made only when its button is clicked (Streamlit's deferred download data), so the export
costs a page nothing on first render.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st
import vl_convert as vlc

from views.chart_data import ChartSpec, HeatSpec, ScatterSpec
from views.chart_plotly import figure
from views.chart_vega import vega_lite

#: A standalone figure's width in pixels (a paper's column at 2× for PNG).
WIDTH = 720
FORMATS: dict[str, str] = {"svg": "image/svg+xml", "png": "image/png", "html": "text/html"}


#: The dashboard's hint on what a click opens, as chart titles word it ("(click a bar for its table)",
#: "…; click a cell for its lines)"): nothing in a printed figure can be clicked.
_CLICK_HINT = re.compile(r"\s*\(click [^()]*\)|;\s*click [^()]*(?=\))")


def _unlinked(node: object) -> object:
    """The Vega-Lite dict without any `href` (encoding or data field): a mark's link is a relative
    dashboard address, which a standalone SVG would resolve against the renderer's own base URL."""
    if isinstance(node, dict):
        return {k: _unlinked(v) for k, v in node.items() if k != "href"}
    if isinstance(node, list):
        return [_unlinked(v) for v in node]
    return node


def paper_spec(spec: ChartSpec) -> dict:
    """The Vega-Lite dict of a figure for a paper: fixed width, no links, no click hints."""
    plain = dataclasses.replace(spec, title=_CLICK_HINT.sub("", spec.title))
    if isinstance(plain, ScatterSpec) and plain.note:
        plain = dataclasses.replace(plain, note=_CLICK_HINT.sub("", plain.note))
    return _unlinked(vega_lite(plain, WIDTH))  # type: ignore[return-value]


def to_svg(spec: ChartSpec) -> str:
    """The chart as an SVG document (Vega-Lite drawn by vl-convert, no browser)."""
    return vlc.vegalite_to_svg(paper_spec(spec))


def to_png(spec: ChartSpec, scale: float = 2.0) -> bytes:
    """The chart as a PNG image, `scale` × the SVG's size."""
    return vlc.vegalite_to_png(paper_spec(spec), scale=scale)


def to_html(spec: ChartSpec) -> str:
    """The chart as one self-contained HTML page (plotly, zoom and hover; plotly.js embedded)."""
    return figure(spec).to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False})


def figure_bytes(spec: ChartSpec, fmt: str) -> bytes:
    """The chart in one of FORMATS."""
    if fmt == "svg":
        return to_svg(spec).encode("utf-8")
    if fmt == "png":
        return to_png(spec)
    if fmt == "html":
        return to_html(spec).encode("utf-8")
    raise ValueError(f"unknown figure format {fmt!r}; one of {', '.join(FORMATS)}")


def write(spec: ChartSpec, path: Path) -> Path:
    """Write the chart to `path` in the format its suffix names (.svg, .png, .html), atomically."""
    data = figure_bytes(spec, path.suffix.lstrip(".").lower())
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def file_name(spec: ChartSpec, fmt: str) -> str:
    """A safe file name for a chart's figure: its key (ids, never report text) and the format."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", spec.key or "chart") + "." + fmt


#: A chart the page offers for export: its key, a name for the reader, and how to build its spec (called
#: only when a download is clicked, so an export costs the page nothing until then).
Exportable = tuple[str, str, Callable[[], ChartSpec | None]]


def _lazy(key: str, make: Callable[[], ChartSpec | None], fmt: str) -> Callable[[], bytes]:
    """The figure's bytes, made when asked; a chart with nothing to draw (None) gives a figure that says so."""
    return lambda: figure_bytes(make() or HeatSpec(key, "Nothing to draw for this selection", (), ()), fmt)


def controls(charts: Sequence[Exportable], label: str = "Export as a figure") -> None:
    """One popover with, per chart, an SVG, a PNG and an HTML download button."""
    if not charts:
        return
    with st.popover(label):
        st.caption("SVG and PNG for a paper (Vega-Lite); HTML is an interactive page (plotly) that opens offline.")
        for key, name, make in charts:
            if len(charts) > 1:
                st.text(name)
            cols = st.columns(len(FORMATS))
            for col, (fmt, mime) in zip(cols, FORMATS.items(), strict=True):
                safe = re.sub(r"[^A-Za-z0-9_-]+", "_", key)
                col.download_button(fmt.upper(), _lazy(key, make, fmt), file_name=f"{safe}.{fmt}", mime=mime,
                                    key=f"dl_fig_{safe}_{fmt}", on_click="ignore", help=name)  # fmt: skip
