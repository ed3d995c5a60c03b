"""Versions of a report and `diff`: planted changes between two generated PDFs are listed exactly;
a re-ingest that finds a changed source keeps the older reading; two versions built from the shared
corpus (the same PDF with pages removed) differ in pages, words and the removed pages' sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.analysis.lens import load_lens
from ingest.cli import main
from ingest.outputs.diff import NumberChange, Reading, ReportDiff, diff_readings, format_diff
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store import history
from ingest.store.store import Store

from .conftest import write_report
from .test_results import row, table_pdf

XS = [250, 320, 390]
KEPT = "Our evaluation covers knowledge, coding and tool use across many public benchmarks and settings."
REMOVED = "The reward model is trained on human preference comparisons collected from annotators."
ADDED = "We optimise the policy with GRPO, using rewards computed from unit test execution in sandboxes."


def _version(path: Path, swe: str, bfcl: bool, sentence: str, extra_page: bool) -> Path:
    rows = [*row(126, "MMLU (EM)", ["65.3", "71.2", "72.0"], XS, 100)]
    rows += row(138, "SWE-bench Verified", ["20.1", "30.5", swe], XS, 100)
    if bfcl:
        rows += row(150, "BFCL v3 (Acc.)", ["50.2", "55.0", "60.1"], XS, 100)
    page1 = [
        (72, 90, "Table 1: Comparison of Lens-7B with other models."),
        (100, 110, "Benchmark (Metric)"), (250, 110, "^Alpha-8B"), (320, 110, "^Lens-7B"), (390, 110, "^Lens-7B-RL"),
        *rows,
        (72, 200, "The results show that the model is strong on agentic benchmarks and on knowledge tasks."),
    ]  # fmt: skip
    page2 = [(72, 90, "2 Training"), (72, 110, KEPT), (72, 124, sentence)]
    pages = [page1, page2]
    if extra_page:
        pages.append([(72, 90, "3 Discussion"), (72, 110, "This page discusses the limits of the evaluation in plain words.")])
    return table_pdf(path, pages)


@pytest.fixture
def two_versions(tmp_path: Path) -> tuple[Path, Path, Path]:
    v1 = _version(tmp_path / "lens-v1.pdf", "41.3", True, REMOVED, False)
    v2 = _version(tmp_path / "lens-v2.pdf", "44.8", False, ADDED, True)
    reports = tmp_path / "reports"
    write_report(
        reports,
        "lens-7b",
        model="Lens-7B",
        source={"path": str(v2)},
        versions=[{"label": "v1", "path": str(v1)}, {"label": "v2", "path": str(v2)}],
    )
    return reports, tmp_path / "data", tmp_path


def test_diff_lists_exactly_the_planted_changes(two_versions, capsys):
    reports, data, root = two_versions
    settings = Settings(data_dir=data, offline=True, source_roots=(root,))
    assert not run(reports_dir=reports, settings=settings).failed
    args = ["--reports-dir", str(reports), "--data-dir", str(data), "--source-root", str(root)]
    rc = main(["diff", "lens-7b", "v1", "v2", *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "pages: 2 -> 3" in out
    # result tables: one changed value, the BFCL row's three cells removed, nothing added
    store = Store(data)
    found = history.versions(store, "lens-7b", {})
    assert len(found) == 2
    lens = load_lens()
    old, new = (Reading(v.label, history.reading(store, "lens-7b", v), store.get_text(v.sha256, "pdfium")) for v in found)
    d = diff_readings("lens-7b", old, new, lens)
    changes = {(r.kind, r.benchmark, r.model, r.old, r.new) for r in d.results}
    assert changes == {
        ("changed", "SWE-bench Verified", "Lens-7B-RL", "41.3", "44.8"),
        ("removed", "BFCL v3", "Alpha-8B", "50.2", None),
        ("removed", "BFCL v3", "Lens-7B", "55.0", None),
        ("removed", "BFCL v3", "Lens-7B-RL", "60.1", None),
    }
    assert {(s.kind, s.text) for s in d.sentences} == {("removed", REMOVED), ("added", ADDED)}
    assert "rl_algorithm" in dict((s.text, s.dimensions) for s in d.sentences)[ADDED]
    # the cells the planted sentences decide: the reward source moves, GRPO becomes used
    # (codebook: "we optimise the policy with GRPO" is a use, not a mention), and the granularity
    # follows from GRPO's outcome advantage (codebook: derived from the main method)
    assert set(d.changed_cells) == {"reward_source", "rl_algorithm", "credit_granularity"}
    assert {c.dimension for c in d.cells} == {"reward_source", "rl_algorithm", "credit_granularity", "rl_disclosure"}
    cell = next(c for c in d.cells if c.dimension == "reward_source")
    assert (cell.old_quote, cell.new_quote) == (REMOVED, ADDED)
    kw = {c.what: (c.old, c.new) for c in d.keywords}
    planted = {"GRPO": (0, 1), "preference": (1, 0), "reward model": (1, 0), "sandbox": (0, 1), "unit test": (0, 1)}
    assert kw == {f"{t} in {where}": v for t, v in planted.items() for where in ("document", "body")}
    assert d.pages is not None and (d.pages.old, d.pages.new) == (2, 3)
    assert format_diff(d).count("\n") > 5


def test_a_changed_source_keeps_the_older_reading(two_versions):
    reports, data, root = two_versions
    yaml = reports / "lens-7b.yaml"
    text = yaml.read_text()
    settings = Settings(data_dir=data, offline=True, source_roots=(root,))
    yaml.write_text(text.replace("lens-v2.pdf", "lens-v1.pdf", 1))
    assert not run(reports_dir=reports, settings=settings).failed
    assert history.versions(Store(data), "lens-7b", {}) and len(history.versions(Store(data), "lens-7b", {})) == 1
    yaml.write_text(text)  # the lab revised the report: the same id, another file
    assert not run(reports_dir=reports, settings=settings).failed
    found = history.versions(Store(data), "lens-7b", {})
    assert [v.current for v in found] == [False, True]
    old = history.reading(Store(data), "lens-7b", found[0])
    assert old is not None and old.meta.pages == 2
    assert not run(reports_dir=reports, settings=settings).failed  # unchanged: nothing more archived
    assert len(history.versions(Store(data), "lens-7b", {})) == 2


def test_diff_needs_two_versions_and_says_so(tmp_path, capsys):
    reports = tmp_path / "reports"
    write_report(reports, "solo", source={"path": "x.pdf"})
    rc = main(["diff", "solo", "--reports-dir", str(reports), "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and "needs two" in err
    assert main(["diff", "nope", "--reports-dir", str(reports), "--data-dir", str(tmp_path / "data")]) == 1


def test_diff_on_a_corpus_pdf_with_pages_removed(corpus, tmp_path):
    """Two versions from the shared corpus: a real report, and the same report without its pages 3-4."""
    import pypdfium2 as pdfium

    src = sorted(corpus.rglob("*.pdf"), key=lambda p: p.stat().st_size)[0]
    full = tmp_path / "full.pdf"
    full.write_bytes(src.read_bytes())
    doc = pdfium.PdfDocument(str(full))
    n = len(doc)
    assert n > 6, "the corpus's smallest PDF should have more than six pages"
    cut = pdfium.PdfDocument.new()
    cut.import_pages(doc, [i for i in range(n) if i not in (2, 3)])
    cut.save(str(tmp_path / "cut.pdf"))
    reports = tmp_path / "reports"
    write_report(
        reports,
        "real",
        source={"path": str(tmp_path / "cut.pdf")},
        versions=[{"label": "full", "path": str(full)}, {"label": "cut", "path": str(tmp_path / "cut.pdf")}],
    )
    data = tmp_path / "data"
    assert not run(reports_dir=reports, settings=Settings(data_dir=data, offline=True, source_roots=(tmp_path,))).failed
    from ingest.analysis.lexicon import load_lexicon
    from ingest.sources.registry import load_registry
    from ingest.versions import Context, pair

    settings = Settings(data_dir=data, offline=True, source_roots=(tmp_path,))
    spec = load_registry(reports).reports[0]
    lens = load_lens()
    ctx = Context(spec, reports / "real.yaml", Store(data), settings, load_lexicon(), lens)
    old, new = pair(ctx, "full", "cut")
    d = diff_readings("real", old, new, lens)
    assert d.pages is not None and (d.pages.old, d.pages.new) == (n, n - 2)
    assert d.words and d.words[0].what == "words in document" and d.words[0].new < d.words[0].old
    assert all(s.kind == "removed" for s in d.sentences), "removing pages adds no sentence"
    removed_pages = {p.text for p in old.doc.pages[2:4]}
    for s in d.sentences:  # each removed sentence came from the removed pages (or spans their edge)
        assert any(s.text[:40] in " ".join(t.split()) for t in removed_pages) or s.page in ("2", "5")


def test_version_history_is_bounded_for_a_source_that_changes_on_every_run(tmp_path, monkeypatch):
    """A page with a clock (or built to change) adds a reading per run: at most MAX_READINGS stay, the first among them."""

    monkeypatch.setattr(history, "MAX_READINGS", 3)
    reports, data = tmp_path / "reports", tmp_path / "data"
    post = tmp_path / "post.md"
    write_report(reports, "clock", source={"path": str(post)})
    firsts = []
    for run_no in range(7):
        post.write_text(f"# Post\n\nThe agent uses a tool. Served at tick {run_no}.\n", encoding="utf-8")
        run(reports_dir=reports, settings=Settings(data_dir=data, source_roots=(tmp_path,), offline=True))
        if run_no == 1:
            firsts = sorted(p.name for p in history.history_dir(Store(data), "clock").iterdir())
    kept = sorted(p.name for p in history.history_dir(Store(data), "clock").iterdir())
    assert len(kept) == 3 and set(firsts) <= set(kept)  # the first reading is kept


def test_versions_added_after_ingest_are_listed_and_compared_without_naming_them(tmp_path, capsys):
    reports, data = tmp_path / "reports", tmp_path / "data"
    reports.mkdir()
    v1 = _version(reports / "lens-v1.pdf", "41.3", True, REMOVED, False)
    _version(reports / "lens-v2.pdf", "44.8", False, ADDED, True)
    spec = {"model": "Lens-7B", "released": "2026-03-01", "source": {"path": "lens-v2.pdf"}}
    write_report(reports, "lens-7b", **spec)
    assert not run(reports_dir=reports, settings=Settings(data_dir=data, offline=True)).failed
    write_report(reports, "lens-7b", **spec, versions=[{"label": "v1", "path": v1.name, "date": "2026-01-15"}])
    args = ["lens-7b", "--reports-dir", str(reports), "--data-dir", str(data)]
    assert main(["diff", *args, "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("2026-03-01") and "(released)" in listed[0] and "current" in listed[0]
    assert listed[1].startswith("v1") and "not read yet" in listed[1] and "2026-01-15 (declared)" in listed[1]
    assert main(["diff", *args]) == 0  # no names: the declared version against the current one
    out = capsys.readouterr().out
    assert out.startswith("lens-7b: v1 -> 2026-03-01\n") and "pages: 2 -> 3" in out
    assert main(["diff", *args, "--list"]) == 0
    listed = capsys.readouterr().out
    assert "not read yet" not in listed and "None" not in out + listed


def test_a_figure_only_one_reading_has_is_a_dash_not_none():
    d = ReportDiff("r", "v1", "v2", pages=NumberChange("pages", None, 3), words=(NumberChange("words in appendix", None, 120),))
    text = format_diff(d)
    assert "pages: - -> 3" in text and "words in appendix: - -> 120" in text and "None" not in text
