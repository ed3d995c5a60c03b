"""Annotation: used vs mentioned, introduced methods, reward context, Chinese, checklists, gold floors."""

from __future__ import annotations

import pytest

from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import sentences
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.common.records import Cell
from ingest.reading.sections import Segment

from .conftest import REPO, SHARED


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def run(lens, *pages: str, refs: str = "") -> dict[str, Cell]:
    segs = [Segment("body", i + 1, str(i + 1), t) for i, t in enumerate(pages)]
    if refs:
        segs.append(Segment("references", len(pages) + 1, str(len(pages) + 1), refs))
    return annotate(sentences(segs), lens).cells


def test_trains_with_cispo_while_comparing_with_grpo_and_dapo(lens) -> None:
    cells = run(
        lens,
        "We compare with GRPO and DAPO on the same data. Compared with GRPO, the variance is lower. "
        "Unlike DAPO, no dynamic sampling is needed. We adopt CISPO as our RL algorithm for all stages.",
    )
    assert cells["rl_algorithm"].value == ("CISPO",)
    assert set(cells["rl_algorithm_mentioned"].value) == {"GRPO", "DAPO"}
    assert "CISPO" in cells["rl_algorithm"].quote


def test_baseline_named_far_more_often_than_own_method_stays_mentioned(lens) -> None:
    baseline = " ".join(f"GSPO is more stable than GRPO in run {i}." for i in range(6))
    cells = run(lens, "We propose GSPO, a new RL algorithm. We compare against GRPO as the baseline. " + baseline)
    assert cells["rl_algorithm"].value == ("GSPO",)
    assert cells["rl_algorithm_mentioned"].value == ("GRPO",)


def test_algorithm_named_only_in_references_never_counts(lens) -> None:
    cells = run(
        lens,
        "We employ a modified version of Group Relative Policy Optimization (GRPO) for training.",
        refs="Q. Yu et al. DAPO: an open-source LLM reinforcement learning system at scale. 2025.",
    )
    assert cells["rl_algorithm"].value == ("GRPO",)
    assert cells["rl_algorithm_mentioned"].value == ("not disclosed",)


def test_lean_as_author_name_is_not_the_formal_verifier(lens) -> None:
    cells = run(lens, "We thank Lean Wang for the reward model code used in our RL stage and feedback on it.")
    assert "formal-verifier" not in cells["reward_source"].value
    cells = run(lens, "Each generated Lean 4 proof receives a reward of 1 if verified as correct and 0 otherwise.")
    assert "formal-verifier" in cells["reward_source"].value


def test_report_silent_on_rl_shows_no_rl_stage_not_hidden(lens) -> None:
    # codebook `rl_used: no`: a report whose model has no RL stage does not read as hiding one
    cells = run(lens, "We pretrain a dense model on fifteen trillion tokens of web text and code.")
    for dim in ("reward_source", "credit_granularity", "rl_algorithm"):
        assert cells[dim].value == (lens.no_stage.value,), dim
        assert cells[dim].quote is None  # nothing says how the model is post-trained
    assert cells["rl_algorithm_mentioned"].value == ("not disclosed",)
    assert cells["disclosure"].value == ("none",)
    assert cells["disclosure"].indicators == ()


def test_negated_reward_is_not_a_source(lens) -> None:
    cells = run(lens, "We do not use a neural reward model, because it suffers from reward hacking in our RL runs.")
    assert "reward-model" not in cells["reward_source"].value


def test_disclosure_names_the_indicators_that_fired_and_quotes_them(lens) -> None:
    cells = run(
        lens,
        "We run agentic RL on multi-turn tool-use tasks with the reward from unit tests executed in a sandbox. "
        "Each rollout is verified in a docker sandbox and the reward is 1 if all tests pass.",
    )
    cell = cells["disclosure"]
    assert cell.value != ("none",)
    assert "agentic_rl_stage" in cell.indicators
    assert cell.quote and cell.page == 1
    assert "agentic_rl_stage" in cell.why


