"""What a completion domain provides: a database, its tools, and τ-bench's data hash.

A domain is a plug-in (airline today, retail next). It knows its tables, its tools and which of them
write; everything else (reading a log, replaying it, judging the claim) is the track's and the same
for every domain. A domain is a leaf: standard library only, nothing of the checker.

The database of an episode is **copy-on-write** over one parsed base (`Base`): a tool reads records
of the base directly and copies a record only when it changes it (`Database.edit`), so a replay
costs what it changes, not the 5 MB of the airline tables. The data hash (`data_hash`) is τ-bench's:
SHA-256 of Python's `str()` of the database as nested tuples (objects as key-sorted pairs, arrays
as tuples); each record's text is rendered once per base and reused by every episode that does not
change it.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Record = Any
"""A JSON value as `json.loads` gives it (a record is usually an object)."""

ERROR_PREFIX = "Error"
"""An observation starting with this is an error: a write tool that returns it changed nothing (usually)."""


class DomainError(ValueError):
    """A task set's files are not what the domain needs (a table missing, not an object, ...)."""


class EnvironmentCrash(Exception):
    """A call that would crash the benchmark's runner instead of giving an observation: the episode ends as an error.

    (τ-bench airline: `send_certificate` to a user who already holds its three certificate ids returns
    nothing, which the runner cannot validate as an observation.)
    """


def as_tuple(value: Any) -> Any:
    """The nested tuple τ-bench hashes: an object becomes its (key, value) pairs in key order, an array a tuple."""
    if isinstance(value, dict):
        return tuple((k, as_tuple(value[k])) for k in sorted(value))
    if isinstance(value, list):
        return tuple(as_tuple(v) for v in value)
    return value


def render(value: Any) -> str:
    """The text τ-bench's data hash reads for one value: Python's `str()` of `as_tuple(value)`."""
    return str(as_tuple(value))


class Base:
    """The parsed tables of a task set's database, shared read-only by every episode.

    `tables` maps a table name to its records (key -> record), in file order. Nothing may change
    them: an episode's `Database` copies a record before it edits it. The data hash's text of the
    whole base is built once, on first need, with the offset of every record's piece in it and the
    hash state at regular checkpoints, so hashing an episode's database feeds SHA-256 only from the
    checkpoint before its first change (`data_hash`).
    """

    def __init__(self, tables: Mapping[str, dict[str, Record]]) -> None:
        """Keep the tables (in table-name order, as the hash reads them)."""
        self.tables: dict[str, dict[str, Record]] = {name: tables[name] for name in sorted(tables)}
        self._layout: _Layout | None = None

    def layout(self) -> _Layout:
        """The base's hash text, its record offsets and hash checkpoints (built on first use)."""
        if self._layout is None:
            self._layout = _Layout(self.tables)
        return self._layout


CHECKPOINT_BYTES = 1 << 16
"""Bytes of hash text between two saved SHA-256 states of the base."""


class _Layout:
    """The base's data-hash text as bytes, where each record's piece sits in it, and SHA-256 checkpoints."""

    def __init__(self, tables: Mapping[str, dict[str, Record]]) -> None:
        chunks: list[bytes] = []
        offset = 0
        self.keys: dict[str, list[str]] = {}
        """Table -> its keys in code-point order."""
        self.spans: dict[str, list[tuple[int, int]]] = {}
        """Table -> (start, end) of each key's piece `(key, record)` in `text`, in key order."""
        self.bodies: dict[str, tuple[int, int]] = {}
        """Table -> (start, end) of its tuple text `(...)`."""

        def put(text: str) -> None:
            nonlocal offset
            data = text.encode("utf-8")
            chunks.append(data)
            offset += len(data)

        put("(")
        for n, table in enumerate(tables):
            put(("" if n == 0 else ", ") + f"({table!r}, ")
            keys = sorted(tables[table])
            self.keys[table] = keys
            spans = []
            body_start = offset
            put("(")
            for i, key in enumerate(keys):
                if i:
                    put(", ")
                start = offset
                put(f"({key!r}, {render(tables[table][key])})")
                spans.append((start, offset))
            put(",)" if len(keys) == 1 else ")")
            self.bodies[table] = (body_start, offset)
            self.spans[table] = spans
            put(")")
        put(",)" if len(tables) == 1 else ")")
        self.text = b"".join(chunks)
        self.checkpoints: list[tuple[int, Any]] = []
        h = hashlib.sha256()
        view = memoryview(self.text)
        for at in range(0, len(self.text), CHECKPOINT_BYTES):
            self.checkpoints.append((at, h.copy()))
            h.update(view[at:at + CHECKPOINT_BYTES])
        self.digest = h.hexdigest()

    def hash_with(self, edits: list[tuple[int, int, bytes]]) -> str:
        """SHA-256 of the text with `edits` applied: (start, end, replacement) sorted, not overlapping."""
        if not edits:
            return self.digest
        i = bisect.bisect_right([c[0] for c in self.checkpoints], edits[0][0]) - 1
        at, state = self.checkpoints[i]
        h = state.copy()
        view = memoryview(self.text)
        for start, end, data in edits:
            h.update(view[at:start])
            h.update(data)
            at = end
        h.update(view[at:])
        return str(h.hexdigest())


