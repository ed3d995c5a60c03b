"""Warm the per-process caches of the pipeline once, in the forkserver, so no job pays for them.

Why: every report runs in a process forked from the executor's forkserver, and a forked process
starts with the server's memory. Whatever the server has computed (compiled cue regexes, literal
prefilters, the benchmark catalogue and its patterns, Python's own `re` cache) is free in every
job; whatever it has not is recomputed by every job — about 0.2–0.3 s of CPU per report, a third of
a small report's analysis. Importing this module (it is in `ingest.executor.PRELOAD`) fills those
caches for the default lexicon, lens and catalogue. The caches are keyed by content (lens
fingerprint, file path and mtime, pattern text), so a job with another lens or lexicon simply
misses them and computes its own: results never depend on this module.
"""

from __future__ import annotations

import contextlib
import gc


def warm_caches() -> None:
    """Fill the module-level caches the analysis stages use (best effort: never raises)."""
    with contextlib.suppress(Exception):
        from .annotate import annotate
        from .lens import DEFAULT_LENS, load_lens
        from .lexicon import DEFAULT_LEXICON, load_lexicon

        _ = load_lexicon(DEFAULT_LEXICON).compiled  # compiles each term (Python's `re` cache keeps them)
        lens = load_lens(DEFAULT_LENS)
        annotate([], lens)  # compiles every dimension's cues, gates and level indicators
    with contextlib.suppress(Exception):
        from .benchmarks import load_catalogue
        from .results import results_key

        cat = load_catalogue()
        _ = cat._names, cat._patterns, cat.name_keys, cat.by_id, cat.fingerprint
        for vocab in ("metrics", "settings", "key_columns", "attribute_rows", "label_words", "benchmark_words", "rating_metrics"):
            cat._vocab(vocab)
        results_key()


warm_caches()

# Move everything loaded so far out of the garbage collector's view: the server only forks, and
# a collection in a job would otherwise walk (and so copy, page by page) the whole inherited heap.
gc.freeze()
