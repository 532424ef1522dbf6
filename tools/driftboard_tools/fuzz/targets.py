"""Fuzz targets for `driftboard bench fuzz`: what each one generates, runs and checks.

A target turns a hypothesis draw into a `Case` (files to write plus JSON parameters, so a saved
case can be replayed) and `execute`s it in a scratch folder. `execute` returns the kinds of
findings it saw (messages with names and numbers blanked) and raises on a *crash*:

* any exception escaping the documented error path (`UsageError` from the importers is
  documented; everything else is a crash);
* an exit code outside {0, 1, 2} (documented errors map to 1 and 2 as the command line maps them);
* a broken contract (`ContractViolation`): an evaluator that disagrees with Z3 or with brute
  force, an importer whose output does not validate, loses rows or differs between two runs,
  an undetected single edit of a valid log, or a reader that accepts what the validator refused.

Seeds come from the repository: `tests/cases/` and small copies of the shipped `submissions/`.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import sqlite3
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from checker.format.errors import UsageError
from driftboard_tools.fuzz.mutations import (
    any_log_mutation,
    byte_mutation,
    decode_events,
    event_mutation,
    havoc,
    json_values,
    line_mutation,
    must_be_detected,
    raw_mutation,
    rechain,
)
from driftboard_tools.generate.domains import answer_text, domain_problem, raw_constraint
from driftboard_tools.generate.stores import (
    ARG_EVENT_TABLES,
    arg_store_pair,
    drift_bench_rows,
    write_arg_stores,
    write_results_db,
    write_transcript,
)

REPO = Path(__file__).resolve().parents[3]
SUITE = REPO / "problems" / "driftboard-suite-v1"


class ContractViolation(AssertionError):
    """A checked property does not hold (a crash, like an escaping exception)."""


@dataclass
class Case:
    """One generated input: files (relative path -> bytes), JSON parameters and a note."""

    files: dict[str, bytes]
    params: dict[str, Any] = field(default_factory=dict)
    note: str = ""


def kind_of(message: str) -> str:
    """A finding message with quoted names, paths and numbers blanked (for counting distinct findings)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    text = re.sub(r"(/[^\s:]+)+", "/…", text)
    text = re.sub(r"0x[0-9a-f]+|[0-9a-f]{16,}|\d+", "N", text)
    return text[:90]


