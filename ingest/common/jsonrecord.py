"""One generic JSON mapping for the typed records (`ingest.common.records`), driven by their type hints.

A record is a frozen dataclass deriving from `Record`; its fields, in declaration order, are the
keys of its JSON object. The type hint of a field says how it is written and checked on reading:
str / int / float / bool, `X | None`, `tuple[X, ...]` (a JSON list), `tuple[A, B]`, `dict[str, X]`,
another record, and `dict[str, Any]` / `Any` (kept as stored, not copied: keyword rows number in
the hundreds of thousands). Everything irregular about one field (a default for bundles written
before it existed, a key left out when empty) is declared once on the field with `jfield`.

Reading is strict about types and tolerant of absent optional keys: a value of the wrong type
raises `BundleError` naming the record and field, and the store treats that as "no bundle" (the
report is recomputed, never crashed on). A JSON `null` for a list reads as an empty list.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, Self, TypeVar, Union, get_args, get_origin, get_type_hints

MISSING: Any = dataclasses.MISSING
_UNSET: Any = type("_Unset", (), {"__repr__": lambda self: "UNSET"})()  # an option not given
_NONE = type(None)
_KEY = "jsonrecord"

Encode = Callable[[Any], Any]
Decode = Callable[[Any, str], Any]
R = TypeVar("R")


class BundleError(ValueError):
    """A stored bundle (or part of one) does not have the expected shape."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Opts:
    absent: Any = _UNSET  # the stored value to read when the key is absent (or fn(object) -> value)
    null_as: Any = _UNSET  # the value for an absent key or a JSON null
    omit_none: bool = False  # leave the key out when the value is None
    only_if: Callable[[Any], bool] | None = None  # write the key only when fn(record) is true
    decode: Decode | None = None  # an extra rule for the value (after the type check)


def jfield(
    default: Any = MISSING,
    *,
    default_factory: Any = MISSING,
    kw_only: Any = MISSING,
    absent: Any = _UNSET,
    null_as: Any = _UNSET,
    omit_none: bool = False,
    only_if: Callable[[Any], bool] | None = None,
    decode: Decode | None = None,
) -> Any:
    """A dataclass field with its JSON rules (see `_Opts`)."""
    opts = _Opts(absent, null_as, omit_none, only_if, decode)
    return dataclasses.field(default=default, default_factory=default_factory, kw_only=kw_only, metadata={_KEY: opts})


# --------------------------------------------------------------------------- scalar checks


def _obj(x: object, what: str) -> Mapping[str, Any]:
    if not isinstance(x, Mapping):
        raise BundleError(f"{what}: expected an object, got {type(x).__name__}")
    return x


def _list(x: object, what: str) -> list[Any] | tuple[Any, ...]:
    if x is None:
        return ()
    if not isinstance(x, list | tuple):
        raise BundleError(f"{what}: expected a list, got {type(x).__name__}")
    return x


def _str(x: object, what: str) -> str:
    if not isinstance(x, str):
        raise BundleError(f"{what}: expected text, got {type(x).__name__}")
    return x


