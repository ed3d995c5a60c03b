"""Reading a reconstructed table (`Grid`) into result cells, and checking them.

The axis whose names the benchmark catalogue recognises more often holds the benchmarks; the
other holds models. A benchmark header is split into benchmark, metric ("pass@1", "EM") and
setting ("32K"); a benchmark named only in the corner cell or the caption is used when the headers
are metrics, settings or subsets. Rows and columns that describe models (architecture, parameter
counts, layers) are not results; key columns (model size, sample budget) become the `setting` of
each row. Footnote markers are removed from values and names.

Self-validation: every value must be a token of the table's region; a percentage above 100 (unless
the metric is a rating, Elo or score) and a table whose numbers are not all read are flagged for
review, never dropped silently.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ingest.analysis.benchmarks import Catalogue
from ingest.analysis.benchmarks import norm_name as norm
from ingest.analysis.own_model import REPORT_MODEL, names_any
from ingest.common.records import ResultCell as Cell  # the stored record is the reading's cell too
from ingest.reading.table_text import DASH, DELTA, MARKS, Grid, GridRow, is_value

_MARK_RX = re.compile(rf"(?<=\S)[{re.escape(MARKS)}\u00b9\u00b2\u00b3]+$|^[{re.escape(MARKS)}]+(?=\S)")
_MID_MARK = re.compile(r"(?<=\w)[\u2020\u2021\u2217\u22c6*]+(?=\s)|\s[\u2020\u2021\u2217\u22c6]+(?=\s|$)")
_ARROWS = re.compile("[\u2191\u2193]")
_PAREN_TAIL = re.compile(r"^(.*?\S)\s*\(([^()]*)\)\s*$")
#: Longest name or cell the quadratic-at-worst patterns below are tried on (real ones are far shorter).
_SHORT = 160
_GLUED_AT = re.compile(r"^(.+?)([A-Za-z]+@\d+)$")
_NUMBER = re.compile(r"[-+\u2212]?(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)")


@dataclass
class Table:
    """One result table as read, with its page and what validation found."""

    page: int
    page_label: str
    label: str
    caption: str
    orientation: str  # models-as-rows | models-as-columns
    cells: list[Cell] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    region: list[float] | None = None
    attributes: list[Cell] = field(default_factory=list)


#: Runs of white space (compiled once: a job's worker process would compile it again per report).
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def clean(text: str) -> str:
    """A name or value as printed, footnote markers and better-direction arrows ("POPE↑", "CER↓")
    removed and whitespace folded."""
    t = _SPACES.sub(" ", _ARROWS.sub("", html.unescape(text or ""))).strip()
    prev = None
    while prev != t:
        prev = t
        t = _MARK_RX.sub("", t).strip()
    if _MID_MARK.search(t):  # a marker after a word inside a name ("Tower-13B† [8]")
        t = " ".join(_MID_MARK.sub("", t).split())
    return t


def score_of(value: str) -> float | None:
    """The first number of a printed value ("70.83% ± 0.89%" -> 70.83); None when not numeric."""
    m = _NUMBER.search(value or "")
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", "").replace("\u2212", "-"))
    except ValueError:
        return None


# --------------------------------------------------------------------------- interpretation


def _join(parts: list[str]) -> str:
    out = ""
    for p in parts:
        p = p.strip()
        if p.endswith(" -"):  # a hyphen at the end of a header line, set apart: "Quuxilon -" + "Test"
            p = p[:-2].rstrip() + "-"
        if not p:
            continue
        glued = out and out[-1].isdigit() and len(p) > 1 and p[0] == "." and p[1].isdigit()  # "v1" + ".5"
        if glued or (out and ((out.endswith("-") and not out.endswith(" -")) or (p.startswith("-") and len(p) > 1))):
            out += p  # a name wrapped at a hyphen: "Claude-3.5-" + "Sonnet-1022", "DeepSeek-V2" + "-Base"
        elif p not in out.split(" / "):
            out = f"{out} {p}".strip()
    return out


@lru_cache(maxsize=4096)
def _settings(row: str, column: str) -> str:
    """A value's setting: its row's and its column's `_join`ed (cached: asked for every value, and
    a table has few of each)."""
    return _join([row, column])


def _split_metric(name: str, cat: Catalogue) -> tuple[str, str]:
    """ "MMLU (Pass@1)" -> ("MMLU", "Pass@1"): a trailing parenthesis is the metric part; so are
    trailing words that are a metric label ("Codeforces avg@8", "IFEval strict prompt") and an
    "x@k" metric printed without a space ("MATH500pass@1", a two-line header read as one word)."""
    m = _PAREN_TAIL.match(name)
    if m and cat.lookup(name) is not None and cat.lookup(m.group(1)) is None:
        return name, ""
    if m:
        return m.group(1).strip(), m.group(2).strip()
    if cat.lookup(name) is not None:
        return name, ""
    words = name.split()
    for k in (3, 2, 1):
        if len(words) > k and cat.is_metric(" ".join(words[-k:])) and not cat.is_metric(" ".join(words[:-k])):
            return " ".join(words[:-k]), " ".join(words[-k:])
    g = _GLUED_AT.match(name) if "@" in name and len(name) <= _SHORT else None
    if g:  # the longest metric suffix: "LiveMathBenchpass@1" -> "LiveMathBench" + "pass@1"
        head, tail = g.group(1), g.group(2)
        for i in range(len(tail)):
            if cat.is_metric(tail[i:]):
                return head + tail[:i], tail[i:]
    return name, ""


def _column_parts(parts: list[tuple[str, int]], cat: Catalogue) -> tuple[str, str, str, str]:
    """(benchmark-ish text, metric, setting, spanning group) of one value column's header."""
    texts = [(clean(t), span) for t, span in parts if clean(t)]
    metric = setting = ""
    agg = cat.lookup(texts[-1][0]) if texts else None
    if texts and cat.is_metric(texts[-1][0]) and not (len(texts) == 1 and agg is not None and agg.category == "aggregate"):
        metric = texts.pop()[0]  # an "Average" column of its own is the table's aggregate, not a metric
    if texts and cat.is_setting(texts[-1][0]) and not cat.lookup(texts[-1][0]):
        setting = texts.pop()[0]
    # Spanning parts (over several columns) above single-column parts: a group level.
    spanning = [t for t, s in texts if s > 1]
    single = [t for t, s in texts if s <= 1]
    return _join(single), metric, setting, _join(spanning)


