"""Which cells of a structure-read table are verified, from the page's words alone (no second grid).

The structure stage reads a table's rows, columns and spans; this checks each of its result cells
against the raw word boxes of the table's region, with no segmentation of its own beyond lines
(words on one baseline) and phrases (words closer than half an em). A cell is verified only when:

1. **its value stands on its row label's line**: exactly one phrase of the region prints the value,
   and the text phrases left of it on its baseline (the row's labels) are all used in the cell's
   names — nothing from another column or row is printed between them unused;
2. **its value stands under its column path**: walking up from the value past rows of values, the
   first block of text lines has, on each line, at most one phrase over the value's x-extent (it
   is under no other header at that level), and every such header is used in the cell's names;
3. **the names come from there**: the model is one row label or a run of header lines, the
   benchmark's words are printed in the row labels or headers over the value, and the metric,
   setting and group are printed there or in the caption;
4. **no other cell claims the value**, no two cells share model and header (`AMBIGUOUS`: which
   value belongs to that name is ambiguous), and the value is of its column's one format and scale
   (`ODD_FORMAT`: a packed "a / b", a glued "+3.3", a rank among scores is left for review).

Every test is an equality, a containment or a shared format: nothing is fitted from labels, so the
leave-one-document-out figure `eval/results_eval.py` prints is the pooled one. Cells of Markdown
and HTML tables are read from explicit structure (pipes, tags) and are not checked here.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from ingest.analysis.benchmarks import norm_name
from ingest.analysis.own_model import REPORT_MODEL
from ingest.analysis.result_meaning import GLUED_DELTA, clean
from ingest.analysis.word_phrases import Phrase, cut, phrases, splits, tokens, words_of
from ingest.common.records import ResultCell
from ingest.reading.table_text import Word, once

#: The review reasons, short and few, so a table's list of reasons stays readable.
NOT_CHECKED = "not checked on the page's words; review"
AMBIGUOUS = "two cells of the table share this model and header; review"
ODD_FORMAT = "value printed unlike the rest of its benchmark's values; review"
NOT_ON_PAGE = "the value is not printed once in the table's region; review"
NOT_IN_PLACE = "the page's words do not put this value under its headers and beside its row label; review"



_FORMAT = re.compile(r"^[-+\u2212]?\d+(?:,\d{3})*(?:\.(\d+))?(%?)$")


def _line_key(c: ResultCell) -> tuple[str, str, str]:
    return (norm_name(c.benchmark), norm_name(c.metric), norm_name(c.setting))


@lru_cache(maxsize=65536)
def value_format(value: str) -> tuple[int, bool, int] | None:
    """(decimals, percent, integer digits) of a plain number; None for anything else ("a / b",
    "91.8+3.3", "70.8 ± 0.9"), which is never of a column's common format. Cached: the same
    printed values recur in a report's tables."""
    v = "".join(value.split())
    m = _FORMAT.match(v)
    if not m:
        return None
    whole = v.lstrip("+-\u2212").split(".")[0].replace(",", "").rstrip("%")
    return (len(m.group(1) or ""), bool(m.group(2)), len(whole.lstrip("0")) or 1)


def shared_heads(cells: list[ResultCell], lines: list[tuple[str, str, str]] | None = None) -> set[int]:
    """Indices of cells whose model and header line another cell of the table also has: which value
    belongs to that name is ambiguous, whichever reading found it. `lines`: each cell's
    `_line_key` when the caller has them."""
    if lines is None:
        lines = [_line_key(c) for c in cells]
    keys = [(norm_name(c.model), *k) for c, k in zip(cells, lines, strict=True)]
    heads = Counter(keys)
    return {i for i, k in enumerate(keys) if heads[k] > 1}


def _odd_formats(cells: list[ResultCell], lines: list[tuple[str, str, str]] | None = None) -> set[int]:
    """Indices of cells whose value is not of the common format of their benchmark line: decimals and
    percent sign as most of the line prints them, integer part within one digit of the line's
    (one scale). A line of fewer than three values has no common format to test against.
    `lines`: each cell's `_line_key` when the caller has them."""
    by_line: dict[tuple[str, str, str], list[int]] = {}
    for i, key in enumerate(lines if lines is not None else map(_line_key, cells)):
        by_line.setdefault(key, []).append(i)
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


