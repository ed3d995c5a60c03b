"""The structure reader's "verified": a cell is confirmed by the page's word boxes alone (no second grid)."""

from __future__ import annotations

from ingest.analysis.word_verify import AMBIGUOUS, NOT_IN_PLACE, NOT_ON_PAGE, ODD_FORMAT, verify_on_words
from ingest.common.records import ResultCell
from ingest.reading.table_text import Word


def _line(y: float, *items: tuple[float, str]) -> list[Word]:
    """Words of one line at baseline `y`, each (x0, text) 10 pt high, 5 pt a character."""
    out = []
    for x, text in items:
        for k, part in enumerate(text.split()):
            x0 = x + sum(len(p) * 5 + 2.5 for p in text.split()[:k])
            out.append(Word(part, x0, x0 + 5 * len(part), y - 8, y + 2, y, 10.0))
    return out


#           MMLU-Pro
# Model     EM     Acc
# Alpha     71.2   80.4
# Beta      65.0   77.9
WORDS = [
    *_line(20, (100, "MMLU-Pro")),
    *_line(35, (10, "Model"), (100, "EM"), (150, "Acc")),
    *_line(50, (10, "Alpha"), (100, "71.2"), (150, "80.4")),
    *_line(65, (10, "Beta"), (100, "65.0"), (150, "77.9")),
]
BOX = (0.0, 0.0, 200.0, 80.0)


def test_cell_under_its_whole_header_path_and_beside_its_label_is_verified() -> None:
    cells = [ResultCell("Alpha", "MMLU-Pro", "71.2", metric="EM"), ResultCell("Beta", "MMLU-Pro", "65.0", metric="EM")]
    assert [c.review for c in verify_on_words(cells, WORDS, BOX)] == ["", ""]


def test_lost_parent_header_wrong_row_or_absent_value_needs_review() -> None:
    cells = [
        ResultCell("Alpha", "EM", "71.2"),  # the spanning "MMLU-Pro" over the value is lost
        ResultCell("Beta", "MMLU-Pro", "71.2", metric="EM"),  # the value stands on Alpha's line
        ResultCell("Alpha", "MMLU-Pro", "99.9", metric="Acc"),  # not printed in the table
    ]
    assert [c.review for c in verify_on_words(cells, WORDS, BOX)] == [NOT_IN_PLACE, NOT_IN_PLACE, NOT_ON_PAGE]


def test_value_under_two_headers_of_one_line_needs_review() -> None:
    """A header line with two phrases over the value: which column it is under is not settled."""
    words = [w for w in WORDS if w.text != "Acc"] + _line(35, (117, "Acc"))  # over 71.2's right end
    cells = [ResultCell("Alpha", "MMLU-Pro", "71.2", metric="EM")]
    assert verify_on_words(cells, words, BOX)[0].review == NOT_IN_PLACE


def test_headers_of_adjacent_columns_set_closer_than_a_word_gap_are_each_their_columns() -> None:
    """ "Knowledge Coding" printed as one run of words, each over its own column of values."""
    words = [
        *_line(35, (10, "Model"), (100, "Knowledge"), (148, "Coding")),
        *_line(50, (10, "Alpha"), (100, "71.2"), (150, "80.4")),
        *_line(65, (10, "Beta"), (100, "65.0"), (150, "77.9")),
    ]
    cells = [ResultCell("Alpha", "Knowledge", "71.2"), ResultCell("Beta", "Coding", "77.9")]
    assert [c.review for c in verify_on_words(cells, words, BOX)] == ["", ""]


def test_a_model_named_by_labels_side_by_side_is_on_its_row() -> None:
    """A citation set apart after the model's name ("Alpha" "[20]") is part of the row's label."""
    words = [
        *_line(35, (10, "Model"), (100, "MMLU")),
        *_line(50, (10, "Alpha"), (45, "[20]"), (100, "71.2")),
        *_line(65, (10, "Beta"), (100, "65.0")),
    ]
    cells = [ResultCell("Alpha [20]", "MMLU", "71.2")]
    assert verify_on_words(cells, words, BOX)[0].review == ""


