"""Rows of a structure-stage table: which lines of a table region form one row.

A row is one baseline, except that a line continuing the cells of the line above (a wrapped label
or a two-line header: no value of its own, tightly set or starting in lower case) joins that row,
and a label set on two lines around its one line of values is one row. Used by
`ingest.reading.structure`, which places each line's segments (`Piece`s) in its column grid first.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ingest.reading.table_text import DASH, Line, Seg, is_value, once


@dataclass
class Piece:
    """A segment of one line placed in the column grid."""

    line: int
    seg: Seg
    c0: int = 0
    c1: int = 0  # inclusive

    @once
    def numeric(self) -> bool:  # asked for every line the piece's row meets
        return is_value(self.seg.text) or bool(DASH.match(self.seg.text))


@dataclass
class _Row:
    """A row being built: its lines and what the rules ask of all its pieces, kept as lines join (so a
    row of many lines costs each line's own pieces, not the whole row's again)."""

    lines: list[int]
    pieces: bool = False  # some line of the row has a piece
    numeric: bool = False  # some piece holds a value
    label: bool = False  # some piece starts in the first column
    filled: set[int] = field(default_factory=set)  # columns the row's pieces cover
    valued: set[int] = field(default_factory=set)  # columns where the row holds a value

    def add(self, i: int, mine: list[Piece]) -> _Row:
        self.lines.append(i)
        for p in mine:
            cols = range(p.c0, p.c1 + 1)
            self.pieces = True
            self.filled.update(cols)
            self.label = self.label or p.c0 == 0
            if p.numeric:
                self.numeric = True
                self.valued.update(cols)
        return self


def row_groups(lines: list[Line], pieces: list[Piece], head_end: int = 0) -> list[list[int]]:
    """Line indices per row: a continuation line joins the row above."""
    per_line: dict[int, list[Piece]] = {}
    for p in pieces:
        per_line.setdefault(p.line, []).append(p)
    gaps = [lines[i].top - lines[i - 1].bottom for i in range(1, len(lines))]
    typical = statistics.median(gaps) if gaps else 0.0
    rows: list[_Row] = []
    for i in range(len(lines)):
        mine = per_line.get(i, [])
        if rows and _continues(lines, per_line, rows[-1], i, typical, i >= head_end):
            rows[-1].add(i, mine)
        else:
            rows.append(_Row([]).add(i, mine))
    return _wrapped_around(lines, per_line, [r.lines for r in rows])


def _wrapped_around(lines: list[Line], per_line: dict[int, list[Piece]], rows: list[list[int]]) -> list[list[int]]:
    """Rows with a two-line label set around its one line of values joined: a line of values only,
    its baseline closer than a line of type to a label line above and one below (the label's two
    lines centred on the row, "LiveCodeBench" / values / "(24/8-25/5)"), is one row with them. Not
    when a line of values is as close beyond either label line: then the label is centred on
    several rows of values (a name printed once beside them), each a row of its own."""

    def close(a: int, b: int) -> bool:
        return (
            0 <= a < len(lines)
            and 0 <= b < len(lines)
            and lines[b].base - lines[a].base < 0.9 * min(lines[a].size, lines[b].size)
        )

    def label_only(i: int) -> bool:
        ps = per_line.get(i, [])
        return bool(ps) and min(p.c0 for p in ps) == 0 and not any(p.numeric for p in ps)

    def values_only(i: int) -> bool:
        ps = per_line.get(i, [])
        return len(ps) >= 2 and all(p.numeric and p.c0 > 0 for p in ps)

    out: list[list[int]] = []
    j = 0
    while j < len(rows):
        nxt = rows[j + 1] if j + 1 < len(rows) else []
        # the line below the values may have joined them already (interleaved), or be a row of its own
        below = nxt[1:] if len(nxt) == 2 else (rows[j + 2] if len(nxt) == 1 and j + 2 < len(rows) else [])
        if len(rows[j]) == 1 and nxt and len(below) == 1:
            a, v, c = rows[j][0], nxt[0], below[0]
            if (
                label_only(a) and values_only(v) and label_only(c) and close(a, v) and close(v, c)
                and not (values_only(a - 1) and close(a - 1, a)) and not (values_only(c + 1) and close(c, c + 1))
            ):  # fmt: skip
                out.append([a, v, c])
                j += 2 if len(nxt) == 2 else 3
                continue
        out.append(rows[j])
        j += 1
    return out


def _continues(lines: list[Line], per_line: dict[int, list[Piece]], row: _Row, i: int, typical: float, body: bool = True) -> bool:
    """Whether line `i` continues the cells of the row above rather than starting a row.

    It does when it holds no value, each of its segments lies under a cell of the row above, and
    it is set tighter than the table's usual line gap or starts in lower case or with a
    parenthesis (a wrapped phrase),
    or, in the body of a table of text (no value in the row either), it leaves the first column
    to the row's label (a paragraph of a description cell; in a header it is a header row)."""
    mine = per_line.get(i, [])
    if mine and _interleaved(lines, per_line, row, i):
        return True
    if not mine or not row.pieces or any(p.numeric for p in mine):
        return False
    prev = lines[row.lines[-1]]
    gap = lines[i].top - prev.bottom
    if gap > 0.8 * lines[i].size:
        return False
    if not all(p.c0 in row.filled and p.c1 in row.filled for p in mine):
        return False
    lower = all(_wrapped(p.seg.words[0].text) for p in mine)
    if row.numeric and not lower:
        return False  # under a row of values only a wrapped phrase continues
    tight = gap < 0.6 * typical - 0.5
    text_row = body and not row.numeric and row.label and all(p.c0 > 0 for p in mine)
    return tight or lower or text_row


def _interleaved(lines: list[Line], per_line: dict[int, list[Piece]], row: _Row, i: int) -> bool:
    """Whether line `i` is set between the lines of `row` (its last line is the line above).

    Cells of one row with different numbers of lines are centred on the row, so their lines fall
    on interleaved baselines ("Seed- / Thinking- / v1.5" beside "Gemini 2.5 / Pro"; a two-line
    label beside one line of values). Two lines closer than one line of type cannot be
    successive lines of one column: when they share no column and neither spans columns (a group
    header is a row of its own), they are parts of one row, unless line `i` puts a value in a
    column where the row has one already (rows of values beside a label of several lines)."""
    k = row.lines[-1]
    a, b = lines[k], lines[i]
    if b.base - a.base >= 0.9 * min(a.size, b.size):
        return False
    if any(p.c1 > p.c0 for li in (k, i) for p in per_line.get(li, [])):
        return False  # a spanning header is a row of its own
    cols_a = {c for p in per_line.get(k, []) for c in range(p.c0, p.c1 + 1)}
    cols_b = {c for p in per_line.get(i, []) for c in range(p.c0, p.c1 + 1)}
    clash = any(p.numeric and p.c0 in row.valued for p in per_line.get(i, []))
    return bool(cols_a) and not cols_a & cols_b and not clash


def _wrapped(word: str) -> bool:
    """A word that goes on a phrase: lower case, or an opening parenthesis ("(Douwe Egberts)")."""
    return word[:1].islower() or (word[:1] == "(" and word[1:2].isalpha())
