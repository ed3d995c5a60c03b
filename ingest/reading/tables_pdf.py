"""Layout of result tables on a PDF page, from word boxes and drawn horizontal rules.

Off-the-shelf table finders fail on report PDFs, whose tables have no vertical rules. This
module reads a table the way a reader does:

1. words with boxes and baselines (pdfium text page), grouped into lines by baseline;
2. a table is the run of "tabular" lines next to a caption line "Table N" (above or below it,
   whichever side holds numeric rows; a run claimed by one caption is not given to another). A
   caption set beside a text column restricts the table to its own column;
3. columns are the x-bands of numeric cells in the data rows; text left of the first band is the
   label zone (its columns are found by left alignment); header lines above the first data row are
   assigned to bands by overlap, and a header segment that covers several bands spans them;
4. a row label printed once for several rows (a row-spanning model name, model size, or category)
   is given to the rows nearest to it in y that lack their own label, never across a drawn rule that
   crosses its column; a label line that no row takes is a group heading for the rows below it.

The result is a `Grid`, interpreted into result cells by `ingest.analysis.results`.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import statistics
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

#: Caption lines: "Table 3: …", "Table 3 | …", "Table 3. …", "Table 3 Evaluation …" (not "Table 3 shows").
CAPTION = re.compile(r"^\s*(Table|Tab\.|TABLE)\s*(\d+|[IVX]+)\s*(?=[:|.\u2013\u2014-]|\s+[A-Z(]|\s*$)")
FIGURE_CAPTION = re.compile(r"^\s*(Figure|Fig\.|FIGURE)\s*\d+\s*(?=[:|.\u2013\u2014-]|\s+[A-Z(]|\s*$)")
#: A value as printed in a result cell: numbers with %, ±, /, ×, K/M/B suffixes, footnote marks.
MARKS = "*\u2020\u2021\u00a7\u00b6#\u2217\u22c6"
_NUM = r"[-+\u2212]?(\d+(?:[.,]\d+)*|\.\d+)\s*%?"
VALUE = re.compile(
    rf"^[({{\[]?{_NUM}[KMBkmb]?[)}}\]]?(\s*(\u00b1|\+/-|/|\u00d7|x)\s*{_NUM}[KMBkmb]?)*\s*%?[{re.escape(MARKS)}\u00b9\u00b2\u00b3a-c]?$"
)
_HEADING = re.compile(r"^\d{1,2}(\.\d{1,2})*\.?\s+[A-Z][a-z][\w-]*( [\w-]+){0,8}$")
_SIZE = re.compile(r"^\d+(\.\d+)?\s*[KMBT]$|^\d+\s*[x\u00d7]\s*\d+(\.\d+)?[KMBT]$")
DASH = re.compile(r"^[-\u2013\u2014\u2212/]+$|^(n/?a|N/?A|—|–)$")


@dataclass
class Word:
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
    """A run of words on one line separated by less than a column gap."""

    words: list[Word]

    @cached_property
    def text(self) -> str:  # read only once the segment is complete
        return " ".join(w.text for w in self.words)

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return self.words[-1].x1


@dataclass
class Line:
    """Words on one baseline. Its extent, baseline and size are read many times while regions are
    walked, so each is computed once (read only once `words` is complete)."""

    words: list[Word]
    segs: list[Seg] = field(default_factory=list)
    index: int = -1  # position among the page's lines

    @cached_property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @cached_property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @cached_property
    def base(self) -> float:
        return statistics.median(w.base for w in self.words)

    @cached_property
    def size(self) -> float:
        return max(statistics.median(w.size for w in self.words), 1.0)

    @cached_property
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
    """A result value as printed: "88.5", "70.83% ± 0.89%", "6/644", "7B", "19.9*"."""
    return any(ch.isdigit() for ch in text) and bool(VALUE.match(text.strip()))


# --------------------------------------------------------------------------- words


_NONSPACE = re.compile(r"\S+")


@lru_cache(maxsize=1)
def _text_calls() -> tuple:  # type: ignore[type-arg]
    """pdfium's per-word text calls (count rects, get rect, char origin, is generated) as plain C calls.

    Why: pypdfium2's bindings convert every argument through the declared argument types, which
    costs about as much as pdfium's own work for these small calls, and a table page makes four of
    them per word. The plain functions (same library, same symbols; all four return an int) take the
    exact C types `page_words` passes. Falls back to the declared bindings if the library object
    is not where this version of pypdfium2 keeps it.
    """
    import pypdfium2.raw as pdfium_c

    names = ("FPDFText_CountRects", "FPDFText_GetRect", "FPDFText_GetCharOrigin", "FPDFText_IsGenerated")
    try:
        from pypdfium2_raw.bindings import _libs  # type: ignore[import-untyped]

        lib = _libs["pdfium"]
        plain = tuple(lib[name] for name in names)  # `lib[name]`: a new function object, no argtypes
        if all(f.argtypes is None and f.restype is ctypes.c_int for f in plain):
            return (*plain, True)
    except Exception:  # any surprise: the declared bindings below
        pass
    return (*(getattr(pdfium_c, name) for name in names), False)


def page_words(page, textpage=None) -> list[Word]:  # type: ignore[no-untyped-def]
    """Words with boxes (top-down coordinates) from pdfium's text page; one pdfium call per word.

    `textpage`: the page's text page when the caller has it open already (it stays open)."""
    import pypdfium2.raw as pdfium_c

    from ingest.reading.textnorm import normalize

    height = page.get_height()
    tp = page.get_textpage() if textpage is None else textpage
    try:
        raw = tp.raw
        text = tp.get_text_range()
        n = pdfium_c.FPDFText_CountChars(raw)
        if len(text) != n:  # index mismatch (rare): fall back to per-character text
            text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32) for i in range(n))
        ox, oy = ctypes.c_double(), ctypes.c_double()
        ro, rox = ctypes.byref(oy), ctypes.byref(ox)
        cl, ct, cr, cb = (ctypes.c_double() for _ in range(4))
        rl, rt, rr, rb = (ctypes.byref(x) for x in (cl, ct, cr, cb))
        count_rects, get_rect, get_origin, generated, plain = _text_calls()
        h = ctypes.c_void_p(ctypes.cast(raw, ctypes.c_void_p).value) if plain else raw  # (plain calls: a bare pointer)
        get_size = pdfium_c.FPDFText_GetFontSize
        out: list[Word] = []
        prev_end = -1
        last = (None, 0.0, 0.0)  # (baseline, box height, font size): the font size is asked once per run
        for m in _NONSPACE.finditer(text):
            start, cnt = m.start(), m.end() - m.start()
            # One space character the PDF itself contains (not one pdfium generated at a gap) joins
            # two words of one cell, however wide the font sets it.
            spaced = prev_end >= 0 and text[prev_end:start] == " " and not generated(h, prev_end)
            prev_end = m.end()
            n_before = len(out)
            k = count_rects(h, start, cnt)
            if k <= 0:
                continue
            if k == 1:
                get_rect(h, 0, rl, rt, rr, rb)
                rects = [(cl.value, cb.value, cr.value, ct.value)]
            else:
                rects = []
                for j in range(k):
                    get_rect(h, j, rl, rt, rr, rb)
                    rects.append((cl.value, cb.value, cr.value, ct.value))
            get_origin(h, start, rox, ro)
            base = height - oy.value
            h0 = rects[0][3] - rects[0][1]
            if last[0] is not None and abs(last[0] - base) < 0.5 and abs(last[1] - h0) <= 0.15 * max(h0, 1.0):
                size = last[2]
            else:
                size = get_size(raw, start) or h0
                last = (base, h0, size)
            if (k > 1 and not all(abs(r[1] - rects[0][1]) < 0.5 * size for r in rects)) or (k > 1 and _gap_split(rects, size)):
                parts = _split_by_chars(raw, start, m.group(), height)  # a word broken across lines or a gap
            elif k == 1:
                parts = [(m.group(), rects[0], base)]
            else:
                box = (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))
                parts = [(m.group(), box, base)]
            for t, (left, b, r, tt), wbase in parts:
                if not t.isascii():
                    t = normalize(_SURROGATE.sub("", t).replace("\ufffe", "-").replace("\u00ad", "-")).strip()
                if t:
                    out.append(Word(t, left, r, height - tt, height - b, wbase, float(size)))
            if spaced and len(out) > n_before:
                out[n_before].spaced = True
        return out
    finally:
        if textpage is None:
            tp.close()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _gap_split(rects: list, size: float) -> bool:
    xs = sorted(rects)
    return any(b[0] - a[2] > 0.8 * size for a, b in itertools.pairwise(xs))


