"""Load and validate DRIFT-Bench problem sets (JSON, one problem per file).

A problem set is named by its **digest**: the SHA-256 (hex) of the concatenation, over its
problems sorted by `problem_id` (code-point order), of each problem's canonical JSON followed
by one LF byte. Canonical JSON is `json.dumps(problem, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)` encoded as UTF-8, where `problem` is the whole parsed file (every key).
File names, folders and key order do not change the digest; any edit to a problem does.

`load_problem_sets(paths)` gives, for every path, the set of all problems under it (a folder
is searched recursively for `*.json`; a file is one problem) and, when those problems span
more than one `split`, one more set per split (e.g. the DRIFT-Bench `test` split alone).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from pydantic import JsonValue

from checker.constraint.answers import normalize
from checker.constraint.domains import DOMAINS, FALSE, Domain, DomainError, Key, make_domain
from checker.constraint.domains.solver import ProblemSolver, SolverError
from checker.format.errors import UsageError

MAX_PROBLEM_BYTES = 16 << 20
"""Largest accepted problem file (16 MiB)."""
DOMAIN_FIELDS = {"seating": ("table_shape",), "scheduling": ("num_slots", "max_duration"), "logic_grid": ("categories",)}
COMMON_FIELDS = ("problem_id", "domain", "split", "num_entities", "entities", "turns")
TURN_FIELDS = ("turn_number", "new_constraints", "cumulative_constraints", "gold_solution")
RawConstraint = dict[str, JsonValue]
"""A constraint as a problem file writes it: `{"type": str, "args": [...]}` (other keys, e.g. `nl`, ignored)."""


@dataclass(frozen=True)
class GoldTurn:
    """One turn of a problem: its new and cumulative constraints and the gold solution."""

    turn_number: int
    user_message: str
    new_constraints: list[RawConstraint]
    cumulative_constraints: list[RawConstraint]
    gold_solution: Any


@dataclass(frozen=True)
class Problem:
    """One validated problem."""

    problem_id: str
    domain: str
    split: str
    entities: tuple[str, ...]
    turns: tuple[GoldTurn, ...]
    raw: dict[str, Any]  # any JSON object: unknown keys are kept (the digest covers them), the harness reads a few
    """The parsed file, as written (the digest is computed over it)."""
    path: str

    def make_domain(self) -> Domain:
        """A fresh domain object with this problem's context."""
        return make_domain(self.raw)


@dataclass
class ProblemSet:
    """Problems keyed by id, named by digest."""

    name: str
    digest: str
    problems: dict[str, Problem] = field(default_factory=dict)

    @property
    def n_turns(self) -> int:
        """Total gold turns."""
        return sum(len(p.turns) for p in self.problems.values())


