"""The cue prefilters are exact: a literal gate, a shared alternation or a case fold never drops a
sentence a cue matches (they exist for speed; a wrong one would silently lose evidence)."""

from __future__ import annotations

import pytest

from ingest.analysis.annotate import literal_gate
from ingest.analysis.evidence import sentences
from ingest.analysis.lens import DEFAULT_LENS, load_lens

from .conftest import SHARED


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def test_literal_gate_finds_required_strings_and_gives_up_when_there_are_none() -> None:
    assert literal_gate(["rule[- ]based"]) == frozenset({"based"})
    assert literal_gate([r"\bGRPO\b", "group relative policy optimi[sz]ation"]) == frozenset(
        {"grpo", "group relative policy optimi"}
    )
    assert literal_gate([r"(?-i:Lean(?! [A-Z][a-z]))\s*(4|proofs?)"]) == frozenset({"lean"})
    assert literal_gate([r"\d+ samples", r"\d"]) is None


def _sample_texts() -> list[str]:
    texts = [
        "We adopt Group Relative Policy Optimization (GRPO) with a rule-based reward and unit tests.",
        "Each Lean 4 proof gets a reward of 1 if verified; the ReST baseline and RLHF are compared.",
        "第二阶段利用基于规则的奖励。", "RMhelpful and RM_safety are reward models; RMSNorm is not.",
    ]  # fmt: skip
    gold = SHARED / "labels" / "gold.yaml"
    if gold.exists():
        from ingest.reading.extract import extract_file
        from ingest.reading.sections import split_sections

        for f in ("pdf/deepseek-r1.pdf", "blog/qwen3-blog.zh.md", "pdf/hunyuan-a13b.pdf"):
            texts += [s.text for s in sentences(split_sections(extract_file(SHARED / "corpus" / f)))]
    return texts


def test_prefilters_never_drop_a_sentence_a_cue_matches(lens) -> None:
    """Soundness of the speed-up on every cue of the lens: a cue match implies its gate passes."""
    import re

    texts = _sample_texts()
    for dim in lens.dimensions:
        groups = [c.cues for c in dim.categories] + [g for i in dim.indicators for g in i.all_of] + [dim.context, dim.require]
        for cues in groups:
            gate = literal_gate(cues) if cues else None
            if gate is None:
                continue
            for t in texts:
                if any(re.search(q, t, re.I) for q in cues):
                    assert any(x in t.casefold() for x in gate), (cues, t)


def test_cues_that_cannot_share_one_regex_still_work() -> None:
    from ingest.analysis.annotate import alternation

    rx = alternation([r"(?P<x>GRPO)", r"(?P<x>PPO)"])  # duplicate group names: no single alternation
    assert rx.search("we use PPO") and not rx.search("we use DPO here")


def test_fold_compares_letters_as_regex_ignorecase_does() -> None:
    """`fold` must map every pair of characters `re.IGNORECASE` equates to the same string, or a
    literal prefilter could drop a sentence a cue matches (plain `casefold` misses dotless ı and İ)."""
    import _sre
    import sys
    from re import _casefix  # type: ignore[attr-defined]

    from ingest.analysis.annotate import fold

    for c in range(sys.maxunicode + 1):
        if 0xD800 <= c <= 0xDFFF:
            continue
        assert fold(chr(c)) == fold(chr(_sre.unicode_tolower(c))), hex(c)
    for lo, others in _casefix._EXTRA_CASES.items():
        assert all(fold(chr(o)) == fold(chr(lo)) for o in others), hex(lo)


def test_cueset_answers_as_searching_every_pattern(lens) -> None:
    """The per-cue prefilter is exact: `CueSet.search` and `candidates` agree with a plain search of
    every pattern, on every cue list of the lens, also on text with dotless ı / İ."""
    import re

    from ingest.analysis.annotate import CueSet, fold

    texts = [*_sample_texts(), "We use a rule-based reward (algorıthm İİ) for GRPO.", "REWARD MODEL ſcores"]
    for dim in lens.dimensions:
        lists = [c.cues for c in dim.categories] + [g for i in dim.indicators for g in i.all_of]
        lists += [x for x in (dim.context, dim.negation, dim.require, dim.exclude) if x]
        for cues in lists:
            cs, parts = CueSet(cues), CueSet(cues, split=True)  # split: each top-level alternative apart
            for t in texts:
                hits = [i for i, q in enumerate(cues) if re.search(q, t, re.I)]
                assert cs.search(t, fold(t)) == bool(hits), (cues, t)
                assert parts.search(t, fold(t)) == bool(hits), (cues, t)
                assert parts.may(fold(t)) or not hits, (cues, t)
                assert set(hits) <= set(cs.candidates(fold(t))), (cues, t)


def test_a_leading_lookahead_is_tested_after_the_rest_with_the_same_matches(lens) -> None:
    """`lookahead_last` (a speed-up of cues opening with a long lookahead) finds the same matches at
    the same places and keeps group numbers; patterns it cannot rewrite safely stay as they are."""
    import re

    from ingest.analysis.cues import FLAGS, lookahead_last

    assert lookahead_last(r"(?=[^.]{0,50}\bRL\b)\b(we|our)\b (use|adopt)") == (
        r"(?=(?:\b(?:we|our)\b (?:use|adopt)))(?=[^.]{0,50}\bRL\b)\b(we|our)\b (use|adopt)"
    )
    for same in [r"\bGRPO\b", r"(?=a)(b)\1", r"(?=a)(?P<n>b)", r"(?=a)", r"(?x)(?=a) b", r"(?=a(b)"]:
        assert lookahead_last(same) == same
    assert lookahead_last(r"(?=[)(\]])(x)|y") == r"(?=(?:(?:x)|y))(?=[)(\]])(x)|y"
    patterns = [q for d in lens.dimensions for c in d.categories for q in c.cues]
    patterns += [r"(?=[^.;]{0,80}\breward)(we|our) (\w+ ){0,3}(use|train)\w*|(?=\w)RL (stage|phase)"]
    texts = [*_sample_texts(), "Our team uses RL. We train a reward model. RL stage, then the RL phase with reward."]
    for p in patterns:
        fast, slow = re.compile(lookahead_last(p), FLAGS), re.compile(p, FLAGS)
        if fast.pattern == p:
            continue
        for t in texts:
            got, want = fast.finditer(t), slow.finditer(t)
            assert [(m.span(), m.groups()) for m in got] == [(m.span(), m.groups()) for m in want], (p, t)


def test_alternatives_split_only_at_the_top_level() -> None:
    from ingest.analysis.cues import alternatives

    assert alternatives(r"\bagents?\b|tool[- ](use|call)|[|(]x|\|y") == [r"\bagents?\b", "tool[- ](use|call)", "[|(]x", r"\|y"]
    for whole in [r"(?i)a|b", r"(a)|\1", "abc", r"(?x) a | b", "(a|b"]:
        assert alternatives(whole) == [whole]
