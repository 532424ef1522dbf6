"""Progress reporting for long stages, as a plain callback (the pipeline never imports click).

A stage takes an optional `Progress` callback, `progress(done, total)`, and calls it as work
completes; the command line passes a progress bar on stderr when stderr is a terminal
(`checker.cli.commands.terminal_progress`), else None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

Progress = Callable[[int, int], None]
"""`progress(done, total)`: `done` of `total` units of work are finished."""

T = TypeVar("T")


def ticking(items: Iterable[T], total: int, progress: Progress | None) -> Iterator[T]:
    """Yield `items`; after the consumer has handled each one, report it done (done, total) to `progress`."""
    if progress is None:
        yield from items
        return
    progress(0, total)
    for done, item in enumerate(items, start=1):
        yield item
        progress(done, total)
