"""Fill the per-process caches of the analysis stages once, so no job pays for them again.

Why: every report runs in a process forked from a warm parent (the executor's forkserver, or the
driver itself), and a forked process starts with the parent's memory. Whatever the parent has
computed (compiled cue regexes, literal prefilters, the benchmark catalogue and its patterns,
Python's own `re` cache) is free in every job; whatever it has not is recomputed by every job,
a large share of a small report's analysis. The caches are keyed by
content (lens fingerprint, file path and mtime, pattern text), so a job with another lens or
lexicon simply misses them and computes its own: results never depend on this module.

`re`'s own cache holds only the last 512 patterns, fewer than the stages compile, so a pattern
compiled here is kept only where a stage keeps it itself; `warm_lexicon` hands a job the lexicon
compiled here in place of the pickled copy it received (whose compiled patterns are empty).
`bench/ingest_speed.py` measures the jobs' CPU; tests/test_warm.py checks that a job forked
after `warm_caches` compiles no pattern.
"""

from __future__ import annotations

import contextlib

from ingest.analysis.annotate import annotate
from ingest.analysis.benchmarks import load_catalogue
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import DEFAULT_LENS, Lens, lens_to_compile
from ingest.analysis.lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from ingest.analysis.results import results_key
from ingest.analysis.roles import role_of

#: The lexicons compiled in this process, by fingerprint (see `warm_lexicon`).
_LEXICONS: dict[str, Lexicon] = {}
#: The lenses whose cues this process compiled, by fingerprint (see `warm_lens`).
_LENSES: dict[str, Lens] = {}


def warm_lexicon(lexicon: Lexicon) -> Lexicon:
    """The lexicon of the same content compiled in this process by `warm_caches`, else `lexicon` itself.

    A job receives its lexicon pickled: a new object, whose compiled patterns (a cached property)
    would be compiled again in every job, and `re`'s cache no longer holds them."""
    return _LEXICONS.get(lexicon.fingerprint, lexicon)


def warm_lens(fingerprint: str) -> Lens | None:
    """The lens of that content `warm_caches` loaded in this process, if any (see `pipeline_steps.Task`)."""
    return _LENSES.get(fingerprint)


def warm_lexicon_of(fingerprint: str) -> Lexicon | None:
    """The lexicon of that content `warm_caches` compiled in this process, if any."""
    return _LEXICONS.get(fingerprint)


def warm_caches(lexicon: Lexicon | None = None, lens: Lens | None = None) -> None:
    """Fill the module-level caches the analysis stages use, for `lexicon` and `lens` (default: the
    default ones). Best effort: never raises."""
    with contextlib.suppress(Exception):
        lexicon = lexicon or load_lexicon(DEFAULT_LEXICON)
        _ = lexicon.compiled  # compiles each term (kept on this object, see `warm_lexicon`)
        _LEXICONS[lexicon.fingerprint] = lexicon
    with contextlib.suppress(Exception):
        # (the default lens unchecked: compiling it here is the check, and a lens that fails is not kept)
        lens = lens or lens_to_compile(DEFAULT_LENS)
        annotate([], lens)  # compiles every dimension's cues, gates and level indicators
        role_of(Sentence("", 0, "", "", 0), lens)  # compiles the sentence-role rules
        _LENSES[lens.fingerprint] = lens
    with contextlib.suppress(Exception):
        cat = load_catalogue()
        _ = cat._names, cat._patterns, cat._any_pattern, cat.name_keys, cat.by_id, cat.fingerprint
        for name, info in type(cat).model_fields.items():  # every word list is one pattern (`_vocab`)
            if info.annotation == list[str]:
                cat._vocab(name)
        results_key()