@lru_cache(maxsize=65536)
def _score_key(value: str) -> str:
    """A printed value without spaces and without a printed change after it ("91.8+3.3" -> "91.8"):
    the first reading keeps the change as a note. Cached: each phrase and cell asks it."""
    v = clean(value)
    m = GLUED_DELTA.match(v) if len(v) <= 80 else None
    return "".join((m.group("v") if m else v).split())


class Columns:
    """The phrases of each line of a region indexed by x, and the region's `Column`s.

    Values whose x-extents start and end between the same edges of the region's phrases and words
    meet the same phrases and words on every line, so they share one `Column`: each line is looked
    at once per printed column, not once per value under it (which was quadratic in a column's
    lines). A line's phrases are set left to right without overlapping; a line where they overlap
    is scanned instead of bisected."""

    def __init__(self, lines: list[list[Phrase]]) -> None:
        self.lines = lines
        self.x0s = [[p.x0 for p in ln] for ln in lines]
        self.x1s = [[p.x1 for p in ln] for ln in lines]
        self.sorted = [all(a <= b for a, b in itertools.pairwise(x1)) for x1 in self.x1s]
        self.texts = [[(p.x0, p.x1) for p in ln if not p.value] for ln in lines]  # per line, its text phrases' x0, x1
        parts = [q for ln in lines for p in ln for q in (p, *p.words)]
        self._lefts = sorted(q.x0 for q in parts)
        self._rights = sorted(q.x1 for q in parts)
        self._columns: dict[tuple[int, int, bool], Column] = {}
        self._text_x1 = [sorted(b for _a, b in t) for t in self.texts]
        self._rows: dict[tuple[int, int], Row] = {}  # see `row`
        self._values: dict[int, list[Phrase]] = {}  # line -> its value phrases, when first asked
        self._split: dict[tuple[int, int], bool] = {}  # (id of a header phrase, value line) -> `splits`

    def over(self, k: int, v: Phrase) -> list[Phrase]:
        """The phrases of line k that overlap `v` horizontally, left to right."""
        ln = self.lines[k]
        if not self.sorted[k]:
            return [p for p in ln if p.x0 < v.x1 and p.x1 > v.x0]
        return ln[bisect.bisect_right(self.x1s[k], v.x0) : bisect.bisect_left(self.x0s[k], v.x1)]

    def column(self, v: Phrase) -> Column:
        """The `Column` of value `v`: shared by every value between the same edges."""
        key = (bisect.bisect_right(self._rights, v.x0), bisect.bisect_left(self._lefts, v.x1), v.x1 > v.x0)
        col = self._columns.get(key)
        if col is None:
            col = self._columns[key] = Column(self, v)
        return col

    def row(self, v: Phrase) -> Row:
        """The text phrases of `v`'s line that end left of it (its row's labels), left to right,
        with their words and `_norm`ed texts: worked out once for every value after the same labels."""
        key = (v.line, bisect.bisect_right(self._text_x1[v.line], v.x0))
        row = self._rows.get(key)
        if row is None:
            labels = tuple(p for p in self.lines[v.line] if p.x1 <= v.x0 and not p.value)
            words = frozenset(tokens(*(p.text for p in labels)))
            row = self._rows[key] = Row(labels, words, [_norm(p.text) for p in labels], {})
        return row

    def splits(self, p: Phrase, line: int) -> bool:
        """`splits(p, values of line)`, found once per line: every value of a line asks it of the
        same header phrases (`p` is one of `self.lines`' phrases, alive as long as `self`)."""
        key = (id(p), line)
        split = self._split.get(key)
        if split is None:
            values = self._values.get(line)
            if values is None:
                values = self._values[line] = [q for q in self.lines[line] if q.value]
            split = self._split[key] = splits(p, values)
        return split


class Row(NamedTuple):
    """A value's row labels (`Columns.row`): the phrases, their words, their `_norm`ed texts."""

    labels: tuple[Phrase, ...]
    words: frozenset[str]
    norms: list[str]
    runs: dict[str, bool]  # a model's name (`norm_name`d) -> whether a run of the labels reads it


