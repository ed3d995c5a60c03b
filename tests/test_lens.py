"""The lens YAML: shipped lenses load, bad lenses fail with file, field and hint."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ingest.analysis.lens import DEFAULT_LENS, LENS_DIR, known_dimensions, load_lens
from ingest.sources.registry import SpecFileError, load_report

from .conftest import copy_shipped

REPO = Path(__file__).resolve().parents[1]
GOLD_REWARD = {
    "rule-based/verifiable", "code-execution/test-cases", "formal-verifier", "environment-execution", "reward-model",
    "generative-reward-model/LLM-judge/rubric", "human-preference-data", "length/format penalty",
}  # fmt: skip
GOLD_GRANULARITY = {"trajectory/outcome", "turn", "step", "token/segment", "process-reward", "mixed", "not disclosed"}

MINIMAL = """\
version: 1
id: tiny
label: Tiny
dimensions:
  - id: reward
    label: Reward
    kind: multi
    categories:
      - name: rules
        cues: ['rule[- ]based']
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "lens.yaml"
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_default_lens_has_the_contract_dimensions_in_order() -> None:
    lens = load_lens(DEFAULT_LENS)
    expected = ["reward_source", "credit_granularity", "rl_algorithm", "rl_algorithm_mentioned", "disclosure", "rl_disclosure"]
    assert lens.ids == expected


def test_default_lens_categories_map_one_to_one_onto_gold_vocabulary() -> None:
    lens = load_lens(DEFAULT_LENS)
    assert set(lens.dimension("reward_source").values) - {"not disclosed"} == GOLD_REWARD
    assert set(lens.dimension("credit_granularity").values) == GOLD_GRANULARITY
    for dim in ("disclosure", "rl_disclosure"):
        assert lens.dimension(dim).values == ["none", "low", "medium", "detailed", "very detailed"]


def test_second_lens_is_yaml_only_and_loads() -> None:
    lens = load_lens(LENS_DIR / "helpfulness_reward.yaml")
    assert lens.id == "helpfulness_reward"
    assert {"rules", "scalar RM", "reference-based judge", "generative RM"} <= set(lens.dimension(lens.ids[0]).values)


def test_shipped_curated_values_are_lens_categories(tmp_path: Path) -> None:
    """Every `curated:` value of the shipped reports is a category of the default lens (no silent typos)."""
    lens = load_lens(DEFAULT_LENS)
    for path in sorted(copy_shipped(tmp_path).glob("[!_]*.yaml")):
        spec = load_report(path, known_dimensions(LENS_DIR))
        for dim, cell in spec.curated.items():
            allowed = lens.allowed_values(dim) if dim in lens.ids else None
            if allowed is not None:
                assert set(cell.values) <= set(allowed), (path.name, dim, cell.values)


def test_minimal_lens_loads(tmp_path: Path) -> None:
    lens = load_lens(write(tmp_path, MINIMAL))
    assert lens.dimension("reward").values == ["rules", "not disclosed"]


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (("kind: multi", "kind: multy"), "dimensions.0.kind", "multi"),
        (("    label: Reward\n", "    label: Reward\n    colour: red\n"), "dimensions.0.colour", "unknown key"),
        (("['rule[- ]based']", "['rule[- based']"), "dimensions.0.categories.0.cues", "invalid regular expression"),
        (("- name: rules", "- name: not disclosed"), "dimensions.0.categories.0.name", "reserved"),
        (("kind: multi\n", "kind: level\n"), "dimensions.0", "levels"),
    ],
)
def test_bad_lens_names_file_field_and_hint(tmp_path: Path, edit: tuple[str, str], field: str, words: str) -> None:
    text = MINIMAL.replace(*edit)
    assert text != MINIMAL
    path = write(tmp_path, text)
    with pytest.raises(SpecFileError) as exc:
        load_lens(path)
    err = exc.value.errors[0]
    assert err.file == str(path)
    assert err.field.startswith(field)
    assert words in err.message or words in err.hint
    assert err.hint


def test_mentioned_dimension_must_point_at_an_algorithm_dimension(tmp_path: Path) -> None:
    text = MINIMAL + "  - id: also\n    label: Also\n    kind: mentioned\n    source: reward\n"
    with pytest.raises(SpecFileError, match="not an algorithm dimension"):
        load_lens(write(tmp_path, text))


