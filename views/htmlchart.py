"""Charts as plain HTML (tables and positioned boxes), drawn by the browser in milliseconds.

Why not plotly on first render: measured in Chromium (bench/app_speed.py), one plotly chart adds
more than a second to a page's first render (its 4 MB bundle is evaluated in every new tab), which
alone breaks the 2 s budget. These charts are HTML that `st.html` accepts (its sanitiser keeps
tables, divs, links, `title` and `style`, and drops SVG): every mark is a link built from ids, so a
click opens the page it names (the app reads ids from the URL), and its `title` is the hover text.
Every label and tip is escaped here, so report text shows as plain text. The charts' content comes
from `views.chart_data` specs (`render`); plotly draws the same specs behind the pages' "Interactive
charts" switch (views.chart_plotly).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from views.chart_data import BarSpec, ChartSpec, HeatCell, HeatSpec, Point, Segment

#: Blues, light to dark (the colour scale plotly's heatmaps used), for a share in [0, 1].
_BLUES = ((247, 251, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))
#: A heat cell's colour is one of STEPS + 1 classes (`h0` … `h10`: the share rounded to tenths), so a cell
#: carries a short class, not an inline style each: inline styles were much of a heat table's HTML, which
#: the browser parses and matches on every re-draw (bench/app_speed.py prints renderer CPU per pick).
STEPS = 10
#: Shares above this are dark enough for white text.
DARK = 0.55


def blues(share: float) -> str:
    """The colour of a share in [0, 1] on a light-to-dark blue scale."""
    s = min(max(share, 0.0), 1.0) * (len(_BLUES) - 1)
    i = min(int(s), len(_BLUES) - 2)
    f = s - i
    a, b = _BLUES[i], _BLUES[i + 1]
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b, strict=True))


def step(share: float) -> int:
    """The colour class (0 … STEPS) of a share in [0, 1]."""
    return round(min(max(share, 0.0), 1.0) * STEPS)


_STEP_CSS = "".join(
    f"table.frl-h td.h{k}{{background:{blues(k / STEPS)}{';color:#fff' if k / STEPS > DARK else ''}}}" for k in range(STEPS + 1)
)

_CSS = """<style>
.frl-c{font-size:13px;line-height:1.3;margin:0 0 6px 0}
.frl-c .t{font-weight:600;margin:0 0 4px 0}
.frl-c .nt{color:#444;margin:0 0 4px 0}
.frl-c .lg{display:flex;gap:14px;flex-wrap:wrap;margin:2px 0 4px 0;color:#444}
.frl-c .lg i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
table.frl-h{border-collapse:collapse;font-size:12px}
table.frl-h thead{position:sticky;top:0;z-index:1}
table.frl-h th{font-weight:600;padding:3px 6px;text-align:center;background:#fafafa}
table.frl-h th.r{text-align:left;background:#fff;max-width:340px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.frl-h td{padding:3px 6px;border:1px solid #fff;min-width:52px;text-align:center;color:#111}
table.frl-h td a{display:block;margin:-3px -6px;padding:3px 6px;color:inherit;text-decoration:none}
table.frl-h td a:hover{outline:2px solid #d9730d}
table.frl-h th a{color:inherit}
{steps}
.frl-wrap{max-height:80vh;overflow:auto}
.frl-b{display:grid;grid-template-columns:minmax(80px,max-content) 1fr max-content;gap:3px 8px;align-items:center}
.frl-b .l{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:360px}
.frl-b .k{display:flex;height:16px;background:#f3f3f3}
.frl-b .k a,.frl-b .k span{display:block;height:100%}
.frl-b .k a:hover{outline:2px solid #d9730d}
.frl-b .v{color:#444;font-variant-numeric:tabular-nums}
.frl-s{position:relative;height:340px;margin:4px 0 0 0}
.frl-s .p{position:absolute;left:58px;right:14px;top:10px;bottom:46px;border-left:1px solid #999;border-bottom:1px solid #999}
.frl-s .g{position:absolute;left:0;right:0;border-top:1px solid #eee}
.frl-s .yt{position:absolute;left:-56px;width:50px;text-align:right;transform:translateY(-50%);color:#555;font-size:11px}
.frl-s .xt{position:absolute;top:100%;transform:translateX(-50%);color:#555;font-size:11px;padding-top:3px;white-space:nowrap}
.frl-s .m{position:absolute;width:10px;height:10px;margin:-5px 0 0 -5px;border-radius:50%;opacity:.85}
.frl-s .m.d{border-radius:0;transform:rotate(45deg) scale(.85)}
.frl-s .m:hover{outline:2px solid #222;opacity:1;z-index:2}
.frl-s .n{position:absolute;transform:translate(-50%,-150%);font-size:10px;color:#333;white-space:nowrap;pointer-events:none}
.frl-s .xa{position:absolute;left:58px;right:14px;bottom:0;text-align:center;color:#444}
.frl-s .ya{position:absolute;left:0;top:10px;bottom:46px;writing-mode:vertical-rl;transform:rotate(180deg);
text-align:center;color:#444}
</style>"""
CSS = _CSS.replace("{steps}", _STEP_CSS)



def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _mark(href: str, tip: str, style: str, cls: str = "", body: str = "") -> str:
    """A chart mark: a link when it has a target, else a span; `tip` shows on hover. Links carry no
    `target`: `st.html`'s sanitiser removes every one but `_blank` (a link opens in the same tab), so
    it was bytes to send and an attribute per mark to remove on every redraw."""
    c = f' class="{cls}"' if cls else ""
    if href:
        return f'<a{c} href="{_e(href)}" title="{_e(tip)}" style="{style}">{body}</a>'
    return f'<span{c} title="{_e(tip)}" style="{style}">{body}</span>'


def _frame(title: str, body: str, legend: Sequence[tuple[str, str]] = (), key: str = "", note: str = "") -> str:
    lg = ""
    if legend:
        lg = '<div class="lg">' + "".join(f'<span><i style="background:{c}"></i>{_e(n)}</span>' for n, c in legend) + "</div>"
    k = f' data-chart="{_e(key)}"' if key else ""
    nt = f'<div class="nt">{_e(note)}</div>' if note else ""
    return f'{CSS}<div class="frl-c"{k}><div class="t">{_e(title)}</div>{nt}{lg}{body}</div>'


def heat_table(
    title: str, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[HeatCell | None]]], key: str = "",
    links: Sequence[str] = (),
) -> str:  # fmt: skip
    """Rows × columns with a coloured, clickable cell each (None = no figure: an empty cell; a cell
    without a link is drawn bare). `links`: a link per column, on its heading. With no row, only the
    title is drawn."""
    if not rows:
        return _frame(title, "", key=key)
    hrefs = list(links) or [""] * len(columns)
    head = '<tr><th class="r"></th>' + "".join(
        f'<th><a href="{_e(h)}">{_e(c)}</a></th>' if h else f"<th>{_e(c)}</th>"
        for c, h in zip(columns, hrefs, strict=True)
    ) + "</tr>"
    out = []
    for label, cells in rows:
        tds = []
        for cell in cells:
            if cell is None:
                tds.append("<td></td>")
                continue
            cls = f"h{step(cell.share)}"
            if cell.href:
                link = f'<a href="{_e(cell.href)}" title="{_e(cell.tip or cell.text)}">{_e(cell.text)}</a>'
                tds.append(f'<td class="{cls}">{link}</td>')
            else:  # nothing to open: the cell itself, its tip on it
                tip = f' title="{_e(cell.tip)}"' if cell.tip else ""
                tds.append(f'<td class="{cls}"{tip}>{_e(cell.text)}</td>')
        out.append(f'<tr><th class="r" title="{_e(label)}">{_e(label)}</th>{"".join(tds)}</tr>')
    table = f'<div class="frl-wrap"><table class="frl-h"><thead>{head}</thead><tbody>{"".join(out)}</tbody></table></div>'
    return _frame(title, table, key=key)


def bars(
    title: str,
    rows: Sequence[tuple[str, Sequence[Segment], str]],
    colours: dict[str, str],
    key: str = "",
    scale: float | None = None,
) -> str:
    """Horizontal (stacked) bars: one row per (label, segments, value text); lengths share one scale."""
    total = scale or max((sum(max(s.value, 0) for s in segs) for _, segs, _ in rows), default=0) or 1.0
    cells = []
    for label, segs, value in rows:
        marks = "".join(
            _mark(s.href, s.tip, f"width:{100 * max(s.value, 0) / total:.3f}%;background:{colours.get(s.series, '#888')}")
            for s in segs
            if s.value > 0
        )
        cells.append(
            f'<div class="l" title="{_e(label)}">{_e(label)}</div><div class="k">{marks}</div><div class="v">{_e(value)}</div>'
        )
    used = [(n, c) for n, c in colours.items() if any(s.series == n for _, segs, _ in rows for s in segs)]
    return _frame(title, f'<div class="frl-b">{"".join(cells)}</div>', used, key)


#: The most marks a scatter draws, whatever its caller passes (each is an element the browser lays out);
#: pages narrow their points well below this (views.figures).
MAX_POINTS = 1000


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1, 2, 5 × 10^k steps)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, v = [], start
    while v < hi + step * 0.5:
        ticks.append(round(v, 10))
        v += step
    return ticks


#: Share of the plot (percent) kept free at each end of an axis, so no mark sits on an axis line.
PAD = 4.0
#: A label's estimated size in percent of the plot: width per character, height (10 px on 280 px).
LABEL_CHAR_W, LABEL_H = 0.6, 5.5
#: Labels a scatter writes at most (more would be unreadable, and placing each checks every other).
MAX_LABELS = 120


def _spread(points: Sequence[Point], width: int) -> list[float]:
    """Horizontal offsets (percent) that fan out points sharing a category slot across 70 % of it,
    so the points of one level stand side by side instead of on one vertical line."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(str(p.x), []).append(i)
    out = [0.0] * len(points)
    span = 0.7 * 100 / width
    for idx in groups.values():
        if len(idx) > 1:
            for k, i in enumerate(idx):
                out[i] = span * (k / (len(idx) - 1) - 0.5)
    return out


def _label_top(left: float, top: float, label: str, placed: list[tuple[float, float, float]]) -> float | None:
    """Where a point's label goes (its top, percent): above the point, else below, else higher or
    lower; None when every place overlaps a label already drawn (the point's tip still names it)."""
    if len(placed) >= MAX_LABELS:
        return None
    half = LABEL_CHAR_W * len(label) / 2
    lo, hi = left - half, left + half
    for dy in (0.0, 2 * LABEL_H, -LABEL_H, 3 * LABEL_H):
        at = top + dy
        if not 0 <= at <= 100 + LABEL_H:
            continue
        if all(hi < a or lo > b or abs(at - t) >= LABEL_H for a, b, t in placed):
            placed.append((lo, hi, at))
            return at
    return None


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 or float(v).is_integer() else f"{v:,.2f}".rstrip("0").rstrip(".")


def scatter(
    title: str,
    points: Sequence[Point],
    colours: dict[str, str],
    x_title: str,
    y_title: str,
    categories: Sequence[str] = (),
    diamonds: Sequence[str] = (),
    labels: bool = True,
    key: str = "",
    note: str = "",
    limit: int = MAX_POINTS,
) -> str:
    """Points on linear axes (or x categories, evenly spaced); labels written beside points when `labels`.
    With no point, only the title is drawn (a sentence, not empty axes). `note` is a plain sentence under
    the title (callers say there how many points they drew and how to narrow them). At most `limit`
    points are drawn, whatever the caller passes: the first ones, and the note says so."""
    if len(points) > limit:
        note = (note + " " if note else "") + f"Only the first {limit:,} of {len(points):,} points are drawn."
        points = points[:limit]
    if not points:
        return _frame(title, "", key=key, note=note)
    ys = [p.y for p in points if math.isfinite(p.y)]
    yt = nice_ticks(min([0.0, *ys]), max([0.0, *ys]))
    y0, y1 = yt[0], yt[-1] if yt[-1] > yt[0] else yt[0] + 1

    def ypos(v: float) -> float:  # inset: a point at the axis minimum sits above the axis line, not on it
        return PAD + (100 - 2 * PAD) * (1 - (v - y0) / (y1 - y0))

    if categories:
        slot = {c: i for i, c in enumerate(categories)}
        width = len(categories)

        def xpos(v: float | str) -> float:
            return 100 * (slot.get(str(v), 0) + 0.5) / width

        xticks = [(xpos(c), str(c)) for c in categories]
        spread = _spread(points, width)
    else:
        xs = [float(p.x) for p in points if isinstance(p.x, int | float) and math.isfinite(p.x)]
        xt = nice_ticks(min([0.0, *xs]), max([0.0, *xs]))
        x0, x1 = xt[0], xt[-1] if xt[-1] > xt[0] else xt[0] + 1

        def xpos(v: float | str) -> float:  # inset as ypos: a point at zero sits right of the axis line
            return PAD + (100 - 2 * PAD) * (float(v) - x0) / (x1 - x0)

        xticks = [(xpos(v), _fmt(v)) for v in xt]
        spread = [0.0] * len(points)
    parts = [
        f'<div class="g" style="top:{ypos(v):.2f}%"></div><div class="yt" style="top:{ypos(v):.2f}%">{_e(_fmt(v))}</div>'
        for v in yt
    ]
    parts += [f'<div class="xt" style="left:{x:.2f}%">{_e(t)}</div>' for x, t in xticks]
    placed: list[tuple[float, float, float]] = []  # labels drawn so far: (left, right, top) in percent
    for p, dx in zip(points, spread, strict=True):
        if not math.isfinite(p.y):
            continue
        left, top = min(max(xpos(p.x) + dx, 0.0), 100.0), min(max(ypos(p.y), 0.0), 100.0)
        pos = f"left:{left:.2f}%;top:{top:.2f}%"
        cls = "m d" if p.series in diamonds else "m"
        parts.append(_mark(p.href, p.tip or p.label, f"{pos};background:{colours.get(p.series, '#888')}", cls))
        at = _label_top(left, top, p.label, placed) if labels and p.label else None
        if at is not None:
            parts.append(f'<span class="n" style="left:{left:.2f}%;top:{at:.2f}%">{_e(p.label)}</span>')
    plot = f'<div class="p">{"".join(parts)}</div><div class="xa">{_e(x_title)}</div><div class="ya">{_e(y_title)}</div>'
    used = [(n, c) for n, c in colours.items() if any(p.series == n for p in points)]
    return _frame(title, f'<div class="frl-s">{plot}</div>', used, key, note)


def bare(chart_html: str) -> str:
    """A chart without its style sheet, for a page that draws `CSS` once outside its fragments (as
    `views.htmltable.bare`): every `<style>` a rerun inserts makes the browser restyle the whole page."""
    return chart_html.removeprefix(CSS)


def render(spec: ChartSpec) -> str:
    """A chart spec as HTML for `st.html` (the default renderer)."""
    if isinstance(spec, HeatSpec):
        return heat_table(spec.title, spec.columns, spec.rows, key=spec.key, links=spec.links)
    if isinstance(spec, BarSpec):
        return bars(spec.title, spec.rows, spec.colours, key=spec.key)
    return scatter(spec.title, spec.points, spec.colours, spec.x_title, spec.y_title, categories=spec.categories,
                   diamonds=spec.diamonds, labels=spec.labels, key=spec.key, note=spec.note)  # fmt: skip


__all__ = [
    "CSS", "MAX_POINTS", "HeatCell", "Point", "Segment", "bare", "bars", "blues", "heat_table", "nice_ticks", "render", "scatter",
]  # fmt: skip
