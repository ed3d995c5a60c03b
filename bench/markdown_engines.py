"""Markdown prose: the project's own scanner (ingest/reading/markdown.py) against markdown-it-py.

    .venv/bin/python bench/markdown_engines.py [--sizes 50000,100000,200000]

Two questions decide which engine reads Markdown posts:

1. Time on hostile input: every generator of tests/pathological.py (each made an earlier
   extractor backtrack or rescan) at doubling sizes; prints seconds per engine and the growth per
   doubling (about 2 is linear; 4 is quadratic).
2. Result on real posts: the words and the five study keywords counted in the prose each engine
   keeps from every Markdown post of ../shared/corpus/blog (skipped when absent), with the same
   word rule and lexicon as the pipeline.

markdown-it-py keeps the text of inline tokens and drops code blocks, fences, HTML blocks and
images, like the scanner; it knows nothing of front matter, Hugo shortcodes or display math, so
those are removed first by the scanner's own block pass (`_blocks`), which both engines share.
markdown-it-py is a development dependency only (requirements-dev.txt) while it is measured here.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.keywords import count_keywords  # noqa: E402
from ingest.analysis.lexicon import DEFAULT_LEXICON, load_lexicon  # noqa: E402
from ingest.reading.markdown import _blocks, extract_markdown  # noqa: E402
from ingest.reading.sections import Segment  # noqa: E402
from ingest.reading.textnorm import normalize, word_rule  # noqa: E402
from tests.pathological import MARKDOWN  # noqa: E402

BLOGS = ROOT.parent / "shared" / "corpus" / "blog"
#: Inline tokens whose text is prose (links keep their text tokens; images, HTML and code are dropped).
KEPT = {"text", "softbreak"}
#: Growth is judged only between runs at least this long (shorter ones are timer and scheduler noise).
MIN_TIMED = 0.02


def own_prose(data: bytes) -> str:
    """The scanner's prose: every block's text joined."""
    return "\n".join(p.text for p in extract_markdown(data).pages)


def markdown_it_prose(data: bytes, md: MarkdownIt | None = None) -> str:
    """markdown-it-py's prose: the text of inline tokens (code, HTML and images dropped)."""
    md = md or MarkdownIt("commonmark").enable("table")
    notes: list[str] = []
    text = _blocks(data, notes).decode("utf-8", errors="replace")
    out: list[str] = []
    for tok in md.parse(text):
        if tok.type != "inline" or not tok.children:
            continue
        out.append("".join("\n" if c.type == "softbreak" else c.content for c in tok.children if c.type in KEPT))
    return normalize("\n".join(out))


def _timed(fn: Callable[[bytes], str], data: bytes) -> float:
    t0 = time.perf_counter()
    fn(data)
    return time.perf_counter() - t0


def hostile(sizes: list[int]) -> None:
    """Seconds per engine and size, and the worst growth per doubling."""
    print(f"{'input':28} {'engine':12} " + " ".join(f"{s:>9,}" for s in sizes) + "  growth")
    worst = {"own": 0.0, "markdown-it": 0.0}
    largest = {"own": 0.0, "markdown-it": 0.0}
    for name, make in MARKDOWN.items():
        for engine, fn in (("own", own_prose), ("markdown-it", markdown_it_prose)):
            secs = [_timed(fn, make(s)) for s in sizes]
            largest[engine] += secs[-1]
            growth = max((b / a for a, b in itertools.pairwise(secs) if a >= MIN_TIMED), default=math.nan)
            if not math.isnan(growth):
                worst[engine] = max(worst[engine], growth)
            shown = "      -" if math.isnan(growth) else f"  {growth:5.1f}"
            print(f"{name:28} {engine:12} " + " ".join(f"{t:9.3f}" for t in secs) + shown)
    print(f"worst growth per doubling (runs of {MIN_TIMED} s and more):", end=" ")
    print(f"own {worst['own']:.1f}, markdown-it {worst['markdown-it']:.1f}")
    print(f"all inputs at {sizes[-1]:,} bytes: own {largest['own']:.2f} s, markdown-it {largest['markdown-it']:.2f} s")


def corpus() -> None:
    """Words and keyword counts of the prose each engine keeps from the corpus posts."""
    if not BLOGS.is_dir():
        print(f"corpus posts not found at {BLOGS}; result comparison skipped")
        return
    lexicon = load_lexicon(DEFAULT_LEXICON)
    print(f"\n{'post':26} {'words own':>10} {'words m-it':>10}  keyword counts (own/markdown-it)")
    for path in sorted(BLOGS.glob("*.md")):
        data = path.read_bytes()
        row = []
        for fn in (own_prose, markdown_it_prose):
            text = fn(data)
            res = count_keywords([Segment("body", 1, "", text)], lexicon, word_rule(text))
            counts = {}
            for r in res.counts:
                if r["section"] == "all":
                    counts[r["group"]] = counts.get(r["group"], 0) + r["count"]
            row.append((res.words["all"], counts))
        (w1, c1), (w2, c2) = row
        terms = ", ".join(f"{k} {c1.get(k, 0)}/{c2.get(k, 0)}" for k in sorted(set(c1) | set(c2)))
        print(f"{path.stem:26} {w1:10,} {w2:10,}  {terms}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="50000,100000,200000", help="input sizes in bytes, comma-separated")
    args = ap.parse_args(argv)
    hostile([int(s) for s in args.sizes.split(",")])
    corpus()
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
