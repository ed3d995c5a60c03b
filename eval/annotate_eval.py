"""Score the automatic comparison table against the hand labels in ../shared/labels/gold.yaml.

    .venv/bin/python eval/annotate_eval.py            # summary lines + confusions
    .venv/bin/python eval/annotate_eval.py --verbose  # also every cell with its quote

Prints one summary line per dimension (accuracy or micro-F1 against the issue's targets), the
confusions, a check that every quote is verbatim on its stated page, and how well the top-ranked
quote agrees with the gold evidence page for TF-IDF ranking versus ranking by cue count alone.
Gold free-text algorithm names are mapped onto lens categories with the lens' own cues (first
match in the text); gold items no category matches (e.g. "on-policy RL (unnamed)") are listed
as unmapped and left out of the scores.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.annotate import annotate  # noqa: E402
from ingest.evidence import quote_on_page, sentences  # noqa: E402
from ingest.extract import extract_file  # noqa: E402
from ingest.lens import DEFAULT_LENS, NOT_DISCLOSED, Lens, load_lens  # noqa: E402
from ingest.registry import parse_yaml  # noqa: E402
from ingest.sections import split_sections  # noqa: E402

SHARED = ROOT.parent / "shared"
LEVELS = ["none", "low", "medium", "detailed", "very detailed"]


def map_names(items: object, lens: Lens, dim_id: str) -> tuple[set[str], list[str]]:
    """Gold free-text method names → lens categories (earliest cue match wins); returns (mapped, unmapped)."""
    if not isinstance(items, list):
        return set(), []
    dim = lens.dimension(dim_id)
    mapped, unmapped = set(), []
    for item in items:
        best = None
        for c in dim.categories:
            for cue in c.cues:
                m = re.search(cue, item, re.I)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), c.name)
        if best:
            mapped.add(best[1])
        else:
            unmapped.append(item)
    return mapped, unmapped


def as_set(v: object) -> set[str]:
    if isinstance(v, list):
        return set(v) - {NOT_DISCLOSED}
    return set() if v in (None, NOT_DISCLOSED) else {str(v)}


def prf(pairs: list[tuple[set[str], set[str]]]) -> tuple[float, float, float]:
    tp = sum(len(g & p) for g, p in pairs)
    fp = sum(len(p - g) for g, p in pairs)
    fn = sum(len(g - p) for g, p in pairs)
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lens", type=Path, default=DEFAULT_LENS)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    gold_path = SHARED / "labels" / "gold.yaml"
    if not gold_path.exists():
        print(f"no gold labels at {gold_path}; nothing to evaluate")
        return 2
    lens = load_lens(args.lens)
    gold = parse_yaml(gold_path.read_text(encoding="utf-8"), str(gold_path))
    res: dict[str, dict] = {}
    alt: dict[str, dict] = {}
    pages: dict[str, dict[int, str]] = {}
    for g in gold:
        doc = extract_file(SHARED / "corpus" / g["file"])
        sents = sentences(split_sections(doc))
        res[g["id"]] = annotate(sents, lens)  # the pipeline's default ranking (cue count)
        alt[g["id"]] = annotate(sents, lens, ranking="tfidf")
        pages[g["id"]] = {p.number: p.text for p in doc.pages}

    lines, confusions = [], []
    # --- algorithm used
    pairs, exact, unmapped_all = [], 0, []
    for g in gold:
        gs, unm = map_names(g["rl_algorithms_used"], lens, "rl_algorithm")
        unmapped_all += [f"{g['id']}: {u}" for u in unm]
        ps = as_set(res[g["id"]]["cells"]["rl_algorithm"]["value"])
        pairs.append((gs, ps))
        exact += gs == ps
        if gs != ps:
            nd = ["not disclosed"]
            confusions.append(f"rl_algorithm {g['id']}: gold {sorted(gs) or nd} vs auto {sorted(ps) or nd}")
    p, r, f = prf(pairs)
    n = len(gold)
    lines.append(
        f"rl_algorithm           used-set accuracy {exact}/{n} = {exact / n:.0%} (target >= 90%); "
        f"micro P {p:.2f} R {r:.2f} F1 {f:.2f}"
    )
    # --- algorithm mentioned only
    pairs = []
    for g in gold:
        gs, unm = map_names(g["rl_algorithms_mentioned_only"], lens, "rl_algorithm")
        unmapped_all += [f"{g['id']} (mentioned): {u}" for u in unm]
        ps = as_set(res[g["id"]]["cells"]["rl_algorithm_mentioned"]["value"])
        pairs.append((gs, ps))
        if gs != ps:
            confusions.append(f"rl_algorithm_mentioned {g['id']}: gold {sorted(gs)} vs auto {sorted(ps)}")
    p, r, f = prf(pairs)
    ex = sum(a == b for a, b in pairs)
    lines.append(f"rl_algorithm_mentioned set accuracy {ex}/{n} = {ex / n:.0%}; micro P {p:.2f} R {r:.2f} F1 {f:.2f} (no target)")
    # --- reward source
    pairs = []
    for g in gold:
        gs, ps = as_set(g["reward_sources"]), as_set(res[g["id"]]["cells"]["reward_source"]["value"])
        pairs.append((gs, ps))
        if gs != ps:
            confusions.append(f"reward_source {g['id']}: missed {sorted(gs - ps)}, extra {sorted(ps - gs)}")
    p, r, f = prf(pairs)
    ex = sum(a == b for a, b in pairs)
    lines.append(f"reward_source          micro P {p:.2f} R {r:.2f} F1 {f:.2f} (target >= 0.85); exact sets {ex}/{n}")
    # --- granularity
    ok = 0
    for g in gold:
        pv = res[g["id"]]["cells"]["credit_granularity"]["value"][0]
        ok += pv == g["credit_granularity"]
        if pv != g["credit_granularity"]:
            confusions.append(f"credit_granularity {g['id']}: gold {g['credit_granularity']} vs auto {pv}")
    lines.append(f"credit_granularity     accuracy {ok}/{n} = {ok / n:.0%} (target >= 80%)")
    # --- disclosure levels
    both_ex = both_w1 = 0
    for dim, key in (("disclosure", "agentic_rl"), ("rl_disclosure", "rl_disclosure")):
        ex = w1 = 0
        for g in gold:
            cell = res[g["id"]]["cells"][dim]
            pv, gv = cell["value"][0], g[key]
            d = abs(LEVELS.index(pv) - LEVELS.index(gv))
            ex += d == 0
            w1 += d <= 1
            if d:
                confusions.append(f"{dim} {g['id']}: gold {gv} vs auto {pv} (fired: {', '.join(cell['indicators']) or '-'})")
        both_ex += ex
        both_w1 += w1
        lines.append(f"{dim:<22} exact {ex}/{n} = {ex / n:.0%} (target >= 70%); within one {w1}/{n} = {w1 / n:.0%} (target 100%)")
    m = 2 * n
    both = f"exact {both_ex}/{m} = {both_ex / m:.0%}; within one {both_w1}/{m} = {both_w1 / m:.0%}"
    lines.append(f"{'disclosure (both)':<22} {both}")
    # --- quotes verbatim on their page
    total = bad = 0
    for rid, out in res.items():
        quotes = [(c["quote"], c["page"]) for c in out["cells"].values() if c["quote"]]
        quotes += [(e["quote"], e["page"]) for e in out["evidence"]]
        for q, pg in quotes:
            total += 1
            if not quote_on_page(q, pages[rid].get(pg, "")):
                bad += 1
                confusions.append(f"quote not on page {rid} p{pg}: {q[:80]}")
    lines.append(f"quotes                 verbatim on stated page {total - bad}/{total}")
    # --- ranking: top quote on the gold evidence page
    for name, runs in (("cue-count", res), ("tfidf", alt)):
        hit = cnt = 0
        for g in gold:
            for gkey, dim in (
                ("rl_algorithms_used", "rl_algorithm"),
                ("reward_sources", "reward_source"),
                ("credit_granularity", "credit_granularity"),
            ):
                ev = (g.get("evidence") or {}).get(gkey) or {}
                if not isinstance(ev.get("page"), int):
                    continue
                cnt += 1
                hit += runs[g["id"]]["cells"][dim]["page"] == ev["page"]
        lines.append(f"ranking ({name:<9})     top quote on the gold evidence page {hit}/{cnt}")
    print("\n".join(lines))
    if unmapped_all:
        print("\nunmapped gold items (not scored):\n  " + "\n  ".join(unmapped_all))
    if confusions:
        print("\nconfusions:\n  " + "\n  ".join(confusions))
    if args.verbose:
        for rid, out in res.items():
            print(f"\n== {rid}")
            for dim, c in out["cells"].items():
                extra = c.get("support") or c.get("roles") or c.get("why") or ""
                print(f"  {dim}: {c['value']} conf={c['confidence']} p{c['page_label']} {extra}\n     {str(c['quote'])[:200]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
