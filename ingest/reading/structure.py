"""Table structure from word boxes: rows, columns and spanning cells, knowing nothing of benchmarks.

This is the first of two stages (the second, result semantics, decides which axis holds models and
which holds benchmarks). Given the lines of one table region it finds

- columns: x-clusters of the line segments (runs of words closer than a cell gap). A segment that
  stands over two or more separate segments of another line (a spanning header, a group title) does
  not join the clusters; it spans the columns it covers;
- rows: one per baseline, except that a line continuing the cells of the line above (a wrapped
  label or a two-line header: no value of its own, tightly set or starting in lower case) is joined
  to that row;
- cells: the text of the segments in each (row, column), with their row and column spans.

The output is a `Table` of `Cell`s with 0-based row and column indices; regions come from
`ingest.reading.structure_regions` (found on a page) or from the caller (a known bounding box).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
from dataclasses import dataclass, field, replace

from ingest.reading.pdf_words import group_lines, split_segments
from ingest.reading.structure_rows import Piece, row_groups
from ingest.reading.table_text import Line, Seg, Word, is_value

Box = tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points, origin top-left


@dataclass(frozen=True)
class Cell:
    """One table cell: 0-based position, spans (>= 1) and its text (words joined by spaces/newlines)."""

    row: int
    col: int
    text: str
    row_span: int = 1
    col_span: int = 1
    block: int = 0  # rules drawn across the table above the cell's row (row groups a rule sets apart)


@dataclass
class Table:
    """A table as read from a page: where it is and its cells (empty cells are not listed)."""

    page: int  # 1-based
    bbox: Box
    cells: list[Cell] = field(default_factory=list)
    n_rows: int = 0
    n_cols: int = 0
    header_rows: int = 0  # rows above the first row holding a value
    label: str = ""  # the paper's own label ("Table 3") when a caption names the table
    caption: str = ""  # the caption's first sentence
    row_tops: list[float] = field(default_factory=list)  # top of each row's first line (points)
    col_bands: list[tuple[float, float]] = field(default_factory=list)  # x0, x1 of each column (points)
    #: rules (y, x0, x1) drawn inside the table over part of its width only (a booktabs cmidrule
    #: under a header spanning some columns)
    short_rules: list[tuple[float, float, float]] = field(default_factory=list)

    def with_rules(self, rules: list[tuple[float, float, float]]) -> Table:
        """The table with each cell's `block`: how many of the drawn rules (y, x0, x1) that cross
        most of the table's width lie between its top and the cell's row; the rules inside it
        that cross less of it are its `short_rules`."""
        x0, top, x1, bottom = self.bbox
        inside = [(y, a, b) for y, a, b in rules if top < y < bottom and min(b, x1) > max(a, x0)]
        across = [r for r in inside if min(r[2], x1) - max(r[1], x0) >= 0.8 * (x1 - x0)]
        short = [r for r in inside if r not in across]
        ys = sorted(y for y, _a, _b in across)
        if len(self.row_tops) != self.n_rows or not (ys or short):
            return self
        tops = self.row_tops  # each cell built directly: `replace` inspects the fields for every cell
        cells = self.cells
        if ys:
            cells = [Cell(c.row, c.col, c.text, c.row_span, c.col_span, bisect.bisect_right(ys, tops[c.row])) for c in cells]
        return replace(self, cells=cells, short_rules=short)

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of the `tables` command."""
        return {
            "label": self.label,
            "caption": self.caption,
            "page": self.page,
            "bbox": [round(v, 1) for v in self.bbox],
            "cells": [
                {"row": c.row, "col": c.col, "row_span": c.row_span, "col_span": c.col_span, "text": c.text} for c in self.cells
            ],
        }

    def matrix(self) -> list[list[str]]:
        """Rows of cell texts, a spanning cell's text in its first row and column only."""
        out = [[""] * self.n_cols for _ in range(self.n_rows)]
        for c in self.cells:
            out[c.row][c.col] = c.text
        return out


#: Cell gap in font sizes used when the caller gives none (see pdf_words.CELL_GAP_EM).
GAP_EM = 0.42


def table_from_words(words: list[Word], page: int, gap_em: float = GAP_EM) -> Table | None:
    """The table whose words these are (a region's words); None when they hold no two columns."""
    lines = group_lines(words)
    for ln in lines:
        ln.segs = split_segments(ln.words, gap_em)
    return table_from_lines(lines, page)


