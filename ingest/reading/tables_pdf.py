"""Layout of result tables on a PDF page, from word boxes and drawn horizontal rules.

Off-the-shelf table finders fail on report PDFs, whose tables have no vertical rules. This
module reads a table the way a reader does:

1. words with boxes and baselines (pdfium text page), grouped into lines by baseline;
2. a table is the run of "tabular" lines next to a caption line "Table N" (above or below it,
   whichever side holds numeric rows; a run claimed by one caption is not given to another). A
   caption set beside a text column restricts the table to its own column;
3. columns are the x-bands of numeric cells in the data rows; text left of the first band is the
   label zone (its columns are found by left alignment); header lines above the first data row are
   assigned to bands by overlap, and a header segment that covers several bands spans them;
4. a row label printed once for several rows (a row-spanning model name, model size, or category)
   is given to the rows nearest to it in y that lack their own label, never across a drawn rule that
   crosses its column; a label line that no row takes is a group heading for the rows below it.

The result is a `Grid`, interpreted into result cells by `ingest.analysis.results`.

The steps live in their own modules: records and cell patterns in `table_text`, words, rules,
lines and segments of a page in `pdf_words`, regions in `table_regions`, the grid in
`table_grid`. This module is the reader's entry point and re-exports their public names.
"""

from __future__ import annotations

from ingest.reading.pdf_words import CELL_GAP_EM, group_lines, page_cell_gap, page_rules, page_words, split_segments
from ingest.reading.table_grid import build_grid
from ingest.reading.table_regions import Region, find_regions
from ingest.reading.table_text import (
    CAPTION,
    DASH,
    FIGURE_CAPTION,
    MARKS,
    VALUE,
    Grid,
    GridRow,
    Line,
    Seg,
    Word,
    is_value,
)

__all__ = [
    "CAPTION",
    "CELL_GAP_EM",
    "DASH",
    "FIGURE_CAPTION",
    "MARKS",
    "VALUE",
    "Grid",
    "GridRow",
    "Line",
    "Region",
    "Seg",
    "Word",
    "build_grid",
    "find_regions",
    "group_lines",
    "is_value",
    "page_cell_gap",
    "page_rules",
    "page_words",
    "split_segments",
]
