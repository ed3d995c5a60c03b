"""Stage 3 — extract, for Markdown/HTML posts: only prose is kept.

Excluded, by rule: YAML/TOML front matter, fenced code blocks, Hugo shortcodes (`{{< … >}}`, `{{% …
%}}`, and the body of `rawhtml`), display math (`$$…$$`), HTML tags (their text is kept), image
syntax and link targets (link text is kept). Each heading starts a new block ("page"), labelled by
the heading, so evidence from a post can name its section.

Hostile input is bounded (`ExtractLimits`). Every Markdown rule runs in linear time:
paired constructs (`<!-- … -->`, `<script> … </script>`, shortcodes, fences, `$$`) are found
with a forward scan that remembers where the next closer is, so an opener without a closer is
never rescanned, and inline syntax (links, images, tags) is parsed by a scanner instead of
backtracking patterns. The block passes work on the file's bytes (every marker is ASCII), so
a large file is never held as several full-size copies of wide Unicode text.

Why a scanner of our own and not markdown-it-py: `bench/markdown_engines.py` runs both on the hostile
generators and the corpus posts; markdown-it-py takes seconds where this takes milliseconds on unclosed
links, images and brackets, and drops the prose inside HTML blocks of some posts.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ingest.common.document import DEFAULT_LIMITS, MB, Budget, Document, ExtractionError, ExtractLimits, Page
from ingest.reading.textnorm import dehyphenate, normalize

# --------------------------------------------------------------------------- Markdown / HTML
# Block passes work on bytes (all markers are ASCII, so UTF-8 and Latin-1 files are alike).

_FRONT_MATTER = re.compile(rb"\A(?:\xef\xbb\xbf)?(---|\+\+\+)[ \t]*\n.*?\n\1[ \t]*(\n|\Z)", re.S)
_RUN = {b"`": re.compile(rb"`+"), b"~": re.compile(rb"~+")}
_PURE_FENCE = re.compile(rb"[ \t]*(`{3,}|~{3,})[ \t]*$")  # a line that is only a fence (can close one)


@dataclass(frozen=True)
class _Pair:
    """A construct dropped with its content: an opener pattern and the closer that ends it."""

    what: str
    opener: re.Pattern[bytes]
    closer: Callable[[re.Match[bytes]], re.Pattern[bytes]]
    key: Callable[[re.Match[bytes]], bytes] = lambda m: b""


def _fixed(pattern: bytes, flags: int = 0) -> Callable[[re.Match[bytes]], re.Pattern[bytes]]:
    rx = re.compile(pattern, flags)
    return lambda m: rx


_HTML_CLOSERS = {name: re.compile(rb"</" + name + rb"\s*>", re.I) for name in (b"script", b"style", b"video", b"audio", b"svg")}

_PAIRS = (
    _Pair(
        "raw-HTML shortcode blocks",
        re.compile(rb"\{\{[<%]\s*rawhtml\s*[>%]\}\}"),
        _fixed(rb"\{\{[<%]\s*/rawhtml\s*[>%]\}\}"),
    ),
    _Pair("shortcodes", re.compile(rb"\{\{[<%]"), _fixed(rb"[>%]\}\}")),
    _Pair("display math", re.compile(rb"\$\$"), _fixed(rb"\$\$")),
    _Pair(
        "script/style/media elements",
        re.compile(rb"<(script|style|video|audio|svg)\b", re.I),
        lambda m: _HTML_CLOSERS[m.group(1).lower()],
        lambda m: m.group(1).lower(),
    ),
    _Pair("HTML comments", re.compile(rb"<!--"), _fixed(rb"-->")),
)


def _drop_pairs(data: bytes, pair: _Pair) -> tuple[bytes, int]:
    """Replace every `opener … closer` (shortest, leftmost, like `opener.*?closer`) by a newline.

    Linear: the next closer after a position is searched once and remembered, and once no closer
    follows an opener, no later opener of that kind can be closed, so it is never searched again.
    """
    out = bytearray()
    pos = search = n = 0
    view = memoryview(data)
    nxt: dict[bytes, tuple[int, int] | None] = {}  # kind -> (start, end) of the next closer known
    while (m := pair.opener.search(data, search)) is not None:
        key = pair.key(m)
        known = nxt.get(key, (-1, -1))
        if known is not None and known[0] < m.end():
            c = pair.closer(m).search(data, m.end())
            known = nxt[key] = (c.start(), c.end()) if c else None
        if known is None:  # no closer after here: this opener stays text
            search = m.start() + 1
            continue
        out += view[pos : m.start()]
        out += b"\n"
        pos = search = known[1]
        n += 1
    if not n:
        return data, 0
    out += view[pos:]
    return bytes(out), n


def _fence_lines(data: bytes) -> Iterator[tuple[int, int, bytes, int, bool]]:
    """Lines that open with ``` or ~~~ after optional spaces/tabs (like `^[ \t]*(`{3,}|~{3,})` in
    MULTILINE mode), found with substring search: each line is looked at once, from its first fence.
    """
    n, pos = len(data), 0
    nxt = {b"```": data.find(b"```"), b"~~~": data.find(b"~~~")}
    while pos < n:
        for f, at in nxt.items():
            if 0 <= at < pos:
                nxt[f] = data.find(f, pos)
        found = [at for at in nxt.values() if at >= 0]
        if not found:
            return
        q = min(found)
        start = data.rfind(b"\n", pos, q) + 1 or pos
        end = data.find(b"\n", q)
        end = n if end < 0 else end
        if not data[start:q].strip(b" \t"):
            ch = data[q : q + 1]
            run = _RUN[ch].match(data, q).end() - q  # type: ignore[union-attr]
            yield start, end, ch, run, _PURE_FENCE.match(data, start, end) is not None
        pos = end + 1


def _drop_fences(data: bytes) -> tuple[bytes, int]:
    """Remove fenced code blocks: from an opening ``` or ~~~ line to the next line holding only that fence.

    As before, the closer is the next fence-only line with the opener's exact run length, else
    (longest first) a shorter run of at least 3; an opener without any closer stays text.
    Fence lines are indexed by (character, length), so each opener costs a lookup, not a scan.
    """
    lines = list(_fence_lines(data))  # (line start, line end, char, run length, fence-only)
    if not lines:
        return data, 0
    closers: dict[tuple[bytes, int], list[int]] = {}
    for i, (_, _, ch, k, pure) in enumerate(lines):
        if pure:
            closers.setdefault((ch, k), []).append(i)
    out = bytearray()
    view = memoryview(data)
    pos = n = i = 0
    while i < len(lines):
        start, _, ch, length, _ = lines[i]
        close = None
        for k in range(length, 2, -1):
            idx = closers.get((ch, k))
            if idx:
                j = bisect.bisect_right(idx, i)
                if j < len(idx):
                    close = idx[j]
                    break
        if close is None:
            i += 1
            continue
        out += view[pos:start]
        out += b"\n"
        pos = lines[close][1]
        n += 1
        i = close + 1
    if not n:
        return data, 0
    out += view[pos:]
    return bytes(out), n


def _blocks(data: bytes, notes: list[str]) -> bytes:
    """Front matter, fenced code, shortcodes, math, script/style/media and comments, each dropped in turn."""
    data = data.replace(b"\r\n", b"\n")
    m = _FRONT_MATTER.match(data)
    if m:
        data = data[m.end() :]
        notes.append("front matter excluded")
    data, n = _drop_fences(data)
    if n:
        notes.append(f"{n} fenced code blocks excluded")
    for pair in _PAIRS:
        data, n = _drop_pairs(data, pair)
        if n:
            notes.append(f"{n} {pair.what} excluded")
    return data


# Three or more blank lines; single-character repeats only (a repeated group keeps state per iteration).
_BLANK_RUN = re.compile(rb"\n[ \t]*\n[ \t]*\n[ \t]*\n(?:[ \t\n]*\n)?")

#: Lines are decoded in slices of about this many bytes.
_CHUNK = MB


def _lines(data: bytes, encoding: str, max_line_bytes: int, skip: list[bool]) -> Iterator[tuple[str, bool]]:
    """(line, was_cut) for each line of `data`, like `split("\\n")`; a line longer than the cap is cut.

    While the caller sets `skip[0]` (its block is full), whole slices are passed over up to the
    next line that starts with "#", the only kind of line that can still matter.
    """
    n, pos = len(data), 0
    while True:
        if skip[0] and pos < n and data[pos : pos + 1] != b"#":
            at = data.find(b"\n#", pos)
            if at < 0:
                return
            pos = at + 1
        if pos >= n:
            yield "", False
            return
        lim = pos + _CHUNK
        if lim >= n:
            yield from ((line, False) for line in data[pos:].decode(encoding, errors="replace").split("\n"))
            return
        nl = data.rfind(b"\n", pos, lim)
        if nl >= 0:
            yield from ((line, False) for line in data[pos:nl].decode(encoding, errors="replace").split("\n"))
            pos = nl + 1
            continue
        end = data.find(b"\n", lim)  # one line longer than a slice
        end = n if end < 0 else end
        cut = end - pos > max_line_bytes
        yield data[pos : min(end, pos + max_line_bytes)].decode(encoding, errors="ignore"), cut
        if end >= n:
            return
        pos = end + 1


# Inline syntax, parsed by a scanner (see _inline) instead of patterns that backtrack.
_EMPH = re.compile(r"(\*\*|__|\*|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)|~~)")
_QUOTE = re.compile(r"[\s>]*")  # block-quote marks: the leading run of ">" and spaces (if it holds a ">")
_LIST = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
_REFLINK = re.compile(r"\s*\[[^\]]+\]:\s+\S")  # a reference definition: "[label]: url" (the whole line goes)
_REFLINK_OPEN = re.compile(r"\s*\[[^\]]+\]:\s*$")  # "[label]:" with the url on the next line
_NOT_RULE = re.compile(r"[^|:\-\s]")
_TAG_START = re.compile(r"</?[A-Za-z]")
_ENTITY = {"&nbsp;": " ", "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'"}


class _Next:
    """The next position of a character at or after a position, remembered (each character scanned once)."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.found: dict[str, int] = {}

    def __call__(self, ch: str, pos: int) -> int:
        at = self.found.get(ch, -2)
        if at == -1 or at >= pos:
            return at
        at = self.s.find(ch, pos)
        self.found[ch] = at
        return at


def _links(line: str, image: bool) -> str:
    """Drop images `![alt](src)` (image=True) or keep the text of links `[text](url)`, leftmost first.

    Same matches as `!\\[[^\\]]*\\]\\([^)]*\\)` and `\\[([^\\]]+)\\]\\([^)]*\\)`, found in linear time.
    """
    opener = "![" if image else "["
    if opener not in line:
        return line
    nxt = _Next(line)
    out, pos, at = [], 0, line.find(opener)
    while at >= 0:
        body = at + len(opener)
        close = nxt("]", body)
        if close < 0:
            break  # no "]" after here: no later link either
        if (image or close > body) and line.startswith("(", close + 1):
            end = nxt(")", close + 2)
            if end < 0:
                break  # no ")" after here: no later link either
            out.append(line[pos:at])
            if not image:
                out.append(line[body:close])
            pos = end + 1
            at = line.find(opener, pos)
        else:
            at = line.find(opener, at + 1)
    if not out:
        return line
    out.append(line[pos:])
    return "".join(out)


def _tags(line: str) -> str:
    """Replace HTML tags `</?[A-Za-z][^>]*>` by a space, in linear time."""
    if "<" not in line:
        return line
    nxt = _Next(line)
    out, pos, search = [], 0, 0
    while (m := _TAG_START.search(line, search)) is not None:
        end = nxt(">", m.end())
        if end < 0:
            break
        out.append(line[pos : m.start()])
        out.append(" ")
        pos = search = end + 1
    if not out:
        return line
    out.append(line[pos:])
    return "".join(out)


def _inline(line: str) -> str:
    """Inline Markdown of one line to plain text; each rule runs only when its marker character occurs."""
    if "[" in line:
        line = _links(_links(line, image=True), image=False)
    if "<" in line:
        line = _tags(line)
    if "&" in line:
        for ent, ch in _ENTITY.items():
            line = line.replace(ent, ch)
    if "`" in line:
        line = line.replace("`", "")
    if "*" in line or "_" in line or "~" in line:
        line = _EMPH.sub("", line)
    if "|" in line and (line.lstrip().startswith("|") or line.count(" | ") >= 2):
        line = line.replace("|", " ")
    first = line[:1]
    if first and (first.isspace() or first in ">-*+" or first.isdigit()):
        quote = _QUOTE.match(line).end()  # type: ignore[union-attr]
        if quote and ">" in line[:quote]:  # block quotes
            line = line[quote:]
        line = _LIST.sub("", line, count=1)  # list markers
    return line


