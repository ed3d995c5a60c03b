"""Which result cells are verified: independent evidence agrees on them, else they need review.

A cell read from a PDF table is *verified* only when all of these hold:

1. **two readings agree**: the caption-anchored grid (`ingest.reading.table_grid`) and the
   structure stage (`ingest.reading.structure_regions.page_tables`: its own regions, rows, columns
   and spans, found without captions or catalogue) both give a cell with the same model, benchmark,
   metric, setting and value. The second reading is interpreted by the same meaning rules, so the
   agreement tests the geometry — which lines form the table, which header stands over which value,
   which label names which row — where nearly every wrong cell on unseen reports comes from;
2. **the name is unambiguous**: the model and the benchmark are each read once for their row or
   column (no two different cells of the table share model, benchmark, metric and setting);
3. **the column agrees with itself**: the values of the cell's benchmark line (same benchmark,
   metric, setting) share one format (decimals, percent sign) and scale; a value printed otherwise
   (a packed "a / b", a glued "+3.3", a rank among scores) is left for review.

No threshold here is learned from labels: every test is an equality or a shared format, so the
leave-one-document-out figure that `eval/results_eval.py` prints is the pooled one.
Cells of Markdown and HTML tables are read from explicit structure (pipes, tags) and need no
second reading.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from ingest.analysis.benchmarks import norm_name
from ingest.analysis.result_meaning import GLUED_DELTA, REPORT_MODEL, clean
from ingest.common.records import ResultCell
from ingest.reading.structure import Cell as StructCell
from ingest.reading.structure import Table as StructTable
from ingest.reading.structure_grid import carry_down
from ingest.reading.table_text import DASH, is_value

#: The review reasons, short and few, so a table's list of reasons stays readable.
NO_SECOND_READING = "no second reading of the page found this table; review"
READINGS_DIFFER = "the two readings of the page differ on this cell's row, column or value; review"
AMBIGUOUS = "two cells of the table share this model and header; review"
ODD_FORMAT = "value printed unlike the rest of its benchmark's values; review"

_WORD = re.compile(r"[^\W_]+")
_FORMAT = re.compile(r"^[-+\u2212]?\d+(?:,\d{3})*(?:\.(\d+))?(%?)$")


def _line_key(c: ResultCell) -> tuple[str, str, str]:
    return (norm_name(c.benchmark), norm_name(c.metric), norm_name(c.setting))


def value_format(value: str) -> tuple[int, bool, int] | None:
    """(decimals, percent, integer digits) of a plain number; None for anything else ("a / b",
    "91.8+3.3", "70.8 ± 0.9"), which is never of a column's common format."""
    v = "".join(value.split())
    m = _FORMAT.match(v)
    if not m:
        return None
    whole = v.lstrip("+-\u2212").split(".")[0].replace(",", "").rstrip("%")
    return (len(m.group(1) or ""), bool(m.group(2)), len(whole.lstrip("0")) or 1)


def shared_heads(cells: list[ResultCell]) -> set[int]:
    """Indices of cells whose model and header line another cell of the table also has: which value
    belongs to that name is ambiguous, whichever reading found it."""
    heads = Counter((norm_name(c.model), *_line_key(c)) for c in cells)
    return {i for i, c in enumerate(cells) if heads[(norm_name(c.model), *_line_key(c))] > 1}


