"""Structure detection is near-linear in the words of a page (issue 34): the band and grouping functions
give exactly what their quadratic definitions give, on random layouts (overlapping, narrow and
spanning segments included), and their work grows about linearly with the words."""

from __future__ import annotations

import random
import statistics
import time

import pytest

from ingest.common.gcpace import rare_collections
from ingest.reading import structure, structure_rows
from ingest.reading.structure import column_bands, table_from_words
from ingest.reading.structure_rows import Piece, row_groups
from ingest.reading.table_text import Line, Seg, Word


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def spanning_by_definition(pieces: list[Piece], head_end: int) -> list[bool]:
    """The definition, pair by pair: a piece spans when it overlaps (by more than 0.5) two or more
    segments of one other line (for a body piece, of one other body line)."""
    by_line: dict[int, list[Seg]] = {}
    for p in pieces:
        by_line.setdefault(p.line, []).append(p.seg)
    return [
        any(
            sum(1 for o in segs if _overlap(p.seg.x0, p.seg.x1, o.x0, o.x1) > 0.5) >= 2
            for li, segs in by_line.items()
            if li != p.line and (p.line < head_end or li >= head_end)
        )
        for p in pieces
    ]


def span_by_definition(seg: Seg, cols: list[tuple[float, float]]) -> tuple[int, int]:
    """The definition, column by column: the first and last column the segment overlaps by more than
    0.5; else the gap it lies in between two columns; else the column whose edge is nearest its centre."""
    hit = [k for k, (a, b) in enumerate(cols) if _overlap(seg.x0, seg.x1, a, b) > 0.5]
    if hit:
        return hit[0], hit[-1]
    between = [k for k in range(len(cols) - 1) if cols[k][1] <= seg.x0 and seg.x1 <= cols[k + 1][0]]
    if between:
        return between[0], between[0] + 1
    c = (seg.x0 + seg.x1) / 2
    k = min(range(len(cols)), key=lambda k: min(abs(cols[k][0] - c), abs(cols[k][1] - c)))
    return k, k


def _word(x0: float, x1: float, line: int, text: str = "1.0") -> Word:
    top = 10.0 + 12 * line
    return Word(text, x0, x1, top, top + 8, top + 7, 8.0)


def random_pieces(rng: random.Random, lines: int, per_line: int) -> list[Piece]:
    pieces = []
    for li in range(lines):
        x = rng.uniform(0, 20)
        for _ in range(rng.randint(1, per_line)):
            kind = rng.random()
            width = 0.2 if kind < 0.1 else rng.uniform(80, 300) if kind < 0.25 else rng.uniform(2, 40)  # narrow, spanning, cell
            gap = rng.uniform(-5, 30) if kind > 0.9 else rng.uniform(0.5, 30)  # a few overlap the one before
            pieces.append(Piece(li, Seg([_word(x, x + width, li)])))
            x += width + gap
    return pieces


@pytest.mark.parametrize("seed", range(40))
def test_spanning_pieces_are_what_the_pairwise_definition_says(seed: int) -> None:
    rng = random.Random(seed)
    pieces = random_pieces(rng, rng.randint(2, 12), rng.randint(1, 9))
    head_end = rng.randint(0, 4)
    assert structure._spanning(pieces, head_end) == spanning_by_definition(pieces, head_end)


@pytest.mark.parametrize("seed", range(40))
def test_segments_are_placed_in_the_columns_the_plain_scan_finds(seed: int) -> None:
    rng = random.Random(seed)
    cols, x = [], 0.0
    for _ in range(rng.randint(1, 30)):
        a = x + rng.choice([0.0, rng.uniform(-1, 0.4), rng.uniform(0.5, 40)])  # touching, overlapping a little, apart
        b = a + rng.choice([0.0, 0.3, rng.uniform(1, 60)])  # zero-width, narrow, wide
        cols.append((round(a, 1), round(b, 1)))
        x = max(x, b)
    cols.sort(key=lambda c: c[0])
    placed = structure._Columns(cols)
    for _ in range(200):
        a = rng.uniform(-20, x + 20)
        seg = Seg([_word(a, a + rng.choice([0.0, 0.2, rng.uniform(1, 80)]), 0)])
        assert placed.span(seg) == span_by_definition(seg, cols), (seg.x0, seg.x1, cols)


def test_columns_of_a_grid_with_a_spanning_header() -> None:
    header = [Piece(0, Seg([_word(100, 300, 0, "Group")]))]
    body = [Piece(li, Seg([_word(x, x + 20, li)])) for li in (1, 2, 3) for x in (100, 200, 280)]
    assert column_bands(header + body, head_end=1) == [(100, 120), (200, 220), (280, 300)]


