"""The caption-anchored grid reader of result tables on a PDF page, from word boxes and drawn
horizontal rules (what ingest runs; the structure stage reads each page a second time).

Off-the-shelf table finders fail on report PDFs, whose tables have no vertical rules. This reader
reads a table the way a reader does:

1. words with boxes and baselines (pdfium text page), grouped into lines by baseline
   (`ingest.reading.pdf_words`);
2. a table is the run of "tabular" lines next to a caption line "Table N" (above or below it,
   whichever side holds numeric rows; a run claimed by one caption is not given to another). A
   caption set beside a text column restricts the table to its own column
   (`ingest.reading.table_regions`);
3. columns are the x-bands of numeric cells in the data rows; text left of the first band is the
   label zone (its columns are found by left alignment, `ingest.reading.table_labels`); header
   lines above the first data row are assigned to bands by overlap, and a header segment that
   covers several bands spans them;
4. a row label printed once for several rows (a row-spanning model name, model size, or category)
   is given to the rows nearest to it in y that lack their own label, never across a drawn rule that
   crosses its column; a label line that no row takes is a group heading for the rows below it.

This module is steps 3-4: the region's grid (value columns, header, label columns and rows), a
`Grid` interpreted into result cells by `ingest.analysis.result_meaning`. `build_grid` runs the
steps in order; each step is a function of the previous steps' results.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from ingest.reading.pdf_words import split_segments
from ingest.reading.table_labels import LabelCols, corner_columns, label_columns
from ingest.reading.table_regions import Region
from ingest.reading.table_text import DASH, SIZE, Grid, GridRow, Line, Seg, Word, is_value

Rules = list[tuple[float, float, float]]
#: A header cell per value column: (text, columns spanned), top to bottom.
ColHeaders = list[list[tuple[str, int]]]


@dataclass
class _Bands:
    """Value columns: x-intervals of numeric segments in the data rows, merged where they overlap."""

    spans: list[list[float]]
    mids: list[float]
    pitch: float  # median distance between neighbouring band centres

    def nearest(self, x0: float, x1: float) -> int:
        """The band nearest to a segment's centre."""
        c = (x0 + x1) / 2
        return min(range(len(self.spans)), key=lambda k: abs(self.mids[k] - c))

    def room(self, k: int, side: int) -> float:
        """Half the distance from band k's centre to its neighbour on one side (-1 left, +1 right):
        columns set unevenly have unequal room for a header. At the table's edge a centred header
        has the room it has on the other side (half the pitch for a table of one column)."""
        n = k + side
        if not 0 <= n < len(self.mids):
            n = k - side
        return abs(self.mids[n] - self.mids[k]) / 2 if 0 <= n < len(self.mids) else self.pitch / 2

    def under_header(self, x0: float, x1: float, may_span: bool) -> list[int]:
        """Bands a header segment stands over: the contiguous run of bands whose centre is nearest
        to the segment's centre among the runs wide enough to hold it (a header much wider than
        the column pitch spans several columns). Only a header with header lines below may span."""
        mids, pitch = self.mids, self.pitch
        c, w = (x0 + x1) / 2, x1 - x0
        near = self.nearest(x0, x1)
        if not may_span:
            return [near]
        best: tuple[float, int, list[int]] | None = None
        for i in range(len(mids)):
            for j in range(i, len(mids)):
                extent = mids[j] - mids[i] + self.room(i, -1) + self.room(j, 1)
                if w > 1.25 * extent:
                    continue
                off = abs((mids[i] + mids[j]) / 2 - c)
                if off > pitch:
                    continue
                key = (round(off / max(pitch, 1) * 10), j - i, list(range(i, j + 1)))
                if best is None or key[:2] < best[:2]:
                    best = key
        return best[2] if best else [near]


@dataclass
class _Cells:
    """Per body line: label cells (label columns, then key bands) and value cells (value bands)."""

    labels: list[list[Seg | None]]
    values: list[list[str]]
    used_words: set[int]  # ids of words read into a value cell


