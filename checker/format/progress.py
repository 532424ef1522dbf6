"""Progress reporting for long stages, as a plain callback (the pipeline never imports click).

A stage takes an optional `Progress` callback, `progress(done, total)`, and calls it as work
completes; the command line passes a progress bar on stderr when stderr is a terminal
(`checker.cli.commands.terminal_progress`), else None.

Verification counts its work in bytes of run logs as stored (a compressed log by its compressed
bytes), not in runs: one long run moves the bar as it is read. The reading side is a per-process
meter: `reading(size)` brackets one log, `watch(raw)` names the stored file being read, and the
line reader calls `tick()` every `TICK_LINES` lines; each tick reports the bytes read since the
last one to the process's `set_meter` callback, and the end of a log tops it up to the log's
size (a log refused after a few bytes still counts whole). Nothing is reported with no meter set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, TypeVar

Progress = Callable[[int, int], None]
"""`progress(done, total)`: `done` of `total` units of work are finished."""

T = TypeVar("T")

TICK_LINES = 4096
"""Lines between two reports of the bytes read (a test of the bit mask; about 1 MB of an agent log)."""


def ticking(items: Iterable[T], total: int, progress: Progress | None) -> Iterator[T]:
    """Yield `items`; after the consumer has handled each one, report it done (done, total) to `progress`."""
    if progress is None:
        yield from items
        return
    progress(0, total)
    for done, item in enumerate(items, start=1):
        yield item
        progress(done, total)


class _Meter:
    """This process's byte meter: whom to tell, and the log being read."""

    def __init__(self) -> None:
        self.report: Callable[[int], None] | None = None
        self.raw: IO[bytes] | None = None
        self.done = 0


_METER = _Meter()


def set_meter(report: Callable[[int], None] | None) -> None:
    """Report bytes of logs read in this process to `report(delta)` (None: report nothing)."""
    _METER.report, _METER.raw, _METER.done = report, None, 0


@contextmanager
def reading(size: int) -> Iterator[None]:
    """Bracket the reading of one stored log of `size` bytes: at the end, whatever was not reported is."""
    _METER.raw, _METER.done = None, 0
    try:
        yield
    finally:
        report, rest = _METER.report, size - _METER.done
        _METER.raw, _METER.done = None, 0
        if report is not None and rest > 0:
            report(rest)


def watch(raw: IO[bytes]) -> None:
    """The stored file (not a decompressing stream over it) whose position `tick` reports."""
    _METER.raw = raw if _METER.report is not None else None


def tick() -> None:
    """Report the bytes read from the watched file since the last report (the line reader calls it)."""
    raw, report = _METER.raw, _METER.report
    if raw is None or report is None:
        return
    try:
        pos = raw.tell()
    except (OSError, ValueError):
        return
    if pos > _METER.done:
        report(pos - _METER.done)
        _METER.done = pos
