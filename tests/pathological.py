"""Generated hostile text inputs, shared by tests/test_linear_time.py, tests/test_text_tricks.py,
eval/bad_inputs.py and bench/pathological.py.

`MARKDOWN` maps a name to a function size → Markdown bytes of about that size; each one made a
pattern of the old extractor backtrack or rescan (time growing 3–6× per doubling). Every input
also holds the word "agent", so a fast but wrong extraction (everything dropped) is noticed.
`TRICKS` are invisible-character tricks that hide a word from keyword counting, and
`tricky_pdf` writes a PDF whose text layer carries any Unicode text, invisible characters included.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path


def _fill(unit: bytes, size: int, tail: bytes = b"\nThe agent ends here.\n") -> bytes:
    return unit * max(1, size // len(unit)) + tail


MARKDOWN: dict[str, Callable[[int], bytes]] = {
    # paired constructs that never close: the old `.*?` pattern rescanned to the end for every opener
    "unclosed-comment": lambda n: _fill(b"<!-- agent\n", n),
    "unclosed-script": lambda n: _fill(b"<script>agent\n", n),
    "unclosed-shortcode": lambda n: _fill(b"{{< agent\n", n),
    "unclosed-rawhtml": lambda n: _fill(b"{{< rawhtml >}} agent\n", n),
    "unclosed-fence": lambda n: _fill(b"```python\nagent\n", n),
    "unclosed-style-mixed-case": lambda n: _fill(b"<STYLE>agent <svg agent\n", n),
    "fence-run-one-line": lambda n: b"`" * n + b"\nThe agent ends here.\n",
    # blank lines: `^\s*` crossed every following newline, at every line
    "blank-lines": lambda n: b"The agent starts.\n" + b"\n" * n + b"The agent ends here.\n",
    "blank-space-lines": lambda n: b"The agent starts.\n" + _fill(b"   \n", n),
    # reference links, links, images and tags on long lines: `[^\]]*` / `[^>]*` rescanned per opener
    "open-brackets": lambda n: b"agent " + b"[" * n + b"\n",
    "reference-labels": lambda n: _fill(b"[agent] [x]: ", n),
    "reference-lines": lambda n: _fill(b"[agent\n", n),
    "open-links": lambda n: b"agent " + b"[a](" * (n // 4) + b"\n",
    "open-images": lambda n: b"agent " + b"![" * (n // 2) + b"\n",
    "open-tags": lambda n: b"agent " + b"<a" * (n // 2) + b"\n",
    "tag-words": lambda n: _fill(b"<agent ", n),
    # whitespace runs where two `\s*` met (heading, table rule)
    "heading-spaces": lambda n: b"# " + b" " * n + b"x\nThe agent ends here.\n",
    "leading-spaces": lambda n: b" " * n + b"x agent\n",
    "table-rule-spaces": lambda n: b"|--" + b" " * n + b"--x\nagent\n",
    "emphasis-marks": lambda n: b"agent " + b"*_~" * (n // 3) + b"\n",
    "hyphen-words": lambda n: _fill(b"agent-\nic ", n),
    # full stops the sentence splitter rejects (inside an open bracket, after an abbreviation): each
    # rejection re-read the sentence from its start, so one long paragraph took minutes at 20 KB
    "open-paren-full-stops": lambda n: b"(" + b"The agent acts. " * max(1, n // 16) + b"\n",
    "abbreviation-run": lambda n: b"The agent, e.g. " * max(1, n // 16) + b"\n",
    # one sentence repeated: every cue of every dimension fires in every sentence
    "cue-dense-repeats": lambda n: b"We train an agent with a tool and a reward. " * max(1, n // 44) + b"\n",
}


def long_words(size: int, word: int = 30_000, joiner: str = "-\n") -> str:
    """PDF-like page text of `word`-letter "words" split by line-end hyphens (or soft-hyphen markers)."""
    unit = "a" * word + joiner
    return unit * max(1, size // len(unit)) + "the agent"


#: name -> (text hiding a study word, the word counting must see). Each format is tested with each.
TRICKS: dict[str, tuple[str, str]] = {
    "soft-hyphen": ("agen\u00adtic agen\u00adtic", "agentic"),
    "left-to-right-mark": ("ag\u200eentic", "agentic"),
    "right-to-left-mark": ("agen\u200ftic", "agentic"),
    "bidi-override": ("ag\u202eent\u202cic", "agentic"),
    "bidi-embedding": ("ag\u202aent\u202bic\u202c", "agentic"),
    "bidi-isolate": ("ag\u2066en\u2067t\u2068ic\u2069", "agentic"),
    "tag-characters": ("agen\U000e0041\U000e007ftic", "agentic"),
    "variation-selector": ("agen\ufe0ftic", "agentic"),
    "variation-selector-supplement": ("agen\U000e0100tic", "agentic"),
    "word-joiner": ("agen\u2060tic", "agentic"),
    "combining-grapheme-joiner": ("agen\u034ftic", "agentic"),
    # already right before issue 8: regression guards
    "zero-width-space": ("agen\u200btic", "agentic"),
    "zero-width-joiner": ("agen\u200dtic", "agentic"),
    "fullwidth": ("\uff41\uff47\uff45\uff4e\uff54\uff49\uff43", "agentic"),
    "no-break-space": ("credit\u00a0assignment", "credit assignment"),
    "ligature": ("veri\ufb01ed agentic tool", "agentic"),
}


def tricky_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer is exactly `lines` (any Unicode, invisible characters too).

    Each distinct character gets a one-byte code in a standard-14 font, and a ToUnicode map
    gives that code's Unicode value, so pdfium reports the characters as written. (A drawing
    library would drop characters its font has no glyph for, and with them the trick.)
    """
    chars = sorted({c for line in lines for c in line})
    if len(chars) > 250:
        raise ValueError("tricky_pdf supports at most 250 distinct characters")
    code = {c: i + 1 for i, c in enumerate(chars)}

    def utf16(c: str) -> str:
        return c.encode("utf-16-be").hex().upper()

    cmap = "\n".join(f"<{code[c]:02X}> <{utf16(c)}>" for c in chars)
    to_unicode = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"{len(chars)} beginbfchar\n{cmap}\nendbfchar\n"
        "endcmap CMapName currentdict /CMap defineresource pop end end\n"
    ).encode()
    ops = ["BT /F1 11 Tf 14 TL 50 780 Td"]
    for line in lines:
        ops.append("<" + "".join(f"{code[c]:02X}" for c in line) + "> Tj T*")
    ops.append("ET")
    content = "\n".join(ops).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(to_unicode) + to_unicode + b"endstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def deflate_bomb(path: Path, inflated_mb: int) -> Path:
    """A one-page PDF whose content stream is a few words then `inflated_mb` MB of spaces (about 1/1000 the size).

    The stream is built from one compressed 1 MB block repeated (each ends with a full flush, so
    the copies are independent) and a closed-form Adler-32: seconds to make, not minutes.
    """
    head = b"BT /F1 12 Tf 72 720 Td (deflate bomb) Tj ET\n"
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(b" " * (1 << 20)) + comp.flush(zlib.Z_FULL_FLUSH)
    end = comp.flush(zlib.Z_FINISH)
    a0, n, mod = zlib.adler32(head), inflated_mb << 20, 65521
    a = ((a0 & 0xFFFF) + 32 * n) % mod  # appending n bytes of value 32 (a space)
    b = ((a0 >> 16) + n * (a0 & 0xFFFF) + 32 * (n * (n + 1) // 2)) % mod
    stream = b"\x78\xda" + first + block * inflated_mb + end + struct.pack(">I", (b << 16) | a)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))
    return path
