"""Captions of the tables the structure stage finds on a page: which "Table N" line names which table.

The structure stage (`ingest.reading.structure_regions.page_tables`) finds tables without
captions; a report's result tables are the captioned ones. A page sets its captions on one side of
their tables; each caption names the nearest table on that side that overlaps it horizontally, and
each table takes at most one caption. Nothing here knows benchmarks or models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ingest.reading.pdf_words import page_lines
from ingest.reading.structure import Table, table_from_words
from ingest.reading.table_text import CAPTION, Line, Word

#: How far (in the caption's font sizes) a caption may stand from its table.
MAX_GAP_EM = 12.0


@dataclass(frozen=True)
class Caption:
    """A "Table N" caption: the paper's own label ("Table 3"), its first sentence, and where it is."""

    label: str
    text: str
    top: float
    bottom: float
    x0: float
    x1: float
    size: float


def captions(lines: list[Line]) -> list[Caption]:
    """Every "Table N" caption of a page (lines top to bottom): its first sentence, and the box of
    its lines (a caption may wrap onto several)."""
    out = []
    for i, ln in enumerate(lines):
        m = CAPTION.match(ln.text)
        if m:
            text, last = caption_text(lines, i)
            bottom = max(lines[k].bottom for k in range(i, last + 1))
            out.append(Caption(f"Table {m.group(2)}", text, ln.top, bottom, ln.x0, ln.x1, ln.size))
    return out


#: Runs of white space, and a caption's first sentence (compiled once, not per job's process).
_SPACES = re.compile(r"\s+")
_SENTENCE = re.compile(r"^(.*?\.)(\s|$)")


def caption_text(lines: list[Line], i: int) -> tuple[str, int]:
    """The caption's first sentence (it may wrap onto the next lines), and the index of its last
    line: the lines set tight below it without cells of their own, up to three, each under some of
    the first line (a wrapped line starts under it; a short header over the columns to its right,
    "Probe" over three sub-headers, is the table's, not the caption's). The one caption
    joiner of both table readers: the sentence ends at a full stop followed by a space or the end,
    never at a decimal point ("Qwen2.5", "v1.5"); a line cut after a hyphen goes on without a
    space ("base-" "lines" is "base-lines": which hyphens a word keeps takes the whole document)."""
    text = lines[i].text
    j = i + 1
    while j < len(lines) and j < i + 4 and lines[j].top - lines[j - 1].bottom < 0.8 * lines[j].size:
        if len(lines[j].segs) > 1 or lines[j].x0 >= lines[i].x1 or lines[j].x1 <= lines[i].x0:
            break  # cells, or a line beside the caption's first (a header over columns), not its wrap
        # a hyphen at a line end (pdfium may give it as a word of its own) ties the lines
        text = text[:-1].rstrip() + "-" + lines[j].text if text.endswith("-") else text + " " + lines[j].text
        j += 1
    text = _SPACES.sub(" ", text).strip()
    m = _SENTENCE.match(text[8:])
    return (text[: 8 + m.end(1)] if m else text), j - 1


def _gap(cap: Caption, t: Table, side: int) -> float | None:
    """Vertical distance from a caption to a table on its `side` (1: the table below the caption,
    -1: above it); None when the table is not on that side."""
    _x0, top, _x1, bottom = t.bbox
    if side > 0 and cap.bottom <= top + 1:
        return max(top - cap.bottom, 0.0)
    if side < 0 and cap.top >= bottom - 1:
        return max(cap.top - bottom, 0.0)
    return None


def _pairs(tables: list[Table], caps: list[Caption], side: int) -> list[tuple[float, int, int]]:
    """Nearest-first pairing of captions with tables on one side of them: (gap, caption, table)."""
    cand = []
    for ci, c in enumerate(caps):
        for ti, t in enumerate(tables):
            g = _gap(c, t, side)
            if g is not None and g <= MAX_GAP_EM * c.size and min(c.x1, t.bbox[2]) > max(c.x0, t.bbox[0]):
                cand.append((g, ci, ti))
    used_c: set[int] = set()
    used_t: set[int] = set()
    out = []
    for g, ci, ti in sorted(cand):
        if ci not in used_c and ti not in used_t:
            used_c.add(ci)
            used_t.add(ti)
            out.append((g, ci, ti))
    return out


def attach(tables: list[Table], caps: list[Caption]) -> list[tuple[Caption, Table]]:
    """(caption, table) pairs. A page sets its captions on one side of their tables (above, or
    below): the side that names more tables wins (on a tie, the one with the nearer tables), so a
    caption between two tables goes to the one it belongs to even when the other is a little
    nearer. Each caption names at most one table and each table has at most one caption, within
    `MAX_GAP_EM` of it and overlapping it horizontally."""
    above, below = _pairs(tables, caps, 1), _pairs(tables, caps, -1)
    best = min((above, below), key=lambda ps: (-len(ps), sum(g for g, _c, _t in ps)))
    return sorted(((caps[ci], tables[ti]) for _g, ci, ti in best), key=lambda p: p[1].bbox[1])


def label_tables(words: list[Word], tables: list[Table], prepared: tuple[list[Line], float] | None = None) -> list[Table]:
    """The tables of one page, each a caption names given its label and caption text (the others
    unchanged). `words`: all the page's words (a caption may sit in the margin bands the structure
    stage leaves out); `prepared`: `pdf_words.page_lines(words)` when the caller has it."""
    if not tables or not any("able" in w.text or "ABLE" in w.text or w.text.startswith("Tab") for w in words):
        return tables
    lines, gap = prepared if prepared is not None else page_lines(words)
    named = {id(t): c for c, t in attach(tables, captions(lines))}
    out = []
    for t in tables:
        c = named.get(id(t))
        if c is None:
            out.append(t)
            continue
        t = _without_caption_lines(t, c, lines, gap) or t
        out.append(replace(t, label=c.label, caption=c.text))
    return out


def _without_caption_lines(t: Table, cap: Caption, lines: list[Line], gap: float) -> Table | None:
    """The table read again below the caption's continuation, when its region begins with lines set
    in the caption's font size, tight under the caption (with smaller glyphs, a superscript mark,
    among them), over a table set smaller than the caption; None when it does not. A caption's
    last wrapped line ("... marked with †.") is not the table's first row."""
    x0, top, x1, bottom = t.bbox
    if cap.bottom > top + 1:
        return None  # the caption is under the table
    below = [
        ln for ln in lines if cap.top - 0.5 <= ln.top and (ln.top + ln.bottom) / 2 <= bottom + 1 and ln.x1 > x0 and ln.x0 < x1
    ]
    inside = [ln for ln in below if (ln.top + ln.bottom) / 2 >= top - 1]
    tight = 0.8 * cap.size
    last = cap.top
    cut = None
    for ln in below:  # from the caption's first line down
        if abs(ln.size - cap.size) <= 0.3 and ln.top - last < tight:
            cut = last = max(last, ln.bottom)
        elif not (ln.top < last + tight / 2 and ln.bottom <= last + tight):
            break
    if cut is None or cut < top:
        return None
    rest = [ln for ln in inside if ln.top > cut]
    if not rest or not any(ln.size < cap.size - 0.5 for ln in rest):
        return None
    words = [w for ln in rest for w in ln.words if x0 - 1 <= (w.x0 + w.x1) / 2 <= x1 + 1]
    return table_from_words(words, t.page, gap)
