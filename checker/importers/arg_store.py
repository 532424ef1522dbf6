"""Reading an ARG store pair: read-only connections, the runs the pair holds, and column values as the format wants them.

Both stores are opened read-only (`mode=ro&immutable=1`), so a read-only mount works and the
files are never touched. `collect_runs` lists every run: those of the state store's `run`
table, then runs found only in the probe store's `run_config` (ARG's BARE/RAW baselines, which
write no state store, become comparator runs). The value readers (`json_value`, `json_object`,
`int_or`, `text_or_none`, `grid_cells`, `organ`) turn a column that may hold any SQLite type
into what the canonical event expects, or raise a `UsageError` that names the value.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any
from urllib.parse import quote

from checker.format.cost import gc_paused
from checker.format.errors import UsageError

BASELINE_PREFIXES = ("argbare", "argraw")
"""Run-id prefixes of ARG's BARE / RAW comparator baselines (arg-spec.md §a.3)."""
OPTIONAL_TABLES = ("deficit_stamp", "goal_edge")
"""State tables older ARG stores lack; ARG reports the metrics read from them as None (arg-spec.md §c.6)."""

_ORGANS = {"observer": "OBSERVER", "surveyor": "SURVEYOR", "actuator": "ACTUATOR", "baseline": "BASELINE"}


@dataclass
class ArgRun:
    """One run of the store pair, as its `run` (state) or `run_config` (probe) row describes it."""

    native: str
    """ARG's run id (non-empty text)."""
    game_id: str | None
    backbone: str
    started_at: str
    status: str | None
    """Text columns as text, whatever SQLite type the store holds there (`text_or_none`: a BLOB is decoded)."""
    config: dict[str, object]
    """The run's `config_json` ({} when NULL)."""
    arm: str | None
    comparator: bool
    cell: str = ""
    """The campaign cell: RAW/BARE for ARG's baselines, else derived from the config (`assign_labels`)."""
    seed: str = ""
    file: str = ""
    """The run log's file name in `runs/`, without `.jsonl`."""


