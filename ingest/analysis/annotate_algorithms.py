"""The algorithm dimension of `ingest.analysis.annotate`: every method a report names, read as used,
contrasted or mentioned from the words around the name in its clause (see that module's docstring)."""

from __future__ import annotations

import re

from ingest.analysis.annotate_common import (
    NO_CONTEXT,
    Hit,
    _cell,
    _Compiled,
    _compiled,
    _evidence_rows,
    _rank,
    _scored,
    _Similarity,
)
from ingest.analysis.confidence import DocContext, Model, Support, load_model
from ingest.analysis.cues import Folded, cues_match, fold, gate_may, rx_hit
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import NOT_DISCLOSED, Dimension, Lens
from ingest.common.records import Cell, EvidenceRow

#: Characters left/right of a method name searched for use/contrast phrases (within its clause).
WINDOW = 90


#: A citation inside a clause ("[Sheng et al., 2025]", "(Shao et al., 2024)"): its commas do not end the clause.
CITATION = re.compile(r"\[[^\[\]]{0,80}\]|\([^()]{0,80}\b(?:19|20)\d\d[a-z]?\)")


def _clause_left(text: str, start: int) -> str:
    """The words before a name within its clause; citations are dropped first, so that the commas of
    "we train with a toolkit [Lee et al., 2023] and NAME" do not cut the clause."""
    left = CITATION.sub("", text[max(0, start - WINDOW - 40) : start])[-WINDOW:]
    cut = max(left.rfind(","), left.rfind(";"), left.rfind(":"))
    return left[cut + 1 :] if cut >= 0 else left


#: A run-in label: the name opens the sentence (after a bullet or number) and a colon or a capitalised
#: word follows ("NAME: in the actor loss, we …", "NAME When sampling …, we …").
_LABEL_LEFT = re.compile(r"^[\W\d]{0,6}$")
_LABEL_RIGHT = re.compile(r"^\s*(\([^()]{0,60}\)\s*)?(:|\s(?-i:[A-Z]))")


def _clause_right(text: str, start: int, end: int) -> str:
    """The words after a name within its clause. After a run-in label the clause is the rest of the
    sentence: the paragraph the label titles says what the authors do with the method."""
    rest = text[end:]
    if _LABEL_LEFT.match(text[:start]) and _LABEL_RIGHT.match(rest):
        return CITATION.sub("", rest[: WINDOW + 130])
    right = re.sub(r"^\s*[(\[][^)\]]*[)\]]", "", rest[:WINDOW])  # "(Shao et al., 2024)"
    m = re.search(r"[,;]", right)
    return right[: m.start()] if m else right


def introduced_methods(
    sents: list[Sentence], comp: _Compiled, low: Folded | None = None, references: bool = False
) -> dict[str, re.Pattern[str]]:
    """Methods the report names itself that no category knows: name -> a whole-word, case-sensitive cue.

    A name is taken from the dimension's `introduces` patterns (e.g. an acronym defined next to
    "policy optimization"); one that a category's cues already match maps onto that category. With
    `references`, the names of other reports a method is named by (`references:`, "the same algorithm
    as in K1.5") instead.
    """
    out: dict[str, re.Pattern[str]] = {}
    patterns = comp.references if references else comp.introduces
    if not patterns:
        return out
    low = Folded() if low is None else low
    for s in sents:
        for gate, rx in patterns:
            if not gate_may(gate, low[s.text]):
                continue
            for m in rx.finditer(s.text):
                name = " ".join(m.group("name").split()).strip(" .,;:")
                if len(name) < 2 or name in out or comp.cats.search(name, fold(name)):
                    continue
                out[name] = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w]|\+)")
    return out


def algorithm_roles(
    sents: list[Sentence],
    dim: Dimension,
    comp: _Compiled,
    extra: dict[str, re.Pattern[str]] | None = None,
    low: Folded | None = None,
) -> dict[str, list[Hit]]:
    """Every sentence naming a method, with its role: use, contrast or plain mention.

    `extra` adds methods the report introduces itself (see `introduced_methods`), each with one cue.
    """
    extra = extra or {}
    names = [*comp.names, *(n for n in extra if n not in comp.names)]
    own = [(n, fold(n), rx) for n, rx in extra.items()]  # (a name equal to a category's replaces its cues)
    low = Folded() if low is None else low
    out: dict[str, list[Hit]] = {name: [] for name in names}
    seen: dict[tuple[str, str], list[tuple[str, list[str], str]]] = {}  # a repeated sentence is read once
    for s in sents:
        t, key = s.text, (s.text, s.heading or "")
        if key not in seen:
            seen[key] = _roles_of(t, low[t], comp, names, own, key[1])
        for name, cues, role in seen[key]:
            out[name].append(Hit(s, cues, role))
    return out


