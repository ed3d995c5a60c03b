"""Issue 8 §4: text normalisation runs in linear time on hostile input.

Every input of `tests.pathological.MARKDOWN` (unclosed comments, scripts, shortcodes and fences,
tens of thousands of blank lines, bracket/tag/link openers on long lines, ...) and PDF-like text
with 30,000-letter words is processed at 100 KB and 300 KB. Before the fix each took seconds to
minutes and grew 3–6× per doubling. The 300 KB case must take under 2 s (a generous bound so a
loaded machine does not make it flaky) and at most 6× the 100 KB case (linear is 3×, quadratic 9×).
`python bench/pathological.py` prints the times and peak memory.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from ingest.reading.markdown import extract_markdown
from ingest.reading.textnorm import SOFT_BREAK, count_words, dehyphenate, fold_ws, normalize, word_rule

from .pathological import MARKDOWN, long_words

SMALL, BIG = 100_000, 300_000
BOUND_S = 2.0
MAX_RATIO = 6.0
FLOOR_S = 0.05  # below this, timer noise dominates the ratio


def timed(fn: Callable[[], object]) -> float:
    """CPU seconds of this process (less sensitive than wall time to other jobs on a shared machine).

    The garbage collector is off while timing: in a test worker that has run many other tests, a
    collection walks every object those left behind, a cost of the worker's heap, not of the input
    (a 300 KB case once took twice its time alone, in a clean-clone run of the suite)."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        fn()
        return time.process_time() - t0
    finally:
        gc.enable()


def assert_linear(fn: Callable[[int], object], tries: int = 3) -> None:
    """`fn(size)` at SMALL and BIG: absolute bound and near-linear growth (best of up to `tries` runs)."""
    small = big = float("inf")
    for _ in range(tries):
        small, big = min(small, timed(lambda: fn(SMALL))), min(big, timed(lambda: fn(BIG)))
        if big < BOUND_S and big / max(small, FLOOR_S) < MAX_RATIO:
            return
    assert big < BOUND_S, f"{BIG:,} bytes took {big:.2f} s (bound {BOUND_S} s)"
    assert big / max(small, FLOOR_S) < MAX_RATIO, f"{small:.3f} s -> {big:.3f} s: not linear"


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_extraction_is_linear(name: str) -> None:
    make = MARKDOWN[name]
    inputs = {n: make(n) for n in (SMALL, BIG)}
    doc = extract_markdown(inputs[SMALL])
    assert "agent" in doc.text, "the prose around the hostile markup was lost"
    assert_linear(lambda n: extract_markdown(inputs[n]))


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_result_tables_are_linear(name: str) -> None:
    """The results stage re-reads a post's raw Markdown (pipe tables, images): hostile lines such as
    "![![![…" once took 50 s at 300 KB there, after extraction had taken milliseconds."""
    from ingest.analysis.benchmarks import load_catalogue
    from ingest.analysis.results import markdown_tables

    cat = load_catalogue()
    make = MARKDOWN[name]
    inputs = {n: make(n).decode("utf-8", errors="replace") if isinstance(make(1), bytes) else make(n) for n in (SMALL, BIG)}
    assert_linear(lambda n: markdown_tables(inputs[n], cat))


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_analysis_of_hostile_markdown_is_linear(name: str) -> None:
    """Sections, sentence splitting, keyword counts and annotation after extraction: a paragraph of
    full stops inside an open bracket (or after "e.g.") once re-read the sentence at every stop."""
    from ingest.analysis.lens import DEFAULT_LENS, load_lens
    from ingest.analysis.lexicon import DEFAULT_LEXICON, load_lexicon
    from ingest.pipeline_steps import analyse

    lexicon, lens = load_lexicon(DEFAULT_LEXICON), load_lens(DEFAULT_LENS)
    docs = {n: extract_markdown(MARKDOWN[name](n)) for n in (SMALL, BIG)}
    assert_linear(lambda n: analyse(docs[n], lexicon, lens))


@pytest.mark.parametrize("joiner", ["-\n", SOFT_BREAK, "\u00ad", "-", " "])
def test_dehyphenation_of_30000_letter_words_is_linear(joiner: str) -> None:
    pages = {n: [normalize(long_words(n, joiner=joiner))] for n in (SMALL, BIG)}
    assert "agent" in dehyphenate(pages[SMALL])[0]
    assert_linear(lambda n: dehyphenate(pages[n]))


@pytest.mark.parametrize("unit", ["1-\nab ", "ab-\nCd ", "a-\nb-\nc-\n", "x/" * 500 + "ab-\ncd ", "-\na"])
def test_line_end_hyphen_sites_that_are_no_match_are_linear(unit: str) -> None:
    """The line-end hyphen repair looks for "-" + line break sites first: sites without a letter
    before them, or whose word holds other characters, must not make it rescan the page."""
    pages = {n: [unit * (n // len(unit))] for n in (SMALL, BIG)}
    assert_linear(lambda n: dehyphenate(pages[n]))


def test_many_soft_hyphens_in_one_token_are_linear_and_all_decided() -> None:
    pages = {n: [normalize("ag" + "en\ufffe" * (n // 3) + "tic")] for n in (SMALL, BIG)}
    assert SOFT_BREAK not in dehyphenate(pages[SMALL])[0]
    assert_linear(lambda n: dehyphenate(pages[n]))


@pytest.mark.parametrize("unit", ["a ", "agent\n", "\u6a21\u578b ", "x" * 1000 + " "])
def test_counting_and_folding_are_linear(unit: str) -> None:
    texts = {n: unit * (n // len(unit)) for n in (SMALL, BIG)}
    assert count_words(texts[SMALL]) == len(texts[SMALL].split())
    assert fold_ws(texts[SMALL]) == " ".join(texts[SMALL].split())
    assert_linear(lambda n: (word_rule(texts[n]), count_words(texts[n], "cjk"), fold_ws(texts[n])))
