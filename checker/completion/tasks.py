"""Completion task sets: a domain's database, its policy and its tasks, named by digest.

A task set is a folder holding `taskset.json`, a descriptor:

    {"format": "driftboard-completion-taskset@1", "name": "tau-bench-airline", "benchmark": "τ-bench",
     "domain": "airline", "max_steps": 30, "policy": "policy.md", "tasks": "tasks.json",
     "tables": {"flights": "flights.json", "reservations": "reservations.json", "users": "users.json"}}

and the files it names: the policy (the system prompt every episode must be given), the tasks (a
JSON array of `{task_id, user_id, instruction, actions: [{name, kwargs}], outputs: [string]}` in
`task_id` order, ids 0, 1, 2, ...) and one JSON object per table of the domain's database.

**Digest.** SHA-256 (hex) of the canonical JSON (sorted keys, compact, UTF-8) of
`{"format", "benchmark", "domain", "max_steps", "files": {"policy": sha256, "tasks": sha256,
"table:<name>": sha256, ...}}`, each `sha256` the hex digest of a file's bytes. The name and the file
names are left out: renaming changes nothing, any edit of a byte makes a new set. Runs name the
digest (`run_start.problem_set`), pre-registrations too (`problem_set`).

Loading parses the tables once per process (`Base`, shared read-only by every episode) and replays
each task's gold actions once, on first need (`TaskSet.gold`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.completion.domains import DOMAINS, CompletionDomain
from checker.completion.domains.base import Base, Database, DomainError, data_hash, load_tables
from checker.format.errors import UsageError

DESCRIPTOR = "taskset.json"
"""The file that makes a folder a completion task set."""
FORMAT = "driftboard-completion-taskset@1"
MAX_FILE_BYTES = 64 << 20
"""Largest task-set file read (64 MiB)."""


@dataclass(frozen=True)
class GoldAction:
    """One action of a task's gold sequence."""

    name: str
    kwargs: dict[str, Any]


@dataclass(frozen=True)
class Task:
    """One task: the user it serves, the instruction the simulated user follows, the gold actions and outputs."""

    task_id: int
    user_id: str
    instruction: str
    actions: tuple[GoldAction, ...]
    outputs: tuple[str, ...]


@dataclass
class GoldOutcome:
    """A task's gold database and what the gold actions changed (computed once per process)."""

    db: Database
    data_hash: str
    writes: list[tuple[str, dict[str, Any]]]
    """(tool, arguments) of every gold write the environment accepted, in order."""


@dataclass
class TaskSet:
    """A loaded, validated task set."""

    name: str
    digest: str
    benchmark: str
    domain: CompletionDomain
    max_steps: int
    policy: str
    tasks: dict[int, Task]
    base: Base
    path: str
    _gold: dict[int, GoldOutcome] = field(default_factory=dict, repr=False)
    _initial_hash: list[str] = field(default_factory=list, repr=False)

    def fresh(self) -> Database:
        """A new database at the initial state (copy-on-write over the shared base)."""
        return Database(self.base)

    @property
    def initial_hash(self) -> str:
        """Data hash of the initial database."""
        if not self._initial_hash:
            self._initial_hash.append(data_hash(self.fresh()))
        return self._initial_hash[0]

    def gold(self, task_id: int) -> GoldOutcome:
        """The task's gold database: its actions replayed on a fresh database (a transfer to a human skipped).

        Read tools change nothing; a gold action the environment refuses stays a no-op, as in τ-bench.
        """
        found = self._gold.get(task_id)
        if found is None:
            db = self.fresh()
            writes: list[tuple[str, dict[str, Any]]] = []
            for action in self.tasks[task_id].actions:
                spec = self.domain.tools.get(action.name)
                if spec is not None and spec.ends_episode:
                    continue
                observation = self.domain.invoke(db, action.name, action.kwargs)
                if spec is not None and spec.writes and not observation.startswith("Error"):
                    writes.append((action.name, action.kwargs))
            found = self._gold[task_id] = GoldOutcome(db, data_hash(db), writes)
        return found


def canonical(obj: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, compact, UTF-8) used by the digest."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def is_task_set(path: Path) -> bool:
    """A folder holding a task-set descriptor."""
    return path.is_dir() and (path / DESCRIPTOR).is_file()


