"""Reading Inspect AI eval logs of the `driftboard/constraint` task: each sample's turns, rebuilt and checked.

Logs are read with Inspect's own reader (`inspect_ai.log.read_eval_log`: the binary `.eval`
format and JSON), so the `inspect` extra must be installed. `read_logs` gives one `EpochRun` per
(log, epoch) with its samples in sample-id order, and a `Finding` for every log or sample it
does not import in full (another task, protocol version or problem set; an errored, limited or
retried sample; a call outside the protocol). `sample_turns` rebuilds a sample's canonical turns
from its model events alone: each main call must have been sent the conversation
`checker.harness.inspect_task.protocol` builds, its output is the raw response, and for ledger
methods the extraction call that follows must have been sent the protocol's prompt, the ledger
being re-derived from the extraction outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from checker.constraint.problems import Problem
from checker.format.errors import Finding, UsageError
from checker.format.logio import file_sha256
from checker.harness.inspect_task.protocol import (
    EXTRACTION_SYSTEM,
    LEDGER_METHODS,
    METHODS,
    PROTOCOL_VERSION,
    SYSTEM_PROMPTS,
    TASK_NAME,
    LedgerEntry,
    commit,
    extraction_prompt,
    parse_extraction,
    turn_prompt,
)

MAX_LOG_BYTES = 2 << 30
"""Largest Inspect log read (2 GiB): Inspect's reader holds the whole log in memory."""
EXTRA_HINT = 'reading Inspect logs needs the inspect extra: pip install "driftboard[inspect]"'
_USAGE_FIELDS = ("input_tokens", "output_tokens", "total_tokens", "reasoning_tokens",
                 "input_tokens_cache_read", "input_tokens_cache_write")


class TurnEvent(TypedDict):
    """The fields of one canonical `turn` event rebuilt from a sample's model calls."""

    type: str
    problem_id: str
    turn_number: int
    user_message: str
    raw_response: str
    finish_reason: str
    tokens_in: int | None
    tokens_out: int | None
    ledger: NotRequired[list[LedgerEntry]]


@dataclass
class SampleTurns:
    """The canonical turns of one sample, and how it ended."""

    problem_id: str
    turns: list[TurnEvent] = field(default_factory=list)
    ended_early: str | None = None
    """Why the sample stopped before its last turn (error, limit, protocol break), else None."""
    uuid: str | None = None


@dataclass
class LogSource:
    """What every run of one log shares: its file, its eval record and the problem set it names."""

    files: dict[str, str]
    """The log's file name -> its SHA-256."""
    eval_id: str
    inspect: dict[str, object]
    """The eval record kept in each run's `source.details.inspect` (format version, ids, task, created, revision)."""
    details: dict[str, object]
    """The rest of `source.details` every epoch shares (model, provider, generate configs, problem set, method)."""
    method: str
    problem_set: dict[str, object]
    """The problem set the task recorded in the log's metadata (`name`, `digest`)."""
    created: str
    inspect_ai: object
    """The version of inspect_ai that wrote the log."""
    revision: dict[str, object]
    """Inspect's revision record of the task's source (type, origin, commit), or {}."""


@dataclass
class EpochRun:
    """One (log, epoch): the samples of one run."""

    log: Path
    model: str
    method: str
    epoch: int
    source: LogSource
    samples: list[SampleTurns] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    status: str = "success"
    error: str | None = None


def read_log(path: Path, header_only: bool = False) -> Any:
    """An Inspect eval log read by Inspect's own reader (its header only, if asked), attachments resolved.

    Raises:
        UsageError: the extra is missing, the file is absent, too large or not a readable log.
    """
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UsageError(EXTRA_HINT) from None
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.stat().st_size > MAX_LOG_BYTES:
        raise UsageError(f"{path}: larger than {MAX_LOG_BYTES >> 30} GiB; split the eval (--limit, --sample-id)")
    try:
        return read_eval_log(str(path), header_only=header_only, resolve_attachments=not header_only)
    except Exception as exc:  # any failure of Inspect's reader means the file is not a readable log
        raise UsageError(f"{path}: cannot read as an Inspect eval log ({first_line(exc) or type(exc).__name__})") from None


def first_line(text: object, limit: int = 300) -> str:
    """The first line of a message, cut to `limit` characters ("" for none)."""
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


