"""Words with boxes, drawn rules, lines and cell segments of a PDF page (pdfium's text page)."""

from __future__ import annotations

import ctypes
import itertools
import operator
import re
import statistics

import pypdfium2.raw as pdfium_c
from pypdfium2 import PdfiumError

from ingest.reading.table_text import Line, Seg, Word
from ingest.reading.textnorm import normalize

_NONSPACE = re.compile(r"\S+")


def _untyped(fn, restype):  # type: ignore[no-untyped-def]
    """pypdfium2's raw function `fn` called without its argument types. Converting each argument
    through `argtypes` (a `byref` to POINTER(c_double) above all) cost two thirds of a call, and
    `page_words` makes four or five calls per word (`page_rules` two or three per page object).
    Only the calls below use it, each with the arguments it was typed for: pdfium's own pointers
    as pypdfium2 returns them, Python ints for C ints, and `byref`s to the numbers it fills."""
    call = ctypes.CFUNCTYPE(restype)(ctypes.cast(fn, ctypes.c_void_p).value)
    call.argtypes = None
    return call


_COUNT_RECTS = _untyped(pdfium_c.FPDFText_CountRects, ctypes.c_int)
_GET_RECT = _untyped(pdfium_c.FPDFText_GetRect, ctypes.c_int)
_GET_ORIGIN = _untyped(pdfium_c.FPDFText_GetCharOrigin, ctypes.c_int)
_GET_BOX = _untyped(pdfium_c.FPDFText_GetCharBox, ctypes.c_int)
_GET_SIZE = _untyped(pdfium_c.FPDFText_GetFontSize, ctypes.c_double)
_GENERATED = _untyped(pdfium_c.FPDFText_IsGenerated, ctypes.c_int)
_UNICODE = _untyped(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint)
_PAGE_OBJECT = _untyped(pdfium_c.FPDFPage_GetObject, pdfium_c.FPDFPage_GetObject.restype)  # (page, int index)
_OBJECT_TYPE = _untyped(pdfium_c.FPDFPageObj_GetType, ctypes.c_int)  # (page object)
_OBJECT_BOUNDS = _untyped(pdfium_c.FPDFPageObj_GetBounds, ctypes.c_int)  # (page object, 4 `byref`s to `c_float`s)


def page_words(page, textpage=None, text: str | None = None) -> list[Word]:  # type: ignore[no-untyped-def]
    """Words with boxes (top-down coordinates) from pdfium's text page; a few pdfium calls per word.

    `textpage`: the page's text page when the caller has it open already (it stays open); `text`:
    what its `get_text_range()` returned (the extraction's read), used when it is whole (as long
    as the page's characters), so the text is not asked of pdfium again."""
    height = page.get_height()
    tp = page.get_textpage() if textpage is None else textpage
    try:
        raw = tp.raw
        n = pdfium_c.FPDFText_CountChars(raw)
        if text is None or textpage is None or len(text) != n:
            text = tp.get_text_range()
        if len(text) != n:  # index mismatch (rare): fall back to per-character text
            text = "".join(chr(_UNICODE(raw, i) or 32) for i in range(n))
        ox, oy = ctypes.c_double(), ctypes.c_double()
        ro, rox = ctypes.byref(oy), ctypes.byref(ox)
        cl, ct, cr, cb = (ctypes.c_double() for _ in range(4))
        rl, rt, rr, rb = (ctypes.byref(x) for x in (cl, ct, cr, cb))
        count_rects, get_rect, get_origin, generated, get_size = _COUNT_RECTS, _GET_RECT, _GET_ORIGIN, _GENERATED, _GET_SIZE
        out: list[Word] = []
        prev_end = -1
        # baseline, box height and font size of the last word: the font size is asked once per run
        last_base, last_h, last_size = float("inf"), 0.0, 0.0
        for m in _NONSPACE.finditer(text):
            start, end = m.span()
            # One space character the PDF itself contains (not one pdfium generated at a gap) joins
            # two words of one cell, however wide the font sets it.
            spaced = prev_end >= 0 and start - prev_end == 1 and text[prev_end] == " " and not generated(raw, prev_end)
            prev_end = end
            k = count_rects(raw, start, end - start)
            if k <= 0:
                continue
            if k == 1:
                get_rect(raw, 0, rl, rt, rr, rb)
                left, bottom, right, top = cl.value, cb.value, cr.value, ct.value
                h0 = top - bottom
            else:
                rects = []
                for j in range(k):
                    get_rect(raw, j, rl, rt, rr, rb)
                    rects.append((cl.value, cb.value, cr.value, ct.value))
                h0 = rects[0][3] - rects[0][1]
            get_origin(raw, start, rox, ro)
            base = height - oy.value
            if abs(last_base - base) < 0.5 and abs(last_h - h0) <= 0.15 * (1.0 if h0 < 1.0 else h0):
                size = last_size
            else:
                size = get_size(raw, start) or h0  # (a float either way: pdfium's size is a c_double)
                last_base, last_h, last_size = base, h0, size
            if k == 1:  # the usual word: one rectangle, no part to split off
                t = m.group()
                if not t.isascii():
                    t = _plain(t)
                if t:
                    out.append(Word(t, left, right, height - top, height - bottom, base, size, spaced))
                continue
            if not all(abs(r[1] - rects[0][1]) < 0.5 * size for r in rects) or _gap_split(rects, size):
                parts = _split_by_chars(raw, start, m.group(), height)  # a word broken across lines or a gap
            else:
                box = (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))
                parts = [(m.group(), box, base)]
            n_before = len(out)
            for t, (left, b, r, tt), wbase in parts:
                if not t.isascii():
                    t = _plain(t)
                if t:
                    out.append(Word(t, left, r, height - tt, height - b, wbase, float(size)))
            if spaced and len(out) > n_before:
                out[n_before].spaced = True
        return out
    finally:
        if textpage is None:
            tp.close()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _plain(t: str) -> str:
    """A non-ASCII word's text as the page reads: surrogate pairs joined, soft and odd hyphens made
    "-", then `normalize`d."""
    return normalize(_astral(t).replace("\ufffe", "-").replace("\u00ad", "-")).strip()


