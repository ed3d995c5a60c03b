"""Fill the per-process caches of the analysis stages once, so no job pays for them again.

Why: every report runs in a process forked from a warm parent (the executor's forkserver, or the
driver itself), and a forked process starts with the parent's memory. Whatever the parent has
computed (compiled cue regexes, literal prefilters, the benchmark catalogue and its patterns,
Python's own `re` cache) is free in every job; whatever it has not is recomputed by every job,
a large share of a small report's analysis. The caches are keyed by
content (lens fingerprint, file path and mtime, pattern text), so a job with another lens or
lexicon simply misses them and computes its own: results never depend on this module.
"""

from __future__ import annotations

import contextlib

from ingest.analysis.annotate import annotate
from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.lens import DEFAULT_LENS, Lens, load_lens
from ingest.analysis.lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from ingest.analysis.results import results_key


def warm_caches(lexicon: Lexicon | None = None, lens: Lens | None = None) -> None:
    """Fill the module-level caches the analysis stages use, for `lexicon` and `lens` (default: the
    default ones). Best effort: never raises."""
    with contextlib.suppress(Exception):
        _ = (lexicon or load_lexicon(DEFAULT_LEXICON)).compiled  # compiles each term (`re` keeps them)
        annotate([], lens or load_lens(DEFAULT_LENS))  # compiles every dimension's cues, gates and level indicators
    with contextlib.suppress(Exception):
        cat = load_catalogue()
        _ = cat._names, cat._patterns, cat.name_keys, cat.by_id, cat.fingerprint
        for vocab in ("metrics", "settings", "key_columns", "attribute_rows", "label_words", "benchmark_words", "rating_metrics"):
            cat._vocab(vocab)
        results_key()
