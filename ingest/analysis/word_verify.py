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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache, partial

from ingest.analysis.benchmarks import norm_name
from ingest.analysis.result_meaning import GLUED_DELTA, REPORT_MODEL, clean
from ingest.common.records import ResultCell
from ingest.reading.table_text import DASH, Word, is_value

#: The review reasons, short and few, so a table's list of reasons stays readable.
NOT_CHECKED = "not checked on the page's words; review"
AMBIGUOUS = "two cells of the table share this model and header; review"
ODD_FORMAT = "value printed unlike the rest of its benchmark's values; review"
NOT_ON_PAGE = "the value is not printed once in the table's region; review"
NOT_IN_PLACE = "the page's words do not put this value under its headers and beside its row label; review"

#: Words further apart than this share of their size are two phrases (a column gap, not a space).
PHRASE_GAP_EM = 0.5


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


@dataclass(frozen=True)
class Phrase:
    """Words of one line closer than `PHRASE_GAP_EM`: one printed cell text, as the page shows it."""

    text: str
    x0: float
    x1: float
    line: int
    words: tuple[Word, ...] = ()
    alone: bool = False  # the only phrase of its line
    value: bool = field(init=False)  # a printed value or a dash (asked of every phrase many times)

    def __post_init__(self) -> None:
        t = self.text.strip()
        object.__setattr__(self, "value", is_value(t) or bool(DASH.match(t)))


def _lines(words: list[Word]) -> list[list[Word]]:
    """Words grouped by baseline (within a third of their size), top to bottom, left to right."""
    out: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.base, w.x0)):
        if out and abs(w.base - out[-1][0].base) <= max(out[-1][0].size, w.size, 1.0) / 3:
            out[-1].append(w)
        else:
            out.append([w])
    return [sorted(ln, key=lambda w: w.x0) for ln in out]


def phrases(words: list[Word]) -> list[list[Phrase]]:
    """The phrases of each line of `words`, top to bottom."""
    out: list[list[Phrase]] = []
    for i, ln in enumerate(_lines(words)):
        row: list[Phrase] = []
        cur = [ln[0]]
        for w in ln[1:]:
            if w.x0 - cur[-1].x1 > PHRASE_GAP_EM * max(w.size, cur[-1].size, 1.0):
                row.append(Phrase(" ".join(x.text for x in cur), cur[0].x0, cur[-1].x1, i, tuple(cur)))
                cur = [w]
            else:
                cur.append(w)
        row.append(Phrase(" ".join(x.text for x in cur), cur[0].x0, cur[-1].x1, i, tuple(cur)))
        out.append([replace(row[0], alone=True)] if len(row) == 1 else row)
    return out


def _over(p: Phrase, v: Phrase) -> bool:
    return min(p.x1, v.x1) - max(p.x0, v.x0) > 0


def _narrow(p: Phrase, v: Phrase, lines: list[list[Phrase]]) -> Phrase | None:
    """A header phrase over `v` that also stands over another value of `v`'s line, cut to its
    words over `v` when each of its words stands over one value of that line: headers of adjacent
    columns set closer than a word gap, not one header spanning them. None when no word is over `v`."""
    if len(p.words) < 2 or not _splits(p, [q for q in lines[v.line] if q.value]):
        return p
    return _cut(p, v)


def _splits(p: Phrase, values: list[Phrase]) -> bool:
    """Whether `_narrow` cuts header phrase `p` over the `values` of a line: it stands over two or
    more of them and each of its words over exactly one (the same for every value of that line)."""
    if sum(_over(p, q) for q in values) < 2:
        return False
    return not any(sum(_over(_word(w, p.line), q) for q in values) != 1 for w in p.words)


def _cut(p: Phrase, v: Phrase) -> Phrase | None:
    """`p` cut to its words over `v`; None when none is."""
    mine = [w for w in p.words if min(w.x1, v.x1) - max(w.x0, v.x0) > 0]  # `_over(_word(w, p.line), v)`
    if not mine:
        return None
    return Phrase(" ".join(w.text for w in mine), mine[0].x0, mine[-1].x1, p.line, tuple(mine))