def _names_benchmark_itself(name: str, cat: Catalogue) -> bool:
    """A catalogue benchmark other than an aggregate: "Overall" under "MaXIFE" is MaXIFE's overall
    score (a split of it), while "MMLU" under "Exam" is a benchmark of that category."""
    e = cat.lookup(_split_metric(clean(name), cat)[0]) or cat.lookup(clean(name)) if name else None
    return e is not None and e.category != "aggregate"


def _is_benchmark(name: str, cat: Catalogue) -> bool:
    if not name:
        return False
    base, _ = _split_metric(clean(name), cat)
    return cat.lookup(base) is not None or cat.lookup(clean(name)) is not None


@dataclass
class _Reading:
    """What reading one grid needs, shared by both orientations, and what it collects."""

    grid: Grid
    cat: Catalogue
    main: int
    extra: list[int]
    heads: list[tuple[str, str, str, str]]
    pair: tuple[str, str] | None
    corner_bench: str
    caption_bench: str
    cells: list[Cell] = field(default_factory=list)
    attrs: list[Cell] = field(default_factory=list)
    #: metric -> the two metrics a packed "a | b" value under it stands for (asked of every value)
    twos: dict[str, tuple[str, str] | None] = field(default_factory=dict)

    def setting(self, r: GridRow) -> str:
        g = self.grid
        return "; ".join(f"{clean(g.label_headers[c])} {clean(r.labels[c])}".strip() for c in g.key_cols if clean(r.labels[c]))

    def emit(self, model: str, bench: str, raw: str, metric: str, group: str, setting: str, row_note: str = "") -> None:
        """The cells of one printed value; a size ("236B", "128K") is a model attribute, not a score.
        `row_note`: what a described column says about the row, kept with the value's own note."""
        if metric not in self.twos:
            self.twos[metric] = _two_metrics(metric, self.cat) or (self.pair if not metric else None)
        for v, m, note in _values(raw, metric, self.twos[metric]):
            if _SIZE_VALUE.match(v):
                self.attrs.append(Cell(model, bench, v))
            else:
                notes = f"{note}; {row_note}" if note and row_note else note or row_note
                self.cells.append(Cell(model, bench, v, m, group, setting, notes))


