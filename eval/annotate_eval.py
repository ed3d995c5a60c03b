"""Score the automatic comparison table against the hand labels in ../shared/labels/gold.yaml.

    .venv/bin/python eval/annotate_eval.py            # summary lines + confusions
    .venv/bin/python eval/annotate_eval.py --verbose  # also every cell with its quote and checklist

Prints, for all gold documents and split into the older label blocks ("old", the cues were
written reading them) and the newest block ("new", labelled before the tool read them): algorithm
used (exact set and micro P/R/F1), reward-source
micro-F1, granularity accuracy, both disclosure levels (exact, within one), a check that every
quote is verbatim on its stated page, how well the top-ranked quote agrees with the gold evidence
page (cue count vs TF-IDF), the level cut points chosen by leave-one-out, a check that methods a
report introduces are found without being in the lens, and the annotate time on the corpus; and
every dimension beside its majority-class baseline, in-sample and leave-one-document-out, per block,
with the doubt ranking (AUC of the cell score, wrong cells among the least sure; eval/cell_figures.py).

Gold free-text algorithm names are mapped onto lens categories with the lens' own cues (earliest
match in the text), or onto a name the report itself introduced (`introduces:` in the lens).
A used item the gold marks as unnamed ("on-policy RL (unnamed; …)", "… (algorithm not named)")
is the gold's notation for the lens's `generic` category ("RL, algorithm not named"); unnamed
mentioned-only items keep no category (the lens never reports an unnamed method as mentioned).
Items nothing maps (e.g. "ReST (baseline)") count as misses and are listed: the lens cannot
produce them, so they are errors, not exclusions.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from cell_figures import (  # noqa: E402
    LEAST_SURE,
    DocValues,
    Metric,
    accuracy,
    doubt,
    figures,
    format_doubt,
    format_figures,
    frequent_labels,
    micro_f1,
    within_one,
)
from confidence_loo import Example, final_model, nested_loo, report  # noqa: E402
from cue_report import corpus_sentences, cue_report, format_rows  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from eval.label_blocks import label_blocks  # noqa: E402
from ingest.analysis.annotate import annotate  # noqa: E402
from ingest.analysis.evidence import Sentence, quote_on_page, sentences  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, NOT_DISCLOSED, Dimension, Lens, load_lens  # noqa: E402
from ingest.analysis.references import match_report, resolve_references  # noqa: E402
from ingest.common.records import Annotation  # noqa: E402
from ingest.reading.extract import extract_file  # noqa: E402
from ingest.reading.sections import split_sections  # noqa: E402
from ingest.sources.registry import parse_yaml  # noqa: E402

SHARED = ROOT.parent / "shared"
LEVELS = ["none", "low", "medium", "detailed", "very detailed"]
#: The older label blocks (the cues were written reading these) and the newest block (labelled
#: before the tool read them): the honest split (eval/label_blocks.py).
BLOCKS = label_blocks(SHARED / "labels" / "gold.yaml") if (SHARED / "labels" / "gold.yaml").exists() else None
OLD = BLOCKS.older if BLOCKS else ()
#: The gold's notation for a used algorithm the report does not name.
UNNAMED = re.compile(r"\(unnamed\b|\bnot named\b", re.I)
#: Gold key of each level dimension.
LEVEL_KEYS = {"disclosure": "agentic_rl", "rl_disclosure": "rl_disclosure"}


@dataclass
class Doc:
    """One gold document: its labels, evidence sentences and page texts."""

    id: str
    gold: dict
    sents: list[Sentence]
    pages: dict[int, str]


def load_docs(shared: Path = SHARED) -> list[Doc]:
    """Extract every gold document once (the slow part; annotation is then repeated cheaply)."""
    gold_path = shared / "labels" / "gold.yaml"
    gold = parse_yaml(gold_path.read_text(encoding="utf-8"), str(gold_path))
    docs = []
    for g in gold:
        doc = extract_file(shared / "corpus" / g["file"])
        docs.append(Doc(g["id"], g, sentences(split_sections(doc)), {p.number: p.text for p in doc.pages}))
    return docs


def annotate_all(docs: list[Doc], lens: Lens, ranking: str = "cues") -> tuple[dict[str, Annotation], float]:
    """Annotations of every document and the CPU seconds annotation took (extraction excluded). A method
    named by reference to another report resolves to that report's main method where the report is one
    of the labelled documents (the eval's store; ingest/analysis/references.py)."""
    t = time.process_time()
    res = {d.id: annotate(d.sents, lens, ranking=ranking) for d in docs}  # type: ignore[arg-type]
    for d in docs:
        res[d.id] = resolved(d, res[d.id], docs, res, lens)
    return res, time.process_time() - t


def resolved(d: Doc, ann: Annotation, docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> Annotation:
    """`ann` (document `d`'s annotation) with each method named by reference to another labelled document
    replaced by that document's main method in `res` (the eval's store)."""
    titles = {x.id: str(x.gold.get("title") or "") for x in docs if x.id != d.id}

    def lookup(name: str) -> str | None:
        rid = match_report(name, titles)
        main = res[rid].cells["rl_algorithm"].value[0] if rid else None
        return main if main not in (None, NOT_DISCLOSED, lens.no_stage_value) else None

    return resolve_references(ann, lens, lookup)


def map_names(
    items: object, lens: Lens, dim_id: str, introduced: set[str] = frozenset(), used: bool = False
) -> tuple[set[str], list[str]]:
    """Gold free-text method names → lens categories (earliest cue match wins) or a name the report
    introduced itself; with `used`, an item marked unnamed → the lens's generic category.
    Returns (mapped, unmapped)."""
    if not isinstance(items, list):
        return set(), []
    dim = lens.dimension(dim_id)
    generic = next((c.name for c in dim.categories if c.generic), None)
    mapped, unmapped = set(), []
    for item in items:
        if used and generic and UNNAMED.search(item):
            mapped.add(generic)
            continue
        best = None
        for c in dim.categories:
            for cue in c.cues:
                m = re.search(cue, item, re.I)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), c.name)
        for name in introduced:
            m = re.search(rf"(?<![\w-]){re.escape(name)}(?!\w)", item, re.I)
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), name)
        if best:
            mapped.add(best[1])
        else:
            unmapped.append(item)
    return mapped, unmapped


