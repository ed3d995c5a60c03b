"""Codebook rules added for issue 33's unmet acceptance items, each on small invented sentences (no
labelled document's wording): coined names with hyphenated parts, and the rules that follow."""

from __future__ import annotations

import pytest

from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import sentences
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.common.records import Cell
from ingest.reading.sections import Segment


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def run(lens, *pages: str) -> dict[str, Cell]:
    segs = [Segment("body", i + 1, str(i + 1), t) for i, t in enumerate(pages)]
    return annotate(sentences(segs), lens).cells


@pytest.mark.parametrize(
    "text",
    [
        "We propose Q-RTPO, a multi-turn RL algorithm that learns from tool feedback.",
        "To train the planner we introduce Step-Aware Ranked Trajectory Policy Optimization (S-ARTPO) on our tasks.",
    ],
)
def test_a_coined_name_with_hyphenated_parts_is_used(lens, text: str) -> None:
    """Codebook: a coined name the authors introduce for their own method is used; a hyphen between a
    prefix and the acronym ("L-EBPO"-style) is part of the name."""
    value = run(lens, text)["rl_algorithm"].value
    assert value[0] in ("Q-RTPO", "S-ARTPO"), value


def test_on_policy_distillation_is_used_but_never_the_main_method(lens) -> None:
    """Codebook: on-policy distillation is a method name known in the field (used where the authors
    train with it); distilling a teacher is no RL objective, so the report's RL method stays main."""
    cells = run(
        lens,
        "First, we distil the small models from the flagship with on-policy distillation on our prompts. "
        "Then we apply GRPO to the small models with verifiable rewards.",
    )
    assert cells["rl_algorithm"].value == ("GRPO", "on-policy distillation / MOPD")


def test_an_inference_time_tree_search_is_no_rl_algorithm(lens) -> None:
    """Codebook: not an algorithm: an inference-time search used only at evaluation, including a
    search the authors coin a name for; a tree search that produces training data is used."""
    cells = run(
        lens,
        "We train the prover with GRPO on verified proofs. At inference we use MCTS to explore proof paths. "
        "We present ZetaTS, a novel Monte-Carlo tree search algorithm with curiosity bonuses.",
    )
    assert cells["rl_algorithm"].value == ("GRPO",)
    assert "ZetaTS" not in (cells["rl_algorithm_mentioned"].value or ())
    cells = run(lens, "We run MCTS to generate training data for the policy, in the manner of expert iteration.")
    assert "MCTS" in cells["rl_algorithm"].value


def test_a_section_on_an_inference_time_search_is_not_own_training(lens) -> None:
    """Codebook: an inference-time search (a prover's proof search, tree search) is neither an RL
    algorithm nor agentic RL; what its section says about rewards describes the search."""
    from ingest.analysis.evidence import Sentence

    sents = [
        Sentence("We train the model with GRPO on competition problems.", 1, "1", "body", 0, "3 Reinforcement Learning"),
        Sentence("The search receives a reward of 1 when a Lean proof is verified.", 2, "2", "body", 1,
                 "4 Proof Search with Monte-Carlo Tree Search"),
    ]  # fmt: skip
    cells = annotate(sents, lens).cells
    assert "formal-verifier" not in cells["reward_source"].value


def test_a_technique_borrowed_from_a_method_is_not_that_method(lens) -> None:
    """Codebook: training techniques (clip-higher, dynamic sampling) are no algorithm items; the
    method the authors train with is."""
    cells = run(lens, "We train with GRPO. Clip-Higher: we raise the upper clipping bound of the ratio to 0.28.")
    assert cells["rl_algorithm"].value == ("GRPO",)


def test_the_methodology_of_another_report_is_a_method_named_by_reference(lens) -> None:
    """Codebook: a method named only by reference to another report is that report's method ("as in
    NAME" until looked up); a lower-case version word after the name belongs to it."""
    cells = run(
        lens,
        "In line with the methodology of Orca v2.1 (Lee et al., 2024), we employ the following RL loss to optimise the policy.",
    )
    assert cells["rl_algorithm"].value == ("as in Orca v2.1",)
    # an approach taken from another work for something other than RL is no RL method
    cells = run(lens, "Following the approach in Zeta2 (Sun et al., 2024a), we apply sliding window attention to the draft.")
    assert not any(v.startswith("as in") for v in cells["rl_algorithm"].value)


