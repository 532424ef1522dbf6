"""Validate stage: submissions and run logs checked for structure, manifests, pre-registration, schema and chain.

A run log is read by the scanner (`checker.format.scan`: bounded lines, the chain, the canonical
and the strict parser); this module holds the policy around it: which files are refused before a
byte is parsed (links, special files, size, compression), the run-info and kept-events sinks
(`RunInfo`, `KeptEvents`: the verify pipeline's one pass keeps a small enough log's events), the
cap on findings per file, and the checks of a run's header against its submission. Every problem
is collected (nothing stops at the first bad line); the log is streamed, so memory does not grow
with file size.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from checker.format import progress
from checker.format.errors import Finding
from checker.format.logio import MAX_FILE_BYTES
from checker.format.names import Name, Work, identity_findings, submission_names
from checker.format.scan import GIVE_UP, Problem, scan_log
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import Event
from checker.format.storage import LogStorageError, allowance, compressed_kind, open_stream, storage_of
from checker.stages.copies import PayloadDigest
from checker.stages.fetch import BlobStore
from checker.stages.files import RefusedFile, open_regular
from checker.stages.load import Target, discover, load_submission
from checker.stages.precheck import claim_findings, coverage_findings, header_findings

INCOMPLETE_MESSAGE = "run has no run_end event: the run is INCOMPLETE"
"""The one validate finding that is a result (verify scores the run as INCOMPLETE), not a format error."""
MAX_FINDINGS_PER_FILE = 1000
"""After this many problems in one file the rest are counted, not listed."""
FAST_PATH = True
"""Offer lines to the canonical parser before the strict one (`checker.format.scan.parsers`); tests and
benchmarks turn it off to show both parsers find the same problems and keep the same events."""
FAST_PATH_GIVE_UP = GIVE_UP
"""Misses after which a log stops being offered to the canonical parser (`checker.format.scan.scanner.GIVE_UP`)."""


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

    def start(self, event: Event) -> None:
        """The run-info sink: line 1's `run_start` names the run (its id comes from the chain, read before the schema)."""
        if isinstance(event, RunStart):
            self.submission_id = event.submission_id
            self.track = event.track
            self.cell = event.cell
            self.seed = event.seed
            self.prereg_sha256 = event.prereg_sha256
            self.has_problem_set = event.problem_set is not None
            self.problem_set = event.problem_set.digest if event.problem_set is not None else None

    def end(self, event: Event) -> None:
        """The run ended (its first `run_end`)."""
        self.ended = isinstance(event, RunEnd)


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
    events: list[Event] = field(default_factory=list)
    """Every other event, in file order."""
    lines: list[int] = field(default_factory=list)
    """Line number of each of `events`."""
    sha256: str = ""
    """SHA-256 of the file's bytes (when `complete`)."""
    content_sha256: str = ""
    """Payload digest of `events` (`checker.stages.copies.PayloadDigest`; when `complete`)."""
    content_sketch: str | None = None
    """MinHash sketch of `events` (`checker.stages.near_copies`; when `complete`)."""


@dataclass
class ValidationReport:
    """Everything `validate` found."""

    findings: list[Finding] = field(default_factory=list)
    unreadable: list[Finding] = field(default_factory=list)
    submissions: int = 0
    runs: int = 0
    lines: int = 0
    names: list[Name] = field(default_factory=list)
    """Submission ids, cells and run ids seen, for the identity rules (`checker.format.names`)."""
    works: list[Work] = field(default_factory=list)

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


def validate_paths(paths: Iterable[Path], metric_names: Callable[[str], list[str]] | None = None,
                   blobs: BlobStore | None = None) -> ValidationReport:
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
            validate_submission(target, report, seen_runs, metric_names, blobs)
        else:
            report.runs += 1
            info = validate_run_file(target.path, str(target.path), report)
            _note_run(info, seen_runs, report)
    report.findings.extend(identity_findings(report.names, report.works))
    return report


def validate_submission(target: Target, report: ValidationReport, seen_runs: dict[str, RunInfo],
                        metric_names: Callable[[str], list[str]] | None = None, blobs: BlobStore | None = None) -> None:
    """Validate one submission folder and every run log its manifest lists."""
    report.submissions += 1
    display = target.path.as_posix()
    loaded = load_submission(target.path, display, blobs)
    report.findings.extend(loaded.findings)
    report.findings.extend(Finding(f"{display}/{rel}", None, f"stored by reference (blobs:) and not read: {why}")
                           for rel, why in loaded.unfetched)
    manifest = loaded.manifest
    names, works = submission_names(manifest, loaded.prereg, display)
    report.names.extend(names)
    report.works.extend(works)
    if manifest is not None:
        report.findings.extend(claim_findings(manifest, loaded.prereg, f"{display}/submission.yaml", metric_names))
    headers: list[tuple[str, str, str | None, str | None]] = []
    for run_path in loaded.run_paths:
        report.runs += 1
        shown = f"{display}/{loaded.rel(run_path)}"
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
    report.names.append(Name("run id", info.run_id, info.path, 1))
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
    opened = _open_log(path, display, report)
    if opened is None:
        return info
    fh, size, raw = opened
    progress.watch(raw)  # a progress bar counts the stored bytes read (`checker.format.progress`)
    # a compressed log's decompressed size is known only once read: it is kept and weighed as it goes
    compressed = storage_of(display) not in (None, "plain")
    keeper = KeptEvents(keep, size) if keep is not None and (size <= keep.max_weight or compressed) else None
    with fh:
        try:
            scanner = scan_log(fh, info, keeper, fast=FAST_PATH, give_up=FAST_PATH_GIVE_UP,
                               observe=keeper.observer() if keeper is not None else None)
        except LogStorageError as exc:  # a compressed log that breaks or expands without end: one finding
            if keeper is not None:
                keeper.abandon()
            report.findings.append(Finding(display, None, str(exc)))
            return info
    info.run_id = scanner.chain.run_id
    info.lines = scanner.lines
    report.lines += scanner.lines
    if keeper is not None and not scanner.refused:
        keeper.finish()
    problems = scanner.problems
    if scanner.lines == 0 and not problems:  # a compressed log can hold nothing (a plain one is refused above)
        problems.append((None, "empty run log (no events)"))
    if scanner.chain.ended_at is None and scanner.lines > 0 and not scanner.refused:
        problems.append((None, INCOMPLETE_MESSAGE))
    report.findings.extend(_listed(display, problems))
    return info