def _word(w: Word, line: int) -> Phrase:
    return Phrase(w.text, w.x0, w.x1, line, (w,))


class Columns:
    """The phrases of each line of a region indexed by x, so the phrases over a value are found by
    bisection on each line above it, not by a scan of the whole line (a line's phrases are set
    left to right without overlapping; a line where they overlap is scanned)."""

    def __init__(self, lines: list[list[Phrase]]) -> None:
        self.lines = lines
        self.x0s = [[p.x0 for p in ln] for ln in lines]
        self.x1s = [[p.x1 for p in ln] for ln in lines]
        self.sorted = [all(a <= b for a, b in itertools.pairwise(x1)) for x1 in self.x1s]
        self.texts = [[(p.x0, p.x1) for p in ln if not p.value] for ln in lines]  # per line, its text phrases' x0, x1
        self._values: dict[int, list[Phrase]] = {}  # line -> its value phrases, when first asked
        self._split: dict[tuple[int, int], bool] = {}  # (id of a header phrase, value line) -> `_splits`
        self.plain: dict[tuple[int, int, int], list[Phrase]] = {}  # see `_line_over`

    def text_over(self, k: int, v: Phrase) -> bool:
        """Whether a text phrase (not a value) of line k overlaps `v` horizontally."""
        return any(a < v.x1 and b > v.x0 for a, b in self.texts[k])

    def over(self, k: int, v: Phrase) -> list[Phrase]:
        """The phrases of line k that overlap `v` horizontally, left to right."""
        ln = self.lines[k]
        if not self.sorted[k]:
            return [p for p in ln if p.x0 < v.x1 and p.x1 > v.x0]
        return ln[bisect.bisect_right(self.x1s[k], v.x0) : bisect.bisect_left(self.x0s[k], v.x1)]

    def narrow(self, p: Phrase, v: Phrase) -> Phrase | None:
        """`_narrow(p, v, self.lines)`, with whether `p` splits over `v`'s line found once per line
        (every value of a line asks it of the same header phrases)."""
        if len(p.words) < 2:
            return p
        key = (id(p), v.line)  # `p` is one of `self.lines`' phrases, alive as long as `self`
        split = self._split.get(key)
        if split is None:
            values = self._values.get(v.line)
            if values is None:
                values = self._values[v.line] = [q for q in self.lines[v.line] if q.value]
            split = self._split[key] = _splits(p, values)
        return _cut(p, v) if split else p


def _line_over(cols: Columns, k: int, v: Phrase) -> list[Phrase]:
    """The phrases of line k over `v` (`_narrow`ed). The caller does not change the list: on a line
    set left to right, when no phrase over `v` has two words (nothing to narrow), it is shared by
    every value over the same phrases of line k (the values of one column)."""
    if not cols.sorted[k]:
        return [q for p in cols.over(k, v) if (q := cols.narrow(p, v)) is not None]
    i, j = bisect.bisect_right(cols.x1s[k], v.x0), bisect.bisect_left(cols.x0s[k], v.x1)
    key = (k, i, j)
    plain = cols.plain.get(key)
    if plain is not None:
        return plain
    over = cols.lines[k][i:j]
    if all(len(p.words) < 2 for p in over):
        cols.plain[key] = over
        return over
    return [q for p in over if (q := cols.narrow(p, v)) is not None]


def _overs(cols: Columns, v: Phrase, line_over: Callable[[int], list[Phrase]] | None = None) -> list[list[Phrase]]:
    """For each line above `v`, its phrases over `v` (`_narrow`ed), top to bottom. `line_over`:
    `_line_over(cols, k, v)` for line k, when the caller keeps what it found."""
    over = line_over or partial(_line_over, cols, v=v)
    return [over(k) for k in range(v.line)]


