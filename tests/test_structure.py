"""The table-structure stage on generated PDFs with exactly known cells, and the `tables` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.cli import main
from ingest.outputs.table_formats import render
from ingest.reading.structure import Cell, Table
from ingest.reading.structure_grid import grid_from_table
from ingest.reading.structure_regions import TablesError, parse_pages, read_pdf_tables

from .conftest import _font

# An item is (x, y, text): y top-down in points; x the left edge, the centre when text starts
# with "^", the right edge when it starts with ">" (the marker is not drawn).
Item = tuple[float, float, str]
PROSE = (
    "The results below were measured on the held-out split with the same settings as before, and",
    "every number is the mean of three runs; the text goes on for a while to look like a paragraph.",
)


def make_pdf(path: Path, pages: list[list[Item]], rules: list[tuple[float, float, float]] = (), size: float = 9) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    font = _font()
    c = canvas.Canvas(str(path), pagesize=A4)
    _w, h = A4
    for items in pages:
        for x, y, text in items:
            fs = size
            if text.startswith("~"):  # smaller type (notes, page headers)
                text, fs = text[1:], size - 2
            c.setFont(font, fs)
            if text.startswith("^"):
                text = text[1:]
                x -= stringWidth(text, font, fs) / 2
            elif text.startswith(">"):
                text = text[1:]
                x -= stringWidth(text, font, fs)
            c.drawString(x, h - y, text)
        for y, x0, x1 in rules:
            c.setLineWidth(0.5)
            c.line(x0, h - y, x1, h - y)
        c.showPage()
    c.save()
    return path


def prose(y: float) -> list[Item]:
    return [(72, y + 12 * k, line) for k, line in enumerate(PROSE)]


def grid(y: float, rows: list[list[str]], xs: list[float], step: float = 14) -> list[Item]:
    """Rows of cells: the first column left-aligned at xs[0], the others centred on xs[k]."""
    out: list[Item] = []
    for r, cells in enumerate(rows):
        for k, text in enumerate(cells):
            if text:
                out.append((xs[k], y + r * step, text if k == 0 else "^" + text))
    return out


def cells(t: Table) -> set[tuple[int, int, int, int, str]]:
    return {(c.row, c.col, c.row_span, c.col_span, c.text) for c in t.cells}


def only_table(path: Path) -> Table:
    tables, notes = read_pdf_tables(path)
    assert notes == []
    assert len(tables) == 1, [t.matrix() for t in tables]
    return tables[0]


XS = [72, 230, 300, 370, 440]
ROWS = [
    ["Method", "Alpha", "Beta", "Gamma", "Delta"],
    ["first one", "12.5", "33.0", "41.2", "7.9"],
    ["second", "13.1", "30.4", "40.0", "8.8"],
    ["third method", "9.8", "29.9", "39.1", "-"],
]


def test_plain_table_between_paragraphs_has_exactly_its_cells(tmp_path):
    items = prose(80) + grid(130, ROWS, XS) + prose(200)
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    want = {(r, k, 1, 1, text) for r, row in enumerate(ROWS) for k, text in enumerate(row)}
    assert cells(t) == want
    assert (t.page, t.n_rows, t.n_cols, t.header_rows) == (1, 4, 5, 1)
    x0, top, x1, bottom = t.bbox
    assert 70 < x0 < 74 and 115 < top < 125 and x1 > 440 and 170 < bottom < 180


def test_header_of_lowercase_words_is_part_of_the_table(tmp_path):
    rows = [["setting", "accuracy", "recall", "latency", "cost"], *ROWS[1:]]
    t = only_table(make_pdf(tmp_path / "t.pdf", [prose(80) + grid(130, rows, XS)]))
    assert {c.text for c in t.cells if c.row == 0} == {"setting", "accuracy", "recall", "latency", "cost"}


def test_spanning_header_covers_its_columns_and_group_row_stays_its_own_row(tmp_path):
    items = [(335, 116, "^Group A"), (475, 116, "^Group B")]  # over columns 1-2 and 3-4
    xs = [72, 300, 370, 440, 510]
    items += grid(130, [["Model", "x", "y", "x", "y"]], xs)
    items += [(72, 144, "Open models")]  # a row-group label alone on its line
    items += grid(158, [["m-small", "1.0", "2.0", "3.0", "4.0"], ["m-large", "5.0", "6.0", "7.0", "8.0"]], xs)
    t = only_table(make_pdf(tmp_path / "t.pdf", [prose(60) + items]))
    got = cells(t)
    assert (0, 1, 1, 2, "Group A") in got and (0, 3, 1, 2, "Group B") in got
    assert (2, 0, 1, 1, "Open models") in got
    assert (3, 0, 1, 1, "m-small") in got and (4, 4, 1, 1, "8.0") in got
    assert not any(c.row == 2 and c.col > 0 for c in t.cells)


def test_two_line_header_is_one_cell(tmp_path):
    items = grid(130, [["Model", "Pass@1", "Score", "Wins"]], XS)
    items += [(XS[1], 140, "^(avg of 4)"), (XS[3], 140, "^(total)")]  # second header line, set tight
    items += grid(156, [["alpha", "50.1", "3.2", "10"], ["beta", "48.0", "2.9", "12"]], XS)
    t = only_table(make_pdf(tmp_path / "t.pdf", [prose(60) + items]))
    got = cells(t)
    assert (0, 1, 1, 1, "Pass@1\n(avg of 4)") in got and (0, 3, 1, 1, "Wins\n(total)") in got
    assert t.n_rows == 3


def test_running_header_heading_and_notes_stay_out(tmp_path):
    items = [(72, 40, "~Technical report 2026"), (523, 40, "~>Page 7")]
    items += [(72, 100, "4.2 Results on the benchmark suite")]
    items += grid(130, ROWS, XS)
    items += [(72, 192, "~Source: our own runs; dashes mark settings not run.")]
    items += [(72, 230, "5 Discussion"), *prose(250)]
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    texts = {c.text for c in t.cells}
    assert texts == {text for row in ROWS for text in row}


def test_note_lines_under_a_table_in_its_own_font_stay_out(tmp_path):
    items = [*grid(130, ROWS, XS), (72, 186, "(*) Preliminary figures."), (72, 200, "GPU: the graphics card used.")]
    t = only_table(make_pdf(tmp_path / "t.pdf", [prose(80) + items]))
    assert t.n_rows == 4 and "Preliminary" not in str(t.matrix()) and "graphics" not in str(t.matrix())


def test_two_tables_on_one_page_are_two_tables(tmp_path):
    other = [["Split", "Train", "Test"], ["easy", "100", "20"], ["hard", "80", "40"]]
    items = grid(100, ROWS, XS) + prose(180) + grid(240, other, [72, 250, 350])
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    assert [t.n_rows for t in tables] == [4, 3]
    assert cells(tables[1]) == {(r, k, 1, 1, text) for r, row in enumerate(other) for k, text in enumerate(row)}


def test_row_group_label_column_keeps_groups_apart_from_row_labels(tmp_path):
    xs = [72, 150, 300, 370]
    rows = [
        ["Kind", "Name", "Score", "Size"],
        ["Open", "m-small", "1.0", "2.0"],
        ["", "m-large", "3.0", "4.0"],
        ["Closed", "c-one", "5.0", "6.0"],
        ["", "c-two", "7.0", "8.0"],
    ]
    items = [(xs[k], 130 + r * 14, text) for r, row in enumerate(rows) for k, text in enumerate(row) if text]
    t = only_table(make_pdf(tmp_path / "t.pdf", [prose(80) + items]))
    want = {(r, k, 1, 1, text) for r, row in enumerate(rows) for k, text in enumerate(row) if text}
    assert cells(t) == want


def test_two_text_columns_are_not_a_table(tmp_path):
    left = [
        "the model is trained with a reward",
        "that comes from unit tests and the",
        "policy is updated with a clipped loss",
        "every step of the run uses the same",
    ]
    right = [
        "in the second stage the data is mixed",
        "with general chat prompts so that the",
        "assistant keeps its general abilities",
        "while the reasoning skills improve too",
    ]
    items = [(72, 100 + 12 * k, t) for k, t in enumerate(left)] + [(320, 100 + 12 * k, t) for k, t in enumerate(right)]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    assert tables == []


def test_json_csv_and_markdown_shapes():
    t = Table(2, (10.0, 20.0, 30.0, 40.0), [Cell(0, 0, "a|b", 1, 2), Cell(1, 0, "<x>\ny"), Cell(1, 1, "3")], 2, 2)
    data = json.loads(render([t], "json"))
    assert data == [
        {
            "label": "",
            "caption": "",
            "page": 2,
            "bbox": [10.0, 20.0, 30.0, 40.0],
            "cells": [
                {"row": 0, "col": 0, "row_span": 1, "col_span": 2, "text": "a|b"},
                {"row": 1, "col": 0, "row_span": 1, "col_span": 1, "text": "<x>\ny"},
                {"row": 1, "col": 1, "row_span": 1, "col_span": 1, "text": "3"},
            ],
        }
    ]
    assert render([t], "csv").splitlines()[:2] == ["table,page,row,col,row_span,col_span,text", "1,2,0,0,1,2,a|b"]
    md = render([t], "md")
    assert "| a\\|b |  |" in md and "| &lt;x&gt; y | 3 |" in md


def test_pages_option_parses_lists_and_ranges():
    assert parse_pages("3,5-7") == {3, 5, 6, 7}
    assert parse_pages(None) is None
    for bad in ("0", "7-5", "x", "3,,4", "1-2-3"):
        with pytest.raises(TablesError):
            parse_pages(bad)


def test_tables_command_prints_json_and_reads_only_the_pages_asked(tmp_path, capsys):
    path = make_pdf(tmp_path / "t.pdf", [prose(80) + grid(130, ROWS, XS), grid(130, ROWS, XS)])
    assert main(["tables", str(path), "--format", "json"]) == 0
    assert [t["page"] for t in json.loads(capsys.readouterr().out)] == [1, 2]
    assert main(["tables", str(path), "--pages", "2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["page"] for t in data] == [2] and len(data[0]["cells"]) == 20


def test_tables_command_says_in_one_line_why_a_file_is_unreadable(tmp_path, capsys):
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 100)
    for path in (bad, tmp_path / "missing.pdf", tmp_path):
        assert main(["tables", str(path)]) == 1
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err
    assert main(["tables", str(bad), "--pages", "x"]) == 1
    assert "--pages" in capsys.readouterr().err


def test_a_structure_table_becomes_a_results_grid_with_headers_groups_and_carried_labels():
    rows = [
        Cell(0, 2, "Reasoning", 1, 2),
        Cell(1, 0, "Kind"),
        Cell(1, 1, "Model"),
        Cell(1, 2, "AIME"),
        Cell(1, 3, "GPQA"),
        Cell(2, 0, "Open"),
        Cell(2, 1, "m-small"),
        Cell(2, 2, "50.1"),
        Cell(2, 3, "-"),
        Cell(3, 1, "m-large"),
        Cell(3, 2, "61.0"),
        Cell(3, 3, "40.2"),
        Cell(4, 1, "Closed models"),
        Cell(5, 0, "API"),
        Cell(5, 1, "c-one"),
        Cell(5, 2, "70.0"),
        Cell(5, 3, "55.5"),
    ]
    g = grid_from_table(Table(1, (0, 0, 1, 1), rows, 6, 4, 2))
    assert g is not None
    assert g.col_headers == [[("Reasoning", 2), ("AIME", 1)], [("Reasoning", 2), ("GPQA", 1)]]
    assert g.label_headers == ["Kind", "Model"] and g.main == 1
    assert [(r.labels, r.values, r.group) for r in g.rows] == [
        (["Open", "m-small"], ["50.1", "-"], ""),
        (["Open", "m-large"], ["61.0", "40.2"], ""),
        (["API", "c-one"], ["70.0", "55.5"], "Closed models"),
    ]
    assert grid_from_table(Table(1, (0, 0, 1, 1), [Cell(0, 0, "a"), Cell(0, 1, "b")], 1, 2)) is None


def test_a_page_with_too_many_words_is_noted_not_read(tmp_path, monkeypatch):
    from ingest.reading import structure_regions

    path = make_pdf(tmp_path / "t.pdf", [prose(80) + grid(130, ROWS, XS), grid(130, ROWS, XS)])
    monkeypatch.setattr(structure_regions, "MAX_PAGE_WORDS", 30)
    tables, notes = read_pdf_tables(path)
    assert [t.page for t in tables] == [2]
    assert len(notes) == 1 and notes[0].startswith("page 1: not read (") and "more than the limit of 30" in notes[0]


def test_a_long_run_of_rows_is_read_in_parts(tmp_path, monkeypatch):
    from ingest.reading import structure_regions

    monkeypatch.setattr(structure_regions, "MAX_REGION_LINES", 3)
    rows = [ROWS[0]] + [[f"row {k}", "1.0", "2.0", "3.0", "4.0"] for k in range(5)]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [grid(100, rows, XS)]))
    assert [t.n_rows for t in tables] == [3, 3]


def test_the_time_limit_stops_reading_with_a_note(tmp_path):
    path = make_pdf(tmp_path / "t.pdf", [grid(130, ROWS, XS), grid(130, ROWS, XS)])
    tables, notes = read_pdf_tables(path, time_limit=0.0)
    assert len(tables) <= 1 and notes and "time limit" in notes[0]


def test_two_stacked_panels_are_one_table_with_the_second_header_as_a_row(tmp_path):
    top = [
        ["Model", "MMLU", "GPQA", "MATH", "AIME"],
        ["alpha", "80.1", "50.2", "70.3", "30.4"],
        ["beta", "81.0", "52.0", "72.0", "33.0"],
    ]
    bottom = [
        ["Model", "HumanEval", "MBPP", "SWE", "LCB"],
        ["alpha", "60.1", "55.2", "30.3", "20.4"],
        ["beta", "62.0", "57.0", "31.0", "22.0"],
    ]
    items = prose(60) + grid(110, top, XS) + grid(160, bottom, XS)
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    rows = t.matrix()
    assert rows == top + bottom


def test_a_table_beside_a_column_of_prose_leaves_the_prose_out(tmp_path):
    """A small table set in the right column while a paragraph runs on in the left one: the
    paragraph keeps its own line pitch, so one of its lines shares a baseline with a table row.
    The table is its own cells only; the prose column is no table."""
    words = ["the", "search", "keeps", "a", "pool", "of", "candidate", "proofs", "and", "refines", "each", "of"]
    left = [" ".join(words[k % 5 : k % 5 + 6]) for k in range(9)]
    items = [(72, 70, PROSE[0]), (72, 82, PROSE[1])]
    items += [(270, 100 + 12 * k, ">" + t) for k, t in enumerate(left)]  # a justified column: one right edge
    rows = [["Contest", "Problems", "Points"], ["Alpha 2024", "P1, P2, P3", "83.3"], ["Beta 2024", "P1, P4", "73.8"],
            ["Gamma 2024", "A1, B4, B6", "98.3"]]  # fmt: skip
    items += grid(117, rows, [300, 390, 480], step=19)  # rows at 117, 136 (shared with the prose), 155, 174
    items += [(72, 220, PROSE[0]), (72, 232, PROSE[1])]
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    assert {c.text for c in t.cells} == {text for row in rows for text in row}
    assert t.bbox[0] > 290 and (t.n_rows, t.n_cols) == (4, 3)


def test_a_table_beside_a_justified_column_at_its_own_line_pitch_leaves_the_prose_out(tmp_path):
    """A paragraph set justified in a narrow left column at the table's own line pitch shares a
    baseline with nearly every table row; its lines, shared or not, all end at the column's right
    edge (a table's text column is ragged), so it is prose beside the table, not the table's first
    column. A full-width line above, whose word spaces fall on the gutter, is no part of the band."""
    words = ["the", "search", "keeps", "a", "pool", "of", "candidate", "proofs", "and", "refines", "each", "of"]
    left = [" ".join(words[k % 5 : k % 5 + 5]) for k in range(10)]
    items = [(72, 70, PROSE[0]), (72, 82, PROSE[1])]
    items += [(250, 100 + 12 * k, ">" + t) for k, t in enumerate(left)]  # a justified column: one right edge
    rows = [["Contest", "Problems", "Points"], ["Alpha 2024", "P1, P2, P3", "83.3"], ["Beta 2024", "P1, P4", "73.8"],
            ["Gamma 2024", "A1, B4, B6", "98.3"], ["Delta 2024", "B1, B2", "64.0"]]  # fmt: skip
    items += grid(124, rows, [300, 390, 480], step=12)  # rows on the prose's baselines 124 ... 172
    items += [(72, 232, PROSE[0]), (72, 244, PROSE[1])]
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    assert {c.text for c in t.cells} == {text for row in rows for text in row}
    assert t.bbox[0] > 290 and (t.n_rows, t.n_cols) == (5, 3)


def test_header_cells_of_different_line_counts_centred_on_one_row_are_one_header_row(tmp_path):
    """A header cell of three lines beside cells of two lines, each centred on the header row,
    puts its lines on baselines between theirs (closer than a line of type): one header row, each
    cell its own lines. Rows of values beside a label of several lines stay rows of their own."""
    xs = [72, 230, 300, 370]
    items = [
        (300, 100, "^Gamma-"), (230, 105, "^Alpha"), (370, 105, "^Delta-"),
        (300, 110, "^Think-"), (230, 115, "^Large"), (370, 115, "^Chat"), (300, 120, "^v1.5"),
    ]  # fmt: skip
    items += grid(136, [["first task", "12.5", "33.0", "41.2"], ["second task", "13.1", "30.4", "40.0"]], xs)
    items += [(72, 166, "a label of"), (230, 170, "^1.0"), (300, 170, "^2.0"), (370, 170, "^3.0"), (72, 175, "two lines")]
    items += [(230, 184, "^4.0"), (300, 184, "^5.0"), (370, 184, "^6.0")]
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    m = t.matrix()
    assert m[0] == ["", "Alpha\nLarge", "Gamma-\nThink-\nv1.5", "Delta-\nChat"]
    assert t.header_rows == 1 and m[1][0] == "first task"
    assert ["a label of\ntwo lines", "1.0", "2.0", "3.0"] in m and ["", "4.0", "5.0", "6.0"] in m


def test_names_set_close_together_over_three_columns_are_three_headers(tmp_path):
    """A header line set as one string with word spaces, each word centred on a column below: one
    header per column, not one cell spanning all of them."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    names = ["Zorbxa", "Quuxyb", "Fnorzc", "Blatwd"]
    x, centres = 160.0, []
    for n in names:  # where each word of "Zorbxa Quuxyb Fnorzc Blatwd" drawn from x=160 is centred
        w = stringWidth(n, _font(), 9)
        centres.append(x + w / 2)
        x += w + stringWidth(" ", _font(), 9)
    rows = [["first", "12.5", "33.0", "41.2", "7.9"], ["second", "13.1", "30.4", "40.0", "8.8"]]
    items = [(160, 130, " ".join(names)), *grid(144, rows, [72, *centres])]
    t = only_table(make_pdf(tmp_path / "t.pdf", [items]))
    head = {c.text: (c.col, c.col_span) for c in t.cells if c.row == 0}
    assert head == {"Zorbxa": (1, 1), "Quuxyb": (2, 1), "Fnorzc": (3, 1), "Blatwd": (4, 1)}