def test_attribute_lines_under_a_model_name_over_its_column_need_not_be_in_its_names() -> None:
    """Models as columns: a size row, then an architecture row, under each name."""
    words = [
        *_line(20, (100, "Alpha"), (150, "Beta")),
        *_line(35, (100, "7B"), (150, "9B")),
        *_line(50, (100, "MoE"), (150, "Dense")),
        *_line(65, (10, "MMLU"), (100, "71.2"), (150, "80.4")),
        *_line(80, (10, "GSM8K"), (100, "65.0"), (150, "77.9")),
    ]
    cells = [ResultCell("Alpha", "MMLU", "71.2"), ResultCell("Beta", "GSM8K", "77.9")]
    assert [c.review for c in verify_on_words(cells, words, (0.0, 0.0, 200.0, 90.0))] == ["", ""]


def test_a_group_heading_of_two_phrases_between_rows_leaves_the_benchmark_to_the_column_top() -> None:
    words = [
        *_line(20, (100, "Zorb-Bench")),
        *_line(35, (10, "Alpha"), (100, "71.2")),
        *_line(50, (10, "Open-Weights"), (100, "Auto Models")),
        *_line(65, (10, "Beta"), (100, "65.0")),
    ]
    cells = [ResultCell("Beta", "Zorb-Bench", "65.0", group="Open-Weights Auto Models")]
    assert verify_on_words(cells, words, BOX)[0].review == ""


def _rows(header: list[tuple[float, str]], rows: list[list[tuple[float, str]]]) -> list[Word]:
    """A header line and rows of values, 15 pt apart."""
    return [*_line(20, *header), *(w for i, r in enumerate(rows) for w in _line(35 + 15 * i, *r))]


def test_two_cells_with_one_model_and_header_need_review() -> None:
    """Two columns headed "MMLU": which of the row's values is the model's MMLU score is ambiguous."""
    words = _rows([(10, "Model"), (100, "MMLU"), (150, "MMLU")], [[(10, "Alpha"), (100, "61.2"), (150, "40.1")]])
    cells = [ResultCell("Alpha", "MMLU", "61.2"), ResultCell("Alpha", "MMLU", "40.1")]
    assert {c.review for c in verify_on_words(cells, words, BOX)} == {AMBIGUOUS}


def test_a_value_printed_unlike_its_column_needs_review() -> None:
    """A whole number among scores with one decimal (a rank, a count) is left for review."""
    vals = [("Alpha", "61.2"), ("Beta", "63.5"), ("Gamma", "65.0"), ("Delta", "91")]
    words = _rows([(10, "Model"), (100, "MMLU")], [[(10, m), (100, v)] for m, v in vals])
    cells = [ResultCell(m, "MMLU", v) for m, v in vals]
    assert [c.review for c in verify_on_words(cells, words, (0.0, 0.0, 200.0, 100.0))] == ["", "", "", ODD_FORMAT]


def test_corner_text_in_a_benchmark_name_needs_review() -> None:
    """The corner cell names the label column; glued into a benchmark's name it is a misreading."""
    words = _rows([(10, "Proving"), (100, "MMLU")], [[(10, "Alpha"), (100, "61.2")], [(10, "Beta"), (100, "63.5")]])
    glued = [ResultCell("Alpha", "Proving MMLU", "61.2"), ResultCell("Beta", "Proving MMLU", "63.5")]
    assert {c.review for c in verify_on_words(glued, words, BOX)} == {NOT_IN_PLACE}
    right = [ResultCell("Alpha", "MMLU", "61.2"), ResultCell("Beta", "MMLU", "63.5")]
    assert {c.review for c in verify_on_words(right, words, BOX)} == {""}
