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
