"""Table regions on a page, found without captions or catalogue: runs of lines set in columns.

A line is *tabular* when it splits into two or more segments at cell gaps and is not prose (a
sentence, or two text columns side by side: segments of many lower-case words). A region is a run
of lines, at least two of them tabular, with no caption, prose line or wide vertical gap between
them; single-segment lines inside the run (row-group labels, wrapped labels) belong to it, those at
its bottom do not (notes, sources), and those at its top only when they stand over the columns
(a spanning header), not at the left margin (a title or section heading). The region's structure
is read by `ingest.reading.structure.table_from_lines`.

`read_pdf_tables` is the library function of the `tables` command: bounded in pages and time,
one `TablesError` with a plain message for a file it cannot read.
"""

from __future__ import annotations

import bisect
import operator
import re
import time
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pypdfium2 as pdfium

from ingest.common.document import DEFAULT_LIMITS
from ingest.reading.captions import label_tables
from ingest.reading.pdf_words import body_words, group_lines, page_cell_gap, page_lines, page_rules, page_words
from ingest.reading.structure import Box, Table, lines_box, table_from_lines, table_from_words
from ingest.reading.table_text import CAPTION, FIGURE_CAPTION, Line, Seg, Word, is_value

#: The most pages the `tables` command reads (the pipeline's own page limit).
MAX_PAGES = 3000
#: Words on one page beyond which the page is not read (a hostile or broken page; real pages hold
#: a few thousand), and lines per region beyond which a run is read in parts (work per region grows
#: with the square of its cells).
MAX_PAGE_WORDS = 20_000
MAX_REGION_LINES = 200
#: Lines a page's search for a table beside prose may look at, per line of the page: a real page
#: tries a few candidate lines; one built to make every line a candidate is read without the split.
BAND_WORK_PER_LINE = 50
#: Seconds the `tables` command may spend reading pages before it stops with what it has.
TIME_LIMIT = 120.0
_BULLET = re.compile(r"^([\u2022\u2023\u25aa\u25cf\u25e6\u2013\u2014\u2212*-]|\(?[a-zA-Z0-9]{1,3}[.)]|\d{1,2}(\.\d{1,2})+\.?)$")
#: First words of the notes under a table (kept out of its region).
_NOTE = re.compile(r"^(Sources?|Notes?|Footnotes?)\b\s*:?", re.I)
_HEADING = re.compile(r"^\d{1,2}(\.\d{1,2})*\.?\s+\S")


class TablesError(Exception):
    """A file or page selection the `tables` command cannot read; the message is one line."""


def page_tables(
    words: list[Word],
    rules: list[tuple[float, float, float]],
    page_width: float,
    page: int,
    page_height: float = 0.0,
    prepared: tuple[list[Line], float] | None = None,
) -> list[Table]:
    """Every table found among one page's words (top to bottom): the tables of `page_runs`
    (`prepared`: as `page_runs` takes it)."""
    runs = page_runs(words, rules, page_width, page_height, prepared)
    return [t.with_rules(rules) for run in runs if (t := run_table(run, page)) is not None]


def run_table(run: list[Line], page: int) -> Table | None:
    """The table of one run of `page_runs`; None when its lines hold no two rows of two cells."""
    table = table_from_lines(run, page)
    return table if table is not None and _is_table(table) else None