class Column:
    """What each line of a region prints over the x-extent of one column's values (`Columns.column`),
    worked out once for them all; each value asks about the lines above its own."""

    def __init__(self, cols: Columns, v: Phrase) -> None:
        """`v`: one of the column's values; any other gives the same phrases and cuts."""
        self._cols, self._v = cols, v
        self._raw = [cols.over(k, v) for k in range(len(cols.lines))]  # each line's phrases over the column
        self._multi = [any(len(p.words) > 1 for p in over) for over in self._raw]  # a phrase `line` may cut
        # the lines with a text phrase over the column (among each line's phrases over it)
        self._texts = [k for k, over in enumerate(self._raw) if any(not p.value for p in over)]
        self._whole_k = [k for k, over in enumerate(self._raw) if len(over) == 1]  # lines of one phrase over it
        self._whole = [self._raw[k][0] for k in self._whole_k]  # and that phrase, uncut
        cuttable = [(k, p) for k, over in enumerate(self._raw) for p in over if len(p.words) > 1]
        self._cuttable_k = [k for k, _p in cuttable]  # the phrases of two or more words over it, by line
        self._cuttable = [p for _k, p in cuttable]
        self._uncut: dict[int, bool] = {}  # value line -> `uncut`
        self._cuts: dict[int, Phrase | None] = {}  # id of a phrase -> `cut` to the column
        self._words: tuple[list[frozenset[str]], list[frozenset[str]]] | None = None  # see `words`
        self._norms: list[str] | None = None  # see `norms`
        self._heads: dict[int, tuple[Phrase, ...] | None] = {}  # text lines above -> `heads`, when `uncut`
        self._runs: dict[str, list[tuple[int, list[int]]]] = {}  # a model's name -> `_runs_reading` the column's norms
        self._head_words: dict[int, frozenset[str]] = {}  # the same -> `head_words`

    def line(self, k: int, at: int) -> list[Phrase]:
        """The phrases of line k over the column as a value on line `at` sees them: a phrase of two
        or more words that `Columns.splits` over line `at` is cut to its words over the column (and
        left out when none is). The caller does not change the list."""
        over = self._raw[k]
        if not self._multi[k]:
            return over
        out = []
        for p in over:
            if len(p.words) > 1 and self._cols.splits(p, at):
                if id(p) not in self._cuts:
                    self._cuts[id(p)] = cut(p, self._v)
                q = self._cuts[id(p)]
                if q is not None:
                    out.append(q)
            else:
                out.append(p)
        return out

    def uncut(self, at: int) -> bool:
        """Whether no phrase over the column above line `at` is cut for a value on that line (the
        usual case): then every line above it shows that value its phrases as they are, and what
        the value sees above it is a prefix of the column's own lists."""
        uncut = self._uncut.get(at)
        if uncut is None:
            n = bisect.bisect_left(self._cuttable_k, at)
            uncut = self._uncut[at] = not any(self._cols.splits(p, at) for p in self._cuttable[:n])
        return uncut

    def above(self, at: int) -> tuple[Phrase, ...]:
        """Every phrase over the column above line `at`, top to bottom (lines with two phrases over
        it left out)."""
        if self.uncut(at):
            return tuple(self._whole[: bisect.bisect_left(self._whole_k, at)])
        return tuple(over[0] for k in range(at) if len(over := self.line(k, at)) == 1)

    def words(self, at: int, above: tuple[Phrase, ...]) -> tuple[frozenset[str], frozenset[str]]:
        """The words of `above` (`self.above(at)`) and those of its text phrases: when `uncut`,
        a prefix of the column's running unions."""
        if not self.uncut(at):
            return frozenset(tokens(*(p.text for p in above))), frozenset(tokens(*(p.text for p in above if not p.value)))
        if self._words is None:
            none: frozenset[str] = frozenset()
            every, texts = [none], [none]
            for p in self._whole:
                w = words_of(p.text)
                every.append(every[-1] | w)
                texts.append(texts[-1] if p.value else texts[-1] | w)
            self._words = (every, texts)
        i = bisect.bisect_left(self._whole_k, at)
        return self._words[0][i], self._words[1][i]

    def norms(self, at: int, above: tuple[Phrase, ...]) -> list[str]:
        """The `_norm`ed texts of `above` (`self.above(at)`): when `uncut`, a slice of the column's."""
        if not self.uncut(at):
            return [_norm(p.text) for p in above]
        if self._norms is None:
            self._norms = [_norm(p.text) for p in self._whole]
        return self._norms[: bisect.bisect_left(self._whole_k, at)]

    def run_of(self, at: int, name: str, norms: list[str]) -> tuple[int, int] | None:
        """`_run_of(norms, name)` for a value on line `at` (`norms`: `self.norms(at, ...)`). When
        `uncut`, `norms` is a prefix of the column's own list, so the runs reading `name` there are
        found once per column and name (not once per value, each scanning every line above it)."""
        if not name or not self.uncut(at):
            return _run_of(norms, name)
        runs = self._runs.get(name)
        if runs is None:
            if self._norms is None:
                self._norms = [_norm(p.text) for p in self._whole]
            runs = self._runs[name] = _runs_reading(self._norms, name)
        n = len(norms)
        for first, ends in reversed(runs):  # the last run first, as `_run_of` looks
            if first < n:
                limit = min(n, first + 4)
                for end in ends:
                    if end <= limit:
                        return first, end
        return None

    def heads(self, at: int) -> tuple[Phrase, ...] | None:
        """The header phrases over a value on line `at`: walking up from it past the rows of values
        above it (and the group headings among them: a line of one phrase), the first block of text
        lines with a phrase over it, top to bottom; None when a line of that block has two phrases
        over it. Lines with no text phrase over the column, met before the block, hold values or
        nothing there: they are passed without a look. When `uncut`, the walk sees the column's own
        phrases on every line above, so the answer depends only on the text lines above: the values
        between the same text lines share it."""
        n = bisect.bisect_left(self._texts, at)
        if not self.uncut(at):
            return self._heads_from(n, at)
        if n not in self._heads:
            self._heads[n] = self._heads_from(n, at)
        return self._heads[n]

    def head_words(self, at: int) -> frozenset[str]:
        """The words of `heads(at)`; shared like them."""
        if not self.uncut(at):
            return frozenset(tokens(*(p.text for p in self.heads(at) or ())))
        n = bisect.bisect_left(self._texts, at)
        words = self._head_words.get(n)
        if words is None:
            words = self._head_words[n] = frozenset(tokens(*(p.text for p in self.heads(at) or ())))
        return words

    def _heads_from(self, n: int, at: int) -> tuple[Phrase, ...] | None:
        """`heads` of a value on line `at`, below the first `n` of the column's text lines."""
        texts = self._texts
        block: list[list[Phrase]] = []
        start = -1
        for i in range(n - 1, -1, -1):
            over = self.line(texts[i], at)
            if not over or all(p.value for p in over) or (len(over) == 1 and over[0].alone):
                continue
            if len(over) > 1:
                return None
            block.append(over)
            start = texts[i]
            break
        for k in range(start - 1, -1, -1):
            over = self.line(k, at)
            if not over:
                continue
            if all(p.value for p in over):
                break
            if len(over) > 1:
                return None
            block.append(over)
        return tuple(p for ln in reversed(block) for p in ln)