def build_grid(
    region: Region,
    rules: Rules,
    is_key_header: Callable[[str], bool],
    is_attribute: Callable[[str], bool],
    is_label_word: Callable[[str], bool] | None = None,
) -> Grid | None:
    """Columns, header and rows of one region; None when it has no numeric rows.

    A line whose first cell is a label-column word ("Model", "Method") is a header line even
    when its other cells look numeric ("4K 8K 16K": context lengths)."""
    lines = region.lines
    described = _described_rows(lines)
    data_idx = _data_rows(lines, is_label_word, described)
    if not data_idx:
        return None
    first = data_idx[0]
    header_lines, body = lines[:first], lines[first:]
    bands = _value_bands(lines, data_idx)
    zone_end = bands.spans[0][0] - 0.5  # text segments starting left of the first band: label zone
    header_lines = [ln for ln in header_lines if not _attribute_line(ln, zone_end, is_attribute)]
    title = ""
    if _group_title_header(header_lines, body, zone_end):
        title = header_lines[-1].text
        header_lines = header_lines[:-1]
    col_headers, corner_parts = _header_cells(header_lines, bands, zone_end, rules)
    data_lines = {id(lines[i]) for i in data_idx}
    cols = label_columns(body, data_lines, len(data_idx), zone_end, region.gap_em)
    corner_cols = corner_columns(corner_parts, cols)
    inner_keys = [j for j in range(cols.main + 1, len(cols.x)) if is_key_header(" ".join(corner_cols[j]))]
    key_bands = _key_bands(col_headers, is_key_header)
    val_bands = [k for k in range(len(bands.spans)) if k not in key_bands]
    if not val_bands:
        return None
    n_lab = len(cols.x)
    nlab_all = n_lab + len(key_bands)
    cells = _body_cells(body, bands, cols, key_bands, val_bands, zone_end, region.gap_em)
    is_data = [
        any(v and is_value(v) for v in vals) and (_looks_data(body[li]) or id(body[li]) in described)
        for li, vals in enumerate(cells.values)
    ]
    # Attribute rows (architecture, parameter counts) describe models; they are not results.
    attr = [bool(labs[cols.main] is not None and is_attribute(labs[cols.main].text)) for labs in cells.labels]  # type: ignore[union-attr]
    spans = [(cols.x[c], cols.x[c + 1] if c + 1 < n_lab else zone_end) for c in range(n_lab)]
    spans += [(bands.spans[k][0], bands.spans[k][1]) for k in key_bands]
    filled, taken = _fill_labels(body, cells, is_data, attr, spans, rules)
    _join_variants(body, cells, filled, taken, is_data, cols.main)
    titles = {li: ln.text for li, ln in enumerate(body) if _title_line(ln, zone_end)} if title else {}
    rows = _grid_rows(body, cells, filled, taken, is_data, attr, n_lab, nlab_all, (title, titles))
    return Grid(
        corner=" ".join(" ".join(c) for c in corner_cols[: cols.main + 1]),
        label_headers=[" ".join(c) for c in corner_cols] + [" ".join(t for t, _ in col_headers[k]) for k in key_bands],
        key_cols=inner_keys + list(range(n_lab, nlab_all)),
        main=cols.main,
        col_headers=[col_headers[k] for k in val_bands],
        rows=rows,
        tokens=[w.text for ln in lines for w in ln.words],
        unused=_unused_values(lines, header_lines, body, cells, is_data, attr),
        region=(min(ln.x0 for ln in lines), lines[0].top, max(ln.x1 for ln in lines), lines[-1].bottom),
    )


