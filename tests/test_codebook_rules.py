"""Codebook rules implemented generically (issue 22): mixed credit granularity, disclosure under RL headings.

Sentences are generated here, not taken from labelled reports: each test states the codebook rule.
"""

from __future__ import annotations

import pytest

from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import DEFAULT_LENS, load_lens


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def doc(*parts: tuple[str, str]) -> list[Sentence]:
    """(heading, text) pairs as a document's sentences, one page."""
    return [Sentence(text, 1, "1", "body", i, heading) for i, (heading, text) in enumerate(parts)]


def test_step_rewards_in_an_agent_track_and_outcome_rewards_elsewhere_are_mixed(lens) -> None:
    sents = doc(
        ("4.1 Reasoning RL", "Each response receives a binary reward from its final answer."),
        ("4.1 Reasoning RL", "Group-relative advantages are computed over the responses of a prompt."),
        ("4.2 Agentic RL", "The agent receives a step-level reward for every tool call it makes."),
        ("4.2 Agentic RL", "We assign per-step rewards from the environment feedback."),
    )
    cell = annotate(sents, lens).cells["credit_granularity"]
    assert cell.value == ("mixed",)
    assert cell.quote is not None and "reward" in cell.quote


def test_a_critic_in_one_stage_and_group_advantages_in_another_are_mixed(lens) -> None:
    sents = doc(
        ("3 Stage 1: PPO", "We train the policy with PPO, using generalized advantage estimation from a learned value model."),
        ("4 Stage 2: GRPO", "In the second stage the advantage is normalised within a group of sampled responses."),
    )
    assert annotate(sents, lens).cells["credit_granularity"].value == ("mixed",)


def test_one_granularity_in_every_section_is_not_mixed(lens) -> None:
    sents = doc(
        ("3 Reasoning RL", "Each response receives a binary reward from its final answer."),
        ("4 Agentic RL", "Each trajectory gets a reward of 1 if the task is solved."),
    )
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


def test_two_granularities_in_one_section_are_not_stages(lens) -> None:
    # One stage whose text names two granularities: the better supported one, not "mixed".
    sents = doc(
        ("3 RL", "Each response receives a binary reward from its final answer."),
        ("3 RL", "Group-relative advantages are computed over the responses of a prompt."),
        ("3 RL", "A step-level reward was considered as well."),
    )
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


def test_a_summary_section_is_no_stage(lens) -> None:
    # The introduction restates; its wording does not make a second stage.
    sents = doc(
        ("1 Introduction", "Prior agents relied on a step-level reward for each action."),
        ("3 RL", "Each response receives a binary reward from its final answer."),
    )
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


def test_mixed_key_must_name_a_category_of_a_single_dimension(lens) -> None:
    from pydantic import ValidationError

    from ingest.analysis.lens import Dimension

    cats = [{"name": "a", "label": "A", "cues": ["x"]}, {"name": "m", "label": "M", "cues": ["y"]}]
    assert Dimension(id="g", label="G", kind="single", categories=cats, mixed="m").mixed == "m"
    with pytest.raises(ValidationError):
        Dimension(id="g", label="G", kind="single", categories=cats, mixed="nope")
    with pytest.raises(ValidationError):
        Dimension(id="g", label="G", kind="multi", categories=cats, mixed="m")


def _algorithm_named(lens, sents: list[Sentence]) -> bool:
    item = next(c for c in annotate(sents, lens).cells["rl_disclosure"].checklist if c.indicator == "algorithm_named")
    return item.fired


def test_an_algorithm_named_under_an_rl_training_heading_counts_as_named(lens) -> None:
    # Codebook: an algorithm named under an RL-training heading counts as "algorithm named",
    # though the sentence itself does not say "we use".
    under_rl = doc(("4 Reinforcement Learning", "The policy is optimised with GRPO on a mix of math and code prompts."))
    assert _algorithm_named(lens, under_rl)
    under_other = doc(("4 Evaluation", "The policy is optimised with GRPO on a mix of math and code prompts."))
    assert not _algorithm_named(lens, under_other)


def test_an_algorithm_under_an_rl_heading_in_a_summary_section_or_contrast_does_not_count(lens) -> None:
    # a summary heading restates (no indicator fires there); a contrast is excluded by the dimension
    summary = doc(("1 Introduction to reinforcement learning", "The policy is optimised with GRPO."))
    assert not _algorithm_named(lens, summary)
    contrast = doc(("4 RL Training", "Prior works have trained the policy with PPO instead of our recipe."))
    assert not _algorithm_named(lens, contrast)


# ------------------------------------------------------------- granularity derived from the advantage
def test_grpo_with_one_score_per_response_is_trajectory_outcome_without_saying_so(lens) -> None:
    sents = doc(("3 Reinforcement Learning", "We adopt GRPO to train the policy on math and code prompts."))
    cell = annotate(sents, lens).cells["credit_granularity"]
    assert cell.value == ("trajectory/outcome",)
    assert "GRPO" in (cell.why or "")