def _odd_formats(cells: list[ResultCell]) -> set[int]:
    """Indices of cells whose value is not of the common format of their benchmark line: decimals and
    percent sign as most of the line prints them, integer part within one digit of the line's
    (one scale). A line of fewer than three values has no common format to test against."""
    by_line: dict[tuple[str, str, str], list[int]] = {}
    for i, c in enumerate(cells):
        by_line.setdefault(_line_key(c), []).append(i)
    odd: set[int] = set()
    for idx in by_line.values():
        fmts = {i: value_format(cells[i].value) for i in idx}
        if len(idx) < 3:
            odd |= {i for i, f in fmts.items() if f is None}
            continue
        common = Counter((f[0], f[1]) for f in fmts.values() if f is not None).most_common(1)
        digits = sorted(f[2] for f in fmts.values() if f is not None)
        mid = digits[len(digits) // 2] if digits else 0
        for i, f in fmts.items():
            if f is None or not common or (f[0], f[1]) != common[0][0] or abs(f[2] - mid) > 1:
                odd.add(i)
    return odd


@dataclass(frozen=True)
class Place:
    """Where a value stands in the structure reading: the label cells of its row (a label printed
    once for several rows carried down), the header cells over its column top to bottom, and which
    of those must appear in the cell's names (row labels, spanning headers, the lowest header)."""

    row: tuple[str, ...]
    col: tuple[str, ...]
    required: tuple[str, ...]  # of the column's headers, those a benchmark name must use
    context: tuple[str, ...]  # group headings above the row, the corner cells: may name, need not
    #: The column's headers form a whole tree: one stands in the top header row, and each covers no
    #: more columns than the one above it.
    tree: bool = True


def _is_number(text: str) -> bool:
    return is_value(text) and not DASH.match(text.strip())


def _body_start(t: StructTable, cells: dict[tuple[int, int], StructCell], n_lab: int) -> int:
    """The first row that is a row of results: a label beside it and at least half of its other
    cells numbers. Rows above it are headers, however many lines a header takes and whatever
    attribute rows (parameters, architecture) stand under it."""
    for r in range(t.n_rows):
        label = any((r, k) in cells for k in range(n_lab))
        rest = [cells[(r, k)].text for k in range(n_lab, t.n_cols) if (r, k) in cells]
        if label and rest and 2 * sum(_is_number(x) for x in rest) >= len(rest):
            return r
    return t.header_rows


def places(t: StructTable) -> dict[str, list[Place]]:
    """Every value cell of a structure-stage table, by its score (`_score_key`)."""
    cells = {(c.row, c.col): c for c in t.cells}
    value_cols = sorted({c.col for c in t.cells if c.row >= t.header_rows and _is_number(c.text)})
    if not value_cols:
        return {}
    n_lab = value_cols[0]
    head = _body_start(t, cells, n_lab)
    per_row = Counter(c.row for c in t.cells)
    first_groups: list[str] = []
    while head > 1 and per_row[head - 1] == 1 and per_row[head - 2] >= 2:
        # a row of one cell right over the rows, under the column headers: a group heading
        head -= 1
        first_groups += [c.text for c in t.cells if c.row == head]
    over: dict[int, list[tuple[str, int]]] = {}
    corner: list[str] = []
    top = head  # the first header row with a cell over the value columns
    reach: set[int] = set()  # value columns with a header cell in that row
    for c in sorted(t.cells, key=lambda c: (c.row, c.col)):
        if c.row >= head:
            continue
        if c.col + c.col_span <= n_lab:
            corner.append(c.text)
            continue
        if c.row < top:
            top, reach = c.row, set()
        for k in range(max(c.col, n_lab), c.col + c.col_span):
            over.setdefault(k, []).append((c.text, c.col_span))
            if c.row == top:
                reach.add(k)
    out: dict[str, list[Place]] = {}
    carried = [""] * n_lab
    groups: list[str] = list(first_groups)
    rows_since = 0  # rows of values under the headers in effect
    for r in range(head, t.n_rows):
        labels = [cells[(r, k)].text if (r, k) in cells else "" for k in range(n_lab)]
        values = [(k, cells[(r, k)].text) for k in range(n_lab, t.n_cols) if (r, k) in cells]
        if not any(_is_number(v) for _, v in values):
            if rows_since >= 2 and not any(labels) and len(values) >= 3 and not any(DASH.match(v.strip()) for _, v in values):
                # a header row after rows of values: the next panel's headers
                over = {k: [(cells[(r, k)].text, cells[(r, k)].col_span)] for k, _ in values}
                reach, rows_since, groups = set(over), 0, []
                continue
            groups += [x for x in labels if x] + [v for _, v in values]
            continue
        rows_since += 1
        carry_down(labels, carried)
        row = tuple(x for x in labels if x)
        for k, v in values:
            if _is_number(v):
                col = over.get(k, [])
                need = [x for x, span in col if span > 1] + [x for x, _ in col[-1:]]
                # a column whose headers start below the top header row may have lost its parent
                tree = k in reach and all(a >= b for (_, a), (_, b) in itertools.pairwise(col))
                place = Place(row, tuple(x for x, _ in col), tuple(need), (*groups, *corner), tree)
                out.setdefault(_score_key(v), []).append(place)
    return out


def _score_key(value: str) -> str:
    """A printed value without spaces and without a printed change after it ("91.8+3.3" -> "91.8"):
    the first reading keeps the change as a note."""
    v = clean(value)
    m = GLUED_DELTA.match(v) if len(v) <= 80 else None
    return "".join((m.group("v") if m else v).split())


def _tokens(*texts: str) -> set[str]:
    out: set[str] = set()
    for t in texts:
        out |= _words(t)
    return out


@lru_cache(maxsize=65536)
def _words(text: str) -> frozenset[str]:
    """The words of a name, cached: a table's labels and headers are asked about for every cell."""
    return frozenset(_WORD.findall(clean(text).casefold()))


@lru_cache(maxsize=16384)
def _runs(parts: tuple[str, ...]) -> frozenset[str]:
    """The normalised names of every run of consecutive cells (a header printed on several lines)."""
    return frozenset(norm_name(" ".join(parts[i:j])) for i in range(len(parts)) for j in range(i + 1, min(len(parts), i + 4) + 1))


@lru_cache(maxsize=16384)
def _names(parts: tuple[str, ...]) -> frozenset[str]:
    """The normalised name of each cell (cached: a row's labels are asked about for each of its values)."""
    return frozenset(norm_name(x) for x in parts)


def _variant_phrase(name: str) -> bool:
    """A row label opening with a lower-case word without digits ("w/ tool use", "whole-proof mode")
    is a variant set under the row above it, not a model name of its own: which row is its parent
    takes the indentation, which neither reading keeps, so such a cell is left for review."""
    first = name.split()[0] if name.split() else ""
    return bool(first) and first[0].islower() and not any(ch.isdigit() for ch in first)


def _agrees(c: ResultCell, p: Place, caption: str) -> bool:
    """Whether the structure reading's place of a value names this cell the same way: the model is
    one label or header cell (or a run of header lines); the benchmark's words are printed beside,
    over or above the value (or in the caption); and the row's labels, the spanning headers over
    the column and its lowest header are all used in the cell's names (no parent header, sub-header
    or label column lost, nothing glued in from elsewhere)."""
    if not p.tree:
        return False
    if _variant_phrase(c.model):
        return False
    model = norm_name(c.model)
    in_row = bool(model) and model in _names(p.row)
    if c.model != REPORT_MODEL and not in_row and not (model and model in _runs(p.col)):
        return False  # a model is one label (labels of two columns are two things) or a header's lines
    named = _names((*p.row, *p.col, *p.context))
    if c.group and not all(norm_name(g) in named for g in c.group.split(" / ")):
        return False  # a group is a label or heading as printed, not text gathered from several
    printed = _tokens(*p.row, *p.col, *p.context)
    if not _tokens(c.benchmark, c.metric, c.setting) <= printed | _tokens(caption):
        return False
    if not _tokens(c.benchmark) <= _tokens(*p.row, *p.col):
        return False  # named by the caption, the corner cell or a group heading: no header or label confirms it
    # Every label of the row must be used; of the column's headers, those naming the benchmark (over
    # a model column: the model's own lines only — a category over model columns or an attribute
    # row under the names is no part of a result's name).
    required = (*p.row, *p.required) if in_row or c.model == REPORT_MODEL else p.row
    return _tokens(*required) <= _tokens(c.model, c.benchmark, c.metric, c.setting, c.group, c.note)


def verify(first: list[ResultCell], second: StructTable | None, caption: str = "") -> list[ResultCell]:
    """The cells of the first reading, each with `review` set to why it needs review ("" when verified).

    `second`: the structure stage's reading of the same table; None when it found none there."""
    if second is None:
        return [replace(c, review=NO_SECOND_READING) for c in first]
    where = places(second)
    shared = shared_heads(first)
    odd = _odd_formats(first)
    out = []
    for i, c in enumerate(first):
        if not any(_agrees(c, p, caption) for p in where.get(_score_key(c.value), ())):
            why = READINGS_DIFFER
        elif i in shared:
            why = AMBIGUOUS
        elif i in odd:
            why = ODD_FORMAT
        else:
            why = ""
        out.append(c if c.review == why else replace(c, review=why))
    return out