def write_files(root: Path, files: dict[str, bytes]) -> None:
    """Write a case's files under `root`."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


class Target(ABC):
    """A fuzz target (subclasses set `name` and implement `strategy` and `execute`)."""

    name = ""
    description = ""

    @abstractmethod
    def strategy(self) -> st.SearchStrategy[Case]:
        """Hypothesis strategy of cases."""

    @abstractmethod
    def execute(self, case: Case, work: Path) -> set[str]:
        """Run one case in the empty folder `work`; return finding kinds, raise on a crash."""


# ---------------------------------------------------------------------------------- seeds
@dataclass(frozen=True)
class Seed:
    """A seed file: its name, bytes and whether it is a valid run log."""

    name: str
    data: bytes
    valid: bool = True


def _miniature(run: Path, keep: int) -> bytes:
    """The first `keep` events of a shipped run plus its `run_end`, re-chained (a small valid log)."""
    events = decode_events(run.read_bytes())
    return rechain(events[:keep] + events[-1:])


@functools.cache
def submission_seeds() -> tuple[tuple[str, tuple[tuple[str, bytes], ...]], ...]:
    """Small valid submissions: the golden valid cases and trimmed copies of the shipped submissions.

    Raises:
        UsageError: the repository's `tests/cases/` or `submissions/` are not there.
    """
    valid = REPO / "tests" / "cases" / "valid"
    if not valid.is_dir():
        raise UsageError(f"{valid}: the fuzz seeds need a source checkout (tests/cases/valid not found)")
    out: list[tuple[str, tuple[tuple[str, bytes], ...]]] = []
    for sub in sorted(p for p in valid.iterdir() if p.is_dir()):
        files = tuple((p.relative_to(sub).as_posix(), p.read_bytes()) for p in sorted(sub.rglob("*")) if p.is_file())
        out.append((sub.name, files))
    trims = {"driftboard-microworld-agent": {"full-s1.jsonl": 150, "bare-s1.jsonl": 60},
             "driftboard-constraint-baselines": {"oracle-0.jsonl": 12, "lossy-ledger-0.jsonl": 12}}
    for name, runs in trims.items():
        root = REPO / "submissions" / name
        if not (root / "submission.yaml").is_file():
            continue
        manifest = yaml.safe_load((root / "submission.yaml").read_text(encoding="utf-8"))
        manifest["files"] = [f"runs/{r}" for r in runs]
        manifest.pop("claims", None)
        trimmed = [("submission.yaml", yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True).encode()),
                   ("prereg.yaml", (root / "prereg.yaml").read_bytes())]
        trimmed += [(f"runs/{r}", _miniature(root / "runs" / r, keep)) for r, keep in runs.items()]
        out.append((name, tuple(trimmed)))
    return tuple(out)


@functools.cache
def log_seeds() -> tuple[Seed, ...]:
    """Run logs: every valid one from `submission_seeds`, and the small invalid golden cases."""
    seeds = [Seed(f"{sub}/{rel}", data) for sub, files in submission_seeds() for rel, data in files
             if rel.endswith(".jsonl")]
    for path in sorted((REPO / "tests" / "cases" / "invalid").rglob("*.jsonl")):
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 65536:
            seeds.append(Seed(path.relative_to(REPO).as_posix(), path.read_bytes(), valid=False))
    return tuple(seeds)


@functools.cache
def yaml_seeds() -> tuple[Seed, ...]:
    """Every `submission.yaml` and `prereg.yaml` of `submission_seeds`."""
    return tuple(Seed(f"{sub}/{rel}", data) for sub, files in submission_seeds() for rel, data in files
                 if rel.endswith(".yaml"))


# ------------------------------------------------------------------------------ validate
def _physical_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


class ValidateTarget(Target):
    """Run-log validation of mutated bytes (`validate_run_file`), then the pipeline's reader."""

    name = "validate"
    description = "mutated run-log bytes -> validate_run_file and read_events"

    def strategy(self) -> st.SearchStrategy[Case]:
        """A seed log with one byte, line, stacked or event-level mutation."""
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            seed = draw(st.sampled_from(log_seeds()))
            m = draw(any_log_mutation(seed.data))
            data = m.apply(seed.data)
            promised = seed.valid and must_be_detected(seed.data, data, m)
            return Case({"run.jsonl": data}, {"seed": seed.name, "promised": promised}, m.note)

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Validate; check line numbers, the detection promise and the reader's agreement."""
        from checker.format.errors import LogFormatError
        from checker.format.logio import read_events
        from checker.stages.validate import ValidationReport, validate_run_file

        write_files(work, case.files)
        path = work / "run.jsonl"
        report = ValidationReport()
        validate_run_file(path, "run.jsonl", report)
        lines = _physical_lines(case.files["run.jsonl"])
        for f in report.findings:
            if not f.message or (f.line is not None and not 1 <= f.line <= lines):
                raise ContractViolation(f"finding outside the file: {f.render()} ({lines} lines)")
        if report.ok and case.params.get("promised"):
            raise ContractViolation(f"single edit of a valid log not detected: {case.note}")
        if report.ok:
            try:
                n = sum(1 for _ in read_events(path))
            except LogFormatError as exc:
                raise ContractViolation(f"validate accepted a log read_events refuses: {exc}") from None
            if n != lines:
                raise ContractViolation(f"read_events read {n} events from {lines} valid lines")
        return {kind_of(f.message) for f in report.unreadable + report.findings} or {"ok"}


# ---------------------------------------------------------------------------------- yaml
_METRICS = st.sampled_from(["completions", "valid_runs", "runs", "gds_bind", "gds_abandon", "turn_accuracy", "drift_rate",
                             "contradiction_rate", "wer", "nope"])