def test_dpo_is_trajectory_outcome(lens) -> None:
    sents = doc(("4 Alignment", "We use DPO on the preference data collected from our own model."))
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


def test_ppo_with_a_learned_critic_and_gae_is_token_segment(lens) -> None:
    sents = doc(
        ("3 RL", "We train the policy with PPO."),
        ("3 RL", "We initialize the critic model from the reward model and use GAE with lambda 0.95."),
    )
    assert annotate(sents, lens).cells["credit_granularity"].value == ("token/segment",)


def test_ppo_without_a_stated_critic_is_trajectory_outcome(lens) -> None:
    sents = doc(("3 RL", "We train the policy with PPO; each proof gets a reward of 1 if it is verified."))
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


def test_gae_in_preliminaries_describing_ppo_in_general_is_not_use(lens) -> None:
    sents = [
        Sentence(
            "PPO computes the advantage with Generalized Advantage Estimation (GAE) from a value model.",
            *(2, "2", "body", 0, "Proximal Policy Optimization (PPO)", "Preliminaries"),
        ),
        Sentence("We adopt GRPO as our RL algorithm for all experiments.", 4, "4", "body", 1, "Method", "Method"),
    ]
    assert annotate(sents, lens).cells["credit_granularity"].value == ("trajectory/outcome",)


# ------------------------------------------------------------- sentence roles
def test_reason_against_a_reward_model_is_no_reward_model(lens) -> None:
    sents = doc(
        ("3 Reward", "The use of a reward model usually suffers from the reward hacking problem."),
        ("3 Reward", "We therefore adopt a rule-based reward that checks the final answer."),
    )
    assert annotate(sents, lens).cells["reward_source"].value == ("rule-based/verifiable",)


def test_sentence_opening_on_cited_work_is_not_the_authors_training(lens) -> None:
    sents = doc(
        ("2 Method", "In the RLHF scenario [23], human preference data are used to train a reward model."),
        ("2 Method", "We adopt a rule-based reward that checks the final answer in our RL stage."),
    )
    assert annotate(sents, lens).cells["reward_source"].value == ("rule-based/verifiable",)


def test_figure_caption_is_no_evidence_of_use(lens) -> None:
    from ingest.analysis.roles import role_of

    assert role_of(Sentence("Figure 3: Training curves of PPO and GRPO on AIME.", 1, "1", "body", 0), lens) == "caption"
    assert role_of(Sentence("We adopt GRPO (Shao et al., 2024) for RL.", 1, "1", "body", 0, "", "Preliminaries"), lens) == "own"


# ------------------------------------------------------------- short posts
@pytest.mark.parametrize(
    "text",
    [
        "在训练方面，我们结合了有监督微调、反馈模型训练以及在线DPO等方法。",
        "Recognizing the value of human preferences in the learning process, we effectively employed techniques such as "
        "Direct Preference Optimization (DPO) in aligning the latest models.",
        "Building upon the SFT stage, we further align the policy model with human intent using Direct Preference Optimization.",
    ],
)
def test_a_training_paragraph_naming_the_method_once_is_use(lens, text: str) -> None:
    assert annotate(doc(("Post-training", text)), lens).cells["rl_algorithm"].value == ("DPO",)


def test_methods_such_as_in_others_work_stay_mentioned(lens) -> None:
    cells = annotate(doc(("3 Method", "Preference methods such as DPO are popular; we adopt GRPO for RL.")), lens).cells
    assert cells["rl_algorithm"].value == ("GRPO",)


# ------------------------------------------------------------- no RL stage
def test_sft_only_report_shows_no_rl_stage_with_its_training_sentence(lens) -> None:
    sents = doc(
        ("4 Post-training", "We conduct supervised fine-tuning (SFT) on 1.5M instruction samples for alignment."),
        ("5 Evaluation", "The chat model is evaluated on standard benchmarks."),
    )
    cells = annotate(sents, lens).cells
    for dim in lens.no_stage.dimensions:
        assert cells[dim].value == (lens.no_stage.value,), dim
    assert "supervised fine-tuning" in (cells["reward_source"].quote or "")
    assert cells["disclosure"].value == ("none",)


def test_report_saying_it_uses_no_rl_quotes_that(lens) -> None:
    sents = doc(("1 Introduction", "Our agent is trained by supervised learning alone, without any reinforcement learning."))
    cell = annotate(sents, lens).cells["credit_granularity"]
    assert cell.value == (lens.no_stage.value,) and "without any reinforcement learning" in (cell.quote or "")


@pytest.mark.parametrize(
    "text",
    [
        "We further post-train the model with RLHF.",
        "Finally, in the fourth stage, we applied RL across more than 20 general-domain tasks.",
        "我们使用强化学习持续优化模型。",
    ],
)
def test_a_stage_without_a_named_method_is_not_disclosed_not_no_stage(lens, text: str) -> None:
    cells = annotate(doc(("Post-training", text)), lens).cells
    assert lens.no_stage.value not in cells["credit_granularity"].value


