"""Reading the stored tables: whole, by report, filtered, or one part at a time.

Why a mixin of its own: reads only need the current manifest and the parts folder, and keep
the Store class (writes, generations, the text and bundle caches) to one screen of jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.store.frames import _empty_arrow, _expression, _in_order, restore_dtypes
from ingest.store.manifest import Manifest, Part, StoreDamaged, StoreError, TableEntry, bucket_of

if TYPE_CHECKING:  # imported on use (bench/import_costs.py): ingest workers and a warm re-run read no table
    import pandas as pd
    import pyarrow as pa


class TableReader:
    """The read side of `Store` (see there); needs `manifest()` and `tables_dir`."""

    tables_dir: Path

    def manifest(self) -> Manifest | None:  # pragma: no cover - Store defines it
        raise NotImplementedError

    # ---------------------------------------------------------------- reading
    def table_names(self) -> list[str]:
        m = self.manifest()
        return list(m.tables) if m else []

    def _parts(self, m: Manifest, name: str, report_ids: Sequence[str] | None) -> list[Part]:
        t = m.tables[name]
        if report_ids is None or t.buckets <= 1:
            return [t.parts[b] for b in sorted(t.parts)]
        wanted = {bucket_of(r, t.buckets) for r in report_ids}
        return [t.parts[b] for b in sorted(t.parts) if b in wanted]

    def read_arrow(
        self,
        name: str,
        report_ids: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        filters: Any = None,
    ) -> pa.Table | None:
        """Rows of a stored table as Arrow, filters pushed down to the parquet reader.

        `report_ids` opens only the parts holding those reports; `filters` is a pyarrow
        expression or a list of (column, op, value) tuples as `pyarrow.parquet` takes.
        Rows come in report order (the registry's). None when the table was never written.
        Raises StoreDamaged (one line) when a part cannot be read.
        """
        import pyarrow as pa

        m = self.manifest()
        if m is None or name not in m.tables:
            return None
        t = m.tables[name]
        cols = list(columns) if columns is not None else None
        want_cols = None if cols is None else list(dict.fromkeys([*cols, "report_id"])) if "report_id" in t.columns else cols
        expr = _expression(filters)
        if report_ids is not None and "report_id" in t.columns:
            import pyarrow.dataset as ds

            ids_expr = ds.field("report_id").isin(pa.array(list(report_ids), pa.string()))
            expr = ids_expr if expr is None else expr & ids_expr
        pieces = [self._read_part(name, part, want_cols, expr) for part in self._parts(m, name, report_ids)]
        if not pieces:
            return _empty_arrow(t.columns if want_cols is None else want_cols)
        out = _in_order(pa.concat_tables(pieces, promote_options="permissive"), m.order)
        if cols is not None:
            out = out.select([c for c in cols if c in out.column_names])
        return out

    def read_table(
        self,
        name: str,
        report_ids: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        filters: Any = None,
    ) -> pd.DataFrame:
        """A stored table as pandas (see `read_arrow`); an empty frame if it was never written."""
        import pandas as pd

        tb = self.read_arrow(name, report_ids=report_ids, columns=columns, filters=filters)
        if tb is None:
            return pd.DataFrame(columns=list(columns) if columns else None)
        m = self.manifest()
        entry = m.tables[name] if m else TableEntry(columns=[])
        return restore_dtypes(tb.to_pandas(), entry.dtypes)

    def read_arrow_part(
        self,
        name: str,
        bucket: int,
        columns: Sequence[str] | None = None,
        dictionary: Sequence[str] = (),
        threads: bool = True,
    ) -> pa.Table:
        """One part of a table, rows in report order (for streaming a large table).

        `dictionary` names string columns to keep dictionary-encoded as stored (a CSV export
        decodes each distinct value once, at write time); `threads=False` decodes on this thread
        only (less CPU in all, for a caller that already overlaps reading with other work).
        """
        m = self.manifest()
        if m is None or name not in m.tables or bucket not in m.tables[name].parts:
            raise StoreError(f"table {name} has no part {bucket}")
        tb = self._read_part(name, m.tables[name].parts[bucket], columns, None, dictionary, threads)
        return _in_order(tb, m.order)

    def part_schema(self, name: str, bucket: int, columns: Sequence[str] | None = None) -> pa.Schema:
        """The Arrow schema of one part (its footer only)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        m = self.manifest()
        part = m.tables[name].parts[bucket] if m else None
        try:
            schema = pq.read_schema(self.tables_dir / part.file) if part else pa.schema([])
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise StoreDamaged(f"stored table {name} is damaged; run python -m ingest") from exc
        schema = schema.remove_metadata()
        return pa.schema([schema.field(c) for c in columns]) if columns else schema

    def _read_part(
        self,
        name: str,
        part: Part,
        columns: Sequence[str] | None,
        expr: Any,
        dictionary: Sequence[str] = (),
        threads: bool = True,
    ) -> pa.Table:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            path = self.tables_dir / part.file
            cols = list(columns) if columns else None
            # Without a filter read the file directly: pyarrow.dataset (behind read_table) imports pandas.
            if expr is None:
                tb = pq.ParquetFile(path, read_dictionary=list(dictionary) or None).read(columns=cols, use_threads=threads)
            else:
                tb = pq.read_table(path, columns=cols, filters=expr)
        except FileNotFoundError as exc:
            raise StoreDamaged(f"stored table {name} is damaged (a part is missing); run python -m ingest") from exc
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise StoreDamaged(f"stored table {name} is damaged; run python -m ingest") from exc
        return tb.replace_schema_metadata(None)
