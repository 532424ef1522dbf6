"""Mutations for `driftboard bench fuzz`: hypothesis strategies over bytes, lines and events.

Three levels, all applied to a valid seed:

* bytes: replace one byte, insert bytes, delete bytes, truncate (`byte_mutation`);
* lines: delete, duplicate, swap, insert or move whole lines (`line_mutation`);
* events: edit the decoded JSON events (set, delete or retype fields, drop/duplicate/reorder
  events) and re-chain `seq`/`prev`, so the result passes the hash chain and reaches replay,
  gating and scoring (`event_mutation`).

Each strategy draws a `Mutation` and `Mutation.apply(seed)` gives the mutated bytes. `single`
is True for the one-edit mutations whose detection `site/format.md` promises (see
`must_be_detected`).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from checker.format.schema.events import EVENT_MODELS, EVENT_TYPES

INTERESTING_BYTES = (
    b"\n", b"\r", b"\r\n", b"\x00", b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b" ", b"\t", b"NaN",
    b"Infinity", b"-0", b"1e999", b"-1", b"99999999999999999999999", b"\xef\xbb\xbf", b"\xff", b"\xc3",
    b"\\u0000", b"\\ud800", b"null", b"true", b"\xe2\x80\xae", b"[" * 300, b"{}" * 50,
)
INTERESTING_STRINGS = (
    "", " ", "RESET", "ACTION1", "ACTION6", "LIVE", "SHADOW", "COMMITMENT_STEP", "PROBE", "ACTUATOR_LLM", "FALLBACK",
    "OBSERVER", "SURVEYOR", "ACTUATOR", "BASELINE", "STEP", "RULE", "TARGET_REF", "GOAL_BINDING", "COMPLETED",
    "ABORTED", "FAILED", "run_end", "beat", "-", "|", "g|ACTION6|R0001|RU1", "-|-|-|-", "\x00", "\u202e", "<script>",
    "{{ x }}", "../x", "a" * 300, "NaN", "1e999", "seating", "scheduling", "logic_grid", "Ann", "seating_001",
    "at_position", "left_of", "0", "1", "-1", "3.0", "é", "🙂",
)
FIELD_NAMES = tuple(sorted({name for model in EVENT_MODELS for name in model.model_fields}))
"""Every field name any event model declares (new keys are drawn from here or made up)."""

json_scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(-3, 64), st.sampled_from([-(2**63), -1, 2**31, 2**53 + 1, 2**63, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=12), st.sampled_from(INTERESTING_STRINGS),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(FIELD_NAMES)), inner, max_size=4),
    ),
    max_leaves=8,
)
"""Any JSON value (no NaN/Infinity: the structure level writes valid JSON)."""


@dataclass(frozen=True)
class Mutation:
    """A drawn edit: `apply(seed)` returns the mutated bytes; `note` says what was done."""

    kind: str
    note: str
    single: bool
    fn: Callable[[bytes], bytes]

    def apply(self, seed: bytes) -> bytes:
        """The mutated bytes."""
        return self.fn(seed)


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their LF (the last one may lack it)."""
    return data.splitlines(keepends=True) if b"\r" not in data else _split_lf(data)


