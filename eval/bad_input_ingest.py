"""Bad report inputs through the ingest pipeline: the file, YAML, URL and hostile-text cases
(bad_input_files / _yaml / _urls / _pathological) against a private store of three good reports,
compressed and dripping downloads, and two `python -m ingest` processes at once on one store.

Each case rewrites report `victim` (its YAML, or the file/URL it points at), runs the pipeline on
it, and checks the outcome:

    handled      failed with a message naming the problem (the case's expected words), or damaged
                 but legitimately readable (a PDF whose xref pdfium rebuilds)
    crash        an exception escaped the pipeline, an "internal error", or a traceback from the CLI
    wrong        accepted although it should have failed (a silent wrong result)
    lost         afterwards a good result is missing: victim's last good bundle (when the case
                 failed), the other reports' bundles, or their rows in the reports/counts tables
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

import bad_input_files as files
import bad_input_urls as urls
import bad_input_yaml as yaml_cases
import yaml
from bad_input_cases import HANG_SECONDS, HEAD, Case, Catalogue, Check, batch_limit, pdf_bytes, rss_mb
from bad_input_pathological import memory_cases, pathological_cases

from ingest.pipeline import run
from ingest.pipeline_settings import Outcome, Settings
from ingest.sources import fetch
from ingest.sources.fetch import FetchSettings
from ingest.store.store import Store
from tests.local_http import LocalServer

ROOT = Path(__file__).resolve().parents[1]
#: The URL cases' server is on 127.0.0.1, so they opt in to private hosts (the confine family does not).
FAST = FetchSettings(
    connect_timeout=1, read_timeout=0.3, total_timeout=1.0, retries=1, backoff=0.01, max_bytes=1_000_000,
    allow_private_hosts=True,
)  # fmt: skip


def report_cases(good_pdf: bytes) -> list[Case]:
    """Every bad report input of rounds 1 and 2 that goes through one ingest of `victim`."""
    return [
        *files.pdf_cases(good_pdf), *files.other_file_cases(), *files.path_cases(), *yaml_cases.malformed_cases(),
        *yaml_cases.wrong_type_cases(), *yaml_cases.bomb_cases(), *urls.url_cases(), *pathological_cases(),
        *memory_cases(),
    ]  # fmt: skip


def write_victim(work: Path, text: str | bytes) -> Path:
    p = work / "reports" / "victim.yaml"
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def snapshot(store: Store) -> dict[str, str]:
    return {rid: (b.meta.sha256 or "") if (b := store.load_bundle(rid)) else "" for rid in store.bundle_ids()}


def check_lost(store: Store, good: dict[str, str], failed: bool) -> list[str]:
    """What good result is gone: bundles of every report, and their rows in the tables."""
    lost = []
    now = snapshot(store)
    for rid, sha in good.items():
        if rid == "victim" and not failed:
            if not now.get(rid):
                lost.append("victim bundle missing after a successful run")
            continue
        if now.get(rid) != sha:
            lost.append(f"bundle of {rid} {'missing' if rid not in now else 'changed'}")
    reports = store.read_table("reports")
    measured = set(reports.loc[reports["measured"].astype(bool), "report_id"]) if len(reports) else set()
    counted = set(store.read_table("counts").get("report_id", []))
    for rid in good:
        if rid not in measured or rid not in counted:
            lost.append(f"{rid} missing from the tables")
    return lost


class Victim:
    """The private store of three good reports the report cases run against (`victim` is rewritten)."""

    def __init__(self, work: Path):
        self.work = work
        (work / "reports").mkdir(parents=True)
        (work / "inputs").mkdir()
        self.good_pdf = pdf_bytes(4)
        (work / "inputs" / "victim.pdf").write_bytes(self.good_pdf)
        (work / "inputs" / "other.pdf").write_bytes(pdf_bytes(2))
        (work / "inputs" / "post.md").write_text("# Post\n\nThe agent uses a tool for a reward.\n\n## More\n\nAgentic text.\n")
        self.good_yaml = HEAD + f"source:\n  path: {work / 'inputs' / 'victim.pdf'}\n"
        write_victim(work, self.good_yaml)
        for rid, src in (("other", "other.pdf"), ("post", "post.md")):
            (work / "reports" / f"{rid}.yaml").write_text(
                HEAD.replace("victim", rid) + f"source:\n  path: {work / 'inputs' / src}\n", encoding="utf-8"
            )
        self.store = Store(work / "data")
        res = run(reports_dir=work / "reports", settings=self.settings())
        if [o for o in res.outcomes if o.failed]:
            raise SystemExit(f"setup failed: {res.outcomes}")
        self.good = snapshot(self.store)

    def settings(self, **kw: object) -> Settings:
        return Settings(data_dir=self.store.root, source_roots=(self.work / "inputs",), **kw)  # type: ignore[arg-type]

    def run_case(self, case: Case) -> Check:
        """Ingest `victim` as the case sets it up; put the good victim back afterwards."""
        failed, message, outcome = True, "", None
        try:
            path = write_victim(self.work, case.setup(self.work))
            settings = self.settings(**{"fetch_settings": FAST, **case.settings})
            outcome = run(files=[path], reports_dir=self.work / "reports", settings=settings).outcomes[0]
            failed, message = outcome.failed, outcome.message
        except Exception:
            message = traceback.format_exc(limit=3)
        lost = check_lost(self.store, self.good, failed)
        write_victim(self.work, self.good_yaml)
        if snapshot(self.store).get("victim") != self.good["victim"]:
            run(files=[self.work / "reports" / "victim.yaml"], reports_dir=self.work / "reports", settings=self.settings())
        return verdict(case, outcome, message, lost)


def verdict(case: Case, outcome: Outcome | None, message: str, lost: list[str]) -> Check:
    """Handled (a clear refusal, or a damaged but readable input read), a crash, or a silent acceptance."""
    peak, seconds = (outcome.peak_mb, outcome.seconds) if outcome else (None, None)
    if outcome is None or message.startswith("internal error"):
        return Check(False, message or "no outcome", lost=len(lost), peak_mb=peak, process="report worker", seconds=seconds)
    if not outcome.failed:
        msg = f"accepted ({outcome.status}): {message}"
        return Check(case.may_succeed, msg, len(lost), wrong=0 if case.may_succeed else 1, peak_mb=peak, process="report worker",
                     seconds=seconds)  # fmt: skip
    clear = any(w in message.lower() for w in case.expect)
    return Check(clear, message + ("" if clear else "  (UNCLEAR: none of the expected words)"), len(lost), peak_mb=peak,
                 process="report worker", seconds=seconds)  # fmt: skip


def concurrency(cat: Catalogue, victim: Victim, rounds: int) -> None:
    """Two `python -m ingest` processes at once on the same store, with one bad report among good ones."""
    work, store = victim.work, victim.store
    for i in range(rounds):

        def one(i: int = i) -> Check:
            bad = work / "reports" / f"broken-{i}.yaml"
            bad.write_text(HEAD.replace("victim", f"broken-{i}") + "tags: [unclosed\n")
            cmd = [sys.executable, "-m", "ingest", "--quiet", "--reports-dir", str(work / "reports")]
            cmd += ["--data-dir", str(store.root), "--source-root", str(work / "inputs"), *(["--force"] if i % 2 else [])]
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
            outs = [p.communicate(timeout=300) for p in procs]
            bad.unlink()
            errs = "\n".join(e.decode(errors="replace") for _, e in outs)
            codes = [p.returncode for p in procs]
            lost = check_lost(store, victim.good, failed=True) + [f"temp file left: {p.name}" for p in store.root.rglob("*.tmp")]
            limit = batch_limit(len(list((work / "reports").glob("*.yaml"))))  # (two runs at once, in parallel)
            if "Traceback" in errs or any(c not in (0, 1) for c in codes):
                return Check(False, f"Traceback: exit codes {codes}: {errs[-500:]}", len(lost), limit=limit)
            ok = codes == [1, 1] and f"broken-{i}" in errs and "invalid YAML" in errs
            said = ": both named the broken file" if ok else f": {errs[-300:]}"
            return Check(ok, f"exit codes {codes}{said}", len(lost), limit=limit)

        cat.add(1, "concurrency", f"two-processes-round-{i + 1}", one)


def fetch_family(cat: Catalogue, work: Path, server: LocalServer) -> None:
    """Round 2: bodies compressed in two and three layers (up to 1.5 GiB inside, a few KB on the wire)
    and headers sent one byte at a time, also with the default download limit and a short --timeout."""
    reports = work / "fetch" / "reports"
    reports.mkdir(parents=True)
    fast = FetchSettings(connect_timeout=1, read_timeout=1, total_timeout=3, retries=0, allow_private_hosts=True)
    default = FetchSettings(allow_private_hosts=True)  # 300 s download limit: the report's --timeout must win
    cases = [
        # 64 MiB of zeros behind a PDF header, which pdfium reads for over 10 s: --timeout 8 bounds the report
        ("gzip,gzip-64MiB-timeout-8", "/encoded/gzip,gzip/64", fast, {"timeout": 8}, ("unreadable pdf", "longer than")),
        ("gzip,gzip-1GiB", "/encoded/gzip,gzip/1024", fast, {}, ("size cap",)),
        ("gzip,gzip-1.5GiB", "/encoded/gzip,gzip/1536", fast, {}, ("size cap",)),
        ("gzip-1GiB", "/encoded/gzip/1024", fast, {}, ("size cap",)),
        ("gzip,gzip,gzip-1MiB", "/encoded/gzip,gzip,gzip/1", fast, {}, ("compressed 3 times",)),
        ("gzip,gzip,gzip-1GiB", "/encoded/gzip,gzip,gzip/1024", fast, {}, ("compressed 3 times",)),
        ("headers-byte-by-byte", "/drip-headers", fast, {}, ("too slow",)),
        ("headers-byte-by-byte-timeout-5", "/drip-headers", default, {"timeout": 5}, ("too slow",)),
        ("gzip,gzip-1GiB-timeout-5", "/encoded/gzip,gzip/1024", default, {"timeout": 5}, ("size cap", "too slow")),
    ]
    for i, (name, path, fs, extra, words) in enumerate(cases):
        rid = f"f{i}"
        spec = {"id": rid, "model": rid, "organization": "L", "doc_type": "other", "source": {"url": server.url(path)}}
        (reports / f"{rid}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")

        def one(rid: str = rid, fs: FetchSettings = fs, extra: dict = extra, words: tuple = words) -> Check:
            before, t0 = rss_mb(), time.perf_counter()
            fetch.PEAKS.mb = 0.0
            settings = Settings(data_dir=work / "fetch" / "data", fetch_settings=fs, jobs=1, **extra)
            (o,) = run(files=[reports / f"{rid}.yaml"], reports_dir=reports, settings=settings).outcomes
            clear = o.failed and any(w in o.message.lower() for w in words)
            peak = max(fetch.PEAKS.mb, rss_mb() - before)
            msg = f"{o.status}: {o.message[:110]} (report {o.seconds:.1f} s, run {time.perf_counter() - t0:.1f} s)"
            return Check(clear and o.seconds <= HANG_SECONDS, msg, wrong=0 if o.failed else 1, peak_mb=peak,
                         process="download process", seconds=o.seconds)  # fmt: skip

        cat.add(2, "fetch", name, one)
