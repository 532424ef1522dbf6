"""The scanner: drives the line parsers over a log's lines and hands every event to the sinks.

Per line: link it into the chain; a flawed line (oversize, or a last line without LF) is reported;
any other is offered to the canonical parser (while it is worth trying) and, if declined, to the
strict one. What a parser takes goes to the sinks: the event on line 1 and the first `run_end` to
the header sink and the event sink, every other event to the event sink only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, Protocol

from checker.format.logio import MAX_LINE_BYTES
from checker.format.scan.chain import Chain
from checker.format.scan.lines import Line, bounded_lines
from checker.format.scan.parsers import DECLINED, CanonicalParser, LineParser, Parsed, Problem, StopScan, StrictParser
from checker.format.schema.common import RunEnd
from checker.format.schema.events import Event

GIVE_UP = 16
"""A log whose lines miss the fast path (a harness that does not write canonical lines) stops trying it once
more than this many lines, and more than half of the lines read, have missed: a miss costs a second parse."""


class HeaderSink(Protocol):
    """Receives what heads and closes a run: the event on line 1 and the first `run_end`."""

    def start(self, event: Event) -> None:
        """The event line 1 holds (a `run_start` in a valid log)."""
        ...  # pragma: no cover - a protocol

    def end(self, event: Event) -> None:
        """The log's first `run_end` event."""
        ...  # pragma: no cover - a protocol


class EventSink(HeaderSink, Protocol):
    """Also receives every other event, in file order."""

    def add(self, event: Event, lineno: int, canonical: bytes | None) -> None:
        """One event after line 1 (not the first `run_end`); `canonical` is its canonical bytes when known."""
        ...  # pragma: no cover - a protocol

    def abandon(self) -> None:
        """Keep nothing more: the log has a problem, so what was received will not be used."""
        ...  # pragma: no cover - a protocol


class Scanner:
    """One pass over one log's lines: `parsers` are tried in order (the last must take every line)."""

    def __init__(self, parsers: tuple[LineParser, ...], header: HeaderSink, events: EventSink | None = None,
                 problems: list[Problem] | None = None, give_up: int = GIVE_UP) -> None:
        self.parsers = parsers
        self.header = header
        self.events = events
        self.problems: list[Problem] = [] if problems is None else problems
        """Every problem found, in the order found: (line or None, message)."""
        self.give_up = give_up
        self.chain = Chain()
        self.lines = 0
        """How many lines were read."""
        self.refused = False
        """True when a parser stopped the scan (`StopScan`): the rest of the log was not read."""

    def scan(self, lines: Iterable[Line]) -> None:
        """Read every line (up to a `StopScan`), then let the parsers report what they saw of the whole log."""
        try:
            self._loop(lines)
        except StopScan:
            self.refused = True
        for parser in self.parsers:
            parser.finish()

    def _loop(self, lines: Iterable[Line]) -> None:
        # the validator's hot path: one call per parser tried, one per sink that takes the event
        chain, problem, header, events = self.chain, self.problems.append, self.header, self.events
        *first, last = self.parsers
        fast = first[0].parse if first else None
        strict = last.parse
        misses = lineno = 0
        try:
            for lineno, data, digest, flaw in lines:
                chain.link(digest)
                if flaw is not None:
                    if flaw.oversize:
                        problem((lineno, f"line is {flaw.length} bytes, longer than the {MAX_LINE_BYTES}-byte limit"))
                        chain.skip()
                        if events is not None:
                            events.abandon()
                            events = None
                    else:
                        problem((lineno, "truncated last line (no newline at end of file)"))
                    continue
                got: Parsed = DECLINED
                if fast is not None and lineno > 1 and chain.ended_at is None:
                    got = fast(data, lineno, chain)
                    if got is DECLINED:
                        misses += 1
                        if misses > self.give_up and 2 * misses > lineno:
                            fast = None
                if got is DECLINED:
                    got = strict(data, lineno, chain)
                if got is None or got is DECLINED:
                    continue
                event, canonical = got
                if type(event) is RunEnd:
                    if chain.end(lineno):  # a later run_end was reported as an event after run_end
                        header.end(event)
                        if events is not None:
                            events.end(event)
                elif lineno == 1:
                    header.start(event)
                    if events is not None:
                        events.start(event)
                elif events is not None:
                    events.add(event, lineno, canonical)
        finally:
            self.lines = lineno


def scan_log(fh: IO[bytes], header: HeaderSink, events: EventSink | None = None, *, fast: bool = True,
             give_up: int = GIVE_UP, observe: Callable[[bytes], None] | None = None) -> Scanner:
    """Scan an open log with the strict parser, after the canonical one when `fast`; `observe` sees each chunk read."""
    problems: list[Problem] = []
    strict = StrictParser(problems)
    parsers: tuple[LineParser, ...] = (CanonicalParser(), strict) if fast else (strict,)
    scanner = Scanner(parsers, header, events, problems, give_up)
    scanner.scan(bounded_lines(fh, observe))
    return scanner
