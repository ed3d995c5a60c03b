"""Extraction fidelity against the reference counts (pdftotext | wc -w, grep -oi on folded text).

Usage:  python eval/extraction_fidelity.py [--corpus ../shared/corpus] [--engines pdfium pdfplumber pdfplumber-default]

For every PDF in the corpus and every engine it prints pages, words (and % difference from
`words_wc`), the five study keyword counts (and difference from the reference), and the time
taken; then whether the issue's bar holds: words within 2% and every keyword within ±1.
`pdfplumber-default` is pdfplumber's plain `extract_text()`, shown to document why it is not used.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pdfplumber  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.lexicon import load_lexicon  # noqa: E402
from ingest.common.document import Document, Page  # noqa: E402
from ingest.pipeline_steps import analyse  # noqa: E402
from ingest.reading.extract import extract_pdf  # noqa: E402
from ingest.reading.textnorm import dehyphenate, normalize  # noqa: E402
from ingest.sources.schema import STUDY_TERMS  # noqa: E402

WORD_TOL = 0.02
KEYWORD_TOL = 1


def extract(path: Path, engine: str) -> Document:
    if engine != "pdfplumber-default":
        return extract_pdf(path, engine=engine)  # type: ignore[arg-type]

    with pdfplumber.open(str(path)) as pdf:
        raw = [p.extract_text() or "" for p in pdf.pages]
    pages = dehyphenate([normalize(t) for t in raw])
    return Document("pdf", engine, [Page(i + 1, t, str(i + 1)) for i, t in enumerate(pages)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--engines", nargs="+", default=["pdfium", "pdfplumber", "pdfplumber-default"])
    args = ap.parse_args()
    ref_file = args.corpus / "reference_counts.tsv"
    if not ref_file.exists():
        print(f"no reference counts at {ref_file}")
        return 2
    refs = list(csv.DictReader(ref_file.open(), delimiter="\t"))
    lexicon = load_lexicon()
    keys = [t.replace(" ", "_") for t in STUDY_TERMS]
    ok_all = {e: True for e in args.engines}
    total = dict.fromkeys(args.engines, 0.0)
    print(f"{'file':24} {'engine':18} {'pages':>9} {'words (ref, diff%)':>24}  {'keywords ours/ref':40} {'time':>6}  bar")
    for ref in refs:
        path = args.corpus / ref["file"]
        for engine in args.engines:
            t0 = time.perf_counter()
            doc = extract(path, engine)
            res = analyse(doc, lexicon)
            dt = time.perf_counter() - t0
            counts = {c["term"]: c["count"] for c in res.counts if c["section"] == "all" and c["group"] == "study"}
            words = res.words["all"]
            ref_words = int(ref["words_wc"])
            wdiff = (words - ref_words) / ref_words
            kw = [(counts[t], int(ref[k])) for t, k in zip(STUDY_TERMS, keys, strict=True)]
            ok = abs(wdiff) <= WORD_TOL and all(abs(a - b) <= KEYWORD_TOL for a, b in kw)
            ok_all[engine] &= ok
            total[engine] += dt
            kw_text = " ".join(f"{a}/{b}" for a, b in kw)
            print(
                f"{Path(ref['file']).name:24} {engine:18} {len(doc.pages):>4}/{ref['pages']:<4} "
                f"{words:>7} ({ref_words:>6}, {wdiff:+6.2%})  {kw_text:40} {dt:5.2f}s  {'PASS' if ok else 'FAIL'}"
            )
    print()
    for engine, secs in total.items():
        ratio = f", {secs / total['pdfium']:.1f}x pdfium" if "pdfium" in total and total["pdfium"] > 0 else ""
        print(f"{engine}: {secs:.2f} s for all PDFs (extraction + counting){ratio}")
    for engine, ok in ok_all.items():
        print(
            f"{engine}: fidelity bar (words within {WORD_TOL:.0%}, keywords within ±{KEYWORD_TOL}) on all PDFs: "
            + ("PASS" if ok else "FAIL")
        )
    return 0 if ok_all.get("pdfium", True) else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
