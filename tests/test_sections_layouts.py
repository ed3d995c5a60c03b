"""Section splitting on report layouts the corpus does not show (issue 10.1), from generated PDFs.

Each PDF is drawn with exactly known text (reportlab, via the `make_pdf` fixture) and read back
through the real extractor, so these tests see what a real report's text layer looks like.
"""

from __future__ import annotations

from ingest.reading.extract import extract_pdf
from ingest.reading.sections import section_spans, split_sections

SENT = "The model is trained on a mixture of public text and code with a long context window."
REFS = [
    "J. Doe, K. Roe, and L. Poe. Scaling laws for neural language models. 2020.",
    "M. Smith and N. Jones. Training language models to follow instructions. 2022.",
    "P. Brown, Q. White, and R. Green. Proximal policy optimization algorithms. 2017.",
]
NAMES = ["Alice Zhang", "Bob Li", "Carol Wang", "David Chen", "Erin Liu", "Frank Zhou", "Grace Sun"]


def para(n: int = 8) -> list[str]:
    return [SENT] * n


def body_pages(*titles: str) -> list[list[str]]:
    """One page per numbered main section: "1 Introduction", "2 Method", ..."""
    return [[f"{i} {t}", *para()] for i, t in enumerate(titles, 1)]


def spans_of(path) -> list[tuple[str, int, int]]:
    return [(s.section, s.start_page, s.end_page) for s in section_spans(split_sections(extract_pdf(path)))]


BODY = ("Introduction", "Method", "Experiments", "Conclusion")


def test_lettered_appendix_before_references_is_appendix(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["A Training Details", *para(6)],
        ["B Evaluation Prompts", *para(6)],
        ["References", *REFS, *REFS],
        [*REFS, *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("appendix", 5, 6), ("references", 7, 8)]


def test_appendix_before_references_with_letter_and_title_on_separate_lines(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["A.", "Training Details", *para(6)],
        ["B.", "Evaluation Prompts", *para(6)],
        ["References", *REFS, *REFS],
    ]
    spans = spans_of(make_pdf(pages))
    assert spans == [("body", 1, 4), ("appendix", 5, 6), ("references", 7, 7)]
    heading = section_spans(split_sections(extract_pdf(make_pdf(pages, name="again.pdf"))))[1].heading
    assert heading == "A. Training Details"


def test_appendix_word_heading_before_references_mid_page(make_pdf):
    pages = [
        *body_pages(*BODY),
        [*para(3), "Appendix", "Additional Results", *para(6)],
        ["References", *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 5), ("appendix", 5, 5), ("references", 6, 6)]


def test_lettered_appendix_after_references_without_the_word_appendix(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["References", *REFS, *REFS],
        [*REFS, *REFS],
        ["A Hyperparameters", "A.1 Pre-training", *para(4), "A.2 Post-training", *para(4)],
        ["B Data Mixture", *para(8)],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 6), ("appendix", 7, 8)]


def test_single_lettered_appendix_confirmed_by_its_subsection(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["References", *REFS, *REFS],
        ["A Additional Experiments", "A.1 Ablations", *para(4), "A.2 Scaling", *para(4)],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 5), ("appendix", 6, 6)]


def test_numbered_contributors_section_before_references_is_body(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["5 Contributors", "Core Contributors", *NAMES, "Contributors", *NAMES],
        ["References", *REFS, *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 5), ("references", 6, 6)]


def test_numbered_authors_section_mid_page_before_references_is_body(make_pdf):
    pages = [
        *body_pages(*BODY),
        [*para(3), "5 Authors", *NAMES, "References", *REFS],
        [*REFS, *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 5), ("references", 5, 6)]


def test_lettered_authors_section_after_references_is_appendix(make_pdf):
    pages = [*body_pages(*BODY), ["References", *REFS, *REFS], ["A Authors", *NAMES, *NAMES]]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 5), ("appendix", 6, 6)]


def test_unheaded_names_after_references_leave_the_body_alone(make_pdf):
    """An unheaded list of names may be read as references or appendix; the body must not change."""
    pages = [*body_pages(*BODY), ["References", *REFS, *REFS], [*NAMES, *NAMES]]
    spans = spans_of(make_pdf(pages))
    assert spans[0] == ("body", 1, 4)
    assert spans[1][:2] == ("references", 5) and spans[-1][2] == 6


def test_table_of_contents_entries_start_no_section(make_pdf):
    toc = [
        "Contents",
        "1 Introduction 3",
        "2 Method 4",
        "2.1 Data . . . . . . . . . . . . 4",
        "2.2 Training . . . . . . . . . . 4",
        "3 Experiments 5",
        "4 Conclusion 6",
        "Appendix 7",
        "A Training Details 7",
        "A.1 Optimiser . . . . . . . . . . 7",
        "B Evaluation Prompts 7",
        "References 8",
    ]
    pages = [["Model Technical Report", SENT], toc, *body_pages(*BODY), ["References", *REFS]]
    assert spans_of(make_pdf(pages)) == [("body", 1, 6), ("references", 7, 7)]


def test_running_header_above_an_appendix_heading_does_not_extend_the_references(make_pdf):
    header = "Example Lab Technical Report"
    pages = [[header, *p] for p in body_pages(*BODY)]
    pages += [[header, "References", *REFS, *REFS], [header, *REFS, *REFS], [header, "Appendix", "A Contributions", *NAMES]]
    pages += [[header, "B Hyperparameters", *para(6)]]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 6), ("appendix", 7, 8)]


def test_figure_labels_and_answer_options_in_the_body_are_not_an_appendix(make_pdf):
    pages = [
        *body_pages("Introduction", "Method"),
        ["3 Experiments", *para(3), "A Policy Model", "B Reward Model", *para(3)],
        ["4 Conclusion", *para(3), "A. Paris", "B. London", "C. Berlin", *para(3)],
        ["References", *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 5)]


def test_wrapped_cited_title_does_not_start_the_appendix_early(make_pdf):
    pages = [
        *body_pages(*BODY),
        ["References", REFS[0], "A Survey of Large Language Models", *REFS, *REFS],
        ["A Prompt Templates", *para(6)],
        ["B Human Evaluation", *para(6)],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 5), ("appendix", 6, 7)]


def test_cross_reference_wrapped_onto_a_line_start_is_not_a_heading(make_pdf):
    pages = [
        *body_pages("Introduction", "Method", "Experiments"),
        [
            "4 Conclusion",
            SENT,
            "Appendix B shows the prompts used for every benchmark and",
            SENT,
            "Appendix D.2.",
            SENT,
            "Appendix Table 5 lists the settings we used for",
            SENT,
            "Appendix C. We also release the code and data",
            SENT,
        ],
        ["References", *REFS],
    ]
    assert spans_of(make_pdf(pages)) == [("body", 1, 4), ("references", 5, 5)]
