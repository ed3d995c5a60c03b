"""Whose model a result cell is: the report's own (its `model:`, `aliases:`, the short names it
defines, "(ours)") or another. Why a module of its own: the table reading (`result_meaning`), the
word checks and the stored results all ask it, on names only."""

from __future__ import annotations

import re
from functools import lru_cache

from ingest.analysis.benchmarks import norm_name as norm

#: The model of a table that names no model: only the report's own results are printed so.
#: Stored as this placeholder; `own_model_name` gives it the report's `model:` name.
REPORT_MODEL = "(the report's model)"


def own_model_name(model: str, spec_model: str) -> str:
    """A cell's model with the `REPORT_MODEL` placeholder replaced by the report's model name."""
    return spec_model if model == REPORT_MODEL and spec_model else model


def names_any(name: str, names: list[str]) -> bool:
    """Whether `name` names any of `names` (see `own_match`)."""
    return any(own_match(name, n) for n in names)


_NAME_SEP = re.compile(r"(?<!\d)\.|\.(?!\d)|[^\w.+]+")


_PAREN = re.compile(r"\([^)]*\)")
_OURS = re.compile(r"\bours\b", re.I)


@lru_cache(maxsize=65536)
def _tokens(name: str) -> str:
    name = _PAREN.sub(" ", name)  # "(blog)", "(ours)" are not part of the name
    return " " + " ".join(_NAME_SEP.sub(" ", name.casefold()).split()) + " "


# Cached: a results table repeats each model header and the report's model name in every cell,
# and the table rebuild (serial, in the driver) asks this for every cell of every report.
@lru_cache(maxsize=65536)
def own_match(header: str, own: str) -> bool:
    """True when a table's model header names the report's model: the name's words appear in the
    header in order at word boundaries ("DeepSeek-R1-Zero" names DeepSeek-R1, "DeepSeek-V2.5" does
    not name DeepSeek-V2; a version dot between digits is part of a word)."""
    o = _tokens(own).strip()
    if not o:
        return False
    h = _tokens(header)
    return f" {o} " in h or h.strip().startswith(o + " ") or h.strip() == o or f" {o} " in h.replace(" ", "  ")


_PARENS = re.compile(r"\(([^()\n]{1,40})\)")
_NAMEISH = re.compile(r"[A-Z0-9]")


def defined_names(texts: list[str], model_headers: set[str]) -> tuple[tuple[str, str], ...]:
    """Short names the report defines for models its tables use: "Full Name (Short)" in the text,
    Short a model header of a table, Full Name the name-like words just before the parenthesis
    (at most four, each with a capital or a digit). Which of them are the report's own is decided
    later, against the report's `model:` (see `own_names`). One pass over each page: a set lookup
    per parenthesis, the words before it read only for the few that name a header."""
    wanted = {norm(h): h for h in model_headers if h}
    out: dict[tuple[str, str], None] = {}
    for text in texts:
        if "(" not in text:
            continue
        for m in _PARENS.finditer(text):
            short = wanted.get(norm(m.group(1)))
            if short is None:
                continue
            words = text[max(0, m.start() - 120) : m.start()].split()[-4:]
            while words and not _NAMEISH.search(words[0]):
                words.pop(0)
            if words and norm(" ".join(words)) != norm(short):
                out[(" ".join(words), short)] = None
    return tuple(list(out)[:200])


def own_names(spec_model: str, aliases: list[str], defined: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The names a report's own models go by: `model:`, `aliases:`, and the short names the report
    defines for a full name that names its model ("Lens Reasoner 7B (LR-7B)")."""
    names = [n for n in [spec_model, *aliases] if n]
    for full, short in defined:
        words = full.split()
        if any(own_match(" ".join(words[-k:]), n) for k in range(1, len(words) + 1) for n in names[: 1 + len(aliases)]):
            names.append(short)
    return list(dict.fromkeys(names))


def is_own(model: str, spec_model: str, aliases: list[str]) -> bool:
    """Own-model flag: the header names the report's model or an alias, or marks itself "(ours)"."""
    if model == REPORT_MODEL or _OURS.search(model):
        return True
    return any(own_match(model, n) for n in [spec_model, *aliases] if n)
