"""Table regions on a page: the run of tabular lines next to a "Table N" caption."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ingest.reading.captions import caption_text
from ingest.reading.pdf_words import CELL_GAP_EM, page_lines, split_segments
from ingest.reading.table_text import CAPTION, DASH, FIGURE_CAPTION, HEADING, Line, Word, is_value


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
    if len(segs) >= 4 and 2 * len(segs) >= len(words):
        return False  # words set apart in cells ("func  param  p_v  func ..."), however lower-case: no sentence
    if len(words) >= 5 and lower >= 0.6 and values <= 1:
        return True  # a sentence (the last line of a paragraph, too)
    if values >= 1:
        return False
    if span <= 0.45 * width or len(words) < 6:
        return False
    return len(segs) <= max(1, len(words) // 4) or lower >= 0.5


def find_regions(
    words: list[Word],
    page_width: float,
    rules: list[tuple[float, float, float]] | None = None,
    page_height: float = 0.0,
    prepared: tuple[list[Line], float] | None = None,
) -> list[Region]:
    """Table regions next to "Table N" captions (see the module docstring). `page_height`: when
    given, lines in the outer 5% of the page (running headers and footers) are no part of a table.
    `prepared`: `page_lines(words, page_height)` when the caller has it already (made once a page)."""
    lines, gap_em = prepared if prepared is not None else page_lines(words, page_height)
    for k, ln in enumerate(lines):
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
        out.append(Region(label, caption_text(lines, ci)[0], sorted(body, key=lambda ln: ln.base), lines[ci], gap_em))
    return out


def _n_data(lines: list[Line]) -> int:
    return sum(1 for ln in lines if sum(is_value(s.text) for s in ln.segs) >= 1)


def _heads_rows(lines: list[Line], i: int, step: int, out: list[Line]) -> bool:
    """Whether line `i`, though set like prose (names close together), is the header of the rows
    next to it: no sentence ends in it, it has two or more segments, and the line under it is a
    row of two or more values (walking down: the next line, with nothing read yet; walking up:
    the rows read so far)."""
    ln = lines[i]
    if ln.text.rstrip().endswith(".") or len(ln.segs) < 2:
        return False
    if step > 0:
        if out:
            return False
        below = next((lines[k] for k in range(i + 1, min(i + 3, len(lines))) if lines[k].words), None)
    else:
        below = out[-1] if out else None
    if below is None or below.top - ln.bottom > 2.2 * max(ln.size, below.size):
        return False
    return sum(is_value(s.text) for s in below.segs) >= 2


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
        if i in others or (len(ln.segs) <= 3 and HEADING.match(ln.text) and not any(is_value(s.text) for s in ln.segs[1:])):
            break  # a section heading ("5.3. Training Metric Analysis") ends the table on either side
        gap = (ln.top - prev.bottom) if step > 0 else (prev.top - ln.bottom)
        limit = (3.0 if not out else 2.2) * max(ln.size, prev.size)
        lo_y, hi_y = sorted((ln.base, prev.base))
        if any(lo_y < y < hi_y for y, _a, _b in rules):  # a drawn rule in the gap: rows set further apart
            limit += 2.0 * max(ln.size, prev.size)
        if gap > limit:
            break
        if _is_prose(ln, width):
            if not _heads_rows(lines, i, step, out):
                break
            out.append(ln)  # the header over the rows, its names set close together
            if step < 0:
                break  # above the rows, nothing more belongs to the table
            prev = ln
            i += step
            continue
        if step < 0 and _ends_paragraph(lines, i, width):
            break  # the short last line of the paragraph above the table
        out.append(ln)
        prev = ln
        i += step
    # Trim non-tabular lines at the far end (a stray line of prose or a page header).
    while out and _n_data([out[-1]]) == 0 and len(out[-1].segs) < 2 and step > 0:
        out.pop()
    return out


def _ends_paragraph(lines: list[Line], i: int, width: float) -> bool:
    """Line i is one cell with no value, set at the left edge of the prose line right above it, at
    that paragraph's line spacing: the paragraph's (short) last line, not a table line."""
    ln = lines[i]
    if i < 1 or len(ln.segs) != 1 or is_value(ln.text):
        return False
    up = lines[i - 1]
    return abs(up.x0 - ln.x0) <= 1.0 and ln.top - up.bottom < 0.6 * ln.size and _is_prose(up, width)


def panels(region: Region) -> list[Region]:
    """A region cut where a header row follows rows of values: a table of stacked panels, each
    read under its own headers ("#TP #AP Swift R Julia …" after the rows under "#TP #AP Python Java …").

    A line starts a new panel when at least two rows of values are above it in its panel, it holds
    no value and no dash, has three or more segments, none in the label zone (left of every row's
    first value), most of them over value columns above, and a row of values follows it (past a
    group heading of one segment)."""
    lines = region.lines
    out: list[Region] = []
    start = 0
    data: list[Line] = []
    for i, ln in enumerate(lines):
        n_values = sum(is_value(s.text) for s in ln.segs)
        if n_values >= 2:
            data.append(ln)
            continue
        # the next row of values, past a group heading (a line of one segment)
        nxt = next((x for x in lines[i + 1 : i + 3] if len(x.segs) > 1), None)
        if (
            len(data) >= 2 and n_values == 0 and len(ln.segs) >= 3 and nxt is not None
            and sum(is_value(s.text) for s in nxt.segs) >= 2 and not any(DASH.match(s.text) for s in ln.segs)
            and _over_values(ln, data)
        ):  # fmt: skip
            out.append(replace(region, lines=lines[start:i]))
            start, data = i, []
    out.append(replace(region, lines=lines[start:]))
    return out


def _over_values(ln: Line, data: list[Line]) -> bool:
    """The line has no segment in the label zone and most of its segments stand over values above."""
    firsts = [next(s.x0 for s in d.segs if is_value(s.text)) for d in data]
    if ln.x0 < min(firsts) - 1:
        return False
    spans = sorted((s.x0 - 2, s.x1 + 2) for d in data for s in d.segs if is_value(s.text))
    over = sum(1 for s in ln.segs if any(a <= (s.x0 + s.x1) / 2 <= b for a, b in spans))
    return 2 * over >= len(ln.segs)
