"""Import DRIFT-Bench outputs into a canonical constraint-track submission.

Sources (detected from the bytes, not the name):

* a transcript JSONL (`examples/transcripts` format: `problem_intro`, `turn_start`,
  `model_trace`, `turn_summary` lines), or a folder of them;
* the runner's SQLite results database (table `results`, drift-spec §c), opened read-only.

Several sources may be given (one kind per import): e.g. the three example transcripts, one per
domain, become one submission. Each run's `source.files` names every input file with its SHA-256.

The sources are read by `checker.importers.drift_bench_read` (which also says how a
transcript's method is inferred). One run is written per (model, method), cell
`<model>/<method>`, seed label `seed42` (DRIFT-Bench's default `--seed`; neither native format
records it), over the problems of the set given with `--problems` (every problem id and turn
number the sources name must be in it).
`started_at` is the earliest `timestamp` of the run's database rows, or `1970-01-01T00:00:00Z`
for transcripts (they carry no time), so the output is byte-identical for the same input.

The pre-registration written is marked `written_after_runs: true` (an import is retrospective),
and the manifest credits DRIFT-Bench (`license`, `paper`, `citation`) and records the command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.constraint.problems import Problem, ProblemSet, load_problems, sets_of
from checker.format.errors import UsageError
from checker.format.logio import EventError, RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN
from checker.importers.drift_bench_read import NativeRun, Runs, gather_sources, read_native
from checker.importers.naming import slug, unique
from checker.importers.output import yaml_bytes

SEED = "seed42"
EPOCH = "1970-01-01T00:00:00Z"
HARNESS = {"name": "drift-bench", "version": "1.0.0", "commit": "d24cda4",
           "url": "https://github.com/kaons-research/drift-bench"}
PAPER = "https://github.com/kaons-research/drift-bench/blob/main/paper.pdf"
CITATION = ("Sebastien Kawada. Residual Drift Dominates Contradiction in Multi-Turn Constraint Reasoning. "
            "ICLR 2026 Workshop on Reasoning and Planning for LLMs, 2026. DRIFT-Bench 1.0.0 "
            "(https://github.com/kaons-research/drift-bench), MIT licence, Copyright (c) 2026 Kaons.")
"""DRIFT-Bench's preferred citation (its CITATION.cff) and licence, credited in every imported manifest."""


@dataclass(frozen=True)
class _Problems:
    """The problems the sources answer: by id, the ids used, their one split (if one) and the set they are from."""

    by_id: dict[str, Problem]
    used: list[str]
    split: str | None
    pset: ProblemSet
    set_name: str


@dataclass(frozen=True)
class _Header:
    """What every run's `run_start` shares."""

    submission_id: str
    prereg_sha: str
    kind: str
    source_files: dict[str, str]
    problems: _Problems


def import_submission(srcs: Sequence[Path] | Path, problems: Path, out: Path) -> int:
    """Write `out/` (prereg.yaml, runs/*.jsonl, submission.yaml) from DRIFT-Bench sources.

    `srcs`: transcript JSONL files, folders of them, or results databases (one kind per import).
    The pre-registration it writes says `written_after_runs: true` (the runs existed before it),
    and the manifest credits DRIFT-Bench (licence, citation) and records the import command.

    Raises:
        UsageError: unreadable or inconsistent input, unknown problems, or a non-empty `out`.
    """
    srcs = [srcs] if isinstance(srcs, Path) else list(srcs)
    submission_id = _submission_id(out)
    kind, sources = gather_sources(srcs)
    native = read_native(kind, [f for f, _ in sources])
    what = ", ".join(_shown(s) for s in srcs)
    if not native:
        raise UsageError(f"{what}: no model turns found")
    used = _problems(native, problems, what)
    keys = sorted(native)
    cells = _cells(keys, what)
    out.mkdir(parents=True, exist_ok=True)
    prereg_bytes = yaml_bytes(_prereg(submission_id, cells, used.pset.digest))
    (out / "prereg.yaml").write_bytes(prereg_bytes)
    header = _Header(submission_id, sha256_hex(prereg_bytes), kind, {name: file_sha256(f) for f, name in sources},
                     used)
    run_files, claims = _write_runs(out, native, keys, header)
    command = (f"driftboard import drift-bench {' '.join(_shown(s) for s in srcs)} --problems {_shown(problems)} "
               f"--out submissions/{submission_id}")
    submission = _manifest(native, header, command)
    (out / "submission.yaml").write_bytes(yaml_bytes({**submission, "files": run_files, "claims": claims}))
    return 0