def interpret(
    grid: Grid, caption: str, cat: Catalogue, own_names: list[str] | None = None, attributes: list[Cell] | None = None
) -> tuple[str, list[Cell]]:
    """Result cells of a grid: (orientation, cells). See the module docstring for the rules.

    `attributes`, when given, receives the cells of rows or columns that describe the models
    (parameters, context length, shots, "Type") as (model, attribute, value): never scores."""
    main = grid.main if grid.main >= 0 else max(len(grid.label_headers) - len(grid.key_cols) - 1, 0)
    heads = [_column_parts(h, cat) for h in grid.col_headers]
    col_names = [_join([s, b]) if s and b else (b or s) for b, _m, _st, s in heads]
    row_names = [clean(r.labels[main]) if r.labels else "" for r in grid.rows]
    col_hits = sum(1 for (b, _m, _s, sp) in heads if _is_benchmark(b, cat) or _is_benchmark(_join([sp, b]), cat))
    row_hits = sum(1 for n in row_names if _is_benchmark(n, cat))
    col_frac = col_hits / max(len(heads), 1)
    row_frac = row_hits / max(len(row_names), 1)
    corner = clean(grid.corner)
    corner_bench = "" if (not corner or cat.is_label_word(corner) or cat.is_metric(corner)) else corner
    if corner_bench and not _is_benchmark(corner_bench, cat) and any(cat.is_model_word(w) for w in corner_bench.split()):
        corner_bench = ""  # "Method Speedup": the label column's name, not a benchmark over the columns
    if corner_bench and not _is_benchmark(corner_bench, cat) and any(_names_benchmark_itself(b, cat) for b, _m, _s, _sp in heads):
        corner_bench = ""  # the column headers name benchmarks themselves: the corner names a task, not their benchmark
    rd = _Reading(
        grid, cat, main, [c for c in range(main + 1, len(grid.label_headers)) if c not in grid.key_cols], heads,
        _two_metrics(caption, cat), corner_bench, _caption_benchmark(caption, cat, grid),
    )  # fmt: skip
    lab = [clean(h) for h in grid.label_headers]
    split_rows = main < len(lab) and any(cat.is_split_parent(lab[k], lab[main]) for k in range(main))
    rows_named = row_frac == col_frac and (
        (corner and cat.is_label_word(corner) and not cat.is_model_word(corner)) or split_rows
    )  # the label columns say they hold benchmarks ("Benchmark (Metric)"; "Benchmark" | "Split")
    own_cols = row_frac == col_frac and own_names and any(names_any(n, own_names) for n in col_names)
    if row_frac > col_frac or own_cols or rows_named:
        orientation = "models-as-columns"
        _models_as_columns(rd)
    else:
        orientation = "models-as-rows"
        _models_as_rows(rd)
    if attributes is not None:
        attributes.extend(rd.attrs)
    return orientation, rd.cells


def _described_columns(rd: _Reading) -> set[int]:
    """Extra label columns that describe each row, not part of its benchmark name.

    A column with its own header (not a metric) beside benchmark names that already tell every row
    apart ("Contest | Problems | Points": the problems solved) is a column of its own; header-less
    columns right after it are its wrapped or split cells. Without a header of its own, an extra
    column is more of the name ("MMLU | Redux")."""
    g = rd.grid
    names = [clean(r.labels[rd.main]) for r in g.rows]
    if not names or not all(names) or len(set(names)) < len(names):
        return set()
    out: set[int] = set()
    for c in rd.extra:
        head = clean(g.label_headers[c]) if c < len(g.label_headers) else ""
        named = head and not rd.cat.is_metric(head) and not rd.cat.is_metric(head.strip("()"))
        if named or (not head and c - 1 in out):
            out.add(c)
    return out


def _described_note(rd: _Reading, r: GridRow, described: set[int]) -> str:
    """ "Header: text" for each described column of a row (its header-less continuations joined)."""
    parts: list[list[str]] = []
    for c in sorted(described):
        head = clean(rd.grid.label_headers[c])
        if head or not parts:
            parts.append([head])
        if clean(r.labels[c]):
            parts[-1].append(clean(r.labels[c]))
    return "; ".join(f"{p[0]}: {' '.join(p[1:])}" for p in parts if len(p) > 1)


