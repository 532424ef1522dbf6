"""Reading DRIFT-Bench's native outputs: transcript JSONL files and the runner's results database.

`gather_sources` finds every source file of the arguments (a folder's transcripts, by their
path inside it) and their one kind, detected from the bytes (the SQLite magic), not the name;
`read_native` reads them into one `NativeRun` per (model, method), its turns keyed by
(problem_id, turn_number). Each turn holds the `turn` event fields the native row gives: the raw
response, the extracted ledger, the recorded labels (claims the checker recomputes), the repair
attempts and usage. Values a field cannot hold are dropped (None) or refused with a
`UsageError` that names the file, line or row.

Transcripts do not name the method: a trace's `method` key is used when present, else
`mus_repair` when it records `z3_sat` or repair events, `ledger_only` when it only has a ledger,
`direct` otherwise.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from checker.format.cost import gc_paused
from checker.format.errors import UsageError

SQLITE_MAGIC = b"SQLite format 3\x00"
RESULT_COLUMNS = ("model", "method", "domain", "problem_id", "turn_number", "raw_response")
_ATTEMPT_KEYS = frozenset({"attempt", "codes", "candidate_ledger_size", "candidate_is_sat",
                           "extracted_constraints_count", "mus_size", "attempt_budget_exhausted"})


class LedgerEntry(TypedDict):
    """One entry of a native ledger, as the `turn` event's ledger holds it."""

    id: str
    type: str
    args: object
    """As recorded (any JSON): the checker fails closed on arguments it cannot read."""
    nl: str | None
    source_turn: int | None


class RepairAttempt(TypedDict):
    """One repair event of a turn (DRIFT-Bench `repair_reason_json`)."""

    attempt: int
    codes: list[str]
    candidate_ledger_size: int | None
    candidate_is_sat: bool | None
    extracted_constraints_count: int | None
    mus_size: int | None
    attempt_budget_exhausted: bool | None
    detail: dict[str, object] | None


class TurnFields(TypedDict, total=False):
    """The `turn` event fields one native row gives (transcripts record fewer than the database)."""

    raw_response: str | None
    ledger: list[LedgerEntry] | None
    z3_sat: int | None
    answer_correct: int | None
    mus: list[str] | None
    extraction_null: int | None
    z3_error: int | None
    repair_attempts: list[RepairAttempt]
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None


@dataclass
class NativeRun:
    """Rows of one (model, method), keyed by (problem_id, turn_number)."""

    model: str
    method: str
    turns: dict[tuple[str, int], TurnFields] = field(default_factory=dict)
    timestamps: list[str] = field(default_factory=list)


Runs = dict[tuple[str, str], NativeRun]
"""Native runs by (model, method)."""


# -- sources --------------------------------------------------------------------------------------
def gather_sources(srcs: Sequence[Path]) -> tuple[str, list[tuple[Path, str]]]:
    """Every source file of `srcs` with the name it is recorded under, and their one kind.

    A file is recorded by its name, a folder's transcripts by their path inside the folder; the
    same file given twice is read once. Two different files under one name, or transcripts mixed
    with databases, are refused: a run's `source.files` must name each input once.

    Raises:
        UsageError: no source, a missing or unreadable one, mixed kinds, or a name clash.
    """
    if not srcs:
        raise UsageError("give at least one transcript, folder of transcripts or results database")
    kinds: set[str] = set()
    named: dict[str, Path] = {}
    for src in srcs:
        kind, files = _sources(src)
        kinds.add(kind)
        for f in files:
            name = f.relative_to(src).as_posix() if src.is_dir() else f.name
            if name in named and named[name].resolve() != f.resolve():
                raise UsageError(f"{f}: another source file is also named {name!r} ({named[name]}); "
                                 "rename one, or import them separately")
            named.setdefault(name, f)
    if len(kinds) > 1:
        raise UsageError("the sources mix transcripts and results databases; import each kind separately")
    return kinds.pop(), [(named[n], n) for n in sorted(named)]


def _sources(src: Path) -> tuple[str, list[Path]]:
    if not src.exists():
        raise UsageError(f"{src}: no such file or directory")
    if src.is_dir():
        files = sorted(p for p in src.rglob("*.jsonl") if p.is_file())
        if not files:
            raise UsageError(f"{src}: no transcript files (*.jsonl) in the folder")
        return "transcript", files
    try:
        with src.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise UsageError(f"{src}: cannot read ({exc.strerror})") from None
    return ("sqlite" if head == SQLITE_MAGIC else "transcript"), [src]


def read_native(kind: str, files: list[Path]) -> Runs:
    """The native runs of source files of one kind (`sqlite` or `transcript`)."""
    return _read_databases(files) if kind == "sqlite" else read_transcripts(files)


# -- transcripts ----------------------------------------------------------------------------------
def read_transcripts(files: Iterable[Path]) -> Runs:
    """Native runs from transcript JSONL files.

    Raises:
        UsageError: a line is not JSON, or a trace comes before its `problem_intro`.
    """
    runs: Runs = {}
    with gc_paused():  # one dict per line, all kept: linear (checker.format.cost)
        for path in files:
            intro: dict[str, object] = {}  # the file's last problem_intro line
            for lineno, obj in _json_lines(path):
                kind = obj.get("type")
                if kind == "problem_intro":
                    intro = obj
                elif kind == "model_trace":
                    _add_trace(runs, obj, intro, f"{path}:{lineno}")
    return runs


