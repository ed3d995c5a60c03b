"""Ingest speed: cold ingest of the corpus PDFs vs `pdftotext`, and warm re-ingest.

Usage:  python bench/ingest_speed.py [--corpus ../shared/corpus] [--repeat 3]

Cold = a fresh data folder: every PDF is hashed, extracted, sectioned, counted (and annotated,
once that stage exists), and all tables are written. pdftotext = `pdftotext FILE out.txt` on the
same files, one process each, as a user would run it. Warm = the same run again on unchanged
inputs (in-process, and as a `python -m ingest` process including interpreter start-up).
Targets (issue 2): cold ≤ 3× pdftotext; warm ≤ 0.5 s. Best of --repeat runs is reported.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.pipeline import Settings, run  # noqa: E402


def write_reports(folder: Path, pdfs: list[Path]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        rid = pdf.stem.lower()
        (folder / f"{rid}.yaml").write_text(
            f"id: {rid}\nmodel: {pdf.stem}\norganization: corpus\ndoc_type: other\nsource:\n  path: {pdf}\n"
        )


def time_pdftotext(pdfs: list[Path], out: Path) -> float:
    exe = shutil.which("pdftotext")
    if not exe:
        raise SystemExit("pdftotext not found (apt-get install poppler-utils)")
    t0 = time.perf_counter()
    for pdf in pdfs:
        subprocess.run([exe, str(pdf), str(out / f"{pdf.stem}.txt")], check=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    pdfs = sorted((args.corpus / "pdf").glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {args.corpus / 'pdf'}")
        return 2
    cold, warm, ref, cli_warm, cli_cold = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        reports = tmpd / "reports"
        write_reports(reports, pdfs)
        for i in range(args.repeat):
            data = tmpd / f"data{i}"
            settings = Settings(data_dir=data, offline=True, source_roots=(args.corpus,))
            ref.append(time_pdftotext(pdfs, tmpd))
            t0 = time.perf_counter()
            res = run(reports_dir=reports, settings=settings)
            cold.append(time.perf_counter() - t0)
            assert not res.failed, [o.message for o in res.failed]
            t0 = time.perf_counter()
            res = run(reports_dir=reports, settings=settings)
            warm.append(time.perf_counter() - t0)
            assert all(o.status == "cached" for o in res.outcomes)
            t0 = time.perf_counter()
            subprocess.run(
                [
                    *(sys.executable, "-m", "ingest", "--quiet", "--offline"),
                    *("--reports-dir", str(reports), "--data-dir", str(data), "--source-root", str(args.corpus)),
                ],
                cwd=ROOT,
                check=True,
            )
            cli_warm.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ingest",
                    "--quiet",
                    "--offline",
                    "--reports-dir",
                    str(reports),
                    "--data-dir",
                    str(tmpd / f"fresh{i}"),
                    "--source-root",
                    str(args.corpus),
                ],
                cwd=ROOT,
                check=True,
            )
            cli_cold.append(time.perf_counter() - t0)
    pages = sum(len(__import__("pypdfium2").PdfDocument(str(p))) for p in pdfs)
    c, w, r, cw, cc = min(cold), min(warm), min(ref), min(cli_warm), min(cli_cold)
    print(f"corpus: {len(pdfs)} PDFs, {pages} pages (best of {args.repeat})")
    print(f"pdftotext (one process per file):   {r:6.3f} s")
    print(f"cold ingest (in-process, all stages): {c:6.3f} s   ratio to pdftotext: {c / r:4.2f}x   (target <= 3x)")
    print(
        f"cold ingest (python -m ingest):       {cc:6.3f} s   ratio to pdftotext: {cc / r:4.2f}x"
        "   (a fresh process: start-up included)"
    )
    print(f"warm re-ingest (in-process):          {w:6.3f} s   (target <= 0.5 s)")
    print(f"warm re-ingest (python -m ingest):    {cw:6.3f} s   (includes interpreter and library start-up)")
    ok = c / r <= 3 and w <= 0.5
    print("targets:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