def _models_as_columns(rd: _Reading) -> None:
    cat, heads, main = rd.cat, rd.heads, rd.main
    described = _described_columns(rd)
    # No column header names a model, only a metric or a summed score ("Points"), and no row does:
    # the table prints the report's own results.
    unnamed = bool(heads) and all(not sp and (not b or cat.is_metric(b) or cat.is_rating_word(b)) for b, _m, _st, sp in heads)
    under: dict[str, set[str]] = {}
    for b, _m, _st, sp in heads:
        if sp and b:
            under.setdefault(clean(b), set()).add(clean(sp))
    repeated = {b for b, sps in under.items() if len(sps) >= 2}
    lab = rd.grid.label_headers
    # outer label columns headed as benchmarks over a main column headed as their splits
    parents = {k for k in range(min(main, len(lab))) if main < len(lab) and cat.is_split_parent(clean(lab[k]), clean(lab[main]))}
    columns: dict[int, tuple[str, str, str]] = {}  # j -> value column j's model, metric and setting
    for r in rd.grid.rows:
        bench_raw = clean(r.labels[main])
        if cat.is_attribute_row(bench_raw):
            pairs = zip(heads, r.values, strict=False)
            rd.attrs += [Cell(clean(h[0]), bench_raw, clean(v)) for h, v in pairs if clean(v) and h[0]]
            continue
        bench, metric = _split_metric(bench_raw, cat)
        desc: list[str] = []
        for c in rd.extra:  # a metric column beside the benchmark names, or more of the name
            x = clean(r.labels[c])
            if x and c in described:
                desc.append(x)
            elif x and (cat.is_metric(x) or cat.is_metric(x.strip("()"))):
                metric = metric or x.strip("()")
            elif x:
                bench = _join([bench, x])
        bench = _join([*(clean(r.labels[k]) for k in sorted(parents)), bench])
        groups = [clean(x) for k, x in enumerate(r.labels[:main]) if clean(x) and k not in parents]
        group = " / ".join(groups) or clean(r.group)
        setting = rd.setting(r)
        if not bench:
            continue
        note = _described_note(rd, r, described)
        for j, raw in enumerate(r.values):
            col = columns.get(j)
            if col is None:  # the column's model, metric and setting: the same on every row
                b, m, st, span = heads[j]
                model = clean(b) or clean(span)  # a model header spanning its settings' columns
                if span and clean(b) in repeated:  # the same sub-headers under each model: its metrics
                    model, m = clean(span), m or clean(b)
                if unnamed:
                    model, m = REPORT_MODEL, m or clean(b)
                col = columns[j] = (model, m, st)
            model, m, st = col
            if model:
                rd.emit(model, bench, raw, metric or m, group, _settings(setting, st), note)


def _group_columns(grid: Grid, main: int, cat: Catalogue) -> set[int]:
    """Outer label columns that hold a row category, not part of the model's name: one headed by a
    word that is not a model word ("Type", "Category"), and the unheaded columns right of it (a
    category printed in two cells) up to the next headed column."""
    out: set[int] = set()
    group = False
    for k in range(min(main, len(grid.label_headers))):
        head = clean(grid.label_headers[k])
        if head:
            group = not cat.is_model_word(head)
        if group:
            out.add(k)
    return out


def _models_as_rows(rd: _Reading) -> None:
    cat, main = rd.cat, rd.main
    grouped = _group_columns(rd.grid, main, cat)
    # Spanning headers of one level play one role: when one stands over catalogue benchmarks, they
    # are all categories (groups) of the benchmarks under them, not parts of their names.
    parents_group = any(sp and _names_benchmark_itself(b, cat) and not _is_benchmark(sp, cat) for b, _m, _st, sp in rd.heads)
    columns: dict[int, tuple[bool, str, str, str, str]] = {}  # j -> `_value_column`, when first asked
    for r in rd.grid.rows:
        outer = [clean(x) for k, x in enumerate(r.labels[:main]) if clean(x) and k not in grouped]
        category = " ".join(clean(r.labels[k]) for k in sorted(grouped) if clean(r.labels[k]))
        core = [x for x in [clean(r.labels[main])] + [clean(r.labels[c]) for c in rd.extra] if x]
        # A "Metric" column beside the models (two metric rows per model): the row's metric.
        row_metric = next((x for x in core if cat.is_metric(x)), "") if len(outer) + len(core) > 1 else ""
        model = _join([x for x in core if x != row_metric])
        if outer:  # an outer label column holds the model, the main column a variant
            model = f"{' '.join(outer)} {model}".strip()
        if not model or _change_row(r):
            continue
        setting = rd.setting(r)
        for j, raw in enumerate(r.values):
            col = columns.get(j)
            if col is None:
                col = columns[j] = _value_column(rd, j, parents_group)
            attribute, bench, metric, group, st = col
            if attribute:
                if clean(raw) and not DASH.match(clean(raw)):  # a column describing the models, not a result
                    rd.attrs.append(Cell(model, bench, clean(raw)))
                continue
            if bench:
                rd.emit(model, bench, raw, metric or row_metric, group or category or clean(r.group), _settings(setting, st))