class _Dialogue:
    """Replays a sample's model calls against the protocol, one turn at a time."""

    def __init__(self, sample: Any, problem: Problem, method: str) -> None:
        self.problem = problem
        self.method = method
        self.calls = [e for e in sample.events if getattr(e, "event", None) == "model" and e.error is None]
        self.answers = [_text(m) for m in sample.messages if m.role == "assistant"]
        self.history: list[tuple[str, str]] = [("system", SYSTEM_PROMPTS[method])]
        self.ledger: list[LedgerEntry] | None = [] if method in LEDGER_METHODS else None
        self.i = 0
        """The next model call to read."""

    def turn(self, t: int, out: SampleTurns) -> str | None:
        """Read turn `t` into `out`; returns why the sample's turns stop here, else None."""
        problem = self.problem
        if self.i >= len(self.calls):
            return f"no model call for turn {t} of {len(problem.turns)}"
        call = self.calls[self.i]
        self.i += 1
        prompt = turn_prompt(problem, t, self.method, self.ledger)
        response = str(call.output.completion or "")
        tokens_in, tokens_out = _usage_of(call.output)
        turn: TurnEvent = {"type": "turn", "problem_id": problem.problem_id, "turn_number": t,
                           "user_message": problem.turns[t - 1].user_message, "raw_response": response,
                           "finish_reason": str(call.output.stop_reason), "tokens_in": tokens_in,
                           "tokens_out": tokens_out}
        if not _same(call.input, [*self.history, ("user", prompt)]):
            turn["user_message"] = _text(call.input[-1]) if call.input else ""  # not the set's: verify marks it INVALID
            out.turns.append(turn)
            return (f"turn {t}: the model was not sent the protocol's conversation (system prompt, earlier "
                    "turns and this turn's constraints); the turn is kept with the message sent, so the run "
                    "is INVALID")
        if t > len(self.answers) or self.answers[t - 1] != response:
            return (f"turn {t}: the conversation's assistant message differs from the model call's output; "
                    "the sample's later turns are not imported")
        if self.ledger is not None:
            stop = self._extraction(t, response, turn)
            if stop:
                return stop
        out.turns.append(turn)
        self.history += [("user", prompt), ("assistant", response)]
        return None

    def _extraction(self, t: int, response: str, turn: TurnEvent) -> str | None:
        """Read turn `t`'s ledger extraction call and commit the ledger; returns why the turns stop, else None."""
        if self.i >= len(self.calls):
            return f"turn {t}: no ledger extraction call"
        ext = self.calls[self.i]
        self.i += 1
        expected = [("system", EXTRACTION_SYSTEM), ("user", extraction_prompt(self.problem, t, response))]
        if not _same(ext.input, expected):
            return (f"turn {t}: the ledger extraction call was not sent the protocol's prompt; "
                    "the turn and the sample's later turns are not imported")
        self.ledger = commit(self.ledger or [], parse_extraction(str(ext.output.completion or "")), t)
        turn["ledger"] = self.ledger
        return None


def sample_turns(sample: Any, problem: Problem, method: str) -> SampleTurns:
    """Rebuild the canonical turns of one sample from its model events, checking each call against the protocol."""
    out = SampleTurns(problem_id=problem.problem_id, uuid=sample.uuid)
    dialogue = _Dialogue(sample, problem, method)
    for t in range(1, len(problem.turns) + 1):
        out.ended_early = dialogue.turn(t, out)
        if out.ended_early:
            return out
    if dialogue.i < len(dialogue.calls):
        out.ended_early = f"{len(dialogue.calls) - dialogue.i} model call(s) after the last turn, outside the protocol"
    return out


def dump(model: Any) -> Any:
    """A pydantic record of the log as JSON-ready data without its null fields (None stays None)."""
    if model is None:
        return None
    return model.model_dump(mode="json", exclude_none=True)


def add_usage(total: dict[str, int], usage: Any) -> None:
    """Add Inspect's `ModelUsage` counts into `total` (field -> tokens)."""
    for name in _USAGE_FIELDS:
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
        log = read_log(path)
        read += len(log.samples or [])
        source = _log_source(path, log, digests, findings)
        if source is not None:
            runs.extend(_epoch_runs(path, log, source, by_id, findings))
    return runs, findings, read


