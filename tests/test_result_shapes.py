"""Table shapes of result tables (docs/table-shapes.md): each test builds a PDF with exactly known
text in the shape and checks the cells read from it; each fails without its rule."""

from __future__ import annotations

from pathlib import Path

from .test_results import cells_of, row, table_pdf, triples


def test_a_captioned_table_of_names_no_catalogue_knows_is_read(tmp_path):
    """Never refused for its names: a caption with no result word over benchmarks the catalogue
    lacks is still a result table; a caption saying it describes a configuration is not, and
    the note says that reason."""
    xs = [250, 320, 390]
    items = [
        (72, 90, "Table 2: Zorblax and Quuxbench on three systems."),
        (100, 110, "System"), (250, 110, "^Zorblax"), (320, 110, "^Quuxbench"), (390, 110, "^Fnordset"),
        *row(126, "Alpha-8B", ["65.3", "71.2", "72.0"], xs, 100),
        *row(138, "Beta-9B", ["20.1", "30.5", "41.3"], xs, 100),
        (72, 300, "Table 3: Architecture configuration of the systems."),
        (100, 320, "System"), (250, 320, "^Layers"), (320, 320, "^Heads"), (390, 320, "^Width"),
        *row(336, "Alpha-8B", ["32.0", "16.0", "40.96"], xs, 100),
        *row(348, "Beta-9B", ["40.0", "32.0", "51.20"], xs, 100),
    ]  # fmt: skip
    cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert {c["table"] for c in cells} == {"Table 2"}
    assert ("Alpha-8B", "Zorblax", "65.3") in triples(cells, "model", "benchmark", "value")
    assert any("Table 3" in n and "describes models, data or settings" in n for n in res.notes)


