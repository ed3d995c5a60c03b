"""The header tree of `ingest.reading.structure_grid` (the results stage's one table reader) on
generated PDFs with exactly known text, each test failing without its rule (docs/table-shapes.md);
more shapes in `tests/test_result_shapes.py` and `tests/test_results.py`."""

from __future__ import annotations

from ingest.analysis.results import read_results
from ingest.reading.extract import extract_file
from ingest.reading.structure import _head_end
from ingest.reading.structure_rows import Piece
from ingest.reading.table_text import Line, Seg, Word

from .test_results import CAT, row, table_pdf, triples


def structure_cells(path) -> list[dict]:  # type: ignore[no-untyped-def]
    res = read_results(extract_file(path), path, CAT)
    return [c.to_json() | {"table": t.label, "page": t.page} for t in res.tables for c in t.cells]


def test_header_lines_join_per_column_and_attribute_rows_are_no_header(tmp_path):
    """Model names on two lines over the same columns are one name per column: a line cut after a
    hyphen joins without a space ("Claude-3.5-" "Sonnet-1022"), a line of digits ("0513") stays in
    the header; an "Architecture" row under the names is a row of the table, not a header line."""
    xs = [250, 330, 400]
    items = [
        (72, 80, "Table 1: Comparison of the models."),
        (250, 100, "^Claude-3.5-"), (330, 100, "^GPT-4o"), (400, 100, "^Zeta"),
        (72, 111, "Benchmark"), (250, 111, "^Sonnet-1022"), (330, 111, "^0513"), (400, 111, "^R1"),
        *row(126, "Architecture", ["-", "-", "MoE"], xs),
        *row(140, "Zorblax", ["88.3", "87.2", "90.8"], xs),
        *row(152, "Quuxbench", ["70.1", "65.0", "72.2"], xs),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "benchmark", "value")
    assert got == {
        ("Claude-3.5-Sonnet-1022", "Zorblax", "88.3"), ("GPT-4o 0513", "Zorblax", "87.2"), ("Zeta R1", "Zorblax", "90.8"),
        ("Claude-3.5-Sonnet-1022", "Quuxbench", "70.1"), ("GPT-4o 0513", "Quuxbench", "65.0"), ("Zeta R1", "Quuxbench", "72.2"),
    }  # fmt: skip


def test_a_spanning_header_covers_every_sub_header_under_it(tmp_path):
    """ "Fnordset" printed over the middle one of its three sub-headers (narrower than they are)
    names all three columns; "Zorblax" and "Quux" without sub-headers stay single columns."""
    xs = [200, 270, 320, 370, 440]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Model"), (200, 100, "^Zorblax"), (320, 100, "^Fnordset"), (440, 100, "^Quux"),
        (270, 112, "^Easy"), (320, 112, "^Hard"), (370, 112, "^All"),
        *row(128, "Alpha-8B", ["61.2", "50.1", "40.2", "45.0", "70.0"], xs),
        *row(140, "Beta-9B", ["60.2", "49.1", "39.2", "44.0", "69.0"], xs),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Zorblax", "61.2"), ("Alpha-8B", "Fnordset Easy", "50.1"), ("Alpha-8B", "Fnordset Hard", "40.2"),
        ("Alpha-8B", "Fnordset All", "45.0"), ("Alpha-8B", "Quux", "70.0"),
    } <= got  # fmt: skip


def test_a_label_line_under_the_header_is_the_group_of_the_first_rows(tmp_path):
    """A line of one label between the column headers and the first row of values ("Closed
    models") is the group heading of the rows under it, not part of the corner or a name."""
    xs = [250, 330]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Model"), (250, 100, "^Zorblax"), (330, 100, "^Quuxbench"),
        (72, 114, "Closed models"),
        *row(128, "Alpha-8B", ["61.2", "70.0"], xs),
        *row(140, "Beta-9B", ["50.0", "60.0"], xs),
        (72, 154, "Open models"),
        *row(168, "Gamma-7B", ["40.0", "30.0"], xs),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "group", "value")
    assert {("Alpha-8B", "Zorblax", "Closed models", "61.2"), ("Gamma-7B", "Quuxbench", "Open models", "30.0")} <= got
    assert len(cells) == 6