def _headers_of(cols: Columns, v: Phrase, line_over: Callable[[int], list[Phrase]] | None = None) -> list[Phrase] | None:
    """The header phrases over a value: walking up from it past the rows of values above it (and
    the group headings among them: a line of one phrase), the first block of text lines with a
    phrase over it, top to bottom; None when a line of that block has two phrases over it. A line
    with no text phrase over the value, met before the block, holds values or nothing there: it is
    passed without narrowing its phrases."""
    line = line_over or partial(_line_over, cols, v=v)
    texts, x0, x1 = cols.texts, v.x0, v.x1
    block: list[list[Phrase]] = []
    for k in range(v.line - 1, -1, -1):
        if not block and not any(a < x1 and b > x0 for a, b in texts[k]):  # `cols.text_over(k, v)`, inline
            continue
        over = line(k)
        if not over:
            continue
        if all(p.value for p in over):
            if block:
                break
            continue
        if not block and len(over) == 1 and over[0].alone:
            continue
        if len(over) > 1:
            return None
        block.append(over)
    return [p for ln in reversed(block) for p in ln]


def _column(overs: list[list[Phrase]]) -> list[Phrase]:
    """Every phrase over a value above it, top to bottom (lines with two phrases over it left out)."""
    return [over[0] for over in overs if len(over) == 1]


@lru_cache(maxsize=65536)
def _norm(text: str) -> str:
    return norm_name(text)


def _run_of(parts: tuple[Phrase, ...], name: str) -> tuple[int, int] | None:
    """Where a run of up to four consecutive phrases reads `name` (normalised): (first, end), the
    last such run (the one nearest the value); None when none does. A run's normalised text is its
    phrases' normalised texts joined (`norm_name` keeps no space), so no run is built to compare."""
    if not name:
        return None
    norms = [_norm(p.text) for p in parts]
    for i in range(len(norms) - 1, -1, -1):
        if not name.startswith(norms[i]):
            continue
        for j in range(min(len(norms), i + 4), i, -1):
            if "".join(norms[i:j]) == name:
                return i, j
    return None


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
            self._done[k] = frozenset(_tokens(*self._texts[:k]))
        return self._done[k]


class Around:
    """What the page prints around one value phrase, worked out once for every cell that may be it;
    the parts only some cells ask about (a model read from the column's lines, the label area's
    words) are worked out when first asked."""

    def __init__(self, v: Phrase, cols: Columns, left: LeftWords, caption: str, above: frozenset[str]) -> None:
        """`cols` and `left`: the region's `Columns` and `LeftWords`, kept for all its values;
        `above`: the text words of the lines above the value."""
        self._v, self._cols, self._left, self._caption = v, cols, left, caption
        self.row = tuple(p for p in cols.lines[v.line] if p.x1 <= v.x0 and not p.value)  # the row's labels
        self.row_t = frozenset(_tokens(*(p.text for p in self.row)))
        self.above = above  # every text word above the value's line
        self._over: dict[int, list[Phrase]] = {}  # line -> `_line_over` the value: `heads` and `column` walk the same lines

    def _line(self, k: int) -> list[Phrase]:
        over = self._over.get(k)
        if over is None:
            over = self._over[k] = _line_over(self._cols, k, self._v)
        return over

    @cached_property
    def heads(self) -> tuple[Phrase, ...] | None:
        """`_headers_of` the value: the header phrases over it, top to bottom; None when ambiguous."""
        heads = _headers_of(self._cols, self._v, self._line)
        return tuple(heads) if heads is not None else None

    @cached_property
    def head_t(self) -> frozenset[str]:
        return frozenset(_tokens(*(p.text for p in self.heads or ())))

    @cached_property
    def column(self) -> tuple[Phrase, ...]:
        """`_column`: every phrase over the value above it, top to bottom."""
        return tuple(_column(_overs(self._cols, self._v, self._line)))

    @cached_property
    def context(self) -> frozenset[str]:
        """The label area's words, the column's, the caption's."""
        return self._left.of(self._v.x0) | _tokens(*(p.text for p in self.column), self._caption)

    @cached_property
    def column_t(self) -> frozenset[str]:
        """The words of the column's text phrases."""
        return frozenset(_tokens(*(p.text for p in self.column if not p.value)))