def _split_by_chars(raw, start: int, text: str, height: float) -> list[tuple[str, tuple, float]]:  # type: ignore[no-untyped-def]
    """Split a token pdfium reports as one word where its characters change line or leave a gap."""
    import pypdfium2.raw as pdfium_c

    lft, r, b, t = (ctypes.c_double() for _ in range(4))
    ox, oy = ctypes.c_double(), ctypes.c_double()
    parts: list[list] = []
    for i, ch in enumerate(text):
        pdfium_c.FPDFText_GetCharBox(raw, start + i, ctypes.byref(lft), ctypes.byref(r), ctypes.byref(b), ctypes.byref(t))
        pdfium_c.FPDFText_GetCharOrigin(raw, start + i, ctypes.byref(ox), ctypes.byref(oy))
        size = max(t.value - b.value, 1.0)
        if parts and abs(parts[-1][4] - oy.value) < 0.5 * size and lft.value - parts[-1][2] < 0.8 * size:
            p = parts[-1]
            p[0] += ch
            p[1], p[2], p[3], p[5] = min(p[1], lft.value), max(p[2], r.value), min(p[3], b.value), max(p[5], t.value)
        else:
            parts.append([ch, lft.value, r.value, b.value, oy.value, t.value])
    return [(p[0], (p[1], p[3], p[2], p[5]), height - p[4]) for p in parts]