def _astral(t: str) -> str:
    """A word's text with each UTF-16 surrogate pair (pdfium counts a character outside the basic
    plane as two: math italic subscripts "𝑣𝑎𝑙") made one character again; lone halves dropped."""
    if not _SURROGATE.search(t):
        return t
    return t.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")


def _gap_split(rects: list, size: float) -> bool:
    xs = sorted(rects)
    return any(b[0] - a[2] > 0.8 * size for a, b in itertools.pairwise(xs))


def _split_by_chars(raw, start: int, text: str, height: float) -> list[tuple[str, tuple, float]]:  # type: ignore[no-untyped-def]
    """Split a token pdfium reports as one word where its characters change line or leave a gap."""
    lft, r, b, t = (ctypes.c_double() for _ in range(4))
    ox, oy = ctypes.c_double(), ctypes.c_double()
    box, origin = tuple(ctypes.byref(x) for x in (lft, r, b, t)), (ctypes.byref(ox), ctypes.byref(oy))
    parts: list[list] = []
    for i, ch in enumerate(text):
        _GET_BOX(raw, start + i, *box)
        _GET_ORIGIN(raw, start + i, *origin)
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
    height = page.get_height()
    out: list[tuple[float, float, float]] = []
    get_type, get_bounds = _OBJECT_TYPE, _OBJECT_BOUNDS
    path, form, unknown = pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_FORM, pdfium_c.FPDF_PAGEOBJ_UNKNOWN
    fl, fb, fr, ft = (ctypes.c_float() for _ in range(4))
    bounds = tuple(ctypes.byref(x) for x in (fl, fb, fr, ft))

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
            if kind == path and get_bounds(obj, *bounds):  # (bounds not found: not a rule)
                x0, b, x1, t = fl.value, fb.value, fr.value, ft.value
                if t - b <= 2.0 and x1 - x0 >= 15:
                    out.append((height - (t + b) / 2, x0, x1))
            if kind == form and level < max_depth - 1:
                walk(obj, pdfium_c.FPDFFormObj_CountObjects, pdfium_c.FPDFFormObj_GetObject, level + 1)

    walk(page.raw, pdfium_c.FPDFPage_CountObjects, _PAGE_OBJECT, 0)  # (a form's index is an unsigned long: typed)
    return out


_X0 = operator.attrgetter("x0")


def group_lines(words: list[Word]) -> list[Line]:
    """Words with the same baseline (within a third of the font size) form a line, sorted by x."""
    lines: list[Line] = []
    last: list[Word] = []  # the words of the last line
    prev_base = 0.0  # the baseline of the word before (the last word of the last line)
    for w in _by_base(words):
        if lines and abs(prev_base - w.base) <= 0.3 * (1 if w.size < 1 else w.size):
            last.append(w)
        else:
            last = [w]
            lines.append(Line(last))
        prev_base = w.base
    for ln in lines:
        ln.words.sort(key=_X0)
    return _raised_marks(lines)


def _by_base(words: list[Word]) -> list[Word]:
    """`words` sorted by (baseline rounded to 0.1, x0), as `sorted` with that key orders them (ties
    in their order). Each distinct baseline is rounded once (a line's words share theirs, and
    `round` to a digit costs more than the sort's other work), the keys built in C by `zip`."""
    bases = [w.base for w in words]
    rounded = {b: round(b, 1) for b in set(bases)}
    if any(b != b for b in rounded):  # a NaN baseline (a broken PDF): the plain key, as it orders them
        return sorted(words, key=lambda w: (round(w.base, 1), w.x0))
    keys = zip(map(rounded.__getitem__, bases), [w.x0 for w in words], range(len(words)), strict=True)
    return [words[i] for _b, _x, i in sorted(keys)]


