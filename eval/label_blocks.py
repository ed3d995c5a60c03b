"""The blocks of a labels file in ../shared/labels: documents labelled together, oldest first.

Each labels file is one YAML list or mapping; a comment line starting with "# Added" opens a new block (the
documents labelled in that round). The newest block was labelled before anyone here read those
documents, so its figures are the ones that say how the tool does on reports it has never seen;
every eval prints them apart from the older blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: An entry: a list item's `doc:`/`id:` (gold.yaml, benchmarks.yaml) or a top-level key (sections.yaml).
_ENTRY = re.compile(r"^(?:- (?:doc|id): *(\S+)|([\w.+-]+):)")


@dataclass(frozen=True)
class Blocks:
    """Document ids per block of one labels file, oldest block first."""

    ids: tuple[tuple[str, ...], ...]

    @property
    def newest(self) -> tuple[str, ...]:
        return self.ids[-1] if self.ids else ()

    @property
    def older(self) -> tuple[str, ...]:
        return tuple(i for block in self.ids[:-1] for i in block)

    def splits(self) -> list[tuple[str, tuple[str, ...]]]:
        """("older", ids) and ("newest", ids) with a title each: what every eval prints apart."""
        return [
            (f"the {len(self.older)} older documents (rules were developed reading these)", self.older),
            (f"the newest {len(self.newest)} (labelled before the tool read them)", self.newest),
        ]


def label_blocks(path: Path) -> Blocks:
    """Split the entries of a labels file into its blocks (see the module docstring)."""
    blocks: list[list[str]] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# Added") and blocks[-1]:
            blocks.append([])
        elif m := _ENTRY.match(line):
            blocks[-1].append(m.group(1) or m.group(2))
    return Blocks(tuple(tuple(b) for b in blocks if b))
