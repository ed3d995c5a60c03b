"""Sentence segmentation for evidence: PDF line breaks, citations, abbreviations, equations, pages."""

from __future__ import annotations

from ingest.analysis.evidence import prose_blocks, quote_on_page, sentences, split_sentences
from ingest.reading.extract import extract_pdf
from ingest.reading.sections import Segment, split_sections


def split(text: str) -> list[str]:
    return [s for _, b in prose_blocks(text) for s in split_sentences(b)]


def test_sentence_survives_pdf_line_breaks() -> None:
    text = "We adopt Group Relative Policy\nOptimization for all RL stages of\nthe model. The reward is binary."
    assert split(text) == ["We adopt Group Relative Policy Optimization for all RL stages of the model.", "The reward is binary."]


def test_citation_with_et_al_does_not_end_a_sentence() -> None:
    text = "We adopt GRPO (Shao et al., 2024) as the algorithm. It needs no critic."
    assert split(text)[0] == "We adopt GRPO (Shao et al., 2024) as the algorithm."


def test_et_al_eg_fig_and_decimals_do_not_end_a_sentence() -> None:
    text = "As Wang et al. show in Fig. 3, rewards e.g. format checks add 0.5 points. Next sentence here now."
    assert split(text) == ["As Wang et al. show in Fig. 3, rewards e.g. format checks add 0.5 points.", "Next sentence here now."]


def test_author_initial_does_not_end_a_sentence() -> None:
    assert len(split("The method of A. Vaswani and N. Shazeer is used by many models today.")) == 1


def test_equation_lines_are_dropped_and_end_the_sentence_block() -> None:
    text = (
        "The objective is defined as follows:\nJ(θ) = E[q ∼ P(Q)] − β D_KL\n"
        "where the advantage is computed within each group of outputs."
    )
    out = split(text)
    assert out == ["The objective is defined as follows:", "where the advantage is computed within each group of outputs."]


def test_chinese_sentences_split_on_full_width_stops() -> None:
    assert split("我们使用基于规则的奖励进行强化学习训练。模型在多个任务上表现良好。") == [
        "我们使用基于规则的奖励进行强化学习训练。",
        "模型在多个任务上表现良好。",
    ]


def test_references_are_never_evidence_and_pages_are_kept() -> None:
    segs = [
        Segment("body", 3, "3", "We train the policy with GRPO on math problems."),
        Segment("appendix", 9, "9", "The learning rate of the RL stage is set to a small value."),
        Segment("references", 8, "8", "Z. Shao et al. DeepSeekMath: pushing GRPO to the limits of math reasoning."),
    ]
    out = sentences(segs)
    assert [(s.page, s.section) for s in out] == [(3, "body"), (9, "appendix")]
    assert all("DeepSeekMath" not in s.text for s in out)


def test_numbered_heading_is_kept_as_context() -> None:
    segs = [Segment("body", 1, "1", "4.2. Unsuccessful Attempts\nWe also tried a process reward model in early experiments.")]
    assert sentences(segs)[0].heading == "Unsuccessful Attempts"


def test_every_sentence_of_a_real_pdf_is_verbatim_on_its_page(make_pdf) -> None:
    pdf = make_pdf(
        [
            [
                "Introduction",
                "We adopt Group Relative Policy Optimization (Shao et al.,",
                "2024) for RL. The reward is 1 if the",
                "answer is correct, e.g. 0.5 for partial.",
            ],
            [
                "Method",
                "Unlike PPO (Schulman et al., 2017), GRPO needs no critic model.",
                "References",
                "J. Schulman et al. Proximal policy optimization algorithms.",
            ],
        ]
    )
    doc = extract_pdf(pdf)
    out = sentences(split_sections(doc))
    assert out, "no sentences found"
    pages = {p.number: p.text for p in doc.pages}
    assert all(quote_on_page(s.text, pages[s.page]) for s in out)
    assert any(s.page == 2 and s.text.startswith("Unlike PPO") for s in out)


def test_chinese_full_stops_end_sentences_without_a_following_space() -> None:
    text = "第二阶段的重点是大规模强化学习，利用基于规则的奖励。这是第二句话吗？是的！最后一句没有句号"
    assert split(text) == [
        "第二阶段的重点是大规模强化学习，利用基于规则的奖励。",
        "这是第二句话吗？",
        "是的！",
        "最后一句没有句号",
    ]


def test_table_of_contents_lines_are_not_evidence() -> None:
    text = "5.3.4 DeepSeek-V3 as a Generative Reward Model . . . . . . . . . . . . 31\nWe use a reward model for general prompts."
    assert split(text) == ["We use a reward model for general prompts."]


def test_abbreviation_check_answers_as_the_abbreviation_regex() -> None:
    """`_abbreviation` replaces a regex search per full stop; it must agree with `_ABBREV` everywhere
    (word boundaries before the window, a single capital, a final line break)."""
    import random

    from ingest.analysis.evidence import _ABBREV, _abbreviation

    rnd = random.Random(3)
    pieces = [*"eEtalgicfvsxwrpoFigqScTbAhNRdDMjJLnVzPI._ (1\n", "\u00e9", "\u00b2", "et al", "e.g", "Fig", "No", "w.r.t"]
    for _ in range(50_000):
        b = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 10)))
        lo, stop = rnd.randint(0, len(b)), rnd.randint(0, len(b))
        assert _abbreviation(b, lo, stop) == (_ABBREV.search(b, lo, stop) is not None), (b, lo, stop)