def test_rejection_sampling_alone_is_no_rl_stage_but_stays_listed(lens) -> None:
    sents = doc(("4 SFT", "We apply rejection sampling fine-tuning: we fine-tune on the verified samples of our model."))
    cells = annotate(sents, lens).cells
    assert cells["rl_algorithm"].value == ("rejection sampling fine-tuning",)
    assert cells["reward_source"].value == (lens.no_stage.value,)


# ------------------------------------------------------------- methods named by reference, the main method
def test_method_named_by_reference_is_as_in_name_until_looked_up(lens) -> None:
    from ingest.analysis.references import match_report, resolve_references

    ann = annotate(doc(("5 Post-training", "For the RL algorithm, we use the same algorithm as in K1.5 [95].")), lens)
    assert ann.cells["rl_algorithm"].value == ("as in K1.5",)
    assert ann.cells["credit_granularity"].value != ("trajectory/outcome",)  # the method is unknown: nothing derived
    titles = {"kimi-k1.5": "Kimi k1.5: Scaling Reinforcement Learning with LLMs", "kimi-linear": "Kimi Linear"}
    assert match_report("K1.5", titles) == "kimi-k1.5" and match_report("Kimi", titles) is None  # ambiguous
    done = resolve_references(ann, lens, lambda name: "online policy mirror descent" if name == "K1.5" else None)
    assert done.cells["rl_algorithm"].value == ("online policy mirror descent",)
    assert "named by reference" in (done.cells["rl_algorithm"].why or "")
    assert resolve_references(ann, lens, lambda name: None).cells["rl_algorithm"].value == ("as in K1.5",)


def test_table_rows_show_a_reference_derived_and_compare_curated_cells_with_the_method(lens) -> None:
    """The comparison table's rows (ingest/outputs/tables.py resolves them from the store): an automatic cell
    reads "as in K1.5 → GRPO" with the referenced report's evidence in its notes; a curated GRPO cell beside
    that automatic reading does not disagree; accepting it saves GRPO (`method_of`)."""
    from ingest.analysis.references import Target, method_of, resolve_rows

    base = {"report_id": "r", "dimension": "rl_algorithm", "notes": None, "disagree": False}
    auto = {**base, "origin": "auto", "value": "as in K1.5; DPO", "auto_value": "as in K1.5; DPO"}
    cur = {**base, "origin": "curated", "value": "GRPO; DPO", "auto_value": "as in K1.5; DPO", "disagree": True}
    other = {**base, "dimension": "reward_source", "origin": "auto", "value": "as in K1.5", "auto_value": "as in K1.5"}
    found = Target("kimi-k1.5", "Kimi k1.5", "GRPO", "We adopt GRPO.", "12")
    rows, names = resolve_rows([auto, cur, other], lens, lambda n: found if n == "K1.5" else None)
    assert names == ("K1.5",)
    assert rows[0]["value"] == rows[0]["auto_value"] == "as in K1.5 → GRPO; DPO"
    assert "kimi-k1.5" in rows[0]["notes"] and "(p. 12)" in rows[0]["notes"] and "We adopt GRPO." in rows[0]["notes"]
    assert rows[1]["value"] == "GRPO; DPO" and rows[1]["disagree"] is False
    assert rows[2] == other  # not an algorithm dimension
    assert [method_of(v) for v in rows[0]["value"].split("; ")] == ["GRPO", "DPO"]
    unresolved, names = resolve_rows([auto], lens, lambda n: None)
    assert unresolved[0]["value"] == "as in K1.5; DPO" and names == ("K1.5",)


def test_rejection_sampling_is_never_the_main_method(lens) -> None:
    sents = doc(
        ("3 Data", "We apply rejection sampling fine-tuning: we fine-tune on the verified samples of our model."),
        ("3 Data", "We then apply rejection sampling fine-tuning again to produce more SFT data."),
        ("4 RL", "We adopt GRPO to train the policy."),
    )
    assert annotate(sents, lens).cells["rl_algorithm"].value == ("GRPO", "rejection sampling fine-tuning")


def test_equally_used_methods_keep_the_order_the_report_names_them(lens) -> None:
    text = "We effectively employed techniques such as Direct Preference Optimization (DPO) and PPO in aligning the models."
    assert annotate(doc(("Alignment", text)), lens).cells["rl_algorithm"].value == ("DPO", "PPO")


def test_chinese_rejection_sampling_that_builds_sft_data_is_used_like_the_english(lens) -> None:
    en = "This reward model is used for constructing the SFT data through Rejection Sampling and also in the RL."
    zh = "此 RM 通过拒绝抽样构建 SFT 数据，也用于 SFT 之后的强化学习。"
    for text in (en, zh):
        assert "rejection sampling fine-tuning" in annotate(doc(("Instruct", text)), lens).cells["rl_algorithm"].value, text