def page_rules(page, max_depth: int = 3) -> list[tuple[float, float, float]]:  # type: ignore[no-untyped-def]
    """Drawn horizontal rules as (y, x0, x1), top-down; thin filled rectangles count too.

    Walks the page objects (and Form XObjects to `max_depth`) with pdfium's own calls, in the order
    and with the errors of pypdfium2's `page.get_objects(filter=(PATH,), max_depth=3)`, without
    building a Python object for each of a page's thousands of glyph runs and paths."""
    import pypdfium2.raw as pdfium_c
    from pypdfium2 import PdfiumError

    height = page.get_height()
    out: list[tuple[float, float, float]] = []
    get_type, get_bounds = pdfium_c.FPDFPageObj_GetType, pdfium_c.FPDFPageObj_GetBounds
    path, form, unknown = pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_FORM, pdfium_c.FPDF_PAGEOBJ_UNKNOWN
    fl, fb, fr, ft = (ctypes.c_float() for _ in range(4))

    def walk(parent, count, get, level: int) -> None:  # type: ignore[no-untyped-def]
        n = count(parent)
        if n < 0:
            raise PdfiumError("Failed to get number of pageobjects.")
        for i in range(n):
            obj = get(parent, i)
            if not obj:
                raise PdfiumError("Failed to get pageobject.")
            kind = get_type(obj)
            if kind == unknown:
                raise PdfiumError("Failed to determine pageobject type, did you pass in a valid FPDF_PAGEOBJECT handle?")
            if kind == path and get_bounds(obj, fl, fb, fr, ft):  # (bounds not found: not a rule)
                x0, b, x1, t = fl.value, fb.value, fr.value, ft.value
                if t - b <= 2.0 and x1 - x0 >= 15:
                    out.append((height - (t + b) / 2, x0, x1))
            if kind == form and level < max_depth - 1:
                walk(obj, pdfium_c.FPDFFormObj_CountObjects, pdfium_c.FPDFFormObj_GetObject, level + 1)

    walk(page.raw, pdfium_c.FPDFPage_CountObjects, pdfium_c.FPDFPage_GetObject, 0)
    return out


def group_lines(words: list[Word]) -> list[Line]:
    """Words with the same baseline (within a third of the font size) form a line, sorted by x."""
    lines: list[Line] = []
    for w in sorted(words, key=lambda w: (round(w.base, 1), w.x0)):
        if lines and abs(lines[-1].words[-1].base - w.base) <= 0.3 * max(w.size, 1):
            lines[-1].words.append(w)
        else:
            lines.append(Line([w]))
    for ln in lines:
        ln.words.sort(key=lambda w: w.x0)
    return lines