_CELLS = st.sampled_from(["FULL", "J0", "A0", "BARE", "toy-model/direct", "scripted/oracle", "scripted/lossy-ledger", "X"])
_NUMBER = st.one_of(st.sampled_from([0, 1, -1, 0.5, 2, 10**6, 1e308, 2**63]), st.floats(-2, 2, allow_nan=False))
_OPS = st.sampled_from(["<", "<=", "==", ">=", ">", "!="])
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "defeaters": st.lists(st.fixed_dictionaries(
        {"id": st.sampled_from(["D1", "D2"]), "text": st.just("t"), "metric": _METRICS, "op": _OPS, "value": _NUMBER},
        optional={"scope": st.one_of(st.just("all"), _CELLS),
                  "aggregate": st.sampled_from(["sum", "mean", "max", "min", "count"])}), max_size=3),
    "predictions": st.lists(st.fixed_dictionaries(
        {"id": st.sampled_from(["P1", "P2"]), "text": st.just("t")},
        optional={"metric": _METRICS, "cell": _CELLS, "op": _OPS, "value": _NUMBER, "versus": _CELLS}), max_size=3),
    "claims": st.lists(st.fixed_dictionaries({"cell": _CELLS, "metric": _METRICS, "value": st.one_of(st.none(), _NUMBER)},
                                             optional={"source": st.just("paper")}), max_size=3),
    "thresholds": st.fixed_dictionaries({}, optional={
        "render_ceiling_B": st.sampled_from([1, 40, 6000, 2**62]), "wer_floor": st.sampled_from([0, 0.25, 1]),
        "wer_min_ops": st.sampled_from([0, 5, 10**9]), "canary_floor": st.sampled_from([0, 0.9, 1]),
        "canary_warmup": st.sampled_from([0, 2, 10**9])}),
    "horizon": st.sampled_from([1, 5, 10**9]),
}
"""Well-formed manifest / pre-registration entries (claims, defeaters, predictions, thresholds) that reach evaluation."""


@st.composite
def yaml_mutation(draw: st.DrawFn, seed: bytes) -> bytes:
    """Structure-level edit of a YAML mapping: set, delete or add keys anywhere; dumped back."""
    doc = yaml.safe_load(seed)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_yaml_paths(doc))
        path = draw(st.sampled_from(paths)) if paths else ()
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        op = draw(st.sampled_from(["set", "set", "delete", "add", "plausible", "plausible"]))
        if not path:
            doc = draw(json_values)
            continue
        if op == "plausible" and isinstance(doc, dict):
            key = draw(st.sampled_from(sorted(PLAUSIBLE)))
            doc[key] = draw(PLAUSIBLE[key])
        elif op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["id", "files", "claims", "cells", "seeds", "thresholds", "defeaters",
                                         "predictions", "x", "horizon", "track", "profile"]))] = draw(json_values)
        else:
            parent[path[-1]] = draw(json_values)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode("utf-8")


def _yaml_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for k, v in items:
        yield (*prefix, k)
        yield from _yaml_paths(v, (*prefix, k))


def any_yaml_mutation(seed: bytes) -> st.SearchStrategy[bytes]:
    """Byte, line, stacked or structure-level mutation of a YAML file."""
    n = seed.count(b"\n")
    return st.one_of(raw_mutation(len(seed), n).map(lambda m: m.apply(seed)), yaml_mutation(seed))


def _yaml_lines(data: bytes) -> int:
    """Lines as YAML counts them: CR, LF, CRLF, NEL, LS and PS all break lines (findings use these numbers)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _physical_lines(data)
    return len(re.findall("\r\n|[\r\n\x85\u2028\u2029]", text)) + 1


class YamlTarget(Target):
    """Manifest and pre-registration loading (`read_yaml`) of mutated YAML."""

    name = "yaml"
    description = "mutated submission.yaml / prereg.yaml -> read_yaml"

    def strategy(self) -> st.SearchStrategy[Case]:
        """A seed YAML file with one mutation."""
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            seed = draw(st.sampled_from(yaml_seeds()))
            name = seed.name.rsplit("/", 1)[-1]
            return Case({name: draw(any_yaml_mutation(seed.data))}, {"seed": seed.name})

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Load; a model comes back exactly when there is no finding."""
        from checker.format.schema.manifest import Prereg, Submission
        from checker.stages.load import read_yaml

        write_files(work, case.files)
        (name,) = case.files
        model_cls: Any = Submission if name == "submission.yaml" else Prereg
        model, findings = read_yaml(work / name, model_cls, name)
        if (model is None) != bool(findings):
            raise ContractViolation(f"read_yaml returned model={model is not None} with {len(findings)} finding(s)")
        lines = _yaml_lines(case.files[name]) + 1
        for f in findings:
            if f.line is not None and not 1 <= f.line <= lines:
                raise ContractViolation(f"finding outside the file: {f.render()}")
        return {kind_of(f.message) for f in findings} or {"ok"}