def _tuple_text(items: Sequence[str]) -> str:
    """Python's text of a tuple whose elements' texts are `items`: `()`, `(a,)`, `(a, b)`."""
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


@dataclass
class Database:
    """One episode's database: the shared `Base` plus the records this episode changed or added.

    Read with `get` (never mutate what it returns: it may be the base's), change with `edit` (a
    private copy) or `put`. No tool deletes a record.
    """

    base: Base
    changed: dict[str, dict[str, Record]] = field(default_factory=dict)
    """Table -> key -> the record as this episode left it (a copy; keys absent from the base were added)."""

    def get(self, table: str, key: str) -> Any:
        """The current record (None when absent). Read-only."""
        mine = self.changed.get(table)
        if mine is not None and key in mine:
            return mine[key]
        return self.base.tables[table].get(key)

    def has(self, table: str, key: str) -> bool:
        """Whether the table holds `key`."""
        mine = self.changed.get(table)
        return (mine is not None and key in mine) or key in self.base.tables[table]

    def edit(self, table: str, key: str) -> Record:
        """The record, as this episode's own copy, to change in place.

        Raises:
            KeyError: no such record (the text a tool's error shows, as τ-bench's dictionaries do).
        """
        mine = self.changed.setdefault(table, {})
        if key not in mine:
            mine[key] = copy.deepcopy(self.base.tables[table][key])
        return mine[key]

    def put(self, table: str, key: str, record: Record) -> None:
        """Store a record under `key` (a new one, or overwriting)."""
        self.changed.setdefault(table, {})[key] = record

    def keys(self, table: str) -> Iterator[str]:
        """Every key of the table in insertion order (the base's, then the added ones)."""
        base = self.base.tables[table]
        yield from base
        for key in self.changed.get(table, {}):
            if key not in base:
                yield key

    def items(self, table: str) -> Iterator[tuple[str, Record]]:
        """(key, current record) in insertion order."""
        for key in self.keys(table):
            yield key, self.get(table, key)

    def fork(self) -> Database:
        """A copy that shares the base (and copies only this episode's changes)."""
        return Database(self.base, copy.deepcopy(self.changed))

    def changed_keys(self, table: str) -> set[str]:
        """Keys of records this episode changed or added in `table`."""
        return set(self.changed.get(table, {}))


def data_hash(db: Database) -> str:
    """τ-bench's data hash of a database: lower-case hex SHA-256 of `str()` of it as nested tuples.

    The base's text is rendered once (`Base.layout`); an episode's hash renders only the records it
    changed or added and feeds SHA-256 from the checkpoint before the first of them. A table that
    had fewer than two records, or lost all of them, is rendered whole (`data_hash_text`).
    """
    layout = db.base.layout()
    edits: list[tuple[int, int, bytes]] = []
    for table in db.base.tables:
        mine = db.changed.get(table)
        if not mine:
            continue
        keys, spans = layout.keys[table], layout.spans[table]
        if len(keys) < 2:
            return hashlib.sha256(data_hash_text(db).encode("utf-8")).hexdigest()
        for key in sorted(mine):
            piece = f"({key!r}, {render(mine[key])})".encode()
            i = bisect.bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                start, end = spans[i]
                edits.append((start, end, piece))
            elif i < len(keys):  # a new record before an existing one
                start = spans[i][0]
                edits.append((start, start, piece + b", "))
            else:  # a new record after the table's last one
                end = spans[-1][1]
                edits.append((end, end, b", " + piece))
    # two new records at one place keep their key order (the sort is stable on equal offsets)
    edits.sort(key=lambda e: (e[0], e[1]))
    return layout.hash_with(edits)


def data_hash_text(db: Database) -> str:
    """The whole text the data hash reads (the reference rendering, record by record; slow, for tests)."""
    parts: list[str] = []
    for table in db.base.tables:
        keys = sorted(set(db.base.tables[table]) | set(db.changed.get(table, {})))
        body = _tuple_text([f"({k!r}, {render(db.get(table, k))})" for k in keys])
        parts.append(f"({table!r}, {body})")
    return _tuple_text(parts)


