"""Import Inspect AI eval logs into a canonical submission: `import_logs` picks the track by the logs' task.

Logs of `driftboard/agent` go to `checker.importers.inspect_agent`; the rest of this module
imports logs of the `driftboard/constraint` task (`import_submission`).

One run is written per (model, method, epoch): cell `<model>/<method>`, seed label `epoch<N>`,
every sample of that epoch in sample-id order. Nothing in the log is taken on trust that can be
derived: `checker.importers.inspect_read` rebuilds every turn from the sample's **model events**
(Inspect's record of each call: its input messages and its output), checking each call against
the protocol (`checker.harness.inspect_task.protocol`) and re-deriving ledgers from the
extraction outputs; a turn whose main call was sent other constraints than the problem set's is
written with the user message actually sent, so `driftboard verify` marks the run INVALID.

Every sample read ends up in a run, or in a finding that says why not (samples in = runs or
findings out): logs of other tasks, other protocol versions or other problem sets, samples that
errored, hit a limit, were retried, or whose calls do not follow the protocol. The findings are
printed and kept in the manifest's description. The output is byte-identical for the same logs
and problem set, whichever the order of the arguments; a `prereg.yaml` already in `out` is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.constraint.problems import Problem, load_problems, sets_of
from checker.format.errors import Finding, UsageError
from checker.format.logio import RunLogWriter, format_validation_error, sha256_hex
from checker.harness.inspect_task.agent_protocol import TASK_NAME as AGENT_TASK
from checker.harness.inspect_task.protocol import PROTOCOL_VERSION, TASK_NAME
from checker.importers.inspect_read import EpochRun, first_line, read_log, read_logs
from checker.importers.naming import slug, unique
from checker.importers.output import iso_utc, kept_manifest, out_state, yaml_bytes

IMPORTER = "inspect@1"


def import_logs(logs: Sequence[Path], problems: Path | None, out: Path) -> int:
    """Import logs of one Inspect task of Driftboard's: the agent track's, else the constraint track's.

    Raises:
        UsageError: logs of both tasks, constraint logs without `problems`, or any error of the importer.
    """
    from checker.importers.inspect_agent import import_agent_submission

    paths = sorted({Path(p) for p in logs}, key=lambda p: (p.name, p.as_posix()))
    tasks = {p: _task_of(p) for p in paths}
    agent = sorted(p.name for p, t in tasks.items() if t == AGENT_TASK)
    constraint = sorted(p.name for p, t in tasks.items() if t == TASK_NAME)
    if agent and constraint:
        raise UsageError(f"logs of both tasks ({agent[0]}: {AGENT_TASK}; {constraint[0]}: {TASK_NAME}): import each "
                         "track into its own submission")
    if agent:
        return import_agent_submission(paths, out)
    if problems is None and not constraint:
        found = "; ".join(f"{p.name}: task {t!r}" for p, t in tasks.items())
        raise UsageError(f"nothing to import: no log of {AGENT_TASK} or {TASK_NAME} ({found})")
    if problems is None:
        raise UsageError(f"--problems is required for logs of {TASK_NAME} (the problem-set folder the eval ran on)")
    return import_submission(paths, problems, out)


def _task_of(path: Path) -> str:
    """The registry name of a log's task, from its header."""
    spec = read_log(path, header_only=True).eval
    return str(spec.task_registry_name or spec.task)


def import_submission(logs: Sequence[Path], problems: Path, out: Path) -> int:
    """Write `out/` (prereg.yaml unless already there, runs/*.jsonl, submission.yaml) from Inspect logs.

    Returns 0 when every sample was imported in full, 1 when findings say some were not (the
    submission is written all the same, with the findings in its description).

    Raises:
        UsageError: the extra is missing, a log is unreadable, the problem set is invalid, `out`
            is not usable, or nothing at all can be imported.
    """
    kept_prereg = out_state(out)
    submission_id = out.name
    by_id, digests = _problem_sets(problems)
    paths = sorted({Path(p) for p in logs}, key=lambda p: (p.name, p.as_posix()))
    runs, findings, read = read_logs(paths, by_id, digests)
    if not runs:
        detail = "\n".join(f.render() for f in findings)
        raise UsageError("nothing to import" + (f":\n{detail}" if detail else ""))
    digest = _one_problem_set(runs)
    if kept_prereg is not None:
        findings += prereg_disagreements(out / "prereg.yaml", kept_prereg, runs, digest, digests[digest])
    prereg_bytes = _write_prereg(out, kept_prereg, runs, digest)
    run_files = _write_runs(out, runs, sha256_hex(prereg_bytes), {"name": digests[digest], "digest": digest}, by_id)
    counts = _Counts.of(len(paths), read, runs)
    manifest = _manifest(submission_id, runs, counts.description(findings), run_files)
    manifest["logs_sha256"] = {f: sha256_hex((out / f).read_bytes()) for f in run_files}
    (out / "submission.yaml").write_bytes(yaml_bytes(kept_manifest(out, manifest)))
    errors_found = [f for f in findings if f.severity == "error"]
    for f in sorted(findings):
        print(f.render())
    kept = "" if kept_prereg is None else "; the existing prereg.yaml was kept"
    print(f"{out}: {len(runs)} run(s) {counts.summary()}; {len(errors_found)} finding(s){kept}")
    return 1 if errors_found else 0