def _data_rows(lines: list[Line], is_label_word: Callable[[str], bool] | None, described: set[int]) -> list[int]:
    """Indices of the data lines, from the first labelled one on; numeric lines above it are
    header lines ("67B 72B 8x22B": sizes; "67B (Dense) 137B": sizes and notes with no row label)."""
    data_idx = [
        i
        for i, ln in enumerate(lines)
        if sum(is_value(s.text) for s in ln.segs) >= 1
        and (_looks_data(ln) or id(ln) in described)
        and not (is_label_word and not is_value(ln.segs[0].text) and is_label_word(ln.segs[0].text))
    ]
    if not data_idx:
        return []
    # where the values start: a row label ends before it
    zone = min((s.x0 for i in data_idx for s in lines[i].segs[1:] if is_value(s.text)), default=math.inf)
    labelled = [
        i
        for i in data_idx
        if (
            not all(SIZE.match(s.text) for s in lines[i].segs if is_value(s.text))
            and (lines[i].segs[0].x0 < zone or _scores(lines[i]))
        )
        # a text cell first, where the row labels start (a second header line of sizes and notes,
        # "67B (Dense)  137B  145B", or of dates, "0321 0326", starts under the first value column)
        or (not (is_value(lines[i].segs[0].text) or DASH.match(lines[i].segs[0].text)) and lines[i].segs[0].x1 < zone)
    ]
    first = labelled[0] if labelled else data_idx[0]
    return [i for i in data_idx if i >= first]


def _scores(ln: Line) -> bool:
    """The line prints a score (a number with decimals or a percent sign), not only whole numbers
    (dates, version numbers: "0321 0326" under model names)."""
    return any(is_value(s.text) and ("." in s.text or "%" in s.text) for s in ln.segs)


def _value_bands(lines: list[Line], data_idx: list[int]) -> _Bands:
    """x-intervals of numeric (or dash) segments in the data rows, merged where they overlap."""
    ivs = sorted((s.x0, s.x1) for i in data_idx for s in lines[i].segs if is_value(s.text) or DASH.match(s.text))
    spans: list[list[float]] = []
    for a, b in ivs:
        if spans and a <= spans[-1][1] + 0.5:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    spans = _drop_label_fragments(lines, data_idx, spans)
    mids = [(b[0] + b[1]) / 2 for b in spans]
    pitch = statistics.median([mids[k + 1] - mids[k] for k in range(len(mids) - 1)]) if len(mids) > 1 else 50.0
    return _Bands(spans, mids, pitch)


def _drop_label_fragments(lines: list[Line], data_idx: list[int], spans: list[list[float]]) -> list[list[float]]:
    """Drop leading bands that are the tail of one row's label, not a column.

    A number set a word space after a row label ("OpenAI-MRCR (1M)", "Llama 3 (2024)") looks
    like a value; but a column of values is filled on many rows, while this band holds one value
    on one row, left of a column filled on at least three. Its words stay in the label zone."""
    while len(spans) >= 2 and len(data_idx) >= 3:
        hits = [(i, s) for i in data_idx for s in _values_in(lines[i], spans[0])]
        filled_next = sum(1 for i in data_idx if _values_in(lines[i], spans[1]))
        if len(hits) != 1 or filled_next < 3:
            break
        i, seg = hits[0]
        before = [s for s in lines[i].segs if s.x1 <= seg.x0 and not is_value(s.text)]
        if not before or seg.x0 - before[-1].x1 > 1.0 * lines[i].size:
            break
        spans = spans[1:]
    return spans


def _values_in(ln: Line, band: list[float]) -> list[Seg]:
    return [s for s in ln.segs if is_value(s.text) and s.x0 <= band[1] and s.x1 >= band[0]]


def _group_title_header(header_lines: list[Line], body: list[Line], zone_end: float) -> bool:
    """Whether the lowest header line is the first row-group title of the body, not a header.

    Tables that split their rows into groups with a title line set over the value columns
    ("Mathematics", "Coding") put the first title directly above the first data row, where it
    looks like the header's last line. It is one cell with no value outside the label zone, like
    the group titles further down the body (or far wider than any column header above it); a
    header's last line names every column."""

    if not header_lines or not _title_line(header_lines[-1], zone_end):
        return False
    if not any(len(ln.segs) >= 2 for ln in header_lines[:-1]):
        return False
    last = header_lines[-1]
    widest = max((s.x1 - s.x0 for ln in header_lines[:-1] for s in ln.segs if s.x0 >= zone_end), default=0.0)
    # a title further down the body, or one cell far wider than any column header above it
    return any(_title_line(ln, zone_end) for ln in body) or (widest > 0 and last.x1 - last.x0 > 2 * widest)