def _log_source(path: Path, log: Any, digests: dict[str, str], findings: list[Finding]) -> LogSource | None:
    """What the log's runs share, or None (and a finding that says why) when the log is not imported."""
    shown = path.name  # not the folder: the same logs give the same submission wherever they are
    spec = log.eval
    task = spec.task_registry_name or spec.task
    n = len(log.samples or [])
    meta = (spec.metadata or {}).get("driftboard")
    meta = meta if isinstance(meta, dict) else {}
    method, version, found = meta.get("method"), meta.get("protocol_version"), meta.get("problem_set")
    pset: dict[str, object] = found if isinstance(found, dict) else {}
    skipped = _skipped(task, method, version, pset, digests)
    if skipped is not None:
        findings.append(Finding(shown, None, f"{skipped} ({n} sample(s))"))
        return None
    if log.samples is None:
        findings.append(Finding(shown, None, "the log holds no samples (run with --no-log-samples?): nothing to import"))
        return None
    revision = dump(spec.revision)
    inspect_info: dict[str, object] = {
        "log_format_version": log.version, "inspect_ai": spec.packages.get("inspect_ai"), "status": log.status,
        "eval_id": spec.eval_id, "run_id": spec.run_id, "task_id": spec.task_id, "task": task,
        "task_version": spec.task_version, "task_args": spec.task_args, "created": spec.created,
        "epochs": spec.config.epochs, "revision": revision,
    }
    details: dict[str, object] = {
        "model": spec.model, "provider": spec.model.split("/", 1)[0], "model_base_url": spec.model_base_url,
        "generate_config": dump(log.plan.config), "model_generate_config": dump(spec.model_generate_config),
        "problem_set": pset, "method": method,
    }
    return LogSource({path.name: file_sha256(path)}, spec.eval_id, inspect_info, details, str(method), pset,
                     spec.created, spec.packages.get("inspect_ai"), revision or {})


def _skipped(task: str, method: object, version: object, pset: dict[str, object], digests: dict[str, str]) -> str | None:
    """Why a log is not imported (another task, protocol or problem set), ending in `skipped`, else None."""
    if task != TASK_NAME:
        return f"log of task {task!r}, not {TASK_NAME}: skipped"
    if version != PROTOCOL_VERSION or method not in METHODS:
        return (f"protocol version {version!r} / method {method!r}: this checker imports version "
                f"{PROTOCOL_VERSION!r} of {', '.join(METHODS)}; skipped")
    if not isinstance(pset.get("digest"), str) or pset["digest"] not in digests:
        return (f"the eval used problem set {pset.get('name')!r} (digest {pset.get('digest')}), "
                "which --problems does not provide; skipped")
    return None


def _epoch_runs(path: Path, log: Any, source: LogSource, by_id: dict[str, Problem],
                findings: list[Finding]) -> list[EpochRun]:
    """One run per epoch of the log, its samples in sample-id order (each sample read, or a finding)."""
    spec = log.eval
    method = source.method
    by_epoch: dict[int, EpochRun] = {}
    for sample in sorted(log.samples, key=lambda s: (s.epoch, str(s.id))):
        epoch = int(sample.epoch)
        run = by_epoch.get(epoch)
        if run is None:
            run = by_epoch[epoch] = EpochRun(path, spec.model, method, epoch, source, status=log.status,
                                             error=log.error.message if log.error else None)
        problem = by_id.get(str(sample.id))
        where = f"sample {sample.id!r} epoch {epoch}"
        if problem is None:
            findings.append(Finding(path.name, None, f"{where}: not a problem of the set; not imported"))
            continue
        for usage in sample.model_usage.values():
            add_usage(run.usage, usage)
        run.samples.append(_read_sample(sample, problem, method, (path.name, where), findings))
    return [by_epoch[e] for e in sorted(by_epoch)]


def _read_sample(sample: Any, problem: Problem, method: str, at: tuple[str, str],
                 findings: list[Finding]) -> SampleTurns:
    """A sample's turns, ended early on its error or limit; findings for retries and early ends (`at`: file, sample)."""
    shown, where = at
    got = sample_turns(sample, problem, method)
    if sample.error is not None:
        got.ended_early = f"error: {first_line(sample.error.message)}"
    elif sample.limit is not None:
        got.ended_early = f"{sample.limit.type} limit reached"
    if sample.error_retries:
        findings.append(Finding(shown, None, f"{where}: {len(sample.error_retries)} earlier attempt(s) ended in an "
                                             "error and were retried; only the last attempt is in the log",
                                severity="warning"))
    if got.ended_early:
        findings.append(Finding(shown, None, f"{where}: {got.ended_early}; {len(got.turns)} of "
                                             f"{len(problem.turns)} turns imported"))
    return got


__all__ = ["EXTRA_HINT", "MAX_LOG_BYTES", "EpochRun", "LogSource", "SampleTurns", "TurnEvent", "add_usage", "dump",
           "first_line", "read_log", "read_logs",
           "sample_turns"]
