"""Import Inspect AI eval logs of the `driftboard/constraint` task into a canonical submission.

Logs are read with Inspect's own reader (`inspect_ai.log.read_eval_log`: the binary `.eval`
format and JSON), so the `inspect` extra must be installed. One run is written per (model,
method, epoch): cell `<model>/<method>`, seed label `epoch<N>`, every sample of that epoch in
sample-id order. Nothing in the log is taken on trust that can be derived:

* every turn comes from the sample's **model events** (Inspect's record of each call: its input
  messages and its output). The main call of turn t must have been sent exactly the conversation
  the protocol (`checker.harness.inspect_task.protocol`) builds from the problem set; its output is the
  raw response, and the conversation's assistant message must be the same text;
* for ledger methods, the extraction call that follows must have been sent exactly the protocol's
  extraction prompt, and the ledger is re-derived from the extraction outputs (never read from a
  store the solver wrote);
* a turn whose main call was sent other constraints than the problem set's is written with the
  user message actually sent, so `driftboard verify` marks the run INVALID.

Every sample read ends up in a run, or in a finding that says why not (samples in = runs or
findings out): logs of other tasks, other protocol versions or other problem sets, samples that
errored, hit a limit, were retried, or whose calls do not follow the protocol. The output is
byte-identical for the same logs and problem set, whichever the order of the arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.constraint.problems import Problem, load_problems, sets_of
from checker.format.errors import Finding, UsageError
from checker.format.logio import RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN
from checker.harness.inspect_task.protocol import (
    EXTRACTION_SYSTEM,
    LEDGER_METHODS,
    METHODS,
    PROTOCOL_VERSION,
    SYSTEM_PROMPTS,
    TASK_NAME,
    commit,
    extraction_prompt,
    parse_extraction,
    turn_prompt,
)
from checker.importers.naming import slug, unique

IMPORTER = "inspect@1"
MAX_LOG_BYTES = 2 << 30
"""Largest Inspect log read (2 GiB): Inspect's reader holds the whole log in memory."""
EXTRA_HINT = 'reading Inspect logs needs the inspect extra: pip install "driftboard[inspect]"'


@dataclass
class SampleTurns:
    """The canonical turns of one sample, and how it ended."""

    problem_id: str
    turns: list[dict[str, Any]] = field(default_factory=list)
    ended_early: str | None = None
    """Why the sample stopped before its last turn (error, limit, protocol break), else None."""
    uuid: str | None = None


@dataclass
class EpochRun:
    """One (log, epoch): the samples of one run."""

    log: Path
    model: str
    method: str
    epoch: int
    header: dict[str, Any]
    samples: list[SampleTurns] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    status: str = "success"
    error: str | None = None


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UsageError(EXTRA_HINT) from None
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.stat().st_size > MAX_LOG_BYTES:
        raise UsageError(f"{path}: larger than {MAX_LOG_BYTES >> 30} GiB; split the eval (--limit, --sample-id)")
    try:
        return read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # any failure of Inspect's reader means the file is not a readable log
        raise UsageError(f"{path}: cannot read as an Inspect eval log ({_first_line(exc) or type(exc).__name__})") from None


def _first_line(text: Any, limit: int = 300) -> str:
    lines = str(text or "").splitlines()
    return lines[0][:limit] if lines else ""


def _text(message: Any) -> str:
    return str(getattr(message, "text", "") or "")


def _same(messages: Sequence[Any], expected: Sequence[tuple[str, str]]) -> bool:
    return len(messages) == len(expected) and all(
        m.role == role and _text(m) == text for m, (role, text) in zip(messages, expected, strict=True))


def _usage_of(output: Any) -> tuple[int | None, int | None]:
    usage = getattr(output, "usage", None)
    if usage is None:
        return None, None
    return usage.input_tokens, usage.output_tokens


