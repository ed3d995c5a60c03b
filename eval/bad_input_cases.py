"""The bad-input catalogue's building blocks (eval/bad_inputs.py): a case, the report YAML it
writes, and the generators of bad files. The cases themselves are in one module per topic:
bad_input_files.py, bad_input_yaml.py, bad_input_urls.py, bad_input_pathological.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import EncryptionMethod

from tests.local_http import LocalServer

HEAD = "id: victim\nmodel: Victim\norganization: Lab\ndoc_type: other\n"


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
