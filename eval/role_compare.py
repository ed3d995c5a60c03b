"""Rules vs a learned model for the "used or mentioned only" decision of each method a report names
(issue 33, item 3), side by side, leave-one-document-out.

    .venv/bin/python eval/role_compare.py

The rules are the lens's (sentence roles, the words around a name, `decide_algorithms`): a method is used
when its sentences hold at least one use and no more contrasts than uses. The learned model is a
scikit-learn logistic regression that decides the same thing from the same evidence, read as plain facts
about each method a report names: how many of its sentences the rules read as a use, a contrast or a
mention, the share of its quoted sentences in summary sections (abstract, introduction, conclusion), in
the appendix and under a heading that names RL, and the sentence roles of those sentences (own training,
preliminaries, cited work, caption, contrast, future work …). It never sees the rules' verdict. For each
labelled document it is fitted on the methods of every other document (label: the method is in the gold
`rl_algorithms_used`), then decides that document's methods.

Printed per split (all, older, newest): the used-algorithm micro-F1 and exact sets of each, over the same
gold sets as eval/annotate_eval.py (a gold item no lens name maps counts as a miss for both). The one that
does better on the newest documents is the one the pipeline keeps; the last line says which.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from annotate_eval import Doc, annotate_all, compare, load_docs, prf, splits_of  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.cues import alternation, rx_hit  # noqa: E402
from ingest.analysis.evidence import Sentence  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, NOT_DISCLOSED, Lens, load_lens  # noqa: E402
from ingest.analysis.roles import OWN, role_of  # noqa: E402
from ingest.common.records import Annotation  # noqa: E402

#: Sentence roles of the lens, in order, plus the authors' own work: one feature each (share of quotes).
RL_HEADING = r"reinforcement learning|\bRL\b|\bRLHF\b|policy optimi[sz]ation|preference optimi[sz]ation|强化学习"
C = 0.5  # inverse L2 strength, as the confidence model's


@dataclass(frozen=True)
class Candidate:
    """One method a report names: its evidence facts, whether the rules use it, whether the gold does."""

    doc: str
    name: str
    x: tuple[float, ...]
    rules_used: bool  # the pipeline's cell lists it (the rules' verdict; not a feature)
    gold_used: bool


def _sentence(doc: Doc, quote: str, page: int | None) -> Sentence | None:
    return next((s for s in doc.sents if s.text == quote and s.page == page), None)


def candidates(docs: list[Doc], res: dict[str, Annotation], lens: Lens, gold: dict[str, set[str]]) -> list[Candidate]:
    """Every method name the algorithm cell read in each document, with its features."""
    roles = [OWN, *dict.fromkeys(r.role for r in lens.sentence_roles)]
    summary, rl_head = alternation(lens.background_headings), alternation([RL_HEADING])
    ref_prefix = lens.dimension("rl_algorithm").reference_value.split("{name}")[0]
    out = []
    for d in docs:
        cell = res[d.id].cells["rl_algorithm"]
        rows = [e for e in res[d.id].evidence if e.dimension == "rl_algorithm"]
        for name, tally in (cell.roles or {}).items():
            sents = [s for e in rows if e.category == name and (s := _sentence(d, e.quote, e.page)) is not None]
            n = max(1, len(sents))
            use, con, men = (tally.get(k, 0) for k in ("use", "contrast", "mention"))
            facts = [
                math.log1p(use),
                math.log1p(con),
                math.log1p(men),
                use / max(1, use + con + men),
                sum(not s.heading or rx_hit(summary, s.heading) for s in sents) / n,
                sum(s.section == "appendix" for s in sents) / n,
                sum(rx_hit(rl_head, s.heading) or rx_hit(rl_head, s.chapter) for s in sents) / n,
                *(sum(role_of(s, lens) == r for s in sents) / n for r in roles),
            ]
            # a method named by reference ("as in NAME") stands for the method the eval resolved it to
            resolved = [v for v in cell.value if v not in (cell.roles or {}) and v != NOT_DISCLOSED]
            if name not in cell.value and name.startswith(ref_prefix) and resolved:
                name = resolved[0]
            out.append(Candidate(d.id, name, tuple(facts), name in cell.value, name in gold[d.id]))
    return out


def learned_loo(cands: list[Candidate]) -> dict[tuple[str, str], bool]:
    """Each document's methods decided by a model fitted on every other document's."""
    from sklearn.linear_model import LogisticRegression

    out = {}
    for doc in sorted({c.doc for c in cands}):
        train = [c for c in cands if c.doc != doc]
        test = [c for c in cands if c.doc == doc]
        if not test:
            continue
        clf = LogisticRegression(C=C, max_iter=2000).fit([c.x for c in train], [int(c.gold_used) for c in train])
        for c, p in zip(test, clf.predict_proba([c.x for c in test])[:, 1], strict=True):
            out[(c.doc, c.name)] = bool(p >= 0.5)
    return out


def main() -> int:
    lens = load_lens(DEFAULT_LENS)
    docs = load_docs()
    res, _ = annotate_all(docs, lens)
    per, _, _ = compare(docs, res, lens)
    gold = {doc: set(row["alg"][0]) for doc, row in per.items()}  # type: ignore[index]
    cands = candidates(docs, res, lens, gold)
    learned = learned_loo(cands)
    print(f"used-or-mentioned decision: {len(cands)} method names read in {len(docs)} documents, "
          f"{sum(c.gold_used for c in cands)} used by the gold; learned model: logistic regression, C = {C}, "
          f"leave-one-document-out")  # fmt: skip
    print(f"  {'split':<10} {'rules F1':>9} {'exact':>6} {'learned F1':>11} {'exact':>6}")
    newest: dict[str, float] = {}
    for split, ids in splits_of(docs).items():
        pairs = {"rules": [], "learned": []}  # type: dict[str, list[tuple[set[str], set[str]]]]
        for d in docs:
            if d.id not in ids:
                continue
            mine = [c for c in cands if c.doc == d.id]
            pairs["rules"].append((gold[d.id], set(res[d.id].cells["rl_algorithm"].value) - {NOT_DISCLOSED}))
            # "no RL stage" is another rule's value (no used method at all): the same for both
            stage = set(res[d.id].cells["rl_algorithm"].value) & {lens.no_stage_value}
            pairs["learned"].append((gold[d.id], {c.name for c in mine if learned[(c.doc, c.name)]} | stage))
        figs = {k: (prf(v)[2], sum(g == p for g, p in v) / len(v)) for k, v in pairs.items()}
        print(f"  {split:<10} {figs['rules'][0]:>9.3f} {figs['rules'][1]:>6.0%} {figs['learned'][0]:>11.3f} "
              f"{figs['learned'][1]:>6.0%}")  # fmt: skip
        if split == "newest":
            newest = {k: v[0] for k, v in figs.items()}
    keep = "rules" if newest["rules"] >= newest["learned"] else "learned model"
    print(f"better on the newest documents (used-algorithm micro-F1): {keep}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
