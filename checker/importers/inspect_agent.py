"""Import Inspect AI eval logs of the `driftboard/agent` task into a canonical agent-track submission.

One run is written per game x condition x epoch: cell = the condition (FULL, J0, A0, J0A0, BARE),
seed = `<game>-epoch<N>`, backbone = the model as Inspect recorded it. A log holds no evidence of
its own: each sample is **replayed** through the harness (`checker.harness.inspect_task.agent_harness`)
with the sample's model events (Inspect's record of each organ call: its prompt and the output)
answering the organ calls in order. The micro-world, the store, the planner, the landings,
receipts, captures, canaries, rejects, levels and milestones are the harness's and the
environment's again, so the run is what the harness writes when given those outputs; each
recorded prompt must be the one the harness sends at that point (a model that was sent anything
else — a tampered log, another harness version — stops the replay there).

A replay that stops early (an errored sample, a limit, a prompt that differs, calls left over)
keeps the beats it finished and ends FAILED; verify then says INCOMPLETE. Every sample read ends
up in a run, or in a finding that says why not. The same logs give the same bytes, in any order;
a `prereg.yaml` already in `out` is kept (else a stub is written, marked `written_after_runs`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.format.errors import Finding, UsageError
from checker.format.logio import RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.harness.baselines.common import run_sync
from checker.harness.inspect_task.agent_harness import Episode, Replay, ReplayStop, Reply, reply_from
from checker.harness.inspect_task.agent_protocol import (
    COMPARATOR,
    CONDITIONS,
    GAME_ID,
    PROTOCOL_VERSION,
    TASK_NAME,
    Messages,
    game_seed,
    seed_label,
)
from checker.importers.inspect_read import add_usage, dump, first_line, read_log
from checker.importers.output import iso_utc, kept_manifest, out_state, yaml_bytes

IMPORTER = "inspect-agent@1"


@dataclass
class AgentRun:
    """One sample (a game in an epoch) of one log, replayed."""

    log: Path
    model: str
    condition: str
    game: str
    epoch: int
    horizon: int
    source: dict[str, Any]
    """The log's record shared by its runs (kept in `source.details`)."""
    events: list[dict[str, object]] = field(default_factory=list)
    stop: str | None = None
    """Why the replay stopped before the horizon or the sample ended badly (None: complete)."""
    status: str = "success"
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """This sample's own provenance (uuid, usage, model calls)."""

    @property
    def order(self) -> tuple[int, int, int]:
        """Sort key: condition (FULL, J0, A0, J0A0, BARE), game, epoch."""
        return list(CONDITIONS).index(self.condition), game_seed(self.game), self.epoch


def import_agent_submission(logs: Sequence[Path], out: Path) -> int:
    """Write `out/` (prereg.yaml unless kept, runs/*.jsonl, submission.yaml) from logs of `driftboard/agent`.

    Returns 0 when every sample was imported in full, 1 when findings say some were not.

    Raises:
        UsageError: unreadable logs, an unusable `out`, logs of several models or horizons, the
            same game, condition and epoch twice, or nothing to import.
    """
    kept = out_state(out)
    paths = sorted({Path(p) for p in logs}, key=lambda p: (p.name, p.as_posix()))
    runs: list[AgentRun] = []
    findings: list[Finding] = []
    read = 0
    for path in paths:
        log = read_log(path)
        read += len(log.samples or [])
        runs += _log_runs(path, log, findings)
    if not runs:
        detail = "\n".join(f.render() for f in findings)
        raise UsageError("nothing to import" + (f":\n{detail}" if detail else ""))
    _consistent(runs)
    prereg_bytes = kept if kept is not None else yaml_bytes(_prereg(out.name, runs))
    out.mkdir(parents=True, exist_ok=True)
    if kept is None:
        (out / "prereg.yaml").write_bytes(prereg_bytes)
    files = _write_runs(out, sorted(runs, key=lambda r: r.order), sha256_hex(prereg_bytes))
    full = sum(1 for r in runs if r.stop is None)
    note = "" if not findings else " Import findings: " + " | ".join(f.render() for f in sorted(findings))
    description = (f"Imported with `driftboard import inspect` from {len(paths)} Inspect log(s) of {TASK_NAME}: "
                   f"{read} sample(s) read, {len(runs)} imported ({full} in full), each replayed through the "
                   f"harness (protocol {PROTOCOL_VERSION}).{note}")
    manifest = _manifest(out.name, runs, description, files)
    manifest["logs_sha256"] = {f: file_sha256(out / f) for f in files}
    (out / "submission.yaml").write_bytes(yaml_bytes(kept_manifest(out, manifest)))
    errors = [f for f in findings if f.severity == "error"]
    for f in sorted(findings):
        print(f.render())
    kept_note = "" if kept is None else "; the existing prereg.yaml was kept"
    print(f"{out}: {len(runs)} run(s) from {len(paths)} log(s); samples: {read} read, {len(runs)} imported "
          f"({full} in full), {read - len(runs)} not imported; {len(errors)} finding(s){kept_note}")
    return 1 if errors else 0


