"""How a run log is stored: plain `.jsonl`, or compressed as `.jsonl.gz` (gzip) or `.jsonl.zst` (Zstandard).

A compressed log is the same log: its lines, chain, digests (`log_sha256`) and canonical bytes are
those of the decompressed lines, so results, the cache and citations do not depend on the storage
form. Decompression is streamed (memory stays bounded by the reader's line limit) and bounded in
output: a log may expand to at most `MAX_EXPANSION` times its stored size (and never past
`MAX_LOG_BYTES`); past either bound the read stops with `LogStorageError`, so a small file that
expands without end is a finding, never a hang or an out-of-memory.

Why these formats and libraries: gzip is in the standard library and every tool reads it;
Zstandard (the `zstandard` package, python-zstandard by Gregory Szorc, the binding the Python 3.14
standard library's `compression.zstd` grew from) compresses these logs 10-20% smaller than gzip -9
and decompresses several times faster, which matters for million-event logs.

Why the expansion bound holds for honest logs: every line carries its predecessor's SHA-256
(`prev`: 64 hex digits, 32 bytes that do not compress) and a line is rarely under 150 bytes, so a
valid log compresses about 15x at best (measured: 4-15x on the shipped logs, gzip and zstd -19).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import zlib
from pathlib import Path
from typing import IO, Literal

import zstandard

Storage = Literal["plain", "gzip", "zstd"]
SUFFIXES: dict[str, Storage] = {".jsonl": "plain", ".jsonl.gz": "gzip", ".jsonl.zst": "zstd"}
"""A run log's file name ending -> how it is stored."""
MAX_LOG_BYTES = 4 << 30
"""Largest run log, decompressed (4 GiB)."""
MAX_EXPANSION = 100
"""Most decompressed bytes per stored byte (an honest log compresses about 15x at best: module docstring)."""
MIN_ALLOWANCE = 16 << 20
"""Decompressed bytes always allowed, whatever the stored size (a tiny log's header alone compresses well)."""
COMPRESSED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x5d\x00\x00", "lzma"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
)
"""Magic bytes of compressed formats: gzip and zstd are read when the file's name says so; the others never are."""


class LogStorageError(ValueError):
    """A compressed log that cannot be read: corrupt, truncated, or expanding past its bound."""


def storage_of(name: str) -> Storage | None:
    """How a file is stored, by its name (`runs/x.jsonl.zst` -> `zstd`); None: not a run log's name."""
    lower = name.lower()
    for suffix in (".jsonl.gz", ".jsonl.zst", ".jsonl"):
        if lower.endswith(suffix):
            return SUFFIXES[suffix]
    return None


def compressed_kind(head: bytes) -> str | None:
    """The compression format whose magic bytes `head` starts with, or None (plain text)."""
    for magic, kind in COMPRESSED_MAGIC:
        if head.startswith(magic):
            return kind
    return None


def allowance(stored: int) -> int:
    """Most decompressed bytes a log of `stored` bytes may expand to."""
    return min(MAX_LOG_BYTES, max(MIN_ALLOWANCE, MAX_EXPANSION * stored))


class BoundedDecompression(io.RawIOBase):
    """A decompressing reader that stops with `LogStorageError` past `limit` bytes or on a broken stream."""

    def __init__(self, inner: IO[bytes], raw: IO[bytes], storage: Storage, name: str, limit: int) -> None:
        self._inner, self._raw, self._storage, self._name, self._limit = inner, raw, storage, name, limit
        self.produced = 0

    def readable(self) -> bool:
        """Always: a reader."""
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """Fill `buffer` with decompressed bytes; raises `LogStorageError` on a broken stream or past the limit."""
        view = memoryview(buffer)
        want = min(len(view), self._limit + 1 - self.produced)
        try:
            data = self._inner.read(max(want, 1))
        except (OSError, EOFError, zlib.error, zstandard.ZstdError) as exc:
            raise LogStorageError(f"{self._storage} stream is corrupt or truncated ({exc}); recompress the "
                                  "log from its plain .jsonl") from None
        self.produced += len(data)
        if self.produced > self._limit:
            raise LogStorageError(f"{self._storage} stream expands past {self._limit} bytes "
                                  f"({MAX_EXPANSION}x its stored size, at most {MAX_LOG_BYTES}): not read further "
                                  "(a valid log compresses about 15x at best)")
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        """Close the decompressor and the stored file."""
        self._inner.close()
        self._raw.close()  # gzip leaves the file it was given open
        super().close()


ZSTD_INPUT = 256
"""Compressed bytes fed to the decoder per call: a Zstandard RLE block turns 4 bytes into 128 KiB, so one call
yields at most 8 MiB, and the expansion bound is checked between calls."""


