"""Captions of structure-stage tables (`ingest.reading.captions`) and what the `tables` command
shows: the paper's own "Table N" labels and captions, only captioned tables when the file has
captions, Markdown with the caption over each table. PDFs are generated with exactly known text."""

from __future__ import annotations

from pathlib import Path

from ingest.outputs.table_formats import render
from ingest.reading.structure_regions import read_pdf_tables
from ingest.tables_command import shown_tables

from .test_structure import XS, grid, make_pdf, prose

ROWS = [
    ["Method", "Alpha", "Beta", "Gamma", "Delta"],
    ["first one", "12.5", "33.0", "41.2", "7.9"],
    ["second", "13.1", "30.4", "40.0", "8.8"],
    ["third method", "9.8", "29.9", "39.1", "6.5"],
]
OTHER = [
    ["Model", "North", "South", "East", "West"],
    ["big", "1.5", "3.0", "4.2", "7.1"],
    ["small", "1.1", "3.4", "4.0", "8.3"],
    ["tiny", "0.8", "2.9", "3.1", "6.6"],
]


def test_captions_above_their_tables_name_them_even_when_the_next_caption_is_nearer(tmp_path: Path) -> None:
    """Two tables, each under its caption; the second caption stands closer to the first table's
    bottom than its own table's top. A page sets captions on one side: each names the table below it."""
    items = [(72, 80, "Table 4: Scores of the methods."), *grid(100, ROWS, XS)]
    items += [(72, 156, "Table 5: Scores by region."), *grid(190, OTHER, XS)]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    named = {t.label: t.matrix()[0][1] for t in tables}
    assert named == {"Table 4": "Alpha", "Table 5": "North"}


def test_captions_below_their_tables_name_the_table_above(tmp_path: Path) -> None:
    items = [*grid(100, ROWS, XS), (72, 165, "Table 2. Scores of the methods.")]
    items += [*grid(200, OTHER, XS), (72, 265, "Table 3. Scores by region.")]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    assert {t.label: t.matrix()[0][1] for t in tables} == {"Table 2": "Alpha", "Table 3": "North"}
    assert [t.caption for t in tables] == ["Table 2. Scores of the methods.", "Table 3. Scores by region."]


def test_a_file_with_captions_shows_only_captioned_tables_and_says_what_it_left_out(tmp_path: Path) -> None:
    """Text set in columns without a caption (here a reference-like list) is left out, with a note."""
    refs = [["[1] Smith", "2019", "12.1", "Journal"], ["[2] Jones", "2020", "13.4", "Proc"], ["[3] Brown", "2021", "9.9", "Conf"]]
    items = [(72, 80, "Table 1: Scores of the methods."), *grid(100, ROWS, XS), *prose(200), *grid(300, refs, XS[:4])]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    shown, note = shown_tables(tables)
    assert [t.label for t in shown] == ["Table 1"] and "without a 'Table N' caption" in note
    assert len(shown_tables(tables, all_tables=True)[0]) == len(tables) > 1


def test_a_file_without_captions_shows_every_table(tmp_path: Path) -> None:
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [grid(100, ROWS, XS)]))
    assert shown_tables(tables) == (tables, "") and len(tables) == 1


def test_markdown_puts_the_papers_label_and_caption_over_each_table(tmp_path: Path) -> None:
    items = [(72, 80, "Table 7: Scores of the methods."), *grid(100, ROWS, XS)]
    tables, _ = read_pdf_tables(make_pdf(tmp_path / "t.pdf", [items]))
    md = render(tables, "md").splitlines()
    assert md[0] == "## Table 7 (page 1)" and md[2] == "Table 7: Scores of the methods." and md[4].startswith("| Method")
    assert render(tables, "csv").splitlines()[1].startswith("Table 7,1,")


def test_a_caption_joins_past_a_decimal_and_a_cut_hyphen(tmp_path: Path) -> None:
    """One caption joiner (`captions.caption_text`): the first sentence goes
    on past a decimal point on the first line ("Alpha-1.5") to the next lines, and a line cut after
    a hyphen goes on without a space."""
    from ingest.analysis.results import read_results
    from ingest.reading.extract import extract_file

    from .test_results import CAT, row, table_pdf

    xs = [250, 330]
    items = [
        (72, 80, "Table 1: Comparison of Alpha-1.5 and Beta-2.0 on the held-out"),
        (72, 91, "benchmarks with long-"),
        (72, 102, "context inputs. Higher is better."),
        (72, 122, "Model"), (250, 122, "^Zorblax"), (330, 122, "^Quuxbench"),
        *row(136, "Alpha-1.5", ["61.2", "70.0"], xs),
        *row(148, "Beta-2.0", ["50.0", "60.0"], xs),
        *row(160, "Gamma-7B", ["40.0", "30.0"], xs),
        *row(172, "Delta-3B", ["20.5", "10.5"], xs),
    ]  # fmt: skip
    path = table_pdf(tmp_path / "t.pdf", [items])
    want = "Table 1: Comparison of Alpha-1.5 and Beta-2.0 on the held-out benchmarks with long-context inputs."
    res = read_results(extract_file(path), path, CAT)
    assert [t.caption for t in res.tables] == [want]


def test_a_header_beside_the_end_of_a_caption_is_no_wrapped_line_of_it(tmp_path: Path) -> None:
    """A short header tight under a caption line but right of where the caption ends ("Probe" over
    its sub-headers) is the table's first line, not the caption's wrap: the caption stays above the
    table and names it (the structure reader found no table next to it before)."""
    from ingest.analysis.results import read_results
    from ingest.reading.extract import extract_file

    from .test_results import CAT, row, table_pdf

    xs = [220, 260, 300, 340]
    items = [
        (72, 90, "Table 4: Results of the models."),
        (300, 104, "^Probe"),
        (100, 120, "Models"), (220, 120, "^Zorbqa"), (260, 120, "^Loose"), (300, 120, "^Strict"), (340, 120, "^Overall"),
        *row(136, "Alpha-8B", ["71.3", "90.5", "87.6", "89.1"], xs, 100),
        *row(148, "Beta-9B", ["67.3", "89.9", "84.5", "87.2"], xs, 100),
    ]  # fmt: skip
    path = table_pdf(tmp_path / "t.pdf", [items])
    res = read_results(extract_file(path), path, CAT)
    assert [t.caption for t in res.tables] == ["Table 4: Results of the models."]