def test_a_printed_change_after_a_score_is_a_note(tmp_path):
    """ "91.8+3.3" (glued), "73.8 +5.3" (a gain after a space) and "62.0 (-1.5)" print a score and
    its change: the value is the score, the change goes to the note."""
    xs = [250, 330]
    items = [
        (72, 90, "Table 1: Results of the models."),
        (100, 110, "Model"), (250, 110, "^Zorblax"), (330, 110, "^Quuxbench"),
        *row(126, "Alpha-8B", ["91.8+3.3", "73.8 +5.3"], xs, 100),
        *row(138, "Beta-9B", ["62.0 (-1.5)", "70.1"], xs, 100),
        *row(150, "Gamma-7B", ["50.5", "48.2"], xs, 100),
        *row(162, "Delta-3B", ["40.0", "38.9"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert {
        ("Alpha-8B", "Zorblax", "91.8", "+3.3"), ("Alpha-8B", "Quuxbench", "73.8", "+5.3"),
        ("Beta-9B", "Zorblax", "62.0", "(-1.5)"), ("Beta-9B", "Quuxbench", "70.1", ""),
    } <= triples(cells, "model", "benchmark", "value", "note")  # fmt: skip


def test_a_split_column_beside_a_benchmark_column_joins_its_name(tmp_path):
    """Label columns headed "Benchmark" | "Split": each split is part of its benchmark's name
    ("MMLU Easy"), as a sub-header under a spanning header is, not a group."""
    xs = [300, 380]
    items = [
        (72, 90, "Table 1: Results by split."),
        (72, 110, "Benchmark"), (170, 110, "Split"), (300, 110, "^Alpha-8B"), (380, 110, "^Beta-9B"),
        (72, 126, "MMLU"), *row(126, "Easy", ["61.2", "63.5"], xs, 170),
        *row(138, "Hard", ["40.1", "42.0"], xs, 170),
        (72, 150, "C-Eval"), *row(150, "Easy", ["55.0", "57.5"], xs, 170),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "MMLU Easy", "61.2"), ("Beta-9B", "MMLU Hard", "42.0"), ("Alpha-8B", "C-Eval Easy", "55.0")} <= got
    assert {c["group"] for c in cells} == {""}


def _close_header_table(tmp_path: Path) -> list[dict]:
    """A header whose names are set close together (one segment for the eye of a gap rule), a
    category column headed "Type", citations set apart after the model names, arrows after the
    benchmark names."""
    xs = [230, 257, 284, 311]
    items = [
        (72, 90, "Table 3: Comparison with other models on four benchmarks."),
        (72, 110, "Type"), (120, 110, "Model"),
        (230, 110, "^Zorbx↑"), (257, 110, "^Quuxy↑"), (284, 110, "^Fnorz↑"), (311, 110, "^Blatw↑"),
        (72, 126, "Und."), (164, 126, "[12]"), *row(126, "Alpha-8B", ["84.1", "61.2", "40.1", "33.0"], xs, 120),
        (160, 138, "[7]"), *row(138, "Beta-9B", ["85.0", "63.5", "42.0", "35.5"], xs, 120),
        (72, 150, "Gen."), (174, 150, "[3]"), *row(150, "Gamma-7B", ["80.2", "55.0", "38.8", "30.1"], xs, 120),
    ]  # fmt: skip
    return cells_of(table_pdf(tmp_path / "t.pdf", [items]))[0]


def test_names_set_close_together_over_their_columns_stay_with_them(tmp_path):
    """One segment "Zorbx↑ Quuxy↑ Fnorz↑ Blatw↑" right over four value columns, each word centred
    on its column: four headers, not one; arrows are dropped from names."""
    cells = _close_header_table(tmp_path)
    assert {c["benchmark"] for c in cells} == {"Zorbx", "Quuxy", "Fnorz", "Blatw"}


def test_a_category_column_and_citations_are_not_part_of_the_model_name(tmp_path):
    """The outer label column headed "Type" is a row category (the group); "[12]" set apart after a
    model name is a citation, not a value column."""
    cells = _close_header_table(tmp_path)
    got = triples(cells, "model", "benchmark", "group", "value")
    assert ("Alpha-8B [12]", "Zorbx", "Und.", "84.1") in got and ("Gamma-7B [3]", "Blatw", "Gen.", "30.1") in got
    assert len(cells) == 12


def test_repeated_sub_headers_under_spanning_model_names_are_their_metrics(tmp_path):
    """Model names evenly set over three columns each, the same lower-case sub-headers under each:
    each name covers its three columns, the parent is the model, the sub-header the metric."""
    xs = [200, 236, 272, 308, 344, 380, 416, 452, 488]
    items = [
        (72, 90, "Table 8: Tool use accuracy of the models."),
        (236, 110, "^Alpha-8B"), (344, 110, "^Beta-9B"), (452, 110, "^Gamma-7B"),
        (72, 124, "Servers"), *[(x, 124, "^" + t) for x, t in zip(xs, ["func", "param", "p_v"] * 3, strict=True)],
        *row(138, "Zorbx", ["89.3", "67.9", "53.6", "92.8", "60.7", "50.0", "96.4", "67.8", "50.1"], xs),
        *row(150, "Quuxy", ["79.8", "77.5", "50.2", "74.4", "72.0", "41.0", "89.3", "85.7", "39.9"], xs),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "metric", "value")
    assert {
        ("Alpha-8B", "Zorbx", "func", "89.3"),
        ("Alpha-8B", "Zorbx", "p_v", "53.6"),
        ("Gamma-7B", "Quuxy", "p_v", "39.9"),
    } <= got
    assert len(cells) == 18


def test_footnote_markers_inside_a_name_are_taken_off():
    """ "Tower-13B† [8]" and "Gemma3-27B †": a marker after a word of a name is a footnote, not part of it."""
    from ingest.analysis.result_meaning import clean

    assert [clean(x) for x in ("Tower-13B† [8]", "Gemma3-27B †", "71.2†", "a * b")] == [
        "Tower-13B [8]",
        "Gemma3-27B",
        "71.2",
        "a * b",
    ]


def test_a_header_row_after_rows_of_values_starts_a_new_panel(tmp_path):
    """Two stacked panels under one caption: the rows below the second header row are read under
    it, not under the first panel's headers; an "Average" column is the table's aggregate."""
    xs = [250, 300, 350]
    items = [
        (72, 90, "Table 3: Results in eight languages."),
        (250, 110, "^Zorb"), (300, 110, "^Quux"), (350, 110, "^Fnor"),
        *row(124, "Alpha-8B", ["61.2", "40.1", "33.0"], xs, 100),
        *row(136, "Beta-9B", ["63.5", "42.0", "35.5"], xs, 100),
        (250, 152, "^Blat"), (300, 152, "^Wemb"), (350, 152, "^Average"),
        *row(166, "Alpha-8B", ["55.0", "48.2", "49.6"], xs, 100),
        *row(178, "Beta-9B", ["57.5", "50.1", "51.4"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Zorb", "61.2"),
        ("Beta-9B", "Fnor", "35.5"),
        ("Alpha-8B", "Blat", "55.0"),
        ("Beta-9B", "Average", "51.4"),
    } <= got
    assert len(cells) == 12


def test_spanning_headers_of_one_level_are_all_categories_when_one_stands_over_benchmarks(tmp_path):
    """ "Exam" over MMLU and GSM8K (catalogue benchmarks) and "Reading" over two unknown names: both
    parents are categories (the group), never glued into the names under them."""
    xs = [230, 280, 330, 380]
    items = [
        (72, 90, "Table 2: Results of the models."),
        (255, 106, "^Exam"), (355, 106, "^Reading"),
        (100, 120, "Model"), (230, 120, "^MMLU"), (280, 120, "^GSM8K"), (330, 120, "^Zorbqa"), (380, 120, "^Quuxqa"),
        *row(134, "Alpha-8B", ["61.2", "40.1", "33.0", "21.5"], xs, 100),
        *row(146, "Beta-9B", ["63.5", "42.0", "35.5", "22.8"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "group", "value")
    assert {("Alpha-8B", "MMLU", "Exam", "61.2"), ("Beta-9B", "Quuxqa", "Reading", "22.8")} <= got


def test_a_second_header_line_of_sizes_and_notes_joins_the_model_names(tmp_path):
    """ "Alpha" over "8B (Dense)": a line of sizes and notes starting under the first value column
    (no row label) is the second line of the model headers, not a row of results."""
    xs = [250, 310, 370]
    items = [
        (72, 90, "Table 6: Comparison of the models."),
        (100, 110, "Metric"), (250, 110, "^Alpha"), (310, 110, "^Beta"), (370, 110, "^Gamma"),
        (250, 121, "^8B (Dense)"), (310, 121, "^16B"), (370, 121, "^32B"),
        *row(136, "Zorbqa (Acc.)", ["61.2", "40.1", "33.0"], xs, 100),
        *row(148, "Quuxqa (Acc.)", ["63.5", "42.0", "35.5"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha 8B (Dense)", "Zorbqa", "61.2"), ("Gamma 32B", "Quuxqa", "35.5")} <= got and len(cells) == 6


def test_a_rule_under_a_header_gives_the_columns_it_spans(tmp_path):
    """ "Probe" with a rule drawn under it over three sub-headers ("Loose", "Strict", "Overall"):
    it covers the three columns (a booktabs cmidrule), and "Overall" under it is Probe's overall
    score, not the table's aggregate. Values packed with slashes ("95.0 / 89.5 / 84.8") set with
    wide spaces are one cell."""
    xs = [220, 260, 300, 340, 440]
    items = [
        (72, 90, "Table 4: Results of the models."),
        (300, 104, "^Probe"),
        (100, 120, "Models"), (220, 120, "^Zorbqa"), (260, 120, "^Loose"), (300, 120, "^Strict"), (340, 120, "^Overall"),
        (440, 120, "^Multi"),
        *row(136, "Alpha-8B", ["71.3", "90.5", "87.6", "89.1"], xs, 100), (380, 136, "95.0     /     89.5     /     84.8"),
        *row(148, "Beta-9B", ["67.3", "89.9", "84.5", "87.2"], xs, 100), (380, 148, "94.9     /     89.3     /     84.4"),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items], rules=[[(110, 240, 360)]]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "Probe Loose", "90.5"), ("Beta-9B", "Probe Overall", "87.2"), ("Alpha-8B", "Zorbqa", "71.3")} <= got
    assert ("Alpha-8B", "Multi", "95.0 / 89.5 / 84.8") in got


def test_hyphen_cut_headers_a_task_corner_and_a_centred_group_title(tmp_path):
    """Headers cut at a hyphen ("Zorb-" over "Bench") stay in their column; the corner names the
    task ("Proving"), not a benchmark, when the headers name benchmarks (MMLU here); a title centred
    across the table right over the rows ("Open Models") is the rows' group, not a header line."""
    xs = [230, 300, 370]
    items = [
        (72, 90, "Table 2: Proving results of the models."),
        (230, 106, "^Zorbulonexemplarity-"), (300, 106, "^Qx-"),
        (72, 118, "Proving"), (230, 118, "^Bench"), (300, 118, "^Test"), (370, 118, "^MMLU"),
        (150, 134, "Open Models Of Every Kind"),
        *row(148, "Alpha-8B", ["14.7", "77.9", "20.4"], xs),
        *row(160, "Beta-9B", ["7.5", "76.6", "19.9"], xs),
        (150, 174, "Closed Models Of Every Kind"),
        *row(188, "Gamma-7B", ["3.9", "56.2", "22.0"], xs),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "group", "value")
    assert ("Alpha-8B", "Zorbulonexemplarity-Bench", "Open Models Of Every Kind", "14.7") in got
    assert ("Gamma-7B", "Qx-Test", "Closed Models Of Every Kind", "56.2") in got
    assert ("Beta-9B", "MMLU", "Open Models Of Every Kind", "19.9") in got


def test_a_second_header_line_of_whole_numbers_joins_the_model_names(tmp_path):
    """ "Alpha-32B" over "0321": a line of whole numbers (dates, versions) with no row label, over
    rows that print scores, is the headers' second line."""
    xs = [250, 310, 370]
    items = [
        (72, 90, "Table 2: Results of the models."),
        (100, 110, "Tasks"), (250, 110, "^Alpha-32B"), (310, 110, "^Alpha-32B"), (370, 110, "^Beta-7B"),
        (250, 121, "^0321"), (310, 121, "^0326"),
        *row(136, "Zorbqa", ["45.56", "49.70", "37.11"], xs, 100),
        *row(148, "Quuxqa", ["54.40", "57.10", "60.80"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-32B 0321", "Zorbqa", "45.56"), ("Alpha-32B 0326", "Quuxqa", "57.10"), ("Beta-7B", "Zorbqa", "37.11")} <= got
    assert len(cells) == 6


def test_a_running_page_header_and_a_packed_budget_are_no_header_and_one_cell(tmp_path):
    """A line every page prints at its top ("LENS REPORT") is a running header, never part of the
    table right under it; "32 × 16 × 400" set with wide spaces is one value (a sample budget)."""
    prose = [(400, 60, "^LENS REPORT"), (72, 120, "Some words of a paragraph that is not a table at all.")]
    xs = [400, 470]
    table = [
        (400, 60, "^LENS REPORT"),
        (400, 76, "^miniF2F-test"), (100, 88, "Prover system"), (230, 88, "Sample budget"), (470, 88, "^Size"),
        (100, 102, "Alpha-Prover"), (230, 102, "32   ×   16   ×   400"), *row(102, "", ["63.5%", "7B"], xs, 100),
        (100, 114, "Beta-Prover"), (230, 114, "256   ×   32   ×   600"), *row(114, "", ["65.9%", "7B"], xs, 100),
        (100, 126, "Gamma-Prover"), (230, 126, "600   ×   8   ×   400"), *row(126, "", ["68.4%", "72B"], xs, 100),
        (72, 150, "Table 1: Results on miniF2F-test of the prover systems."),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [prose, prose, table]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-Prover", "miniF2F-test", "63.5%"), ("Gamma-Prover", "miniF2F-test", "68.4%")} <= got
    assert len(cells) == 3


def test_a_section_heading_right_under_a_table_is_not_part_of_it(tmp_path):
    """ "5.3.  Training Analysis" set right under the last row (its number apart, like a label
    cell) ends the table: it is no row label carried up into the rows."""
    xs = [250, 310]
    items = [
        (72, 90, "Table 2: Results of the models."),
        (72, 110, "Tasks"), (250, 110, "^Alpha-7B"), (310, 110, "^Beta-8B"),
        *row(124, "Zorbqa", ["45.56", "49.70"], xs),
        *row(136, "Quuxqa", ["54.40", "57.10"], xs),
        *row(148, "Fnorqa", ["67.50", "72.50"], xs),
        *row(160, "Blatqa", ["52.23", "57.52"], xs),
        (64, 178, "5.3."), (90, 178, "Training Analysis"),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert {c["model"] for c in cells} == {"Alpha-7B", "Beta-8B"} and {c["group"] for c in cells} == {""}
    assert {c["benchmark"] for c in cells} == {"Zorbqa", "Quuxqa", "Fnorqa", "Blatqa"}


def test_a_centred_split_column_is_one_label_column(tmp_path):
    """Splits centred under "Split" ("Perception", "Overall", "FSP": three different starts) are one
    label column, joined to the benchmark beside them, not two columns glued into one name."""
    xs = [300, 380]
    items = [
        (72, 90, "Table 1: Results by split."),
        (72, 110, "Benchmark"), (180, 110, "^Split"), (300, 110, "^Alpha-8B"), (380, 110, "^Beta-9B"),
        (180, 126, "^Perception"), (72, 138, "Zorbqa"), (180, 138, "^Reasoning"), (180, 150, "^Overall"),
        (180, 162, "^FSP"), (72, 174, "Quuxqa"), (180, 174, "^FCP"), (180, 186, "^Overall"),
        (72, 198, "Fnorqa"), (180, 198, "^Overall"), (72, 210, "Blatqa"), (180, 210, "^Overall"),
        (72, 222, "Wembqa"), (180, 222, "^Overall"),
    ]  # fmt: skip
    vals = [["61.2", "63.5"], ["40.1", "42.0"], ["50.6", "52.7"], ["71.0", "72.3"], ["55.0", "57.5"]]
    vals += [["63.0", "64.9"], ["33.3", "35.1"], ["20.5", "22.0"], ["80.1", "81.4"]]
    for y, v in zip(range(126, 223, 12), vals, strict=True):
        items += [(x, y, "^" + t) for x, t in zip(xs, v, strict=True)]
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Zorbqa Perception", "61.2"), ("Beta-9B", "Zorbqa Overall", "52.7"),
        ("Alpha-8B", "Quuxqa FSP", "71.0"), ("Beta-9B", "Quuxqa Overall", "64.9"), ("Alpha-8B", "Fnorqa Overall", "33.3"),
    } <= got  # fmt: skip
    assert len(cells) == 18


def test_a_header_over_a_column_with_more_room_stays_over_it(tmp_path):
    """Columns set unevenly: a model name wider than the usual column distance, centred over a
    column whose neighbours stand farther off, fits the room that column has (half way to each
    neighbour) and names that column alone, not every column around it."""
    xs = [250, 305, 370, 480]
    items = [
        (72, 90, "Table 6: Comparison of the models."),
        (250, 110, "^Alpha"), (305, 110, "^Beta"), (370, 110, "^Zorblaxquuxmodelx"), (480, 110, "^Zorblaxquuxmodelx 142B"),
        (72, 122, "Benchmark"), (250, 122, "^7B"), (305, 122, "^13B"), (370, 122, "^145B"), (480, 122, "^(Half)"),
        *row(138, "Fnorqa", ["61.2", "63.5", "70.1", "69.0"], xs),
        *row(150, "Blatqa", ["40.1", "42.0", "45.5", "44.8"], xs),
        *row(162, "Wembqa", ["55.0", "57.5", "60.2", "59.9"], xs),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {
        ("Alpha 7B", "Fnorqa", "61.2"), ("Zorblaxquuxmodelx 145B", "Fnorqa", "70.1"),
        ("Zorblaxquuxmodelx 142B (Half)", "Wembqa", "59.9"),
    } <= got  # fmt: skip


def test_a_row_of_printed_changes_is_no_results(tmp_path):
    """A row under two models printing only signed changes ("+2.8  -0.4"), the difference between
    the rows above it, holds no scores of its own, and its values are not left unread."""
    xs = [250, 320, 390]
    items = [
        (72, 90, "Table 1: Results of the models."),
        (72, 110, "Model"), (250, 110, "^Zorblax"), (320, 110, "^Quuxbench"), (390, 110, "^Fnordset"),
        *row(126, "Alpha-8B", ["61.2", "40.1", "33.0"], xs),
        *row(138, "Alpha-8B-RL", ["64.0", "39.7", "35.5"], xs),
        *row(150, "(RL - Base)", ["+2.8", "-0.4", "+2.5"], xs),
        *row(162, "Beta-9B", ["55.0", "48.2", "49.6"], xs),
    ]  # fmt: skip
    cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert {c["model"] for c in cells} == {"Alpha-8B", "Alpha-8B-RL", "Beta-9B"}
    assert len(cells) == 9
    assert not any("not read" in f for t in res.tables for f in t.flags)


def test_an_indented_variant_row_joins_the_row_it_hangs_under(tmp_path):
    """ "w/ tools" indented under the row "Gamma-7B" is "Gamma-7B w/ tools"; lower-case variants
    indented under a label-only line "Delta-3B" are "Delta-3B fast mode", and "Delta-3B" is their
    parent, not a group heading. Names indented under a category heading stay as printed."""
    xs = [250, 320, 390]
    items = [
        (72, 80, "Table 2: Results of the models."),
        (72, 100, "Model"), (250, 100, "^Zorblax"), (320, 100, "^Quuxbench"), (390, 100, "^Fnordset"),
        *row(114, "Zeta-1B", ["21.2", "20.1", "13.0"], xs),
        *row(126, "Alpha-8B", ["61.2", "40.1", "33.0"], xs),
        *row(138, "Gamma-7B", ["55.0", "48.2", "49.6"], xs),
        *row(150, "w/ tools", ["58.5", "50.3", "51.0"], xs, 77),
        (72, 162, "Open models"),
        *row(174, "Beta-9B", ["52.1", "47.0", "45.3"], xs, 77),
        *row(186, "Eta-4B", ["42.1", "37.0", "35.3"], xs),
        (72, 198, "Delta-3B"),
        *row(210, "fast mode", ["50.5", "44.4", "41.9"], xs, 77),
        *row(222, "slow mode", ["60.5", "54.4", "51.9"], xs, 77),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {
        ("Alpha-8B", "Zorblax", "61.2"), ("Gamma-7B", "Zorblax", "55.0"), ("Gamma-7B w/ tools", "Zorblax", "58.5"),
        ("Beta-9B", "Quuxbench", "47.0"), ("Delta-3B fast mode", "Fnordset", "41.9"),
        ("Delta-3B slow mode", "Zorblax", "60.5"),
    } <= got  # fmt: skip
    assert ("Beta-9B", "Open models") in triples(cells, "model", "group")
    assert len(cells) == 24


def test_a_benchmark_the_caption_names_and_prints_as_a_header_names_only_its_columns(tmp_path):
    """The caption names MMLU, printed over two columns; the column "Zorbqa" over "Full" beside
    them is its own benchmark, not MMLU with a setting "Zorbqa Full"."""
    xs = [250, 300, 380]
    items = [
        (72, 80, "Table 4: Results of the models on MMLU."),
        (275, 100, "^MMLU"), (380, 100, "^Zorbqa"),
        (72, 112, "Model"), (250, 112, "^Easy"), (300, 112, "^Hard"), (380, 112, "^Full"),
        *row(128, "Alpha-8B", ["61.2", "40.1", "33.0"], xs),
        *row(140, "Beta-9B", ["55.0", "48.2", "49.6"], xs),
        *row(152, "Gamma-7B", ["52.1", "47.0", "45.3"], xs),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "MMLU Easy", "61.2"), ("Beta-9B", "MMLU Hard", "48.2"), ("Gamma-7B", "Zorbqa Full", "45.3")} <= got


def test_a_raised_letter_after_a_name_is_part_of_its_row(tmp_path):
    """A superscript "T" (a thinking-mode variant) set raised right after "Alpha-8B" stays in that
    row's name, not a line of its own read as a group heading."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from .test_results import _font

    xs = [250, 320]
    end = 72 + stringWidth("Alpha-8B", _font(), 9)
    items = [
        (72, 90, "Table 1: Results of the models."),
        (72, 110, "Model"), (250, 110, "^Zorblax"), (320, 110, "^Quuxbench"),
        (end, 123, "T"), *row(127, "Alpha-8B", ["61.2", "40.1"], xs),
        *row(139, "Alpha-8B", ["55.0", "38.2"], xs),
        *row(151, "Beta-9B", ["52.1", "47.0"], xs),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value", "group")
    want = {("Alpha-8B T", "Zorblax", "61.2", ""), ("Alpha-8B", "Zorblax", "55.0", ""), ("Beta-9B", "Quuxbench", "47.0", "")}
    assert want <= got


def _pdf_with_math_subscript(path: Path) -> Path:
    """A one-page PDF written by hand: Helvetica text, and "val" set in a second Helvetica whose
    ToUnicode map gives math italic letters (U+1D463 U+1D44E U+1D459), as TeX's math fonts do."""
    h = 842
    items = [
        (72, 90, "Table 1: Results of the models."),
        (72, 110, "Benchmark"), (240, 110, "Alpha-8B"), (310, 110, "Beta-9B"),
        (72, 126, "Zorbqa"), (72, 138, "MMMU"), (72, 150, "Quuxqa"),
        (250, 126, "61.2"), (320, 126, "63.5"), (250, 138, "40.1"), (320, 138, "42.0"), (250, 150, "55.0"), (320, 150, "57.5"),
    ]  # fmt: skip
    ops = [f"BT /F1 9 Tf {x} {h - y} Td ({t}) Tj ET" for x, y, t in items]
    ops.append(f"BT /F2 6 Tf {72 + 9 * 2.556:.2f} {h - 138} Td (val) Tj ET")  # right after "MMMU" (Helvetica widths)
    content = "\n".join(ops).encode()
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /M def "
        b"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar "
        b"<76> <D835DC63> <61> <D835DC4E> <6C> <D835DC59> endbfchar endcmap "
        b"CMapName currentdict /CMap defineresource pop end end"
    )
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 7 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def test_math_italic_subscripts_stay_in_the_name(tmp_path):
    """ "MMMU" with a math italic subscript "𝑣𝑎𝑙" (letters outside the basic plane, which pdfium
    counts as two characters each) is read "MMMU val", not "MMMU" with the subscript dropped."""
    cells, _ = cells_of(_pdf_with_math_subscript(tmp_path / "t.pdf"))
    got = triples(cells, "model", "benchmark", "value")
    assert ("Alpha-8B", "MMMU val", "40.1") in got and ("Beta-9B", "MMMU val", "42.0") in got


def test_the_short_last_line_of_a_paragraph_above_a_table_is_not_its_header(tmp_path):
    """A paragraph ends right over the table in a short line at the paragraph's left edge and line
    spacing, reaching over the value columns: it is prose, not the top line of the table's header
    (never part of a model's name)."""
    xs = [250, 330, 410]
    items = [
        (72, 90, "The evaluation pipeline and the metrics are the same as in the earlier report, where the"),
        (72, 101, "scores of the models are computed with the open package from the public repository at"),
        (72, 112, "the address https://github.example.org/openai/simple-evals."),
        (250, 126, "^Alpha-8B"), (330, 126, "^Beta-9B"), (410, 126, "^Gamma-7B"),
        (72, 138, "Benchmark"), (250, 138, "^Chat"), (330, 138, "^Chat"), (410, 138, "^Base"),
        *row(152, "Zorbqa", ["61.2", "40.1", "33.0"], xs),
        *row(164, "Quuxqa", ["55.0", "38.2", "30.1"], xs),
        *row(176, "Fnorqa", ["52.1", "47.0", "45.3"], xs),
        (150, 196, "Table 10 | A comparison of the models."),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert {c["model"] for c in cells} == {"Alpha-8B Chat", "Beta-9B Chat", "Gamma-7B Base"}
    assert len(cells) == 9


def test_a_wide_centred_label_alone_at_its_start_is_in_the_centred_column(tmp_path):
    """Benchmark names centred on one x, one of them far wider than the rest (it alone starts
    where it starts), a category column left of them: the wide name is its row's benchmark, not
    an outer column's cell."""
    xs = [300, 370]
    items = [
        (72, 90, "Table 2: Comparison of the base models."),
        (200, 110, "^Benchmark (Metric)"), (300, 110, "^Alpha-8B"), (370, 110, "^Beta-9B"),
        (200, 126, "^Zorbqa (EM)"), (200, 138, "^Quuxqa (EM)"), (72, 144, "Code"),
        (200, 150, "^Zorbulonexemplarity-Base (Pass@1)"), (200, 162, "^Fnorqa (EM)"), (200, 174, "^Blatqa (EM)"),
    ]  # fmt: skip
    vals = [["61.2", "63.5"], ["40.1", "42.0"], ["25.1", "24.6"], ["71.0", "72.3"], ["55.0", "57.5"]]
    for y, v in zip(range(126, 175, 12), vals, strict=True):
        items += [(x, y, "^" + t) for x, t in zip(xs, v, strict=True)]
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert {("Alpha-8B", "Zorbulonexemplarity-Base", "25.1"), ("Beta-9B", "Quuxqa", "42.0"), ("Beta-9B", "Blatqa", "57.5")} <= got
    assert len(cells) == 10
