"""Inputs built to exhaust memory or time: a deflate bomb, a 50 MB line, text that made old rules
take minutes, files over the size cap, characters that hide words (tests/pathological.py)."""

from __future__ import annotations

from pathlib import Path

from bad_input_cases import HEAD, Case, file_case

from tests.pathological import MARKDOWN, TRICKS, deflate_bomb, long_words, tricky_pdf


def memory_cases() -> list[Case]:
    """Inputs built to exhaust memory: a PDF whose content stream inflates to 2 GB (refused by the
    worker's memory limit), and a 50 MB one-line Markdown file (read within the caps, with a note)."""

    def bomb(w: Path) -> bytes:
        tmp = w / "inputs" / ".bomb.pdf"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        return deflate_bomb(tmp, 2048).read_bytes()

    line = b"We train an agent with a tool and a reward. " * (50 * 1024 * 1024 // 44)
    return [
        file_case("memory", "pdf-deflate-bomb-2GB", "b.pdf", bomb, ("memory",)),
        file_case("memory", "md-50MB-one-line", "l.md", lambda w: b"# Post\n\n" + line, (), may_succeed=True),
    ]


def pathological_cases(size: int = 300_000) -> list[Case]:
    """Hostile text: inputs that made the old Markdown rules and de-hyphenation take minutes, files over
    the size cap, and characters that hide words. Readable ones must be read (fast); the rest refused."""
    g = "pathological"
    cases = [
        file_case(g, f"md-{name}", "p.md", lambda w, m=make: m(size), (), may_succeed=True) for name, make in MARKDOWN.items()
    ]
    words = long_words(size, joiner="-\n").split("\n")
    cases.append(file_case(g, "pdf-30000-letter-words", "w.pdf", lambda w: tricky_pdf(words), (), may_succeed=True))
    soft = long_words(size, joiner="\u00ad").split("\n")
    cases.append(file_case(g, "pdf-30000-letter-soft-hyphens", "s.pdf", lambda w: tricky_pdf(soft), (), may_succeed=True))
    for name, unit in (("comments", b"<!-- agent <p>x</p>\n"), ("open-tags", b"&lt;a [x]( agent ")):
        html = b"<html><body><article><p>agent</p>" + unit * (size // len(unit)) + b"</article></body></html>"
        cases.append(file_case(g, f"html-{name}", "p.html", lambda w, h=html: h, (), may_succeed=True))
    for name, (hidden, _) in TRICKS.items():
        md = f"# Post\n\nWe train an {hidden} model with a tool.\n".encode()
        cases.append(file_case(g, f"trick-md-{name}", "t.md", lambda w, d=md: d, (), may_succeed=True))
        pdf = tricky_pdf([f"We train an {hidden} model with a tool."])
        cases.append(file_case(g, f"trick-pdf-{name}", "t.pdf", lambda w, d=pdf: d, (), may_succeed=True))

    def oversize(suffix: str, head: bytes) -> Case:
        def setup(work: Path) -> str:
            p = work / "inputs" / f"oversize{suffix}"
            p.parent.mkdir(parents=True, exist_ok=True)
            with p.open("wb") as fh:  # sparse: 101 MB on paper, nothing on disk
                fh.write(head)
                fh.truncate(101 * 1024 * 1024)
            return HEAD + f"source:\n  path: {p}\n"

        return Case(g, f"file-over-size-cap{suffix}", setup, ("size cap",))

    cases += [oversize(".pdf", b"%PDF-1.4\n"), oversize(".md", b"agent "), oversize(".html", b"<html><body>agent")]
    return cases