# -------------------------------------------------------------------------------- verify
def _stage(run: Callable[[], tuple[int, Any]]) -> tuple[int, Any]:
    """Call a library stage; its documented errors become the exit codes the command line maps them to.

    `UsageError` is exit 2 and any other `DriftboardError` exit 1, with no report (the command
    line prints one `Error:` line); every other exception escapes, and is a crash.
    """
    from checker.format.errors import DriftboardError

    try:
        code, doc = run()
    except UsageError:
        return 2, None
    except DriftboardError:
        return 1, None
    if code not in (0, 1, 2):
        raise ContractViolation(f"exit code {code}")
    return code, doc


def _report(command: str, findings: list[Any], code: int, fmt: str, text: str, **extra: Any) -> Any:
    """Render a stage's findings as `--format` would; the JSON document, parsed back (None for text)."""
    from checker.format.report import findings_json, findings_text

    if fmt != "json":
        findings_text(findings, text)
        return None
    try:
        return json.loads(findings_json(command, findings, code, **extra))
    except ValueError:
        raise ContractViolation(f"{command} --format json printed no JSON document (exit {code})") from None


def _validate(sub: Path, fmt: str) -> tuple[int, Any]:
    """What `driftboard validate SUB --format FMT` computes and prints, through the library."""
    from checker.pipeline.metrics import claim_names
    from checker.stages.validate import validate_paths

    report = validate_paths([sub], claim_names)
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    summary = {"submissions": report.submissions, "runs": report.runs, "lines": report.lines, "problems": errors}
    return report.exit_code, _report("validate", findings, report.exit_code, fmt, "checked", summary=summary)


def _verify(sub: Path, results: Path, fmt: str) -> tuple[int, Any]:
    """What `driftboard verify SUB --no-cache --out RESULTS --format FMT` computes and prints, through the library."""
    from checker.cli.report_text import track_text
    from checker.pipeline.verify import default_problem_dirs, report_json, verify_paths

    problems = [SUITE] if SUITE.is_dir() else default_problem_dirs()
    report = verify_paths([sub], None, problems, cache_dir=None, results_dir=results)
    if fmt != "json":
        for s in report.submissions:  # the text report's per-track tables
            scored = [r for r in s.runs if r.verdict != "MALFORMED"]
            for track in sorted({r.track or "agent" for r in scored}):
                track_text(track, [r for r in scored if (r.track or "agent") == track])
    findings = report.unreadable + report.findings
    return report.exit_code, _report("verify", findings, report.exit_code, fmt, "verified", **report_json(report))


def _fix_prereg_digest(files: dict[str, bytes]) -> dict[str, bytes]:
    """Re-point every run's `prereg_sha256` at the (mutated) prereg.yaml, re-chaining the logs."""
    import hashlib

    digest = hashlib.sha256(files.get("prereg.yaml", b"")).hexdigest()
    out = dict(files)
    for rel, data in files.items():
        if rel.endswith(".jsonl"):
            try:
                events = decode_events(data)
            except ValueError:
                continue
            if events and isinstance(events[0], dict):
                events[0]["prereg_sha256"] = digest
                out[rel] = rechain(events)
    return out


