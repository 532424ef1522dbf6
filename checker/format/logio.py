"""The chained JSONL run log: its limits, the wording of its errors, a reader of valid logs, and `RunLogWriter`.

Validation reads a log through `checker.format.scan` (the scanner); this module holds what the
scanner and everything else share: the size limits, the strict parse and the wording of parser and
schema errors, `read_events` (a log already known to be valid), and `RunLogWriter`, which harness
authors use to write logs.

Line k (0-based) carries `seq` = k and `prev` = hex SHA-256 of line k-1's exact bytes
(without the terminating LF); line 0 carries `prev` = SHA-256 of the UTF-8 run id. Any edit,
deletion, insertion or reordering of lines therefore breaks the chain.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import jiter
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from checker import FORMAT_VERSION
from checker.format.errors import LogFormatError, UnsupportedVersionError
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import (
    EVENT_MODELS_BY_TYPE,
    EVENT_TYPES,
    Event,
    build_event,
    canonical_line,
)
from checker.format.storage import compressed_kind, compressed_writer, open_log, storage_of

MAX_LINE_BYTES = 1 << 20
"""Longest accepted line, in bytes (1 MiB); longer lines are reported and skipped."""
MAX_DEPTH = 200
"""Deepest accepted JSON nesting (the parser's recursion limit)."""
MAX_FILE_BYTES = 4 << 30
"""Largest accepted run log (4 GiB)."""
MAX_REPLAY_BYTES = 256 << 20
"""Largest replay size (see `over_replay_limit`) of a run log that `verify` replays and scores (256 MiB).

Scoring holds a run's events in memory (about 7 bytes of RAM per byte of a typical log), so a
larger log is validated (streamed: chain and schema) but not scored: its verdict is UNVERIFIED,
with a finding. Real runs are far smaller: a 10,000-beat agent run is 3-16 MB, a DRIFT-Bench-size
constraint run (22,688 turns at ~1.4 KB each) about 32 MB.
"""
REPLAY_CONTAINER_BYTES = 32
"""Replay-size charge per JSON object or array: `[]` or `{}` is 2 bytes of log but ~60 bytes of RAM
once decoded (x23 measured), a referent's `[x,y]` anchor cell ~500 with its geometry (x45)."""
READ_CHUNK = 1 << 16
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def genesis(run_id: str) -> str:
    """The `prev` of line 0: SHA-256 of the UTF-8 run id."""
    return sha256_hex(run_id.encode("utf-8"))


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(slots=True)
class RawLine:
    """One physical line of a run log, before decoding."""

    lineno: int
    """1-based line number."""
    data: bytes
    """The line without its LF (empty when `oversize`)."""
    digest: str
    """SHA-256 of the line's exact bytes (computed even for oversize lines)."""
    has_newline: bool
    oversize: bool = False
    length: int = 0


def iter_raw_lines(fh: IO[bytes]) -> Iterator[RawLine]:
    """Yield the lines of a binary stream; memory stays bounded by MAX_LINE_BYTES."""
    lineno = 0
    while True:
        data = fh.readline(MAX_LINE_BYTES + 1)
        if not data:
            return
        lineno += 1
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            yield skip_oversize(fh, data, lineno)
            continue
        has_newline = data.endswith(b"\n")
        if has_newline:
            data = data[:-1]
        yield RawLine(lineno, data, hashlib.sha256(data).hexdigest(), has_newline, length=len(data))


def skip_oversize(fh: IO[bytes], head: bytes, lineno: int) -> RawLine:
    """Consume the rest of an oversize line, hashing it without keeping it."""
    h = hashlib.sha256(head)
    length = len(head)
    has_newline = False
    while True:
        chunk = fh.readline(READ_CHUNK)
        if not chunk:
            break
        if chunk.endswith(b"\n"):
            h.update(chunk[:-1])
            length += len(chunk) - 1
            has_newline = True
            break
        h.update(chunk)
        length += len(chunk)
    return RawLine(lineno, b"", h.hexdigest(), has_newline, oversize=True, length=length)


def over_replay_limit(path: Path) -> tuple[int, int, int, int] | None:
    """(bytes, JSON objects/arrays, replay size, limit) of a log too large to replay, else None.

    Replay size = bytes + `REPLAY_CONTAINER_BYTES` per `{` or `[` byte (brackets inside strings
    count too: an over-estimate). Every object or array takes at least 2 bytes, so a log small
    enough cannot exceed `MAX_REPLAY_BYTES` whatever it holds and is not even read here; a larger
    one is read once more, in chunks (memory stays flat).
    """
    size = path.stat().st_size
    plain = storage_of(path.name) in (None, "plain")
    if plain and size * (1 + REPLAY_CONTAINER_BYTES // 2) <= MAX_REPLAY_BYTES:
        return None
    containers = size = 0  # a compressed log is weighed by its decompressed bytes
    with open_log(path) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            size += len(chunk)
            containers += chunk.count(b"{") + chunk.count(b"[")
    weight = size + REPLAY_CONTAINER_BYTES * containers
    return (size, containers, weight, MAX_REPLAY_BYTES) if weight > MAX_REPLAY_BYTES else None


def decode_json(data: bytes) -> Any:
    """Parse one line strictly: no duplicate keys, no NaN/Infinity, UTF-8 only.

    Raises:
        ValueError: with a message fit for `path:line: message`.
    """
    try:
        return jiter.from_json(data, allow_inf_nan=False, catch_duplicate_keys=True)
    except ValueError as exc:
        raise ValueError(describe_json_error(data, str(exc))) from None


def describe_json_error(data: bytes, message: str) -> str:
    """Turn a parser message into a precise, user-facing one."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8: byte 0x{data[exc.start]:02x} at column {exc.start + 1}"
    known = _known_parser_error(message)
    if known is not None:
        return known
    if "surrogate" in message or "hex escape" in message:
        lone = _lone_surrogate(data)
        if lone is not None:
            return (f"invalid JSON: lone surrogate escape '{lone[1]}' at column {lone[0]} "
                    "(strings must be valid Unicode)")
    return _non_number(data) or f"invalid JSON: {message}"


def _known_parser_error(message: str) -> str | None:
    """The wording of a parser message that names its problem (duplicate key, nesting, number range), else None."""
    if message.startswith("Detected duplicate key"):
        key = message.split('"')[1] if '"' in message else "?"
        return f"invalid JSON: duplicate key {key!r}"
    if message.startswith("recursion limit exceeded"):
        return f"invalid JSON: nesting deeper than {MAX_DEPTH} levels"
    if message.startswith("number out of range"):
        column = message.rsplit(" ", 1)[-1]
        return f"invalid JSON: number out of range at column {column} (integers must fit in 64 bits: -2^63 to 2^63-1)"
    return None


def _non_number(data: bytes) -> str | None:
    """`NaN` or `Infinity` named, when the line parses once it is replaced by a number; else None."""
    for token in (b"NaN", b"Infinity"):
        if token in data:
            probe = data.replace(token, b"0")
            try:
                jiter.from_json(probe)
            except ValueError:
                continue
            return f"invalid JSON: {token.decode()} is not a JSON number"
    return None


def _lone_surrogate(data: bytes) -> tuple[int, str] | None:
    """(1-based column, escape) of the first `\\uD800`-`\\uDFFF` escape that is not half of a valid pair."""
    pending: tuple[int, str] | None = None
    pending_end = 0
    for m in _SURROGATE_ESCAPE.finditer(data):
        text = m.group().decode("ascii")
        high = text[2].lower() == "d" and text[3].lower() in "89ab"
        if pending is not None:
            if not high and m.start() == pending_end:
                pending = None
                continue
            return pending
        if not high:
            return m.start() + 1, text
        pending, pending_end = (m.start() + 1, text), m.end()
    return pending


def check_version(version: str) -> None:
    """Refuse a newer major format version with a plain message."""
    major = int(version.split(".", 1)[0])
    ours = int(FORMAT_VERSION.split(".", 1)[0])
    if major > ours:
        raise UnsupportedVersionError(
            f"format version {version} is newer than this checker reads ({ours}.x); upgrade driftboard"
        )


def format_validation_error(exc: ValidationError) -> list[str]:
    """One message per pydantic error, naming the field the way the log spells it."""
    return [_error_message(err) for err in exc.errors(include_url=False)]


def _error_message(err: ErrorDetails) -> str:
    """One pydantic error, worded with the field's name as the log spells it."""
    if err["type"] == "union_tag_invalid":
        return f"unknown event type {err.get('ctx', {}).get('tag', '?')!r}"
    if err["type"] == "union_tag_not_found":
        return "missing field 'type'"
    loc = [str(p) for p in err["loc"]]
    if loc and loc[0] in EVENT_TYPES:
        loc = loc[1:]
    field = ".".join(loc)
    if err["type"] == "missing":
        return f"missing field {field!r}"
    if err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"unexpected field {field!r}"
    msg = err["msg"]
    msg = msg[0].lower() + msg[1:] if msg else msg
    return f"field {field!r}: {msg}" if field else msg


class EventError(ValueError):
    """An event `RunLogWriter` refuses: it names the event type, each field at fault and the fields expected.

    The first line of the message is the problem (short enough for a `run_end` reason); the
    second lists the fields the event type takes.
    """

    def __init__(self, event_type: str | None, problems: list[str], expected: str) -> None:
        self.event_type = event_type
        self.problems = problems
        """One message per problem, e.g. `unexpected field 'trun' (did you mean 'turn'?)`."""
        self.expected = expected
        """The fields the event type takes (or the event types, when the type is unknown)."""
        what = f"{event_type} event" if event_type else "event"
        super().__init__(f"{what}: {'; '.join(problems)}\n{expected}")


def event_fields(event_type: str) -> tuple[list[str], list[str]]:
    """(required, optional) field names of an event type, as a harness writes them (no `seq`, `prev`, `type`)."""
    model = EVENT_MODELS_BY_TYPE[event_type]
    required: list[str] = []
    optional: list[str] = []
    for name, info in model.model_fields.items():
        if name in ("seq", "prev", "type"):
            continue
        (required if info.is_required() else optional).append(name)
    return required, optional


def describe_event_error(event: Mapping[str, object], exc: ValidationError) -> EventError:
    """Turn pydantic's report on one event into an `EventError` a harness author can act on."""
    etype = event.get("type")
    types = ", ".join(EVENT_MODELS_BY_TYPE)
    if not isinstance(etype, str) or etype not in EVENT_TYPES:
        if etype is None:
            problem = "missing field 'type'"
        else:
            close = difflib.get_close_matches(str(etype), list(EVENT_MODELS_BY_TYPE), n=1)
            problem = f"unknown event type {etype!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
        return EventError(None, [problem], f"the event types are: {types}")
    required, optional = event_fields(etype)
    problems = [_with_hint(message, [*required, *optional]) for message in format_validation_error(exc)]
    expected = f"{etype} fields: " + ", ".join(f"{n} (required)" for n in required)
    if optional:
        expected += (", " if required else "") + ", ".join(optional)
    return EventError(etype, problems, expected)


def _with_hint(message: str, known: list[str]) -> str:
    """An `unexpected field` message with the closest known field suggested, when one is close."""
    if not message.startswith("unexpected field "):
        return message
    name = message.split("'")[1] if "'" in message else ""
    close = difflib.get_close_matches(name, known, n=1)
    return message + f" (did you mean {close[0]!r}?)" if close else message


def read_events(path: Path) -> Iterator[tuple[int, Event]]:
    """Yield (line number, event) for a log that is already known to be valid.

    The pipeline calls this after `validate`; it stops at the first problem.

    Raises:
        LogFormatError: at the first line that is not a valid event.
    """
    with open_log(path) as fh:
        for raw in iter_raw_lines(fh):
            if raw.oversize:
                raise LogFormatError(str(path), raw.lineno, "line longer than the limit")
            try:
                # the strict parse (no duplicate key, NaN or infinity), then the event built from what it read
                event = build_event(decode_json(raw.data), raw.data)
            except ValueError as exc:
                messages = (
                    format_validation_error(exc) if isinstance(exc, ValidationError) else [str(exc)]
                )
                raise LogFormatError(str(path), raw.lineno, "; ".join(messages)) from None
            yield raw.lineno, event


class RunLogWriter:
    """Append events to a chained run log; flushes every line.

    Example:
        with RunLogWriter(path, run_start_fields) as log:
            log.write({"type": "beat", "turn": 1, "action": "ACTION1"})
            log.end("COMPLETED", "horizon reached")

    Leaving the block without `end()` writes `run_end` with status ABORTED (exception) or
    COMPLETED. Opening an existing log appends to its chain.
    """

    def __init__(self, path: Path | str, run_start: Mapping[str, object] | None = None, *, fsync: bool = False,
                 flush: bool = True):
        self.path = Path(path)
        self.fsync = fsync
        self.flush = flush
        """Flush every line (a harness that crashes mid-run loses no line); an importer that writes a
        whole log at once passes False (one write per buffer, flushed on close)."""
        self._ended = False
        storage = storage_of(self.path.name) or "plain"
        if storage != "plain":
            self.flush = self.fsync = False  # a compressed stream is written whole: no line is on disk before close
        if self.path.exists() and self.path.stat().st_size > 0:
            if storage != "plain":
                raise ValueError(f"{self.path}: cannot append to a compressed log (write it whole, or write the "
                                 "plain .jsonl and compress it once it ends)")
            self._seq, self._prev = _tail_state(self.path)
            self._fh: IO[bytes] = self.path.open("ab")
        else:
            if run_start is None:
                raise ValueError("a new run log needs its run_start fields")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = compressed_writer(self.path, storage)
            self._seq = 0
            self._prev = genesis(str(run_start["run_id"]))
            fields = {"format_version": FORMAT_VERSION, **run_start, "type": "run_start"}
            try:
                self.write(fields)
            except BaseException:  # an invalid run_start: no log, and no open file handle left behind
                self._fh.close()
                self.path.unlink(missing_ok=True)
                raise

    def write(self, event: Mapping[str, object]) -> str:
        """Validate, chain and append one event; returns the line's SHA-256.

        Raises:
            EventError: the event does not fit its type (the message names the type, the field
                and the fields expected); nothing is written.
            ValueError: the run log already ended.
        """
        if self._ended:
            raise ValueError("run log already ended")
        payload = {"seq": self._seq, "prev": self._prev, **{k: v for k, v in event.items() if v is not None}}
        payload["seq"], payload["prev"] = self._seq, self._prev
        try:
            model = build_event(payload)  # strict, from the fields (no JSON round trip)
        except ValidationError as exc:
            raise describe_event_error(payload, exc) from None
        line = canonical_line(model)  # so that validation takes every line a writer wrote on its fast path
        self._fh.write(line + b"\n")
        if self.flush or self.fsync:
            self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())
        self._prev = sha256_hex(line)
        self._seq += 1
        if isinstance(model, RunEnd):
            self._ended = True
        return self._prev

    def end(self, status: str = "COMPLETED", reason: str | None = None) -> None:
        """Write the closing `run_end` event."""
        self.write({"type": "run_end", "status": status, "reason": reason})

    def close(self) -> None:
        """Close the file without ending the run (the log stays INCOMPLETE)."""
        self._fh.close()

    def __enter__(self) -> RunLogWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._ended:
            if exc_type is None:
                self.end("COMPLETED")
            else:
                self.end("ABORTED", abort_reason(exc_type, exc))
        self.close()


MAX_REASON_CHARS = 300
"""Longest `run_end` reason `RunLogWriter` derives from an exception."""


def abort_reason(exc_type: type[BaseException], exc: BaseException | None) -> str:
    """`Type: first line of the message`, at most `MAX_REASON_CHARS` characters (the reason of an ABORTED run)."""
    lines = str(exc).splitlines() if exc is not None else []
    text = f"{exc_type.__name__}: {lines[0]}" if lines else exc_type.__name__
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def _tail_state(path: Path) -> tuple[int, str]:
    """(next seq, prev digest) from the last line of an existing log."""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        block = min(size, MAX_LINE_BYTES + 2)
        fh.seek(size - block)
        tail = fh.read(block)
    if not tail.endswith(b"\n"):
        raise LogFormatError(str(path), None, "cannot append: last line is truncated")
    last = tail[:-1].rsplit(b"\n", 1)[-1]
    obj = decode_json(last)
    if obj.get("type") == "run_end":
        raise LogFormatError(str(path), None, "cannot append: the run already ended")
    return int(obj["seq"]) + 1, sha256_hex(last)


__all__ = [
    "MAX_DEPTH", "MAX_LINE_BYTES", "MAX_REPLAY_BYTES", "REPLAY_CONTAINER_BYTES", "EventError", "RawLine", "RunLogWriter",
    "RunStart", "abort_reason", "check_version", "compressed_kind", "decode_json", "describe_event_error",
    "event_fields", "file_sha256", "format_validation_error", "genesis",
    "iter_raw_lines", "over_replay_limit", "read_events", "sha256_hex",
]
