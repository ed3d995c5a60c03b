"""Bad-input catalogue: every hostile input of the three rounds (issues 4/8, 23, 34), run and counted.

    .venv/bin/python eval/bad_inputs.py              # every round; the summary and any input not handled
    .venv/bin/python eval/bad_inputs.py --verbose    # every input with its message
    .venv/bin/python eval/bad_inputs.py --round 3    # one round only

The families, one module each (eval/bad_input_*.py, listed in bad_input_cases.py):

    round 1  bad files, YAML, URLs and hostile text through ingest; reads outside the source roots
             and requests to internal addresses; two ingest processes at once
    round 2  compressed and dripping downloads; huge pages to render; read-only pages with payloads in
             their links; formula/HTML payloads through every export; pasted YAML over the caps;
             deletions, decisions during a run, full disks
    round 3  discovery against hostile feeds and APIs (a good source beside each hostile one); every
             YAML under the one guarded loader; `check` after an invalid date; dense pages through
             `tables`; search case folding; leaderboard conflicts; hostile links and stores on every
             dashboard page; links in reports/; accept during an ingest; history growth

Counted for every round, each target 0 (and every process at most 1 GB): crashes (an exception or a
traceback escaped), hangs (an input's own work over 10 s; 10 s per report for a whole run), data lost,
silent wrong results (accepted when it should have been refused, a stale table, a read outside the
roots, a formula cell, a good source not proposed, a misplaced date…), requests to other hosts
(internal addresses, live references to another host, connections anywhere but 127.0.0.1). Also printed: inputs handled as
expected (a refusal naming the problem), and the largest process. Nothing touches the internet.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bad_input_dashboard as dashboard  # noqa: E402
import bad_input_discover as discover  # noqa: E402
import bad_input_exports as exports  # noqa: E402
import bad_input_loss as loss  # noqa: E402
import bad_input_tables as tables  # noqa: E402
import bad_input_yaml as yaml_cases  # noqa: E402
from bad_input_cases import ENDPOINTS, MEMORY_MB, Catalogue, Finding, rss_mb  # noqa: E402
from bad_input_confine import confine_family  # noqa: E402
from bad_input_ingest import Victim, concurrency, fetch_family, report_cases  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from tests.local_http import serve  # noqa: E402

SERVED = {
    "page.html": (b"<html><body><p>x</p></body></html>", "text/html"),
    "login.pdf": (b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>log in</body></html>", "text/html"),
    "image.pdf": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
}


def run_round(n: int, cat: Catalogue, work: Path, rounds: int) -> dict[str, bool]:
    """Every family of round `n`; returns, for round 3, discovery's good-source-beside-each-hostile-one tally."""
    beside: dict[str, bool] = {}
    with serve() as closed:
        ENDPOINTS.closed_port = closed.port  # a port just freed: connections are refused
    with serve(SERVED) as server:
        ENDPOINTS.server = server
        if n == 1:
            victim = Victim(work / "round1")
            for case in report_cases(victim.good_pdf):
                cat.add(1, case.group, case.name, lambda case=case: victim.run_case(case))
            confine_family(cat, victim)
            concurrency(cat, victim, rounds)
        elif n == 2:
            fetch_family(cat, work / "round2", server)
            render_root = dashboard.render_family(cat, work / "round2")
            dashboard.read_only_family(cat, work / "round2" / "render", render_root)
            exports.exports_family(cat, work / "round2")
            yaml_cases.yaml_caps_family(cat)
            loss.no_loss_family(cat, work / "round2")
        else:
            beside = discover.discover_family(cat, work / "round3")
            yaml_cases.every_yaml_family(cat, work / "round3" / "yaml")
            tables.tables_family(cat, work / "round3" / "tables")
            tables.search_family(cat)
            tables.leaderboard_family(cat)
            dashboard.pages_family(cat, work / "round3")
            loss.links_family(cat, work / "round3")
            loss.accept_during_ingest(cat, work / "round3")
            loss.history_growth(cat, work / "round3")
    return beside


def counts(found: list[Finding]) -> dict[str, int]:
    """The six counts of a set of findings (each target 0)."""
    return {
        "crashes": sum(f.crash for f in found),
        "hangs": sum(f.hang for f in found),
        "processes over 1 GB": sum(1 for f in found if (f.check.peak_mb or 0) > MEMORY_MB),
        "data lost": sum(f.check.lost for f in found),
        "silent wrong results": sum(f.check.wrong for f in found),
        "requests to other hosts": sum(f.check.other_hosts for f in found),
    }


def report(cat: Catalogue, rounds: list[int], beside: dict[str, bool], verbose: bool) -> list[str]:
    lines = []
    for f in cat.findings:
        c = f.check
        if verbose or not c.ok or f.crash or f.hang or c.lost or c.wrong or c.other_hosts:
            flag = "ok " if c.ok and not (f.crash or f.hang or c.lost or c.wrong or c.other_hosts) else "BAD"
            lines.append(f"{flag} r{f.round} {f.family:12s} {f.name:44s} {f.seconds:6.2f}s  {c.message[:150]}")
    for r in [*rounds, 0]:
        found = [f for f in cat.findings if r in (0, f.round)]
        if not found:
            continue
        by = Counter(f.family for f in found)
        peak = max(found, key=lambda f: f.check.peak_mb or 0.0)
        lines.append("")
        families = ", ".join(f"{k} {v}" for k, v in by.items())
        lines.append(f"{'all rounds' if r == 0 else f'round {r}'}: {len(found)} inputs ({families})")
        lines.append(f"  handled as expected: {sum(f.check.ok for f in found)} of {len(found)}")
        lines.append("  " + ", ".join(f"{k}: {v}" for k, v in counts(found).items()))
        lines.append(f"  largest process: {peak.check.peak_mb or 0:.0f} MB ({peak.check.process or 'this process'}, {peak.name}; "
                     f"limit {MEMORY_MB} MB)")  # fmt: skip
    if beside:
        lines.append(f"good source proposed beside a hostile one: {sum(beside.values())} of {len(beside)}")
    lines.append(f"this driver's peak memory: {rss_mb():.0f} MB")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true", help="print every input with its message")
    ap.add_argument("--round", type=int, choices=(1, 2, 3), action="append", help="run this round only (repeatable)")
    ap.add_argument("--rounds", type=int, default=3, help="concurrent-process rounds of round 1 (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep the temp work folder")
    args = ap.parse_args()
    rounds = sorted(set(args.round or (1, 2, 3)))
    work = Path(tempfile.mkdtemp(prefix="bad_inputs."))
    t0 = time.perf_counter()
    cat = Catalogue()
    beside: dict[str, bool] = {}
    try:
        for n in rounds:
            beside |= run_round(n, cat, work, args.rounds)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n".join(report(cat, rounds, beside, args.verbose)))
    print(f"time: {time.perf_counter() - t0:.1f} s" + (f"  (work folder kept: {work})" if args.keep else ""))
    total = counts(cat.findings)
    return 0 if not any(total.values()) and all(beside.values()) else 1


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