class VerifyTarget(Target):
    """What `driftboard validate` and `driftboard verify` compute and report, of a mutated small submission."""

    name = "verify"
    description = "mutated small submission -> validate + verify + reports (results written)"

    def strategy(self) -> st.SearchStrategy[Case]:
        """One file of a seed submission mutated; logs mostly at the event level (re-chained)."""
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            sub, seed_files = draw(st.sampled_from(submission_seeds()))
            files = dict(seed_files)
            rel = draw(st.sampled_from(sorted(files)))
            data = files[rel]
            if rel.endswith(".jsonl"):
                m = draw(st.one_of(event_mutation(data), event_mutation(data), event_mutation(data),
                                   byte_mutation(len(data)), line_mutation(data.count(b"\n")),
                                   havoc(len(data), data.count(b"\n"))))
                files[rel], note = m.apply(data), m.note
            else:
                files[rel], note = draw(any_yaml_mutation(data)), "yaml"
                if rel == "prereg.yaml" and draw(st.booleans()):
                    files = _fix_prereg_digest(files)
                    note += "; run headers re-pointed at the new prereg digest"
            fmt = draw(st.sampled_from(["json", "text"]))
            return Case({f"sub/{sub}/{k}": v for k, v in files.items()}, {"submission": sub, "format": fmt},
                        f"{rel}: {note}")

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Validate and verify through the library, reported as the CLI would; exit codes, JSON parses."""
        write_files(work, case.files)
        sub = work / "sub" / case.params["submission"]
        fmt = case.params.get("format", "json")
        kinds: set[str] = set()
        code, doc = _stage(lambda: _validate(sub, fmt))
        kinds.add(f"validate exit {code}")
        for problem in (doc or {}).get("problems", []):
            kinds.add(kind_of(str(problem.get("message"))))
        code, doc = _stage(lambda: _verify(sub, work / "results", fmt))
        kinds.add(f"verify exit {code}")
        for s in (doc or {}).get("submissions", []):
            for run in s.get("runs", []):
                kinds.add(f"verdict {run.get('verdict')}")
        for problem in (doc or {}).get("problems", []):
            kinds.add(kind_of(str(problem.get("message"))))
        return kinds


# ------------------------------------------------------------------------------- importers
def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _check_import_output(out: Path, allowed: set[str]) -> None:
    from checker.stages.validate import validate_paths

    report = validate_paths([out])
    bad = [f.render() for f in report.unreadable + report.findings if f.message not in allowed]
    if bad:
        raise ContractViolation("imported submission does not validate: " + "; ".join(bad[:3]))


def _event_count(path: Path, types: set[str] | None = None) -> int:
    return sum(1 for ev in decode_events(path.read_bytes()) if types is None or ev.get("type") in types)


def arg_expected_counts(state_db: Path, probe_db: Path) -> dict[str, int]:
    """Native run id -> events its log must hold.

    One event per row of the run in every mapped table, plus run_start, plus run_end when the run
    is closed (COMPLETED/ABORTED/FAILED, or a comparator with ended_at).
    """
    uri = "file:{}?mode=ro&immutable=1"
    state = sqlite3.connect(uri.format(state_db), uri=True)
    probe = sqlite3.connect(uri.format(probe_db), uri=True)
    try:
        def tables(con: sqlite3.Connection) -> set[str]:
            return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}

        def rows(con: sqlite3.Connection, names: tuple[str, ...], rid: Any) -> int:
            have = tables(con)
            return sum(con.execute(f"SELECT count(*) FROM {t} WHERE run_id=?", (rid,)).fetchone()[0]
                       for t in names if t in have)

        counts: dict[str, int] = {}
        state_ids = set()
        if "run" in tables(state):
            for rid, status in state.execute("SELECT run_id, status FROM run"):
                state_ids.add(rid)
                closed = status in ("COMPLETED", "ABORTED", "FAILED")
                counts[rid] = 1 + closed + rows(state, ARG_EVENT_TABLES["state"], rid) + rows(
                    probe, ARG_EVENT_TABLES["probe"], rid)
        if "run_config" in tables(probe):
            for rid, ended in probe.execute("SELECT run_id, ended_at FROM run_config"):
                if rid not in state_ids:
                    counts[rid] = 1 + bool(ended) + rows(probe, (*ARG_EVENT_TABLES["probe"], "api_log"), rid)
        return counts
    finally:
        state.close()
        probe.close()


class ImportArgTarget(Target):
    """`import arg` of random ARG store pairs, then validate, recount, re-import and verify."""

    name = "import-arg"
    description = "random ARG state.db + probe.db -> import, validate, counts, determinism, verify"

    def strategy(self) -> st.SearchStrategy[Case]:
        """A store pair (conforming or wild), sometimes with corrupted bytes."""
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            wild = draw(st.booleans())
            spec = draw(arg_store_pair(wild=wild))
            with tempfile.TemporaryDirectory() as tmp:
                write_arg_stores(spec, Path(tmp) / "state.db", Path(tmp) / "probe.db")
                files = {"state.db": (Path(tmp) / "state.db").read_bytes(), "probe.db": (Path(tmp) / "probe.db").read_bytes()}
            note = "wild" if wild else "conforming"
            if wild and draw(st.integers(0, 5)) == 0:
                name = draw(st.sampled_from(sorted(files)))
                m = draw(byte_mutation(len(files[name])))
                files[name] = m.apply(files[name])
                note += f"; {name}: {m.note}"
            return Case(files, {"wild": wild, "must_import": not wild}, note)

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Import (UsageError is the documented failure); otherwise check output, counts, bytes, verify."""
        from checker.importers.arg import import_submission
        from checker.pipeline.verify import verify_paths
        from checker.stages.validate import INCOMPLETE_MESSAGE

        write_files(work, case.files)
        state, probe = work / "state.db", work / "probe.db"
        out = work / "a" / "fz-arg"
        try:
            import_submission(state, probe, out)
        except UsageError as exc:
            if case.params.get("must_import"):
                raise ContractViolation(f"a conforming store pair was refused: {exc}") from None
            return {"usage: " + kind_of(str(exc))}
        _check_import_output(out, {INCOMPLETE_MESSAGE})
        expected = arg_expected_counts(state, probe)
        logs = sorted((out / "runs").glob("*.jsonl"))
        if len(logs) != len(expected):
            raise ContractViolation(f"{len(expected)} runs in the stores, {len(logs)} logs written")
        got = {}
        for log in logs:
            first = decode_events(log.read_bytes())[0]
            got[first["source"]["native_run_id"]] = _event_count(log)
        if got != {str(k): v for k, v in expected.items()}:
            raise ContractViolation(f"events per run {got}, rows per run {expected}")
        again = work / "b" / "fz-arg"
        import_submission(state, probe, again)
        if _tree(out) != _tree(again):
            raise ContractViolation("importing the same stores twice gave different bytes")
        report = verify_paths([out])
        kinds = {"imported"} | {f"verdict {r.verdict}" for s in report.submissions for r in s.runs}
        return kinds | {kind_of(f.message) for f in report.findings}