def table_from_lines(lines: list[Line], page: int) -> Table | None:
    """Columns, rows and cells of the lines of one region (each line's `segs` set)."""
    lines = [ln for ln in lines if ln.words]
    if not lines:
        return None
    pieces = [Piece(i, s) for i, ln in enumerate(lines) for s in _split_numeric_runs(ln.segs)]
    head_end = _head_end(pieces, lines)
    cols = column_bands(pieces, head_end)
    if len(cols) < 2:
        return None
    placed = _Columns(cols)
    for p in pieces:
        p.c0, p.c1 = placed.span(p.seg)
    joined = _join_word_bands(cols, pieces)
    if len(joined) < 2:
        return None
    if len(joined) < len(cols):
        cols = joined
        placed = _Columns(cols)
        for p in pieces:
            p.c0, p.c1 = placed.span(p.seg)
    pieces = _split_close_headers(pieces, cols, head_end)
    rows = row_groups(lines, pieces, head_end)
    cells = _cells(pieces, rows)
    n_rows = len(rows)
    first_value = next((r for r, grp in enumerate(rows) if any(p.numeric for p in pieces if p.line in grp)), 0)
    return Table(
        page,
        lines_box(lines),
        cells,
        n_rows,
        len(cols),
        first_value,
        row_tops=[min(lines[i].top for i in grp) for grp in rows],
        col_bands=list(cols),
    )


def lines_box(lines: list[Line]) -> Box:
    """The box of a region's lines (those with words): its table's `bbox`."""
    lines = [ln for ln in lines if ln.words]
    return (min(ln.x0 for ln in lines), lines[0].top, max(ln.x1 for ln in lines), lines[-1].bottom)


def _split_close_headers(pieces: list[Piece], cols: list[tuple[float, float]], head_end: int) -> list[Piece]:
    """A header piece over three or more columns whose words fall, in order, into those columns,
    each run of words centred on its column ("Knowledge Mathematics Perception" set with word
    spaces over three columns) is one header per column, not one spanning all of them; one over
    two columns centred in one of them is that column's alone (`_column_runs`). Linear in
    the pieces' words (each word's column is found by bisection)."""
    if not any(p.line < head_end and p.c1 > p.c0 for p in pieces):
        return pieces
    lefts = [a for a, _ in cols]
    out: list[Piece] = []
    for p in pieces:
        parts = (_column_runs(p, cols, lefts) or _gap_runs(p, cols)) if p.line < head_end and p.c1 > p.c0 else None
        if parts is None:
            out.append(p)
            continue
        for k, words in parts:
            q = Piece(p.line, Seg(words))
            q.c0 = q.c1 = k
            out.append(q)
    return out


def _column_runs(p: Piece, cols: list[tuple[float, float]], lefts: list[float]) -> list[tuple[int, list[Word]]] | None:
    """The piece's words grouped by the column whose band holds each word's centre, when there are
    three or more groups, in column order, each centred on its column (within a third of its width).
    A piece over two columns whose words all sit, centred, in one of them only grazes the other (a
    model name over a narrow value column, beside a label column widened by one long label): it is
    that column's header. Two runs over two columns stay one spanning header, as before."""
    groups: list[tuple[int, list[Word]]] = []
    for w in p.seg.words:
        c = (w.x0 + w.x1) / 2
        k = bisect.bisect_right(lefts, c) - 1
        if k < 0 or c > cols[k][1]:
            return None  # a word between columns: a header spanning them
        if groups and groups[-1][0] == k:
            groups[-1][1].append(w)
        elif groups and k < groups[-1][0]:
            return None
        else:
            groups.append((k, [w]))
    if (len(groups) != 1) if p.c1 - p.c0 == 1 else (len(groups) < 3):
        return None  # over two columns, only one run grazing its neighbour is cut back
    for k, ws in groups:
        a, b = cols[k]
        if abs((ws[0].x0 + ws[-1].x1) / 2 - (a + b) / 2) > max((b - a) / 3, 2.0):
            return None
    return groups