def _write_prereg(out: Path, kept: bytes | None, runs: list[EpochRun], digest: str) -> bytes:
    """Create `out` and write its pre-registration, unless one is kept; returns the pre-registration's bytes."""
    prereg_bytes = kept if kept is not None else yaml_bytes(_prereg(out.name, runs, digest))
    out.mkdir(parents=True, exist_ok=True)
    if kept is None:
        (out / "prereg.yaml").write_bytes(prereg_bytes)
    return prereg_bytes


@dataclass(frozen=True)
class _Counts:
    """Logs given; samples read, imported and imported in full."""

    logs: int
    read: int
    imported: int
    full: int

    @classmethod
    def of(cls, logs: int, read: int, runs: list[EpochRun]) -> _Counts:
        """The counts of an import that read `read` samples from `logs` logs into `runs`."""
        return cls(logs, read, sum(len(r.samples) for r in runs),
                   sum(1 for r in runs for s in r.samples if not s.ended_early))

    def summary(self) -> str:
        """`from N log(s); samples: ...` as the import prints it."""
        return (f"from {self.logs} log(s); samples: {self.read} read, {self.imported} imported ({self.full} in full), "
                f"{self.read - self.imported} not imported")

    def description(self, findings: list[Finding]) -> str:
        """The manifest's description: what was read and imported, and every finding."""
        note = "" if not findings else " Import findings: " + " | ".join(f.render() for f in sorted(findings))
        return (f"Imported with `driftboard import inspect` from {self.logs} Inspect log(s): {self.read} sample(s) "
                f"read, {self.imported} imported ({self.full} in full).{note}")


def _problem_sets(problems: Path) -> tuple[dict[str, Problem], dict[str, str]]:
    """(problems by id, set digest -> set name) of the `--problems` folder.

    Raises:
        UsageError: the folder holds invalid problems.
    """
    loaded, errors = load_problems([problems])
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors))
    sets = sets_of(loaded, problems.name or "problems")
    return {p.problem_id: p for p in loaded}, {s.digest: s.name for s in sets}


def _one_problem_set(runs: list[EpochRun]) -> str:
    """The digest of the problem set every run used.

    Raises:
        UsageError: two logs hold the same (model, method, epoch), or the logs used different problem sets.
    """
    keys: dict[tuple[str, str, int], Path] = {}
    for run in runs:
        key = (run.model, run.method, run.epoch)
        if key in keys:
            raise UsageError(f"{keys[key]} and {run.log} both hold epoch {run.epoch} of {run.model}/{run.method}; "
                             "import one of them (after `inspect eval-retry`, the retried log)")
        keys[key] = run.log
    digest = str(runs[0].source.problem_set["digest"])
    if any(r.source.problem_set["digest"] != digest for r in runs):
        raise UsageError("the logs used different problem sets; import each set into its own submission")
    return digest


def _prereg(submission_id: str, runs: list[EpochRun], digest: str) -> dict[str, object]:
    """A pre-registration declaring every (model, method) cell with its epochs as seeds."""
    cells: dict[str, dict[str, object]] = {}
    seeds: dict[str, list[str]] = {}
    for run in runs:
        cell = f"{run.model}/{run.method}"
        if cell not in cells:
            seeds[cell] = []
            cells[cell] = {"flags": {"model": run.model, "method": run.method}, "seeds": seeds[cell]}
        seeds[cell].append(f"epoch{run.epoch}")
    return {"format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "constraint",
            "profile": "driftboard", "cells": dict(sorted(cells.items())), "problem_set": digest}


