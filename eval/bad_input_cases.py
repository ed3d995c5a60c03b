"""The bad-input catalogue's building blocks (eval/bad_inputs.py): what every family reports (a
`Finding` per input, collected by a `Catalogue`), a report-file case (`Case`, the YAML it writes),
and the generators of bad files. The families are in one module per kind of input:

    bad_input_files / _yaml / _urls / _pathological   bad report files, YAML, URLs, hostile text (ingest)
    bad_input_ingest      runs those through the pipeline; compressed and dripping downloads; two runs at once
    bad_input_confine     reads outside the source roots, requests to internal addresses
    bad_input_dashboard   page renders, read-only pages, hostile URLs, the faults a new user hit
    bad_input_exports     formula and HTML payloads through every export
    bad_input_loss        deletions, decisions and accepts during a run, full disks, links, history growth
    bad_input_discover    feeds and APIs that send hostile values, bombs and drips; proposals kept
    bad_input_tables      dense pages through `tables`, search case folding, leaderboard conflicts
"""

from __future__ import annotations

import resource
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import EncryptionMethod

from tests.local_http import LocalServer

HEAD = "id: victim\nmodel: Victim\norganization: Lab\ndoc_type: other\n"
#: An input whose own work (a report's run, a page, a request) takes longer than this is a hang.
HANG_SECONDS = 10.0


def batch_limit(report_runs: int) -> float:
    """The hang limit of a case that runs whole batches: 10 s per report run, counted over all its runs
    (a case timing two runs of two reports is not a hang at 12 s on a loaded machine)."""
    return HANG_SECONDS * report_runs


#: The memory every process may peak at (a worker, a download, a render, this driver's growth).
MEMORY_MB = 1024


def rss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Check:
    """What one input's run showed: handled as expected (`ok`), and the counts the catalogue adds up."""

    ok: bool
    message: str
    lost: int = 0  # good results gone afterwards
    wrong: int = 0  # silent wrong results: accepted when it should not be, stale, leaked, misplaced
    other_hosts: int = 0  # requests to (or live references of) hosts other than the one asked
    peak_mb: float | None = None  # the peak of the process that handled it (worker, child, or this one's growth)
    process: str = ""  # which process that was
    seconds: float | None = None  # its own time (a report's run), when not the wall time of the case
    limit: float = HANG_SECONDS  # over this, a hang (a case that runs a whole batch allows 10 s per report)


@dataclass
class Finding:
    """One input of the catalogue and what happened to it."""

    round: int
    family: str
    name: str
    check: Check
    seconds: float
    crash: bool = False

    @property
    def own_seconds(self) -> float:
        """The time the hang limit applies to: the check's own (a report's run) when it gave one."""
        return self.check.seconds if self.check.seconds is not None else self.seconds

    @property
    def hang(self) -> bool:
        return self.own_seconds > self.check.limit


@dataclass
class Catalogue:
    """Runs inputs and keeps their findings; an exception escaping a case is a crash, never the end of the run."""

    findings: list[Finding] = field(default_factory=list)

    def add(self, round_: int, family: str, name: str, fn: Callable[[], Check]) -> Finding:
        t0 = time.perf_counter()
        try:
            check = fn()
            crash = "internal error" in check.message or "Traceback" in check.message
        except Exception:
            check, crash = Check(False, traceback.format_exc(limit=4)), True
        found = Finding(round_, family, name, check, time.perf_counter() - t0, crash)
        self.findings.append(found)
        return found


@dataclass
class Case:
    """One bad input: how to set it up, the words a clear message contains, and whether reading it is fine."""

    group: str
    name: str
    setup: Callable[[Path], str]  # work dir -> YAML text of reports/victim.yaml (may write files)
    expect: tuple[str, ...]
    may_succeed: bool = False  # damaged but legitimately readable (e.g. repairable xref)
    settings: dict = field(default_factory=dict)


class Endpoints:
    """The 127.0.0.1 server of the URL cases and a port that refuses connections; set by
    eval/bad_inputs.py before it runs them."""

    server: LocalServer
    closed_port: int = 9


ENDPOINTS = Endpoints()


def pdf_bytes(pages: int = 3, encrypt: str | None = None, method: str | None = None, image: Path | None = None) -> bytes:
    pdf = FPDF()
    if encrypt is not None:
        kw = {"encryption_method": getattr(EncryptionMethod, method)} if method else {}
        pdf.set_encryption(owner_password="owner", user_password=encrypt, **kw)
    pdf.set_font("helvetica", size=11)
    for i in range(pages):
        pdf.add_page()
        if image is not None:
            pdf.image(str(image), x=10, y=10, w=150)
        else:
            pdf.text(20, 20, f"Page {i + 1}: the agent calls a tool and earns a reward.")
    return bytes(pdf.output())


def blank_pdf(pages: int) -> bytes:
    pdf = FPDF()
    for _ in range(pages):
        pdf.add_page()
    return bytes(pdf.output())


ZERO_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
    b"trailer << /Root 1 0 R >>\n%%EOF\n"
)


def file_case(group: str, name: str, filename: str, data: Callable[[Path], bytes], expect: tuple[str, ...], **kw) -> Case:
    def setup(work: Path) -> str:
        p = work / "inputs" / f"{name}-{filename}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data(work))
        return HEAD + f"source:\n  path: {p}\n"

    return Case(group, name, setup, expect, **kw)


def yaml_case(group: str, name: str, text: str | bytes, expect: tuple[str, ...]) -> Case:
    def setup(work: Path) -> str | bytes:
        return text

    return Case(group, name, setup, expect)  # type: ignore[arg-type]


def url_case(name: str, path: str | Callable[[LocalServer], str], expect: tuple[str, ...], **kw) -> Case:
    def setup(work: Path) -> str:
        server = ENDPOINTS.server
        url = path(server) if callable(path) else server.url(path)
        return HEAD + f"source:\n  url: '{url}'\n"

    return Case("url", name, setup, expect, **kw)