def _gap_runs(p: Piece, cols: list[tuple[float, float]]) -> list[tuple[int, list[Word]]] | None:
    """The piece's words cut at the one word gap inside each gap between the columns it covers,
    when every run is centred on its column (within a third of the column's width, as a value is):
    headers wider than their narrow value columns ("# Params" over "1.3B") set with word spaces
    ("# Params POPE MME-P MMB" over five columns), whose word centres lie outside the value bands.
    Most runs must be one word: a spanning phrase cut at the column gaps gives runs of several."""
    ws = p.seg.words
    groups: list[tuple[int, list[Word]]] = []
    start = 0
    for k in range(p.c0, p.c1):
        lo, hi = cols[k][1], cols[k + 1][0]
        cuts = [i for i in range(start + 1, len(ws)) if lo <= (ws[i - 1].x1 + ws[i].x0) / 2 <= hi]
        if len(cuts) != 1:
            return None
        groups.append((k, ws[start : cuts[0]]))
        start = cuts[0]
    groups.append((p.c1, ws[start:]))
    if len(groups) < 3 or 2 * sum(len(run) > 1 for _k, run in groups) > len(groups):
        return None  # mostly runs of several words: a phrase spanning the columns, cut by chance
    for k, run in groups:
        a, b = cols[k]
        if abs((run[0].x0 + run[-1].x1) / 2 - (a + b) / 2) > max((b - a) / 3, 2.0):
            return None
    return groups


def _head_end(pieces: list[Piece], lines: list[Line]) -> int:
    """The first body line: the first holding a value and starting at the table's left edge or with
    a label ending left of every value (a row label, set centred or indented in its column), or
    else the first holding a value; 0 when none does."""
    left = min(ln.x0 for ln in lines)
    valued = sorted({p.line for p in pieces if p.numeric})
    if not valued:
        return 0
    first: dict[int, Piece] = {}
    for p in pieces:
        if p.line not in first or p.seg.x0 < first[p.line].seg.x0:
            first[p.line] = p
    values_x0 = min(p.seg.x0 for p in pieces if p.numeric)
    labelled = [
        i for i in valued if lines[i].x0 <= left + lines[i].size or (not first[i].numeric and first[i].seg.x1 < values_x0)
    ]
    return (labelled or valued)[0]


def _split_numeric_runs(segs: list[Seg]) -> list[Seg]:
    """A segment of several values ("12.5 13.1 9.8", set with narrow gaps) is one cell per value."""
    out: list[Seg] = []
    for s in segs:
        if len(s.words) > 1 and all(is_value(w.text) for w in s.words) and not any(w.spaced for w in s.words[1:]):
            out.extend(Seg([w]) for w in s.words)
        else:
            out.append(s)
    return out


def column_bands(pieces: list[Piece], head_end: int = 0) -> list[tuple[float, float]]:
    """Column x-extents: clusters of overlapping segments, leaving out spanning ones.

    A segment spans when it overlaps two or more separate segments of one other line; for a
    segment of the body (from line `head_end` on), of one other body line. Lines of a
    single segment take part (a row label column) unless they span. A cluster made only of header
    lines (above line `head_end`, the first holding a value) that lies between two other columns is
    a header set over the gap between them, not a column."""
    lines = {p.line for p in pieces}
    if len(pieces) == len(lines):  # no line of two or more segments
        return []
    spanning = _spanning(pieces, head_end)
    headings = _headings(pieces)
    kept = [not spans and not heading for spans, heading in zip(spanning, headings, strict=True)]
    bands = _clusters([p for p, k in zip(pieces, kept, strict=True) if k], head_end)
    if any(headings):  # a heading over one column only is that column's header: it takes part
        starts = [band[0] for band in bands]
        for n, p in enumerate(pieces):
            if headings[n] and not spanning[n] and _bands_met(bands, starts, p.seg.x0, p.seg.x1) <= 1:
                kept[n] = True
        bands = _clusters([p for p, k in zip(pieces, kept, strict=True) if k], head_end)
    inner = [k for k, band in enumerate(bands) if band[2] >= 0]
    out = [band for k, band in enumerate(bands) if band[2] >= 0 or not inner or k < inner[0] or k > inner[-1]]
    return [(a, b) for a, b, _ in out]


