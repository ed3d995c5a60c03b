"""The label zone's columns of a table region (step 3 of `ingest.reading.table_grid`'s
docstring): where each label column starts (or, for centred names, the interval it covers), and
which one holds the rows' main labels."""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass

from ingest.reading.pdf_words import split_segments
from ingest.reading.table_text import Line, Seg


@dataclass
class LabelCols:
    """The label zone's columns: left edges (or centred intervals `comps`) and the main column."""

    x: list[float]
    comps: list[list[float]]
    main: int

    def of(self, seg: Seg, prev_col: int, prev_seg: Seg | None) -> int:
        """The label column a segment belongs to (a segment close after the previous one joins it)."""
        if self.comps:
            c = (seg.x0 + seg.x1) / 2
            return next((k for k, cp in enumerate(self.comps) if cp[0] - 1 <= c <= cp[1] + 1), max(prev_col, 0))
        at = [j for j, cx in enumerate(self.x) if abs(seg.x0 - cx) <= 6]
        if at:
            return at[0]
        if prev_seg is not None and seg.x0 - prev_seg.x1 < 1.5 * seg.words[0].size:
            return prev_col
        return max([j for j, cx in enumerate(self.x) if seg.x0 >= cx - 6] or [0])


def _label_segments(body: list[Line], zone_end: float, gap_em: float) -> list[tuple[int, Seg]]:
    """(body line index, segment) for every segment of the label zone."""
    out: list[tuple[int, Seg]] = []
    for li, ln in enumerate(body):
        for s in split_segments([w for w in ln.words if (w.x0 + w.x1) / 2 < zone_end], gap_em):
            out.append((li, s))
    return out


def label_columns(body: list[Line], data_lines: set[int], n_data: int, zone_end: float, gap_em: float) -> LabelCols:
    """Label zone columns: left-aligned starts; the main column is the most common start on data rows."""
    label_segs = _label_segments(body, zone_end, gap_em)
    cols_x: list[float] = []
    for x in sorted(s.x0 for _, s in label_segs):
        if not cols_x or x - cols_x[-1] > 6:
            cols_x.append(x)
    support = {cx: sum(1 for _, s in label_segs if abs(s.x0 - cx) <= 6 or (cx <= s.x0 < cx + 6)) for cx in cols_x}
    main_support = {cx: sum(1 for li, s in label_segs if id(body[li]) in data_lines and cx <= s.x0 < cx + 6) for cx in cols_x}
    for head, tail in _centred_runs(label_segs, cols_x):
        support[head] += support.pop(tail)
        main_support[head] += main_support.pop(tail)
        cols_x.remove(tail)
    main_x = max(cols_x, key=lambda cx: (main_support[cx], -cx)) if cols_x else zone_end
    outer = [cx for cx in cols_x if cx < main_x - 6 and support[cx] >= 1]
    # Columns right of the main one need left-aligned cells on most data rows ("# Shots", "Metric").
    inner = [cx for cx in cols_x if cx > main_x + 6 and main_support[cx] >= max(2, 0.6 * n_data)]
    if cols_x and main_support[main_x] < 0.5 * n_data:
        return _centred_columns(label_segs, body, data_lines, n_data)
    return LabelCols([*outer, main_x, *inner], [], len(outer))


def _centred_runs(label_segs: list[tuple[int, Seg]], cols_x: list[float]) -> list[tuple[float, float]]:
    """(head, tail) pairs of neighbouring starts that are one column of centred names: their cells
    never share a line and every cell's centre is within a quarter em of the cells' median centre,
    three cells or more ("Perception" / "Overall" / "FSP" centred under "Split" start at three
    places, one column; a name far wider than the rest starts alone where it starts)."""
    members: dict[float, list[tuple[int, Seg]]] = {cx: [] for cx in cols_x}
    for li, s in label_segs:
        members[max(cx for cx in cols_x if cx <= s.x0)].append((li, s))
    out: list[tuple[float, float]] = []
    run: list[tuple[int, Seg]] = []
    head = None
    for a, b in itertools.pairwise(cols_x):
        if head is None or not run:
            head, run = a, list(members[a])
        both = run + members[b]
        size = statistics.median(w.size for _, s in both for w in s.words) if both else 0.0
        mid = statistics.median((s.x0 + s.x1) / 2 for _, s in both) if both else 0.0
        lines_ok = not {li for li, _ in run} & {li for li, _ in members[b]}
        if (
            run
            and members[b]
            and len(both) >= 3
            and lines_ok
            and all(abs((s.x0 + s.x1) / 2 - mid) <= 0.25 * size for _, s in both)
        ):
            out.append((head, b))
            run = both
        else:
            head, run = b, list(members[b])
    return out


def _centred_columns(label_segs: list[tuple[int, Seg]], body: list[Line], data_lines: set[int], n_data: int) -> LabelCols:
    """Centred label columns (names not left-aligned): columns are overlapping x-intervals."""
    comps: list[list[float]] = []
    for a, b in sorted((s.x0, s.x1) for _, s in label_segs):
        if comps and a <= comps[-1][1] + 1:
            comps[-1][1] = max(comps[-1][1], b)
        else:
            comps.append([a, b])
    comp_support = [
        sum(1 for li, s in label_segs if id(body[li]) in data_lines and c[0] <= (s.x0 + s.x1) / 2 <= c[1]) for c in comps
    ]
    m = max(range(len(comps)), key=lambda k: (comp_support[k], k))
    keep = [k for k in range(len(comps)) if k < m or k == m or comp_support[k] >= max(2, 0.6 * n_data)]
    comps = [comps[k] for k in keep]
    return LabelCols([c[0] for c in comps], comps, keep.index(m))


def corner_columns(corner_parts: list[Seg], cols: LabelCols) -> list[list[str]]:
    """Corner header segments go to the label column they start in."""
    corner_cols: list[list[str]] = [[] for _ in cols.x]
    for s in corner_parts:
        corner_cols[cols.of(s, cols.main, None)].append(s.text)
    return corner_cols