def page_runs(
    words: list[Word],
    rules: list[tuple[float, float, float]],
    page_width: float,
    page_height: float = 0.0,
    prepared: tuple[list[Line], float] | None = None,
    _depth: int = 0,
) -> list[list[Line]]:
    """The runs of table lines of one page, in the order of their tables (top to bottom); each run's
    box (`structure.lines_box`) is its table's, so a caller wanting the table over one place reads
    only the runs there (`run_table`).

    `page_height`: when given, lines in the outer 5% of the page (running headers and footers) are
    left out. A band where a table stands beside a column of prose (`_side_columns`) is read as
    two columns, so the prose does not become the table's first column. `prepared`:
    `pdf_words.page_lines(words, page_height)` when the caller has it (used when no word's size
    needs fixing, so it is the same grouping)."""
    if page_height > 0:
        words = body_words(words, page_height)
    fixed = fix_sizes(words)
    same = prepared is not None and all(map(operator.is_, fixed, words))  # (as long: `fix_sizes` maps each word)
    lines = prepared[0] if prepared is not None and same else page_lines(fixed)[0]
    words = fixed
    if not lines:
        return []
    side = _side_columns(lines) if _depth < 2 else None
    if side is not None:  # the table column and the rest of the page apart; the prose column is no table
        g, top, bottom, prose_side = side
        parts: list[list[Word]] = [[], [], []]  # above the band, its table side, below it (by word centres)
        for w in words:
            x, y = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
            if y < top:
                parts[0].append(w)
            elif y > bottom:
                parts[2].append(w)
            elif top <= y <= bottom and (x - g) * prose_side < 0:
                parts[1].append(w)
        found = [r for ws in parts if ws for r in page_runs(ws, rules, page_width, 0.0, None, _depth + 1)]
        return sorted(found, key=lambda r: (lines_box(r)[1], lines_box(r)[0]))
    left = min(ln.x0 for ln in lines)
    width = max(max(ln.x1 for ln in lines) - left, 1.0)
    kinds = _aligned_text(lines, [_kind(ln, width) for ln in lines], left)
    return _runs(lines, kinds, rules)


def _blocks(ln: Line) -> list[list[Seg]]:
    """A line's segments grouped where they are closer than 1.2 em (justified word spaces split a
    line of prose into segments; a column gutter or a table's column gap is wider)."""
    out: list[list[Seg]] = []
    for s in ln.segs:
        if out and s.x0 - out[-1][-1].x1 < 1.2 * ln.size:
            out[-1].append(s)
        else:
            out.append([s])
    return out


def _prose_block(block: list[Seg]) -> bool:
    return _prose_seg(" ".join(s.text for s in block))


def _side_columns(lines: list[Line]) -> tuple[float, float, float, int] | None:
    """(gutter x, top, bottom, side of the prose: -1 left, 1 right) of a band where a table stands
    beside a column of prose.

    A table set in one column of a page, next to a paragraph in the other, shares some baselines
    with the paragraph: such a line starts (or ends) with a run of prose, then a gutter, then the
    table's cells. The paragraph keeps its own line pitch, so most of its lines hold prose on one
    side of the gutter and nothing on the other. The band is the run of lines around the shared
    line that no word crosses the gutter in; it counts when its one-sided prose lines, filled to
    the gutter like a justified column, outnumber its shared lines two to one, and at least two
    of its lines hold two or more cells on the other side (a table, not a margin tab). (A table whose
    first column holds sentences shares a baseline on nearly every row, and its wrapped cells
    are few and short.)"""
    prose: list[bool] = []  # whole-line prose, asked of every line of every band: found once, when first needed
    work, budget = 0, BAND_WORK_PER_LINE * len(lines)
    tried: dict[tuple[float, float, int], set[int]] = {}  # gutter -> lines of the bands it failed in
    for k, ln in enumerate(lines):
        if len(ln.segs) < 2:
            continue  # one segment: one block
        blocks = _blocks(ln)
        if len(blocks) < 2:
            continue
        # prose in the first block or the last, not both, and in no block between (a row of a
        # table, prose in neither end block, is passed without a look at the blocks between)
        first, last = _prose_block(blocks[0]), _prose_block(blocks[-1])
        if first == last or any(_prose_block(b) for b in blocks[1:-1]):
            continue
        if first:
            lo, hi, side = blocks[0][-1].x1, blocks[1][0].x0, -1
        else:
            lo, hi, side = blocks[-2][-1].x1, blocks[-1][0].x0, 1
        if k in tried.get((lo, hi, side), ()):  # in a band this gutter failed in: the same band, the same answer
            continue
        g = (lo + hi) / 2
        prose = prose or [_prose_block(x.segs) for x in lines]
        first, last, walked = _band(lines, k, g)
        work += walked + (last - first + 1)
        if work > budget:  # a page built to make every line a new candidate: read without the split
            return None
        band = range(first, last + 1)
        tried.setdefault((lo, hi, side), set()).update(band)
        one_sided = [i for i in band if prose[i] and (lines[i].x1 < g if side < 0 else lines[i].x0 > g)]
        filled = [i for i in one_sided if _filled(lines[i], side, lo, hi)]
        shared = [i for i in band if lines[i].x0 < g < lines[i].x1]
        tabular = sum(1 for i in band if sum(1 for s in lines[i].segs if (s.x0 - g) * side < 0) >= 2)
        if len(filled) < 3 or tabular < 2:
            continue
        if len(one_sided) >= 2 * len(shared) or _justified(lines, one_sided, filled, shared, g, side, lo, hi):
            return g, min(lines[i].top for i in band), max(lines[i].bottom for i in band), side
    return None