def _title_line(ln: Line, zone_end: float) -> bool:
    """A group title over the value columns: one cell, no value, right of the label zone or
    reaching from it over the value columns (a title centred across the table)."""
    return (
        len(ln.segs) == 1
        and not is_value(ln.segs[0].text)
        and (ln.segs[0].x0 >= zone_end or ln.segs[0].x1 > zone_end + 2 * ln.size)
    )


def _header_cells(header_lines: list[Line], bands: _Bands, zone_end: float, rules: Rules = ()) -> tuple[ColHeaders, list[Seg]]:  # type: ignore[assignment]
    """Header parts per band, and the header segments over the label zone (the corner). A header
    with a drawn rule right under it (a booktabs "cmidrule") covers the columns under the rule."""
    col_headers: ColHeaders = [[] for _ in bands.spans]
    corner_parts: list[Seg] = []
    placed: list[list[tuple[str, list[int]]]] = []  # per header line: (text, bands it stands over)
    fixed: set[tuple[int, int]] = set()  # (line, index) of headers whose columns a drawn rule gives
    for hi, ln in enumerate(header_lines):
        last = hi == len(header_lines) - 1
        over: list[Seg] = []
        for s in ln.segs:
            if s.x1 <= zone_end or (s.x0 < zone_end and (s.x0 + s.x1) / 2 < zone_end):
                corner_parts.append(s)
            else:
                over.append(s)
        groups = None if last else _even_groups(over, bands)
        line: list[tuple[str, list[int]]] = []
        for si, s in enumerate(over):
            parts = _leaf_parts(s, bands)
            if parts:  # sub-headers set close together: each stays with its own column
                line += [(text, [k]) for k, text in parts]
                continue
            ruled = None if last else _ruled_columns(s, ln, header_lines[hi + 1 :], bands, rules)
            if ruled:
                fixed.add((hi, len(line)))
            # a header cut at a hyphen ("MathOlympiad-" over "Bench") goes on below in its own column
            may_span = not last and not s.text.endswith("-")
            line.append((s.text, ruled or (groups[si] if groups else bands.under_header(s.x0, s.x1, may_span))))
        placed.append(line)
    if len(placed) >= 2:
        _spread_parents(placed, fixed)
    for line in placed:
        for text, ks in line:
            for k in ks:
                col_headers[k].append((text, len(ks)))
    return col_headers, corner_parts


def _ruled_columns(s: Seg, ln: Line, lower: list[Line], bands: _Bands, rules: Rules) -> list[int] | None:
    """The columns under a rule drawn between a header and the sub-headers below it (the first
    header line below with a segment under the rule), wider than the header and under its centre:
    what a spanning header covers. None without such a rule."""
    c = (s.x0 + s.x1) / 2
    for y, x0, x1 in rules:
        if not (ln.base < y and x0 - 1 <= c <= x1 + 1 and x1 - x0 > s.x1 - s.x0):
            continue
        below = next((b for b in lower if any(x0 - 1 <= (t.x0 + t.x1) / 2 <= x1 + 1 for t in b.segs)), None)
        if below is not None and y < below.top + 0.5 * below.size:
            ks = [k for k, m in enumerate(bands.mids) if x0 - 1 <= m <= x1 + 1]
            # a rule under some columns only (a full-width rule closes the header, it groups nothing)
            if 2 <= len(ks) < len(bands.mids) and x0 > bands.spans[0][0] - bands.pitch:
                return ks
    return None


