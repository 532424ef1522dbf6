"""Import DRIFT-Bench outputs into a canonical constraint-track submission.

Sources (detected from the bytes, not the name):

* a transcript JSONL (`examples/transcripts` format: `problem_intro`, `turn_start`,
  `model_trace`, `turn_summary` lines), or a folder of them;
* the runner's SQLite results database (table `results`, drift-spec §c), opened read-only.

Several sources may be given (one kind per import): e.g. the three example transcripts, one per
domain, become one submission. Each run's `source.files` names every input file with its SHA-256.

One run is written per (model, method), cell `<model>/<method>`, seed label `seed42`
(DRIFT-Bench's default `--seed`; neither native format records it). Transcripts do not name
the method: a trace's `method` key is used when present, else `mus_repair` when it records
`z3_sat` or repair events, `ledger_only` when it only has a ledger, `direct` otherwise.
`started_at` is the earliest `timestamp` of the run's database rows, or `1970-01-01T00:00:00Z`
for transcripts (they carry no time), so the output is byte-identical for the same input.

The pre-registration written is marked `written_after_runs: true` (an import is retrospective),
and the manifest credits DRIFT-Bench (`license`, `paper`, `citation`) and records the command.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.constraint.problems import Problem, load_problems, sets_of
from checker.format.errors import UsageError
from checker.format.logio import EventError, RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN
from checker.importers.naming import slug, unique

SEED = "seed42"
EPOCH = "1970-01-01T00:00:00Z"
HARNESS = {"name": "drift-bench", "version": "1.0.0", "commit": "d24cda4",
           "url": "https://github.com/kaons-research/drift-bench"}
PAPER = "https://github.com/kaons-research/drift-bench/blob/main/paper.pdf"
CITATION = ("Sebastien Kawada. Residual Drift Dominates Contradiction in Multi-Turn Constraint Reasoning. "
            "ICLR 2026 Workshop on Reasoning and Planning for LLMs, 2026. DRIFT-Bench 1.0.0 "
            "(https://github.com/kaons-research/drift-bench), MIT licence, Copyright (c) 2026 Kaons.")
"""DRIFT-Bench's preferred citation (its CITATION.cff) and licence, credited in every imported manifest."""
SQLITE_MAGIC = b"SQLite format 3\x00"
RESULT_COLUMNS = ("model", "method", "domain", "problem_id", "turn_number", "raw_response")


@dataclass
class NativeRun:
    """Rows of one (model, method), keyed by (problem_id, turn_number)."""

    model: str
    method: str
    turns: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    timestamps: list[str] = field(default_factory=list)


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _yaml(data: dict[str, Any]) -> bytes:
    return yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False).encode("utf-8")


