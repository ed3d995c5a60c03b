"""`python -m ingest check`: every problem of a report file in one run, values checked against the data files.

Loading a report stops at its first failing stage (YAML, schema, id, source), so a writer used to
fix one error per run. Here each stage looks at the raw mapping on its own: schema errors (bad
values, unknown keys), the local source (confined to the allowed roots, then present), the
`reported.counts` terms against the lexicon, and the `curated:` dimensions and values against the
lenses' vocabularies. A value no category names is an error, except in an algorithm dimension,
where a method the report introduces itself is a legitimate new name (a warning then).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ingest.analysis.lens import LENS_DIR, load_lens
from ingest.analysis.lexicon import DEFAULT_LEXICON, load_lexicon
from ingest.sources import confine
from ingest.sources.registry import SpecFileError, load_report, parse_yaml, read_file
from ingest.sources.urls import UrlError, check_scheme, file_url_path

Severity = Literal["error", "warning"]
FREE_KINDS = ("algorithm", "mentioned")  # dimensions whose values may name a method the report introduces


@dataclass(frozen=True)
class Finding:
    """One problem of one file; `field` is the dotted key (empty for the whole file)."""

    file: str
    field: str
    message: str
    hint: str = ""
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message}" + (f" (hint: {self.hint})" if self.hint else "")


@dataclass(frozen=True)
class Vocabulary:
    """What the data files allow: lexicon term names, and per lens dimension its values and kind."""

    terms: frozenset[str]
    values: Mapping[str, frozenset[str]] = field(default_factory=dict)  # dimension id -> normalised values
    shown: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # dimension id -> values as written
    free: frozenset[str] = frozenset()  # dimension ids of kind algorithm/mentioned


def _norm(v: str) -> str:
    return " ".join(v.lower().split())


def load_vocabulary(lexicon_path: Path = DEFAULT_LEXICON, lens_dir: Path = LENS_DIR) -> Vocabulary:
    """Term names of every lexicon group and the values of every dimension of every lens in `lens_dir`
    (a dimension id several lenses share takes the union)."""
    lex = load_lexicon(lexicon_path)
    terms = frozenset(t.name for g in lex.groups for t in g.terms)
    values: dict[str, set[str]] = {}
    shown: dict[str, list[str]] = {}
    free: set[str] = set()
    for f in sorted(Path(lens_dir).glob("*.yaml")):
        lens = load_lens(f)
        for d in lens.dimensions:
            allowed = lens.allowed_values(d.id)
            values.setdefault(d.id, set()).update(_norm(v) for v in allowed)
            shown.setdefault(d.id, []).extend(v for v in allowed if v not in shown[d.id])
            if d.kind in FREE_KINDS:
                free.add(d.id)
    return Vocabulary(
        terms,
        {k: frozenset(v) for k, v in values.items()},
        {k: tuple(v) for k, v in shown.items()},
        frozenset(free),
    )


def check_file(path: Path, roots: tuple[Path, ...], vocab: Vocabulary) -> list[Finding]:
    """Every problem of one report file (empty when it is fine)."""
    name = str(path)
    out: list[Finding] = []
    try:
        load_report(path)
    except SpecFileError as exc:
        out += [Finding(e.file, e.field, e.message, e.hint) for e in exc.errors]
    raw = _raw(path)
    if raw is None:  # unreadable or not a mapping: the load above said why
        return out
    out += source_findings(raw.get("source"), path, roots)
    reported = raw.get("reported")
    if isinstance(reported, Mapping):
        out += count_findings(name, reported.get("counts"), vocab)
    out += curated_findings(name, raw.get("curated"), vocab)
    return list(dict.fromkeys(out))


def _raw(path: Path) -> Mapping | None:
    try:
        data = parse_yaml(read_file(path), str(path))
    except SpecFileError:
        return None
    return data if isinstance(data, Mapping) else None


def source_findings(src: object, yaml_path: Path, roots: tuple[Path, ...]) -> list[Finding]:
    """A local source outside the roots, missing or not a file. The root check comes first, so a
    path outside them gets the same words whether or not it exists (no existence oracle)."""
    if not isinstance(src, Mapping):
        return []
    rel, url = src.get("path"), src.get("url")
    name = str(yaml_path)
    found: list[tuple[str, Path, Path]] = []
    try:
        if isinstance(rel, str) and rel.strip():
            found.append(("source.path", *confine.confine(rel.strip(), Path(yaml_path).parent, roots)))
        if isinstance(url, str) and url.strip() and check_scheme(url.strip()) == "file":
            found.append(("source.url", *confine.confine(file_url_path(url.strip()), Path("/"), roots, what="file URL")))
    except (confine.OutsideRoots, UrlError) as exc:
        return [Finding(name, "", str(exc))]
    out = []
    for what, p, root in found:
        if not p.is_file():
            state = "is not a file" if p.exists() else "does not exist"
            out.append(Finding(name, what, f"{confine.shown(p, root)} {state}", "check the path, relative to the YAML file"))
    return out


def _near(word: str, choices: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean {near[0]!r}?" if near else ""


def count_findings(name: str, counts: object, vocab: Vocabulary) -> list[Finding]:
    """`reported.counts` keys that are no term of the lexicon (a typo would never be compared)."""
    if not isinstance(counts, Mapping):
        return []
    out = []
    for term in counts:
        if str(term) not in vocab.terms:
            hint = _near(str(term), vocab.terms) or "term names are in data/lexicon.yaml"
            out.append(Finding(name, f"reported.counts.{term}", "not a term of the lexicon", hint))
    return out


def curated_findings(name: str, curated: object, vocab: Vocabulary) -> list[Finding]:
    """`curated:` dimensions no lens has, and values outside their dimension's vocabulary."""
    if not isinstance(curated, Mapping):
        return []
    out = []
    for dim, cell in curated.items():
        dim = str(dim)
        if dim not in vocab.values:
            hint = _near(dim, vocab.values) or f"one of: {', '.join(sorted(vocab.values))}"
            if not any(f.field == f"curated.{dim}" for f in out):
                out.append(Finding(name, f"curated.{dim}", "unknown dimension", hint))
            continue
        value = cell.get("value") if isinstance(cell, Mapping) else None
        for v in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if not isinstance(v, str) or _norm(v) in vocab.values[dim]:
                continue
            free = dim in vocab.free
            hint = _near(v, vocab.shown[dim]) or f"one of: {', '.join(vocab.shown[dim])}"
            if free:
                hint = f"fine for a method the report introduces itself; else {hint}"
            msg = f"{v!r} is not a value of this dimension in the lens"
            out.append(Finding(name, f"curated.{dim}.value", msg, hint, "warning" if free else "error"))
    return out