def canonical_json(obj: Any) -> bytes:
    """Canonical JSON bytes used by the digest (sorted keys, compact, UTF-8)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def problem_set_digest(problems: Iterable[Mapping[str, Any]]) -> str:
    """SHA-256 over the canonical JSON of each problem, sorted by `problem_id`, each followed by LF."""
    h = hashlib.sha256()
    for raw in sorted(problems, key=lambda p: str(p.get("problem_id"))):
        h.update(canonical_json(raw))
        h.update(b"\n")
    return h.hexdigest()


def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise UsageError(f"{path}: no such file or directory")
    if path.is_dir():
        return sorted(p for p in path.rglob("*.json") if p.is_file())
    return [path]


def load_problems(paths: Sequence[Path], check_gold: bool = True) -> tuple[list[Problem], list[str]]:
    """Read and validate every problem file under `paths`; returns (problems, error messages)."""
    problems: list[Problem] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for root in paths:
        files = _files(root)
        if not files:
            errors.append(f"{root}: no problem files (*.json) found")
        for f in files:
            shown = f.as_posix()
            problem, errs = read_problem(f, shown, check_gold)
            errors.extend(errs)
            if problem is None:
                continue
            if problem.problem_id in seen:
                errors.append(f"{shown}:problem_id: duplicate id {problem.problem_id!r} (also in {seen[problem.problem_id]})")
                continue
            seen[problem.problem_id] = shown
            problems.append(problem)
    return problems, errors


def load_problem_sets(paths: list[Path]) -> dict[str, ProblemSet]:
    """Problem sets under `paths`, keyed by digest (see the module docstring).

    Raises:
        UsageError: a path is missing or any problem is invalid; every problem is listed as
            `path:field: message`.
    """
    out: dict[str, ProblemSet] = {}
    errors: list[str] = []
    for root in paths:
        problems, errs = load_problems([root])
        errors.extend(errs)
        if errs or not problems:
            continue
        for ps in sets_of(problems, root.name or root.as_posix()):
            out.setdefault(ps.digest, ps)
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in the problem set(s):\n" + "\n".join(errors))
    return out


def sets_of(problems: list[Problem], name: str) -> list[ProblemSet]:
    """The whole set, plus one set per split when the problems span several splits."""
    def make(label: str, members: list[Problem]) -> ProblemSet:
        digest = problem_set_digest(p.raw for p in members)
        return ProblemSet(label, digest, {p.problem_id: p for p in sorted(members, key=lambda p: p.problem_id)})

    sets = [make(name, problems)]
    splits = sorted({p.split for p in problems})
    if len(splits) > 1:
        sets += [make(f"{name}:{s}", [p for p in problems if p.split == s]) for s in splits]
    return sets


def read_problem(path: Path, shown: str, check_gold: bool = True) -> tuple[Problem | None, list[str]]:
    """Parse and validate one problem file; every problem found is returned as a message."""
    try:
        size = path.stat().st_size
        if size > MAX_PROBLEM_BYTES:
            return None, [f"{shown}: file is {size} bytes, larger than the {MAX_PROBLEM_BYTES}-byte limit"]
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        return None, [f"{shown}: cannot read ({exc.strerror})"]
    except UnicodeDecodeError as exc:
        return None, [f"{shown}: not valid UTF-8 (offset {exc.start})"]
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        return None, [f"{shown}:{line}: invalid JSON: {exc}" if line else f"{shown}: invalid JSON: {exc}"]
    return validate_problem(raw, shown, path.stem, check_gold)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


class _Errors:
    """Problems found in one file, each as `shown:where: message`."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.found: list[str] = []

    def __call__(self, where: str, msg: str) -> None:
        self.found.append(f"{self.shown}:{where}: {msg}")


def validate_problem(raw: Any, shown: str, stem: str | None = None, check_gold: bool = True) -> tuple[Problem | None, list[str]]:
    """Validate one parsed problem (structure, turn numbering, cumulative sets, gold solutions)."""
    if not isinstance(raw, dict):
        return None, [f"{shown}: a problem must be a JSON object"]
    err = _Errors(shown)
    entities = _check_header(raw, stem, err)
    if entities is None:
        return None, err.found
    _check_context(raw, entities, err)
    if not isinstance(raw["turns"], list) or not raw["turns"]:
        err("turns", "must be a non-empty list")
    if err.found:
        return None, err.found
    try:
        dom = make_domain(raw)
    except DomainError as exc:  # pragma: no cover - the checks above catch these
        err("domain", str(exc))
        return None, err.found
    gold = _gold_turns(raw["turns"], err)
    if not err.found and check_gold:
        err.found += check_gold_turns(dom, gold, shown)
    if err.found:
        return None, err.found
    return Problem(raw["problem_id"], raw["domain"], raw["split"], tuple(entities), tuple(gold), raw, shown), []


