"""Every chart as a figure for a paper, drawn by plotly (views.chart_plotly): SVG and PNG (plotly's
static export, kaleido, which draws with the machine's Chrome or Chromium, offline) and a standalone
interactive HTML page (plotly.js embedded: the machine may have no internet, so no CDN link).

Function route: `write(spec, path)` (the format from the suffix) or `figure_bytes(spec, fmt)`; on the
pages, `controls(charts)` draws an "Export as a figure" popover with a download button per chart and format.
The figure is made only when its button is clicked (Streamlit's deferred download data), so the export
costs a page nothing on first render.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st

from views.chart_data import ChartSpec, HeatSpec, ScatterSpec
from views.chart_plotly import figure

#: A standalone figure's width in pixels (a paper's column at 2× for PNG).
WIDTH = 720
FORMATS: dict[str, str] = {"svg": "image/svg+xml", "png": "image/png", "html": "text/html"}


class FigureError(RuntimeError):
    """A static figure could not be drawn (no kaleido, no Chrome or Chromium); the message says what to install."""


@functools.cache
def static_problem() -> str:
    """Why SVG and PNG cannot be drawn on this machine ("" when they can): kaleido draws with a
    Chrome or Chromium it finds (its driver, choreographer, looks where this asks)."""
    try:  # here, not at the top: a page pays the import only when it offers an export (bench/import_costs.py)
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return "SVG and PNG need the kaleido package (pip install -r requirements.txt)"
    if not Chromium.find_browser(skip_local=False):
        return "SVG and PNG need Chrome or Chromium on this machine"
    return ""


#: The dashboard's hint on what a click opens, as chart titles word it ("(click a bar for its table)",
#: "…; click a cell for its lines)"): nothing in a printed figure can be clicked.
_CLICK_HINT = re.compile(r"\s*\(click [^()]*\)|;\s*click [^()]*(?=\))")


def paper_spec(spec: ChartSpec) -> ChartSpec:
    """The spec of a figure for a paper: titles and notes without click hints. (Its marks carry no
    link either: a static figure has no click targets, see `_image`.)"""
    plain = dataclasses.replace(spec, title=_CLICK_HINT.sub("", spec.title))
    if isinstance(plain, ScatterSpec) and plain.note:
        plain = dataclasses.replace(plain, note=_CLICK_HINT.sub("", plain.note))
    return plain


def _image(spec: ChartSpec, fmt: str, scale: float) -> bytes:
    try:
        return figure(paper_spec(spec)).to_image(format=fmt, width=WIDTH, scale=scale)
    except (ValueError, RuntimeError) as exc:  # plotly: kaleido missing; kaleido: no browser to draw with
        raise FigureError(
            f"cannot draw the {fmt.upper()} figure: plotly's static export needs the kaleido package and Chrome or "
            f"Chromium on this machine ({str(exc).strip().splitlines()[0]}); the HTML figure needs neither"
        ) from exc


def to_svg(spec: ChartSpec) -> str:
    """The chart as an SVG document."""
    return _image(spec, "svg", 1.0).decode("utf-8")


def to_png(spec: ChartSpec, scale: float = 2.0) -> bytes:
    """The chart as a PNG image, `scale` × the SVG's size."""
    return _image(spec, "png", scale)


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
    """One popover with, per chart, an SVG, a PNG and an HTML download button (HTML only, with the
    reason, where this machine cannot draw static figures).

    Lazy: the popover's contents are drawn only while it is open (`on_change="rerun"`: opening it reruns
    the page, or the fragment it is in). Closed, it is one element instead of a caption, columns and a
    button per format for each chart, which every rerun of its section re-sent and the browser re-drew
    (bench/app_speed.py's interactions: renderer CPU and messages per rerun)."""
    if not charts:
        return
    safe_keys = [re.sub(r"[^A-Za-z0-9_-]+", "_", key) for key, _, _ in charts]
    pop = st.popover(label, key="fig_" + "_".join(safe_keys), on_change="rerun")
    if not pop.open:
        return
    with pop:
        problem = static_problem()
        formats = {f: m for f, m in FORMATS.items() if f == "html" or not problem}
        st.caption("SVG and PNG for a paper; HTML is an interactive page that opens offline.")
        if problem:
            st.caption(problem + "; the HTML figure works here.")
        for (key, name, make), safe in zip(charts, safe_keys, strict=True):
            if len(charts) > 1:
                st.text(name)
            cols = st.columns(len(formats))
            for col, (fmt, mime) in zip(cols, formats.items(), strict=True):
                col.download_button(fmt.upper(), _lazy(key, make, fmt), file_name=f"{safe}.{fmt}", mime=mime,
                                    key=f"dl_fig_{safe}_{fmt}", on_click="ignore", help=name)  # fmt: skip