def test_the_main_label_column_is_the_one_every_row_names_and_a_key_column_is_a_setting(tmp_path):
    """Label columns "Benchmark" | "# Shots" beside the model columns: the benchmark column names the
    rows (not the last label column) and the shots column is a setting."""
    xs = [300, 370]
    items = [
        (72, 80, "Table 1: Results of the base models."),
        (72, 100, "Benchmark"), (200, 100, "# Shots"), (300, 100, "^Alpha-8B"), (370, 100, "^Beta-9B"),
        (72, 116, "Zorblax"), *row(116, "3-shot", ["61.2", "70.0"], xs, 200),
        (72, 128, "Quuxbench"), *row(128, "5-shot", ["50.0", "60.0"], xs, 200),
        (72, 140, "Fnordset"), *row(140, "0-shot", ["40.0", "30.0"], xs, 200),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "Zorblax", "61.2"), ("Beta-9B", "Quuxbench", "60.0"), ("Beta-9B", "Fnordset", "30.0")} <= got
    assert len(cells) == 6
    assert ("Zorblax", "# Shots 3-shot") in triples(cells, "benchmark", "setting")


def test_one_cell_centred_over_the_value_columns_is_a_group_heading(tmp_path):
    """A row of one cell set over the value columns ("Open models", centred as a title) between rows
    of values is the group heading of the rows under it, not a row of its own."""
    xs = [250, 330, 410]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Model"), (250, 100, "^Zorblax"), (330, 100, "^Quuxbench"), (410, 100, "^Fnordset"),
        *row(114, "Alpha-8B", ["61.2", "70.0", "33.0"], xs),
        *row(126, "Beta-9B", ["50.0", "60.0", "35.5"], xs),
        (330, 140, "^Open models"),
        *row(154, "Gamma-7B", ["40.0", "30.0", "20.0"], xs),
        *row(166, "Delta-3B", ["41.0", "31.0", "21.0"], xs),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    assert ("Gamma-7B", "Quuxbench", "Open models", "30.0") in triples(cells, "model", "benchmark", "group", "value")
    assert len(cells) == 12


def test_a_column_two_parents_reach_goes_to_the_one_centred_over_it(tmp_path):
    """ "Fnordset" centred over five sub-headers and "Quux" over the one after them: the two columns
    right of "Fnordset" are reached by both parents, and belong to "Fnordset", centred over them."""
    xs = [180, 230, 280, 330, 380, 440]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Model"), (280, 100, "^Fnordset"), (440, 100, "^Quux"),
        (180, 112, "^Ab"), (230, 112, "^Cd"), (280, 112, "^Ef"), (330, 112, "^Gh"), (380, 112, "^Ij"), (440, 112, "^Kl"),
        *row(128, "Alpha-8B", ["61.2", "50.1", "40.2", "45.0", "70.0", "33.3"], xs),
        *row(140, "Beta-9B", ["60.2", "49.1", "39.2", "44.0", "69.0", "32.3"], xs),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Fnordset Ab", "61.2"), ("Alpha-8B", "Fnordset Gh", "45.0"), ("Alpha-8B", "Fnordset Ij", "70.0"),
        ("Alpha-8B", "Quux Kl", "33.3"),
    } <= got  # fmt: skip


