"""Validate stage: structure, manifest, pre-registration, schema, seq and hash chain.

Every problem is collected (nothing stops at the first bad line); the run log is streamed,
so memory does not grow with file size.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jiter
from pydantic import ValidationError

from checker.format.errors import Finding, UnsupportedVersionError
from checker.format.logio import (
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    check_version,
    compressed_kind,
    describe_json_error,
    format_validation_error,
    genesis,
    skip_oversize,
)
from checker.format.schema.base import INT_MAX
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import EVENT_ADAPTER, build_event, canonical_line
from checker.stages.copies import PayloadDigest
from checker.stages.load import RefusedFile, Target, discover, load_submission, open_regular
from checker.stages.precheck import claim_findings, coverage_findings, header_findings

INCOMPLETE_MESSAGE = "run has no run_end event: the run is INCOMPLETE"
"""The one validate finding that is a result (verify scores the run as INCOMPLETE), not a format error."""
CHAIN_REMEDY = ("the log changed after it was written (a line edited, lost, added or reordered): never edit "
                "a run log; restore the file your harness wrote, or re-run the run")
"""What to do about a broken chain (ends every chain-broken finding)."""
SEQ_REMEDY = "seq numbers the lines from 0 without gaps: write logs with RunLogWriter, and never edit one"
"""What to do about a wrong `seq` (ends every seq finding)."""
CASE_REMEDY = "write digests in lower-case hex, as RunLogWriter does"
"""What to do about an upper-case digest."""
MAX_FINDINGS_PER_FILE = 1000
"""After this many problems in one file the rest are counted, not listed."""
BOM = b"\xef\xbb\xbf"
FAST_PATH = True
"""Take canonical lines on the fast path (one validating parse, `checker.format.schema.events.canonical_line`); tests
turn it off to show both paths find the same problems and keep the same events."""
FAST_PATH_GIVE_UP = 16
"""A log whose lines miss the fast path (a harness that does not write canonical lines) stops trying it once
more than this many lines, and more than half of the lines read, have missed: a miss costs a second parse."""


@dataclass
class RunInfo:
    """What validation learned about one run log (used to detect duplicate run ids)."""

    path: str
    run_id: str | None = None
    submission_id: str | None = None
    track: str | None = None
    cell: str | None = None
    seed: str | None = None
    prereg_sha256: str | None = None
    problem_set: str | None = None
    """Digest of the problem set the header names (constraint track)."""
    has_problem_set: bool = False
    lines: int = 0
    ended: bool = False


@dataclass
class KeptLog:
    """The events of a run log, kept while it is validated so the pipeline need not read it twice.

    `validate_run_file` keeps events while the log's replay size (its bytes plus `container_bytes`
    per `{` or `[` byte, as `checker.format.logio.over_replay_limit` counts it) stays within `max_weight`,
    the caller's memory bound; past it everything kept is dropped and the rest is validated
    streaming. `complete` is set when every line was kept; the record is meant to be used only
    when validation found no problem.
    """

    max_weight: int
    """Keep nothing from a log whose replay size is larger."""
    container_bytes: int
    """Replay-size charge per `{` or `[` byte."""
    complete: bool = False
    """True when the whole file was read and hashed into this record."""
    start: Any = None
    """The `run_start` event (line 1)."""
    end: Any = None
    """The first `run_end` event, or None."""
    events: list[Any] = field(default_factory=list)
    """Every other event, in file order."""
    lines: list[int] = field(default_factory=list)
    """Line number of each of `events`."""
    sha256: str = ""
    """SHA-256 of the file's bytes (when `complete`)."""
    content_sha256: str = ""
    """Payload digest of `events` (`checker.stages.copies.PayloadDigest`; when `complete`)."""