def _roles_of(
    t: str,
    low: str,
    comp: _Compiled,
    names: list[str],
    own: list[tuple[str, str, re.Pattern[str]]],
    heading: str = "",
) -> list[tuple[str, list[str], str]]:
    """(method, cues matched, role) for every method one sentence's text `t` names (`low` = `fold(t)`);
    only the cues whose plain strings the sentence contains are searched. `heading` is the sentence's
    section heading: a method's `use_requires` may be met by it (rejection sampling described under
    a supervised fine-tuning heading is a stage of that fine-tuning)."""
    by_name: dict[str, list[re.Pattern[str]]] = {}
    replaced = {n for n, _, _ in own}
    rxs, cat_of = comp.cats.rxs, comp.cat_of
    for i in comp.cats.candidates(low):
        if cat_of[i] not in replaced:
            by_name.setdefault(cat_of[i], []).append(rxs[i])
    for n, needle, rx in own:
        if needle in low:
            by_name[n] = [rx]
    if not by_name:
        return []
    negated: bool | None = None  # searched once a name is found
    found = []
    for name in names:
        if name not in by_name:
            continue
        roles, cues = [], set()
        # codebook: a use needs the sentence to say the method trains the model (`use_requires`), and a
        # method that only checks data (`mention_if`) is mentioned
        needs = comp.use_requires.get(name)
        can_use = not rx_hit(comp.mention_if.get(name), t) and (needs is None or rx_hit(needs, t) or rx_hit(needs, heading))
        for r in by_name[name]:
            for m in r.finditer(t):
                if rx_hit(comp.not_after, t[m.end() : m.end() + 30]):
                    continue  # a data set or other thing named after the method
                cues.add(m.group(0).lower())
                if negated is None:
                    negated = cues_match(comp.negation, t, low)
                left, right = _clause_left(t, m.start()), _clause_right(t, m.start(), m.end())
                if negated or rx_hit(comp.contrast_before, left) or rx_hit(comp.contrast_after, right):
                    roles.append("contrast")
                elif rx_hit(comp.mention_before, left) or not can_use:
                    roles.append("mention")
                elif rx_hit(comp.used_before, left) or rx_hit(comp.used_after, right):
                    roles.append("use")
                else:
                    roles.append("mention")
        if roles:
            role = "use" if "use" in roles else ("contrast" if "contrast" in roles else "mention")
            found.append((name, sorted(cues), role))
    return found


def generic_uses(roles: dict[str, list[Hit]], comp: _Compiled, skip: set[int] = frozenset()) -> None:
    """Keep, for each `generic` category, only the sentences that describe the report's own training
    with an unnamed algorithm, all as uses; drop the rest (an unnamed method is never "mentioned").

    Dropped: a sentence naming a method (the description is of that method), one under a heading
    where a named method is used (the same stage), one under a skipped heading, one matching the
    category's `exclude` (future work, baselines), one read as a contrast; and, when the report uses
    a named method anywhere, one in a summary section (`summary_headings`, or before the first
    heading): an abstract's "we adopt a simple RL algorithm" restates the method named later.
    """
    if not comp.generic:
        return
    named = [hits for n, hits in roles.items() if n not in comp.generic]
    naming = {h.sentence.index for hits in named for h in hits}
    stages = {h.sentence.heading for hits in named for h in hits if h.role == "use" and h.sentence.heading}
    names_a_method = any(h.role == "use" for hits in named for h in hits)
    for name in comp.generic:
        ex, summary = comp.exclude.get(name), comp.summary.get(name)
        roles[name] = [
            Hit(h.sentence, h.cues, "use")
            for h in roles.get(name, [])
            if h.role != "contrast"
            and h.sentence.index not in naming
            and h.sentence.index not in skip
            and h.sentence.heading not in stages
            and not (names_a_method and (not h.sentence.heading or rx_hit(summary, h.sentence.heading)))
            and not rx_hit(ex, h.sentence.text)
        ]


