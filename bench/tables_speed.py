"""How the `tables` command's time grows with the words of a page (issue 34: near-linear structure detection).

Usage:  python bench/tables_speed.py [--sizes 1000 2000 5000 10000 20000] [--layouts grid-25 ...] [--cli]

Each layout is a generated one-page PDF of about N words (reportlab), read by what the command's
process for that page runs (`ingest.tables_command.page_job`: words from pdfium and every stage of
structure detection), here in this process. Printed per layout: CPU seconds of this process (`time.process_time`,
best of `--repeat` runs: on a shared machine it does not swing with other jobs' load) per size, and
the ratio of each time to the one at half the words (linear: 2; the pairwise band test grew about 4
to 8 per doubling). Sizes that are not doublings of each other are compared per doubling:
ratio ** (1 / log2(size ratio)). `--cli` also times `python -m ingest tables` (wall seconds,
a process per page under the ingest limits) at the largest size.

Layouts:
    grid-25      a result table: a label column and 24 columns of numbers, rows added
    grid-square  a table growing both ways (rows and columns about sqrt(N))
    text-table   a label, a sentence-like cell and three numbers per row
    beside-prose a table beside a column of prose (the side-by-side split)
    diagonal     every word on a line of its own at its own x (as many columns as words)
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from ingest.tables_command import page_job  # noqa: E402

SIZES = [1000, 2000, 5000, 10000, 20000]
#: The largest growth per doubling of the words counted as near-linear (the issue's "about 2x").
MAX_PER_DOUBLING = 2.5


def _canvas(path: Path, width: float, height: float, items: list[tuple[float, float, str]], size: float) -> Path:
    """One page of `items` (x, y from the top, text) in Helvetica at `size` points."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(width, height))
    c.setFont("Helvetica", size)
    for x, y, text in items:
        c.drawString(x, height - y, text)
    c.showPage()
    c.save()
    return path


def grid(path: Path, words: int, cols: int | None = None) -> Path:
    cols = cols or 25
    rows = max(2, words // cols)
    size = 5.0
    items = [(40, 40 + r * size * 1.6, f"Model-{r}") for r in range(rows)]
    items += [(40 + 8 * size + k * 4.2 * size, 40 + r * size * 1.6, f"{(r * 7 + k * 3) % 97}.{k % 10}")
              for r in range(rows) for k in range(cols - 1)]  # fmt: skip
    return _canvas(path, 80 + 8 * size + cols * 4.2 * size, 80 + rows * size * 1.6, items, size)


def grid_square(path: Path, words: int) -> Path:
    return grid(path, words, max(3, round(math.sqrt(words))))


def text_table(path: Path, words: int) -> Path:
    size, per_row = 5.0, 11  # label + seven-word cell + three numbers
    rows = max(2, words // per_row)
    cell = "trained with rule based rewards and tools"
    items = []
    for r in range(rows):
        y = 40 + r * size * 1.6
        items += [(40, y, f"Method-{r}"), (40 + 10 * size, y, cell)]
        items += [(40 + 40 * size + k * 5 * size, y, f"{(r + k) % 90}.{k}") for k in range(3)]
    return _canvas(path, 60 * size + 80, 80 + rows * size * 1.6, items, size)


def beside_prose(path: Path, words: int) -> Path:
    size = 5.0
    rows = max(4, words // 16)  # a prose line of 10 words beside a table row of a label and 5 numbers
    prose = "the agent is trained with a reward on each step of the task"
    items = []
    for r in range(rows):
        y = 40 + r * size * 1.6
        items.append((40, y, " ".join(prose.split()[r % 4 : r % 4 + 10])))
        items.append((40 + 45 * size, y, f"Row-{r}"))
        items += [(40 + 53 * size + k * 5 * size, y, f"{(r + k) % 90}.{k}") for k in range(5)]
    return _canvas(path, 90 * size + 80, 80 + rows * size * 1.6, items, size)


def diagonal(path: Path, words: int) -> Path:
    size = 0.5  # 20,000 baselines must fit the largest page (14,400 pt)
    items = [(20 + 0.6 * i, 20 + 0.6 * i, f"{i % 10}") for i in range(words)]
    return _canvas(path, 40 + 0.6 * words, 40 + 0.6 * words, items, size)


LAYOUTS: dict[str, Callable[[Path, int], Path]] = {
    "grid-25": grid,
    "grid-square": grid_square,
    "text-table": text_table,
    "beside-prose": beside_prose,
    "diagonal": diagonal,
}


def seconds(path: Path, repeat: int) -> tuple[float, int]:
    """Best CPU seconds of the command's page job on the page, and the number of table cells found."""
    best, cells = math.inf, 0
    for _ in range(repeat):
        t0 = time.process_time()
        tables, notes = page_job((str(path), 1))
        best = min(best, time.process_time() - t0)
        cells = sum(len(t.cells) for t in tables)
        if notes:
            print(f"      notes: {notes}")
    return best, cells


def per_doubling(t_small: float, t_big: float, n_small: int, n_big: int) -> float:
    return (t_big / max(t_small, 1e-3)) ** (1 / math.log2(n_big / n_small))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    ap.add_argument("--layouts", nargs="+", default=list(LAYOUTS), choices=list(LAYOUTS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cli", action="store_true", help="also time `python -m ingest tables` at the largest size")
    args = ap.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="tables_speed.") as tmp:
        for name in args.layouts:
            print(f"{name}:")
            prev: tuple[int, float] | None = None
            for n in args.sizes:
                pdf = LAYOUTS[name](Path(tmp) / f"{name}-{n}.pdf", n)
                s, cells = seconds(pdf, args.repeat)
                ratio = per_doubling(prev[1], s, prev[0], n) if prev else None
                if ratio is not None and s > 0.2:  # below that, start-up costs and timer noise dominate
                    worst = max(worst, ratio)
                shown = f"  x{ratio:.2f} per doubling" if ratio is not None else ""
                print(f"  {n:6,d} words  {s:7.2f} s CPU  {cells:6,d} cells{shown}")
                prev = (n, s)
            if args.cli:
                pdf = Path(tmp) / f"{name}-{args.sizes[-1]}.pdf"
                t0 = time.perf_counter()
                out = subprocess.run([sys.executable, "-m", "ingest", "tables", str(pdf), "--format", "json"],
                                     cwd=ROOT, capture_output=True, text=True, check=False)  # fmt: skip
                print(f"  python -m ingest tables at {args.sizes[-1]:,} words: {time.perf_counter() - t0:.2f} s wall, "
                      f"exit {out.returncode}")  # fmt: skip
    print(f"largest growth per doubling (times over 0.2 s): x{worst:.2f} (bound x{MAX_PER_DOUBLING})")
    return 0 if worst <= MAX_PER_DOUBLING else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