def _place_agrees(c: ResultCell, a: Around, described: frozenset[str] = frozenset()) -> bool:
    """Whether the words around a value (`a`) name it as `c` names it (tests 1 to 3 of the module).

    `described`: the words of the table's attribute cells (parameters, architecture), which may
    stand under a model's name over its column without being part of it."""
    if not a.row or not a.heads:
        return False
    names = _tokens(c.model, c.benchmark, c.metric, c.setting, c.group, c.note)
    row_t, head_t = a.row_t, a.head_t
    if not row_t <= names:
        return False  # a label of the row left out of its names: a lost label column or a glued one
    model = norm_name(c.model)
    in_row = _run_of(a.row, model) is not None  # a label, or labels side by side ("Llama3-8B" "[20]")
    run = None if in_row else _run_of(a.column, model)  # the lines of one header over the value
    if c.model != REPORT_MODEL and not in_row and run is None:
        return False  # a model is the row's labels or the lines of one header
    if run is not None:
        # over a model's column: a category above its name is no part of it; under it, only the
        # table's attribute values (size, architecture) may go unused
        below = list(itertools.takewhile(lambda p: not p.value, a.column[run[1] :]))
        if not _tokens(*(p.text for p in below)) <= names | described:
            return False  # a header line under the name, down to the first value, not in its names
    elif not head_t <= names:
        return False  # a header over the value left out of its names: a lost parent or sub-header
    bench = _tokens(c.benchmark) - row_t - head_t
    if bench and not bench <= a.column_t:
        return False  # the benchmark printed neither on the row nor over the value
    # metric, setting and group: printed on the row, over the value, or in the label area (a corner
    # header, a group heading, a label printed once for several rows), or the caption
    rest = _tokens(c.metric, c.setting) - row_t - head_t
    if rest and not rest <= a.context:
        return False
    # a group may also be a heading or spanning header above the row not over this value's column
    group = _tokens(c.group) - row_t - head_t
    return not group or group <= a.context | a.above


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
    described = frozenset(_tokens(*(a.value for a in attributes or ()), *(a.benchmark for a in attributes or ())))
    x0, top, x1, bottom = box[:4]
    inside = [w for w in words if x0 - 2 <= (w.x0 + w.x1) / 2 <= x1 + 2 and top - 2 <= (w.top + w.bottom) / 2 <= bottom + 2]
    lines = phrases(inside) if inside else []
    by_value: dict[str, list[Phrase]] = {}
    for ln in lines:
        for p in ln:
            if p.value:
                by_value.setdefault(_score_key(p.text), []).append(p)
    above: list[frozenset[str]] = [frozenset()]  # text words of the lines above each line
    for ln in lines:
        above.append(above[-1] | _tokens(*(p.text for p in ln if not p.value)))
    seen: dict[tuple[int, float], Around] = {}
    left, cols = LeftWords(lines), Columns(lines)

    def at(v: Phrase) -> Around:
        key = (v.line, v.x0)
        if key not in seen:
            seen[key] = Around(v, cols, left, caption, above[v.line])
        return seen[key]

    found: list[Phrase | None] = []
    for c in cells:
        hits = [v for v in by_value.get(_score_key(c.value), ()) if _place_agrees(c, at(v), described)]
        found.append(hits[0] if len(hits) == 1 else None)
    claims: dict[tuple[int, float], int] = {}
    for v in found:
        if v is not None:
            claims[(v.line, v.x0)] = claims.get((v.line, v.x0), 0) + 1
    shared = shared_heads(cells)
    odd = _odd_formats(cells)
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
        out.append(c if c.review == why else replace(c, review=why))
    return out