def _spread_parents(placed: list[list[tuple[str, list[int]]]], fixed: set[tuple[int, int]] = frozenset()) -> None:  # type: ignore[assignment]
    """A spanning header covers every column under it: one centred over some sub-headers of the line
    right over the values grows by a column on each side while both neighbours have a sub-header
    and no header of its own line stands over them (a parent is centred over its children, so it
    grows the same on both sides)."""
    leaves = {k for _t, ks in placed[-1] for k in ks}
    for hi, line in enumerate(placed[:-1]):
        taken = {k for _t, ks in line for k in ks}
        for i, (_text, ks) in enumerate(line):
            if len(ks) < 2 or (hi, i) in fixed:  # a rule under a header says where it ends
                continue
            while ks[0] - 1 in leaves and ks[-1] + 1 in leaves and ks[0] - 1 not in taken and ks[-1] + 1 not in taken:
                ks.insert(0, ks[0] - 1)
                ks.append(ks[-1] + 1)
                taken |= {ks[0], ks[-1]}


def _even_groups(segs: list[Seg], bands: _Bands) -> list[list[int]] | None:
    """For a header line over other header lines, whose three or more headers stand at even distances
    (each over a group of columns of the same width: "GPT-4o" over "func param p_v", "Qwen3 8B"
    over the next three): the columns each covers, those within half the distance of its centre.
    None when the headers are not evenly set or one would cover no column (use `under_header`)."""
    if len(segs) < 3:  # two headers set anywhere are evenly spaced
        return None
    centres = [(s.x0 + s.x1) / 2 for s in segs]
    gaps = [b - a for a, b in itertools.pairwise(centres)]
    if min(gaps) <= 0 or max(gaps) > 1.2 * min(gaps) or min(gaps) < 1.5 * bands.pitch:
        return None
    half = sum(gaps) / len(gaps) / 2
    out: list[list[int]] = [[] for _ in segs]
    for k, m in enumerate(bands.mids):
        i = min(range(len(segs)), key=lambda i: abs(centres[i] - m))
        if abs(centres[i] - m) < half:
            out[i].append(k)
    return out if all(out) else None


def _leaf_parts(s: Seg, bands: _Bands) -> list[tuple[int, str]]:
    """A header segment whose words stand over three or more columns, in order, each group
    centred over its column ("XX⇒EN EN⇒XX XX⇒ZH" set with word
    spaces): its words grouped by the column each stands over. Empty otherwise (two words over two
    columns may be one header spanning both; a title over the table is not centred on columns)."""
    if len(s.words) < 3:
        return []
    groups: list[tuple[int, list[Word]]] = []
    for w in s.words:
        k = bands.nearest(w.x0, w.x1)
        if groups and groups[-1][0] == k:
            groups[-1][1].append(w)
        elif groups and k < groups[-1][0]:
            return []  # not in column order
        else:
            groups.append((k, [w]))
    if len(groups) < 3 or any(abs((ws[0].x0 + ws[-1].x1) / 2 - bands.mids[k]) > 0.3 * bands.pitch for k, ws in groups):
        return []
    return [(k, " ".join(w.text for w in ws)) for k, ws in groups]


def _key_bands(col_headers: ColHeaders, is_key_header: Callable[[str], bool]) -> list[int]:
    """Value bands whose header names a row property (size, budget): key columns, not results."""
    return [k for k in range(len(col_headers)) if is_key_header(" ".join(t for t, span in col_headers[k] if span == 1))]


def _body_cells(
    body: list[Line], bands: _Bands, cols: LabelCols, key_bands: list[int], val_bands: list[int], zone_end: float, gap_em: float
) -> _Cells:
    """Per body line: label cells, key cells, value cells."""
    n_lab = len(cols.x)
    cells = _Cells([], [], set())
    used_words = cells.used_words
    for ln in body:
        labs: list[Seg | None] = [None] * (n_lab + len(key_bands))
        vals = [""] * len(bands.spans)
        prev_col, prev_seg = -1, None
        for s in split_segments([w for w in ln.words if (w.x0 + w.x1) / 2 < zone_end], gap_em):
            idx = cols.of(s, prev_col, prev_seg)
            labs[idx] = s if labs[idx] is None else Seg(labs[idx].words + s.words)  # type: ignore[union-attr]
            prev_col, prev_seg = idx, s
        for s in ln.segs:
            if (s.x0 + s.x1) / 2 < zone_end:
                continue
            k = bands.nearest(s.x0, s.x1)
            vals[k] = (vals[k] + " " + s.text).strip()
            used_words.update(id(w) for w in s.words)
        for j, k in enumerate(key_bands):
            if vals[k]:
                words = [w for w in ln.words if id(w) in used_words and bands.nearest(w.x0, w.x1) == k]
                labs[n_lab + j] = Seg(words) if words else None
        cells.labels.append(labs)
        cells.values.append([vals[k] for k in val_bands])
    return cells


