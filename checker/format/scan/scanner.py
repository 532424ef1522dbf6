"""The scanner: drives the line parsers over a log's lines and hands every event to the sinks.

Per line: link it into the chain; a flawed line (oversize, or a last line without LF) is reported;
any other is offered to the canonical parser (while it is worth trying) and, if declined, to the
strict one. What a parser takes goes to the sinks: the event on line 1 and the first `run_end` to
the header sink and the event sink, every other event to the event sink only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, Protocol

from checker.format.logio import MAX_LINE_BYTES
from checker.format.scan.chain import Chain
from checker.format.scan.lines import Flaw, Line, bounded_lines
from checker.format.scan.parsers import DECLINED, CanonicalParser, LineParser, Parsed, Problem, StopScan, StrictParser
from checker.format.schema.common import RunEnd
from checker.format.schema.events import Event

BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: refused at the start of a log (and a line holding one is not JSON)."""
GIVE_UP = 16
"""A log whose lines miss the fast path (a harness that does not write canonical lines) stops trying it once
more than this many lines, and more than half of the lines read, have missed: a miss costs a second parse."""


ParseFn = Callable[[bytes, int, Chain], Parsed]
"""A parser's bound `parse`."""


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
    """One pass over one log's lines, with `(strict,)` or `(fast, strict)` parsers.

    The strict parser (the last) reads line 1 and every line the fast one declines; the fast one is
    offered every later line until it has missed too often (`give_up`) or the run has ended.
    """

    def __init__(self, parsers: tuple[LineParser, ...], header: HeaderSink, events: EventSink | None = None,
                 problems: list[Problem] | None = None, give_up: int = GIVE_UP) -> None:
        if len(parsers) not in (1, 2):
            raise ValueError("a scanner takes the strict parser, after at most one fast parser")
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
        # the validator's hot path: the fast parser while it is worth trying, then the strict one; one call
        # per sink that takes the event (line 1 is read on its own: neither the fast parser nor `add` takes it)
        rest = iter(lines)
        events = self._line_one(rest)
        chain, strict = self.chain, self.parsers[-1].parse
        fast: ParseFn | None = self.parsers[0].parse if len(self.parsers) > 1 else None
        add = events.add if events is not None else None
        declined, run_end = DECLINED, RunEnd  # locals: read on every line
        misses, lineno = 0, self.lines
        try:
            for lineno, data, digest, flaw in rest:
                chain.expected, chain.digest = chain.digest, digest  # `Chain.link`, inlined: the hot path
                if flaw is not None:
                    events = self._flawed(lineno, flaw, events)
                    add = events.add if events is not None else None
                    continue
                if fast is None:
                    got = strict(data, lineno, chain)
                else:
                    got = fast(data, lineno, chain)
                    if got is declined:
                        misses += 1
                        fast = self._keep_trying(fast, misses, lineno)
                        got = strict(data, lineno, chain)
                if got is None or got is DECLINED:  # the line holds no event (the last parser never declines)
                    continue
                event, canonical = got
                if type(event) is not run_end:
                    if add is not None:
                        add(event, lineno, canonical)
                elif chain.end(lineno):  # a later run_end was reported as an event after run_end
                    fast = None  # nothing after run_end is taken without being reported
                    self._ended(event, events)
        finally:
            self.lines = lineno

    def _line_one(self, lines: Iterator[Line]) -> EventSink | None:
        """Read line 1 (after a BOM, reported; by the strict parser only: it sets the chain up).

        Returns the event sink, or None once it is abandoned.
        """
        events = self.events
        first = next(lines, None)
        if first is None:
            return events
        lineno, data, digest, flaw = first
        self.lines = lineno
        self.chain.link(digest)
        if flaw is not None:
            return self._flawed(lineno, flaw, events)
        if data.startswith(BOM):
            self.problems.append((1, "UTF-8 byte order mark at start of file is not allowed"))
            data = data[len(BOM):]
        got = self.parsers[-1].parse(data, lineno, self.chain)
        if not isinstance(got, tuple):
            return events
        event = got[0]
        if type(event) is RunEnd:
            self.chain.end(lineno)
            self._ended(event, events)
        else:
            self.header.start(event)
            if events is not None:
                events.start(event)
        return events

    def _ended(self, event: Event, events: EventSink | None) -> None:
        self.header.end(event)
        if events is not None:
            events.end(event)

    def _keep_trying(self, fast: ParseFn, misses: int, lineno: int) -> ParseFn | None:
        """The fast parser, or None once it missed more than `give_up` lines, and more than half the lines read."""
        return None if misses > self.give_up and 2 * misses > lineno else fast

    def _flawed(self, lineno: int, flaw: Flaw, events: EventSink | None) -> EventSink | None:
        """Report a line that holds no event; the event sink, or None when an oversize line abandons it."""
        if not flaw.oversize:
            self.problems.append((lineno, "truncated last line (no newline at end of file)"))
            return events
        self.problems.append((lineno, f"line is {flaw.length} bytes, longer than the {MAX_LINE_BYTES}-byte limit"))
        self.chain.skip()  # it takes its place in the numbering
        if events is not None:
            events.abandon()  # nothing more is kept
        return None


def scan_log(fh: IO[bytes], header: HeaderSink, events: EventSink | None = None, *, fast: bool = True,
             give_up: int = GIVE_UP, observe: Callable[[bytes], None] | None = None) -> Scanner:
    """Scan an open log with the strict parser, after the canonical one when `fast`; `observe` sees each chunk read."""
    problems: list[Problem] = []
    strict = StrictParser(problems)
    parsers: tuple[LineParser, ...] = (CanonicalParser(), strict) if fast else (strict,)
    scanner = Scanner(parsers, header, events, problems, give_up)
    scanner.scan(bounded_lines(fh, observe))
    return scanner