def test_a_benchmark_printed_in_the_middle_of_its_split_rows_names_them_all(tmp_path):
    """Label columns "Benchmark" | "Split", each benchmark printed on the middle one of its three
    split rows: every split row takes the benchmark nearest to it, not the one above it."""
    xs = [300, 370]
    items = [
        (72, 80, "Table 1: Results by split."),
        (72, 100, "Benchmark"), (170, 100, "Split"), (300, 100, "^Alpha-8B"), (370, 100, "^Beta-9B"),
        *row(114, "Easy", ["61.2", "63.5"], xs, 170),
        (72, 126, "Zorbqa"), *row(126, "Hard", ["40.1", "42.0"], xs, 170),
        *row(138, "All", ["50.6", "52.7"], xs, 170),
        *row(150, "Easy", ["71.0", "72.3"], xs, 170),
        (72, 162, "Quuxqa"), *row(162, "Hard", ["30.1", "32.0"], xs, 170),
        *row(174, "All", ["50.5", "52.5"], xs, 170),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Zorbqa Easy", "61.2"), ("Alpha-8B", "Zorbqa All", "50.6"), ("Alpha-8B", "Quuxqa Easy", "71.0"),
        ("Beta-9B", "Quuxqa All", "52.5"),
    } <= got  # fmt: skip


def test_value_columns_headed_by_a_key_are_label_columns(tmp_path):
    """ "Model size" and "Sample budget" columns hold numbers but describe the row (the catalogue's
    key columns): their values are the cell's setting, never scores; the first row, whose model
    name is printed on the row below, is still a row of the body."""
    xs = [200, 270, 350]
    items = [
        (72, 80, "Table 1: Results of the provers."),
        (72, 100, "Method"), (200, 100, "^Model size"), (270, 100, "^Sample budget"), (350, 100, "^Zorbf2f-test"),
        *row(114, "Alpha-Prover", ["7B", "32", "50.0%"], xs),
        *row(126, "Beta-Prover", ["8B", "128", "55.5%"], xs),
        *row(138, "Gamma-Prover", ["70B", "3200", "61.5%"], xs),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    want = {("Alpha-Prover", "50.0%"), ("Beta-Prover", "55.5%"), ("Gamma-Prover", "61.5%")}
    assert got == {(m, "Zorbf2f-test", v) for m, v in want}
    assert ("Alpha-Prover", "Model size 7B; Sample budget 32") in triples(cells, "model", "setting")


def test_a_row_label_in_parentheses_under_a_label_line_is_its_second_line(tmp_path):
    """ "Zorbench" alone on a line, "(24/8-25/5)" starting the row of values under it: one name
    "Zorbench (24/8-25/5)" (the result meaning takes the parenthesis as its metric), not a group
    "Zorbench" over a benchmark "(24/8-25/5)"."""
    xs = [250, 330]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Benchmark"), (250, 100, "^Alpha-8B"), (330, 100, "^Beta-9B"),
        *row(114, "Quuxbench", ["61.2", "70.0"], xs),
        (72, 126, "Zorbench"),
        *row(138, "(24/8-25/5)", ["50.0", "60.0"], xs),
        *row(150, "Fnordset", ["40.0", "30.0"], xs),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "group", "value")
    assert {("Alpha-8B", "Zorbench", "", "50.0"), ("Beta-9B", "Fnordset", "", "30.0")} <= got


def test_a_name_printed_in_the_middle_of_its_rows_names_the_rows_around_it(tmp_path):
    """Each prover's name and size printed once, on a line of their own between its two
    sample-budget rows: every row takes the nearest name, not none and not the one above."""
    items = [
        (72, 80, "Table 1: Results of the provers."),
        (72, 100, "Method"), (200, 100, "^Model size"), (270, 100, "^Sample budget"), (350, 100, "^Zorbf2f-test"),
        (270, 114, "^32"), (350, 114, "^50.0%"),
        (72, 123, "Alpha-Prover"), (200, 123, "^7B"),
        (270, 132, "^128"), (350, 132, "^52.5%"),
        (270, 148, "^512"), (350, 148, "^55.0%"),
        (72, 157, "Beta-Prover"), (200, 157, "^8B"),
        (270, 166, "^3200"), (350, 166, "^60.5%"),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "value")
    assert got == {("Alpha-Prover", "50.0%"), ("Alpha-Prover", "52.5%"), ("Beta-Prover", "55.0%"), ("Beta-Prover", "60.5%")}