def _log_runs(path: Path, log: Any, findings: list[Finding]) -> list[AgentRun]:
    """The log's samples replayed, or a finding that says why the log is not imported."""
    spec = log.eval
    task = spec.task_registry_name or spec.task
    meta = (spec.metadata or {}).get("driftboard")
    meta = meta if isinstance(meta, dict) else {}
    n = len(log.samples or [])
    condition, version, horizon = meta.get("condition"), meta.get("protocol_version"), meta.get("horizon")
    if task != TASK_NAME:
        findings.append(Finding(path.name, None, f"log of task {task!r}, not {TASK_NAME}: skipped ({n} sample(s))"))
        return []
    if version != PROTOCOL_VERSION or condition not in CONDITIONS or not isinstance(horizon, int) or horizon < 1:
        findings.append(Finding(path.name, None, f"protocol version {version!r} / condition {condition!r} / horizon "
                                                 f"{horizon!r}: this checker imports version {PROTOCOL_VERSION!r} of "
                                                 f"{', '.join(CONDITIONS)}; skipped ({n} sample(s))"))
        return []
    if log.samples is None:
        findings.append(Finding(path.name, None, "the log holds no samples (run with --no-log-samples?): nothing to import"))
        return []
    source = _source(path, log, meta)
    runs = []
    for sample in sorted(log.samples, key=lambda s: (str(s.id), s.epoch)):
        where = f"sample {sample.id!r} epoch {sample.epoch}"
        try:
            game_seed(str(sample.id))
        except ValueError as exc:
            findings.append(Finding(path.name, None, f"{where}: {exc}; not imported"))
            continue
        run = AgentRun(path, spec.model, str(condition), str(sample.id), int(sample.epoch), horizon, source,
                       status=log.status, error=log.error.message if log.error else None)
        _replay(run, sample)
        if sample.error_retries:
            findings.append(Finding(path.name, None, f"{where}: {len(sample.error_retries)} earlier attempt(s) ended "
                                                     "in an error and were retried; only the last attempt is in the log",
                                    severity="warning"))
        if run.stop:
            findings.append(Finding(path.name, None, f"{where}: {run.stop}"))
        runs.append(run)
    return runs


def _messages(call: Any) -> Messages:
    return [(str(m.role), str(getattr(m, "text", "") or "")) for m in call.input]


def _replay(run: AgentRun, sample: Any) -> None:
    """Replay the sample's model calls through the harness into `run.events` (complete beats only)."""
    calls = [e for e in sample.events if getattr(e, "event", None) == "model" and e.error is None]
    recorded: list[tuple[Messages, Reply]] = [(_messages(c), reply_from(c.output.completion, c.output.usage))
                                              for c in calls]
    replay = Replay(recorded)
    episode = Episode(run.condition, run.game, run.epoch, run.horizon, sample.uuid or "", run.events.append, replay)
    try:
        run_sync(episode.run())
    except ReplayStop as exc:
        beat = episode.turn
        run.events[:] = [e for e in run.events if beat > 0 and _turn(e) < beat]
        run.stop = f"replay stopped at beat {beat} of {run.horizon}: {exc}; {max(beat - 1, 0)} beat(s) imported"
    else:
        if replay.i < len(recorded):
            run.stop = (f"{len(recorded) - replay.i} model call(s) after the last beat, outside the protocol; "
                        "the run ends FAILED")
    if sample.error is not None:
        run.stop = f"error: {first_line(sample.error.message)}" + (f"; {run.stop}" if run.stop else "")
    elif sample.limit is not None:
        run.stop = f"{sample.limit.type} limit reached" + (f"; {run.stop}" if run.stop else "")
    usage: dict[str, int] = {}
    for u in sample.model_usage.values():
        add_usage(usage, u)
    run.details = {"epoch": run.epoch, "game": run.game, "world_seed": game_seed(run.game),
                   "sample_uuid": sample.uuid, "model_calls": len(recorded), "model_calls_replayed": replay.i,
                   "usage": dict(sorted(usage.items()))}