def _justified(
    lines: list[Line], one_sided: list[int], filled: list[int], shared: list[int], g: float, side: int, lo: float, hi: float
) -> bool:
    """Whether the prose beside the gutter is a justified column even where it shares most baselines
    with the table (a paragraph set at the table's own line pitch): nearly every line's prose part,
    one-sided or shared, is prose and reaches the gutter. A table whose first column holds sentences
    is set ragged: its cells end where their words end."""
    reach = len(filled)
    for i in shared:
        part = [s for s in lines[i].segs if (s.x1 < g if side < 0 else s.x0 > g)]
        if sum(len(s.text.split()) for s in part) >= 2:
            edge = part[-1].x1 if side < 0 else part[0].x0
            reach += edge > lo - 1.5 * lines[i].size if side < 0 else edge < hi + 1.5 * lines[i].size
    return len(shared) >= 2 and reach >= 6 and reach >= 0.8 * (len(one_sided) + len(shared))


def _filled(ln: Line, side: int, lo: float, hi: float) -> bool:
    """A prose line on one side that reaches the gutter, like a justified column."""
    return ln.x1 > lo - 1.5 * ln.size if side < 0 else ln.x0 < hi + 1.5 * ln.size


def _band(lines: list[Line], k: int, g: float) -> tuple[int, int, int]:
    """The first and last index of the run of lines around line k in which x = g is a gap (no word
    over it, no word space across it), and the number of lines looked at (a line that crosses ends
    the run)."""

    def crosses(ln: Line) -> bool:  # a word over x = g, or words set across it a word space apart
        before = [w.x1 for w in ln.words if w.x1 <= g]
        after = [w.x0 for w in ln.words if w.x0 >= g]
        gap = min(after) - max(before) if before and after else float("inf")
        return any(w.x0 < g < w.x1 for w in ln.words) or gap < 1.2 * ln.size

    lo = k
    while lo > 0 and not crosses(lines[lo - 1]):
        lo -= 1
    hi = k
    while hi + 1 < len(lines) and not crosses(lines[hi + 1]):
        hi += 1
    return lo, hi, hi - lo + 1 + (lo > 0) + (hi + 1 < len(lines))


def table_in_box(words: list[Word], box: Box, page: int, gap_em: float | None = None) -> Table | None:
    """The table inside a known region (words whose centre lies in `box`, top-down points)."""
    x0, top, x1, bottom = box
    words = fix_sizes(words)
    inside = [w for w in words if x0 - 1 <= (w.x0 + w.x1) / 2 <= x1 + 1 and top - 1 <= (w.top + w.bottom) / 2 <= bottom + 1]
    if gap_em is None:
        gap_em = page_cell_gap(group_lines(words))
    return table_from_words(inside, page, gap_em)


