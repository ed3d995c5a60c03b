"""The codebook rules behind the lens cues generalised for issue 22 (fitted cues replaced by general
wording), each on small invented sentences; and the cue report's coverage of heading rules."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import sentences
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.common.records import Cell
from ingest.reading.sections import Segment

from .conftest import REPO

UNNAMED = "RL, algorithm not named"
RFT = "rejection sampling fine-tuning"


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def run(lens, *pages: str) -> dict[str, Cell]:
    segs = [Segment("body", i + 1, str(i + 1), t) for i, t in enumerate(pages)]
    return annotate(sentences(segs), lens).cells


# ------------------------------------------------------------------ algorithm used vs mentioned
def test_own_previous_round_is_no_contrast_but_previous_methods_are(lens) -> None:
    cells = run(lens, "Each round starts from the previous round through rejection fine-tuning on verified answers.")
    assert RFT in cells["rl_algorithm"].value
    cells = run(lens, "We train with GSPO for all stages. Unlike previous methods such as PPO, no critic is needed.")
    assert cells["rl_algorithm"].value == ("GSPO",)
    assert "PPO" in cells["rl_algorithm_mentioned"].value


def test_citation_commas_do_not_cut_the_clause_before_a_method(lens) -> None:
    cells = run(lens, "For the second stage, we use an open toolkit [Lee and Park, 2023] for GSPO training of the model.")
    assert cells["rl_algorithm"].value == ("GSPO",)


def test_name_based_rl_training_is_a_use(lens) -> None:
    cells = run(lens, "After a short warm-up, the model undergoes GRPO-based RL training on math prompts.")
    assert cells["rl_algorithm"].value == ("GRPO",)


def test_run_in_label_titles_the_authors_own_use(lens) -> None:
    cells = run(lens, "• GSPO: in the policy loss of our actor, we replace the token ratio by a sequence ratio.")
    assert cells["rl_algorithm"].value == ("GSPO",)
    # a name opening a sentence without a label's colon or capital stays a plain mention
    cells = run(lens, "GRPO is popular in the community and appears in many reports this year.")
    assert "GRPO" not in cells["rl_algorithm"].value


def test_rejection_sampling_under_a_fine_tuning_heading_is_a_stage_of_it(lens) -> None:
    text = "Rejection Sampling For each prompt we draw eight answers from our model and keep the correct ones."
    cells = run(lens, "4.2 Supervised Fine-Tuning\n" + text)
    assert RFT in cells["rl_algorithm"].value
    cells = run(lens, "4.2 Evaluation Protocol\n" + text)
    assert RFT not in cells["rl_algorithm"].value


def test_rl_stage_as_subject_with_an_unnamed_optimisation_method(lens) -> None:
    cells = run(lens, "Reinforcement learning in this stage employs a two-signal optimization method for chat data.")
    assert cells["rl_algorithm"].value == (UNNAMED,)
    # an optimiser of the pre-training run is no RL algorithm
    cells = run(lens, "We employ a second-order optimization method for the pre-training run of the model.")
    assert UNNAMED not in cells["rl_algorithm"].value


# ------------------------------------------------------------------ reward sources and granularity
def test_outcome_determined_by_the_environment_is_environment_execution(lens) -> None:
    cells = run(lens, "The reward is 1 when task success is determined by the environment after the episode ends.")
    assert "environment-execution" in cells["reward_source"].value


@pytest.mark.parametrize(
    "text",
    [
        "For RL on open questions we train a chain-of-thought reward model that reasons before scoring.",
        "The reward comes from a verifier that writes a short rationale before its verdict on each answer.",
    ],
)
def test_reward_model_or_verifier_that_reasons_is_generative(lens, text: str) -> None:
    assert "generative-reward-model/LLM-judge/rubric" in run(lens, text)["reward_source"].value


def test_trained_critic_gives_token_level_credit(lens) -> None:
    cells = run(lens, "Before RL we pre-train the value model so that its advantage estimates are not biased.")
    assert cells["credit_granularity"].value == ("token/segment",)
    cells = run(lens, "Unlike methods with a critic, the advantage is the group-normalized reward of each response.")
    assert cells["credit_granularity"].value == ("trajectory/outcome",)


# ------------------------------------------------------------------ the cue report
def _cue_report():
    if "cue_report" not in sys.modules:
        spec = importlib.util.spec_from_file_location("cue_report", REPO / "eval" / "cue_report.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["cue_report"] = mod
        spec.loader.exec_module(mod)
    return sys.modules["cue_report"]


def test_cue_report_ablates_heading_rules_against_headings(lens) -> None:
    cr = _cue_report()
    cues = list(cr.lens_cues(lens))
    skip = [c for c in cues if c.path[0] == "skip_headings"]
    assert skip and all(cr.reads(c) == "heading" for c in skip)
    assert any("use_requires" in c.path and cr.reads(c) == "both" for c in cues)
    assert any("not_after" in c.path for c in cues) and any("summary_headings" in c.path for c in cues)
    (s,) = sentences([Segment("body", 1, "1", "5 Related Work\nPrior systems train with PPO on math data.")])
    assert cr.fires(skip[0].pattern, [s], "heading") and not cr.fires(skip[0].pattern, [s], "text")
    assert cr.readable(lens, skip[0]) == "skip_headings[0]"


def test_reward_context_may_come_from_the_section_heading(lens) -> None:
    text = "The candidate answers are then run against unit tests in a code sandbox to rank them."
    cells = run(lens, "4 Direct Preference Optimization\n" + text)
    assert "code-execution/test-cases" in cells["reward_source"].value
    cells = run(lens, "4 Data Cleaning\n" + text)
    assert "code-execution/test-cases" not in cells["reward_source"].value


def test_chinese_wording_of_use_and_contrast(lens) -> None:
    cells = run(lens, "在强化学习阶段，我们采用 GSPO 算法训练模型，奖励来自单元测试。")
    assert cells["rl_algorithm"].value == ("GSPO",)
    cells = run(lens, "我们采用 GSPO 算法训练模型。与 PPO 相比，该方法不需要价值模型。")
    assert cells["rl_algorithm"].value == ("GSPO",)
    assert cells["rl_algorithm_mentioned"].value == ("PPO",)