def sample_turns(sample: Any, problem: Problem, method: str) -> SampleTurns:
    """Rebuild the canonical turns of one sample from its model events, checking each call against the protocol."""
    out = SampleTurns(problem_id=problem.problem_id, uuid=sample.uuid)
    calls = [e for e in sample.events if getattr(e, "event", None) == "model" and e.error is None]
    history: list[tuple[str, str]] = [("system", SYSTEM_PROMPTS[method])]
    ledger: list[dict[str, Any]] | None = [] if method in LEDGER_METHODS else None
    answers = [_text(m) for m in sample.messages if m.role == "assistant"]
    i = 0
    for t in range(1, len(problem.turns) + 1):
        if i >= len(calls):
            out.ended_early = f"no model call for turn {t} of {len(problem.turns)}"
            break
        call = calls[i]
        i += 1
        prompt = turn_prompt(problem, t, method, ledger)
        expected = [*history, ("user", prompt)]
        response = str(call.output.completion or "")
        tokens_in, tokens_out = _usage_of(call.output)
        turn: dict[str, Any] = {"type": "turn", "problem_id": problem.problem_id, "turn_number": t,
                                "user_message": problem.turns[t - 1].user_message, "raw_response": response,
                                "finish_reason": str(call.output.stop_reason), "tokens_in": tokens_in,
                                "tokens_out": tokens_out}
        if not _same(call.input, expected):
            sent = _text(call.input[-1]) if call.input else ""
            turn["user_message"] = sent  # not the set's message: verify marks the run INVALID
            out.turns.append(turn)
            out.ended_early = (f"turn {t}: the model was not sent the protocol's conversation (system prompt, earlier "
                               "turns and this turn's constraints); the turn is kept with the message sent, so the run "
                               "is INVALID")
            break
        if t > len(answers) or answers[t - 1] != response:
            out.ended_early = (f"turn {t}: the conversation's assistant message differs from the model call's output; "
                               "the sample's later turns are not imported")
            break
        if ledger is not None:
            if i >= len(calls):
                out.ended_early = f"turn {t}: no ledger extraction call"
                break
            ext = calls[i]
            i += 1
            if not _same(ext.input, [("system", EXTRACTION_SYSTEM), ("user", extraction_prompt(problem, t, response))]):
                out.ended_early = (f"turn {t}: the ledger extraction call was not sent the protocol's prompt; "
                                   "the turn and the sample's later turns are not imported")
                break
            ledger = commit(ledger, parse_extraction(str(ext.output.completion or "")), t)
            turn["ledger"] = ledger
        out.turns.append(turn)
        history += [("user", prompt), ("assistant", response)]
    else:
        if i < len(calls):
            out.ended_early = f"{len(calls) - i} model call(s) after the last turn, outside the protocol"
    return out


def _iso(ts: str) -> str:
    text = str(ts).strip().replace(" ", "T")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(mode="json", exclude_none=True)


def _add_usage(total: dict[str, int], usage: Any) -> None:
    for name in ("input_tokens", "output_tokens", "total_tokens", "reasoning_tokens",
                 "input_tokens_cache_read", "input_tokens_cache_write"):
        value = getattr(usage, name, None)
        if isinstance(value, int):
            total[name] = total.get(name, 0) + value


def read_logs(
    logs: Sequence[Path], by_id: dict[str, Problem], digests: dict[str, str]
) -> tuple[list[EpochRun], list[Finding], int]:
    """(runs, findings, samples read) of the given logs; `digests` maps each loaded set's digest to its name."""
    runs: list[EpochRun] = []
    findings: list[Finding] = []
    read = 0
    for path in logs:
        log = _read_log(path)
        shown = path.name  # not the folder: the same logs give the same submission wherever they are
        spec = log.eval
        task = spec.task_registry_name or spec.task
        n = len(log.samples or [])
        read += n
        if task != TASK_NAME:
            findings.append(Finding(shown, None, f"log of task {task!r}, not {TASK_NAME}: skipped ({n} sample(s))"))
            continue
        meta = (spec.metadata or {}).get("driftboard")
        meta = meta if isinstance(meta, dict) else {}
        method, version = meta.get("method"), meta.get("protocol_version")
        found = meta.get("problem_set")
        pset: dict[str, Any] = found if isinstance(found, dict) else {}
        if version != PROTOCOL_VERSION or method not in METHODS:
            findings.append(Finding(shown, None, f"protocol version {version!r} / method {method!r}: this checker "
                                                 f"imports version {PROTOCOL_VERSION!r} of {', '.join(METHODS)}; "
                                                 f"skipped ({n} sample(s))"))
            continue
        if not isinstance(pset.get("digest"), str) or pset["digest"] not in digests:
            findings.append(Finding(shown, None, f"the eval used problem set {pset.get('name')!r} (digest {pset.get('digest')}), "
                                                 f"which --problems does not provide; skipped ({n} sample(s))"))
            continue
        if log.samples is None:
            findings.append(Finding(shown, None, "the log holds no samples (run with --no-log-samples?): nothing to import"))
            continue
        files = {path.name: file_sha256(path)}
        inspect_info = {
            "log_format_version": log.version, "inspect_ai": spec.packages.get("inspect_ai"), "status": log.status,
            "eval_id": spec.eval_id, "run_id": spec.run_id, "task_id": spec.task_id, "task": task,
            "task_version": spec.task_version, "task_args": spec.task_args, "created": spec.created,
            "epochs": spec.config.epochs, "revision": _dump(spec.revision),
        }
        by_epoch: dict[int, EpochRun] = {}
        for sample in sorted(log.samples, key=lambda s: (s.epoch, str(s.id))):
            epoch = int(sample.epoch)
            run = by_epoch.get(epoch)
            if run is None:
                header = {
                    "importer": IMPORTER, "files": files, "native_run_id": f"{spec.eval_id}/epoch{epoch}",
                    "details": {"inspect": inspect_info, "model": spec.model, "provider": spec.model.split("/", 1)[0],
                                "model_base_url": spec.model_base_url,
                                "generate_config": _dump(log.plan.config),
                                "model_generate_config": _dump(spec.model_generate_config),
                                "problem_set": pset, "method": method, "epoch": epoch},
                }
                run = by_epoch[epoch] = EpochRun(path, spec.model, method, epoch, header, status=log.status,
                                                 error=log.error.message if log.error else None)
            where = f"sample {sample.id!r} epoch {epoch}"
            problem = by_id.get(str(sample.id))
            if problem is None:
                findings.append(Finding(shown, None, f"{where}: not a problem of the set; not imported"))
                continue
            for usage in sample.model_usage.values():
                _add_usage(run.usage, usage)
            got = sample_turns(sample, problem, method)
            if sample.error is not None:
                got.ended_early = f"error: {_first_line(sample.error.message)}"
            elif sample.limit is not None:
                got.ended_early = f"{sample.limit.type} limit reached"
            if sample.error_retries:
                findings.append(Finding(shown, None, f"{where}: {len(sample.error_retries)} earlier attempt(s) ended in an "
                                                     "error and were retried; only the last attempt is in the log",
                                        severity="warning"))
            if got.ended_early:
                findings.append(Finding(shown, None, f"{where}: {got.ended_early}; {len(got.turns)} of "
                                                     f"{len(problem.turns)} turns imported"))
            run.samples.append(got)
        runs.extend(by_epoch[e] for e in sorted(by_epoch))
    return runs, findings, read


