"""Rows, frames and Arrow tables of the store: building them, ordering them, restoring dtypes.

Why its own module: the table builder and the readers shape rows the same way; pandas and
pyarrow are imported on use, so a warm re-run that needs neither never loads them
(bench/import_costs.py prints what each costs).
"""

from __future__ import annotations

import io
import itertools
import json
from array import array
from collections.abc import Iterable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def _expression(filters: Any) -> Any:
    """A pyarrow expression from an expression, a list of tuples (AND) or None."""
    if filters is None or not isinstance(filters, list | tuple):
        return filters
    import pyarrow.parquet as pq

    return pq.filters_to_expression(list(filters)) if filters else None


def _in_order(tb: pa.Table, order: list[str]) -> pa.Table:
    """Rows sorted by the registry position of their report (stable: a report's rows keep their order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not tb.num_rows or "report_id" not in tb.column_names or not order:
        return tb
    ids, value_set = tb["report_id"], string_array(order)
    if pa.types.is_dictionary(ids.type):  # look each distinct id up once, not once per row
        chunks = [pc.index_in(c.dictionary, value_set=value_set).take(c.indices) for c in ids.chunks]
        pos = pa.chunked_array(chunks, pa.int32())
    else:
        pos = pc.index_in(ids, value_set=value_set)
    if pos.null_count == 0 and (len(pos) < 2 or pc.all(pc.greater_equal(pos[1:], pos[:-1])).as_py()):
        return tb  # already in order (the usual case): no copy
    return tb.take(pc.sort_indices(pa.table({"p": pos}), sort_keys=[("p", "ascending")]))


def string_array(values: Sequence[str]) -> pa.Array:
    """A string array built from its buffers: `pa.array(list)` makes pyarrow import pandas (a large
    import: bench/import_costs.py), which an export or a filtered read does not otherwise need."""

    import pyarrow as pa

    data = [v.encode() for v in values]
    ends = [0, *itertools.accumulate(len(b) for b in data)]
    # 32-bit offsets make a string array as it is (a cast would import pyarrow.compute).
    if ends[-1] < 2**31 and array("i").itemsize == 4:
        return pa.StringArray.from_buffers(len(data), pa.py_buffer(array("i", ends)), pa.py_buffer(b"".join(data)))
    offsets = array("q", ends)
    return pa.LargeStringArray.from_buffers(len(data), pa.py_buffer(offsets), pa.py_buffer(b"".join(data))).cast(pa.string())


def rows_to_arrow(rows: list[dict], schema: pa.Schema) -> pa.Table | None:
    """`rows` as a table of exactly `schema` (an existing part's), or None when they do not fit it.

    Goes through Arrow's JSON reader, which is strict: a key outside the schema, a missing or
    extra key in some row, a value of another type (a float in an integer column, text in a
    null one), NaN — any of these gives None and the caller builds the rows as before
    (`Table.from_pylist`, whose result concatenates to the same table when these fit). Why: any
    conversion of Python values by `pa.array` makes pyarrow import pandas, which a fresh
    `python -m ingest reports/new.yaml` otherwise never loads (bench/import_costs.py prints its cost).
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    if not rows:
        return None
    keys = rows[0].keys()
    if not set(keys) <= set(schema.names) or any(r.keys() != keys for r in rows):
        return None
    try:
        data = "\n".join(json.dumps(r, allow_nan=False) for r in rows).encode()
        return pajson.read_json(
            io.BytesIO(data),
            read_options=pajson.ReadOptions(use_threads=False, block_size=len(data) + 1),
            parse_options=pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error"),
        )
    except (TypeError, ValueError, pa.ArrowException):
        return None


def _empty_arrow(columns: Sequence[str]) -> pa.Table:
    import pyarrow as pa

    return pa.table({c: pa.array([], pa.null()) for c in columns})


def to_arrow(df: pd.DataFrame) -> pa.Table:
    """A frame as Arrow without pandas metadata or index (parts of one table must concatenate)."""
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)


#: pandas extension dtypes restored on read (Arrow alone cannot tell Int64 from int64 with nulls).
_KEEP_DTYPES = ("Int64", "Float64", "boolean", "string")


def pandas_dtypes(df: pd.DataFrame) -> dict[str, str]:
    return {str(c): str(t) for c, t in df.dtypes.items() if str(t) in _KEEP_DTYPES}


def restore_dtypes(df: pd.DataFrame, dtypes: dict[str, str]) -> pd.DataFrame:
    for c, t in dtypes.items():
        if c in df.columns and str(df[c].dtype) != t:
            with suppress(TypeError, ValueError):
                df[c] = df[c].astype(t)
    return df


def frame(rows: Iterable[dict], columns: list[str]) -> pd.DataFrame:
    """DataFrame with a fixed column order, even when there are no rows."""
    import pandas as pd

    df = pd.DataFrame(list(rows))
    for c in columns:
        if c not in df.columns:
            df[c] = pd.Series(dtype="object")
    return df[columns + [c for c in df.columns if c not in columns]]