#: Gap (in font sizes) that separates table cells: word spaces are at most about 0.33 em, the
#: narrowest column gaps measured in report tables about 0.5 em.
CELL_GAP_EM = 0.42


def page_cell_gap(lines: list[Line]) -> float:
    """The cell gap of a page: CELL_GAP_EM, or more where the font sets wide word spaces (the
    median gap between words of a line, measured on the page's own text, times 1.35)."""
    gaps = [
        (b.x0 - a.x1) / max(a.size, 1)
        for ln in lines
        for a, b in zip(ln.words, ln.words[1:], strict=False)
        if 0 < (b.x0 - a.x1) < max(a.size, 1)
    ]
    if len(gaps) < 20:
        return CELL_GAP_EM
    return max(CELL_GAP_EM, 1.35 * statistics.median(gaps))


def split_segments(words: list[Word], gap_em: float = CELL_GAP_EM) -> list[Seg]:
    segs: list[Seg] = []
    last: list[Word] = []  # words of the last segment
    for w in sorted(words, key=_x0):
        if last:
            gap = w.x0 - last[-1].x1
            size = max(w.size, 1)
            if gap < gap_em * size or (w.spaced and gap < 0.75 * size):
                last.append(w)
                continue
        last = [w]
        segs.append(Seg(last))
    return segs


def _x0(w: Word) -> float:
    return w.x0


# --------------------------------------------------------------------------- table regions


@dataclass
class Region:
    label: str
    caption: str
    lines: list[Line]
    caption_line: Line
    gap_em: float = CELL_GAP_EM


