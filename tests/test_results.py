"""Results stage: generated PDFs with exactly known cells, one per failure mode of real report
tables, plus Markdown/HTML tables, the catalogue, own-model flags, curated results and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.analysis.benchmarks import load_catalogue, norm_name
from ingest.analysis.own_model import REPORT_MODEL
from ingest.analysis.results import (
    RESULT_COLUMNS,
    RESULTS_VERSION,
    cell_flag,
    html_tables,
    is_own,
    markdown_tables,
    read_results,
    result_rows,
    score_of,
)
from ingest.common.records import ResultCell, Results, ResultTable
from ingest.reading.extract import extract_file
from ingest.sources.registry import SpecFileError, load_model
from ingest.sources.schema import ReportSpec

from .conftest import _font

CAT = load_catalogue()

# An item is (x, y, text) with y measured top-down in points; x is the left edge, or the centre
# when the text starts with "^" (the caret is not drawn).
Item = tuple[float, float, str]


def table_pdf(
    path: Path, pages: list[list[Item]], rules: list[list[tuple[float, float, float]]] | None = None, size: float = 9
) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    font = _font()
    c = canvas.Canvas(str(path), pagesize=A4)
    _w, h = A4
    for k, items in enumerate(pages):
        c.setFont(font, size)
        for x, y, text in items:
            if text.startswith("^"):
                text = text[1:]
                x -= stringWidth(text, font, size) / 2
            c.drawString(x, h - y, text)
        for y, x0, x1 in (rules or [[]] * len(pages))[k] if rules else []:
            c.setLineWidth(0.5)
            c.line(x0, h - y, x1, h - y)
        c.showPage()
    c.save()
    return path


def cells_of(path: Path) -> tuple[list[dict], Results]:
    res = read_results(extract_file(path), path, CAT)
    return [c.to_json() | {"table": t.label, "page": t.page} for t in res.tables for c in t.cells], res


def triples(cells: list[dict], *keys: str) -> set[tuple]:
    return {tuple(c[k] for k in keys) for c in cells}


def row(y: float, label: str, values: list[str], xs: list[float], x_label: float = 72) -> list[Item]:
    return [(x_label, y, label)] + [(x, y, "^" + v) for x, v in zip(xs, values, strict=False) if v]


def test_multi_level_header_metric_sub_columns_and_caption_below(tmp_path):
    """A benchmark spanning metric sub-columns (pass@1 / cons@64); models as rows; caption below."""
    xs = [210, 260, 330, 410]
    items = [
        (240, 100, "^AIME 2024"), (330, 100, "^MATH-500"), (410, 100, "^CodeForces"),
        (72, 112, "Model"), (210, 112, "^pass@1"), (260, 112, "^cons@64"), (330, 112, "^pass@1"), (410, 112, "^rating"),
        *row(130, "Alpha-1", ["63.6", "80.0", "90.0", "1820"], xs),
        *row(142, "Beta-2", ["74.4", "83.3", "94.8", "1843"], xs),
        *row(154, "Gamma-R1", ["71.0", "86.7", "95.9", "1444"], xs),
        (150, 175, "Table 1 | Comparison of three models on reasoning-related benchmarks."),
        (72, 220, "Body text of the report goes on here with many words in a long sentence about things."),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    expected = set()
    for model, vals in (("Alpha-1", ["63.6", "80.0", "90.0", "1820"]), ("Beta-2", ["74.4", "83.3", "94.8", "1843"]),
                        ("Gamma-R1", ["71.0", "86.7", "95.9", "1444"])):  # fmt: skip
        for (bench, metric), v in zip(
            [("AIME 2024", "pass@1"), ("AIME 2024", "cons@64"), ("MATH-500", "pass@1"), ("CodeForces", "rating")],
            vals,
            strict=False,
        ):
            expected.add((model, bench, metric, v))
    assert triples(cells, "model", "benchmark", "metric", "value") == expected
    assert {c["table"] for c in cells} == {"Table 1"} and {c["page"] for c in cells} == {1}


def test_model_group_headers_do_not_glue_and_attribute_rows_are_not_results(tmp_path):
    """Spanning "Language-only Model" over two model columns, row group labels filled down,
    footnote markers removed, dashes and attribute rows (Architecture, # Total Params) skipped."""
    xs = [250, 310, 370, 430]
    items = [
        (72, 80, "Table 2: Performance of Ours-1 and other models."),
        (280, 100, "^Language-only Model"), (400, 100, "^Vision-Language Model"),
        (100, 112, "Benchmark (Metric)"), (250, 112, "^QwQ-32B"), (310, 112, "^Alpha"), (370, 112, "^Beta-VL"), (430, 112, "^Ours-1"),  # noqa: E501
        *row(128, "Architecture", ["-", "-", "MoE", "MoE"], xs, 100),
        *row(140, "# Total Params", ["32B", "70B", "100B", "20B"], xs, 100),
        *row(156, "MATH-500 (EM)", ["90.6", "90.0*", "71.4", "96.2\u2020"], xs, 100),
        (60, 162, "Math"),
        *row(168, "AIME 2024 (Pass@1)", ["50.0", "63.6", "-", "77.5"], xs, 100),
        (60, 184, "Code"),
        *row(184, "LiveCodeBench (Pass@1)", ["40.6", "53.1", "-", "62.5"], xs, 100),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "metric", "group", "value")
    assert got == {
        ("QwQ-32B", "MATH-500", "EM", "Math", "90.6"), ("Alpha", "MATH-500", "EM", "Math", "90.0"),
        ("Beta-VL", "MATH-500", "EM", "Math", "71.4"), ("Ours-1", "MATH-500", "EM", "Math", "96.2"),
        ("QwQ-32B", "AIME 2024", "Pass@1", "Math", "50.0"), ("Alpha", "AIME 2024", "Pass@1", "Math", "63.6"),
        ("Ours-1", "AIME 2024", "Pass@1", "Math", "77.5"),
        ("QwQ-32B", "LiveCodeBench", "Pass@1", "Code", "40.6"), ("Alpha", "LiveCodeBench", "Pass@1", "Code", "53.1"),
        ("Ours-1", "LiveCodeBench", "Pass@1", "Code", "62.5"),
    }  # fmt: skip


def test_key_columns_row_spanning_labels_rules_and_two_numbers_in_one_cell(tmp_path):
    """Models as rows with model size and sample budget columns; a model name printed once for
    several rows (filled to the rows nearest to it, not across a drawn rule); "52.5% ± 1.4%" and
    "2056 / 98.2%" are one value each."""
    xs = [260, 330, 420]
    items = [
        (72, 100, "Method"), (260, 100, "^Model size"), (330, 100, "^Sample budget"), (420, 100, "^miniF2F-test"),
        *row(120, "Prover-A (Li et al., 2024)", ["7B", "32", "61.1%"], xs),
        *row(138, "", ["", "1", "52.5% \u00b1 1.4%"], xs),
        *row(150, "Prover-B", ["72B", "32", "68.0% \u00b1 0.5%"], xs),
        *row(162, "", ["", "1024", "73.2%"], xs),
        *row(180, "", ["", "1", "2056 / 98.2%"], xs),
        *row(186, "Prover-C", ["7B", "", ""], xs),
        *row(192, "", ["", "32", "77.0%"], xs),
        (72, 215, "Table 3 | Comparison with other provers on the miniF2F-test dataset."),
    ]  # fmt: skip
    rules = [[(92, 70, 460), (106, 70, 460), (127, 70, 460), (170, 70, 460), (200, 70, 460)]]
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items], rules))
    got = triples(cells, "model", "benchmark", "value", "setting")
    assert got == {
        ("Prover-A (Li et al., 2024)", "miniF2F-test", "61.1%", "Model size 7B; Sample budget 32"),
        ("Prover-B", "miniF2F-test", "52.5% \u00b1 1.4%", "Model size 72B; Sample budget 1"),
        ("Prover-B", "miniF2F-test", "68.0% \u00b1 0.5%", "Model size 72B; Sample budget 32"),
        ("Prover-B", "miniF2F-test", "73.2%", "Model size 72B; Sample budget 1024"),
        ("Prover-C", "miniF2F-test", "2056 / 98.2%", "Model size 7B; Sample budget 1"),
        ("Prover-C", "miniF2F-test", "77.0%", "Model size 7B; Sample budget 32"),
    }