def _yaml(data: dict[str, Any]) -> bytes:
    class NoAlias(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return yaml.dump(data, Dumper=NoAlias, sort_keys=False, allow_unicode=True, default_flow_style=False).encode("utf-8")


def _out_state(out: Path) -> bytes | None:
    """The bytes of an existing `out/prereg.yaml` to keep (the only file allowed in `out`), else None."""
    if not re.fullmatch(SUBMISSION_ID_PATTERN, out.name):
        raise UsageError(f"{out}: the folder name must be a submission id ({SUBMISSION_ID_PATTERN})")
    if not out.exists():
        return None
    if not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    names = sorted(p.name for p in out.iterdir())
    if not names:
        return None
    if names == ["prereg.yaml"]:
        return (out / "prereg.yaml").read_bytes()
    raise UsageError(f"{out}: already holds {', '.join(names[:5])}; use a new folder, or one holding only prereg.yaml")


def import_submission(logs: Sequence[Path], problems: Path, out: Path) -> int:
    """Write `out/` (prereg.yaml unless already there, runs/*.jsonl, submission.yaml) from Inspect logs.

    Returns 0 when every sample was imported in full, 1 when findings say some were not (the
    submission is written all the same, with the findings in its description).

    Raises:
        UsageError: the extra is missing, a log is unreadable, the problem set is invalid, `out`
            is not usable, or nothing at all can be imported.
    """
    kept_prereg = _out_state(out)
    submission_id = out.name
    loaded, errors = load_problems([problems])
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors))
    sets = sets_of(loaded, problems.name or "problems")
    digests = {s.digest: s.name for s in sets}
    by_id = {p.problem_id: p for p in loaded}
    paths = sorted({Path(p) for p in logs}, key=lambda p: (p.name, p.as_posix()))
    runs, findings, read = read_logs(paths, by_id, digests)
    if not runs:
        detail = "\n".join(f.render() for f in findings)
        raise UsageError("nothing to import" + (f":\n{detail}" if detail else ""))
    keys: dict[tuple[str, str, int], Path] = {}
    for run in runs:
        key = (run.model, run.method, run.epoch)
        if key in keys:
            raise UsageError(f"{keys[key]} and {run.log} both hold epoch {run.epoch} of {run.model}/{run.method}; "
                             "import one of them (after `inspect eval-retry`, the retried log)")
        keys[key] = run.log
    cells: dict[str, dict[str, Any]] = {}
    for run in runs:
        cell = cells.setdefault(f"{run.model}/{run.method}", {"flags": {"model": run.model, "method": run.method},
                                                             "seeds": []})
        cell["seeds"].append(f"epoch{run.epoch}")
    digest = str(runs[0].header["details"]["problem_set"]["digest"])
    if any(r.header["details"]["problem_set"]["digest"] != digest for r in runs):
        raise UsageError("the logs used different problem sets; import each set into its own submission")
    if kept_prereg is None:
        prereg = {"format_version": FORMAT_VERSION, "submission_id": submission_id, "track": "constraint",
                  "profile": "drift-bench-v1", "cells": dict(sorted(cells.items())), "problem_set": digest}
        prereg_bytes = _yaml(prereg)
    else:
        prereg_bytes = kept_prereg
    out.mkdir(parents=True, exist_ok=True)
    if kept_prereg is None:
        (out / "prereg.yaml").write_bytes(prereg_bytes)
    prereg_sha = sha256_hex(prereg_bytes)
    run_files: list[str] = []
    used: set[str] = set()
    for run in sorted(runs, key=lambda r: (r.model, r.method, r.epoch)):
        stem = unique(f"{slug(run.model)[:50]}--{slug(run.method)[:30]}--epoch{run.epoch}", used)
        rel = f"runs/{stem}.jsonl"
        run_files.append(rel)
        run.header["details"]["usage"] = dict(sorted(run.usage.items()))
        run.header["details"]["sample_uuids"] = {s.problem_id: s.uuid for s in run.samples}
        start = {
            "run_id": f"{submission_id}--{stem}", "submission_id": submission_id, "track": "constraint",
            "cell": f"{run.model}/{run.method}", "seed": f"epoch{run.epoch}", "backbone": run.model,
            "prereg_sha256": prereg_sha, "started_at": _iso(run.header["details"]["inspect"]["created"]),
            "method": run.method,
            "problem_set": {"name": digests[digest], "digest": digest}, "source": run.header,
        }
        _write_run(out / rel, start, run, by_id)
    errors_found = [f for f in findings if f.severity == "error"]
    imported = sum(len(r.samples) for r in runs)
    full = sum(1 for r in runs for s in r.samples if not s.ended_early)
    models = sorted({r.model for r in runs})
    revision = runs[0].header["details"]["inspect"].get("revision") or {}
    commit_id = str(revision.get("commit") or "")
    note = "" if not findings else " Import findings: " + " | ".join(f.render() for f in sorted(findings))
    submission = {
        "format_version": FORMAT_VERSION, "id": submission_id,
        "title": f"{', '.join(models)} on the constraint track (Inspect AI)",
        "authors": [{"name": "FILL IN: submitter"}], "contact": "FILL IN: e-mail or URL",
        "track": "constraint", "system": f"Inspect AI task {TASK_NAME} (protocol {PROTOCOL_VERSION})",
        "backbone": models[0] if len(models) == 1 else "multiple (see each run)",
        "harness": {"name": "driftboard/constraint on inspect_ai",
                    "version": f"inspect_ai {runs[0].header['details']['inspect'].get('inspect_ai')}",
                    "commit": commit_id if re.fullmatch(r"[0-9a-f]{7,64}", commit_id) else "0000000",
                    "url": "https://inspect.aisi.org.uk/"},
        "license": "FILL IN: licence of the logs, e.g. CC-BY-4.0",
        "description": (f"Imported with `driftboard import inspect` from {len(paths)} Inspect log(s): {read} sample(s) "
                        f"read, {imported} imported ({full} in full).{note}"),
        "files": run_files, "claims": [],
    }
    (out / "submission.yaml").write_bytes(_yaml(submission))
    for f in sorted(findings):
        print(f.render())
    print(f"{out}: {len(runs)} run(s) from {len(paths)} log(s); samples: {read} read, {imported} imported "
          f"({full} in full), {read - imported} not imported; {len(errors_found)} finding(s)"
          + ("" if kept_prereg is None else "; the existing prereg.yaml was kept"))
    return 1 if errors_found else 0


def _write_run(path: Path, start: dict[str, Any], run: EpochRun, by_id: dict[str, Problem]) -> None:
    ended = [f"{s.problem_id}: {s.ended_early}" for s in run.samples if s.ended_early]
    try:
        log = RunLogWriter(path, start)
        for sample in sorted(run.samples, key=lambda s: s.problem_id):
            problem = by_id[sample.problem_id]
            log.write({"type": "problem_start", "problem_id": sample.problem_id, "domain": problem.domain,
                       "n_turns": len(problem.turns)})
            for turn in sample.turns:
                log.write(turn)
        if run.status in ("started", "cancelled"):
            log.close()  # the eval did not finish: no run_end, so the run is INCOMPLETE
            return
        if run.status == "error":
            log.end("FAILED", f"the eval stopped on an error: {_first_line(run.error)}".rstrip(": "))
        elif ended:
            log.end("FAILED", f"{len(ended)} sample(s) ended early: " + "; ".join(ended)[:1000])
        else:
            log.end("COMPLETED", "every sample of the epoch finished")
        log.close()
    except ValidationError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {'; '.join(format_validation_error(exc))}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: cannot write a valid event: {exc}") from None