def _check_header(raw: dict[str, object], stem: str | None, err: _Errors) -> list[str] | None:
    """The common fields: present, a valid id and domain, unique entities; the entities, or None to stop here."""
    for key in COMMON_FIELDS:
        if key not in raw:
            err(key, "missing field")
    if err.found:
        return None
    _check_id(raw["problem_id"], stem, err)
    domain = raw["domain"]
    if domain not in DOMAINS:
        err("domain", f"unknown domain {domain!r} (expected one of {', '.join(DOMAINS)})")
        return None
    if not isinstance(raw["split"], str):
        err("split", "must be a string")
    entities = raw["entities"]
    if not _is_names(entities):
        err("entities", "must be a non-empty list of non-empty strings")
        return None
    if len(set(entities)) != len(entities):
        err("entities", "names are not unique")
    if raw["num_entities"] != len(entities):
        err("num_entities", f"{raw['num_entities']!r} differs from len(entities) = {len(entities)}")
    return entities


def _check_id(pid: object, stem: str | None, err: _Errors) -> None:
    if not isinstance(pid, str) or not pid:
        err("problem_id", "must be a non-empty string")
    elif stem is not None and stem != pid:
        err("problem_id", f"{pid!r} differs from the file name {stem!r}.json")


def _is_names(value: object) -> TypeGuard[list[str]]:
    """A non-empty list of non-empty strings."""
    return isinstance(value, list) and bool(value) and all(isinstance(e, str) and e for e in value)


def _check_context(raw: dict[str, object], entities: list[str], err: _Errors) -> None:
    """The domain's own fields (`DOMAIN_FIELDS`), then what the domain requires of them."""
    domain = str(raw["domain"])
    for key in DOMAIN_FIELDS[domain]:
        if key not in raw:
            err(key, f"missing field (required for {domain})")
    _CONTEXT_CHECKS[domain](raw, entities, err)


def _check_seating(raw: dict[str, object], entities: list[str], err: _Errors) -> None:
    if raw.get("table_shape") not in ("round", "rectangular", None):
        err("table_shape", f"unknown shape {raw.get('table_shape')!r}")


def _check_scheduling(raw: dict[str, object], entities: list[str], err: _Errors) -> None:
    for key in ("num_slots", "max_duration"):
        value = raw.get(key)
        if key in raw and (not _is_int(value) or value < 1):
            err(key, "must be a positive integer")


def _check_categories(raw: dict[str, object], entities: list[str], err: _Errors) -> None:
    """Logic grid: each category lists one distinct value string per entity."""
    cats = raw.get("categories")
    if not isinstance(cats, dict) or not cats or not all(_is_strings(v) for v in cats.values()):
        err("categories", "must map each category to a list of value strings")
        return
    for c, vals in cats.items():
        if len(vals) != len(entities):
            err(f"categories.{c}", f"has {len(vals)} values for {len(entities)} entities")
        if len(set(vals)) != len(vals):
            err(f"categories.{c}", "values are not unique")


def _is_strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


_CONTEXT_CHECKS: dict[str, Callable[[dict[str, object], list[str], _Errors], None]] = {
    "seating": _check_seating, "scheduling": _check_scheduling, "logic_grid": _check_categories,
}
"""Domain -> the check of its context fields."""


def _gold_turns(turns: list[object], err: _Errors) -> list[GoldTurn]:
    """The turns, numbered 1..T, each cumulative list the previous one followed by the new constraints."""
    gold: list[GoldTurn] = []
    previous: list[RawConstraint] = []
    for i, t in enumerate(turns):
        turn = _gold_turn(i, t, previous, err)
        if turn is not None:
            gold.append(turn)
            previous = turn.cumulative_constraints
    return gold