def test_benchmark_named_only_in_caption_columns_are_settings(tmp_path):
    xs = [250, 300, 350]
    items = [
        (150, 90, "Table 4: Long context performance on the RULER benchmark."),
        (150, 110, "Model"), (250, 110, "^4K"), (300, 110, "^8K"), (350, 110, "^16K"),
        *row(124, "Alpha 72B", ["96.5", "94.3", "93.1"], xs, 150),
        *row(136, "Ours", ["94.7", "94.9", "92.6"], xs, 150),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert triples(cells, "model", "benchmark", "setting", "value") == {
        ("Alpha 72B", "RULER", "4K", "96.5"), ("Alpha 72B", "RULER", "8K", "94.3"), ("Alpha 72B", "RULER", "16K", "93.1"),
        ("Ours", "RULER", "4K", "94.7"), ("Ours", "RULER", "8K", "94.9"), ("Ours", "RULER", "16K", "92.6"),
    }  # fmt: skip


def test_table_beside_a_text_column_with_benchmark_in_the_corner_cell(tmp_path):
    """Prose on the left, the table on the right; "FormalMATH" in the corner names the benchmark,
    the column headers are its subsets and the metric."""
    prose = [
        "FormalMATH is a large-scale formal",
        "theorem proving benchmark with 5560",
        "problems, ranging from high school",
        "olympiad questions to theorems, and",
        "covering a wide range of domains such",
        "as algebra and applied mathematics in",
        "the style of the rest of the report.",
    ]
    items = [(72, 100 + 12 * i, t) for i, t in enumerate(prose)]
    items += [
        (300, 100, "FormalMATH"), (450, 94, "^All"), (505, 94, "^Lite"), (450, 106, "^Pass@32"), (505, 106, "^Pass@32"),
        (300, 122, "Model-A"), (450, 122, "^13.53%"), (505, 122, "^46.70%"),
        (300, 134, "Model-B"), (450, 134, "^16.46%"), (505, 134, "^48.94%"),
        (300, 152, "Table 5 | Results on FormalMATH-All/Lite."),
    ]  # fmt: skip
    cells, _ = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert triples(cells, "model", "benchmark", "metric", "value") == {
        ("Model-A", "FormalMATH All", "Pass@32", "13.53%"), ("Model-A", "FormalMATH Lite", "Pass@32", "46.70%"),
        ("Model-B", "FormalMATH All", "Pass@32", "16.46%"), ("Model-B", "FormalMATH Lite", "Pass@32", "48.94%"),
    }  # fmt: skip


def test_image_only_scores_are_noted_not_guessed(tmp_path):
    items = [
        (72, 100, "Our model is compared with strong baselines in the figure below."),
        (72, 400, "Figure 1: Scores on MMLU, GPQA Diamond and AIME 2024 for all models."),
    ]
    cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert cells == []
    assert "scores shown only as images on page 1" in res.notes


def test_unread_numbers_in_a_table_are_flagged_for_review(tmp_path):
    xs = [250, 320]
    items = [
        (72, 90, "Table 6: Results."),
        (72, 110, "Model"), (250, 110, "^MMLU"), (320, 110, "^GPQA"),
        *row(124, "Alpha", ["70.1", "40.2"], xs),
        *row(136, "Beta", ["71.3", "41.0"], xs),
        *row(148, "Gamma", ["72.0", "42.2"], xs),
        (120, 136, "12.5"),  # a stray number between the labels and the first column
    ]  # fmt: skip
    _cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    flags = [f for t in res.tables for f in t.flags]
    assert any("not read" in f for f in flags), res


def test_a_failing_note_pass_keeps_the_tables_already_read(tmp_path, monkeypatch):
    xs = [210, 290, 370]
    items = [
        (72, 100, "Model"), (210, 100, "^MMLU"), (290, 100, "^GSM8K"), (370, 100, "^MATH-500"),
        *row(118, "Alpha-1", ["63.6", "80.0", "90.0"], xs),
        *row(130, "Beta-2", ["74.4", "83.3", "94.8"], xs),
        *row(142, "Gamma-R1", ["71.0", "86.7", "95.9"], xs),
        (150, 165, "Table 1: Results of three models on three benchmarks."),
    ]  # fmt: skip
    path = table_pdf(tmp_path / "t.pdf", [items])
    want, _ = cells_of(path)
    assert want

    def broken(*_a, **_k):
        raise RuntimeError("boom")

    monkeypatch.setattr("ingest.analysis.results_pdf.image_only_pages", broken)
    cells, res = cells_of(path)
    assert cells == want and any("boom" in n for n in res.notes)


def test_unreadable_source_is_a_note_never_an_exception(tmp_path, make_pdf):
    doc = extract_file(make_pdf([["Table 1: Results on MMLU.", "1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0"]]))
    res = read_results(doc, tmp_path / "gone.pdf", CAT)
    assert res.tables == () and any("not read" in n for n in res.notes)


# --------------------------------------------------------------------------- Markdown / HTML

MD = """
## Performance

Some text about MMLU and GPQA.

| Model | MMLU | GPQA Diamond | SWE-bench Verified |
|---|---|---|---|
| Qwen3-235B-A22B | 87.8 | 71.1 | 44.2* |
| Other-70B | 85.0 | - | 30.1 |

## Architecture

| Models | Layers | Context Length |
|---|---|---|
| Qwen3-8B | 36 | 128K |

## Charts

{{< figure src="bench.png" >}}
Qwen3 leads on AIME 2025 and LiveCodeBench.
"""


def test_markdown_pipe_table_and_image_only_section():
    tables, notes = markdown_tables(MD, CAT)
    cells = [c.to_json() for t in tables for c in t.cells]
    assert triples(cells, "model", "benchmark", "value") == {
        ("Qwen3-235B-A22B", "MMLU", "87.8"), ("Qwen3-235B-A22B", "GPQA Diamond", "71.1"),
        ("Qwen3-235B-A22B", "SWE-bench Verified", "44.2"), ("Other-70B", "MMLU", "85.0"), ("Other-70B", "SWE-bench Verified", "30.1"),  # noqa: E501
    }  # fmt: skip
    assert tables[0].page_label == "Performance"
    assert "scores shown only as images in section 'Charts'" in notes


def test_html_table_with_colspan_header():
    html = """<h2>Results</h2><table><thead>
      <tr><th>Benchmark</th><th colspan="2">Open models</th></tr>
      <tr><th>Benchmark</th><th>Alpha</th><th>Ours-2</th></tr></thead>
      <tbody><tr><td>MMLU-Pro</td><td>70.1</td><td>75.3</td></tr>
      <tr><td>BFCL v3</td><td>60.0</td><td>68.9&dagger;</td></tr></tbody></table>"""
    tables, _ = html_tables(html, CAT)
    cells = [c.to_json() for t in tables for c in t.cells]
    assert triples(cells, "model", "benchmark", "value") == {
        ("Alpha", "MMLU-Pro", "70.1"), ("Ours-2", "MMLU-Pro", "75.3"), ("Alpha", "BFCL v3", "60.0"), ("Ours-2", "BFCL v3", "68.9"),  # noqa: E501
    }  # fmt: skip


# --------------------------------------------------------------------------- catalogue, own, curated, flags


def test_catalogue_maps_spellings_and_keeps_unknown_names_unmapped():
    for printed, bid in [("LiveCode Bench", "livecodebench"), ("AIME'24", "aime-2024"), ("AIME 2024", "aime-2024"),
                         ("SWE Verified", "swe-bench-verified"), ("IF-Eval", "ifeval"), ("MathVista-Test", "mathvista"),
                         ("LiveCodeBench v6", "livecodebench"), ("MBPP+", "mbpp-plus"), ("MBPP", "mbpp")]:  # fmt: skip
        assert CAT.lookup(printed) is not None and CAT.lookup(printed).id == bid, printed
    assert CAT.lookup("My Private Eval") is None
    assert len(CAT.benchmarks) > 100
    assert norm_name("GPT-4o 0513") == norm_name("GPT-4o-0513")


def test_catalogue_loader_is_strict(tmp_path):
    from ingest.analysis.benchmarks import Catalogue

    bad = tmp_path / "b.yaml"
    bad.write_text(
        "version: 1\ncategories: {math: Math}\nbenchmarks:\n  - {id: gsm8k, name: GSM8K, category: math, colour: red}\n"
    )
    with pytest.raises(SpecFileError) as e:
        load_model(bad, Catalogue, "benchmark catalogue", "data/benchmarks.yaml")
    assert "colour" in str(e.value) and str(bad) in str(e.value)
    dup = tmp_path / "d.yaml"
    dup.write_text(
        "version: 1\ncategories: {math: Math}\nbenchmarks:\n  - {id: a, name: GSM8K, category: math}\n  - {id: b, name: GSM-8K, category: math}\n"  # noqa: E501
    )
    with pytest.raises(SpecFileError, match="already a name of a"):
        load_model(dup, Catalogue, "benchmark catalogue", "data/benchmarks.yaml")


def test_own_model_from_name_aliases_and_ours_marker():
    assert is_own("DeepSeek-R1-Zero", "DeepSeek-R1", [])
    assert is_own("DeepSeek-V2 Chat (RL)", "DeepSeek-V2", [])
    assert not is_own("DeepSeek-V2.5", "DeepSeek-V2", [])
    assert not is_own("DeepSeek V3", "DeepSeek-R1", [])
    assert is_own("dots.llm1.inst", "dots.llm1", [])
    assert is_own("K3-Thinking", "Kimi K3", ["K3-Thinking"])
    assert is_own("Baseline (ours)", "Other", [])
    assert is_own("Qwen3-235B-A22B", "Qwen3 (blog)", [])  # "(blog)" is not part of the name


def _spec(**extra) -> ReportSpec:
    return ReportSpec.model_validate({"id": "r", "model": "Ours-1", "organization": "Lab", "doc_type": "other", **extra})


def test_curated_results_are_kept_apart_and_need_a_page_or_figure():
    spec = _spec(results=[{"benchmark": "SWE-bench Verified", "model": "Ours-1", "value": "71.6", "figure": "Figure 1"}])
    cell = ResultCell("Ours-1", "SWE Verified", "70.2", metric="Resolved")
    auto = Results(RESULTS_VERSION, (ResultTable(3, "3", "Table 1", "c", "models-as-rows", cells=(cell,)),))
    rows = result_rows(spec, auto)
    assert [r["origin"] for r in rows] == ["auto", "curated"]
    assert all(set(r) == set(RESULT_COLUMNS) for r in rows)
    assert {r["benchmark_id"] for r in rows} == {"swe-bench-verified"} and all(r["own"] for r in rows)
    assert rows[0]["score"] == 70.2 and rows[1]["table"] == "Figure 1"
    with pytest.raises(ValueError, match="page"):
        _spec(results=[{"benchmark": "MMLU", "model": "X", "value": 1}])
    with pytest.raises(ValueError):
        _spec(results=[{"benchmark": "MMLU", "model": "X", "value": 1, "page": 2, "colour": "red"}])


def test_percentages_above_100_are_flagged_unless_a_rating():
    assert cell_flag("104.5", "Pass@1", "mmlu", CAT)
    assert not cell_flag("1820", "rating", "codeforces", CAT)
    assert not cell_flag("2029", "Rating", "", CAT)
    assert not cell_flag("8.9", "", "mt-bench", CAT)
    assert score_of("70.83% \u00b1 0.89%") == 70.83 and score_of("-") is None


def test_first_group_title_above_the_data_and_a_number_after_a_row_label(tmp_path):
    """Models as columns with group title lines over the value columns: the first title stands
    directly under the header (it is a group title like the later ones, not part of the last
    model's header); "(1M)" set a word space after one row's label is part of that label, not a
    column of its own."""
    xs = [220, 290, 360]
    items = [
        (72, 80, "Table 3 | Performance on core benchmarks."),
        (220, 100, "^Alpha-7B"), (290, 100, "^Beta-"), (360, 100, "^Ours"),
        (290, 110, "^Chat-v2"), (360, 110, "^Large-1"),
        (72, 120, "Thinking"), (220, 124, "^32K"), (290, 124, "^64K"), (360, 124, "^80K"), (72, 129, "budget"),
        (290, 140, "^Mathematics"),
        *row(154, "AIME 2024", ["50.1", "61.0", "70.2"], xs),
        *row(166, "MATH-500", ["90.3", "91.5", "96.0"], xs),
        (290, 182, "^Long Context"),
        *row(196, "LongBench-v2", ["40.2", "41.8", "55.0"], xs),
        *row(208, "OpenAI-MRCR", ["-", "58.8", "60.1"], xs),
        (72 + 62.7 + 5, 208, "(1M)"),
        *row(220, "SimpleQA", ["10.0", "12.5", "20.4"], xs),
    ]  # fmt: skip
    cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    got = triples(cells, "model", "benchmark", "value")
    assert not any("without a model or benchmark header" in n for n in res.notes)
    assert {m for m, _b, _v in got} == {"Alpha-7B", "Beta-Chat-v2", "Ours Large-1"}
    assert ("Ours Large-1", "OpenAI-MRCR", "60.1") in got and ("Beta-Chat-v2", "AIME 2024", "61.0") in got
    assert len(got) == 14 and not any("1M" in c["value"] for c in cells)
    groups = {(c["benchmark"], c["group"]) for c in cells}
    assert ("AIME 2024", "Mathematics") in groups and ("SimpleQA", "Long Context") in groups


def test_table_with_a_text_column_and_no_model_named_is_the_reports_own(tmp_path):
    """A small table beside a prose column: each row has a text column (the problems solved)
    between its label and its one score, and no model is named anywhere. The rows are data (the
    text cells stand in a column), the text column is a note, not part of the benchmark name, and
    the scores are the report's own model's (named from `model:` in the results table)."""
    prose = [
        "To solve the hardest problems, we",
        "scaled both verification and the",
        "generation compute, using many",
        "verification passes to find the",
        "subtle issues of every proof and",
        "parallel generation for the rest.",
    ]
    items = [(72, 100 + 12 * i, t) for i, t in enumerate(prose)]
    items += [
        (300, 96, "Contest"), (370, 96, "Problems"), (480, 96, "Points"),
        (300, 112, "IMO 2025"), (370, 112, "P1,"), (392, 112, "P2,"), (414, 112, "P3"), (480, 112, "83.3%"),
        (300, 126, "CMO 2024"), (370, 126, "P1,"), (392, 126, "P4,"), (414, 126, "P5, P6"), (480, 126, "73.8%"),
        (300, 140, "Putnam 2024"), (370, 140, "A1"), (392, 140, "B4,"), (414, 140, "B6"), (480, 140, "98.3%"),
        (300, 165, "Table 1 | Problems fully solved."),
    ]  # fmt: skip
    cells, res = cells_of(table_pdf(tmp_path / "t.pdf", [items]))
    assert triples(cells, "model", "benchmark", "metric", "value") == {
        (REPORT_MODEL, "IMO 2025", "Points", "83.3%"), (REPORT_MODEL, "CMO 2024", "Points", "73.8%"),
        (REPORT_MODEL, "Putnam 2024", "Points", "98.3%"),
    }  # fmt: skip
    assert {c["note"] for c in cells} == {"Problems: P1, P2, P3", "Problems: P1, P4, P5, P6", "Problems: A1 B4, B6"}
    rows = result_rows(_spec(model="Lens-Math-2"), res, CAT)
    assert {r["model"] for r in rows} == {"Lens-Math-2"} and all(r["own"] for r in rows)