@lru_cache(maxsize=65536)
def _norm(text: str) -> str:
    return norm_name(text)


def _run_of(norms: list[str], name: str) -> tuple[int, int] | None:
    """Where a run of up to four consecutive phrases (`norms`: their `_norm`ed texts) reads `name`
    (normalised): (first, end), the last such run (the one nearest the value); None when none does.
    A run's normalised text is its phrases' normalised texts joined (`norm_name` keeps no space),
    so no run is built to compare."""
    if not name:
        return None
    for i in range(len(norms) - 1, -1, -1):
        if not name.startswith(norms[i]):
            continue
        for j in range(min(len(norms), i + 4), i, -1):
            if "".join(norms[i:j]) == name:
                return i, j
    return None


def _runs_reading(norms: list[str], name: str) -> list[tuple[int, list[int]]]:
    """Every start of `norms` (in order) with the ends (largest first) of the runs of up to four
    phrases from it that read `name` (not empty): what `_run_of` finds on any prefix of `norms`
    (the largest start below the prefix's length, its largest end within the prefix)."""
    out = []
    for i, norm in enumerate(norms):
        if name.startswith(norm):
            ends = [j for j in range(min(len(norms), i + 4), i, -1) if "".join(norms[i:j]) == name]
            if ends:
                out.append((i, ends))
    return out