def test_a_header_on_two_lines_beside_a_one_line_parent_owns_its_column(tmp_path):
    """ "GPQA" over "Diamond" (two lines, set above and below the line of the one-line headers
    beside it) names its own column: its lower line is no parent spreading over the columns of
    "Zorblax" and "Quux" under the same sub-header line."""
    xs = [200, 250, 320, 390]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (320, 96, "^GPQA"),
        (225, 102, "^Zorblax"), (390, 102, "^Quux"),
        (320, 108, "^Diamond"),
        (72, 120, "Model"), (200, 120, "^pass@1"), (250, 120, "^cons@64"), (320, 120, "^pass@1"), (390, 120, "^rating"),
        *row(134, "Alpha-8B", ["61.2", "70.1", "40.2", "1820"], xs),
        *row(146, "Beta-9B", ["60.2", "69.1", "39.2", "1843"], xs),
    ]  # fmt: skip
    got = triples(structure_cells(table_pdf(tmp_path / "t.pdf", [items])), "model", "benchmark", "value")
    assert {("Alpha-8B", "GPQA Diamond", "40.2"), ("Alpha-8B", "Zorblax", "61.2"), ("Beta-9B", "Zorblax", "69.1")} <= got


def sized_pdf(path, items: list[tuple[float, float, str, float]]):  # type: ignore[no-untyped-def]
    """A one-page PDF of (x, y top-down, text, font size) items; x is the centre when text starts with "^"."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    from .conftest import _font

    font = _font()
    c = canvas.Canvas(str(path), pagesize=A4)
    _w, h = A4
    for x, y, text, size in items:
        if text.startswith("^"):
            text = text[1:]
            x -= stringWidth(text, font, size) / 2
        c.setFont(font, size)
        c.drawString(x, h - y, text)
    c.showPage()
    c.save()
    return path


def test_headers_set_with_word_spaces_over_narrow_value_columns_are_one_per_column(tmp_path):
    """A header line set with word spaces ("# Params Zorblax Quuxbench Fnordset"), each header
    wider than the values under it ("7B", "61.2") so its words' centres fall outside the value
    columns: each run cut at the word gap inside a gap between columns heads its own column."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from .conftest import _font

    font, size = _font(), 8.0
    head = ["#", "Params", "Zorblax", "Quuxbench", "Fnordset"]
    x, lefts = 200.0, []
    for w in head:
        lefts.append(x)
        x += stringWidth(w + " ", font, size)
    ends = [a + stringWidth(w, font, size) for a, w in zip(lefts, head, strict=True)]
    runs = [(lefts[0], ends[1]), *zip(lefts[2:], ends[2:], strict=True)]
    xs = [(a + b) / 2 for a, b in runs]
    items = [
        (72, 80, "Table 1: Results of the models.", size), (72, 100, "Model", size), (200, 100, " ".join(head), size),
        *[(a, y, t, size) for a, y, t in row(114, "Alpha-8B", ["7B", "61.2", "70.0", "33.0"], xs)],
        *[(a, y, t, size) for a, y, t in row(126, "Beta-9B", ["9B", "50.0", "60.0", "35.5"], xs)],
    ]  # fmt: skip
    got = triples(structure_cells(sized_pdf(tmp_path / "t.pdf", items)), "model", "benchmark", "value")
    assert {("Alpha-8B", "Zorblax", "61.2"), ("Beta-9B", "Quuxbench", "60.0"), ("Beta-9B", "Fnordset", "35.5")} <= got