def _fill_labels(
    body: list[Line], cells: _Cells, is_data: list[bool], attr: list[bool], spans: list[tuple[float, float]], rules: Rules
) -> tuple[list[list[str]], set[tuple[int, int]]]:
    """Fill label columns down (and up): nearest cell in y, not across a rule crossing that column.

    `spans`: the x-extent of each label column (label zone columns, then key bands). Returns the
    filled labels per body line and the (line, column) cells some row took."""
    filled: list[list[str]] = [[""] * len(spans) for _ in body]
    taken: set[tuple[int, int]] = set()
    for c, (cx0, cx1) in enumerate(spans):
        cands = [(li, s) for li, labs in enumerate(cells.labels) if (s := labs[c]) is not None and not attr[li]]
        for li in range(len(body)):
            if not is_data[li] or attr[li]:
                continue
            own = cells.labels[li][c]
            if own is not None:
                filled[li][c] = own.text
                taken.add((li, c))
                continue
            best = _nearest_label(body, li, cands, rules, cx0, cx1)
            if best is not None and best[0] < 12 * body[li].size:
                filled[li][c] = best[2].text
                taken.add((best[1], c))
    return filled, taken


def _nearest_label(
    body: list[Line], li: int, cands: list[tuple[int, Seg]], rules: Rules, cx0: float, cx1: float
) -> tuple[float, int, Seg] | None:
    """The candidate label nearest in y to body line `li` with no rule between them: (distance, line, seg)."""
    y = body[li].base
    best = None
    for lj, s in cands:
        ya = body[lj].base
        if _rule_between(rules, y, ya, cx0, cx1):
            continue
        d = abs(ya - y)
        if best is None or d < best[0] - 0.5:
            best = (d, lj, s)
    return best


def _join_variants(
    body: list[Line], cells: _Cells, filled: list[list[str]], taken: set[tuple[int, int]], is_data: list[bool], main: int
) -> None:
    """An indented row label is a variant of the row it hangs under ("w/ self-correction" under
    "Goedel-8B": "Goedel-8B w/ self-correction"): indented by a third of an em to three ems from the
    start of a left-aligned column, after a row at that start. Under a label-only line ("LongCat-Prover" over
    "whole-proof mode") only a label opening with a lower-case word is a variant (a name under a
    category heading is not); that line is then the rows' parent, not a group heading."""
    segs = [(li, labs[main]) for li, labs in enumerate(cells.labels) if main < len(labs) and labs[main] is not None]
    if len(segs) < 3:
        return
    start = min(s.x0 for _, s in segs)
    if sum(1 for _, s in segs if s.x0 - start < s.words[0].size / 3) < 0.6 * len(segs):
        return  # not a left-aligned column (centred names start anywhere)
    parent: tuple[int, Seg] | None = None
    for li, s in segs:
        indent = (s.x0 - start) / s.words[0].size
        if indent < 1 / 3:
            parent = (li, s)
            continue
        if parent is None or indent > 3 or not is_data[li] or filled[li][main] != s.text:
            continue
        first = s.words[0].text
        if is_data[parent[0]] or (first[0].islower() and not any(ch.isdigit() for ch in first)):
            filled[li][main] = f"{parent[1].text} {s.text}"
            taken.add((parent[0], main))