class LeftWords:
    """The words of every phrase of a region that ends left of a given x (the label area of a value),
    worked out once per distinct set of such phrases: values of one column ask the same."""

    def __init__(self, lines: list[list[Phrase]]) -> None:
        ends = sorted((p.x1, p.text) for ln in lines for p in ln)
        self._x1 = [x for x, _t in ends]
        self._texts = [t for _x, t in ends]
        self._done: dict[int, frozenset[str]] = {}

    def of(self, x: float) -> frozenset[str]:
        k = bisect.bisect_right(self._x1, x)
        if k not in self._done:
            self._done[k] = frozenset(tokens(*self._texts[:k]))
        return self._done[k]


class Above:
    """The text words of a region's lines, each with the first line that prints it: a word is
    printed above line k when its first line is before k (one pass over the words, where a set
    of the words above each line grew with every line)."""

    def __init__(self, lines: list[list[Phrase]]) -> None:
        self.first: dict[str, int] = {}
        for k, ln in enumerate(lines):
            for p in ln:
                if not p.value:
                    for t in words_of(p.text):
                        self.first.setdefault(t, k)


class Around:
    """What the page prints around one value phrase, worked out once for every cell that may be it;
    the parts only some cells ask about (a model read from the column's lines, the label area's
    words) are worked out when first asked."""

    def __init__(self, v: Phrase, cols: Columns, left: LeftWords, caption: str, above: Above) -> None:
        """`cols`, `left` and `above`: the region's `Columns`, `LeftWords` and `Above`, kept for all
        its values."""
        self._v, self._col, self._left, self._caption = v, cols.column(v), left, caption
        self.row, self.row_t, self.row_n, self._runs = cols.row(v)  # the row's labels, their words and `_norm`ed texts
        self._above = above

    def in_row(self, model: str) -> bool:
        """Whether a run of the row's labels reads `model` (`_run_of`), found once per row and model."""
        found = self._runs.get(model)
        if found is None:
            found = self._runs[model] = _run_of(self.row_n, model) is not None
        return found

    @once
    def heads(self) -> tuple[Phrase, ...] | None:
        """`Column.heads` of the value: the header phrases over it, top to bottom; None when ambiguous."""
        return self._col.heads(self._v.line)

    @once
    def head_t(self) -> frozenset[str]:
        """The words of `heads`."""
        return self._col.head_words(self._v.line)

    @once
    def column(self) -> tuple[Phrase, ...]:
        """`Column.above` the value: every phrase over it above it, top to bottom."""
        return self._col.above(self._v.line)

    @once
    def column_n(self) -> list[str]:
        """The `_norm`ed texts of `column`."""
        return self._col.norms(self._v.line, self.column)

    @once
    def _context(self) -> tuple[frozenset[str], ...]:
        """The label area's words, the column's, the caption's."""
        return self._left.of(self._v.x0), self._col.words(self._v.line, self.column)[0], words_of(self._caption)

    def in_context(self, words: set[str] | frozenset[str], above: bool = False) -> bool:
        """Whether every one of `words` is in `_context` (without building their union), or, with
        `above`, a text word of a line above the value's."""
        left, column, caption = self._context
        if not above:
            return all(t in left or t in column or t in caption for t in words)
        first, line = self._above.first, self._v.line
        return all(t in left or t in column or t in caption or first.get(t, line) < line for t in words)

    def run_of(self, model: str) -> tuple[int, int] | None:
        """`_run_of(self.column_n, model)`: where the lines of one header over the value read `model`."""
        return self._col.run_of(self._v.line, model, self.column_n)

    @once
    def column_t(self) -> frozenset[str]:
        """The words of the column's text phrases."""
        return self._col.words(self._v.line, self.column)[1]


