"""Body / appendix / references splitting, with page ranges."""

from __future__ import annotations

from ingest.extract import Document, Page, extract_pdf
from ingest.keywords import count_keywords
from ingest.lexicon import Lexicon
from ingest.sections import section_spans, split_sections

FILLER = "This paragraph describes the model in plain words without any keyword at all."


def doc_of(*pages: str) -> Document:
    return Document("pdf", "test", [Page(i + 1, t, str(i + 1)) for i, t in enumerate(pages)])


def spans(doc: Document) -> list[tuple[str, int, int]]:
    return [(s.section, s.start_page, s.end_page) for s in section_spans(split_sections(doc))]


def test_body_references_appendix_with_page_ranges():
    doc = doc_of(
        f"1 Introduction\n{FILLER}\n{FILLER}",
        f"{FILLER}\n{FILLER}",
        f"{FILLER}\nReferences\nA. Vaswani, N. Shazeer. Attention is all you need. 2017.",
        "Y. Bengio, A. Courville. Deep learning. 2016.\nA survey of agentic tool use in large models\nAppendix\nA Contributions",
        "B Hyperparameters\nThe learning rate was small.",
    )
    assert spans(doc) == [("body", 1, 3), ("references", 3, 4), ("appendix", 4, 5)]


def test_references_heading_mid_page_splits_the_page():
    doc = doc_of(f"{FILLER}\n{FILLER}", f"{FILLER}\n7 References\n[1] Agentic things. 2025.")
    segs = split_sections(doc)
    assert [(s.section, s.page) for s in segs] == [("body", 1), ("body", 2), ("references", 2)]
    assert segs[2].text.startswith("7 References")
    assert "Agentic" not in "".join(s.text for s in segs if s.section == "body")


def test_lettered_appendix_needs_a_following_b_heading():
    # "A survey of ..." wrapped inside the reference list is not an appendix heading.
    doc = doc_of(f"{FILLER}\n{FILLER}", f"{FILLER}\nReferences\nJ. Doe. 2024.\nA Survey of Agents and Tools\nK. Roe. 2023.")
    assert spans(doc) == [("body", 1, 2), ("references", 2, 2)]


def test_lettered_appendix_after_references():
    doc = doc_of(
        f"{FILLER}\n{FILLER}",
        f"{FILLER}\nReferences\nJ. Doe. Title. 2024.",
        f"A. Examples of Prompting for Proof Generation\n{FILLER}\n{FILLER}",
        f"B. Examples of Buggy Proofs\n{FILLER}",
    )
    assert spans(doc) == [("body", 1, 2), ("references", 2, 2), ("appendix", 3, 4)]


def test_figure_label_reference_is_not_the_references_heading():
    doc = doc_of(f"{FILLER}\nPolicy\nModel\nReference\nModel", f"{FILLER}\n{FILLER}", f"{FILLER}\nReferences\nJ. Doe. 2024.")
    assert spans(doc) == [("body", 1, 3), ("references", 3, 3)]


def test_no_headings_means_all_body():
    assert spans(doc_of(FILLER, FILLER)) == [("body", 1, 2)]


def test_markdown_references_heading():
    doc = Document("markdown", "markdown", [Page(1, f"Intro\n{FILLER}", "Intro"), Page(2, "## References\n[1] x", "References")])
    assert spans(doc) == [("body", 1, 1), ("references", 2, 2)]


def test_term_only_in_references_is_visible_as_such(make_pdf):
    """The study's Gemma 4 case: 'agentic' occurs only inside cited titles."""
    lexicon = Lexicon.model_validate(
        {"groups": [{"id": "study", "label": "s", "terms": [{"name": "agentic", "rule": "substring"}]}]}
    )
    path = make_pdf(
        [
            ["We pre-train a model on text.", "It answers questions well."],
            ["More results here.", "References", "Doe. An agentic benchmark. 2025."],
        ]
    )
    doc = extract_pdf(path)
    counts = {(r["section"], r["term"]): r["count"] for r in count_keywords(split_sections(doc), lexicon).counts}
    assert counts[("body", "agentic")] == 0
    assert counts[("references", "agentic")] == 1
    assert counts[("all", "agentic")] == 1