def _gold_turn(i: int, t: object, previous: list[RawConstraint], err: _Errors) -> GoldTurn | None:
    """Turn `i` (0-based) checked against the previous turn's cumulative list; None when it cannot be read.

    The turn is returned (and becomes the next turn's `previous`) even with errors: a problem with
    any error is rejected, but every turn is still checked so that all its errors are listed.
    """
    where = f"turns[{i}]"
    lists = _turn_lists(i, t, err)
    if lists is None:
        return None
    turn, new, cum = lists
    for j, c in enumerate(cum):
        if not _is_constraint(c):
            err(f"{where}.cumulative_constraints[{j}]", "must be an object with a string `type` and a list `args`")
    if cum != previous + new:
        err(f"{where}.cumulative_constraints", f"is not turn {i}'s cumulative list followed by new_constraints")
    if turn.get("is_satisfiable", True) is not True:
        err(f"{where}.is_satisfiable", "gold turns must be satisfiable")
    user_message = turn.get("user_message", "")
    return GoldTurn(i + 1, user_message if isinstance(user_message, str) else "", new, cum, turn["gold_solution"])


def _turn_lists(i: int, t: object, err: _Errors) -> tuple[dict[str, object], list[Any], list[Any]] | None:
    """(the turn, its new, its cumulative constraints) when the turn is an object with both lists, else None."""
    where = f"turns[{i}]"
    if not isinstance(t, dict):
        err(where, "must be an object")
        return None
    missing = [k for k in TURN_FIELDS if k not in t]
    if missing:
        err(where, f"missing field(s) {', '.join(missing)}")
        return None
    if t["turn_number"] != i + 1 or not _is_int(t["turn_number"]):
        err(f"{where}.turn_number", f"is {t['turn_number']!r}, expected {i + 1} (turns are numbered 1..T)")
    new, cum = t["new_constraints"], t["cumulative_constraints"]
    if not isinstance(new, list) or not isinstance(cum, list):
        err(where, "new_constraints and cumulative_constraints must be lists")
        return None
    return t, new, cum


def _is_constraint(c: object) -> bool:
    return isinstance(c, dict) and isinstance(c.get("type"), str) and isinstance(c.get("args"), list)


def check_gold_turns(dom: Domain, turns: Sequence[GoldTurn], shown: str, solver: ProblemSolver | None = None) -> list[str]:
    """Every gold cumulative set is SAT and its gold solution is correct (drift-bench-v1 semantics)."""
    errs: list[str] = []
    solver = solver or ProblemSolver(dom)
    for i, t in enumerate(turns):
        where = f"{shown}:turns[{i}]"
        keys = [dom.compile_constraint(c) for c in t.cumulative_constraints]
        if FALSE in keys:  # name the malformed entry instead of calling the whole turn unsatisfiable
            errs += _malformed(t, keys, where)
            continue
        try:
            found = _gold_error(dom, solver, t, keys)
        except SolverError as exc:
            found = f": solver error ({exc})"
        if found is not None:
            errs.append(where + found)
    return errs


def _malformed(t: GoldTurn, keys: list[Key], where: str) -> list[str]:
    """An error for each new constraint of the turn that compiles to `FALSE`."""
    first_new = len(keys) - len(t.new_constraints)
    return [f"{where}.new_constraints[{j - first_new}]: malformed constraint "
            f"{t.cumulative_constraints[j].get('type')!r} {t.cumulative_constraints[j].get('args')!r} "
            "(unknown type or name, too few or unconvertible args, or a side constraint off an even "
            "rectangular table: it is always false)"
            for j, k in enumerate(keys) if k == FALSE and j >= first_new]


def _gold_error(dom: Domain, solver: ProblemSolver, t: GoldTurn, keys: list[Key]) -> str | None:
    """What is wrong with a gold turn (the rest of its error line), or None.

    Raises:
        SolverError: Z3 returned `unknown`.
    """
    answer = normalize(dom, t.gold_solution)
    # answer first: a correct complete gold solution is then a witness for the SAT check
    correct = answer is not None and solver.sat(keys + dom.answer_keys(answer))
    if not solver.sat(keys):
        return ".cumulative_constraints: unsatisfiable under drift-bench-v1 semantics"
    if answer is None or not dom.is_complete(answer):
        return ".gold_solution: does not assign every entity"
    if not correct:
        return ".gold_solution: violates the cumulative constraints"
    return None