@contextmanager
def open_ro(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only, immutable connection to a SQLite file, closed on exit.

    Raises:
        UsageError: the file is not a readable SQLite database.
    """
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: not a readable SQLite database ({exc})") from None
    with closing(conn):
        yield conn


def tables(conn: sqlite3.Connection) -> set[str]:
    """The names of the store's tables."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def rows(conn: sqlite3.Connection, sql: str, args: tuple[object, ...], path: Path) -> list[sqlite3.Row]:
    """The rows of a query (columns by name).

    Raises:
        UsageError: the query fails (a table lacks a column ARG writes: not an ARG store).
    """
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: not an ARG store ({exc})") from None


class RunRows:
    """The rows of one run in a store, table by table; a table the store lacks has none."""

    def __init__(self, conn: sqlite3.Connection, run_id: str, path: Path) -> None:
        self.conn = conn
        self.run_id = run_id
        self.path = path
        self.tables = tables(conn)

    def __call__(self, table: str, sql: str) -> list[sqlite3.Row]:
        """The rows `sql` (one `?`, the run id) selects from `table`, or [] when the store has no such table."""
        return rows(self.conn, sql, (self.run_id,), self.path) if table in self.tables else []


def collect_runs(state: sqlite3.Connection, probe: sqlite3.Connection, state_db: Path, probe_db: Path) -> list[ArgRun]:
    """Every run of the pair: the state store's, in start order, then those found only in the probe store."""
    with gc_paused():  # thousands of rows and runs built at once: linear (checker.format.cost)
        return _collect_runs(state, probe, state_db, probe_db)


def _collect_runs(state: sqlite3.Connection, probe: sqlite3.Connection, state_db: Path, probe_db: Path) -> list[ArgRun]:
    configs: dict[str, sqlite3.Row] = {}
    if "run_config" in tables(probe):
        for row in rows(probe, "SELECT * FROM run_config ORDER BY started_at, run_id", (), probe_db):
            configs[_run_id(row, probe_db, "run_config")] = row
    runs = _state_runs(state, state_db, configs)
    known = {run.native for run in runs}
    return runs + [_probe_only_run(run_id, rc, probe_db) for run_id, rc in configs.items() if run_id not in known]


def _state_runs(state: sqlite3.Connection, state_db: Path, configs: dict[str, sqlite3.Row]) -> list[ArgRun]:
    if "run" not in tables(state):
        return []
    runs = []
    for row in rows(state, "SELECT * FROM run ORDER BY started_at, run_id", (), state_db):
        run_id = _run_id(row, state_db, "run")
        rc = configs.get(run_id)
        runs.append(ArgRun(
            native=run_id, game_id=text_or_none(row["game_id"]), backbone=text_or_none(row["backbone"]) or "unknown",
            started_at=text_or_none(row["started_at"]) or "", status=text_or_none(row["status"]),
            config=_config(row["config_json"], state_db, run_id),
            arm=text_or_none(rc["arm"]) if rc is not None else None, comparator=False,
        ))
    return runs


def _probe_only_run(run_id: str, rc: sqlite3.Row, probe_db: Path) -> ArgRun:
    """A run of the probe store only.

    ARG's baselines (argbare-/argraw- ids) write only the probe store and are never gated; any
    other run missing from the state store is an agent run whose state rows are absent: ARG's
    probes still score it (metrics of 0, legibility from the probe rows), so it is gated, not a
    comparator.
    """
    baseline = run_id.startswith(BASELINE_PREFIXES)
    return ArgRun(
        native=run_id, game_id=text_or_none(rc["game_id"]), backbone=text_or_none(rc["backbone"]) or "unknown",
        started_at=text_or_none(rc["started_at"]) or "", status="COMPLETED" if rc["ended_at"] else "RUNNING",
        config=_config(rc["config_json"], probe_db, run_id), arm=text_or_none(rc["arm"]), comparator=baseline,
        cell=("RAW" if run_id.startswith("argraw") else "BARE") if baseline else "",
    )


def _run_id(row: sqlite3.Row, path: Path, table: str) -> str:
    """A row's run id, which must be non-empty text (it names files and the canonical run id)."""
    value = row["run_id"]
    if not isinstance(value, str) or not value:
        raise UsageError(f"{path}: not an ARG store (table {table} has run_id {value!r}, not a text id)")
    return value


def _config(text: object, path: Path, run_id: str) -> dict[str, object]:
    """A run's `config_json`: a JSON object, or NULL (no config)."""
    value = json_value(text)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{path}: run {run_id!r}: config_json is not a JSON object")
    return value


def text_or_none(value: object) -> str | None:
    """A free-text column that may hold another SQLite type (bytes are decoded, numbers spelled)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def json_value(text: object) -> Any:
    """A JSON column's value; text that is not JSON is kept as the text, a non-text value as it is."""
    if text is None:
        return None
    if not isinstance(text, str | bytes):
        return text
    try:
        with gc_paused():  # a column can hold a large document: parsed in linear time (checker.format.cost)
            return json.loads(text)
    except (ValueError, RecursionError):  # not JSON (or nested beyond the parser): kept as the text
        return text


def json_object(text: object) -> dict[str, object] | None:
    """A JSON object column; non-object JSON is wrapped as {"value": ...} so nothing is lost."""
    value = json_value(text)
    if value is None:
        return None
    return value if isinstance(value, dict) else {"value": value}


def int_or(value: Any, default: int = 0) -> int:
    """An integer column; NULL or a value that is no integer gives `default`."""
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: a REAL column holding inf
        return default


def grid_cells(text: object, path: Path, locator: object) -> list[list[int]]:
    """A GridRegion's `cells_json`: a list of [x, y] integer pairs ([] when it is not a list).

    Raises:
        UsageError: an item of the list is not an [x, y] pair of integers.
    """
    value = json_value(text)
    if not isinstance(value, list):
        return []
    # the common case checked with C-level loops (a region can hold thousands of cells); any doubt
    # falls through to the cell-by-cell check below, which names the first bad cell
    if set(map(type, value)) <= {list} and set(map(len, value)) <= {2} \
            and set(map(type, chain.from_iterable(value))) <= {int}:
        return value  # fresh lists from the JSON parser, already [x, y] integer pairs
    out = []
    for cell in value:
        if not (isinstance(cell, list) and len(cell) == 2 and all(type(c) is int for c in cell)):
            raise UsageError(f"{path}: locator {locator!r}: cells_json holds {cell!r}, not an [x, y] pair of integers")
        out.append([cell[0], cell[1]])
    return out


def organ(value: object, path: Path) -> str:
    """An `organ` column as the canonical organ name.

    Raises:
        UsageError: not one of observer, surveyor, actuator or baseline (any case).
    """
    name = _ORGANS.get(str(value or "").lower())
    if name is None:
        raise UsageError(f"{path}: unknown organ {value!r} (expected observer, surveyor, actuator or baseline)")
    return name


__all__ = ["BASELINE_PREFIXES", "OPTIONAL_TABLES", "ArgRun", "RunRows", "collect_runs", "grid_cells", "int_or",
           "json_object", "json_value", "open_ro", "organ", "rows", "tables", "text_or_none"]