def _is_prose(line: Line, width: float) -> bool:
    segs = line.segs
    span = line.x1 - line.x0
    words = line.words
    lower = sum(1 for w in words if re.fullmatch(r"[a-z]+[,.;:]?", w.text)) / max(len(words), 1)
    values = sum(is_value(s.text) for s in segs)
    if len(words) >= 5 and lower >= 0.6 and values <= 1:
        return True  # a sentence (the last line of a paragraph, too)
    if values >= 1:
        return False
    if span <= 0.45 * width or len(words) < 6:
        return False
    return len(segs) <= max(1, len(words) // 4) or lower >= 0.5


def _caption_text(lines: list[Line], i: int) -> str:
    """The caption's first sentence (it may wrap onto the next lines)."""
    text = lines[i].text
    j = i + 1
    while j < len(lines) and j < i + 4 and lines[j].top - lines[j - 1].bottom < 0.8 * lines[j].size and "." not in text[8:]:
        if len(lines[j].segs) > 1:
            break
        text += " " + lines[j].text
        j += 1
    text = re.sub(r"\s+", " ", text).strip()
    m = re.match(r"^(.*?\.)(\s|$)", text[8:])
    return text[: 8 + m.end(1)] if m else text


def find_regions(words: list[Word], page_width: float, rules: list[tuple[float, float, float]] | None = None) -> list[Region]:
    """Table regions next to "Table N" captions (see the module docstring)."""
    lines = group_lines(words)
    gap_em = page_cell_gap(lines)
    for k, ln in enumerate(lines):
        ln.segs = split_segments(ln.words, gap_em)
        ln.index = k
    if not lines:
        return []
    left = min(ln.x0 for ln in lines)
    right = max(ln.x1 for ln in lines)
    width = max(right - left, 1.0)
    caps = [i for i, ln in enumerate(lines) if CAPTION.match(ln.text) or FIGURE_CAPTION.match(ln.text)]
    options: dict[int, list[list[Line]]] = {}
    for ci in caps:
        if not CAPTION.match(lines[ci].text):
            continue
        cap = lines[ci]
        # A caption beside a text column (not centred, starting or ending far from the margins).
        lo, hi = left - 1, right + 1
        lm, rm = cap.x0 - left, right - cap.x1
        # A caption that starts far right of the margin without being centred sits in a right-hand
        # column beside text; a short left-aligned caption is ordinary, so only this case restricts.
        if abs(lm - rm) > 0.15 * width and lm > 0.3 * width:
            lo = cap.x0 - 0.02 * width
        if (lo, hi) == (left - 1, right + 1):
            col = lines
        else:
            col = [Line([w for w in ln.words if lo <= (w.x0 + w.x1) / 2 <= hi], index=k) for k, ln in enumerate(lines)]
            for ln in col:
                ln.segs = split_segments(ln.words, gap_em)
        opts = []
        for step in (-1, 1):
            opts.append(_walk(col, ci, step, caps, width if (lo, hi) == (left - 1, right + 1) else hi - lo, rules or []))
        options[ci] = opts
    claimed: set[int] = set()  # line indices (regions of different captions are built from copies)
    chosen: dict[int, list[Line]] = {}
    # Captions with one usable side first, then the rest by their best unclaimed side.
    order = sorted(options, key=lambda ci: sum(1 for o in options[ci] if _n_data(o) > 0))
    for ci in order:
        best: list[Line] = []
        for o in options[ci]:
            if any(ln.index in claimed for ln in o):
                continue
            if _n_data(o) > _n_data(best):
                best = o
        if best:
            chosen[ci] = best
            claimed |= {ln.index for ln in best}
    out = []
    for ci, body in sorted(chosen.items()):
        m = CAPTION.match(lines[ci].text)
        label = f"Table {m.group(2)}" if m else lines[ci].text[:10]
        out.append(Region(label, _caption_text(lines, ci), sorted(body, key=lambda ln: ln.base), lines[ci], gap_em))
    return out


def _n_data(lines: list[Line]) -> int:
    return sum(1 for ln in lines if sum(is_value(s.text) for s in ln.segs) >= 1)


def _walk(
    lines: list[Line], ci: int, step: int, caps: list[int], width: float, rules: list[tuple[float, float, float]]
) -> list[Line]:
    """Lines of the table on one side of caption `ci` (see `find_regions`)."""
    out: list[Line] = []
    i = ci + step
    prev = lines[ci]
    if step > 0:  # skip the caption's own continuation lines
        while (
            i < len(lines)
            and lines[i].words
            and lines[i].top - prev.bottom < 0.6 * prev.size
            and (len(lines[i].segs) == 1 or _is_prose(lines[i], width))
            and not any(is_value(s.text) for s in lines[i].segs)
        ):
            prev = lines[i]
            i += 1
    others = set(caps) - {ci}
    while 0 <= i < len(lines):
        ln = lines[i]
        if not ln.words:
            i += step
            continue
        if i in others or (
            step < 0 and len(ln.segs) <= 3 and _HEADING.match(ln.text) and not any(is_value(s.text) for s in ln.segs[1:])
        ):
            break
        gap = (ln.top - prev.bottom) if step > 0 else (prev.top - ln.bottom)
        limit = (3.0 if not out else 2.2) * max(ln.size, prev.size)
        lo_y, hi_y = sorted((ln.base, prev.base))
        if any(lo_y < y < hi_y for y, _a, _b in rules):  # a drawn rule in the gap: rows set further apart
            limit += 2.0 * max(ln.size, prev.size)
        if gap > limit or _is_prose(ln, width):
            break
        out.append(ln)
        prev = ln
        i += step
    # Trim non-tabular lines at the far end (a stray line of prose or a page header).
    while out and _n_data([out[-1]]) == 0 and len(out[-1].segs) < 2 and step > 0:
        out.pop()
    return out


# --------------------------------------------------------------------------- grid


def build_grid(
    region: Region, rules: list[tuple[float, float, float]], is_key_header, is_attribute, is_label_word=None
) -> Grid | None:  # type: ignore[no-untyped-def]
    """Columns, header and rows of one region; None when it has no numeric rows.

    A line whose first cell is a label-column word ("Model", "Method") is a header line even
    when its other cells look numeric ("4K 8K 16K": context lengths)."""
    lines = region.lines
    data_idx = [
        i
        for i, ln in enumerate(lines)
        if sum(is_value(s.text) for s in ln.segs) >= 1
        and _looks_data(ln)
        and not (is_label_word and not is_value(ln.segs[0].text) and is_label_word(ln.segs[0].text))
    ]
    if not data_idx:
        return None
    # Numeric lines above the first labelled data line are header lines ("67B 72B 8x22B": sizes).
    labelled = [
        i
        for i in data_idx
        if not all(_SIZE.match(s.text) for s in lines[i].segs if is_value(s.text))
        or not (is_value(lines[i].segs[0].text) or DASH.match(lines[i].segs[0].text))
    ]
    first = labelled[0] if labelled else data_idx[0]
    data_idx = [i for i in data_idx if i >= first]
    header_lines, body = lines[:first], lines[first:]
    # Value bands: x-intervals of numeric segments in data rows, merged where they overlap.
    ivs = sorted((s.x0, s.x1) for i in data_idx for s in lines[i].segs if is_value(s.text) or DASH.match(s.text))
    bands: list[list[float]] = []
    for a, b in ivs:
        if bands and a <= bands[-1][1] + 0.5:
            bands[-1][1] = max(bands[-1][1], b)
        else:
            bands.append([a, b])
    # Text segments that start left of the first band belong to the label zone.
    zone_end = bands[0][0] - 0.5
    # Drop bands made only of dashes (a column of "-" inside the label zone, e.g. an unused key).
    mids = [(b[0] + b[1]) / 2 for b in bands]
    [-1e9] + [(mids[k] + mids[k + 1]) / 2 for k in range(len(mids) - 1)] + [1e9]

    pitch = statistics.median([mids[k + 1] - mids[k] for k in range(len(mids) - 1)]) if len(mids) > 1 else 50.0

    def band_of(x0: float, x1: float) -> list[int]:
        """The band nearest to a body segment's centre."""
        c = (x0 + x1) / 2
        return [min(range(len(bands)), key=lambda k: abs(mids[k] - c))]

    def header_bands(x0: float, x1: float, may_span: bool) -> list[int]:
        """Bands a header segment stands over: the contiguous run of bands whose centre is nearest
        to the segment's centre among the runs wide enough to hold it (a header much wider than
        the column pitch spans several columns). Only a header with header lines below may span."""
        c, w = (x0 + x1) / 2, x1 - x0
        near = min(range(len(bands)), key=lambda k: abs(mids[k] - c))
        if not may_span:
            return [near]
        best: tuple[float, int, list[int]] | None = None
        for i in range(len(bands)):
            for j in range(i, len(bands)):
                extent = mids[j] - mids[i] + pitch
                if w > 1.25 * extent:
                    continue
                off = abs((mids[i] + mids[j]) / 2 - c)
                if off > pitch:
                    continue
                key = (round(off / max(pitch, 1) * 10), j - i, list(range(i, j + 1)))
                if best is None or key[:2] < best[:2]:
                    best = key
        return best[2] if best else [near]

    # Header parts per band, and the corner text.
    col_headers: list[list[tuple[str, int]]] = [[] for _ in bands]
    corner_parts: list[str] = []
    header_lines = [ln for ln in header_lines if not _attribute_line(ln, zone_end, is_attribute)]
    for hi, ln in enumerate(header_lines):
        for s in ln.segs:
            if s.x1 <= zone_end or (s.x0 < zone_end and (s.x0 + s.x1) / 2 < zone_end):
                corner_parts.append(s)
                continue
            ks = header_bands(s.x0, s.x1, hi < len(header_lines) - 1)
            for k in ks:
                col_headers[k].append((s.text, len(ks)))
    # Label zone columns: left-aligned starts; the main column is the most common start.
    label_segs: list[tuple[int, Seg]] = []
    for li, ln in enumerate(body):
        for s in split_segments([w for w in ln.words if (w.x0 + w.x1) / 2 < zone_end], region.gap_em):
            label_segs.append((li, s))
    starts = sorted(s.x0 for _, s in label_segs)
    cols_x: list[float] = []
    for x in starts:
        if not cols_x or x - cols_x[-1] > 6:
            cols_x.append(x)
    support = {cx: sum(1 for _, s in label_segs if abs(s.x0 - cx) <= 6 or (cx <= s.x0 < cx + 6)) for cx in cols_x}
    data_lines = {id(lines[i]) for i in data_idx}
    main_support = {cx: sum(1 for li, s in label_segs if id(body[li]) in data_lines and cx <= s.x0 < cx + 6) for cx in cols_x}
    main_x = max(cols_x, key=lambda cx: (main_support[cx], -cx)) if cols_x else zone_end
    outer = [cx for cx in cols_x if cx < main_x - 6 and support[cx] >= 1]
    # Columns right of the main one need left-aligned cells on most data rows ("# Shots", "Metric").
    inner = [cx for cx in cols_x if cx > main_x + 6 and main_support[cx] >= max(2, 0.6 * len(data_idx))]
    label_x = [*outer, main_x, *inner]
    main_col = len(outer)
    comps: list[list[float]] = []
    if cols_x and main_support[main_x] < 0.5 * len(data_idx):
        # Centred label columns (names not left-aligned): columns are overlapping x-intervals.
        for a, b in sorted((s.x0, s.x1) for _, s in label_segs):
            if comps and a <= comps[-1][1] + 1:
                comps[-1][1] = max(comps[-1][1], b)
            else:
                comps.append([a, b])
        comp_support = [
            sum(1 for li, s in label_segs if id(body[li]) in data_lines and c[0] <= (s.x0 + s.x1) / 2 <= c[1]) for c in comps
        ]
        m = max(range(len(comps)), key=lambda k: (comp_support[k], k))
        keep = [k for k in range(len(comps)) if k < m or k == m or comp_support[k] >= max(2, 0.6 * len(data_idx))]
        comps = [comps[k] for k in keep]
        main_col = keep.index(m)
        label_x = [c[0] for c in comps]

    def col_of(seg: Seg, prev_col: int, prev_seg: Seg | None) -> int:
        if comps:
            c = (seg.x0 + seg.x1) / 2
            return next((k for k, cp in enumerate(comps) if cp[0] - 1 <= c <= cp[1] + 1), max(prev_col, 0))
        at = [j for j, cx in enumerate(label_x) if abs(seg.x0 - cx) <= 6]
        if at:
            return at[0]
        if prev_seg is not None and seg.x0 - prev_seg.x1 < 1.5 * seg.words[0].size:
            return prev_col
        return max([j for j, cx in enumerate(label_x) if seg.x0 >= cx - 6] or [0])

    # Corner header segments go to the label column they start in.
    corner_cols: list[list[str]] = [[] for _ in label_x]
    for s in corner_parts:
        j = col_of(s, main_col, None)
        corner_cols[j].append(s.text)
    inner_keys = [j for j in range(main_col + 1, len(label_x)) if is_key_header(" ".join(corner_cols[j]))]
    # Key columns: value bands whose header names a row property (size, budget), or whose cells are sizes.
    key_bands = []
    for k in range(len(bands)):
        head = " ".join(t for t, span in col_headers[k] if span == 1)
        if is_key_header(head):
            key_bands.append(k)
    val_bands = [k for k in range(len(bands)) if k not in key_bands]
    if not val_bands:
        return None
    n_lab = len(label_x)
    # Per body line: label cells, key cells, value cells.
    cells_lab: list[list[Seg | None]] = []
    cells_val: list[list[str]] = []
    used_words: set[int] = set()
    for ln in body:
        labs: list[Seg | None] = [None] * (n_lab + len(key_bands))
        vals = [""] * len(bands)
        prev_col, prev_seg = -1, None
        for s in split_segments([w for w in ln.words if (w.x0 + w.x1) / 2 < zone_end], region.gap_em):
            idx = col_of(s, prev_col, prev_seg)
            labs[idx] = s if labs[idx] is None else Seg(labs[idx].words + s.words)  # type: ignore[union-attr]
            prev_col, prev_seg = idx, s
        for s in ln.segs:
            if (s.x0 + s.x1) / 2 < zone_end:
                continue
            ks = band_of(s.x0, s.x1)
            k = ks[0] if len(ks) == 1 else min(ks, key=lambda k: abs(mids[k] - (s.x0 + s.x1) / 2))
            vals[k] = (vals[k] + " " + s.text).strip()
            used_words.update(id(w) for w in s.words)
        for j, k in enumerate(key_bands):
            if vals[k]:
                words = [w for w in ln.words if id(w) in used_words and band_of(w.x0, w.x1)[0] == k]
                labs[n_lab + j] = Seg(words) if words else None
        cells_lab.append(labs)
        cells_val.append([vals[k] for k in val_bands])
    is_data = [any(v and is_value(v) for v in vals) and _looks_data(body[li]) for li, vals in enumerate(cells_val)]
    # Attribute rows (architecture, parameter counts) describe models; they are not results.
    attr = []
    for labs in cells_lab:
        main = labs[main_col]
        attr.append(bool(main is not None and is_attribute(main.text)))
    # Fill label columns down (and up): nearest cell in y, not across a rule crossing that column.
    nlab_all = n_lab + len(key_bands)
    filled: list[list[str]] = [[""] * nlab_all for _ in body]
    taken: set[tuple[int, int]] = set()
    for c in range(nlab_all):
        if c < n_lab:
            cx0 = label_x[c]
            cx1 = label_x[c + 1] if c + 1 < n_lab else zone_end
        else:
            b = bands[key_bands[c - n_lab]]
            cx0, cx1 = b[0], b[1]
        cands = [(li, s) for li, labs in enumerate(cells_lab) if (s := labs[c]) is not None and not attr[li]]
        for li in range(len(body)):
            if not is_data[li] or attr[li]:
                continue
            own = cells_lab[li][c]
            if own is not None:
                filled[li][c] = own.text
                taken.add((li, c))
                continue
            y = body[li].base
            best = None
            for lj, s in cands:
                ya = body[lj].base
                if _rule_between(rules, y, ya, cx0, cx1):
                    continue
                d = abs(ya - y)
                if best is None or d < best[0] - 0.5:
                    best = (d, lj, s)
            if best is not None and best[0] < 12 * body[li].size:
                filled[li][c] = best[2].text
                taken.add((best[1], c))
    # Group headings: label-only lines in the main column that no row took.
    rows: list[GridRow] = []
    group = ""
    for li in range(len(body)):
        if attr[li]:
            continue
        if not is_data[li]:
            main = cells_lab[li][n_lab - 1]
            only_label = (
                main is not None
                and not any(cells_val[li])
                and all(cells_lab[li][c] is None for c in range(nlab_all) if c != n_lab - 1)
            )
            if only_label and (li, n_lab - 1) not in taken:
                group = main.text
            continue
        rows.append(GridRow(filled[li], cells_val[li], group))
    # Validation: every numeric word in the region must be in a cell, a label or the header.
    tokens = [w.text for ln in lines for w in ln.words]
    read = {id(w) for ln in header_lines for w in ln.words}
    for li, ln in enumerate(body):
        if is_data[li] or attr[li] or not any(cells_val[li]):
            read |= {id(w) for w in ln.words}
        else:
            read |= {id(w) for w in ln.words if id(w) not in used_words or not is_value(w.text)}
        if is_data[li]:
            read |= {id(w) for w in ln.words}
    unused = [w.text for ln in lines for w in ln.words if id(w) not in read and is_value(w.text)]
    x0 = min(ln.x0 for ln in lines)
    x1 = max(ln.x1 for ln in lines)
    return Grid(
        corner=" ".join(" ".join(c) for c in corner_cols[: main_col + 1]),
        label_headers=[" ".join(c) for c in corner_cols] + [" ".join(t for t, _ in col_headers[k]) for k in key_bands],
        key_cols=inner_keys + list(range(n_lab, nlab_all)),
        main=main_col,
        col_headers=[col_headers[k] for k in val_bands],
        rows=rows,
        tokens=tokens,
        unused=unused,
        region=(x0, lines[0].top, x1, lines[-1].bottom),
    )


def _attribute_line(ln: Line, zone_end: float, is_attribute) -> bool:  # type: ignore[no-untyped-def]
    label = " ".join(w.text for w in ln.words if (w.x0 + w.x1) / 2 < zone_end)
    return bool(label) and is_attribute(label)


def _looks_data(ln: Line) -> bool:
    """A data line: most segments right of its first are numbers (header lines hold names)."""
    segs = ln.segs
    vals = sum(1 for s in segs if is_value(s.text) or DASH.match(s.text))
    nums = sum(1 for s in segs if is_value(s.text))
    if nums == 0 or (len(segs) == 1 and nums == 1):  # a lone number (a sub- or superscript) is no row
        return False
    rest = len(segs) - 1 if not is_value(segs[0].text) else len(segs)
    return vals >= max(1, 0.6 * rest)


def _rule_between(rules: list[tuple[float, float, float]], y1: float, y2: float, x0: float, x1: float) -> bool:
    lo, hi = sorted((y1, y2))
    return any(lo + 2 < y < hi - 2 and a <= x0 + 2 and b >= min(x1, x0 + 10) - 2 for y, a, b in rules)