def _stems(keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(model, method) -> a unique `<model>--<method>` slug for the run's file name and run id.

    The parts are cut to 50 and 30 characters (so a run id with a 100-character submission id stays
    within 200) and a slug already taken gets `-2`, `-3`, ... in key order ("a b" and "a/b" both slug to "a-b").
    """
    out: dict[tuple[str, str], str] = {}
    used: set[str] = set()
    for model, method in keys:
        out[(model, method)] = unique(f"{slug(model)[:50]}--{slug(method)[:30]}", used)
    return out


def _flag(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool | int) and int(value) in (0, 1):
        return int(value)
    raise UsageError(f"{what}: expected 0, 1 or null, got {value!r}")


def _opt_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value == float("inf"):
        return None  # JSON `Infinity` (json.loads reads it) has no integer value; NaN fails `>= 0`
    return int(value) if value >= 0 else None


def _ledger(raw: Any, what: str) -> list[dict[str, Any]] | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            raise UsageError(f"{what}: ledger is not valid JSON") from None
        if raw is None:
            return None
    if isinstance(raw, dict) and "constraints" in raw:
        raw = raw["constraints"]
    if not isinstance(raw, list):
        raise UsageError(f"{what}: ledger is not a list")
    out = []
    for i, entry in enumerate(raw):
        e = entry if isinstance(entry, dict) else {"args": entry}
        ctype = e.get("type")
        st = e.get("source_turn")
        out.append({
            "id": str(e.get("id") or f"L{i + 1:03d}"),
            "type": ctype if isinstance(ctype, str) else json.dumps(ctype),
            "args": e.get("args"),
            "nl": e.get("nl") if isinstance(e.get("nl"), str) else None,
            "source_turn": st if isinstance(st, int) and not isinstance(st, bool) else None,
        })
    return out


def _mus(raw: Any) -> list[str] | None:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            return None
    if not isinstance(raw, list):
        return None
    ids = []
    for item in raw:
        if isinstance(item, dict) and item.get("id") is not None:
            ids.append(str(item["id"]))
        elif isinstance(item, str):
            ids.append(item)
    return ids


def _attempts(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            return []
    if not isinstance(raw, list):
        return []
    out = []
    for i, ev in enumerate(raw):
        if not isinstance(ev, dict):
            continue
        known = {"attempt", "codes", "candidate_ledger_size", "candidate_is_sat", "extracted_constraints_count",
                 "mus_size", "attempt_budget_exhausted"}
        sat = ev.get("candidate_is_sat")
        exhausted = ev.get("attempt_budget_exhausted")
        detail = {k: v for k, v in ev.items() if k not in known}
        out.append({
            "attempt": _opt_int(ev.get("attempt")) if _opt_int(ev.get("attempt")) is not None else i + 1,
            "codes": _codes(ev.get("codes")),
            "candidate_ledger_size": _opt_int(ev.get("candidate_ledger_size")),
            "candidate_is_sat": None if sat is None else bool(sat),
            "extracted_constraints_count": _opt_int(ev.get("extracted_constraints_count")),
            "mus_size": _opt_int(ev.get("mus_size")),
            "attempt_budget_exhausted": None if exhausted is None else bool(exhausted),
            "detail": detail or None,
        })
    return out


def _codes(value: Any) -> list[str]:
    """Repair reason codes: a list as strings; a lone code kept as one string; null/absent -> []."""
    if value is None:
        return []
    return [str(c) for c in value] if isinstance(value, list) else [str(value)]


def _infer_method(trace: dict[str, Any], intro: dict[str, Any]) -> str:
    method = trace.get("method") or intro.get("method")
    if isinstance(method, str) and method:
        return method
    if trace.get("z3_sat") is not None or trace.get("repair_events"):
        return "mus_repair"
    return "ledger_only" if trace.get("ledger") is not None else "direct"


def read_transcripts(files: Iterable[Path]) -> dict[tuple[str, str], NativeRun]:
    """Native runs from transcript JSONL files.

    Raises:
        UsageError: a line is not JSON, or a trace comes before its `problem_intro`.
    """
    runs: dict[tuple[str, str], NativeRun] = {}
    for path in files:
        intro: dict[str, Any] = {}
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
            kind = obj.get("type")
            if kind == "problem_intro":
                intro = obj
            elif kind == "model_trace":
                pid = intro.get("problem_id")
                model, tn = obj.get("model"), obj.get("turn_number")
                if not isinstance(pid, str):
                    raise UsageError(f"{path}:{lineno}: model_trace before any problem_intro")
                if not isinstance(model, str) or not isinstance(tn, int) or isinstance(tn, bool):
                    raise UsageError(f"{path}:{lineno}: model_trace needs a string model and an integer turn_number")
                method = _infer_method(obj, intro)
                run = runs.setdefault((model, method), NativeRun(model, method))
                what = f"{path}:{lineno}"
                if (pid, tn) in run.turns:
                    raise UsageError(f"{what}: second trace for {model}/{method} {pid} turn {tn}")
                run.turns[(pid, tn)] = {
                    "raw_response": obj.get("response_snippet") if isinstance(obj.get("response_snippet"), str) else None,
                    "ledger": _ledger(obj.get("ledger"), what),
                    "z3_sat": _flag(obj.get("z3_sat"), f"{what}: z3_sat"),
                    "answer_correct": _flag(obj.get("answer_correct"), f"{what}: answer_correct"),
                    "mus": _mus(obj.get("mus")),
                    "repair_attempts": _attempts(obj.get("repair_events")),
                    "finish_reason": obj.get("finish_reason") if isinstance(obj.get("finish_reason"), str) else None,
                    "tokens_out": _opt_int(obj.get("tokens_out")),
                }
    return runs


def read_sqlite(path: Path) -> dict[tuple[str, str], NativeRun]:
    """Native runs from the runner's results database (opened read-only).

    Raises:
        UsageError: the file is not a readable database with a `results` table.
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
        rows = con.execute(f"SELECT * FROM results ORDER BY {order}").fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: cannot read table `results` ({exc})") from None
    finally:
        con.close()
    runs: dict[tuple[str, str], NativeRun] = {}
    for row in rows:
        r = dict(row)
        what = f"{path}: results row id={r.get('id')}"
        model, method, pid, tn = r["model"], r["method"], r["problem_id"], r["turn_number"]
        if not all(isinstance(x, str) for x in (model, method, pid)) or not isinstance(tn, int):
            raise UsageError(f"{what}: model, method, problem_id must be text and turn_number an integer")
        run = runs.setdefault((model, method), NativeRun(model, method))
        if (pid, tn) in run.turns:
            raise UsageError(f"{what}: duplicate row for {model}/{method} {pid} turn {tn}")
        if isinstance(r.get("timestamp"), str):
            run.timestamps.append(r["timestamp"])
        run.turns[(pid, tn)] = {
            "raw_response": r.get("raw_response") if isinstance(r.get("raw_response"), str) else None,
            "ledger": _ledger(r.get("ledger_json"), what),
            "z3_sat": _flag(r.get("z3_sat"), f"{what}: z3_sat"),
            "answer_correct": _flag(r.get("answer_correct"), f"{what}: answer_correct"),
            "mus": _mus(r.get("mus_json")),
            "extraction_null": _flag(r.get("extraction_null"), f"{what}: extraction_null"),
            "z3_error": _flag(r.get("z3_error"), f"{what}: z3_error"),
            "repair_attempts": _attempts(r.get("repair_reason_json")),
            "finish_reason": r.get("finish_reason") if isinstance(r.get("finish_reason"), str) else None,
            "tokens_in": _opt_int(r.get("tokens_in")),
            "tokens_out": _opt_int(r.get("tokens_out")),
        }
    return runs


def _iso(ts: str) -> str:
    text = ts.strip().replace(" ", "T")
    return text if text.endswith("Z") or "+" in text[10:] else text + "Z"


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


def _read_databases(files: list[Path]) -> dict[tuple[str, str], NativeRun]:
    runs: dict[tuple[str, str], NativeRun] = {}
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


def _shown(path: Path) -> str:
    """A source path as the manifest's import command shows it: as given when relative, else its name."""
    return path.name if path.is_absolute() else path.as_posix()


def _title(native: dict[tuple[str, str], NativeRun], by_id: dict[str, Problem], split: str | None) -> str:
    models = sorted({m for m, _ in native})
    methods = sorted({meth for _, meth in native})
    pids = sorted({pid for run in native.values() for pid, _ in run.turns})
    domains = sorted({by_id[p].domain for p in pids})
    what = f" of the {split} split" if split else ""
    per_domain = " (one per domain)" if len(domains) == len(pids) > 1 else ""
    title = (f"DRIFT-Bench {', '.join(methods)} runs of {len(models)} model{'s' * (len(models) != 1)} "
             f"({', '.join(models)}) on {len(pids)} problem{'s' * (len(pids) != 1)}{what}{per_domain}: "
             f"{', '.join(pids)}")
    if len(title) > 200:
        title = (f"DRIFT-Bench runs of {len(models)} model(s), {len(methods)} method(s) on {len(pids)} "
                 f"problem(s){what}")
    return title


def import_submission(srcs: Sequence[Path] | Path, problems: Path, out: Path) -> int:
    """Write `out/` (prereg.yaml, runs/*.jsonl, submission.yaml) from DRIFT-Bench sources.

    `srcs`: transcript JSONL files, folders of them, or results databases (one kind per import).
    The pre-registration it writes says `written_after_runs: true` (the runs existed before it),
    and the manifest credits DRIFT-Bench (licence, citation) and records the import command.

    Raises:
        UsageError: unreadable or inconsistent input, unknown problems, or a non-empty `out`.
    """
    srcs = [srcs] if isinstance(srcs, Path) else list(srcs)
    submission_id = out.name
    if not re.fullmatch(SUBMISSION_ID_PATTERN, submission_id):
        raise UsageError(f"{out}: the folder name must be a submission id ({SUBMISSION_ID_PATTERN})")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: already exists and is not empty; choose a new folder")
    kind, sources = gather_sources(srcs)
    files = [f for f, _ in sources]
    native = _read_databases(files) if kind == "sqlite" else read_transcripts(files)
    what = ", ".join(_shown(s) for s in srcs)
    if not native:
        raise UsageError(f"{what}: no model turns found")
    loaded, errors = load_problems([problems])
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors))
    by_id = {p.problem_id: p for p in loaded}
    used = sorted({pid for run in native.values() for pid, _ in run.turns})
    unknown = [pid for pid in used if pid not in by_id]
    if unknown:
        raise UsageError(f"{what}: problem(s) not found under {problems}: {', '.join(unknown)}")
    bad_turns = sorted(
        f"{m}/{meth} {pid} turn {tn}" for (m, meth), run in native.items() for pid, tn in run.turns
        if not 1 <= tn <= len(by_id[pid].turns)
    )
    if bad_turns:
        raise UsageError(f"{what}: turn numbers outside the problem: {'; '.join(bad_turns)}")
    splits = sorted({by_id[pid].split for pid in used})
    candidates = sets_of(loaded, "drift-bench")
    pset = candidates[0]
    if len(splits) == 1:
        pset = next((s for s in candidates if s.name.endswith(f":{splits[0]}")), pset)
    set_name = f"drift-bench-{splits[0]}" if len(splits) == 1 else "drift-bench"

    keys = sorted(native)
    cells: dict[str, tuple[str, str]] = {}
    for m, meth in keys:  # "a/b" + "c" and "a" + "b/c" would share cell "a/b/c": refused, never merged
        other = cells.setdefault(f"{m}/{meth}", (m, meth))
        if other != (m, meth):
            raise UsageError(f"{what}: model {other[0]!r} with method {other[1]!r} and model {m!r} with method "
                             f"{meth!r} would share the cell name {m + '/' + meth!r}; import them separately")
    prereg = {
        "format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "constraint",
        "profile": "drift-bench-v1",
        "cells": {c: {"flags": {"model": m, "method": meth}, "seeds": [SEED]} for c, (m, meth) in cells.items()},
        "problem_set": pset.digest,
        "written_after_runs": True,  # the runs existed before this file: an import is not a pre-registration
    }
    out.mkdir(parents=True, exist_ok=True)
    prereg_bytes = _yaml(prereg)
    (out / "prereg.yaml").write_bytes(prereg_bytes)
    prereg_sha = sha256_hex(prereg_bytes)
    source_files = {name: file_sha256(f) for f, name in sources}
    run_files: list[str] = []
    claims: list[dict[str, Any]] = []
    stems = _stems(keys)
    for model, method in keys:
        run = native[(model, method)]
        stem = stems[(model, method)]
        rel = f"runs/{stem}--{SEED}.jsonl"
        run_files.append(rel)
        cell = f"{model}/{method}"
        start = {
            "run_id": f"{submission_id}--{stem}--{SEED}",
            "submission_id": submission_id, "track": "constraint", "cell": cell, "seed": SEED,
            "backbone": model, "prereg_sha256": prereg_sha,
            "started_at": _iso(min(run.timestamps)) if run.timestamps else EPOCH,
            "method": method, "problem_set": {"name": set_name, "digest": pset.digest},
            "source": {"importer": f"drift-bench-{kind}@1", "files": source_files,
                       "native_run_id": f"{model}/{method}"},
        }
        _write_run(out / rel, start, run, by_id)
        recorded = [t["answer_correct"] for t in run.turns.values() if t["answer_correct"] is not None]
        if recorded:
            claims.append({"cell": cell, "metric": "turn_accuracy", "value": sum(recorded) / len(recorded),
                           "source": f"recorded answer_correct in {', '.join(source_files)}"})
    models = sorted({m for m, _ in keys})
    split = splits[0] if len(splits) == 1 else None
    command = (f"driftboard import drift-bench {' '.join(_shown(s) for s in srcs)} --problems {_shown(problems)} "
               f"--out submissions/{submission_id}")
    n_turns = sum(len(run.turns) for run in native.values())
    submission = {
        "format_version": FORMAT_VERSION, "id": submission_id,
        "title": _title(native, by_id, split),
        "authors": [{"name": "DRIFT-Bench authors", "affiliation": "Kaons"}],
        "contact": HARNESS["url"], "track": "constraint", "system": "DRIFT-Bench",
        "backbone": models[0] if len(models) == 1 else "multiple (see each run)",
        "harness": HARNESS, "license": "MIT", "paper": PAPER, "citation": CITATION,
        "synthetic": False,  # model runs, stated explicitly: the site labels Driftboard's own baselines only
        "description": (
            f"Model runs recorded by DRIFT-Bench's harness: {len(keys)} model x method cell(s), {len(used)} "
            f"problem(s) of the set {set_name} (digest {pset.digest}), {n_turns} turns in all. Imported "
            f"({kind}) with one command: `{command}`. The labels the sources record (z3_sat, answer_correct) "
            "are claims; the checker recomputes every turn. The pre-registration was written by the importer "
            "after the runs (written_after_runs: true)."),
        "files": run_files, "claims": claims,
    }
    (out / "submission.yaml").write_bytes(_yaml(submission))
    return 0


def _write_run(path: Path, start: dict[str, Any], run: NativeRun, by_id: dict[str, Problem]) -> None:
    try:
        with RunLogWriter(path, start) as log:
            current = None
            for pid, tn in sorted(run.turns):
                problem = by_id[pid]
                if pid != current:
                    log.write({"type": "problem_start", "problem_id": pid, "domain": problem.domain,
                               "n_turns": len(problem.turns)})
                    current = pid
                log.write({"type": "turn", "problem_id": pid, "turn_number": tn,
                           "user_message": problem.turns[tn - 1].user_message, **run.turns[(pid, tn)]})
            log.end("COMPLETED", "imported")
    except ValidationError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(format_validation_error(exc))}") from None
    except EventError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(exc.problems)}") from None
    except ValueError as exc:  # e.g. a lone surrogate (a JSON "\ud800" escape): not encodable as UTF-8
        raise UsageError(f"{path}: cannot write a valid event: {exc}") from None
