"""Import τ-bench trajectories (a run results JSON file) into a canonical completion-track submission.

Source: a JSON array of τ-bench `EnvRunResult` objects (`{task_id, trial, reward, info, traj}`), as
`sierra-research/tau-bench` writes them (its `historical_trajectories/<model>-<domain>.json`). Each
trajectory becomes one run (one episode), seed label `task<id>-trial<n>` (`task007-trial2`), in the
cell `<model>/tool-calling`:

* `episode_start` (domain, task id), then every message of `traj` in order: the system prompt, the
  user's and the assistant's messages (`message`), each assistant tool call (`tool_call`, arguments
  parsed from their JSON string) and the tool's answer as logged (`tool_result`);
* `episode_end` with what τ-bench recorded (`info.source`, the reward, `gt_data_hash`, the outputs
  check): claims the checker recomputes, never inputs;
* provenance in `run_start.source`: the importer, the source file's SHA-256, the entry, and in
  `details` the upstream repository, commit, path and git blob of a known file, the model, the task
  id and the trial.

The task set (`problems/tau-bench-<domain>`, `checker.completion.tasks`) must hold the task each
trajectory embeds (`info.task`), exactly. Nothing is written unless every trajectory converts: an
unreadable file or one that is not a JSON array is a usage error (exit 2); a trajectory that does
not parse, an unknown tool, a tool call whose arguments are not a JSON object, or a task that is not
the task set's is a finding (exit 1), all of them listed. The output is byte-identical for the same
input (no clock is read: `started_at` is the epoch, as the file records no time).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.completion.tasks import DESCRIPTOR, TaskSet, load_task_set
from checker.format.cost import gc_paused
from checker.format.errors import DriftboardError, UsageError
from checker.format.logio import EventError, RunLogWriter, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN
from checker.format.seeds import seed_label

IMPORTER = "tau-bench@1"
EPOCH = "1970-01-01T00:00:00Z"
REPOSITORY = "https://github.com/sierra-research/tau-bench"
AGENT = "tool-calling"
"""τ-bench's agent strategy of these trajectories (its README's "TC")."""
PAPER = "https://arxiv.org/abs/2406.12045"
CITATION = ("Shunyu Yao, Noah Shinn, Pedram Razavi, Karthik Narasimhan. τ-bench: A Benchmark for Tool-Agent-User "
            "Interaction in Real-World Domains. arXiv:2406.12045, 2024. Trajectories and environment data from "
            "https://github.com/sierra-research/tau-bench, MIT licence, Copyright (c) 2024 Sierra.")


@dataclass(frozen=True)
class KnownFile:
    """An upstream file recognised by its SHA-256: where it comes from."""

    path: str
    commit: str
    """The upstream commit that added it."""
    git_blob: str
    model: str
    domain: str


KNOWN: dict[str, KnownFile] = {
    "e9e6c0297660c537f83d4fd9c476ce7a9a86ecd2784874b7bfc13be598e37bfa": KnownFile(
        "historical_trajectories/gpt-4o-airline.json", "7362a1708d720a4d697d042f21fd8637ea144c3b",
        "a5f0d91569e740b949b37a181993b3f1822a86f4", "gpt-4o", "airline"),
}
"""SHA-256 -> provenance of the τ-bench files whose origin is known (upstream `git log`)."""
ROLES = ("system", "user", "assistant", "tool")
MAX_FINDINGS = 50
"""Findings listed before the rest are counted."""


class ImportFindings(DriftboardError):
    """Trajectories that cannot be converted (exit 1); nothing was written."""

    def __init__(self, findings: list[str]) -> None:
        shown = findings[:MAX_FINDINGS]
        more = f"\n... and {len(findings) - MAX_FINDINGS} more" if len(findings) > MAX_FINDINGS else ""
        super().__init__(f"{len(findings)} problem(s); nothing was written:\n" + "\n".join(shown) + more)
        self.findings = findings


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _yaml(data: dict[str, Any]) -> bytes:
    return yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False).encode("utf-8")


def git_blob(data: bytes) -> str:
    """The git blob id of a file's bytes (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@dataclass