def test_the_method_the_summary_says_the_authors_use_is_the_main_one(lens) -> None:
    """Codebook: the main method is listed first. The abstract / introduction state the core method; a
    method used more often only in one method section (a side stage) comes after it."""
    from ingest.analysis.evidence import Sentence

    parts = [
        ("1 Introduction", "We formulate long-horizon RL and employ GSPO for robust policy optimisation."),
        ("3 Reinforcement Learning", "The policy is optimised on verifiable prompts."),
        ("4 Compression", "We use DPO to shorten the answers of the small model."),
        ("4 Compression", "The preference pairs are used for DPO training of the small model."),
        ("4 Compression", "We adopt DPO with a shortest-correct positive."),
    ]
    sents = [Sentence(t, 1, "1", "body", i, h) for i, (h, t) in enumerate(parts)]
    assert annotate(sents, lens).cells["rl_algorithm"].value == ("GSPO", "DPO")


def _fired(cell: Cell) -> set[str]:
    return {i.indicator for i in cell.checklist or () if i.fired}


def test_the_amount_of_text_on_rl_is_an_indicator_on_a_doubling_scale(lens) -> None:
    """Codebook: the disclosure levels weigh 'the amount of dedicated text' (a paragraph or two; a
    dedicated section; several sections): sentences on RL outside summary sections, 8, 16, 32 …"""
    from ingest.analysis.evidence import Sentence

    method = [f"The reward of task {i} is one when the answer matches and zero otherwise." for i in range(9)]
    intro = [f"Reinforcement learning improves skill {i} of language models." for i in range(20)]
    sents = [Sentence(t, 1, "1", "body", i, "1 Introduction") for i, t in enumerate(intro)]
    sents += [Sentence(t, 2, "2", "body", len(intro) + i, "3 Reinforcement Learning") for i, t in enumerate(method)]
    fired = _fired(annotate(sents, lens).cells["rl_disclosure"])
    assert "rl_text_8" in fired and "rl_text_16" not in fired  # the introduction's sentences do not count


def test_chinese_stage_named_beside_ideographs_counts_like_the_english(lens) -> None:
    """Twins give the same cells: "we combine SFT and online DPO" said in Chinese names the stage and
    its method although no word boundary separates "DPO" from the ideographs around it."""
    zh = _fired(run(lens, "在训练方面,我们结合了有监督微调以及在线DPO等方法。")["rl_disclosure"])
    en = _fired(run(lens, "For training, we combine supervised fine-tuning with online DPO.")["rl_disclosure"])
    assert {"rl_stage", "algorithm_named"} <= zh and {"rl_stage", "algorithm_named"} <= en


def test_cue_report_counts_an_amount_rule_where_its_indicator_fires(lens) -> None:
    """The cue report lists each amount-of-text indicator as a rule (its placeholder pattern is no
    cue) and ablates it by an amount no document reaches."""
    import importlib.util
    import sys

    from .conftest import REPO

    if "cue_report" not in sys.modules:
        spec = importlib.util.spec_from_file_location("cue_report", REPO / "eval" / "cue_report.py")
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules["cue_report"] = mod
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    cr = sys.modules["cue_report"]
    cues = list(cr.lens_cues(lens))
    assert not any(c.pattern == cr.NEVER for c in cues)
    amount = [c for c in cues if c.path[-1] == "amount"]
    assert amount and all(c.pattern.startswith(cr.AMOUNT) for c in amount)
    ablated = cr.without(lens, amount[0])
    dim = ablated.dimensions[amount[0].path[1]]
    assert dim.indicators[amount[0].path[3]].amount == 10**9


def test_a_neighbouring_sentence_may_set_the_reward_topic(lens) -> None:
    """A reward source counts where the sentence is about reward or RL; the paragraph around it (the
    sentence before or after, under the same heading) may say so ("For open questions, we employ an LLM
    judge. For code, the reward is the share of unit tests passed")."""
    from ingest.analysis.evidence import Sentence

    def cells_of(*texts: str) -> dict[str, Cell]:
        return annotate([Sentence(t, 1, "1", "body", i, "4 Training") for i, t in enumerate(texts)], lens).cells

    judge = "For open-ended questions, we employ an LLM-as-judge to compare the response with the ground truth."
    got = cells_of(judge, "For code, the reward is the share of unit tests the program passes.")["reward_source"].value
    assert "generative-reward-model/LLM-judge/rubric" in got
    alone = cells_of(judge, "The questions come from three public collections.")["reward_source"].value
    assert "generative-reward-model/LLM-judge/rubric" not in alone