def _heading(line: str) -> str | None:
    """The text of an ATX heading line ("## Title ##" → "Title"), else None; no regex, no backtracking."""
    level = len(line) - len(line.lstrip("#"))
    if not 1 <= level <= 6 or len(line) == level or not line[level].isspace():
        return None
    return line[level:].strip().rstrip("#").rstrip()


def _is_table_rule(line: str) -> bool:
    """A Markdown table's header rule such as `|---|:--:|` (also a bare `---`)."""
    s = line.strip()
    if "--" not in s or _NOT_RULE.search(s):
        return False
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    for cell in s.split("|"):
        c = cell.strip()
        c = c[1:] if c.startswith(":") else c
        c = c[:-1] if c.endswith(":") else c
        if len(c) < 2 or c.strip("-"):
            return False
    return True


def _prose(data: bytes, encoding: str, limits: ExtractLimits, notes: list[str]) -> list[tuple[str, str]]:
    """(label, text) per heading block of the block-free Markdown, within the character caps."""
    budget = Budget(limits)
    data = _BLANK_RUN.sub(b"\n\n\n", data)  # at most two blank lines in a row (also the line loop's rule)
    blocks: list[tuple[str, str]] = []
    label, lines, size, blank_run, cut = "(before first heading)", [], 0, 0, False
    held: str | None = None  # a "[label]:" line whose url may follow on the next line
    page_room = budget.room()  # characters this block may keep

    def flush() -> None:
        text = normalize("\n".join(lines), soft_hyphens="drop").strip()
        room = budget.room()
        if len(text) > room:
            text = text[:room]
            if repr(label) not in budget.cut_pages:
                budget.cut_pages.append(repr(label))
        budget.total += len(text)
        blocks.append((label, text))

    skip = [False]  # set while the block is full, so the reader may jump to the next heading
    for line, line_cut in _lines(data, encoding, 4 * limits.max_page_chars, skip):
        if held is not None:
            was, held = held, None
            if line.strip():  # "[label]:\n  url" — both lines are the definition
                line = ""
            else:
                lines.append(_inline(was))
        if line.startswith("#") and (heading := _heading(line)) is not None:
            heading = _inline(heading).strip()
            flush()
            if budget.full:
                budget.unread_from = repr(heading)
                break
            label, lines, size, blank_run, cut = heading, [heading], len(heading), 0, False
            skip[0] = False
            page_room = budget.room()
            continue
        if cut:
            continue  # this block is full: only a heading can start the next one
        if not line or line.isspace():
            blank_run += 1
            if blank_run <= 2:  # longer runs of blank lines say nothing more
                lines.append(line if len(line) <= 80 else "")
                size += len(lines[-1]) + 1
            continue
        blank_run = 0
        if "--" in line and _is_table_rule(line):
            continue
        if "]:" in line:
            if _REFLINK.match(line):
                line = ""
            elif _REFLINK_OPEN.match(line):
                held = line
                continue
        room = page_room - size
        if line_cut or len(line) > room:
            line, cut = line[: max(room, 0)], True
            skip[0] = True
            if repr(label) not in budget.cut_pages:
                budget.cut_pages.append(repr(label))
        kept = _inline(line)
        lines.append(kept)
        size += len(kept) + 1
    else:
        if held is not None:
            lines.append(_inline(held))
        flush()
    notes.extend(budget.notes("block"))
    return blocks


