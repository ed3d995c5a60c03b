"""The results stage inside the pipeline: stored table, exports, report card, warm re-runs, and
the corpus figures of eval/results_eval.py held at a floor."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ingest.analysis.results import RESULT_COLUMNS
from ingest.cli import main
from ingest.outputs import export
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import REPO, SHARED, write_report
from .test_results import row, table_pdf


def _report_pdf(tmp_path: Path) -> Path:
    xs = [250, 320, 390]
    items = [
        (72, 90, "Table 1: Comparison of Lens-7B with other models."),
        (100, 110, "Benchmark (Metric)"), (250, 110, "^Alpha-8B"), (320, 110, "^Lens-7B"), (390, 110, "^Lens-7B-RL"),
        *row(126, "MMLU (EM)", ["65.3", "71.2", "72.0"], xs, 100),
        *row(138, "SWE-bench Verified", ["20.1", "30.5", "41.3"], xs, 100),
        *row(150, "BFCL v3 (Acc.)", ["50.2", "55.0", "104.0"], xs, 100),
        (72, 200, "The results show that the model is strong on agentic benchmarks and on knowledge tasks."),
    ]  # fmt: skip
    return table_pdf(tmp_path / "lens.pdf", [items])


@pytest.fixture
def results_store(tmp_path: Path) -> tuple[Store, Path]:
    pdf = _report_pdf(tmp_path)
    reports = tmp_path / "reports"
    write_report(
        reports,
        "lens-7b",
        body="""
        results:
          - {benchmark: Terminal-Bench, model: Lens-7B-RL, value: "33.0", figure: Figure 2, notes: read from the bar chart}
        """,
        model="Lens-7B",
        source={"path": str(pdf)},
    )
    write_report(reports, "no-source", model="Other", results=[{"benchmark": "MMLU", "model": "Other", "value": 80, "page": 4}])
    data = tmp_path / "data"
    res = run(reports_dir=reports, settings=Settings(data_dir=data, offline=True, source_roots=(tmp_path,)))
    assert not res.failed, [o.message for o in res.failed]
    return Store(data), reports


def test_results_table_is_stored_and_exported_with_its_columns(results_store):
    store, _ = results_store
    df = export.TABLES["results"](store)
    assert list(df.columns) == RESULT_COLUMNS
    auto = df[(df["report_id"] == "lens-7b") & (df["origin"] == "auto")]
    assert len(auto) == 9 and set(auto["page"]) == {"1"} and set(auto["table"]) == {"Table 1"}
    own = dict(zip(auto["model"], auto["own"], strict=False))
    assert own == {"Alpha-8B": False, "Lens-7B": True, "Lens-7B-RL": True}
    swe = auto[auto["benchmark"] == "SWE-bench Verified"]
    assert set(swe["benchmark_id"]) == {"swe-bench-verified"} and set(swe["category"]) == {"software-engineering"}
    assert set(swe["metric"]) == {""}
    over = auto[auto["value"] == "104.0"]
    assert over["flag"].iloc[0].startswith("percentage above 100")
    cur = df[df["origin"] == "curated"]
    assert set(zip(cur["report_id"], cur["benchmark"], cur["value"], strict=False)) == {
        ("lens-7b", "Terminal-Bench", "33.0"),
        ("no-source", "MMLU", "80"),
    }
    notes = export.TABLES["result_notes"](store)
    assert "curated results only (no source text)" in set(notes[notes["report_id"] == "no-source"]["note"])


def test_cli_export_results_csv_md_and_report_card(results_store, capsys):
    store, _ = results_store
    assert main(["export", "--table", "results", "--format", "csv", "--data-dir", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ",".join(RESULT_COLUMNS)
    assert main(["export", "--table", "results", "--format", "md", "--data-dir", str(store.root)]) == 0
    assert "| report_id | page | table |" in capsys.readouterr().out
    assert main(["export", "--report", "lens-7b", "--data-dir", str(store.root)]) == 0
    card = capsys.readouterr().out
    assert "## Benchmark results" in card and "### Table 1 (page 1)" in card and "Lens-7B \u2605" in card
    assert "Curated scores" in card and "Terminal-Bench" in card


def test_warm_rerun_reuses_the_stored_results(results_store):
    store, reports = results_store
    res = run(reports_dir=reports, settings=Settings(data_dir=store.root, offline=True, source_roots=(store.root.parent,)))
    assert {o.status for o in res.outcomes} == {"cached", "no-source"}
    assert len(export.TABLES["results"](store)) == 11
    st = store.load_status("lens-7b")
    assert st is not None


def test_status_line_counts_result_tables(tmp_path):
    pdf = _report_pdf(tmp_path)
    reports = tmp_path / "reports"
    write_report(reports, "one", model="Lens-7B", source={"path": str(pdf)})
    res = run(reports_dir=reports, settings=Settings(data_dir=tmp_path / "d", offline=True, source_roots=(tmp_path,)))
    assert "1 result table(s)" in res.outcomes[0].message


# --------------------------------------------------------------------------- corpus floor


def _eval_module():
    spec = importlib.util.spec_from_file_location("results_eval", REPO / "eval" / "results_eval.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_results_eval_floor_on_the_shared_gold(corpus):
    """Floors from what eval/results_eval.py prints on the 25 labelled PDFs (4,372 cells), rounded
    down with room for one more labelled document; a regression fails here."""
    if not (SHARED / "labels" / "benchmarks.yaml").exists():
        pytest.skip("gold labels ../shared/labels/benchmarks.yaml not found")
    mod = _eval_module()
    r = mod.evaluate()
    t = r["total"]
    _p, _r, f1 = mod.prf(t["tp"], t["pred"], t["gold"])
    assert f1 >= 0.98, f1  # measured 0.996
    per_doc = {doc: mod.prf(c["tp"], c["pred"], c["gold"])[2] for doc, c in r["per_doc"].items()}
    assert min(per_doc.values()) >= 0.85, per_doc  # issue 32: no document below 0.85 (lowest measured 0.956)
    # the documents the stage was first built on stay exact (deepseek-prover-v2 measured 0.981)
    for doc in ("deepseek-r1", "kimi-k1.5", "mimo-7b", "dots-llm1", "deepseek-v2"):
        assert per_doc[doc] >= 0.99, doc
    assert t["found"] / t["tables"] >= 0.98  # measured 59/59
    assert t["own_right"] / t["own_total"] >= 0.98  # measured 403/405
    assert r["mapped"][0] / r["mapped"][1] >= 0.55  # measured 178/315
    assert r["mapped_or_kept"][0] / r["mapped_or_kept"][1] >= 0.95  # measured 313/315
    # "verified" means right: of verified cells the share right, and the share of right cells verified
    # (checked on the page's word boxes, `ingest.analysis.word_verify`; no second grid)
    assert t["verified_right"] / t["verified"] >= 0.99  # measured 3208/3210
    assert t["verified_right"] / t["tp"] >= 0.70  # measured 3208/4347


def test_pages_kept_open_by_extraction_give_the_same_results_as_reloading_them(corpus):
    """The results stage reuses the pdfium pages extraction kept open (no second load): the
    tables, cells and notes are those of re-opening the PDF, on every corpus PDF that has tables."""
    import dataclasses

    from ingest.analysis.benchmarks import load_catalogue
    from ingest.analysis.results import read_results
    from ingest.analysis.results_pdf import candidate_pages, may_hold_table
    from ingest.reading.extract import KeptPages, extract_file

    cat = load_catalogue()
    reused = 0
    for pdf in sorted((corpus / "pdf").glob("*.pdf")):
        kept = KeptPages(may_hold_table)
        try:
            doc = extract_file(pdf, keep=kept)
            with_kept = read_results(doc, pdf, cat, kept=kept)
            reused += sum(1 for n in candidate_pages(doc, cat=cat) if kept.get(n) is not None)
        finally:
            kept.close()
        again = read_results(doc, pdf, cat)  # the same text, its table pages opened again from the file
        assert dataclasses.replace(with_kept, seconds=0.0) == dataclasses.replace(again, seconds=0.0), pdf.name
    assert reused > 0  # the pages were in fact reused, not loaded again