def _json_lines(path: Path) -> Iterable[tuple[int, dict[str, object]]]:
    """(line number, JSON object) of every non-blank line.

    Raises:
        UsageError: the file cannot be read, or a line is not a JSON object.
    """
    try:
        # JSONL lines end at LF only: str.splitlines() would also split inside strings at U+0085, U+2028, ...
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None
    for lineno, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise UsageError(f"{path}:{lineno}: invalid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise UsageError(f"{path}:{lineno}: expected a JSON object")
        yield lineno, obj


def _add_trace(runs: Runs, obj: Mapping[str, object], intro: Mapping[str, object], what: str) -> None:
    """Add one `model_trace` line (of the problem its last `problem_intro` opened) to its run."""
    pid = intro.get("problem_id")
    model, tn = obj.get("model"), obj.get("turn_number")
    if not isinstance(pid, str):
        raise UsageError(f"{what}: model_trace before any problem_intro")
    if not isinstance(model, str) or not isinstance(tn, int) or isinstance(tn, bool):
        raise UsageError(f"{what}: model_trace needs a string model and an integer turn_number")
    method = _infer_method(obj, intro)
    run = runs.setdefault((model, method), NativeRun(model, method))
    if (pid, tn) in run.turns:
        raise UsageError(f"{what}: second trace for {model}/{method} {pid} turn {tn}")
    run.turns[(pid, tn)] = {
        "raw_response": _str_or_none(obj.get("response_snippet")),
        "ledger": _ledger(obj.get("ledger"), what),
        "z3_sat": _flag(obj.get("z3_sat"), f"{what}: z3_sat"),
        "answer_correct": _flag(obj.get("answer_correct"), f"{what}: answer_correct"),
        "mus": _mus(obj.get("mus")),
        "repair_attempts": _attempts(obj.get("repair_events")),
        "finish_reason": _str_or_none(obj.get("finish_reason")),
        "tokens_out": _opt_int(obj.get("tokens_out")),
    }


def _infer_method(trace: Mapping[str, object], intro: Mapping[str, object]) -> str:
    method = trace.get("method") or intro.get("method")
    if isinstance(method, str) and method:
        return method
    if trace.get("z3_sat") is not None or trace.get("repair_events"):
        return "mus_repair"
    return "ledger_only" if trace.get("ledger") is not None else "direct"


# -- results databases ----------------------------------------------------------------------------
def read_sqlite(path: Path) -> Runs:
    """Native runs from the runner's results database (opened read-only).

    Raises:
        UsageError: the file is not a readable database with a `results` table.
    """
    runs: Runs = {}
    with gc_paused():  # n rows, dicts and turns built at once: linear (checker.format.cost)
        for row in _result_rows(path):
            _add_row(runs, dict(row), path)
    return runs


def _add_row(runs: Runs, r: dict[str, Any], path: Path) -> None:
    """Add one `results` row to its run."""
    what = f"{path}: results row id={r.get('id')}"
    model, method, pid, tn = r["model"], r["method"], r["problem_id"], r["turn_number"]
    if not all(isinstance(x, str) for x in (model, method, pid)) or not isinstance(tn, int):
        raise UsageError(f"{what}: model, method, problem_id must be text and turn_number an integer")
    run = runs.setdefault((model, method), NativeRun(model, method))
    if (pid, tn) in run.turns:
        raise UsageError(f"{what}: duplicate row for {model}/{method} {pid} turn {tn}")
    if isinstance(r.get("timestamp"), str):
        run.timestamps.append(r["timestamp"])
    run.turns[(pid, tn)] = _row_turn(r, what)


def _result_rows(path: Path) -> list[sqlite3.Row]:
    """Every row of the `results` table, in (model, method, problem, turn, id) order.

    Raises:
        UsageError: the database cannot be opened or read, or `results` lacks a column.
    """
    uri = f"file:{path.resolve().as_posix()}?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: cannot open database ({exc})") from None
    try:
        con.row_factory = sqlite3.Row
        cols = {r[1] for r in con.execute("PRAGMA table_info(results)")}
        missing = [c for c in RESULT_COLUMNS if c not in cols]
        if missing:
            raise UsageError(f"{path}: table `results` is missing column(s) {', '.join(missing)}")
        order = "model, method, problem_id, turn_number" + (", id" if "id" in cols else "")
        return con.execute(f"SELECT * FROM results ORDER BY {order}").fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: cannot read table `results` ({exc})") from None
    finally:
        con.close()