def fix_sizes(words: list[Word]) -> list[Word]:
    """Words whose reported font size is far below their box height (a PDF that scales text by its
    matrix reports size 1) take the box height, so gaps measured in font sizes stay meaningful."""
    return [replace(w, size=w.bottom - w.top) if w.size < 0.5 * (w.bottom - w.top) else w for w in words]


def _kind(ln: Line, width: float) -> str:
    """'cap' (a caption), 'prose', 'tab' (cells set apart) or 'one' (a single cell or short line)."""
    text = ln.text
    if CAPTION.match(text) or FIGURE_CAPTION.match(text):
        return "cap"
    segs = _item_segs(ln)
    words = ln.words
    if len(segs) >= 4 and _repeated_cells(segs):
        return "tab"  # the same sub-headers over each group of columns ("func param p_v func ..."), however lower-case
    # mostly lower-case words (counted only on a line of eight or more: the tests below ask no other)
    lower = len(words) >= 8 and sum(1 for w in words if w.text[:1].islower()) >= 0.5 * len(words)
    if lower and ln.x1 - ln.x0 > 0.6 * width and sum(is_value(w.text) for w in words) <= 1:
        return "prose"  # a justified line of a paragraph (wide word spaces split it)
    if len(segs) >= 2:
        if all(_prose_seg(s.text) for s in segs):
            return "prose"  # text columns side by side
        return "tab"
    if lower and ln.x1 - ln.x0 > 0.4 * width:
        return "prose"
    return "one"


def _repeated_cells(segs: list[Seg]) -> bool:
    """Most of a line's segments repeat another of its segments (sub-headers printed once under
    each group of columns): a sentence does not repeat most of its words."""
    texts = [s.text for s in segs]
    if len(set(texts)) == len(texts):
        return False  # no text repeated (most lines): nothing to count
    counts = Counter(texts)
    return 2 * sum(n for n in counts.values() if n >= 2) >= len(segs) + 1


def _item_segs(ln: Line) -> list[Seg]:
    """A line's segments without a leading bullet or list number (a list item is not a row)."""
    segs = ln.segs
    first = segs[0].text.strip() if segs else ""
    glyph = len(first) <= 2 and not any(ch.isalnum() for ch in first)  # a bullet glyph of any font
    if len(segs) >= 2 and (glyph or _BULLET.match(first)) and not is_value(segs[1].text):
        return segs[1:]
    return segs


def _aligned_text(lines: list[Line], kinds: list[str], left: float) -> list[str]:
    """Text cells of a table set as sentences (a description column) look like prose; they are
    table lines when they start where other lines' later cells start (a column seen on at least
    three lines), the mark of a column, which a paragraph's justified word gaps do not repeat."""
    starts: list[float] = []
    for ln in lines:
        segs = _item_segs(ln)
        if _labelled_row(segs):
            starts.extend(s.x0 for s in segs[1:])
    starts.sort()

    def column_at(x: float) -> bool:  # three starts within 2 pt (sorted: two bisections, not a scan)
        return bisect.bisect_right(starts, x + 2.0) - bisect.bisect_left(starts, x - 2.0) >= 3

    out = list(kinds)
    for k, (ln, kind) in enumerate(zip(lines, kinds, strict=True)):
        if kind != "prose":
            continue
        segs = _item_segs(ln)
        if len(segs) >= 2:
            if _labelled_row(segs) and any(column_at(s.x0) for s in segs[1:]):
                out[k] = "tab"
        elif len(ln.segs) == 1 and ln.x0 > left + 3 * ln.size and column_at(ln.x0):
            out[k] = "one"
    return out


def _labelled_row(segs: list[Seg]) -> bool:
    """A short label and a few cells (2 to 4 segments): a row of a text table, not a justified line."""
    return 2 <= len(segs) <= 4 and len(segs[0].words) <= 5 and not _prose_seg(segs[0].text)