def _suite_problems() -> list[dict[str, Any]]:
    names = ("seating_001", "scheduling_001", "logic_grid_001")
    if not all((SUITE / f"{n}.json").is_file() for n in names):
        raise UsageError(f"{SUITE}: the drift-bench fuzz target needs the repository's problem suite")
    return [json.loads((SUITE / f"{n}.json").read_text(encoding="utf-8")) for n in names]


class ImportDriftBenchTarget(Target):
    """`import drift-bench` of random transcripts / results databases, then validate, recount, re-import, verify."""

    name = "import-drift-bench"
    description = "random DRIFT-Bench transcript or results.db -> import, validate, counts, determinism, verify"

    def strategy(self) -> st.SearchStrategy[Case]:
        """Rows over three suite problems as a transcript or a database (conforming or wild)."""
        problems = _suite_problems()

        @st.composite
        def case(draw: st.DrawFn) -> Case:
            wild = draw(st.booleans())
            rows = draw(drift_bench_rows(problems, wild=wild))
            kind = draw(st.sampled_from(["transcript", "sqlite"]))
            with tempfile.TemporaryDirectory() as tmp:
                src = Path(tmp) / ("src.jsonl" if kind == "transcript" else "results.db")
                if kind == "transcript":
                    write_transcript(rows, problems, src, ascii_only=draw(st.booleans()))
                else:
                    write_results_db(rows, src)
                data = src.read_bytes()
            note = f"{kind}, {len(rows)} rows, {'wild' if wild else 'conforming'}"
            if wild and draw(st.integers(0, 4)) == 0:
                m = draw(raw_mutation(len(data), data.count(b"\n")))
                data = m.apply(data)
                note += f"; {m.note}"
            files = {src.name: data}
            for p in problems:
                files[f"problems/test/{p['problem_id']}.json"] = json.dumps(p).encode()
            expected = None if wild else len(rows)  # conforming rows are unique per (model, method, problem, turn)
            return Case(files, {"source": src.name, "rows": expected}, note)

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Import (UsageError is the documented failure); otherwise check output, counts, bytes, verify."""
        from checker.importers.drift_bench import import_submission
        from checker.pipeline.verify import verify_paths

        write_files(work, case.files)
        src, problems = work / case.params["source"], work / "problems"
        out = work / "a" / "fz-db"
        try:
            import_submission(src, problems, out)
        except UsageError as exc:
            if case.params.get("rows") is not None:
                raise ContractViolation(f"conforming rows were refused: {exc}") from None
            return {"usage: " + kind_of(str(exc))}
        _check_import_output(out, set())
        turns = sum(_event_count(p, {"turn"}) for p in (out / "runs").glob("*.jsonl"))
        if case.params.get("rows") is not None and turns != case.params["rows"]:
            raise ContractViolation(f"{case.params['rows']} model turns in, {turns} turn events out")
        again = work / "b" / "fz-db"
        import_submission(src, problems, again)
        if _tree(out) != _tree(again):
            raise ContractViolation("importing the same source twice gave different bytes")
        report = verify_paths([out], problem_dirs=[problems])
        kinds = {"imported"} | {f"verdict {r.verdict}" for s in report.submissions for r in s.runs}
        return kinds | {kind_of(f.message) for f in report.findings}


# --------------------------------------------------------------------------------- domains
@functools.cache
def _all_assignments(problem_json: str) -> tuple[tuple[int, ...], ...]:
    """Every assignment satisfying the base axioms, enumerated without Z3."""
    from checker.constraint.domains import LogicGrid, Scheduling, make_domain

    dom = make_domain(json.loads(problem_json))
    if isinstance(dom, Scheduling):
        per = [(s, d) for d in range(1, dom.max_duration + 1) for s in range(1, dom.slots - d + 2)]
        return tuple(tuple(x for sd in combo for x in sd) for combo in itertools.product(per, repeat=dom.n))
    if isinstance(dom, LogicGrid):
        out = []
        for cols in itertools.product(list(itertools.permutations(range(dom.n))), repeat=dom.nc):
            out.append(tuple(cols[c][e] for e in range(dom.n) for c in range(dom.nc)))
        return tuple(out)
    return tuple(itertools.permutations(range(dom.n)))


class DomainsTarget(Target):
    """The Z3 domain evaluators: shortcut solver, Z3-only solver, fresh solver and brute force agree."""

    name = "domains"
    description = "random small problems + constraints + answers -> fast path == Z3 == brute force; MUS minimal"

    def strategy(self) -> st.SearchStrategy[Case]:
        """A small problem, up to 6 constraints and a response text."""
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            problem = draw(domain_problem())
            constraints = draw(st.lists(raw_constraint(problem), max_size=6))
            return Case({}, {"problem": problem, "constraints": constraints, "response": draw(answer_text(problem))})

        return case()

    def execute(self, case: Case, work: Path) -> set[str]:
        """Compare every SAT path and the answer check with brute force; check the MUS."""
        from checker.constraint.answers import extract_answer
        from checker.constraint.domains import make_domain
        from checker.constraint.domains.solver import ProblemSolver, naive_sat

        problem, constraints = case.params["problem"], case.params["constraints"]
        dom = make_domain(problem)
        universe = _all_assignments(json.dumps(problem, sort_keys=True))
        keys = [dom.compile_constraint(c) for c in constraints]

        def brute(ks: list[Any]) -> bool:
            return any(dom.satisfied_by(ks, a) for a in universe)

        fast, z3_only = ProblemSolver(dom), ProblemSolver(dom, use_shortcuts=False)

        def agree(ks: list[Any], what: str) -> bool:
            verdicts = {"brute force": brute(ks), "fresh z3": naive_sat(dom, ks), "z3 solver": z3_only.sat(ks),
                        "fast path": fast.sat(ks)}
            if len(set(verdicts.values())) != 1:
                raise ContractViolation(f"{what}: {verdicts} for keys {ks}")
            return verdicts["brute force"]

        sat = agree(keys, "ledger")
        kinds = {f"{dom.name} {'sat' if sat else 'unsat'}"}
        answer = extract_answer(dom, case.params["response"])
        if answer is not None:
            akeys = dom.answer_keys(answer)
            correct = agree(keys + akeys, "answer")
            pinned = dom.complete_assignment(akeys)
            if pinned is not None and dom.satisfied_by(keys + akeys, pinned) != correct:
                raise ContractViolation(f"direct evaluation of the complete answer {answer} disagrees with brute force")
            kinds.add(f"{dom.name} answer {'complete' if pinned is not None else 'partial'} "
                      f"{'correct' if correct else 'wrong'}")
        if not sat:
            entries = [(f"C{i}", k) for i, k in enumerate(keys)]
            mus = set(fast.mus(entries))
            core = [k for cid, k in entries if cid in mus]
            if not mus or brute(core):
                raise ContractViolation(f"MUS {sorted(mus)} is empty or satisfiable")
            for i in range(len(core)):
                if not brute(core[:i] + core[i + 1:]):
                    raise ContractViolation(f"MUS {sorted(mus)} is not minimal")
            kinds.add(f"{dom.name} mus size {min(len(mus), 3)}")
        return kinds


TARGETS: dict[str, type[Target]] = {
    t.name: t for t in (ValidateTarget, YamlTarget, VerifyTarget, ImportArgTarget, ImportDriftBenchTarget, DomainsTarget)
}
"""Every target, by name (the order `driftboard bench fuzz` runs them in)."""