def _submission_id(out: Path) -> str:
    """The submission id `out` names.

    Raises:
        UsageError: the folder name is not a submission id, or the folder exists and is not empty.
    """
    if not re.fullmatch(SUBMISSION_ID_PATTERN, out.name):
        raise UsageError(f"{out}: the folder name must be a submission id ({SUBMISSION_ID_PATTERN})")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: already exists and is not empty; choose a new folder")
    return out.name


def _problems(native: Runs, problems: Path, what: str) -> _Problems:
    """The problem set the sources answer, checked: every problem id known, every turn number inside its problem.

    Raises:
        UsageError: the problem set does not load, or the sources name problems or turns it lacks.
    """
    loaded, errors = load_problems([problems])
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors))
    by_id = {p.problem_id: p for p in loaded}
    used = sorted({pid for run in native.values() for pid, _ in run.turns})
    _check_turns(native, by_id, used, f"{what}: problem(s) not found under {problems}", what)
    splits = sorted({by_id[pid].split for pid in used})
    if len(splits) != 1:
        return _Problems(by_id, used, None, sets_of(loaded, "drift-bench")[0], "drift-bench")
    candidates = sets_of(loaded, "drift-bench")
    pset = next((s for s in candidates if s.name.endswith(f":{splits[0]}")), candidates[0])
    return _Problems(by_id, used, splits[0], pset, f"drift-bench-{splits[0]}")


def _check_turns(native: Runs, by_id: dict[str, Problem], used: list[str], unknown_msg: str, what: str) -> None:
    """Refuse problem ids the set lacks, then turn numbers outside their problem."""
    unknown = [pid for pid in used if pid not in by_id]
    if unknown:
        raise UsageError(f"{unknown_msg}: {', '.join(unknown)}")
    bad_turns = sorted(
        f"{m}/{meth} {pid} turn {tn}" for (m, meth), run in native.items() for pid, tn in run.turns
        if not 1 <= tn <= len(by_id[pid].turns)
    )
    if bad_turns:
        raise UsageError(f"{what}: turn numbers outside the problem: {'; '.join(bad_turns)}")


def _cells(keys: list[tuple[str, str]], what: str) -> dict[str, tuple[str, str]]:
    """Cell name `<model>/<method>` -> (model, method).

    Raises:
        UsageError: two (model, method) pairs spell the same cell ("a/b" + "c" and "a" + "b/c"),
            which would merge two runs into one cell.
    """
    cells: dict[str, tuple[str, str]] = {}
    for m, meth in keys:
        other = cells.setdefault(f"{m}/{meth}", (m, meth))
        if other != (m, meth):
            raise UsageError(f"{what}: model {other[0]!r} with method {other[1]!r} and model {m!r} with method "
                             f"{meth!r} would share the cell name {m + '/' + meth!r}; import them separately")
    return cells


def _prereg(submission_id: str, cells: dict[str, tuple[str, str]], digest: str) -> dict[str, object]:
    return {
        "format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "constraint",
        # not the ranked profile, on purpose: runs DRIFT-Bench's harness recorded are reproduced under its own rules
        # and published apart, unranked (checker/stages/rules.py REPRODUCTION_PROFILES)
        "profile": "drift-bench-v1",
        "cells": {c: {"flags": {"model": m, "method": meth}, "seeds": [SEED]} for c, (m, meth) in cells.items()},
        "problem_set": digest,
        "written_after_runs": True,  # the runs existed before this file: an import is not a pre-registration
    }


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