def test_cells_carry_confidence_quote_page_and_section(lens) -> None:
    cells = run(lens, "Intro text about models and data.", "For math we use a rule-based reward that checks the final answer.")
    cell = cells["reward_source"]
    assert cell.value == ("rule-based/verifiable",)
    assert 0 < cell.confidence <= 1
    assert (cell.page, cell.page_label, cell.section) == (2, "2", "body")
    assert "rule-based reward" in cell.quote


# --------------------------------------------------------------------- methods the lens does not know
def test_method_the_report_introduces_is_used_without_being_in_the_lens(lens) -> None:
    assert not any("STPO" in c for d in lens.dimensions for cat in d.categories for c in cat.cues)
    cells = run(
        lens,
        "To stabilise RL, we propose Stable Token Policy Optimization (STPO), a new RL algorithm. "
        "Compared with GRPO, STPO clips the sequence ratio. We train all models with STPO.",
    )
    assert cells["rl_algorithm"].value == ("STPO",)
    assert "GRPO" in cells["rl_algorithm_mentioned"].value
    assert "STPO" in cells["rl_algorithm"].quote


def test_we_propose_name_comma_an_algorithm_is_an_introduced_method(lens) -> None:
    cells = run(lens, "We present ZAPO++, a simple policy gradient algorithm for reasoning models with verifiable rewards.")
    assert cells["rl_algorithm"].value == ("ZAPO++",)


def test_our_coined_name_algorithm_is_an_introduced_method(lens) -> None:
    """Codebook: a coined name the authors give their own method ("our X algorithm") is used."""
    cells = run(lens, "We train the policy with our XR-PO algorithm on math and code prompts with verifiable rewards.")
    assert cells["rl_algorithm"].value == ("XR-PO",)
    cells = run(lens, "We train the policy with our RL algorithm on math prompts.")  # a generic acronym is no name
    assert "RL" not in cells["rl_algorithm"].value


def test_dataset_named_after_an_algorithm_and_the_verb_reinforce_are_no_algorithms(lens) -> None:
    cells = run(lens, "We train our model with GRPO on the DAPO-Math-17K set. These results reinforce our view.")
    assert cells["rl_algorithm"].value == ("GRPO",)
    assert cells["rl_algorithm_mentioned"].value == ("not disclosed",)


def test_the_proposed_online_rl_method_is_a_description_not_a_name(lens) -> None:
    cells = run(lens, "We train the policy with the proposed online RL method and GRPO.")
    assert "online RL" not in cells["rl_algorithm"].value + cells["rl_algorithm_mentioned"].value


def test_introduced_name_that_the_lens_knows_maps_onto_its_category(lens) -> None:
    cells = run(lens, "We propose Group Sequence Policy Optimization (GSPO), our new algorithm for RL training.")
    assert cells["rl_algorithm"].value == ("GSPO",)


def test_acronym_defined_by_others_and_only_compared_is_mentioned(lens) -> None:
    cells = run(
        lens,
        "Unlike Trust Region Policy Optimization (TRPO; Schulman et al., 2015), which needs second-order steps, "
        "we adopt GRPO as our RL algorithm for all stages.",
    )
    assert cells["rl_algorithm"].value == ("GRPO",)
    assert cells["rl_algorithm_mentioned"].value == ("TRPO",)


def test_ppo_written_out_as_clipped_objective_with_a_value_model_is_ppo(lens) -> None:
    cells = run(
        lens,
        "We train the policy with a clipped surrogate objective and a learned value model as the critic.",
        "Advantages are computed with generalized advantage estimation over each rollout.",
    )
    assert cells["rl_algorithm"].value == ("PPO",)


def test_grpo_that_foregoes_the_critic_is_not_ppo(lens) -> None:
    cells = run(lens, "We adopt GRPO, which foregoes the critic model and estimates the baseline from group scores instead.")
    assert cells["rl_algorithm"].value == ("GRPO",)
    assert "PPO" not in cells["rl_algorithm_mentioned"].value


def test_ablation_with_another_algorithm_is_not_use(lens) -> None:
    cells = run(
        lens,
        "We investigate the effectiveness of using ReST as the policy optimization algorithm in our setting. "
        "We apply online policy mirror descent as our training algorithm.",
    )
    assert cells["rl_algorithm"].value == ("online policy mirror descent",)
    assert cells["rl_algorithm_mentioned"].value == ("ReST",)