def _grid_rows(
    body: list[Line],
    cells: _Cells,
    filled: list[list[str]],
    taken: set[tuple[int, int]],
    is_data: list[bool],
    attr: list[bool],
    n_lab: int,
    nlab_all: int,
    titles: tuple[str, dict[int, str]] = ("", {}),
) -> list[GridRow]:
    """The data rows; a label-only line in the main column that no row took is a group heading,
    and so is a group title over the value columns (`titles`: the one under the header, and the
    body lines that are titles, by index)."""
    rows: list[GridRow] = []
    group = titles[0]
    for li in range(len(body)):
        if attr[li]:
            continue
        if li in titles[1]:
            group = titles[1][li]
            continue
        if not is_data[li]:
            main = cells.labels[li][n_lab - 1]
            only_label = (
                main is not None
                and not any(cells.values[li])
                and all(cells.labels[li][c] is None for c in range(nlab_all) if c != n_lab - 1)
            )
            if only_label and (li, n_lab - 1) not in taken:
                group = main.text  # type: ignore[union-attr]
            continue
        rows.append(GridRow(filled[li], cells.values[li], group))
    return rows


def _unused_values(
    lines: list[Line], header_lines: list[Line], body: list[Line], cells: _Cells, is_data: list[bool], attr: list[bool]
) -> list[str]:
    """Validation: numeric words of the region that are in no cell, label or header."""
    used_words = cells.used_words
    read = {id(w) for ln in header_lines for w in ln.words}
    for li, ln in enumerate(body):
        if is_data[li] or attr[li] or not any(cells.values[li]):
            read |= {id(w) for w in ln.words}
        else:
            read |= {id(w) for w in ln.words if id(w) not in used_words or not is_value(w.text)}
        if is_data[li]:
            read |= {id(w) for w in ln.words}
    return [w.text for ln in lines for w in ln.words if id(w) not in read and is_value(w.text)]


def _attribute_line(ln: Line, zone_end: float, is_attribute: Callable[[str], bool]) -> bool:
    label = " ".join(w.text for w in ln.words if (w.x0 + w.x1) / 2 < zone_end)
    return bool(label) and is_attribute(label)


def _described_rows(lines: list[Line]) -> set[int]:
    """Ids of data lines that hold text cells between the label and the values.

    A table may give each row a text column (a list of problems, a description) beside its
    scores, so most of a row's cells are words and `_looks_data` takes it for a header line. Such
    a row is still data when its value cells stand over values of another such row and each of
    its text cells stands over text cells of another such row: a column of text repeated down the
    body. A header line holds no value, or names columns that hold values below it. A cell of
    digits and signs without a letter ("70.9+2.3") is a number in a form not parsed, not text."""
    cands = [
        ln
        for ln in lines
        if ln.segs and not _looks_data(ln) and not is_value(ln.segs[0].text) and any(is_value(s.text) for s in ln.segs[1:])
    ]
    out: set[int] = set()
    for ln in cands:
        others = [o for o in cands if o is not ln]

        def stacked(s: Seg, others: list[Line] = others) -> bool:
            kind = is_value(s.text)
            if not kind and any(ch.isdigit() for ch in s.text) and not any(ch.isalpha() for ch in s.text):
                return False  # "70.9+2.3": a number this reader does not parse, not a text cell
            return any(is_value(t.text) == kind and t.x0 <= s.x1 and t.x1 >= s.x0 for o in others for t in o.segs[1:])

        if all(stacked(s) for s in ln.segs[1:]):
            out.add(id(ln))
    return out


def _looks_data(ln: Line) -> bool:
    """A data line: most segments right of its first are numbers (header lines hold names)."""
    segs = ln.segs
    vals = sum(1 for s in segs if is_value(s.text) or DASH.match(s.text))
    nums = sum(1 for s in segs if is_value(s.text))
    if nums == 0 or (len(segs) == 1 and nums == 1):  # a lone number (a sub- or superscript) is no row
        return False
    rest = len(segs) - 1 if not is_value(segs[0].text) else len(segs)
    return vals >= max(1, 0.6 * rest)


def _rule_between(rules: Rules, y1: float, y2: float, x0: float, x1: float) -> bool:
    lo, hi = sorted((y1, y2))
    return any(lo + 2 < y < hi - 2 and a <= x0 + 2 and b >= min(x1, x0 + 10) - 2 for y, a, b in rules)