def _row_turn(r: Mapping[str, object], what: str) -> TurnFields:
    """The turn fields of one `results` row (its columns as SQLite returned them)."""
    return {
        "raw_response": _str_or_none(r.get("raw_response")),
        "ledger": _ledger(r.get("ledger_json"), what),
        "z3_sat": _flag(r.get("z3_sat"), f"{what}: z3_sat"),
        "answer_correct": _flag(r.get("answer_correct"), f"{what}: answer_correct"),
        "mus": _mus(r.get("mus_json")),
        "extraction_null": _flag(r.get("extraction_null"), f"{what}: extraction_null"),
        "z3_error": _flag(r.get("z3_error"), f"{what}: z3_error"),
        "repair_attempts": _attempts(r.get("repair_reason_json")),
        "finish_reason": _str_or_none(r.get("finish_reason")),
        "tokens_in": _opt_int(r.get("tokens_in")),
        "tokens_out": _opt_int(r.get("tokens_out")),
    }


def _read_databases(files: list[Path]) -> Runs:
    """The runs of several databases merged; a turn in two of them is refused."""
    runs: Runs = {}
    for f in files:
        for key, run in read_sqlite(f).items():
            into = runs.setdefault(key, NativeRun(*key))
            clash = sorted(set(into.turns) & set(run.turns))
            if clash:
                pid, tn = clash[0]
                raise UsageError(f"{f}: {key[0]}/{key[1]} {pid} turn {tn} is also in another database")
            into.turns.update(run.turns)
            into.timestamps.extend(run.timestamps)
    return runs


# -- field values -----------------------------------------------------------------------------------
def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _flag(value: object, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool | int) and int(value) in (0, 1):
        return int(value)
    raise UsageError(f"{what}: expected 0, 1 or null, got {value!r}")


def _opt_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value == float("inf"):
        return None  # JSON `Infinity` (json.loads reads it) has no integer value; NaN fails `>= 0`
    return int(value) if value >= 0 else None


def _json_text(raw: object) -> object:
    """A JSON value given as text parsed (raises ValueError or RecursionError); any other value as it is."""
    return json.loads(raw) if isinstance(raw, str) else raw


def _ledger(raw: object, what: str) -> list[LedgerEntry] | None:
    """A ledger: a list of entries (or `{"constraints": [...]}`), as JSON text or parsed; null -> None."""
    try:
        value = _json_text(raw)
    except (ValueError, RecursionError):
        raise UsageError(f"{what}: ledger is not valid JSON") from None
    if value is None:
        return None
    if isinstance(value, dict) and "constraints" in value:
        value = value["constraints"]
    if not isinstance(value, list):
        raise UsageError(f"{what}: ledger is not a list")
    return [_ledger_entry(entry, i) for i, entry in enumerate(value)]


def _ledger_entry(entry: object, i: int) -> LedgerEntry:
    """Entry `i` of a ledger; an entry that is no object is taken as its `args`."""
    e: dict[str, object] = entry if isinstance(entry, dict) else {"args": entry}
    ctype, nl, st = e.get("type"), e.get("nl"), e.get("source_turn")
    return {
        "id": str(e.get("id") or f"L{i + 1:03d}"),
        "type": ctype if isinstance(ctype, str) else json.dumps(ctype),
        "args": e.get("args"),
        "nl": nl if isinstance(nl, str) else None,
        "source_turn": st if isinstance(st, int) and not isinstance(st, bool) else None,
    }


def _mus(raw: object) -> list[str] | None:
    try:
        value = _json_text(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, list):
        return None
    ids = []
    for item in value:
        if isinstance(item, dict) and item.get("id") is not None:
            ids.append(str(item["id"]))
        elif isinstance(item, str):
            ids.append(item)
    return ids


def _attempts(raw: object) -> list[RepairAttempt]:
    try:
        value = _json_text(raw)
    except (ValueError, RecursionError):
        return []
    if not isinstance(value, list):
        return []
    return [_attempt(ev, i) for i, ev in enumerate(value) if isinstance(ev, dict)]


def _attempt(ev: Mapping[str, object], i: int) -> RepairAttempt:
    """Repair event `i` of a turn; keys DRIFT-Bench does not define are kept as `detail`."""
    sat = ev.get("candidate_is_sat")
    exhausted = ev.get("attempt_budget_exhausted")
    detail = {k: v for k, v in ev.items() if k not in _ATTEMPT_KEYS}
    number = _opt_int(ev.get("attempt"))
    return {
        "attempt": number if number is not None else i + 1,
        "codes": _codes(ev.get("codes")),
        "candidate_ledger_size": _opt_int(ev.get("candidate_ledger_size")),
        "candidate_is_sat": None if sat is None else bool(sat),
        "extracted_constraints_count": _opt_int(ev.get("extracted_constraints_count")),
        "mus_size": _opt_int(ev.get("mus_size")),
        "attempt_budget_exhausted": None if exhausted is None else bool(exhausted),
        "detail": detail or None,
    }


def _codes(value: object) -> list[str]:
    """Repair reason codes: a list as strings; a lone code kept as one string; null/absent -> []."""
    if value is None:
        return []
    return [str(c) for c in value] if isinstance(value, list) else [str(value)]


__all__ = ["LedgerEntry", "NativeRun", "RepairAttempt", "Runs", "TurnFields", "gather_sources", "read_native",
           "read_sqlite", "read_transcripts"]