# --------------------------------------------------------------------- an RL algorithm the report does not name
UNNAMED = "RL, algorithm not named"


def test_own_rl_with_a_generically_described_algorithm_is_rl_algorithm_not_named(lens) -> None:
    cells = run(
        lens,
        "Pretraining used fifteen trillion tokens.",
        "To keep the reward from saturating, we switched to an off-policy RL algorithm with replay buffers.",
    )
    assert cells["rl_algorithm"].value == (UNNAMED,)
    assert cells["rl_algorithm"].page == 2 and "off-policy RL algorithm" in cells["rl_algorithm"].quote
    assert cells["rl_algorithm_mentioned"].value == ("not disclosed",)
    cells = run(lens, "We further train the model with an off-policy RL method that reuses stale rollouts.")
    assert cells["rl_algorithm"].value == (UNNAMED,)


def test_unnamed_stage_beside_a_named_stage_lists_both(lens) -> None:
    cells = run(
        lens,
        "3.1 Reasoning RL Stage\nWe adopt GRPO as our RL algorithm for mathematics and code.\n"
        "3.2 General RL Stage\nIn this stage we use a preference-weighted policy optimization method that "
        "balances helpfulness and safety.",
    )
    assert cells["rl_algorithm"].value == ("GRPO", UNNAMED)
    assert "GRPO" in cells["rl_algorithm"].quote  # the cell quotes the named method first


def test_generic_description_of_a_method_named_in_the_same_stage_is_that_method(lens) -> None:
    cells = run(lens, "3.1 RL Stage\nWe use an on-policy RL algorithm for stability. Concretely, we adopt GRPO with 16 rollouts.")
    assert cells["rl_algorithm"].value == ("GRPO",)
    cells = run(lens, "We adopt an on-policy RL algorithm (GRPO) with a rule-based reward.")
    assert cells["rl_algorithm"].value == ("GRPO",)
    cells = run(lens, "We adopt an on-policy RL algorithm, GRPO, with a rule-based reward.")
    assert UNNAMED not in cells["rl_algorithm"].value
    cells = run(lens, "We adopt an on-policy RL algorithm called Balanced Policy Optimization (BPO) for all runs.")
    assert cells["rl_algorithm"].value == ("BPO",)


def test_summary_section_restating_a_method_named_later_is_not_an_unnamed_algorithm(lens) -> None:
    body = "3 Reinforcement Learning\nWe adopt GRPO as our RL algorithm with a rule-based reward."
    cells = run(lens, "1 Introduction\nWe adopt a simple and scalable RL algorithm for reasoning.", body)
    assert cells["rl_algorithm"].value == ("GRPO",)
    cells = run(lens, "We adopt a simple and scalable RL algorithm for reasoning.\n" + body)  # abstract: no heading yet
    assert cells["rl_algorithm"].value == ("GRPO",)
    # a report that names nothing: its introduction's description is the only one there is
    cells = run(lens, "1 Introduction\nWe adopt a simple and scalable RL algorithm for reasoning.")
    assert cells["rl_algorithm"].value == (UNNAMED,)


@pytest.mark.parametrize(
    "text",
    [
        # an RL algorithm of another paper, described generically
        "Smith et al. (2024) adopt an on-policy RL algorithm to train their reasoning model.",
        "Prior systems employ an asynchronous policy-gradient method for agent training.",
        # future work
        "In future work we plan to adopt an off-policy RL algorithm for long-horizon agents.",
        "6 Limitations and Future Work\nWe adopt an off-policy RL algorithm for long-horizon agents next.",
        # RL of a baseline
        "For the baseline, we adopt an on-policy RL algorithm with the same reward model.",
        # not an RL algorithm, or no algorithm at all
        "We employ an Adam-style optimization method with a cosine learning-rate schedule.",
        "We applied reinforcement learning across more than twenty general tasks.",
        # a schedule of stages, not the algorithm
        "We adopt a two-stage RL approach: first reasoning, then general alignment.",
    ],
)
def test_generic_rl_that_is_not_the_reports_own_unnamed_training_does_not_fire(lens, text: str) -> None:
    cells = run(lens, text)
    assert UNNAMED not in cells["rl_algorithm"].value + cells["rl_algorithm_mentioned"].value