def _where(h: Hit) -> tuple[int, int]:
    """Where a hit's name first stands: its sentence, then its place in the sentence."""
    low = h.sentence.text.lower()
    return h.sentence.index, min((low.find(c) for c in h.cues if c in low), default=0)


def decide_algorithms(roles: dict[str, list[Hit]]) -> tuple[list[str], list[str]]:
    """(used, mentioned-only) method names: used = at least one use and no more contrasts than uses."""
    used, mentioned = [], []
    for name, hits in roles.items():
        if not hits:
            continue
        n_use = sum(h.role == "use" for h in hits)
        n_con = sum(h.role == "contrast" for h in hits)
        (used if n_use >= 1 and n_use >= n_con else mentioned).append(name)
    first = {n: min((_where(h) for h in roles[n] if h.role == "use"), default=(0, 0)) for n in used}
    order = {n: (-sum(h.role == "use" for h in roles[n]), first[n]) for n in used}
    return sorted(used, key=lambda n: order[n]), mentioned


def _algorithm(
    dim: Dimension,
    sents: list[Sentence],
    sim: _Similarity | None,
    lens: Lens,
    skip: set[int] = frozenset(),
    low: Folded | None = None,
    ctx: DocContext = NO_CONTEXT,
    model: Model | None = None,
) -> tuple[Cell, Cell, list[EvidenceRow]]:
    model = model or load_model()
    bg = ctx.background
    comp = _compiled(lens, dim)
    low = Folded() if low is None else low
    refs = introduced_methods(sents, comp, low, references=True)
    roles = algorithm_roles(sents, dim, comp, {**introduced_methods(sents, comp, low), **refs}, low)
    # codebook: a method named by reference is "as in NAME" until that report's method is looked up
    roles = {comp.reference_value.format(name=n) if n in refs and n not in comp.names else n: h for n, h in roles.items()}
    for hits in roles.values():  # under a skipped heading a name is at most mentioned
        for h in hits:
            if h.sentence.index in skip and h.role == "use":
                h.role = "mention"
    generic_uses(roles, comp, skip)
    used, mentioned = decide_algorithms(roles)
    # codebook "the main one is listed first": RL algorithms before auxiliary methods (rejection sampling,
    # search), named before unnamed; `decide_algorithms` ordered by uses, then by first use in the text
    # a method the summary sections (abstract, introduction, conclusion) say the authors use is their core
    # method; one used only in a method section may be a side stage (a distillation, a variant)
    core = {n for n in used if any(h.role == "use" and h.sentence.index in bg for h in roles[n])}
    used = sorted(used, key=lambda n: (n in comp.auxiliary, n in comp.generic, n not in core))  # the cell quotes the first
    ranked = {}
    for name, hits in roles.items():
        if hits:
            rk = _rank(hits, sim, (dim.id, name), bg)
            # Quotes for a used method come from sentences that use it, then the rest.
            ranked[name] = sorted(rk, key=lambda h: h.role != "use") if name in used else rk
    tally = {n: {r: sum(h.role == r for h in hits) for r in ("use", "contrast", "mention")} for n, hits in roles.items() if hits}
    uses = [h for n in used for h in roles[n] if h.role == "use"]
    main = tally[used[0]] if used else {}
    sup = Support(
        "algorithm",
        default=not used,
        sentences=tuple(h.sentence for h in uses),
        definition=any(h.sentence.index not in bg for h in uses),  # a use stated in a method section
        n_values=len(used),
        competition=main.get("contrast", 0) / max(1, main.get("use", 0) + main.get("contrast", 0)),
    )
    cell = _cell(used or [NOT_DISCLOSED], None, ranked[used[0]][0] if used else None, roles=tally)
    ment = [h for n in mentioned for h in roles[n]]
    msup = Support(
        "mentioned",
        default=not mentioned,
        sentences=tuple(h.sentence for h in ment),
        definition=any(h.role == "contrast" for h in ment),  # compared with: clearly not the own method
        n_values=len(mentioned),
    )
    if mentioned:
        m = max(mentioned, key=lambda n: len(roles[n]))
        mcell = _cell(mentioned, None, ranked[m][0], roles={n: tally[n] for n in mentioned})
    else:
        mcell = _cell([NOT_DISCLOSED], None, None)
    return _scored(cell, sup, ctx, model), _scored(mcell, msup, ctx, model), _evidence_rows(dim.id, ranked)
