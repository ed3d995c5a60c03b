"""Result semantics (what the cells of a read table mean): metric labels inside benchmark names,
unknown benchmarks, attribute columns, citations in values, notes for tables not read, own models
the report defines, per-table confidence. Tables are given as Markdown so the structure is exact."""

from __future__ import annotations

from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.results import markdown_tables

CAT = load_catalogue()


def _cells(md: str) -> set[tuple[str, str, str, str]]:
    tables, _notes = markdown_tables(md, CAT)
    return {(c.model, c.benchmark, c.metric, c.value) for t in tables for c in t.cells}


def test_metric_label_glued_or_appended_to_a_benchmark_name_is_split_off():
    md = """
| Benchmark | Alpha-7B | Beta-7B |
|---|---|---|
| MATH500pass@1 | 92.8 | 93.9 |
| GPQA Diamondpass@1 | 49.1 | 59.1 |
| Codeforces avg@8 | 36.3% | 32.0% |
| IFEval strict prompt | 83.4 | 85.0 |
"""
    assert _cells(md) == {
        ("Alpha-7B", "MATH500", "pass@1", "92.8"), ("Beta-7B", "MATH500", "pass@1", "93.9"),
        ("Alpha-7B", "GPQA Diamond", "pass@1", "49.1"), ("Beta-7B", "GPQA Diamond", "pass@1", "59.1"),
        ("Alpha-7B", "Codeforces", "avg@8", "36.3%"), ("Beta-7B", "Codeforces", "avg@8", "32.0%"),
        ("Alpha-7B", "IFEval", "strict prompt", "83.4"), ("Beta-7B", "IFEval", "strict prompt", "85.0"),
    }  # fmt: skip


def test_a_result_table_of_benchmarks_the_catalogue_does_not_know_is_read_and_listed():
    md = """
Table 3: Results on a multilingual code benchmark.

| Language | Alpha-7B | Beta-7B |
|---|---|---|
| Python | 61.2 | 58.0 |
| Rust | 40.5 | 37.1 |
"""
    tables, _notes = markdown_tables(md, CAT)
    cells = {(c.model, c.benchmark, c.value) for t in tables for c in t.cells}
    assert cells == {
        ("Alpha-7B", "Python", "61.2"), ("Beta-7B", "Python", "58.0"), ("Alpha-7B", "Rust", "40.5"), ("Beta-7B", "Rust", "37.1"),
    }  # fmt: skip
    assert all(CAT.lookup(c.benchmark) is None for t in tables for c in t.cells)


def test_a_table_whose_caption_describes_the_models_is_noted_not_read():
    md = """
Table 1: Model architecture.

| Model | Layers | Heads |
|---|---|---|
| Alpha-7B | 28 | 16 |
"""
    tables, notes = markdown_tables(md, CAT)
    assert tables == [] and any("not read" in n for n in notes)


def _tables(md: str):  # type: ignore[no-untyped-def]
    return markdown_tables(md, CAT)[0]


def test_attribute_columns_and_rows_are_model_attributes_never_scores():
    by_rows = _tables("""
| Model | # Total Params | # Activated Params | MMLU | GSM8K |
|---|---|---|---|---|
| Alpha-MoE | 236B | 21B | 78.5 | 79.2 |
| Beta-7B | 7B | 7B | 65.0 | 70.1 |
""")
    by_cols = _tables("""
| Benchmark | Alpha-MoE | Beta-7B |
|---|---|---|
| Architecture | MoE | Dense |
| # Activated Params | 21B | 7B |
| MMLU | 78.5 | 65.0 |
""")
    for tables, n in ((by_rows, 4), (by_cols, 2)):
        assert {c.benchmark for t in tables for c in t.cells} <= {"MMLU", "GSM8K"} and sum(len(t.cells) for t in tables) == n
    assert ("Alpha-MoE", "# Total Params", "236B") in {(a.model, a.benchmark, a.value) for a in by_rows[0].attributes}
    assert ("Beta-7B", "Architecture", "Dense") in {(a.model, a.benchmark, a.value) for a in by_cols[0].attributes}


def test_citations_and_footnote_markers_leave_the_value_and_go_to_its_note():
    tables = _tables("""
| Benchmark | Alpha-7B | Beta-7B |
|---|---|---|
| MMLU | 53.9 (Author et al., 2025) | 71.2† |
""")
    got = {(c.model, c.value, c.note) for t in tables for c in t.cells}
    assert got == {("Alpha-7B", "53.9", "(Author et al., 2025)"), ("Beta-7B", "71.2", "marker †")}


def test_a_packed_cell_is_two_values_when_the_caption_names_two_metrics():
    tables = _tables("""
Table 2: Results on GSM8K (pass@1 | pass@8).

| Model | GSM8K |
|---|---|
| Alpha-7B | 35.02 \\| 62.26 |
""")
    got = {(c.benchmark, c.metric, c.value) for t in tables for c in t.cells}
    assert got == {("GSM8K", "pass@1", "35.02"), ("GSM8K", "pass@8", "62.26")}


