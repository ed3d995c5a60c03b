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
