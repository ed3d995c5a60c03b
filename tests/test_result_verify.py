"""`ingest.analysis.result_verify`: a cell is verified only when the structure reading agrees on
its row, column and value, its names are complete and unambiguous and its column has one format."""

from __future__ import annotations

from ingest.analysis.result_verify import AMBIGUOUS, NO_SECOND_READING, ODD_FORMAT, READINGS_DIFFER, verify
from ingest.common.records import ResultCell
from ingest.reading.structure import Cell, Table


def _table(rows: list[list[str]], header_rows: int = 1, spans: dict[tuple[int, int], int] | None = None) -> Table:
    """A structure-stage table from a matrix ('' is an empty cell); `spans`: column spans by position."""
    spans = spans or {}
    cells = [Cell(r, c, t, 1, spans.get((r, c), 1)) for r, row in enumerate(rows) for c, t in enumerate(row) if t]
    return Table(1, (0, 0, 100, 100), cells, len(rows), max(len(r) for r in rows), header_rows)


GRID = [["Model", "MMLU", "GSM8K"], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"], ["Gamma-9B", "65.0", "45.5"]]
CELLS = [
    ResultCell(m, b, v)
    for m, vals in (("Alpha-7B", ("61.2", "40.1")), ("Beta-8B", ("63.5", "42.0")), ("Gamma-9B", ("65.0", "45.5")))
    for b, v in zip(("MMLU", "GSM8K"), vals, strict=True)
]


def test_agreeing_readings_verify_every_cell() -> None:
    assert [c.review for c in verify(CELLS, _table(GRID))] == [""] * len(CELLS)


def test_no_second_reading_needs_review() -> None:
    assert {c.review for c in verify(CELLS, None)} == {NO_SECOND_READING}


def test_a_value_under_another_header_needs_review() -> None:
    swapped = [ResultCell("Alpha-7B", "GSM8K", "61.2"), *CELLS[1:]]
    out = verify(swapped, _table(GRID))
    assert out[0].review == READINGS_DIFFER and all(not c.review for c in out[2:])


def test_a_model_glued_from_two_label_columns_needs_review() -> None:
    grid = [["Model", "Metric", "MMLU"], ["Alpha-7B", "Acc", "61.2"], ["Beta-8B", "Acc", "63.5"], ["Gamma-9B", "Acc", "65.0"]]
    glued = [ResultCell(f"{m} Acc", "MMLU", v) for m, v in (("Alpha-7B", "61.2"), ("Beta-8B", "63.5"), ("Gamma-9B", "65.0"))]
    assert {c.review for c in verify(glued, _table(grid))} == {READINGS_DIFFER}


def test_a_lost_spanning_parent_needs_review() -> None:
    grid = [["", "Probe", ""], ["Model", "Easy", "Hard"], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"]]
    table = _table(grid, header_rows=2, spans={(0, 1): 2})
    lost = [ResultCell("Alpha-7B", "Easy", "61.2"), ResultCell("Beta-8B", "Easy", "63.5")]
    kept = [ResultCell("Alpha-7B", "Probe Easy", "61.2"), ResultCell("Beta-8B", "Probe Easy", "63.5")]
    assert {c.review for c in verify(lost, table)} == {READINGS_DIFFER}
    assert {c.review for c in verify(kept, table)} == {""}


def test_a_header_wider_than_the_one_above_it_is_no_child_of_it() -> None:
    """A full-width line under a column header (a group row set like a header) is not part of the
    column's name, whichever reading takes it for one."""
    grid = [["Model", "MMLU", "GSM8K"], ["", "Open models", ""], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"]]
    table = _table(grid, header_rows=2, spans={(1, 1): 2})
    glued = [ResultCell("Alpha-7B", "MMLU Open models", "61.2"), ResultCell("Beta-8B", "MMLU Open models", "63.5")]
    assert {c.review for c in verify(glued, table)} == {READINGS_DIFFER}


def test_two_cells_with_one_model_and_header_need_review() -> None:
    grid = [["Model", "MMLU", "MMLU"], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"]]
    cells = [ResultCell("Alpha-7B", "MMLU", "61.2"), ResultCell("Alpha-7B", "MMLU", "40.1")]
    assert {c.review for c in verify(cells, _table(grid))} == {AMBIGUOUS}


def test_a_value_printed_unlike_its_column_needs_review() -> None:
    grid = [["Model", "MMLU"], ["Alpha-7B", "61.2"], ["Beta-8B", "63.5"], ["Gamma-9B", "65.0"], ["Delta-1B", "91"]]
    cells = [ResultCell(r[0], "MMLU", r[1]) for r in grid[1:]]
    out = verify(cells, _table(grid))
    assert [c.review for c in out] == ["", "", "", ODD_FORMAT]


def test_an_indented_variant_row_needs_review() -> None:
    """ "w/ tool use" under "Alpha-7B" is a variant of it; neither reading keeps the indentation."""
    grid = [["Model", "MMLU"], ["Alpha-7B", "61.2"], ["w/ tool use", "63.5"], ["Beta-8B", "65.0"]]
    cells = [ResultCell(r[0], "MMLU", r[1]) for r in grid[1:]]
    assert [c.review for c in verify(cells, _table(grid))] == ["", READINGS_DIFFER, ""]


def test_a_benchmark_named_only_by_the_caption_needs_review() -> None:
    """A caption may name two benchmarks; over a column headed "Other-25 / EN-XX" the caption's
    first one is a guess no header confirms."""
    grid = [["", "Other-25"], ["Model", "EN-XX"], ["Alpha-7B", "61.2"], ["Beta-8B", "63.5"]]
    table = _table(grid, header_rows=2)
    cells = [
        ResultCell("Alpha-7B", "Flores", "61.2", setting="Other-25 EN-XX"),
        ResultCell("Beta-8B", "Flores", "63.5", setting="Other-25 EN-XX"),
    ]
    assert {c.review for c in verify(cells, table, "Table 4: Results on Flores and Other-25.")} == {READINGS_DIFFER}
    named = [ResultCell("Alpha-7B", "Other-25 EN-XX", "61.2"), ResultCell("Beta-8B", "Other-25 EN-XX", "63.5")]
    assert {c.review for c in verify(named, table, "Table 4: Results on Flores and Other-25.")} == {""}


def test_a_one_cell_row_over_the_rows_is_a_group_heading_not_a_header() -> None:
    """ "Open models" alone on the row between the column headers and the rows heads the rows below;
    the cells' group may name it, their benchmark need not."""
    grid = [["Model", "MMLU", "GSM8K"], ["", "Open models", ""], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"]]
    table = _table(grid, header_rows=2)
    cells = [
        ResultCell("Alpha-7B", "MMLU", "61.2", group="Open models"),
        ResultCell("Beta-8B", "GSM8K", "42.0", group="Open models"),
    ]
    assert {c.review for c in verify(cells, table)} == {""}


def test_corner_text_in_a_benchmark_name_needs_review() -> None:
    """The corner cell names the label column; glued into a benchmark's name it is a misreading."""
    grid = [["Proving", "MMLU", "GSM8K"], ["Alpha-7B", "61.2", "40.1"], ["Beta-8B", "63.5", "42.0"]]
    glued = [ResultCell("Alpha-7B", "Proving MMLU", "61.2"), ResultCell("Beta-8B", "Proving GSM8K", "42.0")]
    assert {c.review for c in verify(glued, _table(grid))} == {READINGS_DIFFER}