@lru_cache(maxsize=16384)
def _prose_seg(text: str) -> bool:
    """Whether a segment's text reads as prose: five or more words, most of them lower-case, at
    most one a value (cached: a line's text is asked by several of the page's tests)."""
    words = text.split()
    if len(words) < 5:
        return False
    lower = sum(1 for w in words if w[:1].islower())
    return lower >= 0.5 * len(words) and sum(is_value(w) for w in words) <= 1


def _runs(lines: list[Line], kinds: list[str], rules: list[tuple[float, float, float]]) -> list[list[Line]]:
    """Runs of table lines (see the module docstring)."""
    runs: list[list[int]] = []
    cur: list[int] = []
    rule_ys = sorted(y for y, _x0, _x1 in rules)
    for i, kind in enumerate(kinds):
        if kind in ("cap", "prose") or (cur and _far(lines[cur[-1]], lines[i], rule_ys)):
            if cur:
                runs.append(cur)
            cur = []
            if kind in ("cap", "prose"):
                continue
        cur.append(i)
    if cur:
        runs.append(cur)
    out: list[list[Line]] = []
    for run in runs:
        tab = [i for i in run if kinds[i] == "tab"]
        if len(tab) < 2:
            continue
        body = _trim_notes(lines, [i for i in run if tab[0] <= i <= tab[-1]])
        if sum(1 for i in body if kinds[i] == "tab") < 2:
            continue
        head = [i for i in run if i < tab[0]]
        body = _header_lines(lines, head, body) + body
        for k in range(0, len(body), MAX_REGION_LINES):
            out.append([lines[i] for i in body[k : k + MAX_REGION_LINES]])
    return out


