"""Bounded decoding of a compressed HTTP body (`Content-Encoding`), piece by piece.

Why not the HTTP client's own decoder: it inflates each received chunk in one call, so a body
compressed twice (`Content-Encoding: gzip, gzip`, 2.6 KB on the wire) inflates its inner layer
(1 MB) to 1 GiB in a single step, before any size cap can look at it. Here every layer inflates
at most `PIECE` bytes per step (`zlib`'s `max_length`), each layer's output is counted against
the cap, and more than `MAX_LAYERS` layers (or an unknown coding) are refused, so memory stays a
few MB whatever the body holds.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

#: Most bytes one layer produces per step (the memory a step can take, per layer).
PIECE = 256 * 1024
#: Content codings allowed one above the other (`gzip, gzip` is already odd; three is an attack).
MAX_LAYERS = 2
#: Codings this decoder knows (what the fetcher sends in `Accept-Encoding`).
KNOWN = ("gzip", "x-gzip", "deflate")


class DecodeError(ValueError):
    """The body's coding is refused or broken; the message is meant for the user."""


class _Layer:
    """One zlib stream (gzip or deflate, several gzip members allowed) inflated in bounded steps."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.raw_deflate = False
        self.obj = self._new()
        self.out = 0
        self.started = False

    def _new(self) -> zlib._Decompress:
        if self.coding == "deflate":
            return zlib.decompressobj(-zlib.MAX_WBITS if self.raw_deflate else zlib.MAX_WBITS)
        return zlib.decompressobj(16 + zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        buf = data
        while True:
            try:
                out = self.obj.decompress(buf, PIECE)
            except zlib.error as exc:
                if self.coding == "deflate" and not self.started and not self.raw_deflate:
                    self.raw_deflate = True  # some servers send deflate without its zlib header
                    self.obj = self._new()
                    yield from self.feed(data)
                    return
                raise DecodeError(f"the {self.coding} body is corrupt ({exc})") from exc
            self.started = True
            buf = self.obj.unconsumed_tail
            if out:
                self.out += len(out)
                yield out
            if self.obj.eof and self.obj.unused_data:  # another gzip member follows
                buf = self.obj.unused_data
                self.obj = self._new()
                continue
            if not buf and len(out) < PIECE:
                return

    @property
    def complete(self) -> bool:
        return self.obj.eof or not self.started


class BoundedDecoder:
    """Decode `Content-Encoding` layers with a cap on every layer's output; `feed` yields body pieces."""

    def __init__(self, content_encoding: str, max_bytes: int) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        unknown = [c for c in codings if c not in KNOWN]
        if unknown:
            raise DecodeError(f"the server used a content coding this tool does not accept ({', '.join(unknown)})")
        if len(codings) > MAX_LAYERS:
            raise DecodeError(f"the body is compressed {len(codings)} times over (at most {MAX_LAYERS} layers are accepted)")
        # Codings are listed in the order they were applied: undo the last one first.
        self.layers = [_Layer(c) for c in reversed(codings)]
        self.max_bytes = max_bytes

    def feed(self, data: bytes) -> Iterator[bytes]:
        yield from self._push(0, data)

    def _push(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self.layers):
            yield data
            return
        layer = self.layers[i]
        for piece in layer.feed(data):
            if layer.out > self.max_bytes:
                raise DecodeError(
                    f"the compressed body inflates to more than the size cap of {self.max_bytes:,} bytes; download stopped"
                )
            yield from self._push(i + 1, piece)

    def finish(self) -> None:
        """Raise DecodeError when a layer ended in the middle of its stream."""
        for layer in self.layers:
            if not layer.complete:
                raise DecodeError(f"the {layer.coding} body ended before its end; the download is incomplete")