def test_a_caption_wrapped_onto_the_table_region_is_no_row_of_the_table(tmp_path):
    """A caption set larger than its table whose last line ends in a raised mark ("... marked with
    †.", the mark and stop set apart like cells) is read as the caption's, not as the table's first
    rows: the header under it names the columns."""
    xs = [250, 330, 410]
    items = [
        (72, 80, "Table 1: Results of the models on three benchmarks. Models trained", 10.0),
        (72, 92, "with external data are marked with", 10.0), (247, 89, "†", 6.0), (256, 92, ".", 10.0),
        (72, 104, "Model", 8.0), (250, 104, "^Zorblax", 8.0), (330, 104, "^Quuxbench", 8.0), (410, 104, "^Fnordset", 8.0),
        *[(a, y, t, 8.0) for a, y, t in row(116, "Alpha-8B", ["61.2", "70.0", "33.0"], xs)],
        *[(a, y, t, 8.0) for a, y, t in row(127, "Beta-9B", ["50.0", "60.0", "35.5"], xs)],
        *[(a, y, t, 8.0) for a, y, t in row(138, "Gamma-7B", ["40.0", "30.0", "20.0"], xs)],
    ]  # fmt: skip
    cells = structure_cells(sized_pdf(tmp_path / "t.pdf", items))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "Zorblax", "61.2"), ("Beta-9B", "Quuxbench", "60.0"), ("Gamma-7B", "Fnordset", "20.0")} <= got
    assert len(cells) == 9


def test_a_heading_centred_between_rows_makes_no_column_of_its_own(tmp_path):
    """A group heading centred over the value columns between rows ("General Coding Tasks"),
    touching the wide model names over the columns beside the middle one, does not bridge those
    columns into one: each model keeps its own column of values."""
    xs = [250, 310, 370]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Benchmark"), (250, 100, "^Alpha-Longer"), (310, 100, "^Bee"), (370, 100, "^Gamma-Longer"),
        *row(114, "Zorblax", ["61.2", "70.0", "33.0"], xs),
        *row(126, "Quuxbench", ["50.0", "60.0", "35.5"], xs),
        (310, 140, "^General Coding Tasks"),
        *row(154, "Fnordset", ["40.0", "30.0", "20.0"], xs),
        *row(166, "Blorpeval", ["41.0", "31.0", "21.0"], xs),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-Longer", "Zorblax", "61.2"), ("Bee", "Fnordset", "30.0"), ("Gamma-Longer", "Blorpeval", "21.0")} <= got
    assert len(cells) == 12


def test_a_two_line_label_set_around_its_line_of_values_is_one_row(tmp_path):
    """A row label of two lines centred on its one line of values ("Quuxbench Extended Suite" above
    the values, reaching over the next label column, "Verified" below, both closer than a line of
    type) labels that row, whole."""
    xs = [250, 330]
    items = [
        (72, 80, "Table 1: Results of the models."),
        (72, 100, "Benchmark"), (250, 100, "^Alpha-8B"), (330, 100, "^Beta-9B"),
        (72, 116, "Zorblax"), *row(116, "3-shot", ["61.2", "70.0"], xs, 170),
        (72, 129, "Quuxbench Extended Suite"), *row(134, "", ["50.0", "60.0"], xs)[1:], (72, 139, "Verified"),
        (72, 154, "Fnordset"), *row(154, "5-shot", ["40.0", "30.0"], xs, 170),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Quuxbench Extended Suite Verified", "50.0"),
        ("Beta-9B", "Quuxbench Extended Suite Verified", "60.0"),
    } <= got
    assert len(cells) == 6


