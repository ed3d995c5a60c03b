"""Methods named by reference to another report ("the same algorithm as in K1.5"), looked up.

Why: the codebook lists such a method as the referenced report's method, noted as named by
reference. Annotation reads one report at a time, so it writes "as in NAME" (the lens's
`reference_value`); where the referenced report is at hand (another report of the same store, or
another labelled document in the eval), its own main method replaces that value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from ingest.analysis.lens import Lens
from ingest.common.records import Annotation

#: Characters that separate the words of a report id or title ("kimi-k1.5", "Kimi k1.5: Scaling …").
_WORDS = re.compile(r"[\s\-_:,;()/]+")


def match_report(name: str, titles: Mapping[str, str]) -> str | None:
    """The report (id -> title) a reference names: every word of the name is a word of the report's
    id or title, case-folded ("K1.5" -> "kimi-k1.5"); None when no report or several match."""
    words = {w for w in _WORDS.split(name.casefold()) if w}
    if not words:
        return None
    hits = [rid for rid, title in titles.items() if words <= {w for w in _WORDS.split(f"{rid} {title}".casefold()) if w}]
    return hits[0] if len(hits) == 1 else None


def resolve_references(ann: Annotation, lens: Lens, lookup: Callable[[str], str | None]) -> Annotation:
    """The annotation with each "as in NAME" value of an algorithm dimension replaced by `lookup(NAME)`
    (the referenced report's main method), where it finds one; the cell's `why` says it was named by reference."""
    cells = dict(ann.cells)
    for dim in lens.dimensions:
        if dim.kind != "algorithm" or dim.id not in cells:
            continue
        rx = re.compile(re.escape(dim.reference_value).replace(re.escape("{name}"), "(?P<name>.+)"))
        cell, values, said = cells[dim.id], [], []
        for v in cell.value:
            m = rx.fullmatch(v)
            found = lookup(m.group("name")) if m else None
            values.append(found or v)
            if found:
                said.append(f"{found} named by reference ({v})")
        if said:
            why = "; ".join([*([cell.why] if cell.why else []), *said])
            cells[dim.id] = replace(cell, value=tuple(dict.fromkeys(values)), why=why)
    return replace(ann, cells=cells)