def _line_of(text: str, key: str) -> int | None:
    """The line of the first top-level `key:` in a YAML text (None: absent)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(f"{key}:"):
            return number
    return None


def prereg_disagreements(path: Path, kept: bytes, runs: list[EpochRun], digest: str, name: str) -> list[Finding]:
    """Where the kept pre-registration disagrees with the imported runs: another problem set, an undeclared cell or seed.

    Each is an error finding at `prereg.yaml:line` (the import exits 1; the runs are written all the same,
    and `driftboard verify` will not rank them against that pre-registration).
    """
    import yaml

    text = kept.decode("utf-8", errors="replace")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return [Finding(str(path), mark.line + 1 if mark else None, f"not readable YAML ({exc}); fix it before importing")]
    if not isinstance(data, dict):
        return [Finding(str(path), None, "not a YAML mapping; write it with `driftboard init`")]
    out: list[Finding] = []
    declared = data.get("problem_set")
    if declared != digest:
        out.append(Finding(str(path), _line_of(text, "problem_set"),
                           f"problem_set is {declared}, but the logs ran on {name} ({digest}): import the logs of "
                           "the pre-registered set, or pre-register this one (`driftboard problems digest DIR`) "
                           "before running"))
    raw_cells = data.get("cells")
    cells: dict[object, object] = raw_cells if isinstance(raw_cells, dict) else {}
    for cell, seed in sorted({(f"{r.model}/{r.method}", f"epoch{r.epoch}") for r in runs}):
        spec = cells.get(cell)
        seeds = spec.get("seeds") if isinstance(spec, dict) else None
        if spec is None:
            out.append(Finding(str(path), _line_of(text, "cells"),
                               f"the logs hold cell {cell!r}, which the pre-registration does not declare (declared: "
                               f"{', '.join(map(str, cells)) or 'none'}): run the declared model and method"))
        elif isinstance(seeds, list) and seed not in seeds:
            out.append(Finding(str(path), _line_of(text, "cells"),
                               f"the logs hold seed {seed!r} of cell {cell!r}, which the pre-registration does not "
                               f"declare (declared: {', '.join(map(str, seeds))}): run --epochs {len(seeds)}"))
    return out


def _write_runs(out: Path, runs: list[EpochRun], prereg_sha: str, problem_set: dict[str, str],
                by_id: dict[str, Problem]) -> list[str]:
    """Write one run log per (model, method, epoch), in that order; returns their paths in the submission."""
    run_files: list[str] = []
    used: set[str] = set()
    submission_id = out.name
    for run in sorted(runs, key=lambda r: (r.model, r.method, r.epoch)):
        stem = unique(f"{slug(run.model)[:50]}--{slug(run.method)[:30]}--epoch{run.epoch}", used)
        rel = f"runs/{stem}.jsonl"
        run_files.append(rel)
        start: dict[str, object] = {
            "run_id": f"{submission_id}--{stem}", "submission_id": submission_id, "track": "constraint",
            "cell": f"{run.model}/{run.method}", "seed": f"epoch{run.epoch}", "backbone": run.model,
            "prereg_sha256": prereg_sha, "started_at": iso_utc(run.source.created), "method": run.method,
            "problem_set": dict(problem_set), "source": _source(run),
        }
        _write_run(out / rel, start, run, by_id)
    return run_files


def _manifest(submission_id: str, runs: list[EpochRun], description: str, run_files: list[str]) -> dict[str, object]:
    models = sorted({r.model for r in runs})
    commit_id = str(runs[0].source.revision.get("commit") or "")
    return {
        "format_version": FORMAT_VERSION, "id": submission_id,
        "title": f"{', '.join(models)} on the constraint track (Inspect AI)",
        "authors": [{"name": "FILL IN: submitter"}], "contact": "FILL IN: e-mail or URL",
        "track": "constraint", "system": f"Inspect AI task {TASK_NAME} (protocol {PROTOCOL_VERSION})",
        "backbone": models[0] if len(models) == 1 else "multiple (see each run)",
        "harness": {"name": "driftboard/constraint on inspect_ai",
                    "version": f"inspect_ai {runs[0].source.inspect_ai}",
                    "commit": commit_id if re.fullmatch(r"[0-9a-f]{7,64}", commit_id) else "0000000",
                    "url": "https://inspect.aisi.org.uk/"},
        "license": "FILL IN: licence of the logs, e.g. CC-BY-4.0",
        "description": description,
        "files": run_files, "claims": [],
    }


def _write_run(path: Path, start: dict[str, object], run: EpochRun, by_id: dict[str, Problem]) -> None:
    ended = [f"{s.problem_id}: {s.ended_early}" for s in run.samples if s.ended_early]
    try:
        log = RunLogWriter(path, start)
        for sample in sorted(run.samples, key=lambda s: s.problem_id):
            problem = by_id[sample.problem_id]
            log.write({"type": "problem_start", "problem_id": sample.problem_id, "domain": problem.domain,
                       "n_turns": len(problem.turns)})
            for turn in sample.turns:
                log.write(dict(turn))
        if run.status in ("started", "cancelled"):
            log.close()  # the eval did not finish: no run_end, so the run is INCOMPLETE
            return
        if run.status == "error":
            log.end("FAILED", f"the eval stopped on an error: {first_line(run.error)}".rstrip(": "))
        elif ended:
            log.end("FAILED", f"{len(ended)} sample(s) ended early: " + "; ".join(ended)[:1000])
        else:
            log.end("COMPLETED", "every sample of the epoch finished")
        log.close()
    except ValidationError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(format_validation_error(exc))}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {exc}") from None



def _source(run: EpochRun) -> dict[str, object]:
    """The run's `source` field (its `details` keep the epoch's usage and the samples' UUIDs)."""
    return {
        "importer": IMPORTER, "files": run.source.files, "native_run_id": f"{run.source.eval_id}/epoch{run.epoch}",
        "details": {"inspect": run.source.inspect, **run.source.details, "epoch": run.epoch,
                    "usage": dict(sorted(run.usage.items())),
                    "sample_uuids": {s.problem_id: s.uuid for s in run.samples}},
    }


__all__ = ["IMPORTER", "import_logs", "import_submission"]
