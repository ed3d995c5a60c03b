"""A job forked from a warm process compiles (almost) no regex: `ingest.run.warm` (issue 35.10).

Why: `re` keeps only its last 512 patterns, fewer than the stages compile, so a pattern a stage
does not keep itself is compiled again in every job; the lexicon arrives pickled (a new object
with no compiled patterns). Both cost a cold ingest about a second on 23 reports.
"""

from __future__ import annotations

import pickle
import re
import re._compiler
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.analysis.lexicon import DEFAULT_LEXICON, load_lexicon
from ingest.pipeline_settings import Settings
from ingest.pipeline_steps import Task, compute
from ingest.run.warm import warm_caches, warm_lexicon

PAGES = [
    [
        "1 Introduction",
        "We train the policy with reinforcement learning (GRPO) and a rule-based reward model.",
        "The reward is verifiable: unit tests pass or fail. We use PPO in the second stage.",
    ],
    [
        "Table 1: Results on reasoning benchmarks.",
        "Benchmark      Model-A     Model-B",
        "MMLU (EM)      88.5        85.2",
        "AIME 2024 (Pass@1)   79.8   63.6",
    ],
]


def _compiled_during(fn: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Patterns `re` compiled (cache misses) while `fn` ran, with `re`'s own cache emptied first."""
    seen: list[str] = []
    real = re._compiler.compile

    def spy(p, flags=0):  # type: ignore[no-untyped-def]
        seen.append(p if isinstance(p, str) else repr(p))
        return real(p, flags)

    re.purge()
    monkeypatch.setattr(re._compiler, "compile", spy)
    fn()
    monkeypatch.setattr(re._compiler, "compile", real)
    return seen


def test_a_pickled_lexicon_gets_the_warm_one() -> None:
    lexicon = load_lexicon(DEFAULT_LEXICON)
    warm_caches(lexicon, load_lens(DEFAULT_LENS))
    copy = pickle.loads(pickle.dumps(lexicon))
    assert copy is not lexicon and warm_lexicon(copy) is lexicon
    assert warm_lexicon(copy).__dict__.get("compiled")  # (compiled already)
    data = lexicon.model_dump()
    data["groups"][0]["terms"][0]["name"] += " (edited)"
    other = type(lexicon).model_validate(data)
    assert warm_lexicon(other) is other  # another content: its own patterns


def test_a_job_after_warm_up_compiles_almost_nothing(make_pdf: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = make_pdf(PAGES)
    lexicon, lens = load_lexicon(DEFAULT_LEXICON), load_lens(DEFAULT_LENS)
    warm_caches(lexicon, lens)
    # As a job gets it from a driver that did not compile the lexicon: pickled, nothing compiled.
    fresh = type(lexicon).model_validate(lexicon.model_dump())
    task = pickle.loads(pickle.dumps(Task("x", str(pdf), Settings(offline=True), fresh, lens)))
    seen = _compiled_during(lambda: compute(task), monkeypatch)
    term_patterns = {t.compile().pattern for g in lexicon.groups for t in g.terms}
    assert not term_patterns & set(seen)
    # Measured: 10 short inline patterns (`re.sub(r"\s+", ...)`), against 70+ lexicon terms and
    # 20+ role and vocabulary patterns before the warm-up kept them.
    assert len(seen) <= 25, seen