def _trim_notes(lines: list[Line], body: list[int]) -> list[int]:
    """Drop the notes under a table: from a line that starts "Source"/"Note"; below the last row
    holding a value, from a line that starts with a note mark ("(*)", "\u2020", "(:)") or defines a
    term ("GDP: ..."); then the bottom lines set in a smaller font than the table's rows."""
    for k, i in enumerate(body):
        if k >= 2 and _NOTE.match(lines[i].text):
            body = body[:k]
            break
    valued = [k for k, i in enumerate(body) if any(is_value(s.text) for s in lines[i].segs)]
    if len(valued) >= 3:
        for k in range(valued[-1] + 1, len(body)):
            first = lines[body[k]].segs[0].text
            if not first[:1].isalnum() or (first.endswith(":") and len(first.split()) <= 3):
                body = body[:k]
                break
    sizes = sorted(lines[i].size for i in body)
    typical = sizes[len(sizes) // 2]
    end = len(body)
    while end > 2 and lines[body[end - 1]].size < 0.88 * typical:
        end -= 1
    return body[:end]


def _far(a: Line, b: Line, rule_ys: list[float]) -> bool:
    """Lines too far apart to be rows of one table (a drawn rule between allows more); `rule_ys`: the
    heights of the page's rules, sorted (one bisection per pair of lines, not a scan of the rules)."""
    size = max(a.size, b.size)
    limit = 2.2 * size
    k = bisect.bisect_right(rule_ys, a.base)
    if k < len(rule_ys) and rule_ys[k] < b.base:  # a rule strictly between the two baselines
        limit += 2.0 * size
    return b.top - a.bottom > limit


def _header_lines(lines: list[Line], head: list[int], body: list[int]) -> list[int]:
    """Single-segment lines just above a run that stand over its columns (spanning headers)."""
    left = min(lines[i].x0 for i in body)
    right = max(lines[i].x1 for i in body)
    keep: list[int] = []
    below = lines[body[0]]
    for i in reversed(head):
        ln = lines[i]
        if below.top - ln.bottom > 1.2 * max(ln.size, below.size):
            break
        if ln.x0 < left + 0.2 * (right - left) or _HEADING.match(ln.text) or ln.text.rstrip().endswith(":"):
            break
        keep.insert(0, i)
        below = ln
    return keep


def _is_table(t: Table) -> bool:
    """At least two rows with two or more cells each."""
    per_row: dict[int, int] = {}
    for c in t.cells:
        per_row[c.row] = per_row.get(c.row, 0) + 1
    return sum(1 for n in per_row.values() if n >= 2) >= 2


def parse_pages(text: str | None) -> set[int] | None:
    """ "3,5-7" -> {3, 5, 6, 7}; None for all pages. Raises TablesError for anything else."""
    if text is None or not text.strip():
        return None
    pages: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?", part)
        if not m:
            raise TablesError(f"--pages: {part.strip()!r} is not a page or range like 3 or 5-7")
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if a < 1 or b < a:
            raise TablesError(f"--pages: {part.strip()!r} is not a valid range (pages count from 1)")
        pages.update(range(a, min(b, MAX_PAGES) + 1))
    return pages


def open_pdf(path: Path) -> pdfium.PdfDocument:
    """The PDF at `path` (the caller closes it) after the file and size checks; TablesError with one
    plain line when it cannot be opened."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise TablesError(f"cannot read {p}: {exc.strerror or exc}") from None
    if not p.is_file():
        raise TablesError(f"{p} is not a file")
    if size > DEFAULT_LIMITS.max_file_bytes:
        raise TablesError(f"{p} is larger than the limit of {DEFAULT_LIMITS.max_file_bytes // (1 << 20)} MB")
    try:
        return pdfium.PdfDocument(str(p))
    except pdfium.PdfiumError as exc:
        why = "it needs a password" if "password" in str(exc).lower() else "not a readable PDF"
        raise TablesError(f"cannot open {p}: {why}") from None


def wanted_pages(
    pdf: pdfium.PdfDocument, path: Path, pages: set[int] | None, max_pages: int = MAX_PAGES
) -> tuple[list[int], list[str]]:
    """The page numbers to read (all for None) and a note for those beyond the last; TablesError over `max_pages`."""
    n = len(pdf)
    if n > max_pages:
        raise TablesError(f"{path} has {n} pages, more than the limit of {max_pages}")
    wanted = sorted(k for k in (pages or range(1, n + 1)) if 1 <= k <= n)
    return wanted, [f"pages beyond the last ({n}) skipped"] if pages and len(wanted) < len(pages) else []


def read_pdf_tables(
    path: Path, pages: set[int] | None = None, max_pages: int = MAX_PAGES, time_limit: float = TIME_LIMIT
) -> tuple[list[Table], list[str]]:
    """Every table the structure stage finds in a PDF, and notes (pages not read, time limit).

    Raises TablesError with one plain line when the file cannot be opened as a PDF."""
    pdf = open_pdf(path)
    tables: list[Table] = []
    try:
        wanted, notes = wanted_pages(pdf, Path(path), pages, max_pages)
        start = time.monotonic()
        for num in wanted:
            if time.monotonic() - start > time_limit:
                notes.append(f"time limit of {time_limit:g} s reached: pages {num}-{wanted[-1]} not read")
                break
            tables.extend(_read_page(pdf, num, notes))
    finally:
        pdf.close()
    return tables, notes


def _read_page(pdf, num: int, notes: list[str]) -> list[Table]:  # type: ignore[no-untyped-def]
    """One page's tables; a page pdfium cannot read gives a note, not an error."""
    try:
        page = pdf[num - 1]
        try:
            words = page_words(page)
            if len(words) > MAX_PAGE_WORDS:
                notes.append(f"page {num}: not read ({len(words)} words, more than the limit of {MAX_PAGE_WORDS})")
                return []
            rules = page_rules(page)
            return label_tables(fix_sizes(words), page_tables(words, rules, page.get_width(), num, page.get_height()))
        finally:
            page.close()
    except Exception as exc:  # one bad page never stops the file
        notes.append(f"page {num}: not read ({type(exc).__name__})")
        return []
