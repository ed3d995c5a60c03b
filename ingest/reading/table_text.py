"""The records of a table read from a page (words, segments, lines, grid) and the patterns of its cells.

Shared by the PDF reader (`ingest.reading.pdf_words`, the structure stage and its header tree
`structure_grid`) and the Markdown/HTML readers, which build the same `Grid`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar, overload

#: Caption lines: "Table 3: …", "Table 3 | …", "Table 3. …", "Table 3 Evaluation …" (not "Table 3 shows").
CAPTION = re.compile(r"^\s*(Table|Tab\.|TABLE)\s*(\d+|[IVX]+)\s*(?=[:|.\u2013\u2014-]|\s+[A-Z(]|\s*$)")
FIGURE_CAPTION = re.compile(r"^\s*(Figure|Fig\.|FIGURE)\s*\d+\s*(?=[:|.\u2013\u2014-]|\s+[A-Z(]|\s*$)")
#: A value as printed in a result cell: numbers with %, ±, /, ×, K/M/B suffixes, a printed change, footnote marks.
MARKS = "*\u2020\u2021\u00a7\u00b6#\u2217\u22c6"
_NUM = r"[-+\u2212]?(\d+(?:[.,]\d+)*|\.\d+)\s*%?"
#: A printed change after a score, glued to it, a gain after a space, or in parentheses: "91.8+3.3",
#: "73.8 +5.3", "62.0 (-1.5)", "70.1(+2%)". The change has decimals or a percent sign, or stands in
#: parentheses, so a range ("10-20") is no change; a minus after a space may be a value of its own.
DELTA = r"(?:[+\u2212-](?:\d+\.\d+|\d+(?:\.\d+)?%)|\s+\+\d+\.\d+|\s*\([+\u2212-]\d+(?:\.\d+)?%?\))"
VALUE = re.compile(
    rf"^[({{\[]?{_NUM}[KMBkmb]?[)}}\]]?(\s*(\u00b1|\+/-|/|\u00d7|x)\s*{_NUM}[KMBkmb]?)*\s*%?{DELTA}?[{re.escape(MARKS)}\u00b9\u00b2\u00b3a-c]?$"
)
CITATION_MARK = re.compile(r"^\[\d+(?:\s*[,\u2013-]\s*\d+)*\]$")
SIZE = re.compile(r"^\d+(\.\d+)?\s*[KMBT]$|^\d+\s*[x\u00d7]\s*\d+(\.\d+)?[KMBT]$")
DASH = re.compile(r"^[-\u2013\u2014\u2212/]+$|^(n/?a|N/?A|—|–)$")


_T = TypeVar("_T")


class once(Generic[_T]):
    """A property computed on first read and kept in the instance (`functools.cached_property`
    without the lock Python 3.11 takes on each first read: pages make tens of thousands of lines
    and segments, each read a few times)."""

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> once[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object, owner: type | None = None) -> _T | once[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass(slots=True)
class Word:
    """A word of a page with its box (top-down points). Slotted: a page makes thousands."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    base: float  # baseline, top-down coordinates
    size: float
    spaced: bool = False  # preceded by a space character of the PDF's own text (same cell)


@dataclass
class Seg:
    """A run of words on one line separated by less than a column gap. Its text and extent are read
    many times while a table is read, so each is kept once read (only once `words` is complete)."""

    words: list[Word]

    @once
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @once
    def x0(self) -> float:
        return self.words[0].x0

    @once
    def x1(self) -> float:
        return self.words[-1].x1


def _median(xs: list[float]) -> float:
    """`statistics.median` of a non-empty list, without its generic checks (a page's lines ask it
    thousands of times); the same value: the middle one, or the mean of the two middle ones."""
    if len(xs) == 1:
        return xs[0]
    xs.sort()
    n = len(xs)
    i = n // 2
    return xs[i] if n % 2 else (xs[i - 1] + xs[i]) / 2


@dataclass
class Line:
    """Words on one baseline. Its extent, baseline and size are read many times while regions are
    walked, so each is computed once (read only once `words` is complete)."""

    words: list[Word]
    segs: list[Seg] = field(default_factory=list)
    index: int = -1  # position among the page's lines

    @once
    def top(self) -> float:
        return min([w.top for w in self.words])

    @once
    def bottom(self) -> float:
        return max([w.bottom for w in self.words])

    @once
    def base(self) -> float:
        return _median([w.base for w in self.words])

    @once
    def size(self) -> float:
        return max(_median([w.size for w in self.words]), 1.0)

    @once
    def text(self) -> str:  # read only once `segs` is set
        return " ".join(s.text for s in self.segs)

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return self.words[-1].x1


@dataclass
class Grid:
    """A reconstructed table, independent of its source (PDF, Markdown, HTML)."""

    corner: str  # header text above the label columns ("Benchmark (Metric)", "FormalMATH")
    label_headers: list[str]  # header of each label/key column
    key_cols: list[int]  # indices into labels that are key columns (model size, sample budget)
    col_headers: list[list[tuple[str, int]]]  # per value column: (text, columns spanned) top to bottom
    rows: list[GridRow]
    tokens: list[str] = field(default_factory=list)  # every word in the table region (validation)
    unused: list[str] = field(default_factory=list)  # numeric words not read into any cell
    main: int = -1  # index of the main label column (models or benchmarks); -1: last non-key column
    region: tuple[float, float, float, float] | None = None  # x0, top, x1, bottom


@dataclass
class GridRow:
    labels: list[str]  # per label column (filled down)
    values: list[str]  # per value column ('' when empty)
    group: str = ""  # group heading in effect


@lru_cache(maxsize=65536)
def is_value(text: str) -> bool:
    """A result value as printed: "88.5", "70.83% ± 0.89%", "6/644", "7B", "19.9*". A whole number
    in square brackets ("[50]") is a citation after a name, not a value."""
    t = text.strip()
    return any(map(str.isdigit, t)) and bool(VALUE.match(t)) and not CITATION_MARK.match(t)


@lru_cache(maxsize=65536)
def value_or_dash(text: str) -> bool:
    """A printed value or a dash standing for one (cached: the structure grid and the word checks ask
    it of the same cell and phrase texts many times)."""
    t = text.strip()
    return is_value(t) or bool(DASH.match(t))
