"""Score table structure recognition on the ICDAR 2013 Table Competition set (../shared/external/icdar2013).

    python eval/icdar2013.py                 # all 67 documents, all systems
    python eval/icdar2013.py --only ours     # our structure stage only (faster)
    python eval/icdar2013.py --docs eu-001,us-012 -v   # some documents, per-document lines
    python eval/icdar2013.py --only ours --every 3      # the subset tests/test_icdar2013.py checks

The metric is the competition's adjacency relations: for every non-empty cell, its nearest
non-empty neighbour to the right (for each row it covers) and below (for each column it covers),
as (text, text, direction) after NFKC and removing all whitespace. Precision, recall and F1 are
micro-summed over documents (relations counted as multisets), and also averaged per document.

Two settings, as in the competition:
* complete process: the tables the tool finds on every page of the PDF (ours: through
  `read_pdf_tables`, the `tables` command's library function), their relations pooled per document
  and compared with the pooled relations of all ground-truth tables of that document;
* given regions: each ground-truth region (page and bounding box) is read on its own and compared
  with that region's cells (ours: words whose centre is in the box; pdfplumber and camelot: the
  box widened by MARGIN points, so ruling lines on its border count).
A document with ground-truth variants (eu-009a/b, us-011a/b, ...: one PDF, two readings) is scored
against each and keeps the better F1, for every system alike.

Systems: ours; pdfplumber's default table finder (`page.find_tables()`, ruling lines) and its text
strategy (`vertical_strategy`/`horizontal_strategy` "text"); camelot stream when it is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
import warnings
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pdfplumber  # noqa: E402
import pypdfium2 as pdfium  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.reading.pdf_words import page_words  # noqa: E402
from ingest.reading.structure import Table  # noqa: E402
from ingest.reading.structure_regions import read_pdf_tables, table_in_box  # noqa: E402

DATA = REPO.parent / "shared" / "external" / "icdar2013"

#: A cell as (start row, start col, end row, end col, text), ends inclusive.
GCell = tuple[int, int, int, int, str]
Rel = tuple[str, str, str]


@dataclass
class Region:
    page: int  # 1-based
    bbox: tuple[float, float, float, float]  # x1, y1, x2, y2 in PDF points, origin bottom-left
    cells: list[GCell] = field(default_factory=list)


@dataclass
class Doc:
    name: str
    pdf: Path
    variants: list[list[Region]]  # per ground-truth variant: every region of every table


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def load(root: Path = DATA, only: set[str] | None = None) -> list[Doc]:
    """Documents with their ground-truth variants (one per -str.xml file)."""
    docs: dict[str, Doc] = {}
    for str_xml in sorted(root.glob("*/*-str.xml")):
        var = str_xml.name[: -len("-str.xml")]
        base = re.sub(r"[a-z]$", "", var)
        pdf = next(
            (p for p in (str_xml.with_name(f"{var}.pdf"), *sorted(str_xml.parent.glob(f"{base}*.pdf"))) if p.exists()), None
        )
        if pdf is None or (only and base not in only):
            continue
        doc = docs.setdefault(base, Doc(base, pdf, []))
        doc.variants.append(_regions(str_xml))
    return list(docs.values())


def _regions(path: Path) -> list[Region]:
    out: list[Region] = []
    for table in ET.parse(path).getroot().iter("table"):
        for reg in table.iter("region"):
            r = Region(int(reg.get("page", "1")), (0.0, 0.0, 0.0, 0.0))
            xs: list[float] = []
            ys: list[float] = []
            for c in reg.iter("cell"):
                sr, sc = int(c.get("start-row", "0")), int(c.get("start-col", "0"))
                er, ec = int(c.get("end-row", sr)), int(c.get("end-col", sc))
                bb = c.find("bounding-box")
                if bb is not None:
                    xs += [_num(bb.get("x1")), _num(bb.get("x2"))]
                    ys += [_num(bb.get("y1")), _num(bb.get("y2"))]
                r.cells.append((sr, sc, er, ec, (c.findtext("content") or "")))
            if xs:
                r.bbox = (min(xs), min(ys), max(xs), max(ys))
            out.append(r)
    return out


def _num(text: str | None) -> float:
    """A coordinate; the ground truth has a few typos ("26\u00df"): the digits are kept."""
    m = re.match(r"-?\d+(\.\d+)?", text or "")
    return float(m.group()) if m else 0.0


def relations(cells: Iterable[GCell]) -> Counter[Rel]:
    """Adjacency relations of one table region (see the module docstring)."""
    filled = [(r0, c0, r1, c1, _norm(t)) for r0, c0, r1, c1, t in cells if _norm(t)]
    at: dict[tuple[int, int], int] = {}
    for k, (r0, c0, r1, c1, _t) in enumerate(filled):
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                at.setdefault((r, c), k)
    if not at:
        return Counter()
    max_r = max(r for r, _ in at)
    max_c = max(c for _, c in at)
    rels: set[tuple[int, int, str]] = set()
    for k, (r0, c0, r1, c1, _t) in enumerate(filled):
        for r in range(r0, r1 + 1):
            j = next((at[(r, c)] for c in range(c1 + 1, max_c + 1) if (r, c) in at and at[(r, c)] != k), None)
            if j is not None:
                rels.add((k, j, "h"))
        for c in range(c0, c1 + 1):
            j = next((at[(r, c)] for r in range(r1 + 1, max_r + 1) if (r, c) in at and at[(r, c)] != k), None)
            if j is not None:
                rels.add((k, j, "v"))
    return Counter((filled[a][4], filled[b][4], d) for a, b, d in rels)


def table_cells(t: Table) -> list[GCell]:
    return [(c.row, c.col, c.row + c.row_span - 1, c.col + c.col_span - 1, c.text) for c in t.cells]


def matrix_cells(rows: list[list[str | None]]) -> list[GCell]:
    return [(r, c, r, c, v or "") for r, row in enumerate(rows) for c, v in enumerate(row) if v]


@dataclass
class Score:
    correct: int = 0
    found: int = 0
    truth: int = 0
    doc_f1: list[float] = field(default_factory=list)

    def add(self, got: Counter[Rel], want: Counter[Rel]) -> None:
        ok = sum((got & want).values())
        self.correct += ok
        self.found += sum(got.values())
        self.truth += sum(want.values())
        self.doc_f1.append(_f1(ok, sum(got.values()), sum(want.values())))

    def prf(self) -> tuple[float, float, float]:
        """Micro precision, recall and F1."""
        p = self.correct / self.found if self.found else 0.0
        r = self.correct / self.truth if self.truth else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)

    def line(self, name: str) -> str:
        p, r, f = self.prf()
        avg = sum(self.doc_f1) / len(self.doc_f1) if self.doc_f1 else 0.0
        return f"{name:<34} P {p:.3f}  R {r:.3f}  F1 {f:.3f}  (per-document mean F1 {avg:.3f}; {self.truth} relations)"


def _f1(ok: int, found: int, truth: int) -> float:
    return 2 * ok / (found + truth) if found + truth else 1.0


def best_variant(
    doc: Doc, got_for: Callable[[list[Region]], tuple[Counter[Rel], Counter[Rel]]]
) -> tuple[Counter[Rel], Counter[Rel]]:
    """(found, truth) relations of the variant with the best F1."""
    pairs = [got_for(v) for v in doc.variants]
    return max(pairs, key=lambda gw: _f1(sum((gw[0] & gw[1]).values()), sum(gw[0].values()), sum(gw[1].values())))


def truth_of(regions: list[Region]) -> Counter[Rel]:
    out: Counter[Rel] = Counter()
    for r in regions:
        out += relations(r.cells)
    return out


# --------------------------------------------------------------------------- systems


def ours_complete(doc: Doc) -> Counter[Rel]:
    tables, _notes = read_pdf_tables(doc.pdf)
    out: Counter[Rel] = Counter()
    for t in tables:
        out += relations(table_cells(t))
    return out


def ours_regions(doc: Doc, regions: list[Region]) -> Counter[Rel]:
    out: Counter[Rel] = Counter()
    pdf = pdfium.PdfDocument(str(doc.pdf))
    try:
        for reg in regions:
            page = pdf[reg.page - 1]
            h = page.get_height()
            x1, y1, x2, y2 = reg.bbox
            t = table_in_box(page_words(page), (x1, h - y2, x2, h - y1), reg.page)
            page.close()
            if t is not None:
                out += relations(table_cells(t))
    finally:
        pdf.close()
    return out


#: Points added around a true region for the other tools, so ruling lines on its border are inside.
MARGIN = 4.0
PLUMBER_TEXT = {"vertical_strategy": "text", "horizontal_strategy": "text"}


def plumber_complete(doc: Doc, settings: dict | None) -> Counter[Rel]:  # type: ignore[type-arg]

    out: Counter[Rel] = Counter()
    with pdfplumber.open(str(doc.pdf)) as pdf:
        for page in pdf.pages:
            for t in page.find_tables(settings or {}):
                out += relations(matrix_cells(t.extract()))
    return out


def plumber_regions(doc: Doc, regions: list[Region], settings: dict | None) -> Counter[Rel]:  # type: ignore[type-arg]

    out: Counter[Rel] = Counter()
    with pdfplumber.open(str(doc.pdf)) as pdf:
        for reg in regions:
            page = pdf.pages[reg.page - 1]
            h = float(page.height)
            x1, y1, x2, y2 = reg.bbox
            m = MARGIN
            box = (max(x1 - m, 0), max(h - y2 - m, 0), min(x2 + m, float(page.width)), min(h - y1 + m, h))
            for t in page.crop(box).find_tables(settings or {}):
                out += relations(matrix_cells(t.extract()))
    return out


def camelot_complete(doc: Doc) -> Counter[Rel]:
    import camelot  # type: ignore[import-not-found]  # deferred: about 0.7 s of CPU at import (bench/import_costs.py)

    warnings.filterwarnings("ignore", module="camelot")  # "No tables found in table area" per page
    out: Counter[Rel] = Counter()
    for t in camelot.read_pdf(str(doc.pdf), pages="all", flavor="stream"):
        out += relations(matrix_cells(t.df.values.tolist()))
    return out


def camelot_regions(doc: Doc, regions: list[Region]) -> Counter[Rel]:
    import camelot  # type: ignore[import-not-found]  # deferred: about 0.7 s of CPU at import (bench/import_costs.py)

    warnings.filterwarnings("ignore", module="camelot")
    out: Counter[Rel] = Counter()
    for reg in regions:
        x1, y1, x2, y2 = reg.bbox
        area = f"{x1 - MARGIN},{y2 + MARGIN},{x2 + MARGIN},{y1 - MARGIN}"
        for t in camelot.read_pdf(str(doc.pdf), pages=str(reg.page), flavor="stream", table_areas=[area]):
            out += relations(matrix_cells(t.df.values.tolist()))
    return out


def _systems(only: str | None) -> list[tuple[str, Callable, Callable]]:  # type: ignore[type-arg]
    systems: list[tuple[str, Callable, Callable]] = [  # type: ignore[type-arg]
        ("ours", ours_complete, ours_regions),
        ("pdfplumber default", lambda d: plumber_complete(d, None), lambda d, r: plumber_regions(d, r, None)),
        ("pdfplumber text", lambda d: plumber_complete(d, PLUMBER_TEXT), lambda d, r: plumber_regions(d, r, PLUMBER_TEXT)),
    ]
    try:
        import camelot  # type: ignore[import-not-found]  # noqa: F401  (installed? see camelot_complete)

        systems.append(("camelot stream", camelot_complete, camelot_regions))
    except Exception as exc:
        print(f"camelot stream: skipped (not installed: {type(exc).__name__}: {exc})")
    return [s for s in systems if only is None or s[0].startswith(only)]


def evaluate(docs: list[Doc], complete: Callable, given: Callable, verbose: bool = False) -> tuple[Score, Score]:  # type: ignore[type-arg]
    """(complete-process score, given-regions score) of one system."""
    sc, sg = Score(), Score()
    for doc in docs:
        try:
            found = complete(doc)
        except Exception as exc:  # a system failing on a document scores nothing there
            print(f"  {doc.name}: complete process failed ({type(exc).__name__}: {exc})")
            found = Counter()
        got, want = best_variant(doc, lambda v, found=found: (found, truth_of(v)))
        sc.add(got, want)

        def per_variant(v: list[Region], doc: Doc = doc) -> tuple[Counter[Rel], Counter[Rel]]:
            try:
                return given(doc, v), truth_of(v)
            except Exception as exc:
                print(f"  {doc.name}: given regions failed ({type(exc).__name__}: {exc})")
                return Counter(), truth_of(v)

        g2, w2 = best_variant(doc, per_variant)
        sg.add(g2, w2)
        if verbose:
            print(f"  {doc.name:<8} complete F1 {sc.doc_f1[-1]:.3f}   given regions F1 {sg.doc_f1[-1]:.3f}")
    return sc, sg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", default=None, help="comma-separated document names (default: all)")
    ap.add_argument("--only", default=None, help="one system: ours, pdfplumber, camelot")
    ap.add_argument("--every", type=int, default=1, metavar="N", help="every Nth document only (the test's subset: 3)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"no data: {DATA} is absent")
        return 1
    docs = load(DATA, set(args.docs.split(",")) if args.docs else None)[:: max(args.every, 1)]
    print(f"ICDAR 2013 table competition: {len(docs)} documents, {sum(len(d.variants) for d in docs)} ground-truth files")
    for name, complete, given in _systems(args.only):
        t0 = time.perf_counter()
        sc, sg = evaluate(docs, complete, given, args.verbose)
        dt = time.perf_counter() - t0
        print(sc.line(f"{name}, complete process"))
        print(sg.line(f"{name}, given regions") + f"  [{dt:.1f} s]")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