class Episode:
    """One trajectory, converted: its task, trial, canonical events and what τ-bench recorded."""

    entry: int
    task_id: int
    trial: int
    events: list[dict[str, Any]]
    user_cost: float | None


def _task_view(task: Any) -> dict[str, Any]:
    """The embedded task in the task set's shape (for the equality check)."""
    if not isinstance(task, dict):
        return {}
    return {k: task.get(k) for k in ("user_id", "instruction", "actions", "outputs")}


def convert(entry: Any, index: int, task_set: TaskSet, where: str) -> tuple[Episode | None, list[str]]:
    """One trajectory as canonical events, or the problems that stop it (each `where: entry i (...): what`)."""
    problems: list[str] = []
    if not isinstance(entry, dict):
        return None, [f"{where}: entry {index}: not a JSON object (a trajectory is {{task_id, trial, reward, info, traj}})"]
    task_id, trial = _int(entry.get("task_id")), _int(entry.get("trial"))
    label = f"{where}: entry {index}" + (f" (task {task_id}, trial {trial})" if task_id is not None and trial is not None else "")

    def bad(text: str) -> None:
        problems.append(f"{label}: {text}")

    info, traj = entry.get("info"), entry.get("traj")
    if task_id is None or trial is None:
        bad("task_id and trial must be non-negative integers")
    if not isinstance(info, dict):
        bad("info is not an object")
        info = {}
    if not isinstance(traj, list) or not traj:
        error = info.get("error") if isinstance(info, dict) else None
        bad("traj is empty or not a list" + (f" (the harness recorded an error: {str(error)[:200]})" if error else ""))
        return None, problems
    if task_id is not None and task_id not in task_set.tasks:
        bad(f"task {task_id} is not in the task set {task_set.name!r} ({len(task_set.tasks)} tasks)")
    elif task_id is not None:
        task = task_set.tasks[task_id]
        wanted = {"user_id": task.user_id, "instruction": task.instruction,
                  "actions": [{"name": a.name, "kwargs": a.kwargs} for a in task.actions], "outputs": list(task.outputs)}
        if _task_view(info.get("task")) != wanted:
            bad(f"the embedded task (info.task) differs from task {task_id} of the task set {task_set.name!r}: "
                "the trajectory ran another task")
    events: list[dict[str, Any]] = [{"type": "episode_start", "domain": task_set.domain.name, "task_id": task_id or 0}]
    pending: dict[str, Any] | None = None
    for i, m in enumerate(traj):
        at = f"traj[{i}]"
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            bad(f"{at}: not a message with a role ({', '.join(ROLES)})")
            continue
        content = m.get("content")
        if content is not None and not isinstance(content, str):
            bad(f"{at}: content is not a string or null")
            continue
        role = m["role"]
        if role == "tool":
            if pending is None:
                bad(f"{at}: a tool message that answers no tool call")
                continue
            if m.get("tool_call_id") != pending["call_id"] or m.get("name") != pending["name"]:
                bad(f"{at}: the tool message answers {m.get('name')!r} ({m.get('tool_call_id')}), the call was "
                    f"{pending['name']!r} ({pending['call_id']})")
            if not isinstance(content, str):
                bad(f"{at}: a tool message without content")
                continue
            events.append({"type": "tool_result", "call_id": pending["call_id"], "name": pending["name"],
                           "content": content})
            pending = None
            continue
        if pending is not None:
            bad(f"{at}: the tool call of the message before has no tool message")
            pending = None
        events.append({"type": "message", "role": role, "content": content})
        calls = m.get("tool_calls")
        if role != "assistant" or not calls:
            continue
        if not isinstance(calls, list) or len(calls) != 1:
            bad(f"{at}: tool_calls must hold exactly one call (τ-bench runs and logs the first only)")
            continue
        call = calls[0]
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(call.get("id"), str) or not call["id"]:
            bad(f"{at}: a tool call without an id and a function")
            continue
        name, raw = fn.get("name"), fn.get("arguments")
        if not isinstance(name, str) or name not in task_set.domain.tools:
            bad(f"{at}: unknown tool {name!r} (the {task_set.domain.name} tools are: "
                f"{', '.join(sorted(task_set.domain.tools))})")
            continue
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else None
        except (ValueError, RecursionError):
            arguments = None
        if not isinstance(arguments, dict):
            bad(f"{at}: malformed arguments for {name}: {str(raw)[:120]!r} is not a JSON object")
            continue
        pending = {"call_id": call["id"], "name": name}
        events.append({"type": "tool_call", "call_id": call["id"], "name": name, "arguments": arguments})
    if pending is not None:
        bad("the last tool call has no tool message")
    reward_info = info.get("reward_info")
    recorded = reward_info.get("info") if isinstance(reward_info, dict) else None
    recorded = recorded if isinstance(recorded, dict) else {}
    reward = entry.get("reward")
    gt = recorded.get("gt_data_hash")
    outputs = recorded.get("outputs")
    source = info.get("source")
    events.append({
        "type": "episode_end", "source": source if isinstance(source, str) else None,
        "reward": float(reward) if isinstance(reward, int | float) and not isinstance(reward, bool) else None,
        "data_hash": gt if isinstance(gt, str) and re.fullmatch(r"[0-9a-f]{64}", gt) else None,
        "outputs": outputs if isinstance(outputs, dict) and all(isinstance(v, bool) for v in outputs.values()) else None,
        "error": info.get("error") if isinstance(info.get("error"), str) else None,
    })
    if problems or task_id is None or trial is None:
        return None, problems
    cost = info.get("user_cost")
    return Episode(index, task_id, trial, events, float(cost) if isinstance(cost, int | float) and not
                   isinstance(cost, bool) else None), problems


