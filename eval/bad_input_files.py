"""Bad files: empty, truncated, broken or encrypted PDFs, scans, bytes that are not what their
name says, and source paths that are missing or outside the allowed folders."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from bad_input_cases import HEAD, ZERO_PAGE_PDF, Case, blank_pdf, file_case, pdf_bytes
from PIL import Image


def pdf_cases(good_pdf: bytes) -> list[Case]:
    """Empty files of every kind, and PDFs that are truncated, broken, encrypted, scanned or blank."""
    cases: list[Case] = []
    unreadable = ("unreadable pdf", "not a pdf", "damaged")
    # empty files, every kind
    for ext in ("pdf", "md", "html", "txt", "markdown"):
        cases.append(file_case("file", f"empty-{ext}", f"empty.{ext}", lambda w: b"", ("empty file",)))
    cases.append(file_case("file", "empty-no-suffix", "empty", lambda w: b"", ("empty file",)))
    # truncated PDFs
    for frac in (0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99):
        cases.append(
            file_case("file", f"truncated-{frac:.2f}", "t.pdf", lambda w, f=frac: good_pdf[: int(len(good_pdf) * f)], unreadable)
        )
    cases.append(file_case("file", "header-only", "h.pdf", lambda w: b"%PDF-1.7\n", unreadable))
    cases.append(file_case("file", "header-then-garbage", "g.pdf", lambda w: b"%PDF-1.4\n" + os.urandom(5000), unreadable))
    # broken xref tables (pdfium rebuilds many of them: reading them is fine; crashing or silence is not)
    base = pdf_bytes(3)
    xref_variants = {
        "startxref-wrong": lambda b: re.sub(rb"startxref\n\d+", b"startxref\n999999", b),
        "xref-garbage": lambda b: re.sub(rb"xref\n.*?trailer", b"xref\nnot an xref table\ntrailer", b, flags=re.S),
        "xref-offsets-shifted": lambda b: re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m[1]) + 7), b),
        "xref-and-trailer-cut": lambda b: re.sub(rb"xref.*", b"", b, flags=re.S),
        "trailer-without-root": lambda b: re.sub(rb"/Root \d+ 0 R", b"", b),
        "objects-zeroed": lambda b: b[:200] + b"\x00" * (len(b) - 400) + b[-200:],
        "eof-marker-missing": lambda b: b.replace(b"%%EOF", b""),
    }
    for name, fn in xref_variants.items():
        cases.append(
            file_case(
                "file", f"broken-{name}", "x.pdf", lambda w, f=fn: f(base), (*unreadable, "no text layer"), may_succeed=True
            )
        )
    # encrypted
    for method in (None, "RC4", "AES_128", "AES_256"):
        cases.append(
            file_case(
                "file",
                f"encrypted-{method or 'default'}",
                "e.pdf",
                lambda w, m=method: pdf_bytes(1, encrypt="secret", method=m),
                ("encrypted pdf", "password"),
            )
        )
    # scanned / no text layer

    def scanned(pages: int) -> Callable[[Path], bytes]:
        def make(work: Path) -> bytes:
            img = work / "inputs" / "scan.png"
            Image.new("RGB", (300, 200), "white").save(img)
            return pdf_bytes(pages, image=img)

        return make

    for n in (1, 4):
        cases.append(file_case("file", f"scanned-{n}-pages", "s.pdf", scanned(n), ("no text layer",)))
    cases.append(file_case("file", "blank-pages", "b.pdf", lambda w: blank_pdf(3), ("no text layer",)))
    cases.append(file_case("file", "zero-pages", "z.pdf", lambda w: ZERO_PAGE_PDF, ("no pages", "unreadable pdf")))
    return cases


def other_file_cases() -> list[Case]:
    """Bytes that are not what the file name says, files without prose, too many pages."""
    cases: list[Case] = []
    # non-PDF bytes named .pdf
    fakes = {
        "zip": b"PK\x03\x04" + os.urandom(300),
        "png": b"\x89PNG\r\n\x1a\n" + os.urandom(300),
        "jpeg": b"\xff\xd8\xff\xe0" + os.urandom(300),
        "gzip": b"\x1f\x8b\x08" + os.urandom(300),
        "random": os.urandom(4096).replace(b"%PDF", b"xxxx"),
        "plain-text": b"Just some text that is not a PDF.\n" * 20,
        "html-error-page": b"<!DOCTYPE html><html><head><title>404</title></head><body>Not found</body></html>",
        "utf16-text": "agent tool reward".encode("utf-16"),
        "elf": b"\x7fELF" + os.urandom(300),
    }
    for name, data in fakes.items():
        cases.append(file_case("file", f"fake-pdf-{name}", "f.pdf", lambda w, d=data: d, ("not a pdf",)))
    # wrong content in other kinds
    cases.append(
        file_case("file", "binary-named-md", "b.md", lambda w: b"\x89PNG\r\n\x1a\n\x00\x00" + os.urandom(200), ("binary data",))
    )
    cases.append(file_case("file", "md-only-front-matter", "f.md", lambda w: b"---\ntitle: x\n---\n", ("no prose",)))
    cases.append(file_case("file", "md-only-code", "c.md", lambda w: b"```\nprint(1)\n```\n", ("no prose",)))
    cases.append(
        file_case(
            "file",
            "html-script-only",
            "n.html",
            lambda w: b"<html><head><title>t</title></head><body><script>var a = 1;</script></body></html>",
            ("no article text", "no prose"),
        )
    )
    cases.append(
        file_case("file", "unsupported-suffix", "r.docx", lambda w: b"Some text in a docx-named file", ("unsupported file type",))
    )
    cases.append(
        file_case(
            "file", "too-many-pages", "long.pdf", lambda w: pdf_bytes(60), ("more than the limit",), settings={"max_pages": 50}
        )
    )
    return cases


def path_cases() -> list[Case]:
    """Source paths that are missing, a folder, a device, or outside the allowed folders."""
    cases: list[Case] = []
    cases.append(Case("path", "path-missing", lambda w: HEAD + "source:\n  path: no/such/file.pdf\n", ("not found",)))
    cases.append(Case("path", "path-is-directory", lambda w: HEAD + f"source:\n  path: {w / 'inputs'}\n", ("is a directory",)))
    cases.append(Case("path", "path-is-dev-null", lambda w: HEAD + "source:\n  path: /dev/null\n", ("outside the allowed",)))
    cases.append(
        Case(
            "path",
            "path-missing-relative-escape",
            lambda w: HEAD + "source:\n  path: ../../../../nope.pdf\n",
            ("outside the allowed",),
        )
    )
    cases.append(
        Case("path", "file-url-missing", lambda w: HEAD + "source:\n  url: file:///no/such/file.pdf\n", ("outside the allowed",))
    )
    return cases