def _value_column(rd: _Reading, j: int, parents_group: bool) -> tuple[bool, str, str, str, str]:
    """What value column j's headers say of every value under it, models as rows: (whether it
    describes the models: an attribute, its name; else the benchmark, metric, group and setting).
    The same for each row, so `_models_as_rows` asks it once per column."""
    cat = rd.cat
    b, m, st, span = rd.heads[j]
    if b and (cat.is_attribute_row(b) or cat.is_key_column(b)) and not _is_benchmark(b, cat):
        return True, _join([b, m]), "", "", ""
    as_group = bool(span) and bool(b) and (_names_benchmark_itself(b, cat) or parents_group) and not _is_benchmark(span, cat)
    bench = _join([span, b]) if span and not as_group and not _names_benchmark_itself(b, cat) else (b or span)
    group = span if as_group else ""
    # the caption's benchmark names a column only when its own headers name none: not under
    # a spanning parent, and not when the header already holds the caption's name
    by_caption = not span and norm(rd.caption_bench) not in norm(bench)
    prefix = rd.corner_bench or (rd.caption_bench if by_caption and not _is_benchmark(bench, cat) else "")
    if prefix and not _is_benchmark(bench, cat):
        if bench and not cat.is_setting(bench) and rd.corner_bench:
            bench = f"{prefix} {bench}"
        else:
            st = _join([bench, st])
            bench = prefix
    bench, m2 = _split_metric(bench, cat) if bench else ("", "")
    return False, bench, m or m2, group, st


_SIGNED = re.compile(r"^[+\u2212-]\d+(?:\.\d+)?%?$")


def _change_row(r: GridRow) -> bool:
    """A row of printed changes ("+2.8 +3.8 -0.4": every value signed, one at least with a plus) is
    the difference between two rows above it, not scores of its own (a printed change is a note)."""
    vals = [cv for v in r.values if (cv := clean(v)) and not DASH.match(cv)]
    return len(vals) >= 2 and all(_SIGNED.match(v) for v in vals) and any(v.startswith("+") for v in vals)


_CITATION = re.compile(r"^(?P<v>.*?\d%?)\s*(?P<c>[(\[](?=[^()\[\]]*(?:et al|\d{4}|[A-Z][a-z]+,))[^()\[\]]*[)\]])$")
GLUED_DELTA = re.compile(rf"^(?P<v>[-+\u2212]?(?:\d+(?:[.,]\d+)*|\.\d+)\s*%?)(?P<d>{DELTA})$")
_SIZE_VALUE = re.compile(r"^\d+(\.\d+)?\s*[KMBT]$")
_PACKED = re.compile(r"^(?P<a>[^|]*\d[^|]*?)\s*\|\s*(?P<b>[^|]*\d[^|]*)$")
_TWO_METRICS = re.compile(r"([\w@.+-]+(?: [\w@.+-]+)?)\s*(?:/|\||\band\b)\s*([\w@.+-]+(?: [\w@.+-]+)?)")


def _two_metrics(text: str, cat: Catalogue) -> tuple[str, str] | None:
    """Two metric labels a caption or header names together ("EM / F1", "pass@1 and pass@8")."""
    for m in _TWO_METRICS.finditer((text or "")[:300]):  # bounded: captions and headers are short
        for a in (m.group(1), m.group(1).split()[-1]):
            for b in (m.group(2), m.group(2).split()[0]):
                if cat.is_metric(a) and cat.is_metric(b):
                    return a, b
    return None


@lru_cache(maxsize=65536)
def _values(raw: str, metric: str, two: tuple[str, str] | None) -> tuple[tuple[str, str, str], ...]:
    """The result value(s) of one printed cell as (value, metric, note): a citation after the number
    ("53.9 (Author et al., 2025)") and footnote markers ("71.2†") are taken off into the note; a
    cell packing two numbers ("35.02 | 62.26") is two values when the header or caption names two
    metrics (`two`); a printed change after the score ("91.8+3.3", "62.0 (-1.5)") goes to the note.
    Empty, dash and non-numeric cells give nothing. Cached (a tuple: shared by the callers): the
    same printed values, dashes above all, recur in a report's tables."""
    text = " ".join((raw or "").split())
    note = ""
    cm = _CITATION.match(text) if len(text) <= _SHORT else None  # bounded: a hostile cell may be huge
    if cm:
        text, note = cm.group("v"), cm.group("c")
    v = clean(text)
    if v != text.strip():
        marks = text.strip()[len(v) :].strip() if text.strip().startswith(v) else ""
        note = _join([note, f"marker {marks}" if marks else ""])
    if not v or DASH.match(v):
        return ()
    dm = GLUED_DELTA.match(v) if len(v) <= _SHORT else None
    if dm:  # a printed change after the score ("91.8+3.3"): the value is the score, the change a note
        v, note = dm.group("v").strip(), _join([note, dm.group("d").strip()])
    pm = _PACKED.match(v) if "|" in v and len(v) <= _SHORT else None  # "1633 / 91.4%" is one value as printed
    if pm and two and is_value(clean(pm.group("a"))) and is_value(clean(pm.group("b"))):
        return ((clean(pm.group("a")), two[0], note), (clean(pm.group("b")), two[1], note))
    return ((v, metric, note),) if is_value(v) else ()