def _split_lf(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def last_line_start(data: bytes) -> int:
    """Offset of the first byte of the last line (the line holding `run_end` in a valid log)."""
    body = data[:-1] if data.endswith(b"\n") else data
    return body.rfind(b"\n") + 1


def must_be_detected(seed: bytes, mutated: bytes, mutation: Mutation) -> bool:
    """True when `site/format.md` promises that validation reports this mutation of a valid log.

    Promised: one single edit (a replaced byte, inserted bytes, bytes deleted within one line,
    a truncation, or a whole line deleted, duplicated, swapped, inserted or moved) whose first
    changed byte lies before the last line. Edits confined to the last line are pinned only by
    the log's SHA-256 (no later line carries its digest); several edits together can rebuild a
    valid chain (the chain detects changes, it does not authenticate the writer).
    """
    if not mutation.single or mutated == seed:
        return False
    if mutation.kind in ("line", "truncate"):
        return True
    if mutation.kind == "delete" and seed.count(b"\n") != mutated.count(b"\n"):
        return False  # the deletion spans lines: it may leave a forged, valid run_end
    first = next((i for i, (a, b) in enumerate(zip(seed, mutated, strict=False)) if a != b), min(len(seed), len(mutated)))
    return first < last_line_start(seed)


@st.composite
def byte_mutation(draw: st.DrawFn, size: int) -> Mutation:
    """One byte-level edit of a blob of `size` bytes."""
    op = draw(st.sampled_from(["replace", "insert", "delete", "truncate"] if size else ["insert"]))
    if op == "replace":
        i = draw(st.integers(0, size - 1))
        b = draw(st.integers(0, 255))
        def replace(d: bytes) -> bytes:
            if not d:
                return d
            k = i % len(d)
            return d[:k] + bytes([b if d[k] != b else (b + 1) % 256]) + d[k + 1:]

        return Mutation("bytes", f"replace byte {i} with 0x{b:02x}", True, replace)
    if op == "insert":
        i = draw(st.integers(0, size))
        blob = draw(st.one_of(st.sampled_from(INTERESTING_BYTES), st.binary(min_size=1, max_size=8)))
        return Mutation("bytes", f"insert {blob[:16]!r} at {i}", True, lambda d: d[:i] + blob + d[i:])
    if op == "delete":
        i = draw(st.integers(0, size - 1))
        n = draw(st.integers(1, 8))

        def delete(d: bytes) -> bytes:
            k = i % max(len(d), 1)
            return d[:k] + d[k + n:]

        return Mutation("delete", f"delete {n} byte(s) at {i}", True, delete)
    i = draw(st.integers(0, size - 1))
    return Mutation("truncate", f"truncate to {i} bytes", True, lambda d: d[:i])


@st.composite
def line_mutation(draw: st.DrawFn, n_lines: int) -> Mutation:
    """One whole-line edit: delete, duplicate, swap, move or insert a line."""
    n = max(n_lines, 1)
    op = draw(st.sampled_from(["delete", "duplicate", "swap", "move", "insert"]))
    i = draw(st.integers(0, n - 1))
    j = draw(st.integers(0, n - 1))
    if op == "delete":
        return Mutation("line", f"delete line {i + 1}", True, lambda d: b"".join(_del(split_lines(d), i)))
    if op == "duplicate":
        return Mutation("line", f"duplicate line {i + 1}", True, lambda d: b"".join(_dup(split_lines(d), i)))
    if op == "swap":
        return Mutation("line", f"swap lines {i + 1} and {j + 1}", i != j, lambda d: b"".join(_swap(split_lines(d), i, j)))
    if op == "move":
        return Mutation("line", f"move line {i + 1} before line {j + 1}", i != j,
                        lambda d: b"".join(_move(split_lines(d), i, j)))
    blob = draw(st.one_of(st.sampled_from(INTERESTING_BYTES), st.binary(max_size=40),
                          st.builds(lambda v: json.dumps(v).encode(), json_values)))
    line = blob if blob.endswith(b"\n") else blob + b"\n"
    return Mutation("line", f"insert line {line[:40]!r} before line {i + 1}", True,
                    lambda d: b"".join(_ins(split_lines(d), i, line)))


def _fix_last(lines: list[bytes]) -> list[bytes]:
    return [ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines]


def _del(lines: list[bytes], i: int) -> list[bytes]:
    return lines[:i] + lines[i + 1:]


def _dup(lines: list[bytes], i: int) -> list[bytes]:
    lines = _fix_last(lines)
    return lines[: i + 1] + lines[i: i + 1] + lines[i + 1:]


def _swap(lines: list[bytes], i: int, j: int) -> list[bytes]:
    lines = _fix_last(lines)
    if max(i, j) < len(lines):
        lines[i], lines[j] = lines[j], lines[i]
    return lines


def _move(lines: list[bytes], i: int, j: int) -> list[bytes]:
    lines = _fix_last(lines)
    if i < len(lines):
        line = lines.pop(i)
        lines.insert(min(j, len(lines)), line)
    return lines


def _ins(lines: list[bytes], i: int, line: bytes) -> list[bytes]:
    return [*_fix_last(lines[:i]), line, *lines[i:]]


@st.composite
def havoc(draw: st.DrawFn, size: int, n_lines: int) -> Mutation:
    """Two to six stacked byte and line edits (no detection promise)."""
    steps = draw(st.lists(st.one_of(byte_mutation(max(size, 1)), line_mutation(n_lines)), min_size=2, max_size=6))

    def apply(d: bytes) -> bytes:
        for m in steps:
            d = m.apply(d)
        return d

    return Mutation("havoc", "; ".join(m.note for m in steps), False, apply)


def raw_mutation(size: int, n_lines: int) -> st.SearchStrategy[Mutation]:
    """A byte, line or stacked edit."""
    return st.one_of(byte_mutation(size), line_mutation(n_lines), havoc(size, n_lines))


# ------------------------------------------------------------------------------- event level
def decode_events(data: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a log's lines (lines that are not a JSON object are skipped)."""
    out = []
    for line in data.splitlines():
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def rechain(events: list[dict[str, Any]]) -> bytes:
    """Serialise events with fresh `seq`/`prev` (line 0 chained to its run id) as `RunLogWriter` does."""
    first = events[0] if events else {}
    run_id = first.get("run_id") if isinstance(first.get("run_id"), str) else ""
    prev = hashlib.sha256(str(run_id).encode("utf-8")).hexdigest()
    out = []
    for seq, ev in enumerate(events):
        obj = {"seq": seq, "prev": prev, **{k: v for k, v in ev.items() if k not in ("seq", "prev")}}
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        prev = hashlib.sha256(line).hexdigest()
        out.append(line + b"\n")
    return b"".join(out)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key/index path inside a JSON value (not the root)."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((*prefix, k))
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append((*prefix, i))
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any, delete: bool = False) -> None:
    for key in path[:-1]:
        obj = obj[key]
    if delete:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


@st.composite
def event_edit(draw: st.DrawFn, events: list[dict[str, Any]]) -> tuple[str, Callable[[list[dict[str, Any]]], None]]:
    """One structural edit of a decoded event list (applied in place)."""
    n = len(events)
    i = draw(st.integers(0, n - 1))
    j = draw(st.integers(0, n - 1))
    op = draw(st.sampled_from(["set", "set", "nested", "delete_field", "retype", "delete_event", "duplicate_event",
                               "swap_events", "copy_value", "tweak", "tweak", "tweak"]))
    keys = [k for k in events[i] if k not in ("seq", "prev")]
    if op == "tweak" and keys:
        return draw(_tweak(events, i, draw(st.sampled_from(keys))))
    if op == "set" or (op in ("delete_field", "copy_value") and not keys):
        key = draw(st.one_of(st.sampled_from(keys), st.sampled_from(FIELD_NAMES)) if keys else st.sampled_from(FIELD_NAMES))
        value = draw(json_values)

        def set_field(evs: list[dict[str, Any]]) -> None:
            evs[i][key] = copy.deepcopy(value)

        return f"event {i}: {key} = {json.dumps(value)[:60]}", set_field
    if op == "nested":
        paths = [p for p in _paths(events[i]) if p[0] not in ("seq", "prev")]
        if not paths:
            return "no-op", lambda evs: None
        path = draw(st.sampled_from(paths))
        value = draw(json_values)
        drop = draw(st.booleans())

        def nested(evs: list[dict[str, Any]]) -> None:
            _set(evs[i], path, copy.deepcopy(value), delete=drop)

        return f"event {i}: {'del ' if drop else ''}{'.'.join(map(str, path))} {json.dumps(value)[:40]}", nested
    if op == "delete_field":
        key = draw(st.sampled_from(keys))
        return f"event {i}: delete {key}", lambda evs: evs[i].pop(key, None)
    if op == "retype":
        new = draw(st.sampled_from(sorted(EVENT_TYPES)))

        def retype(evs: list[dict[str, Any]]) -> None:
            evs[i]["type"] = new

        return f"event {i}: type = {new}", retype
    if op == "delete_event":

        def delete_event(evs: list[dict[str, Any]]) -> None:
            del evs[i]

        return f"delete event {i}", delete_event
    if op == "duplicate_event":
        return f"duplicate event {i}", lambda evs: evs.insert(i, copy.deepcopy(evs[i]))
    if op == "swap_events":

        def swap(evs: list[dict[str, Any]]) -> None:
            evs[i], evs[j] = evs[j], evs[i]

        return f"swap events {i} and {j}", swap
    key = draw(st.sampled_from(keys))
    donors = [e for e in events if key in e]
    donor = draw(st.sampled_from(donors))[key]

    def copy_value(evs: list[dict[str, Any]]) -> None:
        evs[i][key] = copy.deepcopy(donor)

    return f"event {i}: {key} = {json.dumps(donor)[:60]} (copied)", copy_value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _strings(v)]
    if isinstance(value, list):
        return [x for v in value for x in _strings(v)]
    return []