class _ZstdFrames(io.RawIOBase):
    """Zstandard frames decoded in small input steps, with a truncated last frame reported.

    (python-zstandard's `stream_reader` ends silently on a truncated frame, and its `decompressobj` has no
    output bound per call: feeding it `ZSTD_INPUT` bytes at a time bounds the output instead.)
    """

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._dctx = zstandard.ZstdDecompressor()
        self._obj = self._dctx.decompressobj()
        self._pending = b""
        self._offset = 0
        self._input = b""
        self._started = False

    def readable(self) -> bool:
        """Always: a reader."""
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """Decode until some output is ready (or the input ends: then the last frame must be whole)."""
        while not self._pending:
            if not self._input:
                self._input = self._fh.read(1 << 16)
                if not self._input:
                    if self._started and not self._obj.eof:
                        raise zstandard.ZstdError("the last frame is truncated")
                    return 0
            piece, self._input = self._input[:ZSTD_INPUT], self._input[ZSTD_INPUT:]
            if self._obj.eof:  # a frame ended: what follows starts the next one
                self._obj = self._dctx.decompressobj()
            self._started = True
            self._pending = self._obj.decompress(piece)
            if self._obj.eof and self._obj.unused_data:
                self._input = self._obj.unused_data + self._input
        n = min(len(buffer), len(self._pending) - self._offset)
        memoryview(buffer)[:n] = self._pending[self._offset:self._offset + n]
        self._offset += n
        if self._offset == len(self._pending):
            self._pending, self._offset = b"", 0
        return n


def open_stream(fh: IO[bytes], storage: Storage, name: str, stored: int) -> IO[bytes]:
    """The log's decompressed bytes from an open stored file (`fh` itself when plain).

    Raises:
        LogStorageError: the file's first bytes are not the format its name says.
    """
    if storage == "plain":
        return fh
    head = fh.read(4)
    fh.seek(0)
    if compressed_kind(head) != storage:
        fh.close()
        raise LogStorageError(f"the name says {storage}, the file's first bytes do not: rename it or recompress it")
    inner: IO[bytes] = (gzip.GzipFile(fileobj=fh, mode="rb") if storage == "gzip"  # type: ignore[assignment]
                        else io.BufferedReader(_ZstdFrames(fh), 1 << 16))
    return io.BufferedReader(BoundedDecompression(inner, fh, storage, name, allowance(stored)), 1 << 16)


def open_log(path: Path) -> IO[bytes]:
    """Open a run log for reading its decompressed lines (`storage_of` its name decides the format).

    Raises:
        LogStorageError: the first bytes are not the named format (later problems surface as it is read).
        OSError: the file cannot be opened.
    """
    fh = path.open("rb")
    storage = storage_of(path.name) or "plain"
    if storage == "plain":
        return fh
    return open_stream(fh, storage, str(path), path.stat().st_size)


def log_sha256(path: Path) -> str:
    """Hex SHA-256 of the log's decompressed bytes (of the file itself when plain): the digest results cite."""
    h = hashlib.sha256()
    with open_log(path) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


GZIP_LEVEL = 9
ZSTD_LEVEL = 19
"""Compression levels of written logs (written once, read many times: the smallest files)."""


def compressed_writer(path: Path, storage: Storage) -> IO[bytes]:
    """A new file at `path` that stores what is written to it as `storage` (plain: the file itself).

    The bytes are deterministic: gzip with no file name and a zero modification time, zstd without a
    content checksum or size (the log's own chain checks its content).
    """
    fh = path.open("wb")
    if storage == "plain":
        return fh
    if storage == "gzip":
        inner: IO[bytes] = gzip.GzipFile(filename="", mode="wb", fileobj=fh,  # type: ignore[assignment]
                                         compresslevel=GZIP_LEVEL, mtime=0)
        return _Closing(inner, fh)  # type: ignore[return-value]
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(fh, closefd=True)


class _Closing(io.RawIOBase):
    """A writer that closes the file under it too (gzip leaves the file it was given open)."""

    def __init__(self, inner: IO[bytes], raw: IO[bytes]) -> None:
        self._inner, self._raw = inner, raw

    def writable(self) -> bool:
        """Always: a writer."""
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        """Compress and write `data`."""
        return self._inner.write(data)

    def flush(self) -> None:
        """Nothing: a compressed log is flushed whole when it is closed."""

    def close(self) -> None:
        """Finish the stream and close the file."""
        if not self.closed:
            self._inner.close()
            self._raw.close()
        super().close()
