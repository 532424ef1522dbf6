"""Every beat's GDS outcome in a few bytes: the run-length code `GdsCounts.outcomes` stores.

One symbol per beat of the log, in log order: `.` not a reference beat (or RESET), `a` aligned,
`b` bind, `x` abandon. A symbol is followed by its repeat count when it repeats (`.a3b` = one beat
that is not a reference beat, three aligned, one bind). A run record keeps the code, not a list per
beat: a 10^4-beat run costs a few bytes when its beats mostly agree and at most ~2 bytes a beat
otherwise, so a thousand such runs stay small in memory and in the results file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import groupby, repeat

SYMBOLS = {".": None, "a": "aligned", "b": "bind", "x": "abandon"}
"""Symbol -> outcome (None: not a reference beat)."""

_SEGMENT = re.compile(r"([.abx])([1-9][0-9]{0,8})?")


def encode(symbols: Iterable[str]) -> str:
    """The run-length code of a sequence of outcome symbols (each one of `SYMBOLS`)."""
    out: list[str] = []
    for symbol, group in groupby(symbols):
        if symbol not in SYMBOLS:
            raise ValueError(f"not an outcome symbol: {symbol!r}")
        n = sum(1 for _ in group)
        out.append(symbol if n == 1 else f"{symbol}{n}")
    return "".join(out)


def decode(code: str) -> list[tuple[str | None, int]] | None:
    """The code's segments, (outcome, beats) in log order (outcome None: not a reference beat); None when malformed.

    Memory is linear in the code, not in the beats it names (`b999999999` is 10 bytes): a reader walks
    the beats with `each_beat`.
    """
    out: list[tuple[str | None, int]] = []
    pos = 0
    for m in _SEGMENT.finditer(code):
        if m.start() != pos:
            return None
        pos = m.end()
        out.append((SYMBOLS[m.group(1)], int(m.group(2) or 1)))
    return out if pos == len(code) else None


def each_beat(segments: list[tuple[str | None, int]]) -> Iterator[str | None]:
    """The outcome of each beat in turn."""
    for outcome, n in segments:
        yield from repeat(outcome, n)