def _turn(event: dict[str, object]) -> int:
    turn = event.get("turn", 0)
    return turn if isinstance(turn, int) else 0


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def _source(path: Path, log: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """What every run of the log keeps in `source`: the log's file and digest, and Inspect's record of the eval."""
    spec = log.eval
    inspect_info = {
        "log_format_version": log.version, "inspect_ai": spec.packages.get("inspect_ai"), "status": log.status,
        "eval_id": spec.eval_id, "run_id": spec.run_id, "task_id": spec.task_id,
        "task": spec.task_registry_name or spec.task, "task_version": spec.task_version,
        "task_args": _jsonable(spec.task_args), "created": spec.created, "epochs": spec.config.epochs,
        "revision": dump(spec.revision),
    }
    return {
        "files": {path.name: file_sha256(path)}, "eval_id": spec.eval_id, "created": spec.created,
        "inspect_ai": spec.packages.get("inspect_ai"), "revision": dump(spec.revision) or {},
        "details": {"inspect": inspect_info, "model": spec.model, "provider": spec.model.split("/", 1)[0],
                    "model_base_url": spec.model_base_url, "model_args": _jsonable(spec.model_args or {}),
                    "generate_config": dump(log.plan.config),
                    "model_generate_config": dump(spec.model_generate_config), "task_parameters": _jsonable(meta)},
    }


def _consistent(runs: list[AgentRun]) -> None:
    """One model, one horizon, each (condition, game, epoch) once.

    Raises:
        UsageError: otherwise.
    """
    models = sorted({r.model for r in runs})
    if len(models) > 1:
        raise UsageError(f"the logs hold runs of {len(models)} models ({', '.join(models)}): the cells are the "
                         "conditions, so import each model into its own submission")
    horizons = sorted({r.horizon for r in runs})
    if len(horizons) > 1:
        raise UsageError(f"the logs use horizons {', '.join(map(str, horizons))}: a submission pre-registers one")
    seen: dict[tuple[str, str, int], Path] = {}
    for r in runs:
        key = (r.condition, r.game, r.epoch)
        if key in seen:
            raise UsageError(f"{seen[key]} and {r.log} both hold {r.condition} {seed_label(r.game, r.epoch)}; import "
                             "one of them (after `inspect eval-retry`, the retried log)")
        seen[key] = r.log


def _prereg(submission_id: str, runs: list[AgentRun]) -> dict[str, object]:
    """A stub pre-registration: every condition imported, its game x epoch seeds, the horizon."""
    cells: dict[str, dict[str, object]] = {}
    for run in sorted(runs, key=lambda r: r.order):
        cell = cells.setdefault(run.condition, {"flags": dict(CONDITIONS[run.condition]), "seeds": [],
                                                "comparator": run.condition == COMPARATOR})
        seeds = cell["seeds"]
        assert isinstance(seeds, list)
        seeds.append(seed_label(run.game, run.epoch))
    return {"format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "agent",
            "profile": "driftboard", "cells": cells, "horizon": runs[0].horizon, "written_after_runs": True}


def _write_runs(out: Path, runs: list[AgentRun], prereg_sha: str) -> list[str]:
    files = []
    for run in runs:
        stem = f"{run.condition.lower()}--{run.game}--epoch{run.epoch}"
        rel = f"runs/{stem}.jsonl"
        files.append(rel)
        src = run.source
        start: dict[str, object] = {
            "run_id": f"{out.name}--{stem}", "submission_id": out.name, "track": "agent", "cell": run.condition,
            "seed": seed_label(run.game, run.epoch), "flags": dict(CONDITIONS[run.condition]), "backbone": run.model,
            "prereg_sha256": prereg_sha, "started_at": iso_utc(src["created"]),
            "comparator": run.condition == COMPARATOR, "horizon": run.horizon, "game_id": f"{GAME_ID}/{run.game}",
            "source": {"importer": IMPORTER, "files": src["files"],
                       "native_run_id": f"{src['eval_id']}/{run.game}/epoch{run.epoch}",
                       "details": {**src["details"], **run.details}},
        }
        _write_run(out / rel, start, run)
    return files


def _write_run(path: Path, start: dict[str, object], run: AgentRun) -> None:
    try:
        log = RunLogWriter(path, start)
        for event in run.events:
            log.write(event)
        if run.status in ("started", "cancelled"):
            log.close()  # the eval did not finish: no run_end, so the run is INCOMPLETE
            return
        if run.status == "error" and run.stop is None:
            log.end("FAILED", f"the eval stopped on an error: {first_line(run.error)}".rstrip(": "))
        elif run.stop is not None:
            log.end("FAILED", run.stop[:1000])
        else:
            log.end("COMPLETED", "horizon reached")
        log.close()
    except ValidationError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(format_validation_error(exc))}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {exc}") from None


def _manifest(submission_id: str, runs: list[AgentRun], description: str, files: list[str]) -> dict[str, object]:
    model = runs[0].model
    commit_id = str(runs[0].source["revision"].get("commit") or "")
    return {
        "format_version": FORMAT_VERSION, "id": submission_id,
        "title": f"{model} on the agent track (Inspect AI)",
        "authors": [{"name": "FILL IN: submitter"}], "contact": "FILL IN: e-mail or URL",
        "track": "agent", "system": f"Inspect AI task {TASK_NAME} (protocol {PROTOCOL_VERSION})", "backbone": model,
        "harness": {"name": "driftboard/agent on inspect_ai", "version": f"inspect_ai {runs[0].source['inspect_ai']}",
                    "commit": commit_id if re.fullmatch(r"[0-9a-f]{7,64}", commit_id) else "0000000",
                    "url": "https://inspect.aisi.org.uk/"},
        "license": "FILL IN: licence of the logs, e.g. CC-BY-4.0",
        "description": description, "files": files, "claims": [],
    }


__all__ = ["IMPORTER", "AgentRun", "import_agent_submission"]