def _place_agrees(c: ResultCell, a: Around, names: set[str], model: str, described: frozenset[str] = frozenset()) -> bool:
    """Whether the words around a value (`a`) name it as `c` names it (tests 1 to 3 of the module).

    `names`: the words of the cell's names, `model`: its model `norm_name`d (the
    same for each value that may be the cell's); `described`: the words of the table's attribute
    cells (parameters, architecture), which may stand under a model's name over its column without
    being part of it."""
    row_t = a.row_t
    if not a.row or not row_t <= names:
        return False  # no row label, or one left out of its names: a lost label column or a glued one
    if not a.heads:
        return False
    head_t = a.head_t
    in_row = a.in_row(model)  # a label, or labels side by side ("Llama3-8B" "[20]")
    run = None if in_row else a.run_of(model)  # the lines of one header over the value
    if c.model != REPORT_MODEL and not in_row and run is None:
        return False  # a model is the row's labels or the lines of one header
    if run is not None:
        # over a model's column: a category above its name is no part of it; under it, only the
        # table's attribute values (size, architecture) may go unused
        below = list(itertools.takewhile(lambda p: not p.value, a.column[run[1] :]))
        if not tokens(*(p.text for p in below)) <= names | described:
            return False  # a header line under the name, down to the first value, not in its names
    elif not head_t <= names:
        return False  # a header over the value left out of its names: a lost parent or sub-header
    bench = words_of(c.benchmark) - row_t - head_t
    if bench and not bench <= a.column_t:
        return False  # the benchmark printed neither on the row nor over the value
    # metric, setting and group: printed on the row, over the value, or in the label area (a corner
    # header, a group heading, a label printed once for several rows), or the caption
    rest = (words_of(c.metric) | words_of(c.setting)) - row_t - head_t
    if rest and not a.in_context(rest):
        return False
    # a group may also be a heading or spanning header above the row not over this value's column
    group = words_of(c.group) - row_t - head_t
    return not group or a.in_context(group, above=True)


def verify_on_words(
    cells: list[ResultCell],
    words: list[Word],
    box: tuple[float, ...],
    caption: str = "",
    attributes: list[ResultCell] | None = None,
) -> list[ResultCell]:
    """The cells of a structure-read table, each with `review` set to why it needs review ("" when
    the page's words in `box` (x0, top, x1, bottom) confirm it). `attributes`: the table's
    attribute cells (`result_meaning.Table.attributes`)."""
    described = frozenset(tokens(*(a.value for a in attributes or ()), *(a.benchmark for a in attributes or ())))
    x0, top, x1, bottom = box[:4]
    # a word's centre within 2 pt of the box, both sides doubled (exact: no division per word)
    lo_x, hi_x, lo_y, hi_y = 2 * (x0 - 2), 2 * (x1 + 2), 2 * (top - 2), 2 * (bottom + 2)
    inside = [w for w in words if lo_x <= w.x0 + w.x1 <= hi_x and lo_y <= w.top + w.bottom <= hi_y]
    lines = phrases(inside) if inside else []
    by_value: dict[str, list[Phrase]] = {}
    for ln in lines:
        for p in ln:
            if p.value:
                by_value.setdefault(_score_key(p.text), []).append(p)
    above = Above(lines)
    seen: dict[tuple[int, float], Around] = {}
    left, cols = LeftWords(lines), Columns(lines)

    def at(v: Phrase) -> Around:
        key = (v.line, v.x0)
        if key not in seen:
            seen[key] = Around(v, cols, left, caption, above)
        return seen[key]

    found: list[Phrase | None] = []
    named: dict[tuple[str, ...], set[str]] = {}  # a cell's names -> their words (cells share them by row and column)
    for c in cells:
        hits = []
        if maybe := by_value.get(_score_key(c.value)):
            key = (c.model, c.benchmark, c.metric, c.setting, c.group, c.note)
            names = named.get(key)
            if names is None:
                names = named[key] = tokens(*key)
            model = _norm(c.model)
            hits = [v for v in maybe if _place_agrees(c, at(v), names, model, described)]
        found.append(hits[0] if len(hits) == 1 else None)
    claims: dict[tuple[int, float], int] = {}
    for v in found:
        if v is not None:
            claims[(v.line, v.x0)] = claims.get((v.line, v.x0), 0) + 1
    keys = [_line_key(c) for c in cells]
    shared = shared_heads(cells, keys)
    odd = _odd_formats(cells, keys)
    out = []
    for i, (c, v) in enumerate(zip(cells, found, strict=True)):
        if v is None:
            why = NOT_IN_PLACE if by_value.get(_score_key(c.value)) else NOT_ON_PAGE
        elif claims[(v.line, v.x0)] > 1 or i in shared:
            why = AMBIGUOUS
        elif i in odd:
            why = ODD_FORMAT
        else:
            why = ""
        # (built directly: `dataclasses.replace` inspects the fields for every cell)
        out.append(c if c.review == why else ResultCell(model=c.model, benchmark=c.benchmark, value=c.value, metric=c.metric,
                                                        group=c.group, setting=c.setting, note=c.note, review=why))  # fmt: skip
    return out