def _open_log(path: Path, display: str, report: ValidationReport) -> tuple[IO[bytes], int, IO[bytes]] | None:
    """The open log (its lines), its size bound and the stored file under it.

    None, with the finding, for a file that must not be read.
    """
    try:
        fh = open_regular(path)  # never through a link, never blocking on a FIFO
        size = os.fstat(fh.fileno()).st_size
    except RefusedFile as exc:
        report.findings.append(Finding(display, None, str(exc)))
        return None
    except OSError as exc:
        report.unreadable.append(Finding(display, None, f"cannot read: {exc.strerror}", unreadable=True))
        return None
    refusal = None
    storage = storage_of(display) or "plain"
    if size > MAX_FILE_BYTES:
        refusal = f"file is {size} bytes, larger than the {MAX_FILE_BYTES}-byte limit"
    elif size == 0:
        refusal = "empty run log (no events)"
    else:
        kind = compressed_kind(fh.read(8))
        # a format the name does not announce is refused on its magic bytes, never decompressed
        if kind is not None and kind != storage:
            refusal = (f"{kind}-compressed file named {display.rsplit('/', 1)[-1]!r}: a run log is plain UTF-8 "
                       "`.jsonl`, gzip `.jsonl.gz` or Zstandard `.jsonl.zst`, named for what it holds; it was not "
                       "decompressed")
        elif kind is None and storage != "plain":
            refusal = f"named .{'gz' if storage == 'gzip' else 'zst'}, but the file is not {storage}-compressed"
    if refusal is not None:
        fh.close()
        report.findings.append(Finding(display, None, refusal))
        return None
    fh.seek(0)
    if storage == "plain":
        return fh, size, fh
    # decompressed as it is read, bounded (checker.format.storage); the size bounds what is kept
    return open_stream(fh, storage, display, size), allowance(size), fh


def _listed(display: str, problems: list[Problem]) -> list[Finding]:
    """The findings of one log, by line (whole-file ones last), at most `MAX_FINDINGS_PER_FILE` listed."""
    problems.sort(key=lambda p: (p[0] is None, p[0] or 0))
    findings = [Finding(display, line, message) for line, message in problems[:MAX_FINDINGS_PER_FILE]]
    if len(problems) > MAX_FINDINGS_PER_FILE:
        findings.append(Finding(display, None, f"{len(problems) - MAX_FINDINGS_PER_FILE} more problems in this file not listed"))
    return findings


class KeptEvents:
    """The kept-events sink: fills a `KeptLog` (events, file digest, payload digest) while the log stays within its bound."""

    def __init__(self, kept: KeptLog, size: int) -> None:
        self.kept: KeptLog | None = kept
        """None once nothing more is kept (the log is too large to replay, or has a problem)."""
        self.file_hash = hashlib.sha256()
        self.payload = PayloadDigest()  # of the kept events (copy detection)
        self._keep_event, self._keep_line = kept.events.append, kept.lines.append  # bound once: called per event
        self._add_canonical = self.payload.add_canonical
        self.weight = 0
        # every object or array takes at least 2 bytes: a file this small cannot pass the bound, and its lines
        # need not be counted (two scans of each line, a tenth of the time of a typical line)
        self.weigh = size * (1 + kept.container_bytes / 2) > kept.max_weight

    def observer(self) -> Callable[[bytes], None]:
        """What sees each chunk read: the file hash alone when the log cannot outgrow the bound (no Python call)."""
        return self.observe if self.weigh else self.file_hash.update

    def observe(self, chunk: bytes) -> None:
        """Weigh and hash one chunk read; past the bound, drop everything kept."""
        kept = self.kept
        if kept is None:
            return
        if self.weigh:
            self.weight += len(chunk) + kept.container_bytes * (chunk.count(b"{") + chunk.count(b"["))
            if self.weight > kept.max_weight:  # too large to replay: validated streaming, nothing kept
                kept.events.clear()
                kept.lines.clear()
                self.kept = None
                return
        self.file_hash.update(chunk)

    def start(self, event: Event) -> None:
        """Keep line 1's event."""
        if self.kept is not None:
            self.kept.start = event

    def end(self, event: Event) -> None:
        """Keep the first `run_end`."""
        if self.kept is not None:
            self.kept.end = event

    def add(self, event: Event, lineno: int, canonical: bytes | None) -> None:
        """Keep one body event, and add it to the payload digest."""
        if self.kept is None:
            return
        self._keep_event(event)
        self._keep_line(lineno)
        if canonical is None:
            self.payload.add(event)
        else:
            self._add_canonical(canonical)

    def abandon(self) -> None:
        """Keep nothing more (what is kept stays, unused: the record is not complete)."""
        self.kept = None

    def finish(self) -> None:
        """The whole file was read: the record is complete."""
        kept = self.kept
        if kept is not None:
            kept.sha256 = self.file_hash.hexdigest()
            kept.content_sha256 = self.payload.hexdigest()
            kept.content_sketch = self.payload.sketch()
            kept.complete = True