def benchmarks_named(text: str, cat: Catalogue, first: bool = False) -> list[tuple[str, str]]:
    """(id, name as printed) of catalogue benchmarks named in free text, longest names first.

    `first`: stop at the first one found (whether the text names any: no name is taken before the
    first is found, so the answer is the same)."""
    words = [w.strip(".,;:()[]\"'") for w in (text or "").split()]
    taken = [False] * len(words)
    found: list[tuple[str, str]] = []
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            if any(taken[i : i + n]):
                continue
            cand = " ".join(words[i : i + n])
            if len(cand) < 3 or not any(ch.isupper() for ch in cand):
                continue
            b = cat.lookup(cand)
            if b is not None and b.category != "aggregate":
                taken[i : i + n] = [True] * n
                if b.id not in [x[0] for x in found]:
                    found.append((b.id, cand))
                if first:
                    return found
    return found


def _caption_benchmark(caption: str, cat: Catalogue, grid: Grid | None = None) -> str:
    """The single catalogue benchmark a caption names ("… on the RULER benchmark"), else "". One
    the table prints as a column header names the columns under that header only, no other."""
    found = benchmarks_named(caption, cat)
    name = found[0][1] if len(found) == 1 else ""
    if name and grid is not None and any(norm(clean(t)) == norm(name) for h in grid.col_headers for t, _n in h):
        return ""
    return name


def validate(table: Table, grid: Grid, cat: Catalogue) -> None:
    """Flag values that are not tokens of the region, percentages above 100, unread numbers."""
    region_tokens = set(map(clean, grid.tokens)) | set(grid.tokens)
    region_text = " ".join(grid.tokens)
    kept = []
    for c in table.cells:
        parts = c.value.split()
        if not all(p in region_tokens or clean(p) in region_tokens for p in parts) and c.value not in region_text:
            table.flags.append(f"value {c.value!r} is not a token of the table region; dropped")
            continue
        kept.append(c)
    table.cells = kept
    rows = [r for r in grid.rows if not _change_row(r)]  # a row of printed changes holds no results
    present = sum(1 for r in rows for v in r.values if (cv := clean(v)) and is_value(cv) and not DASH.match(cv))
    dropped = sum(1 for f in table.flags if "dropped" in f)
    missing = present - len(table.cells) - dropped - sum(1 for a in table.attributes if is_value(a.value))
    if missing > 0:
        table.flags.append(f"{missing} numeric cell(s) without a model or benchmark header not read; review")
    # The page's own number (a running footer the region reached) is no unread result.
    unused = [u for u in grid.unused if clean(u) not in {str(table.page), table.page_label}]
    if unused:
        shown = ", ".join(unused[:6]) + (" …" if len(unused) > 6 else "")
        table.flags.append(f"{len(unused)} numeric token(s) in the table region not read ({shown}); review")


def cell_flag(cell_value: str, metric: str, bench_id: str, cat: Catalogue, benchmark: str = "") -> str:
    """Review flag of one cell: a percentage above 100 unless the metric or benchmark is a rating,
    or the benchmark column is itself a summed score ("Total", "Sum")."""
    s = score_of(cell_value)
    b = cat.by_id.get(bench_id) if bench_id else None
    summed = any(cat.is_rating_word(w) for w in benchmark.split())
    if s is not None and s > 100 and not cat.is_rating(metric, b) and not summed and "/" not in cell_value:
        return "percentage above 100; review"
    return ""


def names_benchmark(text: str, cat: Catalogue) -> bool:
    """Whether free text names a catalogue benchmark."""
    return bool(benchmarks_named(text, cat, first=True))