def extract_markdown(text: str | bytes, *, limits: ExtractLimits | None = None, encoding: str = "utf-8") -> Document:
    """Prose of a Markdown post, one block per heading; see the module docstring for what is dropped.

    `text` may be the file's bytes (decoded with `encoding` line by line, so a large file is not
    held as wide Unicode text) or a string.
    """
    limits = limits or DEFAULT_LIMITS
    notes: list[str] = []
    if isinstance(text, str):
        data, encoding = text.encode("utf-8", errors="replace"), "utf-8"
    else:
        data = text
    data = _blocks(data, notes)
    blocks = _prose(data, encoding, limits, notes)
    kept = [(label, body) for label, body in blocks if body]
    texts = dehyphenate([body for _, body in kept])
    pages = [Page(i + 1, body, label) for i, ((label, _), body) in enumerate(zip(kept, texts, strict=True))]
    return Document("markdown", "markdown", pages, notes)


def extract_html(html: str, *, limits: ExtractLimits | None = None) -> Document:
    """Article text of an HTML page via trafilatura (navigation and boilerplate removed), headings kept."""
    import trafilatura  # deferred: only HTML sources need it (bench/import_costs.py)

    md = trafilatura.extract(
        html, output_format="markdown", include_tables=True, include_comments=False, include_links=False, favor_recall=True
    )
    if not md or not md.strip():
        raise ExtractionError("no article text found in the HTML page")
    doc = extract_markdown(md, limits=limits)
    doc.kind = "html"
    doc.engine = "trafilatura"
    doc.notes.insert(0, "HTML boilerplate (navigation, footers, comments) removed by trafilatura")
    return doc