def test_the_first_body_line_is_the_first_with_a_label_left_of_the_values() -> None:
    """Row labels set centred in their column start at different x; the first line of a label and
    values is the first body line even when it does not start at the region's left edge (a longer
    label further down does)."""

    def piece(li: int, x0: float, x1: float, text: str) -> Piece:
        return Piece(li, Seg([Word(text, x0, x1, li * 12.0, li * 12.0 + 8, li * 12.0 + 7, 8.0)]))

    rows = [("Model", 90, False), ("AIME 2024", 86, True), ("MATH-500", 88, True), ("SWE-bench Verified", 72, True)]
    pieces: list[Piece] = []
    lines: list[Line] = []
    for li, (label, x0, valued) in enumerate(rows):
        mine = [piece(li, x0, x0 + 5 * len(label), label)]
        mine += [piece(li, x, x + 16, "61.2" if valued else "Alpha") for x in (250, 300)]
        pieces += mine
        lines.append(Line([w for p in mine for w in p.seg.words]))
    assert _head_end(pieces, lines) == 1


def test_a_column_of_lists_set_with_wide_spaces_is_one_column_and_names_no_row(tmp_path):
    """A "Problems" column of lists ("P1 , P2 , P3 , P4" with spaces wider than a cell gap round
    the commas) beside the benchmark column: each list is one cell (not a column per item), and a
    column of lists describes its rows, so the benchmark column names them."""

    def listed(y: float, x: float, names: list[str]) -> list[tuple[float, float, str]]:
        out = []
        for k, name in enumerate(names):
            out.append((x, y, name))
            x += 6 * len(name) + 3
            if k < len(names) - 1:
                out.append((x, y, ","))
                x += 9
        return out

    items = [
        (72, 80, "Table 1: Results of our model on three contests."),
        (72, 100, "Contest"), (170, 100, "Problems"), (330, 100, "Points"),
        (72, 116, "AIME 2025"), *listed(116, 170, ["P1", "P2", "P3", "P4"]), (330, 116, "83.3%"),
        (72, 130, "AIME 2024"), *listed(130, 170, ["P1", "P3", "P5", "P6"]), (330, 130, "73.8%"),
        (72, 144, "HMMT 2025"), *listed(144, 170, ["A1", "B4", "B6"]), (330, 144, "98.3%"),
    ]  # fmt: skip
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items]))
    assert triples(cells, "benchmark", "value") == {("AIME 2025", "83.3%"), ("AIME 2024", "73.8%"), ("HMMT 2025", "98.3%")}


def test_a_name_printed_once_in_a_ruled_row_group_names_every_row_of_the_group(tmp_path):
    """Rules drawn across the table set row groups apart; a name printed once in a group (on the
    middle one of its sample-budget rows, or alone on one row) names every row of values in it,
    not the rows of the group above."""
    xs = [250, 330]
    items = [
        (72, 80, "Table 1: Results by sample budget."),
        (72, 100, "Method"), (250, 100, "^Sample budget"), (330, 100, "^Zorblax"),
        *row(116, "Alpha-Prover", ["128", "61.1%"], xs),
        *row(132, "", ["1", "42.6%"], xs)[1:],
        *row(144, "Beta-Prover", ["32", "56.2%"], xs),
        *row(156, "", ["1024", "61.9%"], xs)[1:],
        *row(172, "", ["1", "52.9%"], xs)[1:],
        *row(184, "", ["8", "65.2%"], xs)[1:],
        *row(196, "Gamma-Prover", ["32", "68.9%"], xs),
        *row(208, "", ["1024", "77.9%"], xs)[1:],
        *row(220, "", ["8192", "80.7%"], xs)[1:],
    ]  # fmt: skip
    rules = [[(92, 70, 360), (104, 70, 360), (122, 70, 360), (162, 70, 360), (226, 70, 360)]]
    cells = structure_cells(table_pdf(tmp_path / "t.pdf", [items], rules))
    got = triples(cells, "model", "value")
    assert {("Alpha-Prover", "61.1%"), ("Beta-Prover", "42.6%"), ("Beta-Prover", "61.9%")} <= got
    assert {("Gamma-Prover", "52.9%"), ("Gamma-Prover", "65.2%"), ("Gamma-Prover", "80.7%")} <= got
    assert len(cells) == 9
