"""Annotation: used vs mentioned, reference-only names, 'Lean' the author, not disclosed, indicators."""

from __future__ import annotations

import pytest

from ingest.annotate import annotate
from ingest.evidence import sentences
from ingest.lens import DEFAULT_LENS, load_lens
from ingest.sections import Segment


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def run(lens, *pages: str, refs: str = "") -> dict:
    segs = [Segment("body", i + 1, str(i + 1), t) for i, t in enumerate(pages)]
    if refs:
        segs.append(Segment("references", len(pages) + 1, str(len(pages) + 1), refs))
    return annotate(sentences(segs), lens)["cells"]


def test_trains_with_cispo_while_comparing_with_grpo_and_dapo(lens) -> None:
    cells = run(
        lens,
        "We compare with GRPO and DAPO on the same data. Compared with GRPO, the variance is lower. "
        "Unlike DAPO, no dynamic sampling is needed. We adopt CISPO as our RL algorithm for all stages.",
    )
    assert cells["rl_algorithm"]["value"] == ["CISPO"]
    assert set(cells["rl_algorithm_mentioned"]["value"]) == {"GRPO", "DAPO"}
    assert "CISPO" in cells["rl_algorithm"]["quote"]


def test_baseline_named_far_more_often_than_own_method_stays_mentioned(lens) -> None:
    baseline = " ".join(f"GSPO is more stable than GRPO in run {i}." for i in range(6))
    cells = run(lens, "We propose GSPO, a new RL algorithm. We compare against GRPO as the baseline. " + baseline)
    assert cells["rl_algorithm"]["value"] == ["GSPO"]
    assert cells["rl_algorithm_mentioned"]["value"] == ["GRPO"]


def test_algorithm_named_only_in_references_never_counts(lens) -> None:
    cells = run(
        lens,
        "We employ a modified version of Group Relative Policy Optimization (GRPO) for training.",
        refs="Q. Yu et al. DAPO: an open-source LLM reinforcement learning system at scale. 2025.",
    )
    assert cells["rl_algorithm"]["value"] == ["GRPO"]
    assert cells["rl_algorithm_mentioned"]["value"] == ["not disclosed"]


def test_lean_as_author_name_is_not_the_formal_verifier(lens) -> None:
    cells = run(lens, "We thank Lean Wang for the reward model code used in our RL stage and feedback on it.")
    assert "formal-verifier" not in cells["reward_source"]["value"]
    cells = run(lens, "Each generated Lean 4 proof receives a reward of 1 if verified as correct and 0 otherwise.")
    assert "formal-verifier" in cells["reward_source"]["value"]


def test_silent_report_is_not_disclosed_everywhere(lens) -> None:
    cells = run(lens, "We pretrain a dense model on fifteen trillion tokens of web text and code.")
    for dim in ("reward_source", "credit_granularity", "rl_algorithm", "rl_algorithm_mentioned"):
        assert cells[dim]["value"] == ["not disclosed"], dim
        assert cells[dim]["quote"] is None
    assert cells["disclosure"]["value"] == ["none"]
    assert cells["disclosure"]["indicators"] == []


def test_negated_reward_is_not_a_source(lens) -> None:
    cells = run(lens, "We do not use a neural reward model, because it suffers from reward hacking in our RL runs.")
    assert "reward-model" not in cells["reward_source"]["value"]


def test_disclosure_names_the_indicators_that_fired_and_quotes_them(lens) -> None:
    cells = run(
        lens,
        "We run agentic RL on multi-turn tool-use tasks with the reward from unit tests executed in a sandbox. "
        "Each rollout is verified in a docker sandbox and the reward is 1 if all tests pass.",
    )
    cell = cells["disclosure"]
    assert cell["value"] != ["none"]
    assert "agentic_rl_stage" in cell["indicators"]
    assert cell["quote"] and cell["page"] == 1
    assert "agentic_rl_stage" in cell["why"]


def test_cells_carry_confidence_quote_page_and_section(lens) -> None:
    cells = run(lens, "Intro text about models and data.", "For math we use a rule-based reward that checks the final answer.")
    cell = cells["reward_source"]
    assert cell["value"] == ["rule-based/verifiable"]
    assert 0 < cell["confidence"] <= 1
    assert (cell["page"], cell["page_label"], cell["section"]) == (2, "2", "body")
    assert "rule-based reward" in cell["quote"]