def _write_runs(out: Path, native: Runs, keys: list[tuple[str, str]],
                header: _Header) -> tuple[list[str], list[dict[str, object]]]:
    """Write one run log per (model, method); returns the run files and the claims of recorded accuracy."""
    run_files: list[str] = []
    claims: list[dict[str, object]] = []
    stems = _stems(keys)
    for model, method in keys:
        run = native[(model, method)]
        stem = stems[(model, method)]
        rel = f"runs/{stem}--{SEED}.jsonl"
        run_files.append(rel)
        _write_run(out / rel, _run_start(run, stem, header), run, header.problems.by_id)
        recorded = [t["answer_correct"] for t in run.turns.values() if t["answer_correct"] is not None]
        if recorded:
            claims.append({"cell": f"{model}/{method}", "metric": "turn_accuracy",
                           "value": sum(recorded) / len(recorded),
                           "source": f"recorded answer_correct in {', '.join(header.source_files)}"})
    return run_files, claims


def _run_start(run: NativeRun, stem: str, header: _Header) -> dict[str, object]:
    """`started_at` is the earliest `timestamp` of the run's rows, or `EPOCH` for transcripts (they carry no time)."""
    sid, model, method = header.submission_id, run.model, run.method
    return {
        "run_id": f"{sid}--{stem}--{SEED}",
        "submission_id": sid, "track": "constraint", "cell": f"{model}/{method}", "seed": SEED,
        "backbone": model, "prereg_sha256": header.prereg_sha,
        "started_at": _iso(min(run.timestamps)) if run.timestamps else EPOCH,
        "method": method, "problem_set": {"name": header.problems.set_name, "digest": header.problems.pset.digest},
        "source": {"importer": f"drift-bench-{header.kind}@1", "files": header.source_files,
                   "native_run_id": f"{model}/{method}"},
    }


def _manifest(native: Runs, header: _Header, command: str) -> dict[str, object]:
    """The manifest without its `files` and `claims`."""
    p = header.problems
    models = sorted({m for m, _ in native})
    n_turns = sum(len(run.turns) for run in native.values())
    return {
        "format_version": FORMAT_VERSION, "id": header.submission_id,
        "title": _title(native, p.by_id, p.split),
        "authors": [{"name": "DRIFT-Bench authors", "affiliation": "Kaons"}],
        "contact": HARNESS["url"], "track": "constraint", "system": "DRIFT-Bench",
        "backbone": models[0] if len(models) == 1 else "multiple (see each run)",
        "harness": HARNESS, "license": "MIT", "paper": PAPER, "citation": CITATION,
        "synthetic": False,  # model runs, stated explicitly: the site labels Driftboard's own baselines only
        "description": (
            f"Model runs recorded by DRIFT-Bench's harness: {len(native)} model x method cell(s), {len(p.used)} "
            f"problem(s) of the set {p.set_name} (digest {p.pset.digest}), {n_turns} turns in all. Imported "
            f"({header.kind}) with one command: `{command}`. The labels the sources record (z3_sat, answer_correct) "
            "are claims; the checker recomputes every turn. The pre-registration was written by the importer "
            "after the runs (written_after_runs: true)."),
    }


def _iso(ts: str) -> str:
    text = ts.strip().replace(" ", "T")
    return text if text.endswith("Z") or "+" in text[10:] else text + "Z"


def _shown(path: Path) -> str:
    """A source path as the manifest's import command shows it: as given when relative, else its name."""
    return path.name if path.is_absolute() else path.as_posix()


def _title(native: Runs, by_id: dict[str, Problem], split: str | None) -> str:
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


def _write_run(path: Path, start: dict[str, object], run: NativeRun, by_id: dict[str, Problem]) -> None:
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


__all__ = ["CITATION", "EPOCH", "HARNESS", "PAPER", "SEED", "gather_sources", "import_submission"]
