"""Methods named by reference ("as in K1.5"), looked up across the store when the comparison rows are built.

Why its own module: ingest/outputs/tables.py builds the rows; this is the one part of that build that
reads other reports than the one whose rows it builds (see docs/comparison.md, "Methods named by
reference in the table").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from ingest.analysis.comparison import join
from ingest.analysis.lens import NOT_DISCLOSED, Lens
from ingest.analysis.references import Target, name_words, reference_pattern, resolve_rows
from ingest.sources.registry import Roster
from ingest.sources.schema import ReportSpec
from ingest.store.manifest import RefDeps
from ingest.store.store import Store


class StoreReferences:
    """Looks up the report a cell refers to by name ("as in K1.5") among the reports in view, and that
    report's main method as the table shows it (its curated cell, else its automatic one).

    Why here: annotation reads one report at a time; only the table build sees the whole store. The
    lookup is lazy — nothing is read unless some report refers to another — and a name is matched only
    against the reports whose id or spec contains each of its words (a substring scan of their JSON),
    so a store of 10,000 reports makes the specs of a few candidates, not all."""

    def __init__(
        self,
        store: Store,
        roster: Roster,
        lens: Lens,
        view: list[tuple[str, str | None]],
        last_good: dict[str, ReportSpec],
        keys: dict[str, str],
    ) -> None:
        self.store, self.roster, self.lens, self.last_good, self.keys = store, roster, lens, last_good, keys
        self.yaml = dict(view)
        self.main = next((d.id for d in lens.dimensions if d.kind == "algorithm"), None)
        self._text: dict[str, str] = {}
        self._words: dict[str, set[str]] = {}
        self._targets: dict[str, Target | None] = {}
        #: `hits` by (name, besides): a report's references are matched, then hashed (`deps`), with the
        #: same arguments; each is a scan of every report in view (10,000 in bench/scale.py).
        self._hits: dict[tuple[str, str], list[str]] = {}

    def spec(self, rid: str) -> ReportSpec:
        return self.last_good[rid] if rid in self.last_good else self.roster.spec(rid)

    def spec_json(self, rid: str) -> str:
        return self.last_good[rid].model_dump_json(by_alias=True) if rid in self.last_good else self.roster.spec_json(rid)

    def text(self, rid: str) -> str:
        """A report's id and spec JSON, case-folded: a name can match it only if each word is in here."""
        t = self._text.get(rid)
        if t is None:
            t = self._text[rid] = f"{rid} {self.spec_json(rid)}".casefold()
        return t

    def words(self, rid: str) -> set[str]:
        """The words of a report's id, model name and aliases (read from its spec JSON, not validated)."""
        w = self._words.get(rid)
        if w is None:
            d = json.loads(self.spec_json(rid))
            w = self._words[rid] = name_words(" ".join([rid, str(d.get("model") or ""), *map(str, d.get("aliases") or ())]))
        return w

    def hits(self, name: str, besides: str) -> list[str]:
        """Reports (not `besides`) whose id, model name or alias holds every word of `name` (the specs
        read are those whose JSON holds each word: a substring scan first)."""
        got = self._hits.get((name, besides))
        if got is None:
            want = name_words(name)
            near = [rid for rid in self.yaml if rid != besides and all(w in self.text(rid) for w in want)]
            got = self._hits[name, besides] = [rid for rid in near if want <= self.words(rid)]
        return list(got)

    def holds(self, rid: str, names: tuple[str, ...]) -> bool:
        """Whether report `rid`'s id, model name or alias holds every word of one of `names`."""
        return any(name_words(n) <= self.words(rid) for n in names)

    def match(self, name: str, besides: str) -> str | None:
        """The one report (not `besides`) a name refers to (as `match_report`); None when none or several."""
        hits = self.hits(name, besides)
        return hits[0] if len(hits) == 1 else None

    def target(self, rid: str) -> Target | None:
        """Report `rid`'s main method as its comparison row shows it; None when it shows none."""
        if rid in self._targets:
            return self._targets[rid]
        spec, got = self.spec(rid), None
        cur = spec.curated.get(self.main) if self.main else None
        if cur is not None and cur.values:
            got = Target(rid, spec.model, join(cur.values), cur.quote, None if cur.page is None else str(cur.page))
        elif self.main is not None:
            bundle = self.store.load_bundle(rid)
            ann = bundle.annotation if bundle is not None and bundle.measured else None
            cell = ann.cells.get(self.main) if ann is not None and ann.lens == self.lens.id else None
            rx = reference_pattern(self.lens, self.main)
            first = cell.value[0] if cell is not None and cell.value else None
            if first and first not in (NOT_DISCLOSED, self.lens.no_stage_value) and not (rx and rx.fullmatch(first)):
                got = Target(rid, spec.model, first, cell.quote, cell.page_label)
        self._targets[rid] = got
        return got

    def deps(self, rid: str, names: tuple[str, ...]) -> RefDeps:
        """What `rid`'s references resolve to now (each name's report and that report's input key, hashed),
        and the reports they were matched among."""
        h, near = hashlib.sha256(), set()
        for name in names:
            hits = self.hits(name, rid)
            near |= set(hits)
            t = hits[0] if len(hits) == 1 else None
            h.update(f"{name}\x1f{t}\x1f{self.keys.get(t, '-') if t else '-'}\x1e".encode())
        return RefDeps(names, h.hexdigest()[:24], tuple(sorted(near)))

    def stale(self, old: Mapping[str, RefDeps], changed: set[str], removed: set[str]) -> set[str]:
        """Reports whose references may resolve differently now: one they were matched among changed or
        went, or a changed (or new) report now holds a name's words; each is checked by its hash."""
        gone = changed | removed
        out = set()
        for rid, d in old.items():
            if rid not in self.keys or rid in changed:
                continue
            touched = gone & set(d.near) or any(self.holds(c, d.names) for c in changed if c != rid)
            if touched and self.deps(rid, d.names).key != d.key:
                out.add(rid)
        return out

    def resolve(self, rid: str, rows: list[dict]) -> tuple[list[dict], RefDeps | None]:
        """`rid`'s comparison rows with its references resolved, and what they depend on (None: no reference)."""
        out, names = resolve_rows(rows, self.lens, lambda n: (t := self.match(n, rid)) and self.target(t))
        return out, self.deps(rid, names) if names else None
