"""Chart specs: what every dashboard chart shows, as typed records, drawn by any renderer.

The pages shape their data once into one of three specs (a heat table, horizontal bars, a scatter):
labels, values, colours, axis titles, hover texts and click targets. The two renderers only draw a
spec: `views.htmlchart` (plain HTML, the default: see docs/charts.md for the measured comparison)
and `views.chart_plotly` (plotly: the "Interactive charts" switch and every figure export). Neither
reads a data frame, so a chart's content cannot differ between renderers.

A click target (`href`) is a relative dashboard URL built from ids ("evidence?report=r01&term=tool"):
the HTML renderer makes it a link, plotly carries it as `customdata`. Text is stored
raw; each renderer escapes it for its own medium.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One cell of a heat table: its text, colour share in [0, 1], hover tip and link (may be empty)."""

    text: str
    share: float
    tip: str = ""
    href: str = ""


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of a horizontal bar: its value, series (colour), hover tip and link."""

    value: float
    series: str
    tip: str = ""
    href: str = ""


@dataclass(frozen=True, slots=True)
class Point:
    """A scatter point: position (x numeric, or a category name), series, label, hover tip, link."""

    x: float | str
    y: float
    series: str
    label: str = ""
    tip: str = ""
    href: str = ""


#: A heat table's row: its label and one cell per column (None = no figure: an empty cell).
HeatRow = tuple[str, tuple[HeatCell | None, ...]]
#: A bar chart's row: its label, its segments (stacked) and the value written beside the bar.
BarRow = tuple[str, tuple[Segment, ...], str]


@dataclass(frozen=True, slots=True)
class HeatSpec:
    """Rows × columns with a coloured, clickable cell each (blue scale on `share`); `links`, when given,
    a link per column (its heading opens it)."""

    key: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[HeatRow, ...]
    links: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BarSpec:
    """Horizontal (stacked) bars on one scale; `colours` maps a series to its colour, in legend order."""

    key: str
    title: str
    rows: tuple[BarRow, ...]
    colours: dict[str, str] = field(default_factory=dict)
    value_title: str = ""


@dataclass(frozen=True, slots=True)
class ScatterSpec:
    """Points on linear axes, or on x categories (`categories`, evenly spaced, in that order).

    `diamonds` names the series drawn as diamonds (the study's reported figures); `labels` says
    whether names are written beside the points (else on hover only); `note` is a sentence under
    the title (how many points are drawn and how to narrow them)."""

    key: str
    title: str
    points: tuple[Point, ...]
    colours: dict[str, str]
    x_title: str
    y_title: str
    categories: tuple[str, ...] = ()
    diamonds: tuple[str, ...] = ()
    labels: bool = True
    note: str = ""


ChartSpec = HeatSpec | BarSpec | ScatterSpec

#: The ways to draw a spec: plain HTML (views.htmlchart), plotly (views.chart_plotly).
RENDERERS = ("html", "plotly")
#: What the pages draw by default: the fastest first render in the browser (bench/chart_renderers.py
#: measures both in one run; docs/charts.md has its output). Plotly stays behind the pages'
#: "Interactive charts" switch and for the HTML export.
DEFAULT_RENDERER = "html"


def legend(spec: BarSpec | ScatterSpec) -> list[tuple[str, str]]:
    """The (series, colour) pairs a chart's marks use, in the order of its colours."""
    used = {s.series for _, segs, _ in spec.rows for s in segs} if isinstance(spec, BarSpec) else {p.series for p in spec.points}
    return [(n, c) for n, c in spec.colours.items() if n in used]


def target(href: str) -> tuple[str, dict[str, str]] | None:
    """The page and query parameters a click target names (None for an empty or foreign one):
    what a renderer without links (plotly) needs to open the same page."""
    if not href:
        return None
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path or "/" in parts.path:
        return None
    return parts.path, dict(parse_qsl(parts.query))


__all__ = [
    "DEFAULT_RENDERER", "RENDERERS", "BarRow", "BarSpec", "ChartSpec", "HeatCell", "HeatRow", "HeatSpec", "Point",
    "ScatterSpec", "Segment",
]  # fmt: skip