def as_set(v: object) -> set[str]:
    if isinstance(v, list | tuple):
        return set(v) - {NOT_DISCLOSED}
    return set() if v in (None, NOT_DISCLOSED) else {str(v)}


def prf(pairs: list[tuple[set[str], set[str]]]) -> tuple[float, float, float]:
    tp = sum(len(g & p) for g, p in pairs)
    fp = sum(len(p - g) for g, p in pairs)
    fn = sum(len(g - p) for g, p in pairs)
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec else 0.0)


def _introduced(ann: Annotation, lens: Lens) -> set[str]:
    """Method names in the annotation that are not lens categories (introduced by the report)."""
    known = {c.name for c in lens.dimension("rl_algorithm").categories}
    roles = ann.cells["rl_algorithm"].roles or {}
    return set(roles) - known


#: Key of each dimension in a `compare` row (rows hold what the gold and the annotation say).
ROW_KEYS = {"rl_algorithm": "alg", "rl_algorithm_mentioned": "ment", "reward_source": "rs", "credit_granularity": "gran"}


def cell_truth(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> dict[tuple[str, str], bool]:
    """Whether each automatic cell (document, dimension) agrees exactly with the gold label."""
    per, _, _ = compare(docs, res, lens)
    out = {}
    for doc, row in per.items():
        for dim, key in ROW_KEYS.items():
            v = row[key]
            out[(doc, dim)] = bool(v) if isinstance(v, bool) else v[0] == v[1]  # type: ignore[index]
        for dim in LEVEL_KEYS:
            out[(doc, dim)] = row[dim] == 0
    return out


def score(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> tuple[dict[str, dict[str, float]], list[str], list[str]]:
    """Metrics per split ("all", "old", "new"), the confusions and the unmapped gold items."""
    per, confusions, unmapped_all = compare(docs, res, lens)
    return metrics_of(docs, per), confusions, unmapped_all


def compare(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> tuple[dict[str, dict[str, object]], list[str], list[str]]:
    """Per document: what the gold and the annotation say per dimension; the confusions; unmapped gold items."""
    per: dict[str, dict[str, object]] = {}
    confusions: list[str] = []
    unmapped_all: list[str] = []
    for d in docs:
        g, cells = d.gold, res[d.id].cells
        intro = _introduced(res[d.id], lens)
        row: dict[str, object] = {}
        gs, unm = map_names(g["rl_algorithms_used"], lens, "rl_algorithm", intro, used=True)
        unmapped_all += [f"{d.id}: {u}" for u in unm]
        gs |= {f"? {u}" for u in unm}  # a name the lens cannot produce is a miss
        # codebook `rl_used: no`: the lens's "no RL stage" value, in every column that declares it
        nostage = lens.no_stage_value if g.get("rl_used") == "no" else None
        gs = gs or ({nostage} if nostage else set())
        ps = as_set(cells["rl_algorithm"].value)
        row["alg"] = (gs, ps)
        if gs != ps:
            nd = ["not disclosed"]
            confusions.append(f"rl_algorithm {d.id}: gold {sorted(gs) or nd} vs auto {sorted(ps) or nd}")
        gm, unm = map_names(g["rl_algorithms_mentioned_only"], lens, "rl_algorithm", intro)
        unmapped_all += [f"{d.id} (mentioned): {u}" for u in unm]
        gm |= {f"? {u}" for u in unm}
        pm = as_set(cells["rl_algorithm_mentioned"].value)
        row["ment"] = (gm, pm)
        if gm != pm:
            confusions.append(f"rl_algorithm_mentioned {d.id}: gold {sorted(gm)} vs auto {sorted(pm)}")
        gr, pr = ({nostage} if nostage else as_set(g["reward_sources"])), as_set(cells["reward_source"].value)
        row["rs"] = (gr, pr)
        if gr != pr:
            confusions.append(f"reward_source {d.id}: missed {sorted(gr - pr)}, extra {sorted(pr - gr)}")
        pv, gv = cells["credit_granularity"].value[0], nostage or g["credit_granularity"]
        row["gran"], row["gran_gold"] = pv == gv, gv
        if pv != gv:
            confusions.append(f"credit_granularity {d.id}: gold {gv} vs auto {pv}")
        for dim, key in LEVEL_KEYS.items():
            cell = cells[dim]
            lv, gv = cell.value[0], g[key]
            dist = abs(LEVELS.index(lv) - LEVELS.index(gv))
            row[dim] = dist
            if dist:
                confusions.append(
                    f"{dim} {d.id}: gold {gv} vs auto {lv} ({cell.counted} fired: {', '.join(cell.indicators or ()) or '-'})"
                )
        quotes = [(c.quote, c.page) for c in cells.values() if c.quote]
        quotes += [(e.quote, e.page) for e in res[d.id].evidence]
        bad = [(q, pg) for q, pg in quotes if not quote_on_page(q, d.pages.get(pg, ""))]
        confusions += [f"quote not on page {d.id} p{pg}: {q[:80]}" for q, pg in bad]
        row["quotes"] = (len(quotes), len(bad))
        per[d.id] = row
    return per, confusions, unmapped_all


def alg_miss_kinds(per: dict[str, dict[str, object]]) -> str:
    """Documents whose used-algorithm set is wrong, by kind: a gold item written as free text no lens
    category or introduced name maps ("? …"), a used method missed, a method wrongly read as used."""
    kinds: dict[str, list[str]] = {"gold item the lens cannot produce": [], "used method missed": [], "extra used method": []}
    for doc, row in per.items():
        gold, auto = row["alg"]  # type: ignore[misc]
        if gold == auto:
            continue
        if any(g.startswith("? ") for g in gold):
            kinds["gold item the lens cannot produce"].append(doc)
        if {g for g in gold if not g.startswith("? ")} - auto:
            kinds["used method missed"].append(doc)
        if auto - gold:
            kinds["extra used method"].append(doc)
    return "rl_algorithm misses by kind (a document may count twice): " + "; ".join(
        f"{k} {len(v)}" + (f" ({', '.join(v)})" if v else "") for k, v in kinds.items()
    )


def metrics_of(docs: list[Doc], per: dict[str, dict[str, object]]) -> dict[str, dict[str, float]]:
    """The summary figures per split from `compare`'s rows."""

    out: dict[str, dict[str, float]] = {}
    for split, ids in (("all", [d.id for d in docs]), ("old", [d.id for d in docs if d.id in OLD]),
                       ("new", [d.id for d in docs if d.id not in OLD])):  # fmt: skip
        rows = [per[i] for i in ids]
        n = len(rows)
        m: dict[str, float] = {"n": n}
        if not n:
            out[split] = m
            continue
        for key in ("alg", "ment", "rs"):
            pairs = [r[key] for r in rows]  # type: ignore[misc]
            m[f"{key}_p"], m[f"{key}_r"], m[f"{key}_f1"] = prf(pairs)  # type: ignore[arg-type]
            m[f"{key}_exact"] = sum(a == b for a, b in pairs) / n
        m["gran_acc"] = sum(bool(r["gran"]) for r in rows) / n
        for dim in LEVEL_KEYS:
            m[f"{dim}_exact"] = sum(r[dim] == 0 for r in rows) / n
            m[f"{dim}_w1"] = sum(r[dim] <= 1 for r in rows) / n  # type: ignore[operator]
        m["quotes_total"] = sum(r["quotes"][0] for r in rows)  # type: ignore[index]
        m["quotes_bad"] = sum(r["quotes"][1] for r in rows)  # type: ignore[index]
        out[split] = m
    return out


# ------------------------------------------------------------------------- level cut points
def _level_of(n: int, cuts: tuple[int, ...]) -> int:
    return sum(n >= c for c in cuts)


def fit_cuts(counts: list[int], gold: list[int], k: int, prior: tuple[int, ...]) -> tuple[int, ...]:
    """Cut points c1 < c2 < c3 < c4 on the indicator count (level = number of cuts <= count).

    Chosen to maximise exact agreement with the labels, then within-one agreement, then to stay
    closest to `prior` (the lens' current cuts) where the labels do not constrain a cut (e.g. no
    labelled document is "very detailed"). Exhaustive: at most C(k+1, 4) candidates.
    """

    def key(cuts: tuple[int, ...]) -> tuple[int, int, int]:
        dist = [abs(_level_of(c, cuts) - g) for c, g in zip(counts, gold, strict=True)]
        return (sum(x == 0 for x in dist), sum(x <= 1 for x in dist), -sum(abs(a - b) for a, b in zip(cuts, prior, strict=True)))

    return max(itertools.combinations(range(1, k + 2), len(LEVELS) - 1), key=key)


def neutral_cuts(k: int) -> tuple[int, ...]:
    """Cut points spread evenly over 0..k indicators: a tie-break that knows nothing of the labels
    or of the lens' own cuts (breaking ties toward the lens' cuts would leak them into leave-one-out)."""
    n = len(LEVELS) - 1
    return tuple(max(i + 1, round((i + 1) * (k + 1) / (n + 1))) for i in range(n))


def level_cuts(dim: Dimension) -> tuple[int, ...]:
    return tuple(lv.min_indicators for lv in dim.levels[1:])


def loo_levels(
    docs: list[Doc], res: dict[str, Annotation], lens: Lens, scores: dict | None = None, preds: dict | None = None
) -> list[str]:
    """Leave-one-out over the gold documents for each level dimension: fit the cuts on the others,
    predict the held-out document's level from its indicator count; plus the cuts fitted on all.
    `scores`, when given, receives {dimension: (exact, within one, n)} of the leave-one-out; `preds`
    {dimension: {document: level index predicted leave-one-out}}."""
    lines = []
    for dim_id, key in LEVEL_KEYS.items():
        dim = lens.dimension(dim_id)
        counts = [res[d.id].cells[dim_id].counted or 0 for d in docs]
        gold = [LEVELS.index(d.gold[key]) for d in docs]
        prior, k = level_cuts(dim), len(dim.indicators)
        tie = neutral_cuts(k)
        ex = w1 = 0
        for i in range(len(docs)):
            cuts = fit_cuts(counts[:i] + counts[i + 1 :], gold[:i] + gold[i + 1 :], k, tie)
            dist = abs(_level_of(counts[i], cuts) - gold[i])
            if preds is not None:
                preds.setdefault(dim_id, {})[docs[i].id] = _level_of(counts[i], cuts)
            ex += dist == 0
            w1 += dist <= 1
        n = len(docs)
        if scores is not None:
            scores[dim_id] = (ex, w1, n)
        full = fit_cuts(counts, gold, k, tie)
        same = "= the lens" if full == prior else f"!= the lens {list(prior)}"
        ins = [abs(_level_of(c, prior) - g) for c, g in zip(counts, gold, strict=True)]
        top = max(set(gold), key=gold.count)
        lines.append(
            f"{dim_id:<22} leave-one-out (neutral tie-break) exact {ex}/{n} = {ex / n:.0%}, within one {w1}/{n} = "
            f"{w1 / n:.0%}; in-sample with the lens cuts {list(prior)}: exact {sum(x == 0 for x in ins)}/{n}, within one "
            f"{sum(x <= 1 for x in ins)}/{n}; cuts fitted on all {n}: {list(full)} {same}; always "
            f"'{LEVELS[top]}': {gold.count(top)}/{n}"
        )
    return lines


# ------------------------------------------------------------------------- methods not in the lens
def unknown_method_check(docs: list[Doc], lens: Lens) -> str:
    """Remove, one at a time, each used gold method from the lens and re-annotate: is the method
    still found as used under the name the report itself defines? (tests `introduces:`)"""
    dim = lens.dimension("rl_algorithm")
    found, tried, misses = 0, 0, []
    for d in docs:
        gs, _ = map_names(d.gold["rl_algorithms_used"], lens, "rl_algorithm")
        for cat in sorted(gs):
            c = next((x for x in dim.categories if x.name == cat), None)
            if c is None or not re.search(r"policy optimi[sz]ation", c.description or "", re.I):
                continue  # only methods with a "… Policy Optimization (ACRONYM)" long form
            tried += 1
            data = lens.model_dump()
            for dd in data["dimensions"]:
                if dd["id"] == "rl_algorithm":
                    dd["categories"] = [x for x in dd["categories"] if x["name"] != cat]
                for r in (dd.get("derive") or {}).get("rules", []):  # the method is unknown to the lens now
                    r["methods"] = [x for x in r["methods"] if x != cat]
            used = as_set(annotate(d.sents, Lens.model_validate(data)).cells["rl_algorithm"].value)
            ok = cat in used
            found += ok
            if not ok:
                misses.append(f"{d.id}/{cat} -> {sorted(used) or ['not disclosed']}")
    tail = f" (missed: {'; '.join(misses)})" if misses else ""
    return f"methods found as used without being in the lens: {found}/{tried}{tail}"


def fmt(m: dict[str, float]) -> list[str]:
    def pc(x: float) -> str:
        return f"{x:.0%}"

    return [
        f"rl_algorithm           used exact sets {pc(m['alg_exact'])}; micro P {m['alg_p']:.2f} R {m['alg_r']:.2f} "
        f"F1 {m['alg_f1']:.2f}",
        f"rl_algorithm_mentioned exact sets {pc(m['ment_exact'])}; micro P {m['ment_p']:.2f} R {m['ment_r']:.2f} "
        f"F1 {m['ment_f1']:.2f} (no target)",
        f"reward_source          micro P {m['rs_p']:.2f} R {m['rs_r']:.2f} F1 {m['rs_f1']:.2f}; exact sets {pc(m['rs_exact'])}",
        f"credit_granularity     accuracy {pc(m['gran_acc'])}",
        f"disclosure             exact {pc(m['disclosure_exact'])}; within one {pc(m['disclosure_w1'])}",
        f"rl_disclosure          exact {pc(m['rl_disclosure_exact'])}; within one {pc(m['rl_disclosure_w1'])}",
        f"quotes                 verbatim on stated page {int(m['quotes_total'] - m['quotes_bad'])}/{int(m['quotes_total'])}",
    ]


def main_algorithm(gold: dict, lens: Lens, introduced: set[str]) -> str:
    """The gold's main used algorithm (its first item) as a lens category or introduced name; a free-text
    item nothing maps stays "? item" (a miss), no item is "not disclosed"."""
    items = gold["rl_algorithms_used"]
    if not isinstance(items, list) or not items:
        return (lens.no_stage_value if gold.get("rl_used") == "no" else None) or NOT_DISCLOSED
    mapped, unmapped = map_names(items[:1], lens, "rl_algorithm", introduced, used=True)
    return next(iter(mapped)) if mapped else f"? {unmapped[0]}"


#: The dimensions of the baseline table: (row name, metric name, score, percent).
CELL_METRICS = [
    Metric("main algorithm", "accuracy", accuracy),
    Metric("algorithm used", "exact set", accuracy),
    Metric("algorithm used", "micro-F1", micro_f1, percent=False, trivial=frequent_labels),
    Metric("reward source", "exact set", accuracy),
    Metric("reward source", "micro-F1", micro_f1, percent=False, trivial=frequent_labels),
    Metric("granularity", "accuracy", accuracy),
    Metric("agentic disclosure", "exact", accuracy),
    Metric("agentic disclosure", "within one", within_one),
    Metric("RL disclosure", "exact", accuracy),
    Metric("RL disclosure", "within one", within_one),
]


#: Level dimensions of the baseline table: (row name, lens dimension, gold key).
LEVEL_ROWS = (("agentic disclosure", "disclosure", "agentic_rl"), ("RL disclosure", "rl_disclosure", "rl_disclosure"))


def cell_values(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> dict[str, list[DocValues]]:
    """Per baseline-table dimension, what the gold and the tool say per document (the tool also
    leave-one-out: the level cut points fitted without the document)."""
    per, _, _ = compare(docs, res, lens)
    preds: dict[str, dict[str, int]] = {}
    loo_levels(docs, res, lens, preds=preds)
    out: dict[str, list[DocValues]] = {m.dim: [] for m in CELL_METRICS}
    for d in docs:
        row, cells = per[d.id], res[d.id].cells
        main = main_algorithm(d.gold, lens, _introduced(res[d.id], lens))
        tool_main = cells["rl_algorithm"].value[0]
        out["main algorithm"].append(DocValues(d.id, main, tool_main, tool_main))
        for dim, key in (("algorithm used", "alg"), ("reward source", "rs")):
            g, p = (frozenset(x) for x in row[key])  # type: ignore[attr-defined]
            out[dim].append(DocValues(d.id, g, p, p))
        gran = cells["credit_granularity"].value[0]
        out["granularity"].append(DocValues(d.id, row["gran_gold"], gran, gran))
        for dim, lid, key in LEVEL_ROWS:
            lv = LEVELS.index(cells[lid].value[0])
            out[dim].append(DocValues(d.id, LEVELS.index(d.gold[key]), lv, preds[lid][d.id]))
    return out


def no_stage_line(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> str:
    """How many reports without RL (gold `rl_used: no`) show the lens's "no RL stage" in every column that
    declares it (the algorithm column may list a method that is no RL stage instead), and how many others do."""
    ns = lens.no_stage
    if ns is None:
        return "no 'no stage' value declared by the lens"

    def shows(d: Doc) -> bool:
        cells = res[d.id].cells
        return all(ns.value in cells[x].value for x in ns.dimensions if x != ns.source)

    without = [d for d in docs if d.gold.get("rl_used") == "no"]
    wrong = [d.id for d in docs if d.gold.get("rl_used") != "no" and shows(d)]
    return (f"reports without RL (gold rl_used: no) showing '{ns.value}': {sum(map(shows, without))}/{len(without)}; "
            f"reports with RL showing it: {len(wrong)}" + (f" ({', '.join(wrong)})" if wrong else ""))  # fmt: skip


def splits_of(docs: list[Doc]) -> dict[str, set[str]]:
    """ "all", "older" and "newest" document ids (eval/label_blocks.py)."""
    ids = {d.id for d in docs}
    return {"all": ids, "older": ids & set(OLD), "newest": ids - set(OLD)}


def baseline_lines(docs: list[Doc], res: dict[str, Annotation], lens: Lens, nested: list | None = None) -> list[str]:
    """The baseline table and the doubt ranking (leave-one-document-out confidence) per split."""
    lines = format_figures(figures(cell_values(docs, res, lens), CELL_METRICS, splits_of(docs)))
    lines.append(no_stage_line(docs, res, lens))
    nested = nested if nested is not None else nested_loo(gold_examples(docs, res, lens))
    for split, ids in splits_of(docs).items():
        lines.append(format_doubt(f"{split}, LOO", doubt([(p, e.correct) for e, p, _ in nested if e.doc in ids])))
    lines.append(sure_wrong_line(nested))
    return lines


def sure_wrong_line(nested: list) -> str:
    """The doubt ranking's misses: wrong cells outside the least-sure share (all documents, surest last)."""
    order = sorted(range(len(nested)), key=lambda i: nested[i][1])
    k = round(LEAST_SURE * len(nested))
    sure = [nested[i] for i in order[k:] if not nested[i][0].correct]
    return (f"wrong cells among the surest {1 - LEAST_SURE:.0%} (all, LOO), {len(sure)}: "
            + "; ".join(f"{e.dim} {e.doc} {p:.2f}" for e, p, _ in sure))  # fmt: skip


def gold_examples(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> list[Example]:
    truth = cell_truth(docs, res, lens)
    out: list[Example] = []
    for (doc, dim), ok in sorted(truth.items()):
        feats = res[doc].cells[dim].features
        if feats is not None:
            out.append(Example(doc, dim, feats, ok, "gold"))
    return out


def _confidence(docs: list[Doc], res: dict[str, Annotation], lens: Lens) -> list[str]:
    """The confidence model's leave-one-document-out figures (eval/train_confidence.py) and the
    baseline table with the doubt ranking."""
    examples = gold_examples(docs, res, lens)
    nested = nested_loo(examples)
    return [*baseline_lines(docs, res, lens, nested), *report(nested, final_model(examples, nested), examples)]


def _cues(lens: Lens, docs: list[Doc], res: dict[str, Annotation]) -> int:
    """`--cues`: the cue report over the labelled documents and the rest of the corpus."""
    extra = corpus_sentences(SHARED / "corpus", {d.gold["file"] for d in docs})
    rows = cue_report(
        lens, docs, res, extra, lambda r: score(docs, r, lens)[0]["all"],
        lambda d, ablated: resolved(d, annotate(d.sents, ablated), docs, res, ablated),
    )  # fmt: skip
    print("\n".join(format_rows(lens, rows, len(docs), len(docs) + len(extra))))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lens", type=Path, default=DEFAULT_LENS)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--cues", action="store_true", help="the cue report: where each cue fires, ablation, fitted cues")
    args = ap.parse_args(argv)
    if not (SHARED / "labels" / "gold.yaml").exists():
        print(f"no gold labels at {SHARED / 'labels' / 'gold.yaml'}; nothing to evaluate")
        return 2
    lens = load_lens(args.lens)
    docs = load_docs()
    res, secs = annotate_all(docs, lens)  # the pipeline's default ranking (cue count)
    if args.cues:
        return _cues(lens, docs, res)
    alt, _ = annotate_all(docs, lens, "tfidf")
    metrics, confusions, unmapped = score(docs, res, lens)
    a = metrics["all"]
    print(f"== all {a['n']} gold documents, in-sample (targets, issue 33, leave-one-out on all and on the newest alone:")
    print("   every dimension beats its majority baseline; main algorithm >= 90%, algorithm micro-F1 >= 0.90, reward-source")
    print("   F1 >= 0.85, granularity >= 85%, disclosure exact >= 80% (within one: all), rl_disclosure exact >= 70%; doubt")
    print("   AUC >= 0.80 and the least-sure 35% hold >= 70% of the wrong cells; 0 fitted cues; every quote verbatim)")
    print("\n".join(fmt(a)))
    for split, what in zip(("old", "new"), (t for t, _ in BLOCKS.splits()), strict=True):  # type: ignore[union-attr]
        print(f"\n== {what}: {metrics[split]['n']} documents")
        print("\n".join(fmt(metrics[split])))
    print()
    for name, runs in (("cue-count", res), ("tfidf", alt)):
        hit = cnt = 0
        for d in docs:
            for gkey, dim in (("rl_algorithms_used", "rl_algorithm"), ("reward_sources", "reward_source"),
                              ("credit_granularity", "credit_granularity")):  # fmt: skip
                ev = (d.gold.get("evidence") or {}).get(gkey) or {}
                if isinstance(ev.get("page"), int):
                    cnt += 1
                    hit += runs[d.id].cells[dim].page == ev["page"]
        print(f"ranking ({name:<9})     top quote on the gold evidence page {hit}/{cnt}")
    print("\n".join(loo_levels(docs, res, lens)))
    print("\n".join(_confidence(docs, res, lens)))
    print(unknown_method_check(docs, lens))
    t = time.process_time()
    for _ in range(3):
        annotate_all(docs, lens)
    rerun = (time.process_time() - t) / 3
    n_sents = sum(len(d.sents) for d in docs)
    print(f"annotate time          {secs:.2f} s CPU, {len(docs)} documents, {n_sents:,} sentences; 3 re-runs: {rerun:.2f} s each")
    print(alg_miss_kinds(compare(docs, res, lens)[0]))
    if unmapped:
        print("\ngold items no lens category or introduced name maps (counted as misses):\n  " + "\n  ".join(unmapped))
    if confusions:
        print("\nconfusions:\n  " + "\n  ".join(confusions))
    if args.verbose:
        for rid, out in res.items():
            print(f"\n== {rid}")
            for dim, c in out.cells.items():
                extra = c.support or c.roles or c.why or ""
                print(f"  {dim}: {list(c.value)} conf={c.confidence} p{c.page_label} {extra}\n     {str(c.quote)[:200]}")
                for item in c.checklist or ():
                    mark = f"yes p. {item.page_label}: {str(item.quote)[:120]}" if item.fired else "no"
                    print(f"       [{item.indicator}] {mark}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