def _int(x: object, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise BundleError(f"{what}: expected a whole number, got {type(x).__name__}")
    return x


def _float(x: object, what: str) -> float:
    """A number as stored (an int stays an int: the writer may have stored one)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise BundleError(f"{what}: expected a number, got {type(x).__name__}")
    return x  # type: ignore[return-value]


def _bool(x: object, what: str) -> bool:
    if not isinstance(x, bool):
        raise BundleError(f"{what}: expected true or false, got {type(x).__name__}")
    return x


def _as_is(x: object, what: str) -> Any:
    return x


def _any_obj(x: object, what: str) -> dict[str, Any]:
    o = _obj(x, what)
    return o if type(o) is dict else dict(o)


def _rows(x: object, what: str) -> tuple[dict[str, Any], ...]:
    """Table rows as stored (fresh from json.loads, so kept as they are, not copied: KWIC is large)."""
    rows = tuple(_list(x, what))
    if not all(type(r) is dict for r in rows):
        raise BundleError(f"{what}: expected a list of objects")
    return rows


_SCALARS: dict[Any, Decode] = {str: _str, int: _int, float: _float, bool: _bool, Any: _as_is}
# Exact JSON types a scalar field accepts, for the one-check fast path of flat records.
_FAST: dict[Any, frozenset[type]] = {
    str: frozenset({str}),
    int: frozenset({int}),
    float: frozenset({int, float}),
    bool: frozenset({bool}),
}


def _identity(v: Any) -> Any:
    return v


def _is_any_dict(tp: Any) -> bool:
    return get_origin(tp) is dict and get_args(tp) == (str, Any)


def _optional(tp: Any) -> Any | None:
    """X for `X | None`, else None."""
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not _NONE]
        if len(args) == 1 and len(get_args(tp)) == 2:
            return args[0]
    return None


# --------------------------------------------------------------------------- codecs by type


def _codec(tp: Any) -> tuple[Encode, Decode]:
    """The (encode, decode) pair for one type hint."""
    if tp in _SCALARS:
        return _identity, _SCALARS[tp]
    if isinstance(tp, type) and issubclass(tp, Record):
        return _record_encoder(tp), _record_decoder(tp)
    if _is_any_dict(tp):
        return _identity, _any_obj
    inner = _optional(tp)
    if inner is not None:
        return _optional_codec(inner)
    origin, args = get_origin(tp), get_args(tp)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _tuple_codec(args[0])
    if origin is tuple:
        return _pair_codec(args)
    if origin is dict and args[0] is str:
        return _dict_codec(args[1])
    raise TypeError(f"no JSON mapping for {tp!r}")


def _optional_codec(inner: Any) -> tuple[Encode, Decode]:
    enc, dec = _codec(inner)
    return (lambda v: None if v is None else enc(v)), (lambda x, what: None if x is None else dec(x, what))


def _tuple_codec(item: Any) -> tuple[Encode, Decode]:
    if _is_any_dict(item):
        return list, _rows
    if isinstance(item, type) and issubclass(item, Record):  # the record's coders looked up once per list

        def enc_records(v: Any) -> list[Any]:
            e = _encoder(item)
            return [e(i) for i in v]

        def dec_records(x: object, what: str) -> tuple[Any, ...]:
            d = _decoder(item)
            return tuple(d(v) for v in _list(x, what))

        return enc_records, dec_records
    enc, dec = _codec(item)
    if enc is _identity:
        return list, lambda x, what: tuple(dec(v, what) for v in _list(x, what))
    return (lambda v: [enc(i) for i in v]), (lambda x, what: tuple(dec(v, what) for v in _list(x, what)))


def _pair_codec(items: tuple[Any, ...]) -> tuple[Encode, Decode]:
    codecs = [_codec(t) for t in items]

    def dec(x: object, what: str) -> tuple[Any, ...]:
        xs = _list(x, what)
        if len(xs) != len(codecs):
            raise BundleError(f"{what}: expected {len(codecs)} items, got {len(xs)}")
        return tuple(d(v, what) for (_, d), v in zip(codecs, xs, strict=True))

    return (lambda v: [e(i) for (e, _), i in zip(codecs, v, strict=True)]), dec


def _dict_codec(value: Any) -> tuple[Encode, Decode]:
    enc, dec = _codec(value)
    if enc is _identity:
        return dict, lambda x, what: {_str(k, what): dec(v, what) for k, v in _obj(x, what).items()}
    return (lambda v: {k: enc(i) for k, i in v.items()}), (
        lambda x, what: {_str(k, what): dec(v, what) for k, v in _obj(x, what).items()}
    )


# --------------------------------------------------------------------------- codecs of records


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str
    what: str  # "<record>.<field>", for error messages
    encode: Encode
    decode: Decode
    opts: _Opts
    default: Any  # MISSING, a value, or a zero-argument factory (when `factory`)
    factory: bool


_FIELDS: dict[type, list[_Field]] = {}
_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_DECODERS: dict[type, Callable[[object], Any]] = {}


def _fields(cls: type) -> list[_Field]:
    if cls not in _FIELDS:
        hints = get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            enc, dec = _codec(hints[f.name])
            factory = f.default_factory is not MISSING
            default = f.default_factory if factory else f.default
            opts = f.metadata.get(_KEY, _Opts())
            out.append(_Field(f.name, f"{cls.__name__.lower()}.{f.name}", enc, dec, opts, default, factory))
        _FIELDS[cls] = out
    return _FIELDS[cls]


def _record_encoder(cls: type) -> Encode:
    return lambda rec: _encoder(cls)(rec)


def _record_decoder(cls: type) -> Decode:
    return lambda x, what: _decoder(cls)(x)


def encode(rec: Any) -> dict[str, Any]:
    """The JSON object of a record: its fields in order, by the rules of their types and `jfield`."""
    return _encoder(type(rec))(rec)


def decode(cls: type[R], d: object) -> R:
    """A record from its stored JSON; raises BundleError naming the field when the shape is wrong."""
    return _decoder(cls)(d)


def _encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The class's encoder, built once: a plain attribute copy when no field needs a rule."""
    if cls not in _ENCODERS:
        fields = _fields(cls)
        names = tuple(f.name for f in fields)
        plain = all(f.encode is _identity and not f.opts.omit_none and f.opts.only_if is None for f in fields)

        steps = tuple((f.name, f.encode, f.opts.omit_none, f.opts.only_if) for f in fields)

        def enc(rec: Any) -> dict[str, Any]:
            d: dict[str, Any] = {}
            for name, encode_value, omit_none, only_if in steps:
                v = getattr(rec, name)
                if (omit_none and v is None) or (only_if is not None and not only_if(rec)):
                    continue
                d[name] = encode_value(v)
            return d

        values = attrgetter(*names)
        _ENCODERS[cls] = (lambda rec: dict(zip(names, values(rec), strict=True))) if plain and len(names) > 1 else enc
    return _ENCODERS[cls]


def _read(f: _Field, o: Mapping[str, Any]) -> Any:
    """One field's value from the stored object `o`."""
    opts = f.opts
    if f.name not in o or (o[f.name] is None and opts.null_as is not _UNSET):
        if opts.null_as is not _UNSET:
            return opts.null_as
        if opts.absent is not _UNSET:
            raw = opts.absent(o) if callable(opts.absent) else opts.absent
            return f.decode(raw, f.what)
        if f.default is not MISSING:
            return f.default() if f.factory else f.default
    v = f.decode(o.get(f.name), f.what)
    return v if opts.decode is None else opts.decode(v, f.what)


def _fast_types(cls: type) -> dict[str, frozenset[type]] | None:
    """Exact JSON types per field when every field is a plain scalar (one check per field), else None."""
    hints, fast = get_type_hints(cls), {}
    for f in _fields(cls):
        tp, inner = hints[f.name], _optional(hints[f.name])
        if f.opts.decode is not None or (inner or tp) not in _FAST:
            return None
        fast[f.name] = _FAST[inner or tp] | ({_NONE} if inner is not None and f.opts.null_as is _UNSET else set())
    return fast


def _decoder(cls: type) -> Callable[[object], Any]:
    """The class's decoder, built once. A record of plain scalar fields stored in the usual shape
    (every key, the usual types) is checked in one pass and built at once: a table holds hundreds."""
    if cls in _DECODERS:
        return _DECODERS[cls]
    fields, fast, name = _fields(cls), _fast_types(cls), cls.__name__.lower()

    def slow(d: object) -> Any:
        o = _obj(d, name)
        return cls(**{f.name: _read(f, o) for f in fields})

    dec = slow
    if fast is not None:
        keys, items = frozenset(fast), tuple(fast.items())
        kinds = set(fast.values())
        if len(kinds) == 1 and len(one := next(iter(kinds))) == 1:
            (t,) = one

            def dec(d: object) -> Any:
                if type(d) is dict and d.keys() == keys and all(type(v) is t for v in d.values()):
                    return cls(**d)
                return slow(d)

        else:

            def dec(d: object) -> Any:
                if type(d) is dict and d.keys() == keys and all(type(d[k]) in ts for k, ts in items):
                    return cls(**d)
                return slow(d)

    _DECODERS[cls] = dec
    return dec


class Record:
    """Base of the stored records: `to_json` / `from_json` by the generic mapping above."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return encode(self)

    @classmethod
    def from_json(cls, d: object) -> Self:
        """A record from its stored JSON; raises BundleError when the shape is wrong."""
        try:
            return decode(cls, d)
        except BundleError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise BundleError(f"{cls.__name__.lower()}: {type(exc).__name__}: {exc}") from exc
