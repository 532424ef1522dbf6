"""The bounded line source: the physical lines of an open run log, each with its SHA-256.

A line is read with at most `MAX_LINE_BYTES + 1` bytes in memory: a longer one is hashed to its
end and skipped (`checker.format.logio.skip_oversize`), so memory stays bounded whatever the file
holds. Every line, flawed or not, has the digest the next line's `prev` must carry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from checker.format import progress
from checker.format.logio import MAX_LINE_BYTES, skip_oversize


@dataclass(frozen=True, slots=True)
class Flaw:
    """Why a physical line holds no event to parse."""

    oversize: bool
    """True: longer than `MAX_LINE_BYTES` (skipped unread); False: the last line, without its LF."""
    length: int = 0
    """The oversize line's length in bytes."""


TRUNCATED = Flaw(oversize=False)
"""The last line of a file that does not end with LF."""

Line = tuple[int, bytes, str, Flaw | None]
"""(1-based line number, the line without its LF, SHA-256 hex of those bytes, flaw or None)."""


def bounded_lines(fh: IO[bytes], observe: Callable[[bytes], None] | None = None) -> Iterator[Line]:
    """Yield the lines of a binary stream; `observe` sees each chunk read (at most `MAX_LINE_BYTES + 1` bytes).

    The rest of an oversize line is skipped without being observed (its log holds a problem).
    """
    limit = MAX_LINE_BYTES + 1
    readline = fh.readline
    sha256 = hashlib.sha256
    tick, every = progress.tick, progress.TICK_LINES - 1
    lineno = 0
    while True:
        chunk = readline(limit)
        if not chunk:
            return
        lineno += 1
        if not lineno & every:  # the bytes read so far, for a progress bar (`checker.format.progress`)
            tick()
        if observe is not None:
            observe(chunk)
        if chunk[-1:] == b"\n":
            data = chunk[:-1]
            yield lineno, data, sha256(data).hexdigest(), None
        elif len(chunk) > MAX_LINE_BYTES:
            raw = skip_oversize(fh, chunk, lineno)
            yield lineno, b"", raw.digest, Flaw(oversize=True, length=raw.length)
        else:
            yield lineno, chunk, sha256(chunk).hexdigest(), TRUNCATED
