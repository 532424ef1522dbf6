"""The one line-parser interface (`LineParser`) and its two implementations.

`CanonicalParser` (the fast path) takes a line only when its bytes are the canonical bytes of the
event they validate to (`checker.format.schema.events.canonical_line`) and it is the exact next link
of the chain: such a line holds no duplicate key, NaN, CR, BOM or blank, so one validating parse
stands for the strict parse and the schema. It declines every other line, reporting nothing.

`StrictParser` takes every line: the strict JSON parse (duplicate keys, NaN, nesting and number
limits), `seq` and chain, the place of `run_start` and `run_end`, the format version, then the
schema; it words every problem. Both take a line the same way when the fast one takes it
(`tests/test_validate_fast_path.py` checks this on mutated logs).
"""

from __future__ import annotations

import enum
from typing import Protocol

import jiter
from pydantic import ValidationError

from checker.format.errors import UnsupportedVersionError
from checker.format.logio import check_version, describe_json_error, format_validation_error
from checker.format.scan.chain import Chain
from checker.format.schema.common import RunStart
from checker.format.schema.events import EVENT_ADAPTER, TO_JSON, Event, build_event

_from_json = jiter.from_json


class Declined(enum.Enum):
    """The type of `DECLINED`."""

    DECLINED = "declined"


DECLINED = Declined.DECLINED
"""What a parser returns for a line it does not take (another parser must)."""

Parsed = tuple[Event, bytes | None] | Declined | None
"""A parser's answer for one line: (event, its canonical bytes when known), `DECLINED`, or None (the line
was taken, it holds no event, and its problems were reported)."""

Problem = tuple[int | None, str]
"""(line number or None for the whole file, message)."""


class StopScan(Exception):
    """The log must not be read further (a format version newer than this checker reads)."""


class LineParser(Protocol):
    """Parses one line of a run log against where its chain stands."""

    def parse(self, data: bytes, lineno: int, chain: Chain) -> Parsed:
        """The event line `lineno` (its bytes without LF) holds, advancing `chain` when the line is taken.

        Raises:
            StopScan: the rest of the log must not be read (after the problem is reported).
        """
        ...  # pragma: no cover - a protocol

    def finish(self) -> None:
        """Report what is known only once every line was parsed."""
        ...  # pragma: no cover - a protocol


class CanonicalParser:
    """The fast path: a canonical line that is the exact next link, with one validating parse; else `DECLINED`."""

    def __init__(self) -> None:
        self._validate_json = EVENT_ADAPTER.validator.validate_json
        self._to_json = TO_JSON  # `canonical_line` without its call (the validator's hot path)

    def parse(self, data: bytes, lineno: int, chain: Chain) -> Parsed:
        """(event, `data`) for a canonical line that continues the chain; `DECLINED` for any other."""
        if chain.ended_at is not None:  # a line after run_end is reported (line 1 never follows: nothing precedes it)
            return DECLINED
        try:
            event = self._validate_json(data)
            model = type(event)
            line = self._to_json[model](event, exclude_none=True, by_alias=True)
        except ValueError:
            return DECLINED
        seq = event.seq
        if line == data and model is not RunStart and seq == chain.last_seq + 1 and event.prev == chain.expected:
            chain.last_seq = seq  # `Chain.follows`, inlined: the hot path
            return event, line
        return DECLINED

    def finish(self) -> None:
        """Nothing: the fast parser reports no problem."""


class StrictParser:
    """Every line, with every problem worded (appended to `problems`)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        self._crlf_first: int | None = None
        self._crlf_count = 0

    def parse(self, data: bytes, lineno: int, chain: Chain) -> Parsed:
        """(event, None) for a line the schema takes; None for one that holds no event (its problems reported).

        Raises:
            StopScan: line 1 declares a newer major format version.
        """
        if b"\r" in data:  # one scan on the common path (no CR at all)
            data = self._without_cr(data, lineno)
        try:
            obj = _from_json(data, allow_inf_nan=False, catch_duplicate_keys=True)
        except ValueError as exc:
            self._undecodable(data, lineno, chain, str(exc))
            return None
        if not isinstance(obj, dict):
            self.problems.append((lineno, f"event must be a JSON object, not {_json_kind(obj)}"))
            chain.skip()
            return None
        # seq and chain first: they do not depend on the event's type
        etype = obj.get("type")
        if lineno == 1:
            chain.begin(_run_id(obj, etype))
        seq, prev = obj.get("seq"), obj.get("prev")
        if type(seq) is int and seq == chain.last_seq + 1 and prev == chain.expected and chain.ended_at is None:
            chain.last_seq = seq  # `Chain.take`'s common case (the exact next link), inlined: the hot path
        else:
            self.problems.extend(chain.take(seq, prev, lineno))
        if lineno == 1 or etype == "run_start":
            self._head(obj, etype, lineno)
        try:
            event = build_event(obj, data)  # the object `from_json` read (no second parse of a valid line)
        except ValidationError as exc:
            self.problems.extend((lineno, message) for message in format_validation_error(exc))
            return None
        return event, None

    def _undecodable(self, data: bytes, lineno: int, chain: Chain, message: str) -> None:
        """Report a line that is not JSON: blank (not numbered: the next line takes its seq), or invalid."""
        if not data or data.isspace():
            self.problems.append((lineno, "blank line"))
        else:
            self.problems.append((lineno, describe_json_error(data, message)))
            chain.skip()

    def _without_cr(self, data: bytes, lineno: int) -> bytes:
        """The line without its trailing CR (counted for one CRLF finding); a CR inside it is reported."""
        if data.endswith(b"\r"):
            self._crlf_count += 1
            if self._crlf_first is None:
                self._crlf_first = lineno
            data = data[:-1]
        if b"\r" in data:
            self.problems.append(
                (lineno, "carriage return (CR) inside the line: a line ends with one LF and holds no other CR"))
        return data

    def _head(self, obj: dict[str, object], etype: object, lineno: int) -> None:
        """Where `run_start` may stand (line 1 only, and line 1 must hold it), and its format version."""
        if etype == "run_start":
            if lineno != 1:
                self.problems.append((lineno, "run_start may only be the first event"))
            else:
                self._check_version(obj.get("format_version"))
        else:
            self.problems.append((1, f"first event must be run_start, not {etype!r}" if isinstance(etype, str)
                                  else "first event must be run_start"))

    def _check_version(self, version: object) -> None:
        """Stop at a newer major format version (a malformed one is left to the schema)."""
        if isinstance(version, str) and version[:1].isdigit():
            try:
                check_version(version)
            except (UnsupportedVersionError, ValueError) as exc:
                self.problems.append((1, str(exc)))
                raise StopScan from None

    def finish(self) -> None:
        """Report CRLF line endings, once for the whole log."""
        if self._crlf_first is not None:
            self.problems.append((self._crlf_first, f"CRLF line endings on {self._crlf_count} line(s): "
                                                    "lines must end with LF only"))


def _run_id(obj: dict[str, object], etype: object) -> str | None:
    """The run id line 1 names: its `run_id` when it is a `run_start` with a string one."""
    run_id = obj.get("run_id")
    return run_id if etype == "run_start" and isinstance(run_id, str) else None


def _json_kind(obj: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(obj), "null"
    )