def test_unnamed_rl_algorithm_in_chinese(lens) -> None:
    cells = run(lens, "为了避免性能过早饱和，我们采用了一种在线策略强化学习算法进行训练。")
    assert cells["rl_algorithm"].value == (UNNAMED,)


def test_rejection_sampling_that_only_filters_data_is_not_rejection_sampling_fine_tuning(lens) -> None:
    cells = run(lens, "Only responses validated through strict rejection sampling are kept in the final SFT dataset.")
    assert "rejection sampling fine-tuning" not in cells["rl_algorithm"].value
    assert cells["rl_algorithm_mentioned"].value == ("rejection sampling fine-tuning",)
    cells = run(
        lens, "We generate new SFT data through rejection sampling on the RL checkpoint and fine-tune on the accepted samples."
    )
    assert cells["rl_algorithm"].value == ("rejection sampling fine-tuning",)


def test_eval_maps_the_gold_unnamed_notation_onto_the_generic_category(lens) -> None:
    ev = _eval()
    items = ["GRPO (modified)", "on-policy RL (unnamed; used for the second model)", "General RL stage (algorithm not named)"]
    assert ev.map_names(items, lens, "rl_algorithm", used=True) == ({"GRPO", UNNAMED}, [])
    mapped, unmapped = ev.map_names(["offline alignment (unnamed; a contrast)"], lens, "rl_algorithm")
    assert mapped == set() and unmapped == ["offline alignment (unnamed; a contrast)"]


# --------------------------------------------------------------------- reward sources read in context
def test_data_filtering_words_without_reward_are_no_reward_source(lens) -> None:
    cells = run(lens, "In the quality assessment phase, the SFT data undergo rule-based verification and test cases are run.")
    assert cells["reward_source"].value in (("not disclosed",), (lens.no_stage.value,))  # SFT only: no RL stage


def test_no_format_reward_is_negated_but_a_format_reward_is_a_penalty_term(lens) -> None:
    cells = run(lens, "No additional rewards, such as format reward and length penalty reward, are used in our RL.")
    assert cells["reward_source"].value == ("not disclosed",)
    cells = run(lens, "The reward has two parts: a format reward of 1 for correct tags, and an answer-match reward.")
    assert "length/format penalty" in cells["reward_source"].value


def test_rlhf_is_human_preference(lens) -> None:
    cells = run(
        lens, "The model was post-trained with supervised fine-tuning and reinforcement learning from human feedback (RLHF)."
    )
    assert cells["reward_source"].value == ("human-preference-data",)


def test_llm_judge_written_with_parenthesised_acronym(lens) -> None:
    cells = run(lens, "Preference pairs for DPO are scored by a large language model (LLM) judge and a reward model.")
    assert set(cells["reward_source"].value) == {"generative-reward-model/LLM-judge/rubric", "reward-model"}


# --------------------------------------------------------------------- Chinese
def test_chinese_report_is_read_like_its_english_twin(lens) -> None:
    cells = run(
        lens,
        "第二阶段的重点是大规模强化学习，利用基于规则的奖励来增强模型的探索能力。"
        "最后，我们在包括指令遵循和 Agent 能力在内的 20 多个任务上应用了强化学习。",
    )
    assert cells["reward_source"].value == ("rule-based/verifiable",)
    assert cells["reward_source"].quote.startswith("第二阶段")
    assert "agentic_rl_stage" in cells["disclosure"].indicators
    # the level follows the lens's fitted cut points: the twins' levels agree, whatever those are
    en = run(
        lens,
        "The second stage focuses on large-scale reinforcement learning, using rule-based rewards to strengthen exploration. "
        "Finally, we applied reinforcement learning to more than 20 tasks, including instruction following and Agent skills.",
    )
    for dim in ("disclosure", "rl_disclosure"):
        assert cells[dim].value == en[dim].value, dim
    assert cells["rl_disclosure"].value != ("none",)