def _clusters(pieces: list[Piece], head_end: int) -> list[list[float]]:
    """Clusters of overlapping pieces: x0, x1 and the last body line met (-1: header lines only)."""
    bands: list[list[float]] = []
    for a, b, li in sorted((p.seg.x0, p.seg.x1, p.line) for p in pieces):
        body = li if li >= head_end else -1
        if bands and a < bands[-1][1] - 0.5:
            bands[-1][1] = max(bands[-1][1], b)
            bands[-1][2] = max(bands[-1][2], body)
        else:
            bands.append([a, b, body])
    return bands


def _bands_met(bands: list[list[float]], starts: list[float], a: float, b: float) -> int:
    """How many of the (sorted, disjoint) bands the extent [a, b] overlaps by more than 0.5."""
    k = max(bisect.bisect_right(starts, a) - 1, 0)
    n = 0
    while k < len(bands) and bands[k][0] < b - 0.5:
        n += min(b, bands[k][1]) - max(a, bands[k][0]) > 0.5
        k += 1
    return n


def _headings(pieces: list[Piece]) -> list[bool]:
    """For each piece, whether it may be a heading set over the value columns: the one piece of its
    line, not a value, starting right of every row label (the first piece of a line of a label and
    values). Such a line ("Mathematics" centred over the columns between rows) bridges the
    columns it overlaps; it names the rows under it (or the columns, in a header) and makes no
    column of its own. `column_bands` lets one back in that meets one column only (a header of one
    column set on lines of its own)."""
    per_line: dict[int, list[Piece]] = {}
    for p in pieces:
        per_line.setdefault(p.line, []).append(p)
    label_ends = [
        min(ps, key=lambda q: q.seg.x0).seg.x1
        for ps in per_line.values()
        if len(ps) > 1 and not min(ps, key=lambda q: q.seg.x0).numeric and any(q.numeric for q in ps)
    ]
    if not label_ends:
        return [False] * len(pieces)
    right = max(label_ends)
    return [len(per_line[p.line]) == 1 and not p.numeric and p.seg.x0 > right for p in pieces]


def _spanning(pieces: list[Piece], head_end: int) -> list[bool]:
    """For each piece, whether it overlaps (by more than 0.5 pt) two or more segments of one other line
    (for a body piece: of one other body line), in O(n log n) for n pieces.

    Piece [a, b] overlaps segment [s0, s1] by more than 0.5 exactly when a < s1 - 0.5, b > s0 + 0.5
    and both are wider than 0.5. Two segments s, t of one line both overlap it when a < min(A_s, A_t)
    and b > max(B_s, B_t) (A = s1 - 0.5, B = s0 + 0.5). Of all the pairs of a line, only these matter:
    going through its segments by falling A, each with the smallest B met before it (`_pair_corners`).
    A piece then spans when some corner (A, B) of another line has A > a and B < b: among the corners
    with A > a (a prefix once sorted by falling A), the smallest B of a line other than the piece's own.
    """
    by_line: dict[int, list[Seg]] = {}
    for p in pieces:
        by_line.setdefault(p.line, []).append(p.seg)
    pairs = {li: _pair_corners(segs) for li, segs in by_line.items()}  # each line's, for both sets below
    everywhere = _Corners([(a, bb, li) for li, cs in pairs.items() for a, bb in cs])
    body = _Corners([(a, bb, li) for li, cs in pairs.items() if li >= head_end for a, bb in cs])
    out = []
    for p in pieces:
        s = p.seg
        corners = everywhere if p.line < head_end else body  # a body segment spans only body columns
        out.append(s.x1 - s.x0 > 0.5 and corners.spans(s.x0, s.x1, p.line))
    return out


def _pair_corners(segs: list[Seg]) -> list[tuple[float, float]]:
    """(A, B) of the pairs of one line's segments that any piece two of them overlap must reach (see `_spanning`)."""
    wide = sorted(((s.x1 - 0.5, s.x0 + 0.5) for s in segs if s.x1 - s.x0 > 0.5), reverse=True)
    out: list[tuple[float, float]] = []
    low = float("inf")  # the smallest B of the segments with a larger A
    for a, b in wide:
        if low < float("inf"):
            out.append((a, max(b, low)))
        low = min(low, b)
    return out


_FIRST = operator.itemgetter(0)