def _raised_marks(lines: list[Line]) -> list[Line]:
    """A line of one short letter set raised right after a word of the line below it (no gap:
    a superscript "T" after "DeepSeek-V4-Pro") is part of that word's line, not a line of its own."""
    out: list[Line] = []
    for i, ln in enumerate(lines):
        w = ln.words[0]
        host = None
        if len(ln.words) == 1 and len(w.text) <= 2 and w.text.isalpha() and i + 1 < len(lines):
            below = lines[i + 1]
            if 0 < below.words[0].base - w.base <= 0.6 * w.size:
                host = next((b for b in below.words if 0 <= w.x0 - b.x1 <= 0.15 * w.size), None)
        if host is not None:
            lines[i + 1].words.append(w)
            lines[i + 1].words.sort(key=lambda x: x.x0)
        else:
            out.append(ln)
    return out


#: Gap (in font sizes) that separates table cells: word spaces are at most about 0.33 em, the
#: narrowest column gaps measured in report tables about 0.5 em.
CELL_GAP_EM = 0.42


def page_cell_gap(lines: list[Line]) -> float:
    """The cell gap of a page: CELL_GAP_EM, or more where the font sets wide word spaces (the
    median gap between words of a line, measured on the page's own text, times 1.35)."""
    gaps = [
        gap / size
        for ln in lines
        for a, b in itertools.pairwise(ln.words)
        if 0 < (gap := b.x0 - a.x1) < (size := 1 if a.size < 1 else a.size)  # (`max(a.size, 1)` without the call)
    ]
    if len(gaps) < 20:
        return CELL_GAP_EM
    return max(CELL_GAP_EM, 1.35 * statistics.median(gaps))


def in_body(top: float, bottom: float, page_height: float) -> bool:
    """Whether something set from `top` to `bottom` lies in a page's body: its middle outside the
    outer 5% of the page, where running headers and footers stand."""
    return 0.05 * page_height < (top + bottom) / 2 < 0.95 * page_height


def body_words(words: list[Word], page_height: float) -> list[Word]:
    """The words that lie in a page's body (`in_body`), its test inline: a page has thousands."""
    lo, hi = 0.05 * page_height, 0.95 * page_height
    return [w for w in words if lo < (w.top + w.bottom) / 2 < hi]


def page_lines(words: list[Word], page_height: float = 0.0) -> tuple[list[Line], float]:
    """A page's lines with their segments set, and the page's cell gap: the one line grouping both
    table readers start from. `page_height`: when given, words in the outer 5% of the page
    (running headers and footers) are left out."""
    if page_height > 0:
        words = body_words(words, page_height)
    lines = group_lines(words)
    gap_em = page_cell_gap(lines)
    for ln in lines:
        ln.segs = segs = split_segments(ln.words, gap_em)
        # complete now: its text and extent, which every page reader asks of every line, set as
        # `Line` would work them out when first read
        ln.text = segs[0].text if len(segs) == 1 else " ".join([s.text for s in segs])
        ln.top = min([w.top for w in ln.words])
        ln.bottom = max([w.bottom for w in ln.words])
    return lines, gap_em


#: Signs that tie the numbers on both sides into one printed value ("95.0 / 89.5", "32 × 16 × 400").
_TIES = ("/", "\u00d7")
#: A comma or range sign printed as a word of its own ("P1 , P2", "A1 ∼ B4") ties the items beside it.
_SEPARATORS = (",", "\u223c")


def split_segments(words: list[Word], gap_em: float = CELL_GAP_EM) -> list[Seg]:
    """A line's words (left to right, as `group_lines` sets them) in segments: runs closer than a
    cell gap, and runs tied by a slash or a times sign at the edge of a word ("95.02 / 89.57 /
    84.89", "32 × 16 × 400" set with wide spaces are one packed cell)."""
    segs: list[Seg] = []
    last: list[Word] = []  # words of the last segment
    prev: Word | None = None  # its last word
    for w in words:
        if prev is not None:
            gap = w.x0 - prev.x1
            size = 1 if w.size < 1 else w.size  # max(w.size, 1) without the call
            if (
                gap < gap_em * size
                or (w.spaced and gap < 0.75 * size)
                # a slash between numbers ties them: "95.02 / 89.57 / 84.89" is one packed cell
                or (gap < 2.0 * size and (prev.text.endswith(_TIES) or w.text.startswith(_TIES)))
                # a list or range of items set apart by a comma or range sign standing alone ("P1 , P2 ,
                # P3", "A1 ∼ B4") is one cell; prose sets its commas against the word before
                or (gap < size and (prev.text in _SEPARATORS or w.text in _SEPARATORS))
            ):
                last.append(w)
                prev = w
                continue
        last = [w]
        prev = w
        segs.append(Seg(last))
    for seg in segs:  # complete now: each one's text and extent set as `Seg` would work them out when first read
        ws = seg.words
        seg.x0, seg.x1 = ws[0].x0, ws[-1].x1
        seg.text = ws[0].text if len(ws) == 1 else " ".join(x.text for x in ws)
    return segs