def read_source(src: Path) -> tuple[bytes, list[Any]]:
    """The file's bytes and its JSON array.

    Raises:
        UsageError: the file cannot be read, is not JSON, or is not an array.
    """
    try:
        data = src.read_bytes()
    except OSError as exc:
        raise UsageError(f"{src}: cannot read ({exc.strerror or exc})") from None
    try:
        with gc_paused():  # linear in the file's size (checker.format.cost)
            parsed = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{src}: not valid JSON ({exc})") from None
    if not isinstance(parsed, list):
        raise UsageError(f"{src}: expected a JSON array of τ-bench run results")
    if not parsed:
        raise UsageError(f"{src}: the array holds no trajectory")
    return data, parsed


def _model_of(src: Path, known: KnownFile | None, domain: str) -> str:
    if known is not None:
        return known.model
    stem = src.stem
    return stem[: -len(domain) - 1] if stem.endswith(f"-{domain}") and len(stem) > len(domain) + 1 else stem


def _shown(path: Path) -> str:
    """A path as the manifest's import command shows it: as given when relative, else its name."""
    return path.name if path.is_absolute() else path.as_posix()


def import_submission(src: Path, domain: str, out: Path, problems: Path | None = None,
                      source_commit: str | None = None) -> int:
    """Write `out/` (prereg.yaml, runs/*.jsonl, submission.yaml) from a τ-bench trajectories file.

    Raises:
        UsageError: bad arguments, an unreadable file or task set, or a non-empty `out`.
        ImportFindings: trajectories that cannot be converted (listed; nothing is written).
    """
    submission_id = out.name
    if not re.fullmatch(SUBMISSION_ID_PATTERN, submission_id):
        raise UsageError(f"{out}: the folder name must be a submission id ({SUBMISSION_ID_PATTERN})")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: already exists and is not empty; choose a new folder")
    folder = problems if problems is not None else Path("problems") / f"tau-bench-{domain}"
    if not (folder / DESCRIPTOR).is_file():
        raise UsageError(f"{folder}: no task set here (no {DESCRIPTOR}); give the task set folder with --problems")
    task_set = load_task_set(folder)
    if task_set.domain.name != domain:
        raise UsageError(f"{folder}: the task set is of domain {task_set.domain.name!r}, not {domain!r}")
    data, entries = read_source(src)
    digest = hashlib.sha256(data).hexdigest()
    known = KNOWN.get(digest)
    if known is not None and known.domain != domain:
        raise UsageError(f"{src}: this file holds {known.domain} trajectories, not {domain}")
    commit = source_commit or (known.commit if known is not None else None)
    if commit is None or not re.fullmatch(r"[0-9a-f]{7,64}", commit):
        raise UsageError(f"{src}: unknown file (SHA-256 {digest}); give the τ-bench commit it comes from with "
                         "--source-commit (7-64 hex characters)")
    model = _model_of(src, known, domain)
    where = _shown(src)
    episodes: list[Episode] = []
    findings: list[str] = []
    for i, entry in enumerate(entries):
        ep, problems_found = convert(entry, i, task_set, where)
        findings.extend(problems_found)
        if ep is not None:
            episodes.append(ep)
    seen: dict[tuple[int, int], int] = {}
    for ep in episodes:
        first = seen.setdefault((ep.task_id, ep.trial), ep.entry)
        if first != ep.entry:
            findings.append(f"{where}: entry {ep.entry}: task {ep.task_id}, trial {ep.trial} is also entry {first}")
    if findings:
        raise ImportFindings(findings)
    episodes.sort(key=lambda e: (e.task_id, e.trial))
    cell = f"{model}/{AGENT}"
    seeds = [seed_label(e.task_id, e.trial) for e in episodes]
    trials = sorted({e.trial for e in episodes})
    tasks = sorted({e.task_id for e in episodes})
    prereg = {
        "format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "completion", "profile": "driftboard",
        "cells": {cell: {"flags": {"model": model, "agent": AGENT, "domain": domain}, "seeds": seeds,
                         "description": (f"{model} as τ-bench's tool-calling agent on the {domain} tasks: "
                                         f"{len(tasks)} task(s) x {len(trials)} trial(s), one episode per seed")}},
        "problem_set": task_set.digest,
        "written_after_runs": True,  # the runs existed before this file: an import is not a pre-registration
    }
    out.mkdir(parents=True, exist_ok=True)
    prereg_bytes = _yaml(prereg)
    (out / "prereg.yaml").write_bytes(prereg_bytes)
    prereg_sha = sha256_hex(prereg_bytes)
    details_base = {"repository": REPOSITORY, "commit": commit,
                    "path": known.path if known is not None else src.name, "git_blob": git_blob(data), "model": model,
                    "domain": domain}
    run_files: list[str] = []
    for ep, seed in zip(episodes, seeds, strict=True):
        rel = f"runs/{seed}.jsonl"
        run_files.append(rel)
        start = {
            "run_id": f"{submission_id}--{seed}", "submission_id": submission_id, "track": "completion", "cell": cell,
            "seed": seed, "flags": {}, "backbone": model, "prereg_sha256": prereg_sha, "started_at": EPOCH,
            "method": AGENT, "problem_set": {"name": task_set.name, "digest": task_set.digest},
            "source": {"importer": IMPORTER, "files": {src.name: digest},
                       "native_run_id": f"entry {ep.entry} (task {ep.task_id}, trial {ep.trial})",
                       "details": {**details_base, "entry": ep.entry, "task_id": ep.task_id, "trial": ep.trial,
                                   "user_cost": ep.user_cost}},
        }
        _write_run(out / rel, start, ep.events)
    rewards = [e.get("reward") for e in entries if isinstance(e, dict)]
    recorded = [float(r) for r in rewards if isinstance(r, int | float) and not isinstance(r, bool)]
    command = (f"driftboard import tau-bench {_shown(src)} --domain {domain}"
               + (f" --problems {_shown(problems)}" if problems is not None else "") + f" --out submissions/{submission_id}")
    submission = {
        "format_version": FORMAT_VERSION, "id": submission_id,
        "title": f"τ-bench {domain}: {model} ({AGENT} agent), {len(tasks)} tasks x {len(trials)} trials",
        "authors": [{"name": "τ-bench authors", "affiliation": "Sierra"}],
        "contact": REPOSITORY, "track": "completion", "system": f"τ-bench {AGENT} agent",
        "backbone": model,
        "harness": {"name": "tau-bench", "version": commit[:7], "commit": commit, "url": REPOSITORY},
        "license": "MIT", "paper": PAPER, "citation": CITATION,
        "synthetic": False,  # a language model's own runs, recorded by the benchmark's harness
        "description": (
            f"{len(episodes)} trajectories of {model} recorded by τ-bench's harness on the {domain} domain "
            f"({src.name}, SHA-256 {digest}, upstream {known.path if known else src.name} at {commit[:7]}). "
            f"Imported with one command: `{command}`. Every episode is replayed on the task set "
            f"{task_set.name} (digest {task_set.digest}): each tool call is re-run and its result compared with the "
            "logged one, the task's gold actions are replayed on a fresh database, and the reward is recomputed from the "
            "two data hashes and the required outputs; the recorded rewards are claims, never read. The "
            "pre-registration was written by the importer after the runs (written_after_runs: true)."),
        "files": run_files,
        "claims": ([{"cell": cell, "metric": "verified", "value": sum(recorded) / len(recorded),
                     "source": f"mean recorded reward in {src.name} (τ-bench's pass^1)"}] if recorded else []),
    }
    (out / "submission.yaml").write_bytes(_yaml(submission))
    return 0