def _grid_words(rows: int, cols: int) -> list[Word]:
    return [_word(50 + 30 * c, 50 + 30 * c + 16, r, f"{(r * 7 + c) % 97}.{c % 10}") for r in range(rows) for c in range(cols)]


def _cpu(fn) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of `fn()` with rare collections, as the `tables` command's page processes run."""
    with rare_collections():
        t0 = time.process_time()
        fn()
        return time.process_time() - t0


def test_a_dense_grid_grows_about_linearly_with_its_words() -> None:
    """A region of 200 rows: 25 columns, then 50 (twice the words); the old pairwise test grew about 4x.
    Best of up to three rounds (CPU time, so other jobs on the machine matter little)."""
    small, large = _grid_words(200, 25), _grid_words(200, 50)
    table = table_from_words(large, 1)
    assert table is not None and (table.n_rows, table.n_cols) == (200, 50)
    t_small = t_large = float("inf")
    for _ in range(3):
        t_small = min(t_small, _cpu(lambda: table_from_words(small, 1)))
        t_large = min(t_large, _cpu(lambda: table_from_words(large, 1)))
        if t_large < 3.0 * t_small + 0.05:
            return
    raise AssertionError(f"twice the words took {t_large / t_small:.1f}x the time ({t_small:.3f} s -> {t_large:.3f} s)")


def rows_by_definition(lines: list, pieces: list[Piece], head_end: int) -> list[list[int]]:
    """Row grouping as first written: each line asks the rules of every piece of the row so far."""
    per_line: dict[int, list[Piece]] = {}
    for p in pieces:
        per_line.setdefault(p.line, []).append(p)
    gaps = [lines[i].top - lines[i - 1].bottom for i in range(1, len(lines))]
    typical = statistics.median(gaps) if gaps else 0.0

    def interleaved(row: list[int], i: int) -> bool:
        a, b = lines[row[-1]], lines[i]
        if b.base - a.base >= 0.9 * min(a.size, b.size) or any(p.c1 > p.c0 for li in (row[-1], i) for p in per_line.get(li, [])):
            return False
        cols_a = {c for p in per_line.get(row[-1], []) for c in range(p.c0, p.c1 + 1)}
        cols_b = {c for p in per_line.get(i, []) for c in range(p.c0, p.c1 + 1)}
        valued = {c for li in row for p in per_line.get(li, []) if p.numeric for c in range(p.c0, p.c1 + 1)}
        return bool(cols_a) and not cols_a & cols_b and not any(p.numeric and p.c0 in valued for p in per_line.get(i, []))

    def continues(row: list[int], i: int, body: bool) -> bool:
        mine, above = per_line.get(i, []), [p for li in row for p in per_line.get(li, [])]
        if mine and interleaved(row, i):
            return True
        if not mine or not above or any(p.numeric for p in mine):
            return False
        gap = lines[i].top - lines[row[-1]].bottom
        filled = {c for p in above for c in range(p.c0, p.c1 + 1)}
        if gap > 0.8 * lines[i].size or not all(p.c0 in filled and p.c1 in filled for p in mine):
            return False
        lower = all(structure_rows._wrapped(p.seg.words[0].text) for p in mine)
        if any(p.numeric for p in above) and not lower:
            return False
        text_row = body and not any(p.numeric for p in above) and any(p.c0 == 0 for p in above) and all(p.c0 > 0 for p in mine)
        return gap < 0.6 * typical - 0.5 or lower or text_row

    rows: list[list[int]] = []
    for i in range(len(lines)):
        if rows and continues(rows[-1], i, i >= head_end):
            rows[-1].append(i)
        else:
            rows.append([i])
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_rows_are_what_the_line_by_line_definition_gives(seed: int) -> None:
    rng = random.Random(seed)
    lines, pieces, y = [], [], 10.0
    for li in range(rng.randint(1, 30)):
        y += rng.choice([3.0, 6.0, 9.0, 14.0])  # interleaved, tight, usual, far
        words = []
        for _ in range(rng.randint(0, 5)):
            text = rng.choice(["12.5", "–", "Model", "wrapped", "(note", "x"])
            c0 = rng.randint(0, 5)
            w = Word(text, 10.0 * c0, 10.0 * c0 + 8, y - 7, y + 1, y, 8.0)
            words.append(w)
            pieces.append(Piece(li, Seg([w]), c0, c0 + rng.choice([0, 0, 0, 1, 2])))
        lines.append(Line(words or [Word("x", 0, 1, y - 7, y + 1, y, 8.0)]))
    head_end = rng.randint(0, 3)
    assert row_groups(lines, pieces, head_end) == rows_by_definition(lines, pieces, head_end)
