"""CPU of the analysis stages of two checkouts on the same documents, measured alternately.

Usage:  python bench/stage_ab.py OTHER_CHECKOUT [--corpus ../shared/corpus] [--first 23] [--rounds 3] [--repeat 3]

Why: on a shared machine the other processes change the speed of this one from minute to
minute, so two runs of bench/ingest_speed.py made minutes apart (one per checkout) differ by
more than a change to one stage. Here the PDFs are extracted once, and each round times the
stages of this checkout, then of OTHER_CHECKOUT, each in a fresh interpreter (its own code,
its caches warmed as in a worker) on those same texts; the best of all rounds is printed per
stage, with the ratio of this checkout to the other. Extraction and the results stage read the
PDF itself, so they are not timed here (bench/ingest_speed.py times every stage).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402

#: Run in each checkout (cwd): the CPU seconds of each stage over every document, best of `repeat`.
_TIMER = r"""
import json, pickle, sys, time
sys.path.insert(0, ".")
from ingest.run.warm import warm_caches
from ingest.analysis.annotate import annotate
from ingest.analysis.evidence import sentences
from ingest.analysis.keywords import count_keywords
from ingest.analysis.lens import load_lens
from ingest.analysis.lexicon import load_lexicon
from ingest.reading.sections import split_sections
from ingest.reading.textnorm import word_rule

warm_caches()
docs = pickle.loads(open(sys.argv[1], "rb").read())
lens, lexicon = load_lens(), load_lexicon()
segs = [split_sections(d) for d in docs]
sents = [sentences(s) for s in segs]
stages = {
    "sections": lambda: [split_sections(d) for d in docs],
    "keywords (counts, KWIC)": lambda: [count_keywords(s, lexicon, word_rule(d.text)) for s, d in zip(segs, docs)],
    "evidence sentences": lambda: [sentences(s) for s in segs],
    "annotate (comparison cells)": lambda: [annotate(s, lens) for s in sents],
}
best = {}
for _ in range(int(sys.argv[2])):
    for name, fn in stages.items():
        t = time.process_time()
        fn()
        best[name] = min(best.get(name, float("inf")), time.process_time() - t)
print(json.dumps(best))
"""


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="the other checkout (e.g. a worktree of main)")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--first", type=int, default=23, metavar="N", help="the first N PDFs of SOURCES.tsv (as ingest_speed)")
    ap.add_argument("--rounds", type=int, default=3, help="alternations of the two checkouts")
    ap.add_argument("--repeat", type=int, default=3, help="timings of each stage per interpreter")
    return ap.parse_args()


def _time(tree: Path, docs: Path, repeat: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, str(docs), str(repeat)], cwd=tree, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    from bench.ingest_speed import first_listed
    from ingest.reading.extract import extract_file

    args = _parse()
    pdfs = sorted(first_listed(args.corpus, args.first))
    if not pdfs:
        print(f"no PDFs under {args.corpus / 'pdf'}")
        return 2
    best: dict[str, dict[str, float]] = {"this": {}, "other": {}}
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs.pkl"
        docs.write_bytes(pickle.dumps([extract_file(p) for p in pdfs]))
        for _ in range(args.rounds):
            for side, tree in (("this", ROOT), ("other", args.other.resolve())):
                for name, sec in _time(tree, docs, args.repeat).items():
                    best[side][name] = min(best[side].get(name, float("inf")), sec)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{len(pdfs)} PDFs; CPU seconds, best of {args.rounds} rounds x {args.repeat}; load average {load}")
    print(f"  {'stage':32s} {'this':>8s} {'other':>8s}   this/other")
    for name in best["this"]:
        a, b = best["this"][name], best["other"].get(name, float("nan"))
        print(f"  {name:32s} {a:8.3f} {b:8.3f}   {a / b:6.2f}x")
    print(f"this: {ROOT}\nother: {args.other.resolve()}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