@dataclass
class ValidationReport:
    """Everything `validate` found."""

    findings: list[Finding] = field(default_factory=list)
    unreadable: list[Finding] = field(default_factory=list)
    submissions: int = 0
    runs: int = 0
    lines: int = 0

    @property
    def ok(self) -> bool:
        """True when there is no error-severity finding."""
        return not self.unreadable and not any(f.severity == "error" for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 valid, 1 problems found, 2 unreadable input."""
        if self.unreadable:
            return 2
        return 0 if self.ok else 1


def validate_paths(paths: Iterable[Path], metric_names: Callable[[str], list[str]] | None = None) -> ValidationReport:
    """Validate submission folders and run files; see `checker.stages.load.discover` for what counts.

    `metric_names(track)` lists what a claim may name (the command passes `checker.pipeline.metrics.claim_names`;
    this stage sits below the scorers that declare the metrics). Without it claim metrics are not checked.

    Raises:
        UsageError: a path does not exist.
    """
    report = ValidationReport()
    seen_runs: dict[str, RunInfo] = {}
    for target in discover(paths):
        if target.kind == "submission":
            validate_submission(target, report, seen_runs, metric_names)
        else:
            report.runs += 1
            info = validate_run_file(target.path, str(target.path), report)
            _note_run(info, seen_runs, report)
    return report


def validate_submission(target: Target, report: ValidationReport, seen_runs: dict[str, RunInfo],
                        metric_names: Callable[[str], list[str]] | None = None) -> None:
    """Validate one submission folder and every run log its manifest lists."""
    report.submissions += 1
    display = target.path.as_posix()
    loaded = load_submission(target.path, display)
    report.findings.extend(loaded.findings)
    manifest = loaded.manifest
    if manifest is not None:
        report.findings.extend(claim_findings(manifest, loaded.prereg, f"{display}/submission.yaml", metric_names))
    headers: list[tuple[str, str, str | None, str | None]] = []
    for run_path in loaded.run_paths:
        report.runs += 1
        shown = f"{display}/{run_path.relative_to(target.path).as_posix()}"
        info = validate_run_file(run_path, shown, report)
        if manifest is not None:
            report.findings.extend(header_mismatches(info, manifest.id, manifest.track))
        if info.run_id is not None:
            report.findings.extend(header_findings(
                shown, track=info.track, header_prereg_sha256=info.prereg_sha256,
                has_problem_set=info.has_problem_set, problem_set_digest=info.problem_set,
                prereg=loaded.prereg, prereg_sha256=loaded.prereg_sha256))
            headers.append((shown, info.run_id, info.cell, info.seed))
        _note_run(info, seen_runs, report)
    report.findings.extend(coverage_findings(headers, loaded.prereg))


def header_mismatches(info: RunInfo, submission_id: str, track: str) -> list[Finding]:
    """A run header that names another submission or track than the manifest (a copied run)."""
    found: list[Finding] = []
    if info.run_id is None:
        return found
    if info.submission_id is not None and info.submission_id != submission_id:
        message = f"submission_id {info.submission_id!r} does not match the submission {submission_id!r}"
        found.append(Finding(info.path, 1, message))
    if info.track is not None and info.track != track:
        found.append(Finding(info.path, 1, f"track {info.track!r} differs from the manifest's {track!r}"))
    return found


def _note_run(info: RunInfo, seen: dict[str, RunInfo], report: ValidationReport) -> None:
    if info.run_id is None:
        return
    first = seen.get(info.run_id)
    if first is not None:
        report.findings.append(Finding(info.path, 1, f"duplicate run id {info.run_id!r} (also in {first.path}:1)"))
    else:
        seen[info.run_id] = info


def validate_run_file(path: Path, display: str, report: ValidationReport, keep: KeptLog | None = None) -> RunInfo:
    """Stream one run log and report every format problem in it.

    With `keep`, a log within `keep.max_weight` also has its events and file digest kept there
    (the verify pipeline's one pass over the log: no second read, parse or validation).
    """
    info = RunInfo(display)
    findings: list[Finding] = []
    try:
        fh = open_regular(path)  # never through a link, never blocking on a FIFO
        size = os.fstat(fh.fileno()).st_size
    except RefusedFile as exc:
        report.findings.append(Finding(display, None, str(exc)))
        return info
    except OSError as exc:
        report.unreadable.append(Finding(display, None, f"cannot read: {exc.strerror}", unreadable=True))
        return info
    if size > MAX_FILE_BYTES:
        fh.close()
        report.findings.append(Finding(display, None, f"file is {size} bytes, larger than the {MAX_FILE_BYTES}-byte limit"))
        return info
    if size == 0:
        fh.close()
        report.findings.append(Finding(display, None, "empty run log (no events)"))
        return info
    kind = compressed_kind(fh.read(8))
    if kind is not None:
        # refused on its magic bytes: nothing is decompressed, so a decompression bomb costs nothing
        fh.close()
        report.findings.append(Finding(display, None, f"{kind}-compressed file: compressed run logs are not accepted "
                                                      "(commit the plain UTF-8 .jsonl); it was not decompressed"))
        return info
    fh.seek(0)
    kept = keep if keep is not None and size <= keep.max_weight else None
    file_hash = hashlib.sha256() if kept is not None else None
    weight = 0
    container_bytes, max_weight = (kept.container_bytes, kept.max_weight) if kept is not None else (0, 0)
    # every object or array takes at least 2 bytes: a file this small cannot pass the bound, and its lines
    # need not be counted (two scans of each line, a tenth of the time of a typical line)
    weigh = kept is not None and size * (1 + container_bytes / 2) > max_weight

    def problem(line: int | None, message: str) -> None:
        findings.append(Finding(display, line, message))

    prev_digest: str | None = None
    prev_lineno = 0
    last_seq = -1
    crlf_first: int | None = None
    crlf_count = 0
    ended_at: int | None = None
    reported_after_end = False
    refused = False
    validate_json = EVENT_ADAPTER.validator.validate_json
    from_json = jiter.from_json
    sha256 = hashlib.sha256
    payload = PayloadDigest()  # of the kept events (copy detection)
    add_payload = payload.add_canonical
    limit = MAX_LINE_BYTES + 1
    lineno = 0
    fast = FAST_PATH
    misses = 0
    with fh:
        readline = fh.readline
        # the loop is inlined (no per-line helper objects): it is the validator's hot path
        while True:
            chunk = readline(limit)
            if not chunk:
                break
            lineno += 1
            if weigh and kept is not None:
                weight += len(chunk) + container_bytes * (chunk.count(b"{") + chunk.count(b"["))
                if weight > max_weight:  # too large to replay: validated streaming, nothing kept
                    kept.events.clear()
                    kept.lines.clear()
                    file_hash = kept = None
            if file_hash is not None:
                file_hash.update(chunk)
            expected_prev = prev_digest
            prev_lineno_before = prev_lineno
            prev_lineno = lineno
            if chunk[-1:] == b"\n":
                data = chunk[:-1]
                prev_digest = sha256(data).hexdigest()
            elif len(chunk) > MAX_LINE_BYTES:
                file_hash = kept = None  # a problem: nothing is kept
                raw = skip_oversize(fh, chunk, lineno)
                prev_digest = raw.digest
                problem(lineno, f"line is {raw.length} bytes, longer than the {MAX_LINE_BYTES}-byte limit")
                last_seq += 1
                continue
            else:
                prev_digest = sha256(chunk).hexdigest()
                problem(lineno, "truncated last line (no newline at end of file)")
                continue
            if fast and lineno > 1 and ended_at is None:
                # the fast path: a canonical line (its bytes are those its event serialises to) holds no
                # duplicate key, NaN, CR, BOM or blank, so one validating parse stands for the strict parse and
                # the schema; a line that is not canonical, or not the next link of the chain, takes the
                # full path below, which finds and words every problem
                try:
                    event = validate_json(data)
                    model = type(event)
                    line = canonical_line(event)
                except ValueError:
                    pass
                else:
                    if line == data and event.seq == last_seq + 1 and event.prev == expected_prev \
                            and model is not RunStart:
                        last_seq += 1
                        if model is RunEnd:
                            ended_at = lineno
                            info.ended = True
                            if kept is not None:
                                kept.end = event
                        elif kept is not None:
                            kept.events.append(event)
                            kept.lines.append(lineno)
                            add_payload(line)
                        continue
                misses += 1
                if misses > FAST_PATH_GIVE_UP and 2 * misses > lineno:
                    fast = False
            if lineno == 1 and data.startswith(BOM):
                problem(1, "UTF-8 byte order mark at start of file is not allowed")
                data = data[len(BOM):]
            if b"\r" in data:  # one scan on the common path (no CR at all)
                if data.endswith(b"\r"):
                    crlf_count += 1
                    if crlf_first is None:
                        crlf_first = lineno
                    data = data[:-1]
                if b"\r" in data:
                    problem(lineno, "carriage return (CR) inside the line: a line ends with one LF and holds no other CR")
            if not data or data.isspace():
                problem(lineno, "blank line")
                continue
            try:
                obj = from_json(data, allow_inf_nan=False, catch_duplicate_keys=True)
            except ValueError as exc:
                problem(lineno, describe_json_error(data, str(exc)))
                last_seq += 1
                continue
            if not isinstance(obj, dict):
                problem(lineno, f"event must be a JSON object, not {_json_kind(obj)}")
                last_seq += 1
                continue
            # seq and chain first: they do not depend on the event's type
            seq = obj.get("seq")
            if type(seq) is int and 0 <= seq <= INT_MAX:
                if seq != last_seq + 1:
                    problem(lineno, _seq_message(seq, last_seq))
                if seq > last_seq:
                    last_seq = seq
            else:
                # missing or not a valid seq (the schema says why): the line still takes its place
                last_seq += 1
            prev = obj.get("prev")
            etype = obj.get("type")
            if lineno == 1:
                if etype == "run_start" and isinstance(obj.get("run_id"), str):
                    expected_prev = genesis(obj["run_id"])
                    info.run_id = obj["run_id"]
                else:
                    expected_prev = None
            if isinstance(prev, str) and expected_prev is not None and prev != expected_prev:
                what = "prev of the first line is not the SHA-256 of the run id" if lineno == 1 else \
                    f"prev is not the SHA-256 of line {prev_lineno_before}"
                if prev.lower() == expected_prev:
                    what = what.replace(" is not ", " is ", 1) + " but in upper-case hex (digests are lower-case)"
                    problem(lineno, f"chain broken: {what}; {CASE_REMEDY}")
                else:
                    problem(lineno, f"chain broken: {what}; {CHAIN_REMEDY}")
            if ended_at is not None and not reported_after_end:
                problem(lineno, f"event after run_end (line {ended_at})")
                reported_after_end = True
            if etype == "run_start":
                if lineno != 1:
                    problem(lineno, "run_start may only be the first event")
                else:
                    version = obj.get("format_version")
                    if isinstance(version, str) and version[:1].isdigit():
                        try:
                            check_version(version)
                        except (UnsupportedVersionError, ValueError) as exc:
                            problem(lineno, str(exc))
                            refused = True
                            break
            elif lineno == 1:
                problem(1, f"first event must be run_start, not {etype!r}" if isinstance(etype, str)
                        else "first event must be run_start")
            try:
                event = build_event(obj, data)  # the object `from_json` read (no second parse of a valid line)
            except ValidationError as exc:
                for message in format_validation_error(exc):
                    problem(lineno, message)
                continue
            if lineno == 1 and event.type == "run_start":
                info.submission_id = event.submission_id
                info.track = event.track
                info.cell = event.cell
                info.seed = event.seed
                info.prereg_sha256 = event.prereg_sha256
                info.has_problem_set = event.problem_set is not None
                info.problem_set = event.problem_set.digest if event.problem_set is not None else None
            if event.type == "run_end" and ended_at is None:
                ended_at = lineno
                info.ended = True
                if kept is not None:
                    kept.end = event
            elif kept is not None:
                if lineno == 1:
                    kept.start = event
                elif event.type != "run_end":
                    kept.events.append(event)
                    kept.lines.append(lineno)
                    payload.add(event)
    info.lines = prev_lineno
    report.lines += prev_lineno
    if kept is not None and file_hash is not None and not refused:
        kept.sha256 = file_hash.hexdigest()
        kept.content_sha256 = payload.hexdigest()
        kept.complete = True
    if crlf_first is not None:
        problem(crlf_first, f"CRLF line endings on {crlf_count} line(s): lines must end with LF only")
    if ended_at is None and prev_lineno > 0 and not refused:
        problem(None, INCOMPLETE_MESSAGE)
    findings.sort(key=lambda f: (f.line is None, f.line or 0))
    if len(findings) > MAX_FINDINGS_PER_FILE:
        extra = len(findings) - MAX_FINDINGS_PER_FILE
        findings = findings[:MAX_FINDINGS_PER_FILE]
        findings.append(Finding(display, None, f"{extra} more problems in this file not listed"))
    report.findings.extend(findings)
    return info


def _seq_message(seq: int, last: int) -> str:
    return f"{_seq_problem(seq, last)}; {SEQ_REMEDY}"


def _seq_problem(seq: int, last: int) -> str:
    expected = last + 1
    if seq == last:
        return f"duplicated seq {seq}"
    if seq < last:
        return f"seq {seq} out of order (after seq {last})"
    if seq == expected + 1:
        return f"seq {seq}, expected {expected}: seq {expected} is missing"
    if seq > expected:
        return f"seq {seq}, expected {expected}: seqs {expected}..{seq - 1} are missing"
    return f"seq {seq} out of order (expected {expected})"


def _json_kind(obj: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(obj), "null"
    )