def _write_run(path: Path, start: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
    try:
        with RunLogWriter(path, start, flush=False) as log:  # written at once: one write per buffer
            for event in events:
                log.write(event)
            log.end("COMPLETED", "imported")
    except ValidationError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(format_validation_error(exc))}") from None
    except EventError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(exc.problems)}") from None
    except ValueError as exc:  # e.g. a lone surrogate: not encodable as UTF-8
        raise UsageError(f"{path}: cannot write a valid event: {exc}") from None


def tasks_json(entries: Sequence[Any]) -> bytes:
    """The task-set file `tasks.json` derived from a trajectories file: each task as its trajectories embed it.

    Raises:
        UsageError: the trajectories of one task embed different tasks, or task ids leave a gap.
    """
    tasks: dict[int, dict[str, Any]] = {}
    for i, entry in enumerate(entries):
        tid = _int(entry.get("task_id")) if isinstance(entry, dict) else None
        task = entry.get("info", {}).get("task") if isinstance(entry, dict) and isinstance(entry.get("info"), dict) else None
        if tid is None or not isinstance(task, dict):
            raise UsageError(f"entry {i}: no task_id or info.task")
        view = {"task_id": tid, **_task_view(task)}
        if tasks.setdefault(tid, view) != view:
            raise UsageError(f"entry {i}: task {tid} differs from another trajectory's task {tid}")
    if sorted(tasks) != list(range(len(tasks))):
        raise UsageError("task ids are not 0, 1, 2, ... without a gap")
    text = json.dumps([tasks[t] for t in sorted(tasks)], indent=2, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    """`python -m checker.importers.tau_bench tasks FILE`: print the `tasks.json` the trajectories embed."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "tasks":
        print("usage: python -m checker.importers.tau_bench tasks TRAJECTORIES.json", file=sys.stderr)
        return 2
    _data, entries = read_source(Path(args[1]))
    sys.stdout.buffer.write(tasks_json(entries))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