class _Corners:
    """Pair corners (A, B, line) sorted by falling A, with, for each prefix, the smallest B and the
    smallest B of another line than that one's (so a query can leave out its own line)."""

    def __init__(self, corners: list[tuple[float, float, int]]):
        corners.sort(key=_FIRST, reverse=True)  # by falling A (stable: equal A keep their order)
        self.neg_a = [-a for a, _, _ in corners]  # ascending, for bisect
        self.best: list[tuple[float, int, float]] = []  # per prefix: (smallest B, its line, smallest B of another line)
        b1, l1, b2 = float("inf"), -1, float("inf")
        for _, b, li in corners:
            if li == l1:
                b1 = min(b1, b)
            elif b < b1:
                b1, l1, b2 = b, li, b1
            else:
                b2 = min(b2, b)
            self.best.append((b1, l1, b2))

    def spans(self, a: float, b: float, line: int) -> bool:
        k = bisect.bisect_left(self.neg_a, -a)  # corners with A > a
        if k == 0:
            return False
        b1, l1, b2 = self.best[k - 1]
        return (b1 if l1 != line else b2) < b


def _join_word_bands(cols: list[tuple[float, float]], pieces: list[Piece]) -> list[tuple[float, float]]:
    """Columns with the column to their left where they are words of one cell split by wide word
    spaces (justified text in a cell): no value in them, and on every line that has a piece there,
    a piece of the left column ends just before it: less than one font size, or three when the
    PDF itself puts a space character there (justified text stretches it)."""
    at: dict[tuple[int, int], list[Piece]] = {}
    for p in pieces:
        if p.c0 == p.c1:
            at.setdefault((p.line, p.c0), []).append(p)
    touching: dict[int, list[Piece]] = {}  # column -> the pieces that start or end in it
    for p in pieces:
        touching.setdefault(p.c0, []).append(p)
        if p.c1 != p.c0:
            touching.setdefault(p.c1, []).append(p)
    out = [list(cols[0])]
    for k in range(1, len(cols)):
        mine = touching.get(k, [])
        glued = bool(mine) and all(
            p.c0 == p.c1 == k
            and not p.numeric
            and any(0 <= p.seg.x0 - q.seg.x1 < _glue(p.seg) for q in at.get((p.line, k - 1), []))
            for p in mine
        )
        if glued:
            out[-1][1] = max(out[-1][1], cols[k][1])
        else:
            out.append(list(cols[k]))
    return [(a, b) for a, b in out]


def _glue(seg: Seg) -> float:
    w = seg.words[0]
    return (3.0 if w.spaced else 1.0) * w.size


#: Up to this many candidate columns, `_Columns.span` scans them instead of walking its tree (same answer).
_SCAN_COLUMNS = 24