def test_duplicate_yaml_key_in_lens_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SpecFileError, match="duplicate key"):
        load_lens(write(tmp_path, MINIMAL + "label: Again\n"))


def test_curated_key_outside_every_lens_is_rejected(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_text("id: x\nmodel: X\norganization: L\ndoc_type: other\ncurated:\n  reward_sorce: {value: GRPO}\n", encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_report(p, known_dimensions(LENS_DIR))
    assert exc.value.errors[0].field == "curated.reward_sorce"
    assert "reward_source" in exc.value.errors[0].hint


def test_introduces_pattern_needs_a_name_group_and_an_algorithm_dimension(tmp_path: Path) -> None:
    base = (
        "id: t\nlabel: T\ndimensions:\n  - id: alg\n    label: A\n    kind: algorithm\n"
        "    categories: [{name: GRPO, cues: ['GRPO']}]\n"
    )
    ok = tmp_path / "ok.yaml"
    ok.write_text(base + "    introduces: ['policy optimization \\((?P<name>[A-Z]+)\\)']\n", encoding="utf-8")
    assert load_lens(ok).dimension("alg").introduces
    bad = tmp_path / "bad.yaml"
    bad.write_text(base + "    introduces: ['policy optimization \\(([A-Z]+)\\)']\n", encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_lens(bad)
    assert "named group" in str(exc.value)


def test_default_lens_declares_how_new_methods_are_found_and_chinese_cues() -> None:
    lens = load_lens(DEFAULT_LENS)
    assert lens.dimension("rl_algorithm").introduces
    cues = [q for d in lens.dimensions for c in d.categories for q in c.cues]
    assert any("基于规则" in q for q in cues) and any("奖励模型" in q for q in cues)


def test_generic_category_only_in_an_algorithm_dimension_and_exclude_only_on_it(tmp_path: Path) -> None:
    base = "id: t\nlabel: T\ndimensions:\n  - id: alg\n    label: A\n    kind: {kind}\n    categories: [{cat}]\n"
    ok = tmp_path / "ok.yaml"
    cat = "{name: unnamed RL, generic: true, cues: ['an RL algorithm'], exclude: [future]}"
    ok.write_text(base.format(kind="algorithm", cat=cat))
    assert [c.name for c in load_lens(ok).dimension("alg").categories if c.generic] == ["unnamed RL"]
    for kind, cat, words in [
        ("multi", "{name: unnamed RL, generic: true, cues: ['an RL algorithm']}", "only for kind 'algorithm'"),
        ("algorithm", "{name: GRPO, cues: [GRPO], exclude: [future]}", "only for a `generic: true` category"),
        ("algorithm", "{name: GRPO, cues: [GRPO], summary_headings: [abstract]}", "only for a `generic: true` category"),
    ]:
        bad = tmp_path / "bad.yaml"
        bad.write_text(base.format(kind=kind, cat=cat))
        with pytest.raises(SpecFileError) as exc:
            load_lens(bad)
        assert words in str(exc.value)


def test_default_lens_says_when_an_rl_algorithm_is_not_named() -> None:
    dim = load_lens(DEFAULT_LENS).dimension("rl_algorithm")
    assert [c.name for c in dim.categories if c.generic] == ["RL, algorithm not named"]
    # issue 22: rejection sampling that only checks data is a codebook rule of the category, not a
    # phrase fitted to one sentence
    rft = next(c for c in dim.categories if c.name == "rejection sampling fine-tuning")
    assert rft.use_requires and rft.mention_if and not dim.mention_before


def test_regex_check_is_remembered_per_lens_text_in_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the data cache, a lens text that passed its regex check is not compiled again; an
    edited text (a bad pattern) is checked and rejected, and a failed load leaves no marker."""
    import re

    from ingest.analysis import lens as lens_mod

    cache = tmp_path / "cache"
    path = write(tmp_path, MINIMAL)
    first = load_lens(path, cache)
    assert len(list((cache / "lens-regex-checked").iterdir())) == 1
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(lens_mod.re, "compile", lambda p, *a: compiled.append(p) or real(p, *a))
    lens_mod._LENSES.clear()
    again = load_lens(path, cache)
    assert again == first and compiled == []
    bad = write(tmp_path, MINIMAL.replace("['rule[- ]based']", "['rule[- based']"))
    with pytest.raises(SpecFileError, match="invalid regular expression"):
        load_lens(bad, cache)
    assert len(list((cache / "lens-regex-checked").iterdir())) == 1