def test_a_summed_score_column_is_not_flagged_as_a_percentage_above_100():
    from ingest.analysis.results import cell_flag

    assert cell_flag("236.5", "", "", CAT, "Total") == ""
    assert cell_flag("236.5", "", "", CAT, "Development set").startswith("percentage above 100")


def test_short_names_the_report_defines_for_its_own_model_are_own():
    from ingest.analysis.own_model import defined_names, is_own, own_names

    text = "We introduce Lens Reasoner 7B (LR-7B), trained with RL. We compare with Other Model (OM)."
    defined = defined_names([text], {"LR-7B", "OM", "Alpha-8B"})
    assert ("Lens Reasoner 7B", "LR-7B") in defined and ("Other Model", "OM") in defined
    names = own_names("Lens Reasoner 7B", [], defined)
    assert names == ["Lens Reasoner 7B", "LR-7B"]
    assert is_own("LR-7B", names[0], names[1:]) and not is_own("OM", names[0], names[1:])
    assert is_own("Lens Reasoner 7B-Instruct", names[0], names[1:])  # the -Instruct/-Chat/-Base family


def test_a_model_header_spanning_its_setting_columns_names_the_model_of_each():
    from ingest.analysis.results import html_tables

    page = """<h2>Results</h2><table><thead>
<tr><th>Benchmark</th><th colspan="2">Lens-7B</th><th>Alpha-8B</th></tr>
<tr><th></th><th>Thinking</th><th>Non-thinking</th><th></th></tr></thead>
<tr><td>MMLU</td><td>80.1</td><td>75.2</td><td>70.0</td></tr></table>"""
    tables, _notes = html_tables(page, CAT)
    got = {(c.model, c.setting, c.value) for t in tables for c in t.cells}
    assert got == {("Lens-7B", "Thinking", "80.1"), ("Lens-7B", "Non-thinking", "75.2"), ("Alpha-8B", "", "70.0")}


def test_a_settings_table_naming_a_catalogue_benchmark_is_not_read_as_results():
    md = """
Table 1: Pre-training settings of each stage.

| Stage | MATH | Code |
|---|---|---|
| Stage 1 | 0.25 | 0.30 |
"""
    tables, notes = markdown_tables(md, CAT)
    assert tables == [] and any("does not say it holds results" in n for n in notes)


def test_a_parameter_count_in_a_score_column_is_an_attribute_not_a_percentage_over_100():
    tables = _tables("""
| Model | Scale | MMLU |
|---|---|---|
| Alpha-MoE | 236B | 78.5 |
""")
    assert {(c.benchmark, c.value) for t in tables for c in t.cells} == {("MMLU", "78.5")}
    assert ("Alpha-MoE", "Scale", "236B") in {(a.model, a.benchmark, a.value) for t in tables for a in t.attributes}


def test_huge_hostile_cells_and_captions_are_read_in_bounded_time():
    import time

    from ingest.analysis.result_meaning import _split_metric, _two_metrics, _values

    t0 = time.perf_counter()
    _values("1(" * 50_000, "", None)
    _values("1 | " + "2" * 100_000, "", ("EM", "F1"))
    _two_metrics("a" * 200_000, CAT)
    _split_metric("x" * 100_000 + "@1", CAT)
    assert time.perf_counter() - t0 < 2.0


def test_a_metrics_column_beside_the_models_is_the_metric_not_part_of_the_model(tmp_path):
    """Two metric rows per model, the model name centred between them, a "Metric" column."""
    from .test_results import cells_of, row, table_pdf, triples

    xs = [300, 370]
    items = [
        (72, 80, "Table 3: Results of the models on two benchmarks."),
        (72, 100, "Model"), (190, 100, "Metric"), (300, 100, "^MMLU"), (370, 100, "^GSM8K"),
        *row(116, "", ["70.1", "60.2"], xs), (190, 116, "EM"),
        (72, 122, "Alpha-7B"),
        *row(128, "", ["72.0", "61.0"], xs), (190, 128, "Acc."),
        *row(144, "", ["75.5", "66.6"], xs), (190, 144, "EM"),
        (72, 150, "Beta-9B"),
        *row(156, "", ["77.0", "68.0"], xs), (190, 156, "Acc."),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "m.pdf", [items]))
    assert triples(cells, "model", "benchmark", "metric", "value") == {
        ("Alpha-7B", "MMLU", "EM", "70.1"), ("Alpha-7B", "GSM8K", "EM", "60.2"),
        ("Alpha-7B", "MMLU", "Acc.", "72.0"), ("Alpha-7B", "GSM8K", "Acc.", "61.0"),
        ("Beta-9B", "MMLU", "EM", "75.5"), ("Beta-9B", "GSM8K", "EM", "66.6"),
        ("Beta-9B", "MMLU", "Acc.", "77.0"), ("Beta-9B", "GSM8K", "Acc.", "68.0"),
    }  # fmt: skip
