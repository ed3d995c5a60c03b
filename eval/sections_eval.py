"""Compare detected section page ranges with the hand-read ones in ../shared/labels/sections.yaml.

    .venv/bin/python eval/sections_eval.py [--labels PATH] [--corpus DIR]

Prints, per labelled PDF, the expected and detected page ranges of body / appendix / references
(1-based, inclusive; an absent section is "-"), whether they match exactly, and the headings the
detected sections start at; then the overall exact-match count. tests/test_sections.py holds the
floor. The exact-match count is also printed for the older label blocks and the newest one apart.
Exit status 1 when a labelled PDF is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from eval.label_blocks import label_blocks  # noqa: E402
from ingest.reading.extract import extract_pdf  # noqa: E402
from ingest.reading.sections import SECTIONS, section_spans, split_sections  # noqa: E402

SHARED = ROOT.parent / "shared"
Ranges = dict[str, tuple[int, int]]


@dataclass(frozen=True)
class Result:
    """One labelled document: expected and detected ranges, and the detected section headings."""

    doc_id: str
    expected: Ranges
    got: Ranges
    headings: dict[str, str]

    @property
    def exact(self) -> bool:
        return self.expected == self.got


def load_labels(path: Path) -> dict[str, Ranges]:
    """sections.yaml → {doc id: {section: (start, end)}} (the `note` field is ignored)."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {doc: {s: (int(v[s][0]), int(v[s][1])) for s in SECTIONS if s in v} for doc, v in raw.items()}


def evaluate(labels: dict[str, Ranges], pdf_dir: Path) -> list[Result]:
    """Extract and split every labelled PDF (a missing PDF raises FileNotFoundError)."""
    out = []
    for doc_id, expected in labels.items():
        path = pdf_dir / f"{doc_id}.pdf"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: labelled in sections.yaml but not in the corpus")
        spans = section_spans(split_sections(extract_pdf(path)))
        got = {s.section: (s.start_page, s.end_page) for s in spans}
        out.append(Result(doc_id, expected, got, {s.section: s.heading for s in spans if s.heading}))
    return out


def fmt(r: Ranges) -> str:
    return "  ".join(f"{s[:3]} {r[s][0]}-{r[s][1]}" if s in r else f"{s[:3]} -" for s in SECTIONS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=Path, default=SHARED / "labels" / "sections.yaml")
    ap.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    args = ap.parse_args()
    labels = load_labels(args.labels)
    t0 = time.perf_counter()
    try:
        results = evaluate(labels, args.corpus / "pdf")
    except FileNotFoundError as exc:
        print(exc)
        return 1
    width = max(len(r.doc_id) for r in results)
    for r in results:
        print(f"{'ok  ' if r.exact else 'DIFF'} {r.doc_id:<{width}}  expected {fmt(r.expected)}")
        print(f"     {'':<{width}}  got      {fmt(r.got)}")
        for section, heading in r.headings.items():
            print(f"     {'':<{width}}    {section} starts at: {heading}")
    exact = sum(r.exact for r in results)
    print(f"exact page ranges: {exact}/{len(results)} documents ({time.perf_counter() - t0:.1f} s incl. extraction)")
    by_id = {r.doc_id: r for r in results}
    for title, ids in label_blocks(args.labels).splits():
        part = [by_id[i] for i in ids if i in by_id]
        print(f"  {title}: exact {sum(r.exact for r in part)}/{len(part)}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