def _read(folder: Path, name: Any, what: str) -> bytes:
    if not isinstance(name, str) or not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise UsageError(f"{folder / DESCRIPTOR}: {what} must name a file inside the folder, got {name!r}")
    path = folder / name
    try:
        if path.is_symlink() or not path.is_file():
            raise UsageError(f"{path}: {what} is not a regular file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise UsageError(f"{path}: {what} is larger than {MAX_FILE_BYTES} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read {what} ({exc.strerror})") from None


def _json(data: bytes, shown: str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{shown}: not valid JSON ({exc})") from None


def _tasks(raw: Any, shown: str, domain: CompletionDomain) -> dict[int, Task]:
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{shown}: expected a non-empty JSON array of tasks")
    out: dict[int, Task] = {}
    for i, t in enumerate(raw):
        where = f"{shown}: task [{i}]"
        if not isinstance(t, dict):
            raise UsageError(f"{where}: not an object")
        tid, user, instruction, actions, outputs = (t.get(k) for k in ("task_id", "user_id", "instruction", "actions",
                                                                         "outputs"))
        if tid != i or isinstance(tid, bool):
            raise UsageError(f"{where}: task_id must be {i} (tasks are listed in task_id order from 0)")
        if not isinstance(user, str) or not isinstance(instruction, str):
            raise UsageError(f"{where}: user_id and instruction must be strings")
        if not isinstance(actions, list) or not all(isinstance(a, dict) and isinstance(a.get("name"), str)
                                                    and isinstance(a.get("kwargs"), dict) for a in actions):
            raise UsageError(f"{where}: actions must be a list of {{name, kwargs}} objects")
        unknown = sorted({a["name"] for a in actions} - set(domain.tools))
        if unknown:
            raise UsageError(f"{where}: gold action(s) of unknown tool(s) {', '.join(unknown)}")
        if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
            raise UsageError(f"{where}: outputs must be a list of strings")
        out[i] = Task(i, user, instruction, tuple(GoldAction(a["name"], a["kwargs"]) for a in actions), tuple(outputs))
    return out


def load_task_set(folder: Path) -> TaskSet:
    """Read and validate the task set in `folder`.

    Raises:
        UsageError: a file is missing, unreadable or invalid.
    """
    shown = (folder / DESCRIPTOR).as_posix()
    desc = _json(_read(folder, DESCRIPTOR, "the descriptor"), shown)
    if not isinstance(desc, dict) or desc.get("format") != FORMAT:
        raise UsageError(f"{shown}: not a task-set descriptor (format must be {FORMAT!r})")
    name, benchmark, domain_name, max_steps = (desc.get(k) for k in ("name", "benchmark", "domain", "max_steps"))
    if not isinstance(name, str) or not name or not isinstance(benchmark, str) or not benchmark:
        raise UsageError(f"{shown}: name and benchmark must be non-empty strings")
    domain = DOMAINS.get(domain_name) if isinstance(domain_name, str) else None
    if domain is None:
        raise UsageError(f"{shown}: unknown domain {domain_name!r} (known: {', '.join(sorted(DOMAINS))})")
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
        raise UsageError(f"{shown}: max_steps must be a positive integer")
    tables = desc.get("tables")
    if not isinstance(tables, dict) or set(tables) != set(domain.tables):
        raise UsageError(f"{shown}: tables must name exactly the {domain.name} tables {', '.join(domain.tables)}")
    policy_bytes = _read(folder, desc.get("policy"), "the policy")
    tasks_bytes = _read(folder, desc.get("tasks"), "the tasks")
    table_bytes = {t: _read(folder, tables[t], f"table {t}") for t in domain.tables}
    files = {"policy": _sha(policy_bytes), "tasks": _sha(tasks_bytes), **{f"table:{t}": _sha(b) for t, b in table_bytes.items()}}
    digest = hashlib.sha256(canonical({"format": FORMAT, "benchmark": benchmark, "domain": domain.name,
                                       "max_steps": max_steps, "files": files})).hexdigest()
    try:
        policy = policy_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{folder / str(desc.get('policy'))}: the policy is not UTF-8") from None
    tasks = _tasks(_json(tasks_bytes, (folder / str(desc.get("tasks"))).as_posix()), (folder / str(desc.get("tasks"))).as_posix(),
                   domain)
    try:
        base = load_tables(table_bytes, domain.tables)
    except DomainError as exc:
        raise UsageError(f"{folder}: {exc}") from None
    return TaskSet(name=name, digest=digest, benchmark=benchmark, domain=domain, max_steps=max_steps, policy=policy,
                   tasks=tasks, base=base, path=folder.as_posix())


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_LOADED: dict[str, TaskSet] = {}
"""Folder fingerprint -> its loaded task set: a process parses each set once (verify, workers, tests)."""


class LazyTaskSets(Mapping[str, TaskSet]):
    """Digest -> task set over task-set folders, each loaded on first need (as `LazyProblemSets` for problems)."""

    def __init__(self, folders: Sequence[Path]) -> None:
        """Remember the folders and fingerprint their files (names and bytes), for the verification cache."""
        self._pending: list[tuple[Path, str]] = []
        self._sets: dict[str, TaskSet] = {}
        fingerprint = hashlib.sha256()
        for folder in folders:
            if not folder.is_dir():
                raise UsageError(f"{folder}: no such folder")
            one = hashlib.sha256()
            for f in sorted(p for p in folder.rglob("*") if p.is_file()):
                data = f.read_bytes()
                one.update(f"{f.relative_to(folder).as_posix()}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
            fingerprint.update(f"{folder.name}\0".encode() + one.digest())
            self._pending.append((folder, one.hexdigest()))
        self._fingerprint = fingerprint.hexdigest()

    @property
    def fingerprint(self) -> str:
        """SHA-256 over the folders' names, files and bytes."""
        return self._fingerprint

    def _load_next(self) -> None:
        folder, key = self._pending.pop(0)
        found = _LOADED.get(key)
        if found is None:
            found = _LOADED[key] = load_task_set(folder)
        self._sets.setdefault(found.digest, found)

    def __getitem__(self, digest: str) -> TaskSet:
        """The set with this digest, loading folders until one provides it."""
        while digest not in self._sets and self._pending:
            self._load_next()
        return self._sets[digest]

    def __iter__(self) -> Iterator[str]:
        """Every digest (loads every folder)."""
        while self._pending:
            self._load_next()
        return iter(self._sets)

    def __len__(self) -> int:
        """Number of sets (loads every folder)."""
        while self._pending:
            self._load_next()
        return len(self._sets)