def test_english_list_in_the_next_sentence_reads_like_the_chinese_one_sentence(lens) -> None:
    # a translation splits or joins sentences: the English names the tasks in the sentence after
    en = run(lens, "Finally, we applied RL across more than 20 general-domain tasks. These tasks included agent capabilities.")
    assert "agentic_rl_stage" in en["disclosure"].indicators


@pytest.mark.corpus
def test_shipped_chinese_post_gives_the_cells_of_its_english_original(lens, corpus) -> None:
    from ingest.reading.extract import extract_file
    from ingest.reading.sections import split_sections

    def cells(name: str) -> dict[str, tuple[str, ...]]:
        ann = annotate(sentences(split_sections(extract_file(corpus / "blog" / name))), lens)
        return {k: c.value for k, c in ann.cells.items()}

    assert cells("qwen3-blog.zh.md") == cells("qwen3-blog.md")


# --------------------------------------------------------------------- disclosure checklist
def test_level_cell_keeps_the_whole_checklist_with_quotes(lens) -> None:
    cells = run(
        lens,
        "We adopt GRPO as our RL algorithm. The reward is 1 if the final answer matches the ground-truth answer.",
        "We use a learning rate of 1e-6 and 16 rollouts per prompt.",
    )
    cell = cells["rl_disclosure"]
    dim = lens.dimension("rl_disclosure")
    assert [i.indicator for i in cell.checklist] == [i.name for i in dim.indicators]
    fired = [i for i in cell.checklist if i.fired]
    assert [i.indicator for i in fired] == list(cell.indicators)
    assert all(i.quote and i.page in (1, 2) for i in fired)
    assert all(i.quote is None for i in cell.checklist if not i.fired)
    assert "rl_hyperparameters" in cell.indicators


def test_level_cut_points_fit_by_exact_agreement_then_prior() -> None:
    fit_cuts = _eval().fit_cuts
    # two documents at 0 indicators are "none", two at 2 are "low", one at 5 is "medium"
    cuts = fit_cuts([0, 0, 2, 2, 5], [0, 0, 1, 1, 2], k=7, prior=(1, 3, 5, 6))
    # 5 must stay below "detailed", so that cut moves up (and the last with it); the others keep the prior
    assert cuts == (1, 3, 6, 7)
    assert fit_cuts([0, 2], [0, 1], k=7, prior=(1, 3, 5, 6)) == (1, 3, 5, 6)


# --------------------------------------------------------------------- floors on the gold corpus
FLOORS = {
    # measured on the 54 gold documents by eval/annotate_eval.py ("== all 54", in-sample), less about
    # one document's worth (0.02) so that a new labelled document does not fail main by itself
    "alg_exact": 0.83, "alg_f1": 0.92, "rs_f1": 0.86, "gran_acc": 0.96,
    "disclosure_exact": 0.81, "disclosure_w1": 0.98, "rl_disclosure_exact": 0.74, "rl_disclosure_w1": 0.98,
}  # fmt: skip
#: Leave-one-out on the newest label block alone (eval/annotate_eval.py's "cells vs the trivial answer"
#: table, column "tool LOO", rows "newest 26"), less about one document's worth (0.02 .. 0.04).
NEWEST_LOO_FLOORS = {
    ("main algorithm", "accuracy"): 0.96, ("algorithm used", "micro-F1"): 0.90, ("reward source", "micro-F1"): 0.84,
    ("granularity", "accuracy"): 0.96, ("agentic disclosure", "exact"): 0.84, ("RL disclosure", "exact"): 0.69,
}  # fmt: skip


