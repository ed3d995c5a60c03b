"""A structure-stage `Table` as the results stage's `Grid`, through a typed header tree.

The bridge between the two stages: `ingest.analysis.result_meaning` interprets Grids; this turns
any table the structure stage finds (with or without a caption) into one. It knows no benchmark;
what the catalogue knows comes in as predicates (`RowKinds`).

- body: the rows from the first row of results (a label beside it and at least half of its other
  cells numbers, or a label naming a model attribute); rows above it are headers, however many
  lines a header takes. Value columns: those right of the label columns (left of the first
  column holding a value);
- the header tree (`header_tree`), the shape rules of docs/table-shapes.md:
  * a header's lines join as one name, a line cut after a hyphen without a space ("Claude-3.5-"
    over "Sonnet-1022"); header lines over the same columns are levels of the column's path, which
    the result meaning joins into the name ("GPT-4o" over "0513");
  * a header with a rule drawn under it over part of the table (a booktabs cmidrule) covers the
    columns under the rule;
  * a spanning header covers every column under it: a parent printed over the middle of its
    sub-headers spans the run of sub-headered columns around it that no other header stands over
    (a column two parents reach goes to the one centred over it);
  * sub-headers stay with their column; the column's path is its headers from the widest down;
  * a header row holding label cells only, between header lines, is the corner; one at the bottom
    of the header (or a row of one cell right over the rows, under headers of two or more cells) is
    the group heading of the first rows;
- label columns: value columns right after them headed by a key ("Model size", "Sample budget",
  known to the catalogue) are label columns too; the main one is the label column most body rows
  print a label in (key columns such as "# Shots" aside); columns left of it hold groups. A label printed once for several rows
  is carried down, or, when the first row of values has none, given to the nearest rows (a label
  printed in the middle of its rows; the main column's names, with a line of labels alone, too);
  a row label of two or more words opening with a lower-case word ("w/ TIR")
  names a variant of the row above it, whose name it takes first; a row label in parentheses right
  under a label line is that name's second line ("LiveCodeBench" over "(24/8-25/5)");
- a body row with a label and no value, or of one cell with no number (a title centred over the
  value columns), is a group heading for the rows below it;
- stacked panels (`panels`): a header row after rows of values starts a panel of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from ingest.reading.structure import Cell, Table
from ingest.reading.table_text import DASH, SIZE, Grid, GridRow, is_value, value_or_dash


@dataclass(frozen=True)
class RowKinds:
    """What the catalogue knows about label text, given to the bridge by the results stage: a row
    naming a model attribute (parameters, architecture) and a column of keys (shots, budget)."""

    is_attribute_row: Callable[[str], bool] = lambda _t: False
    is_key_column: Callable[[str], bool] = lambda _t: False


@dataclass(frozen=True)
class HeaderCell:
    """One header of a table: its text (lines joined) and the value columns it covers (0-based,
    counted from the first value column, both ends included)."""

    text: str
    first: int
    last: int

    @property
    def span(self) -> int:
        return self.last - self.first + 1


@dataclass
class HeaderTree:
    """The headers of a table's value columns, level by level (top first), and what stands over
    the label columns: the corner text of each label column, and a group heading for the first
    rows when the header ends in one."""

    levels: list[list[HeaderCell]] = field(default_factory=list)
    corner: list[list[str]] = field(default_factory=list)
    group: str = ""

    def path(self, k: int) -> list[HeaderCell]:
        """The headers over value column k, from the widest down to its own."""
        return [c for level in self.levels for c in level if c.first <= k <= c.last]


def panel_grids(t: Table, kinds: RowKinds | None = None) -> list[Grid]:
    """The Grids of a table's stacked panels (`panels`), each read under its own headers; a panel
    with no column of values gives none."""
    return [g for part in panels(t) if (g := grid_from_table(part, kinds)) is not None]


def panels(t: Table) -> list[Table]:
    """A table cut where a header row follows rows of values: a row with no label, no number and no
    dash, three or more cells over the value columns, after two or more rows of values in its panel
    ("#TP #AP Swift R Julia" after the rows under "#TP #AP Python Java"). Rows are counted from 0
    in each panel."""
    value_cols = sorted({c.col for c in t.cells if c.row >= t.header_rows and value_or_dash(c.text)})
    if not value_cols:
        return [t]
    n_lab = value_cols[0]
    by_row: dict[int, list[Cell]] = {}
    for c in t.cells:
        by_row.setdefault(c.row, []).append(c)
    starts, rows_since = [0], 0
    for r in range(t.n_rows):
        row = by_row.get(r, [])
        if any(c.col >= n_lab and _number(c.text) for c in row):
            rows_since += 1
            continue
        over = [c for c in row if c.col >= n_lab]
        if rows_since >= 2 and len(over) >= 3 and len(over) == len(row) and not any(DASH.match(c.text.strip()) for c in row):
            starts.append(r)
            rows_since = 0
    if len(starts) == 1:
        return [t]
    out = []
    for a, b in zip(starts, [*starts[1:], t.n_rows], strict=True):
        cells = [replace(c, row=c.row - a) for c in t.cells if a <= c.row < b]
        tops = t.row_tops[a:b] if len(t.row_tops) == t.n_rows else []
        out.append(replace(t, cells=cells, n_rows=b - a, header_rows=t.header_rows if a == 0 else 1, row_tops=tops))
    return out


def grid_from_table(t: Table, kinds: RowKinds | None = None) -> Grid | None:
    """The Grid of a structure-stage table; None when no column holds a value, or no column left of
    them holds labels (a table whose values name nothing)."""
    kinds = kinds or RowKinds()
    cells = {(c.row, c.col): c for c in t.cells}
    value_cols = sorted({c.col for c in t.cells if c.row >= t.header_rows and value_or_dash(c.text)})
    if not value_cols or value_cols[0] == 0:
        return None
    n_lab = value_cols[0]
    notes = []  # columns of notes on the label left of them: label columns, joined to it below
    while n_lab < t.n_cols - 1 and _label_note_column(t, n_lab):
        notes.append(n_lab)
        n_lab += 1
    head = body_start(t, cells, n_lab, kinds.is_attribute_row)
    tree = header_tree(t, cells, n_lab, head)
    keys = 0  # leading value columns headed by a key ("Model size", "Sample budget"): label columns
    while n_lab + keys < t.n_cols - 1 and any(kinds.is_key_column(c.text) for c in tree.path(keys)):
        keys += 1
    if keys:
        n_lab += keys
        head = body_start(t, cells, n_lab, kinds.is_attribute_row)
        tree = header_tree(t, cells, n_lab, head)
    n_val = t.n_cols - n_lab
    col_headers = [[(c.text, c.span) for c in tree.path(k)] for k in range(n_val)]
    label_headers = [" ".join(" ".join(parts).split()) for parts in tree.corner]
    key_cols = [k for k in range(n_lab) if label_headers[k] and kinds.is_key_column(label_headers[k])]
    body = [(r, _labels(cells, r, n_lab), [_text(cells, r, k) for k in range(n_lab, t.n_cols)]) for r in range(head, t.n_rows)]
    for k in notes:
        for _r, labels, _values in body:
            labels[k - 1], labels[k] = f"{labels[k - 1]} {labels[k]}".strip(), ""
    _join_comma_columns(body, n_lab)
    main = _main_column(body, n_lab, key_cols)
    for k in range(main):  # a column of running text beside the table is none of it
        if _prose_column(body, k):
            for _r, labels, _values in body:
                labels[k] = ""
            label_headers[k] = ""
    _ruled_names(body, main, {c.row: c.block for c in t.cells})
    _fill_centred(body, main)
    _centred_names(body, main)
    rows: list[GridRow] = []
    group = tree.group
    carried = [""] * (main + 1)
    parent = heading = ""
    for _r, labels, values in body:
        printed = [x for x in (*labels, *values) if x]
        if not any(values) or (len(printed) == 1 and not _number(printed[0])):
            if printed:  # a label line, or one cell set over the value columns: a heading
                heading = printed[-1]
            continue
        name = labels[main]
        if heading and name.startswith("(") and name.endswith(")"):
            name = labels[main] = f"{heading} {name}"  # a name's second line: "(24/8-25/5)" under "LiveCodeBench"
        elif heading and not (name and _variant(name)):
            group = heading  # a label line over rows of names: their group heading
        elif heading:
            parent = heading  # a label line over variant rows ("fast mode"): their model
        heading = ""
        if name and _variant(name) and parent:
            labels[main] = f"{parent} {name}"  # "w/ TIR" under "LongCat-Flash-Prover"
        elif name:
            parent = name
        lead = labels[: main + 1]  # groups and the main column; columns right of it are the row's own
        carry_down(lead, carried)
        labels[: main + 1] = lead
        rows.append(GridRow(labels, values, group))
    return Grid(
        corner=" ".join(x for x in label_headers[: main + 1] if x),
        label_headers=label_headers,
        key_cols=key_cols,
        col_headers=col_headers,
        rows=rows,
        tokens=[w for c in t.cells for w in c.text.split()],
        unused=[],
        main=main,
        region=t.bbox,
    )


def body_start(t: Table, cells: dict[tuple[int, int], Cell], n_lab: int, is_attribute_row: Callable[[str], bool]) -> int:
    """The first row of the body: a label beside it and at least half of its other cells numbers,
    or a label naming a model attribute (an architecture or parameter row under the model names).
    A header line of numbers ("0513" under "GPT-4o") has no label: it stays in the header. An
    attribute row comes under a header line over the value columns (the corner cell of the first
    header line, "Type", is no attribute row). A row whose numbers are all sizes ("4K 8K 16K",
    context lengths or model sizes) over a row of plain numbers names the columns: a header line
    (unless its label names an attribute)."""
    headed = False  # a row above holds cells over the value columns
    for r in range(t.n_rows):
        labels = [cells[(r, k)].text for k in range(n_lab) if (r, k) in cells]
        rest = [cells[(r, k)].text for k in range(n_lab, t.n_cols) if (r, k) in cells]
        attribute = headed and any(is_attribute_row(x) for x in labels)
        if labels and rest and (2 * sum(_number(x) for x in rest) >= len(rest) or attribute):
            if not attribute and _sizes_over_scores(rest, cells, r, n_lab, t.n_cols):
                headed = True
                continue
            return r
        headed = headed or bool(rest)
    return t.header_rows


def header_tree(t: Table, cells: dict[tuple[int, int], Cell], n_lab: int, head: int) -> HeaderTree:
    """The header tree of the rows above `head` (see the module docstring)."""
    tree = HeaderTree(corner=[[] for _ in range(n_lab)])
    rows = [[c for c in t.cells if c.row == r] for r in range(head)]
    valued = [r for r in range(head) if any(c.col + c.col_span > n_lab for c in rows[r])]
    last = valued[-1] if valued else -1
    per_row = Counter(c.row for c in t.cells)
    for r in range(head):
        lab = [c for c in rows[r] if c.col + c.col_span <= n_lab]
        if r > last and lab:  # label cells under the last header line: a group heading
            tree.group = " ".join(_flat(c.text) for c in lab)
            continue
        for c in lab:
            for k in range(c.col, c.col + c.col_span):
                tree.corner[k].append(_flat(c.text))
    if last >= 1 and last == head - 1 and per_row[last] == 1 and per_row[last - 1] >= 2 and not tree.group:
        tree.group = _flat(rows[last][0].text)  # one cell right over the rows, under wider headers
        valued = valued[:-1]
    levels = [
        [
            HeaderCell(_lines(c.text), max(c.col, n_lab) - n_lab, c.col + c.col_span - 1 - n_lab)
            for c in sorted(rows[r], key=lambda c: c.col)
            if c.col + c.col_span > n_lab
        ]
        for r in valued
    ]
    tree.levels = _spread_parents(_ruled_parents(t, levels, valued, n_lab))
    return tree


def _ruled_parents(t: Table, levels: list[list[HeaderCell]], rows: list[int], n_lab: int) -> list[list[HeaderCell]]:
    """A header with a rule drawn under it over part of the table's width (a booktabs cmidrule,
    between its line and the next header line) covers the value columns the rule spans: those whose
    middle lies under the rule. `rows`: the table row of each level."""
    if not t.short_rules or len(t.col_bands) != t.n_cols or len(t.row_tops) != t.n_rows:
        return levels
    mids = [(a + b) / 2 for a, b in t.col_bands[n_lab:]]
    out = [list(level) for level in levels]
    for i in range(len(out) - 1):
        top, next_top = t.row_tops[rows[i]], t.row_tops[rows[i + 1]]
        for j, c in enumerate(out[i]):
            a, b = t.col_bands[n_lab + c.first][0], t.col_bands[n_lab + c.last][1]
            under = [(x0, x1) for y, x0, x1 in t.short_rules if top < y < next_top and min(x1, b) > max(x0, a)]
            if len(under) != 1:
                continue
            x0, x1 = under[0]
            cover = [k for k, m in enumerate(mids) if x0 <= m <= x1]
            if cover and cover[0] <= c.first and c.last <= cover[-1]:
                out[i][j] = HeaderCell(c.text, cover[0], cover[-1])
    return out


def _spread_parents(levels: list[list[HeaderCell]]) -> list[list[HeaderCell]]:
    """A parent printed over the middle of its sub-headers spans the run of columns around it that
    hold a sub-header on the next level and no header on its level or above (a header set on two
    lines at other heights, "GPQA" over "Diamond", owns its column); a column two parents could
    take is left to neither. A header ending in a hyphen is a word cut at the line end, no parent."""
    out = [list(level) for level in levels]
    for i in range(len(out) - 1):
        out[i] = _repeat_parents(out[i], out[i + 1])
        below = {k for c in out[i + 1] for k in range(c.first, c.last + 1)}
        # columns with a header on this level or above: a line of another header stands over them
        own = {k for level in out[: i + 1] for c in level for k in range(c.first, c.last + 1)}
        reach: dict[int, list[int]] = {}
        for j, c in enumerate(out[i]):
            if c.span != 1 or c.first not in below or c.text.endswith("-"):
                continue  # a word cut at a hyphen ("Qx-" over "Test") goes on in its own column only
            k = c.first
            lo, hi = k, k
            while lo - 1 in below and lo - 1 not in own:
                lo -= 1
            while hi + 1 in below and hi + 1 not in own:
                hi += 1
            reach[j] = [lo, hi]
        out[i] = _settle(out[i], reach)
    return out


def _repeat_parents(level: list[HeaderCell], below: list[HeaderCell]) -> list[HeaderCell]:
    """Sub-headers repeating one run of labels ("func param p_v" three times) under as many
    parents, one over each run: each parent covers its run, wherever over it it is printed."""
    subs = sorted(below, key=lambda c: c.first)
    if not subs or any(c.span != 1 for c in subs) or subs[-1].first - subs[0].first != len(subs) - 1:
        return level
    seq, lo = [c.text for c in subs], subs[0].first
    period = next(
        (p for p in range(2, len(seq) // 2 + 1) if len(seq) % p == 0 and all(seq[j] == seq[j % p] for j in range(len(seq)))),
        0,
    )
    if not period:
        return level
    inside = [(j, c) for j, c in enumerate(level) if lo <= c.first and c.last < lo + len(seq)]
    over = {j: (c.first - lo) // period for j, c in inside if (c.first - lo) // period == (c.last - lo) // period}
    if len(over) != len(inside):
        return level
    if sorted(over.values()) != list(range(len(seq) // period)):
        return level
    out = list(level)
    for j, m in over.items():
        out[j] = HeaderCell(level[j].text, lo + m * period, lo + m * period + period - 1)
    return out


def _settle(level: list[HeaderCell], reach: dict[int, list[int]]) -> list[HeaderCell]:
    """Each parent's span from its reach: a column only it reaches is its own; a column two parents
    reach goes to the one whose centred span (as far on each side as on its shorter side: a parent
    is printed over the middle of its sub-headers) covers it, when only one does."""
    taken = Counter(k for lo, hi in reach.values() for k in range(lo, hi + 1))
    centred = {}
    for j, (lo, hi) in reach.items():
        k = level[j].first
        d = min(k - lo, hi - k)
        centred[j] = (k - d, k + d)

    def keeps(j: int, k: int) -> bool:
        return taken[k] == 1 or [x for x, (a, b) in centred.items() if a <= k <= b] == [j]

    out = list(level)
    for j, (lo, hi) in reach.items():
        k = level[j].first
        while lo < k and not keeps(j, lo):
            lo += 1
        while hi > k and not keeps(j, hi):
            hi -= 1
        out[j] = HeaderCell(level[j].text, lo, hi)
    return out


def _ruled_names(body: list[tuple[int, list[str], list[str]]], main: int, block_of: dict[int, int]) -> None:
    """Rows between two rules drawn across the table are one row group: when exactly one row of
    values in a group prints a name, the group's other rows of values take its labels, wherever
    in the group the name is printed (in the middle of its sample budgets, or on the first row).
    In place; nothing changes in a table without rules between its rows."""
    groups: dict[int, list[list[str]]] = {}
    for r, labels, values in body:
        if any(_number(v) for v in values):
            groups.setdefault(block_of.get(r, 0), []).append(labels)
    if len(groups) < 2:
        return
    for rows in groups.values():
        named = [labels for labels in rows if labels[main]]
        if len(named) != 1 or len(rows) < 2:
            continue
        src = list(named[0])
        for labels in rows:
            if not labels[main]:
                labels[:] = [x or y for x, y in zip(labels, src, strict=True)]


def _fill_centred(body: list[tuple[int, list[str], list[str]]], main: int) -> None:
    """A label column left of the main one whose first row of values has no label, though later
    rows of values have (and no line of labels alone has one), prints each label in the middle of
    the rows it names ("HRbench-4K" on the middle one of its three splits): every row of values
    without one takes the nearest row's label (the one above on a tie), in place, instead of the
    label above it."""
    valued = [labels for _r, labels, values in body if any(_number(v) for v in values)]
    for k in range(min(main, len(valued[0]) if valued else 0)):
        at = [i for i, labels in enumerate(valued) if labels[k]]
        alone = any(labels[k] for _r, labels, values in body if not any(_number(v) for v in values))
        if not at or at[0] == 0 or alone:
            continue
        for i, labels in enumerate(valued):
            if not labels[k]:
                near = min(at, key=lambda j: (abs(j - i), j))
                labels[k] = valued[near][k]


def _centred_names(body: list[tuple[int, list[str], list[str]]], main: int) -> None:
    """Names printed in the middle of their rows: when the first row of values has no name, each row
    of values without one takes the labels of the nearest named row (the one above on a tie), a
    line of labels alone beside such rows counting as a named row ("Goedel-Prover-SFT | 7B" on the
    middle one of its three sample budgets). In place; such a line is then emptied (no heading)."""
    rows = [(labels, any(_number(v) for v in values)) for _r, labels, values in body]
    valued = [i for i, (_labels, numbered) in enumerate(rows) if numbered]
    if not valued or rows[valued[0]][0][main]:
        return

    def bare(i: int) -> bool:
        return 0 <= i < len(rows) and rows[i][1] and not rows[i][0][main]

    sources = [i for i, (labels, numbered) in enumerate(rows) if labels[main] and (numbered or bare(i - 1) or bare(i + 1))]
    if not sources:
        return
    names = {i: list(rows[i][0]) for i in sources}
    for i in valued:
        labels = rows[i][0]
        if not labels[main]:
            src = names[min(sources, key=lambda j: (abs(j - i), j))]
            labels[:] = [x or y for x, y in zip(labels, src, strict=True)]
    for i in sources:
        if not rows[i][1]:
            rows[i][0][:] = [""] * len(rows[i][0])


def _main_column(body: list[tuple[int, list[str], list[str]]], n_lab: int, key_cols: list[int]) -> int:
    """The label column most rows of values print a label in (the rightmost of equals that is not a
    column of lists), key columns aside; columns left of it hold groups, those right of it more of
    the name or notes."""
    counts = Counter(k for _r, labels, values in body if any(values) for k in range(n_lab) if labels[k] and k not in key_cols)
    if not counts:  # no row of values prints a name of its own: the last label column not a key
        return next((k for k in reversed(range(n_lab)) if k not in key_cols), max(n_lab - 1, 0))
    best = max(counts.values())
    tied = [k for k, n in counts.items() if n == best]
    lists = Counter(k for _r, labels, values in body if any(values) for k in tied if _list(labels[k]))
    named = [k for k in tied if 2 * lists[k] <= counts[k]]  # a column of lists ("P1, P2, P3") describes
    return max(named or tied)


def _label_note_column(t: Table, k: int) -> bool:
    """Column `k` holds no header cell and its values are all in parentheses ("(1M)" set a word
    space after one row's label): a note on its row's label, not a column of scores; it joins the
    label."""
    mine = [c for c in t.cells if c.col == k]
    if any(c.row < t.header_rows for c in mine):
        return False
    vals = [c.text.strip() for c in mine if value_or_dash(c.text)]
    return bool(vals) and all(v.startswith("(") and v.endswith(")") for v in vals)


def _prose_column(body: list[tuple[int, list[str], list[str]]], k: int) -> bool:
    """Label column `k` holds lines of running text (two or more cells, each of four or more words,
    most of them lower case): a text column the table stands beside, not labels of its rows."""
    filled = [labels[k] for _r, labels, _values in body if labels[k]]

    def prose(text: str) -> bool:
        words = text.split()
        return len(words) >= 4 and 2 * sum(w[0].islower() for w in words) > len(words)

    return len(filled) >= 2 and all(prose(x) for x in filled)


def _join_comma_columns(body: list[tuple[int, list[str], list[str]]], n_lab: int) -> None:
    """A label column whose cells mostly end with a comma ("P1," "P4,") is a list set with gaps as
    wide as a column's: it goes on in the column right of it, so each row's two cells join into
    the left one (again while the joined cells end with a comma), the right one left empty."""
    k, nxt = 0, 1
    while nxt < n_lab:
        filled = [labels[k] for _r, labels, values in body if any(values) and labels[k]]
        commas = sum(x.endswith(",") for x in filled)
        if commas >= 2 and 2 * commas >= len(filled):
            for _r, labels, _values in body:
                labels[k], labels[nxt] = f"{labels[k]} {labels[nxt]}".strip(), ""
        else:
            k = nxt
        nxt += 1


_COMMA = re.compile(r"\s*,\s*")


def _list(text: str) -> bool:
    """Whether a label is a list of items ("P1 , P2 , P4", "A1 ∼ B4, B6"), not a name."""
    return len([part for part in _COMMA.split(text) if part.strip()]) >= 3


def _labels(cells: dict[tuple[int, int], Cell], r: int, n_lab: int) -> list[str]:
    return [_text(cells, r, k) for k in range(n_lab)]


def _text(cells: dict[tuple[int, int], Cell], r: int, k: int) -> str:
    return _flat(cells[(r, k)].text) if (r, k) in cells else ""


def _flat(text: str) -> str:
    return " ".join(text.split())


def _lines(text: str) -> str:
    """A cell's lines joined as one name (`_glue`)."""
    parts = [p for p in (x.strip() for x in text.split("\n")) if p]
    out = parts[0] if parts else ""
    for p in parts[1:]:
        out = _glue(out, p)
    return " ".join(out.split())


def _glue(a: str, b: str) -> str:
    """Two lines of one header: a line cut after a hyphen, or going on with one, joins without a space."""
    if not a or not b:
        return a or b
    return a + b if a.endswith("-") or b.startswith("-") else f"{a} {b}"


def _variant(name: str) -> bool:
    """A row label of two or more words opening with a lower-case word without digits ("w/ TIR",
    "whole-proof mode"): a phrase naming a change, not a model's name ("o3", "m-large")."""
    words = name.split()
    return len(words) >= 2 and words[0][0].islower() and not any(ch.isdigit() for ch in words[0])


def _sizes_over_scores(rest: list[str], cells: dict[tuple[int, int], Cell], r: int, n_lab: int, n_cols: int) -> bool:
    """The numbers of `rest` (a row's cells over the value columns) are two or more sizes, all
    ("7B 13B 145B (Half)"), and the next row over those columns holds numbers, none a size."""
    numbers = [x.strip() for x in rest if _number(x)]
    if len(numbers) < 2 or not all(SIZE.match(x) for x in numbers):
        return False
    below = [cells[(r + 1, k)].text.strip() for k in range(n_lab, n_cols) if (r + 1, k) in cells]
    return any(_number(x) for x in below) and not any(SIZE.match(x) for x in below)


@lru_cache(maxsize=65536)
def _number(text: str) -> bool:
    """A number (cached, like `value_or_dash`: `panels` and `grid_from_table` ask it of the same cells)."""
    t = text.strip()
    return is_value(t) and not DASH.match(t)


def carry_down(labels: list[str], carried: list[str]) -> None:
    """Fill a row's empty label cells from the rows above (in place): a label printed once for
    several rows holds until a label at its level or above changes; the last (innermost) label
    column is never carried. `carried` holds the labels in force and is updated."""
    n_lab = len(labels)
    for k in range(n_lab):
        if labels[k]:
            carried[k] = labels[k]
            carried[k + 1 :] = [""] * (n_lab - k - 1)
        elif k < n_lab - 1:
            labels[k] = carried[k]