def test_role_compare_learns_used_from_other_documents_only() -> None:
    """eval/role_compare.py: the learned model decides a document's methods from a fit on the others."""
    import importlib.util
    import sys

    from .conftest import REPO

    sys.path.insert(0, str(REPO / "eval"))
    spec = importlib.util.spec_from_file_location("role_compare", REPO / "eval" / "role_compare.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["role_compare"] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    cands = [
        mod.Candidate(f"d{i}", name, (float(used), 0.0, float(not used)), used, used)
        for i in range(6)
        for name, used in (("A", True), ("B", False))
    ]
    got = mod.learned_loo(cands)
    assert got[("d0", "A")] and not got[("d0", "B")]


@pytest.mark.parametrize(
    "text",
    [
        "For the preference stage, rejected responses are drawn via rule-based selection that favours longer outputs.",
        "Before the reward is computed, a rule-based pre-filter removes degenerate translations.",
        "Translations resist evaluation through explicit rule-based checks, so the reward comes from a scorer.",
        "In RL, an answer that is a non-ground-truth answer but passes the checks is flagged for review.",
        "The RL reward without reference answer compares the input with its round-trip reconstruction.",
    ],
)
def test_rules_that_select_data_or_cannot_score_are_no_rule_based_reward(lens, text: str) -> None:
    """Codebook rule-based/verifiable: a rule or reference that scores the answer; a rule that picks or
    filters data, a task rules cannot score, and a reward without a reference are not that."""
    assert "rule-based/verifiable" not in run(lens, text)["reward_source"].value


def test_rule_based_answer_checks_stay_rule_based(lens) -> None:
    cells = run(lens, "The RL reward is rule-based: one when the final answer matches the reference answer.")
    assert "rule-based/verifiable" in cells["reward_source"].value


def test_a_format_term_of_the_reward_is_a_format_penalty(lens) -> None:
    """Codebook length/format penalty: explicit format terms of the reward."""
    cells = run(lens, "The reward has three additive parts: tool-call correctness, output format validity and task success.")
    assert "length/format penalty" in cells["reward_source"].value


def test_a_binary_correctness_signal_is_rule_based_but_a_correct_proof_is_the_verifiers(lens) -> None:
    """Codebook: answer matching is rule-based/verifiable; a proof checker deciding the reward is the
    formal verifier, so "1 for a correct proof" is not a rule-based reward."""
    cells = run(lens, "In RL we add a binary signal indicating whether the model answered correctly.")
    assert "rule-based/verifiable" in cells["reward_source"].value
    cells = run(lens, "In RL a binary reward is assigned: 1 for a completely correct proof and 0 otherwise.")
    assert "rule-based/verifiable" not in cells["reward_source"].value


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["qwen3-blog", "qwen3-coder-blog"])
def test_every_shipped_chinese_twin_gives_the_values_of_its_english_original(lens, corpus, name: str) -> None:
    """Issue 33 item 7: a translation reads as its original (same value in every column)."""
    from ingest.reading.extract import extract_file
    from ingest.reading.sections import split_sections

    def values(file: str) -> dict[str, tuple[str, ...]]:
        ann = annotate(sentences(split_sections(extract_file(corpus / "blog" / file))), lens)
        return {k: c.value for k, c in ann.cells.items()}

    assert values(f"{name}.zh.md") == values(f"{name}.md")


# --------------------------------------------------------------------- branch doubt3: sure misses
def test_the_naive_or_baseline_form_of_a_method_is_compared_not_used(lens) -> None:
    """Codebook "mentioned only: compared against": the naive / vanilla form of a method, or one named as
    the baseline, is what the authors improve on, not what they train with."""
    cells = run(
        lens,
        "We train our model with RLOO on verified math problems.",
        "We first trained it with vanilla PPO, which collapsed early. We use plain GSPO as our baseline for comparison.",
    )
    assert cells["rl_algorithm"].value == ("REINFORCE/RLOO",), cells["rl_algorithm"].value
    assert {"PPO", "GSPO"} <= set(cells["rl_algorithm_mentioned"].value), cells["rl_algorithm_mentioned"].value


def test_a_formatting_penalty_is_a_format_term_of_the_reward(lens) -> None:
    cells = run(lens, "The RL reward is the checker's verdict. Additionally, a formatting penalty is applied to the reward.")
    assert "length/format penalty" in cells["reward_source"].value, cells["reward_source"].value


def test_human_curated_preference_pairs_are_human_preference_data(lens) -> None:
    """Codebook: human-annotated comparisons used for DPO-style training; curated by hand is annotated by hand."""
    cells = run(lens, "For DPO we add 2K human-curated chosen/rejected response pairs to the preference set.")
    assert "human-preference-data" in cells["reward_source"].value, cells["reward_source"].value
