"""Every chart as a figure for a paper: SVG and PNG (Vega-Lite, drawn offline by vl-convert) and a
standalone interactive HTML page (plotly, with plotly.js embedded: the machine may have no internet,
so no CDN link).

Function route: `write(spec, path)` (the format from the suffix) or `figure_bytes(spec, fmt)`; on the
pages, `controls(charts)` draws an "Export as a figure" popover with a download button per chart and format.
The figure is made only when its button is clicked (Streamlit's deferred download data), so the export
costs a page nothing on first render.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st
import vl_convert as vlc

from views.chart_data import ChartSpec, HeatSpec
from views.chart_plotly import figure
from views.chart_vega import vega_lite

#: A standalone figure's width in pixels (a paper's column at 2× for PNG).
WIDTH = 720
FORMATS: dict[str, str] = {"svg": "image/svg+xml", "png": "image/png", "html": "text/html"}


def to_svg(spec: ChartSpec) -> str:
    """The chart as an SVG document (Vega-Lite drawn by vl-convert, no browser)."""
    return vlc.vegalite_to_svg(vega_lite(spec, WIDTH))


def to_png(spec: ChartSpec, scale: float = 2.0) -> bytes:
    """The chart as a PNG image, `scale` × the SVG's size."""
    return vlc.vegalite_to_png(vega_lite(spec, WIDTH), scale=scale)


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
