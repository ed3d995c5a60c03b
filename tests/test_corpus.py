"""Integration on the real corpus (../shared/corpus): the extraction fidelity bar of issue 2.

Skipped with a reason when the corpus is absent. The same numbers, with timings and the
other engines for comparison, are printed by eval/extraction_fidelity.py.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ingest.analysis.lexicon import load_lexicon
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.pipeline_steps import analyse
from ingest.reading.extract import extract_file
from ingest.sources.schema import STUDY_TERMS
from ingest.store.store import Store

from .conftest import CORPUS, REPO

REFS = (
    list(csv.DictReader((CORPUS / "reference_counts.tsv").open(), delimiter="\t"))
    if (CORPUS / "reference_counts.tsv").exists()
    else []
)


def _all_counts(path: Path) -> tuple[dict[str, int], int, int, str]:
    doc = extract_file(path)
    res = analyse(doc, load_lexicon())
    counts = {c["term"]: c["count"] for c in res.counts if c["section"] == "all" and c["group"] == "study"}
    return counts, res.words["all"], len(doc.pages), res.word_rule


@pytest.mark.corpus
@pytest.mark.parametrize("ref", REFS or [None], ids=[r["file"] for r in REFS] or ["no-corpus"])
def test_pdf_fidelity_bar_against_reference_counts(corpus, ref):
    counts, words, pages, _ = _all_counts(corpus / ref["file"])
    assert pages == int(ref["pages"])
    assert abs(words - int(ref["words_wc"])) <= 0.02 * int(ref["words_wc"]), (words, ref["words_wc"])
    for term in STUDY_TERMS:
        assert abs(counts[term] - int(ref[term.replace(" ", "_")])) <= 1, (term, counts[term], ref)


@pytest.mark.corpus
def test_sections_found_in_every_corpus_pdf(corpus):
    from ingest.reading.sections import section_spans, split_sections

    for ref in REFS:
        spans = {s.section: s for s in section_spans(split_sections(extract_file(corpus / ref["file"])))}
        assert {"body", "references"} <= set(spans), ref["file"]
        assert spans["body"].end_page <= spans["references"].start_page


@pytest.mark.corpus
def test_chinese_blog_uses_the_character_rule_and_english_blog_does_not(corpus):
    _, zh_words, _, zh_rule = _all_counts(corpus / "blog" / "qwen3-blog.zh.md")
    _, en_words, _, en_rule = _all_counts(corpus / "blog" / "qwen3-blog.md")
    assert (zh_rule, en_rule) == ("cjk", "whitespace")
    assert 1000 < en_words < 2500 and zh_words > en_words  # a character count is larger than a word count


@pytest.mark.corpus
def test_ingest_of_shipped_reports_plus_a_corpus_pdf(corpus, tmp_path):
    """`python -m ingest` on the shipped reports plus a YAML pointing at a corpus PDF fills the tables."""
    extra = tmp_path / "deepseek-r1.yaml"
    extra.write_text(
        f"id: deepseek-r1\nmodel: DeepSeek-R1\norganization: DeepSeek-AI\ndoc_type: github-pdf\n"
        f"source:\n  path: {corpus / 'pdf' / 'deepseek-r1.pdf'}\n"
    )
    settings = Settings(data_dir=tmp_path / "data", offline=True, source_roots=(corpus,))
    files = [*sorted((REPO / "reports").glob("[!_]*.yaml")), extra]
    res = run(files=files, reports_dir=REPO / "reports", settings=settings)
    status = {o.report_id: o.status for o in res.outcomes}
    assert status["deepseek-r1"] == "ok"
    store = Store(settings.data_dir)
    reports = store.read_table("reports")
    assert len(reports) == 11
    reported = store.read_table("reported")
    kimi = reported[(reported.report_id == "kimi-k3") & (reported.term == "agentic")].iloc[0]
    assert (kimi["count"], kimi["words"]) == (50, 28771)
    counts = store.read_table("counts")
    # measured figures only where a source was read: the corpus PDF and the two bundled ones (reports/files)
    assert set(counts.report_id) == {"deepseek-r1", "glm-4.5", "minimax-m1"}