def same_data(a: Database, b: Database) -> bool:
    """Whether two databases over the same base have the same hash text (what equal data hashes mean).

    Compares only the records either changed, each by its rendered text: types, list order and
    extra keys count, key order in objects does not (as in the hash).
    """
    if a.base is not b.base:
        return data_hash(a) == data_hash(b)
    for table in a.base.tables:
        for key in a.changed_keys(table) | b.changed_keys(table):
            ra, rb = a.get(table, key), b.get(table, key)
            if (ra is None) != (rb is None) or (ra is not None and render(ra) != render(rb)):
                return False
    return True


@dataclass(frozen=True)
class FieldChange:
    """One difference between two versions of a record: where, and the two values (None: absent)."""

    table: str
    key: str
    path: str
    """Dotted path inside the record (`payment_history.2.amount`); empty for a whole record added."""
    before: Any
    after: Any


def record_changes(table: str, key: str, before: Record | None, after: Record | None) -> list[FieldChange]:
    """The differences between two versions of one record, down to the first differing scalar or type."""
    out: list[FieldChange] = []

    def walk(path: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                walk(f"{path}.{k}" if path else str(k), a.get(k, _ABSENT), b.get(k, _ABSENT))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(f"{path}.{i}" if path else str(i), x, y)
        elif render(a) != render(b) or type(a) is not type(b):
            out.append(FieldChange(table, key, path, None if a is _ABSENT else a, None if b is _ABSENT else b))

    if before is None or after is None:
        out.append(FieldChange(table, key, "", before, after))
    else:
        walk("", before, after)
    return out


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()


def diff(a: Database, b: Database) -> list[FieldChange]:
    """Every field that differs between two databases over one base, in table and key order."""
    out: list[FieldChange] = []
    for table in a.base.tables:
        for key in sorted(a.changed_keys(table) | b.changed_keys(table)):
            ra, rb = a.get(table, key), b.get(table, key)
            if ra is None and rb is None:
                continue
            if ra is not None and rb is not None and render(ra) == render(rb):
                continue
            out.extend(record_changes(table, key, ra, rb))
    return out


Tool = Callable[..., str]
"""A tool: called with the database and the call's arguments; returns the observation text."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool of a domain: its name, its parameters (in order) and whether it can change the database."""

    name: str
    params: tuple[str, ...]
    writes: bool
    run: Tool
    """`run(db, **arguments) -> observation`; may raise (the caller turns it into `Error: ...`)."""
    ends_episode: bool = False
    """A call ends the episode (τ-bench: `transfer_to_human_agents`)."""


class CompletionDomain(Protocol):
    """What the completion track needs of a domain (`checker.completion.domains.airline` is one)."""

    name: str
    """The domain's name in task sets and logs (`airline`)."""
    tables: tuple[str, ...]
    """The tables of its database, each a JSON object file `<table>.json` of the task set."""
    tools: Mapping[str, ToolSpec]
    """Tool name -> its specification."""

    def invoke(self, db: Database, name: str, arguments: Mapping[str, Any]) -> str:
        """Run one tool call on `db` and return its observation, exactly as the environment does."""
        ...


def load_tables(files: Mapping[str, bytes], tables: Sequence[str]) -> Base:
    """The base database from the bytes of each table's JSON file.

    Raises:
        DomainError: a table is missing, is not valid JSON, or is not an object.
    """
    out: dict[str, dict[str, Record]] = {}
    for table in tables:
        data = files.get(table)
        if data is None:
            raise DomainError(f"table {table!r} is missing")
        try:
            parsed = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise DomainError(f"table {table!r} is not valid JSON ({exc})") from None
        if not isinstance(parsed, dict):
            raise DomainError(f"table {table!r} is not a JSON object")
        out[table] = parsed
    return Base(out)


def signature_error(owner: str, params: Sequence[str], arguments: Mapping[str, Any]) -> str | None:
    """Python's `TypeError` text for calling `<owner>.invoke(data, *params)` with these keyword arguments, or None.

    τ-bench calls each tool's `invoke(data, **kwargs)`, so a wrong argument set is an exception whose
    text becomes the observation: the first unexpected keyword, else every missing parameter.
    """
    where = f"{owner}.invoke()"
    for name in arguments:
        if name == "data":
            return f"{where} got multiple values for argument 'data'"
        if name not in params:
            return f"{where} got an unexpected keyword argument '{name}'"
    missing = [p for p in params if p not in arguments]
    if not missing:
        return None
    quoted = [f"'{m}'" for m in missing]
    if len(quoted) == 1:
        names = quoted[0]
    elif len(quoted) == 2:
        names = f"{quoted[0]} and {quoted[1]}"
    else:
        names = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "argument" if len(missing) == 1 else "arguments"
    return f"{where} missing {len(missing)} required positional {plural}: {names}"


def class_name(tool: str) -> str:
    """`search_onestop_flight` -> `SearchOnestopFlight` (the tool's class in τ-bench, named in argument errors)."""
    return "".join(part[:1].upper() + part[1:] for part in tool.split("_"))