@st.composite
def _tweak(draw: st.DrawFn, events: list[dict[str, Any]], i: int,
           key: str) -> tuple[str, Callable[[list[dict[str, Any]]], None]]:
    """A type-preserving edit, so the event usually still validates and reaches replay and scoring.

    An integer is nudged or replaced by a small one, a string swapped for another string of the log,
    a boolean flipped.
    """
    old = events[i][key]
    new: Any
    if isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = draw(st.one_of(st.integers(old - 2, old + 2), st.integers(0, 12), st.sampled_from([-1, 2**31, 2**63 - 1])))
    elif isinstance(old, str):
        pool = sorted({x for ev in events for x in _strings(ev) if len(x) < 80})
        new = draw(st.sampled_from(pool)) if pool else ""
    else:
        new = draw(json_values)

    def tweak(evs: list[dict[str, Any]]) -> None:
        evs[i][key] = copy.deepcopy(new)

    return f"event {i}: {key} {json.dumps(old)[:30]} -> {json.dumps(new)[:30]}", tweak


@st.composite
def event_mutation(draw: st.DrawFn, seed: bytes) -> Mutation:
    """One to four structural edits of a valid log's events, then a fresh chain."""
    base = decode_events(seed)
    if not base:
        return Mutation("events", "no events", False, lambda d: d)
    work = copy.deepcopy(base)
    notes = []
    for _ in range(draw(st.integers(1, 4))):
        if not work:
            break
        note, edit = draw(event_edit(work))
        edit(work)
        notes.append(note)
    try:
        data = rechain(work)
    except (TypeError, ValueError):  # a value json cannot write (e.g. a non-string key)
        data = seed
    return Mutation("events", "; ".join(notes) + "; re-chained", False, lambda d: data)


def any_log_mutation(seed: bytes) -> st.SearchStrategy[Mutation]:
    """Byte, line, stacked or event-level (re-chained) mutation of a valid log."""
    n_lines = seed.count(b"\n")
    return st.one_of(byte_mutation(len(seed)), line_mutation(n_lines), havoc(len(seed), n_lines), event_mutation(seed))


__all__ = [
    "INTERESTING_BYTES", "INTERESTING_STRINGS", "Mutation", "any_log_mutation", "byte_mutation", "decode_events",
    "event_mutation", "havoc", "json_values", "last_line_start", "line_mutation", "must_be_detected", "raw_mutation",
    "rechain", "split_lines",
]
