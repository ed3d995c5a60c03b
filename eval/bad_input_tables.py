"""Pages and stored text that cost time (round 3): dense one-page PDFs through `python -m ingest tables`
(each page in a child process under ingest's limits), a search over a page whose lower case is
longer than itself ("İ"), and the leaderboard's conflicts among thousands of claims.

    tables       the issue's page (a 150 x 25 grid of small numbers, 3,750 words: 26 s before), a page
                 of 19,000 words, and the layouts bench/tables_speed.py times (a table beside prose,
                 every word its own line and column): each read within the hang limit, its process
                 within the memory limit, and the grid's cells all found
    search       "agent" must find "Agent" on a page holding "İ" (once matched case-sensitively)
    leaderboard  2,000 reports printing different values for one model and benchmark (the conflicts
                 view once compared every value with every other: 26 s)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from bad_input_cases import Catalogue, Check

from ingest.common.document import Document, Page
from ingest.outputs import search
from ingest.outputs.leaderboard import leaderboard
from ingest.outputs.tables import RESULT_COLUMNS
from ingest.tables_command import read_tables

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from tables_speed import beside_prose, diagonal, grid, grid_square


def tables_family(cat: Catalogue, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    pages = {
        "grid-150x25-3750-words": (lambda p: grid(p, 3750), 3000),
        "grid-square-19000-words": (lambda p: grid_square(p, 19_000), 15_000),
        "table-beside-prose-20000-words": (lambda p: beside_prose(p, 20_000), 1),
        "every-word-its-own-line-20000": (lambda p: diagonal(p, 20_000), 0),
    }
    for name, (make, cells) in pages.items():

        def one(name: str = name, make: object = make, cells: int = cells) -> Check:
            pdf = make(work / f"{name}.pdf")  # type: ignore[operator]
            t0 = time.perf_counter()
            read = read_tables(pdf)
            took = time.perf_counter() - t0
            found = sum(len(t.cells) for t in read.tables)
            ok = found >= cells and not read.notes
            return Check(ok, f"{found:,} cells in {took:.1f} s, notes {read.notes}", wrong=int(found < cells),
                         peak_mb=read.peak_mb, process="tables page process", seconds=took)  # fmt: skip

        cat.add(3, "tables", name, one)


def search_family(cat: Catalogue) -> None:
    for wide in ("İ", "Iİİ"):

        def one(wide: str = wide) -> Check:
            doc = Document("pdf", "pdfium", [Page(1, f"{wide}stanbul. The Agent calls a tool; the AGENT again.")])
            hits = [h.match for h in search.search_document("r", doc, "agent")]
            ok = hits == ["Agent", "AGENT"]
            return Check(ok, f"matches {hits}", wrong=int(not ok))

        cat.add(3, "search", f"case-folding-beside-{wide}", one)


def leaderboard_family(cat: Catalogue, claims: int = 2000) -> None:
    def one() -> Check:
        claim = {"benchmark": "GSM8K", "benchmark_id": "gsm8k", "model": "M", "own": False, "page": "1", "table": "Table 1"}
        rows = [dict.fromkeys(RESULT_COLUMNS, "") | claim | {"report_id": f"r{i}", "value": f"{i / 10:.1f}", "score": i / 10}
                for i in range(claims)]  # fmt: skip
        t0 = time.process_time()
        board = leaderboard(pd.DataFrame(rows))
        took = time.process_time() - t0
        flagged = int((board["disagreement"] != "").sum())
        return Check(flagged == claims, f"{claims:,} claims, {flagged:,} flagged, {took:.1f} s CPU", wrong=int(flagged != claims),
                     seconds=took)  # fmt: skip

    cat.add(3, "leaderboard", f"conflicts-among-{claims}-claims", one)