def _eval():
    """eval/annotate_eval.py as a module: the test scores exactly what the script prints."""
    import importlib.util
    import sys

    if "annotate_eval" not in sys.modules:
        spec = importlib.util.spec_from_file_location("annotate_eval", REPO / "eval" / "annotate_eval.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["annotate_eval"] = mod
        spec.loader.exec_module(mod)
    return sys.modules["annotate_eval"]


@pytest.mark.corpus
def test_gold_corpus_scores_stay_above_their_floors(lens) -> None:
    if not (SHARED / "labels" / "gold.yaml").exists():
        pytest.skip(f"gold labels not found at {SHARED / 'labels'} (provided beside the repo in CI and dev sessions)")
    ev = _eval()
    docs = ev.load_docs(SHARED)
    res, _ = ev.annotate_all(docs, lens)
    metrics, confusions, _ = ev.score(docs, res, lens)
    got = metrics["all"]
    assert got["n"] >= 54
    low = {k: round(got[k], 3) for k, floor in FLOORS.items() if got[k] < floor}
    assert not low, f"below floor: {low}; confusions: {confusions}"
    assert got["quotes_bad"] == 0
    # leave-one-document-out with a neutral tie-break (the level cut points are fitted on labels)
    loo: dict = {}
    ev.loo_levels(docs, res, lens, loo)
    n = len(docs)  # measured: disclosure exact 44/54, within one 54/54; rl_disclosure 40/54 and 54/54
    assert loo["disclosure"][0] / n >= 0.79 and loo["disclosure"][1] / n >= 0.98, loo
    assert loo["rl_disclosure"][0] / n >= 0.72 and loo["rl_disclosure"][1] / n >= 0.98, loo
    # beside the trivial answer, leave-one-out, on the newest block alone (issue 33)
    figs = {(f.dim, f.metric, f.split): f for f in ev.figures(ev.cell_values(docs, res, lens), ev.CELL_METRICS,
                                                               ev.splits_of(docs))}  # fmt: skip
    low_new = {k: round(figs[(*k, "newest")].tool_loo, 3) for k, floor in NEWEST_LOO_FLOORS.items()
               if figs[(*k, "newest")].tool_loo < floor}  # fmt: skip
    assert not low_new, low_new
    for dim in ("main algorithm", "granularity"):  # measured well above the majority answer, all and newest
        assert all(figs[(dim, "accuracy", sp)].beats for sp in ("all", "newest")), dim
    for dim in ("agentic disclosure", "RL disclosure"):  # measured above it leave-one-out (newest: 88% vs 81%, 73% vs 19%)
        assert all(figs[(dim, "exact", sp)].beats for sp in ("all", "newest")), dim
    # reports without RL show the lens's "no RL stage" (measured: 6/6, none with RL)
    said = ev.no_stage_line(docs, res, lens)
    assert f"showing '{lens.no_stage.value}': 6/6; reports with RL showing it: 0" in said, said
    # the confidence model, leave-one-document-out (model and threshold chosen without the document)
    import sys

    sys.path.insert(0, str(REPO / "eval"))
    from annotate_eval import gold_examples
    from confidence_loo import nested_loo

    nested = nested_loo(gold_examples(docs, res, lens))
    # doubt ranking (measured: AUC 0.81 on all 54, the least-sure 35% hold 60/81 = 74.1% of the wrong cells;
    # newest 26: AUC 0.84, 29/38 = 76.3%); floors about two or three wrong cells below
    from cell_figures import doubt

    d = doubt([(p, e.correct) for e, p, _ in nested])
    assert d.auc >= 0.79 and d.share >= 0.70, d
    new = doubt([(p, e.correct) for e, p, _ in nested if e.doc in ev.splits_of(docs)["newest"]])
    assert new.auc >= 0.82 and new.share >= 0.71, new
    # Its probabilities order the cells (Review shows the least sure first): the cells a held-out
    # model gives at least an even chance are right more often than the others. annotate_eval.py
    # prints both shares (the 0.50 trade-off line, and "predicted 0.0-0.5 ... right"); the floor on
    # their gap leaves room for new documents.
    even = [e.correct for e, p, _ in nested if p >= 0.5]
    below = [e.correct for e, p, _ in nested if p < 0.5]
    assert even and below and sum(even) / len(even) - sum(below) / len(below) >= 0.15, (even, below)
    # "Confident" only where a cut was right >= 95% held out (issue 33): otherwise the model to commit
    # labels nothing confident and Review is simply least sure first.
    from confidence_loo import final_model, held_out_sure

    from ingest.analysis.confidence import NONE_SURE

    examples = gold_examples(docs, res, lens)
    if not held_out_sure(nested):
        assert final_model(examples, nested).threshold == NONE_SURE


def test_we_introduce_name_an_optimization_method_is_an_introduced_method(lens) -> None:
    cells = run(lens, "We introduce TokenFix, an unbiased optimization method that improves token efficiency in RL.")
    assert cells["rl_algorithm"].value == ("TokenFix",)
    cells = run(lens, "We present DeepModel-V9, a strong mixture-of-experts language model trained with GRPO.")
    assert cells["rl_algorithm"].value == ("GRPO",)


# --------------------------------------------------------------------- codebook rules (issue 22)
def test_reward_model_symbol_in_an_algorithm_box_is_not_a_reward_model(lens) -> None:
    cells = run(lens, "Input: policy model, reward model R, task prompts; the RL loop computes the reward for each rollout.")
    assert "reward-model" not in cells["reward_source"].value


def test_lean_compiler_is_the_formal_verifier_not_code_execution(lens) -> None:
    cells = run(lens, "The reward is 1 when the Lean 4 compiler accepts the generated proof and 0 otherwise.")
    assert "formal-verifier" in cells["reward_source"].value
    assert "code-execution/test-cases" not in cells["reward_source"].value


@pytest.mark.parametrize(
    "text",
    [
        "During RL the reward comes from a judge model that grades each response against the reference.",
        "We compute the reward with model-based scoring from an open 70B model prompted as a grader.",
    ],
)
def test_llm_judge_however_named_is_a_generative_reward(lens, text: str) -> None:
    assert "generative-reward-model/LLM-judge/rubric" in run(lens, text)["reward_source"].value


def test_human_annotated_pairs_for_dpo_are_human_preference_data(lens) -> None:
    cells = run(lens, "For DPO training, human annotators labelled the preferred response in 20k preference pairs.")
    assert "human-preference-data" in cells["reward_source"].value


def test_symbolic_checker_is_a_rule_based_reward(lens) -> None:
    cells = run(lens, "The math reward is computed by a SymPy-based symbolic equivalence checker against the reference.")
    assert "rule-based/verifiable" in cells["reward_source"].value


def test_related_work_sentence_is_no_evidence_of_a_reward_source(lens) -> None:
    cells = run(lens, "Several prior works have explored process-based reward models for mathematical reasoning.")
    assert cells["reward_source"].value == ("not disclosed",)


def test_contrast_with_costly_rl_does_not_raise_agentic_disclosure(lens) -> None:
    cells = run(lens, "Unlike costly agentic RL with multi-turn rollouts and rewards, our model is trained by SFT only.")
    assert cells["disclosure"].value == ("none",)


def test_contrast_with_rl_by_unlike_raises_no_disclosure_level(lens) -> None:
    cells = run(lens, "Unlike agentic RL with multi-turn rollouts and rewards, our model is trained by SFT only.")
    assert cells["disclosure"].value == ("none",) and cells["rl_disclosure"].value == ("none",)


def test_longer_context_for_multi_turn_chat_is_no_agentic_rl_disclosure(lens) -> None:
    cells = run(lens, "3 Long Context\nTo support multi-turn interactions, we extend the context window from 8K to 128K tokens.")
    assert cells["disclosure"].value == ("none",)


def test_ablations_or_training_curves_count_toward_rl_disclosure(lens) -> None:
    """Codebook indicator of both disclosure levels: "ablations or training curves"."""
    cells = run(lens, "3 Reinforcement Learning\nAn ablation of the KL penalty shows that RL training is unstable without it.")
    assert "rl_ablation_curves" in (cells["rl_disclosure"].indicators or ())
    cells = run(lens, "3 Reinforcement Learning\nWe train the reward model on 20k pairs.")
    assert "rl_ablation_curves" not in (cells["rl_disclosure"].indicators or ())


def test_method_sentences_rank_above_the_introduction(lens) -> None:
    cells = run(
        lens,
        "1 Introduction\nWe adopt GRPO for RL training and use GRPO again later, following GRPO papers.",
        "3 Reinforcement Learning\nWe adopt GRPO as our RL algorithm.",
    )
    assert cells["rl_algorithm"].page == 2  # the method section's sentence is the quote
