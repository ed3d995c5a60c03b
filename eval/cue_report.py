"""Cue report (issue 22): for every cue of the lens, where it fires and what removing it changes.

Run through `eval/annotate_eval.py --cues`. For each regular expression of the lens (category cues,
context / negation, the phrases read around a method name, `introduces` / `references`, `not_after`,
`use_requires` / `mention_if`, level require / exclude, every indicator cue, the sentence roles, the
"no stage" tests, and the heading rules: `skip_headings`, `background_headings`, `summary_headings`)
it prints on how many of the labelled documents and of all corpus documents it matches where it is
applied: a body or appendix sentence, a heading rule a sentence's heading (or chapter), and a window
cue (`used_before`, `contrast_after`, … `not_after`) the words beside a method name in its clause,
the window the annotator reads it on (an anchored "^…" or "…$" cue never matches a whole sentence).
The ablation: the change of each dev figure when the cue alone is replaced by one that never
matches. A cue whose removal changes a dev figure but which fires on only one labelled document is
**fitted** (it exists for one sentence); the target is none. A method's own name (a cue of an
`algorithm` category) is exempt: a method known in the field may be used by one document only.

Why "fires on a sentence" and not "decides a cell": a cue that matches no sentence of a document
cannot change that document's cells, so only documents where it fires are re-annotated, which
keeps the ablation of some two hundred cues to a minute.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import Sentence, sentences
from ingest.analysis.lens import Lens
from ingest.common.records import Annotation
from ingest.reading.extract import extract_file
from ingest.reading.sections import split_sections

#: Keys of a dimension / category / indicator that hold lists of regular expressions.
CUE_KEYS = (
    "cues",
    "context",
    "negation",
    "used_before",
    "used_after",
    "contrast_before",
    "contrast_after",
    "mention_before",
    "not_after",
    "introduces",
    "references",
    "require",
    "exclude",
    "summary_headings",
    "use_requires",
    "mention_if",
)
#: Lens-level keys that hold lists of regular expressions (heading rules that apply to every dimension).
LENS_KEYS = ("skip_headings", "background_headings")
#: Lens-level blocks whose keys hold lists of regular expressions: the sentence roles (a list of rules)
#: and the "no stage" tests.
LENS_BLOCKS = {"sentence_roles": ("headings", "text", "unless"), "no_stage": ("stage", "stage_headings", "negated", "evidence")}
#: Keys read on the words beside a method name (left of it / right of it / just after it).
WINDOW_KEYS = {"used_before": "left", "contrast_before": "left", "mention_before": "left",
               "used_after": "right", "contrast_after": "right", "not_after": "tail"}  # fmt: skip
#: Dev figures the ablation watches (keys of annotate_eval.score's metrics).
FIGURES = ("alg_exact", "rs_f1", "gran_acc", "disclosure_exact", "rl_disclosure_exact")
NEVER = "(?!)"  # a regular expression that matches nothing
#: The pattern text of an amount-of-text indicator's rule ("at least N sentences on the topic").
AMOUNT = "sentences on the topic >= "


@dataclass(frozen=True)
class Cue:
    """One regular expression of the lens and where it sits (a path into the lens' JSON form)."""

    path: tuple[str | int, ...]
    pattern: str
    method_name: bool = False

    @property
    def where(self) -> str:
        """A readable location, e.g. "reward_source/rule-based/verifiable.cues[2]"."""
        return ".".join(str(p) for p in self.path)


@dataclass(frozen=True)
class CueRow:
    """The report line of one cue."""

    cue: Cue
    labelled: int
    corpus: int
    delta: dict[str, float]

    @property
    def pattern_short(self) -> str:
        p = self.cue.pattern
        return p if len(p) <= 70 else p[:67] + "..."

    @property
    def fitted(self) -> bool:
        return self.labelled <= 1 and any(abs(v) > 1e-9 for v in self.delta.values()) and not self.method_name

    @property
    def method_name(self) -> bool:
        """A cue of an algorithm category: a method's name, which one document alone may use."""
        return self.cue.method_name


def lens_cues(lens: Lens) -> Iterator[Cue]:
    """Every regular expression of the lens with its path (dimension id, then keys and indices)."""
    data = lens.model_dump()
    for key in LENS_KEYS:
        for j, p in enumerate(data.get(key) or ()):
            yield Cue((key, j), p)
    for block, keys in LENS_BLOCKS.items():
        node = data.get(block)
        for ri, rule in enumerate(node if isinstance(node, list) else [node] if node else []):
            base: tuple[str | int, ...] = (block, ri) if isinstance(node, list) else (block,)
            for key in keys:
                for j, p in enumerate(rule.get(key) or ()):
                    yield Cue((*base, key, j), p)
    for di, dim in enumerate(data["dimensions"]):
        for cue in _walk(dim, ("dimensions", di), dim["id"]):
            name = dim["kind"] == "algorithm" and "categories" in cue.path and cue.path[-2] == "cues"
            yield Cue(cue.path, cue.pattern, name)


def _walk(node: dict, path: tuple[str | int, ...], label: str) -> Iterator[Cue]:
    for key in CUE_KEYS:
        for j, p in enumerate(node.get(key) or ()):
            if isinstance(p, str):
                yield Cue((*path, key, j), p)
    for key in ("categories", "indicators"):
        for ci, sub in enumerate(node.get(key) or ()):
            yield from _walk(sub, (*path, key, ci), f"{label}/{sub['name']}")
    for gi, group in enumerate(node.get("all_of") or ()):
        for j, p in enumerate(group):
            if p != NEVER:  # the placeholder of an indicator decided by another rule is no cue
                yield Cue((*path, "all_of", gi, j), p)
    if node.get("amount"):  # an amount-of-text indicator: a rule, counted where the indicator fires
        yield Cue((*path, "amount"), f"{AMOUNT}{node['amount']}")
    rule = node.get("under_heading")
    if isinstance(rule, dict):  # an indicator's heading rule: its heading patterns and cue groups
        for j, p in enumerate(rule.get("heading") or ()):
            yield Cue((*path, "under_heading", "heading", j), p)
        for gi, group in enumerate(rule.get("all_of") or ()):
            for j, p in enumerate(group):
                yield Cue((*path, "under_heading", "all_of", gi, j), p)


def readable(lens: Lens, cue: Cue) -> str:
    """The cue's location with names instead of indices ("reward_source/reward-model.cues[0]")."""
    node: object = lens.model_dump()
    parts: list[str] = []
    for p in cue.path:
        node = node[p]  # type: ignore[index]
        if isinstance(p, int) and isinstance(node, dict) and ("name" in node or "id" in node):
            parts.append(str(node.get("id") or node.get("name")))
        elif isinstance(p, int):
            parts[-1] = f"{parts[-1]}[{p}]"
        elif p not in ("dimensions", "categories", "indicators"):
            parts.append(p)
    return "/".join(parts)


def without(lens: Lens, cue: Cue) -> Lens:
    """The lens with `cue` replaced by a pattern that never matches."""
    data = lens.model_dump()
    node: object = data
    for p in cue.path[:-1]:
        node = node[p]  # type: ignore[index]
    named = "introduces" in cue.path or "references" in cue.path
    if cue.path[-1] == "amount":  # an amount no document reaches
        node["amount"] = 10**9  # type: ignore[index]
        return Lens.model_validate(data)
    node[cue.path[-1]] = "(?P<name>(?!))" if named else NEVER  # type: ignore[index]
    return Lens.model_validate(data)


#: Keys whose patterns are read against a sentence's heading (`use_requires` against both).
HEADING_KEYS = {"skip_headings", "background_headings", "summary_headings", "heading", "headings", "stage_headings"}


_WINDOWS: dict[tuple[int, str], dict[str, list[str]]] = {}


def windows(sents: list[Sentence], lens: Lens) -> dict[str, list[str]]:
    """The words beside every method name the algorithm dimensions' cues find, as the annotator reads
    them: "left" (its clause before the name), "right" (after it) and "tail" (the 30 characters after it).
    Computed once per document and lens."""
    from ingest.analysis.annotate_algorithms import _clause_left, _clause_right

    key = (id(sents), lens.fingerprint)
    if key in _WINDOWS:
        return _WINDOWS[key]
    out: dict[str, list[str]] = _WINDOWS.setdefault(key, {"left": [], "right": [], "tail": []})
    rxs = [re.compile(c, re.I) for d in lens.dimensions if d.kind == "algorithm" for cat in d.categories for c in cat.cues]
    for s in sents:
        for rx in rxs:
            for m in rx.finditer(s.text):
                out["left"].append(_clause_left(s.text, m.start()))
                out["right"].append(_clause_right(s.text, m.start(), m.end()))
                out["tail"].append(s.text[m.end() : m.end() + 30])
    return out


def fires(pattern: str, sents: list[Sentence], where: str = "text", lens: Lens | None = None) -> bool:
    """Whether the pattern matches a sentence's text ("text"), its heading or chapter ("heading"), either
    ("both"), or a window beside a method name ("left", "right", "tail"; needs the `lens`)."""
    rx = re.compile(pattern, re.I)
    if where in ("left", "right", "tail"):
        return lens is not None and any(rx.search(w) for w in windows(sents, lens)[where])
    return any(
        (where != "heading" and rx.search(s.text))
        or (where != "text" and any(h and rx.search(h) for h in (s.heading, s.chapter)))
        for s in sents
    )


def reads(cue: Cue) -> str:
    """What a cue is matched against: headings for heading rules, both for `use_requires`, the window
    beside a method name for the window keys, else text."""
    keys = {p for p in cue.path if isinstance(p, str)}
    window = next((WINDOW_KEYS[k] for k in keys if k in WINDOW_KEYS), None)
    return window or ("heading" if keys & HEADING_KEYS else ("both" if "use_requires" in keys else "text"))


def corpus_sentences(corpus: Path, skip: set[str]) -> dict[str, list[Sentence]]:
    """Evidence sentences of every corpus document not already in `skip` (file names)."""
    out = {}
    for f in sorted([*corpus.glob("pdf/*.pdf"), *corpus.glob("blog/*.md")]):
        rel = str(f.relative_to(corpus))
        if rel in skip:
            continue
        try:
            out[rel] = sentences(split_sections(extract_file(f)))
        except Exception as exc:  # one unreadable file never stops the report
            print(f"  (skipped {rel}: {exc})")
    return out


Scorer = Callable[[dict[str, Annotation]], dict[str, float]]


def cue_report(
    lens: Lens,
    docs: list,
    res: dict[str, Annotation],
    extra: dict[str, list[Sentence]],
    scorer: Scorer,
    annotate_doc: Callable[[Any, Lens], Annotation] | None = None,
) -> list[CueRow]:
    """One row per cue: labelled / corpus documents it fires on and the ablation deltas. `annotate_doc`
    re-annotates one document with the ablated lens as `res` was made (the eval resolves methods named by
    reference against the other documents; re-annotating without that would charge every cue firing in
    such a document with the lost resolution)."""
    redo = annotate_doc or (lambda d, lx: annotate(d.sents, lx))
    base = scorer(res)
    rows = []
    extra_ann: dict[str, Annotation] = {}
    for cue in lens_cues(lens):
        where = reads(cue)
        if cue.path[-1] == "amount":  # fires where the indicator fires (annotated once per corpus document)
            if not extra_ann:
                extra_ann.update({k: annotate(v, lens) for k, v in extra.items()})
            dim, ind = lens.dimensions[cue.path[1]].id, lens.dimensions[cue.path[1]].indicators[cue.path[3]].name  # type: ignore[index]
            hit_docs = [d for d in docs if ind in (res[d.id].cells[dim].indicators or ())]
            n_extra = sum(ind in (a.cells[dim].indicators or ()) for a in extra_ann.values())
        else:
            hit_docs = [d for d in docs if fires(cue.pattern, d.sents, where, lens)]
            n_extra = sum(fires(cue.pattern, s, where, lens) for s in extra.values())
        delta = dict.fromkeys(FIGURES, 0.0)
        if hit_docs:
            ablated = without(lens, cue)
            changed = dict(res)
            for d in hit_docs:
                changed[d.id] = redo(d, ablated)
            now = scorer(changed)
            delta = {k: now[k] - base[k] for k in FIGURES}
        rows.append(CueRow(cue, len(hit_docs), len(hit_docs) + n_extra, delta))
    return rows


def format_rows(lens: Lens, rows: list[CueRow], n_labelled: int, n_corpus: int) -> list[str]:
    out = [f"cue report: {len(rows)} cues; fires on labelled (of {n_labelled}) / corpus (of {n_corpus}) documents; "
           "ablation = change of each dev figure when the cue is removed"]  # fmt: skip
    out.append(f"  {'labelled':>8} {'corpus':>6}  {'  '.join(f'{k:>9}' for k in FIGURES)}  cue")
    for r in rows:
        d = "  ".join(f"{r.delta[k]:+9.3f}" if r.delta[k] else f"{'.':>9}" for k in FIGURES)
        mark = "  FITTED" if r.fitted else ""
        out.append(f"  {r.labelled:>8} {r.corpus:>6}  {d}  {readable(lens, r.cue)}: {r.pattern_short}{mark}")
    fitted = [r for r in rows if r.fitted]
    never = [r for r in rows if r.corpus == 0]
    out.append(f"fitted cues (removal changes a dev figure, fires on <= 1 labelled document): {len(fitted)}")
    out += [f"  {readable(lens, r.cue)}: {r.cue.pattern}" for r in fitted]
    out.append(f"cues that fire on no corpus document: {len(never)}")
    return out