class _Columns:
    """The columns of a table, indexed once, so placing each of n segments costs O(log c), not O(c).

    `span` answers what a plain scan over the columns would: the first and last column a segment
    overlaps by more than 0.5 pt; else the gap between two columns it lies in (a header spanning
    both); else the column whose edge is nearest its centre (the first on a tie). The columns come
    sorted by their left edge (`column_bands` sweeps left to right); their right edges need not be
    sorted, so the overlaps are found in a tree of the largest right edge.
    """

    def __init__(self, cols: list[tuple[float, float]]):
        self.cols = cols
        self.x0 = [a for a, _ in cols]
        if any(b < a for a, b in itertools.pairwise(self.x0)):
            raise ValueError("columns must be sorted by their left edge")
        n = 1
        while n < len(cols):
            n *= 2
        self.n = n
        self.tree = [-math.inf] * (2 * n)  # leaf k: the right edge of column k when wider than 0.5
        for k, (a, b) in enumerate(cols):
            self.tree[n + k] = b if b - a > 0.5 else -math.inf
        for i in range(n - 1, 0, -1):
            self.tree[i] = max(self.tree[2 * i], self.tree[2 * i + 1])
        self.by_x1 = sorted((b, k) for k, (_, b) in enumerate(cols))

    def _edge(self, node: int, lo: int, hi: int, end: int, t: float, last: bool) -> int:
        """The first (or `last`) leaf index below `end` under `node` (covering lo..hi-1) whose key exceeds t; -1 if none."""
        if lo >= end or self.tree[node] <= t:
            return -1
        if hi - lo == 1:
            return lo
        mid = (lo + hi) // 2
        halves = ((2 * node + 1, mid, hi), (2 * node, lo, mid)) if last else ((2 * node, lo, mid), (2 * node + 1, mid, hi))
        for child, a, b in halves:
            k = self._edge(child, a, b, end, t, last)
            if k >= 0:
                return k
        return -1

    def span(self, seg: Seg) -> tuple[int, int]:
        x0, x1 = seg.x0, seg.x1
        if x1 - x0 > 0.5:  # overlap > 0.5: column left edge < x1 - 0.5, right edge > x0 + 0.5, both wide
            end = bisect.bisect_left(self.x0, x1 - 0.5)
            if end <= _SCAN_COLUMNS:  # few columns to look at: a scan of the leaves costs less than the tree walk
                leaves, t = self.tree[self.n : self.n + end], x0 + 0.5
                hits = [k for k, b in enumerate(leaves) if b > t]
                if hits:
                    return hits[0], hits[-1]
            else:
                first = self._edge(1, 0, self.n, end, x0 + 0.5, last=False)
                if first >= 0:
                    return first, self._edge(1, 0, self.n, end, x0 + 0.5, last=True)
        k = max(bisect.bisect_left(self.x0, x1) - 1, 0)  # before it, no column's right neighbour starts at or after x1
        while k < len(self.cols) - 1 and self.x0[k] <= x0:
            if self.cols[k][1] <= x0 and x1 <= self.x0[k + 1]:  # set over the gap: a header spanning both
                return k, k + 1
            k += 1
        k = self._nearest((x0 + x1) / 2)
        return k, k

    def _nearest(self, c: float) -> int:
        """The column with an edge nearest `c` (the first of equals)."""
        near: list[tuple[float, float, int]] = []  # (distance, edge value, 0: left edges / 1: right edges)
        i = bisect.bisect_left(self.x0, c)
        near += [(abs(self.x0[j] - c), self.x0[j], 0) for j in (i - 1, i) if 0 <= j < len(self.x0)]
        i = bisect.bisect_left(self.by_x1, (c, -1))
        near += [(abs(self.by_x1[j][0] - c), self.by_x1[j][0], 1) for j in (i - 1, i) if 0 <= j < len(self.by_x1)]
        d = min(near)[0]
        ks = []
        for dist, v, side in near:
            if dist == d and side == 0:
                ks.append(bisect.bisect_left(self.x0, v))  # the first column with that left edge
            elif dist == d:
                ks.append(self.by_x1[bisect.bisect_left(self.by_x1, (v, -1))][1])  # the first with that right edge
        return min(ks)


def _cells(pieces: list[Piece], rows: list[list[int]]) -> list[Cell]:
    """One cell per (row, first column): texts of a row's lines joined by newlines."""
    row_of = {li: r for r, grp in enumerate(rows) for li in grp}
    slots: dict[tuple[int, int], list[Piece]] = {}
    for p in pieces:
        slots.setdefault((row_of[p.line], p.c0), []).append(p)
    out: list[Cell] = []
    for (r, c), ps in sorted(slots.items()):
        if len(ps) == 1:  # most slots hold one piece: its text, to its last column
            out.append(Cell(r, c, ps[0].seg.text, 1, ps[0].c1 - c + 1))
            continue
        ps.sort(key=lambda p: (p.line, p.seg.x0))
        lines_text: list[str] = []
        last_line = -1
        for p in ps:
            if p.line == last_line:
                lines_text[-1] += " " + p.seg.text
            else:
                lines_text.append(p.seg.text)
            last_line = p.line
        span = max(p.c1 for p in ps) - c + 1
        out.append(Cell(r, c, "\n".join(lines_text), 1, span))
    return _drop_overlaps(out)


_COL = operator.attrgetter("col")


def _drop_overlaps(cells: list[Cell]) -> list[Cell]:
    """A spanning cell covering another cell of its row is cut short before it (cells never overlap)."""
    out: list[Cell] = []
    by_row: dict[int, list[Cell]] = {}
    for c in cells:
        by_row.setdefault(c.row, []).append(c)
    for row in by_row.values():
        row.sort(key=_COL)
        for k, c in enumerate(row):
            nxt = row[k + 1].col if k + 1 < len(row) else None
            span = max(c.col_span if nxt is None else min(c.col_span, nxt - c.col), 1)
            out.append(c if span == c.col_span and c.block == 0 else Cell(c.row, c.col, c.text, c.row_span, span))
    return out
