"""`driftboard bench agent`: the agent path per beat on ARG's own cases, against ARG's probes.

**ARG cases** (`--cases`, default `$DRIFTBOARD_SHARED_DATA/arg/cases`): every store pair with a
run is imported (`import_submission`, with the thresholds its probes ran under) and verified
(`verify_paths(profile="arg-v1.0")`), in this process, warm (imports excluded), each timed as
the best of `--repeats` in CPU time (`time.process_time`). Verification is also split into its
stages, each timed on its own over the same logs:

* `validate`: the one pass over the log that `verify` makes (bounded read, SHA-256 chain,
  strict JSON, event-model validation, the events kept for scoring);
* `score`: replay + gate + metrics (`score_run` on the kept events); `replay` alone beside it;
* the rest of `verify`: manifests (YAML), the cell aggregation, the results file and its digests.

Baselines timed in the same run over the same bytes: a bare `json.loads` per line, SHA-256 per
line (the chain's inherent cost), strict parsing (`jiter`) and event-model validation of the
already-parsed lines (the validation's inherent cost); for writing (the importer), each event
model to its canonical line, as `RunLogWriter` writes it; and the payload digest of copy detection.
The reference is ARG's own probes (`probe_arg_metrics.compute` + `probe_arg_legibility.verify`, in-process): 0.27 ms of CPU per
beat, as measured in issue 21 (ARG's probes are not code in this repository, so the figure is a
stated constant). Beats are the runs' `actions` (RESET rows included), as ARG counts them.

**Start-up**: `driftboard --help`, `validate` and `verify` of a one-run submission in fresh
processes (see `driftboard_tools.bench.startup`).

**Synthetic** (`--synthetic`): replay + gate + metrics on generated runs of 400 and 10,000 beats
(linearity; written by `driftboard_tools.generate.agent_logs`, which also feeds `bench scale`),
and the adversarial shape of issue 15: many referents all covering one cell and as many clicks on
it, its replay (landings from the spatial index of `checker.agent.replay`) timed against the
linear scan over the cell's referents that the index
replaced, on the same events.

The last line is `score_ms_per_beat=… verify_ms_per_beat=… import_verify_ms_per_beat=…
score_vs_arg=… import_verify_vs_arg=… startup_verify_s=… startup_validate_s=…`.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import jiter

from checker.agent.replay import replay
from checker.agent.scorer import score_run
from checker.format.logio import REPLAY_CONTAINER_BYTES
from checker.format.schema.events import EVENT_ADAPTER, canonical_line
from checker.importers.arg import import_submission, thresholds_from_arg
from checker.pipeline.verify import kept_record, read_run, verify_paths
from checker.stages.copies import PayloadDigest
from checker.stages.load import load_submission
from checker.stages.tracks import VerifyContext
from checker.stages.validate import KeptLog, ValidationReport, validate_run_file
from driftboard_tools.bench.startup import ONE_RUN_CASE, cases_dir_or_fail, import_one_run, machine_line, startup, startup_lines
from driftboard_tools.generate.agent_logs import generate, generate_adversarial

ARG_PROBES_MS_PER_BEAT = 0.27
"""CPU per beat of ARG's own probes (`probe_arg_metrics.compute` + `probe_arg_legibility.verify`,
in-process, on 70 ARG store pairs): the reference measured in issue 21."""
SCORE_GOAL = 1.0
"""Issue 21: replay + gate + metrics at most 1x ARG's probes per beat."""
IMPORT_VERIFY_GOAL = 2.0
"""Issue 21: import + verify at most 2x ARG's probes per beat."""

SIZES = (400, 10_000)
REPEATS = 3
ADVERSARIAL = (1_000, 10_000)
"""(referents covering one cell, clicks on it) of the adversarial run."""


def scan_landings(record: Any) -> list[str | None]:
    """Landings by the linear scan the spatial index replaced: every referent containing the cell, each click."""
    by_cell: dict[tuple[int, int], set[str]] = {}
    size: dict[str, int] = {}
    order: dict[str, int] = {}
    out: list[str | None] = []
    for position, event in enumerate(record.events):
        if event.type == "referent":
            size[event.ref_id], order[event.ref_id] = len(event.anchor_cells), position
            for c in event.anchor_cells:
                by_cell.setdefault((c[0], c[1]), set()).add(event.ref_id)
        elif event.type == "beat" and event.params:
            holders = by_cell.get((event.params["x"], event.params["y"]), set())
            out.append(min(((size[r], order[r], r) for r in holders), default=(0, 0, None))[2])
    return out


def _best(fn: Callable[..., Any], repeats: int = REPEATS, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best time (seconds, by `clock`) of `repeats` calls of `fn`."""
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def synthetic(workdir: Path | None) -> None:
    """Generated runs of 400 and 10,000 beats (linearity) and the adversarial landing shape: replay + gate + metrics."""
    ctx = VerifyContext(profile="driftboard", prereg=None)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for beats in SIZES:
            path = Path(tmp) / f"agent-{beats}.jsonl"
            events = generate(path, beats)
            t_parse = _best(lambda p=path: read_run(p, p.name))
            t_pipe = _best(lambda p=path: score_run(read_run(p, p.name), ctx))
            record = read_run(path, path.name)
            t_score = _best(lambda r=record: score_run(r, ctx))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
            click.echo(
                f"  {beats} beats, {events} events: parse {t_parse * 1000:.1f} ms, replay+gate+metrics "
                f"{t_score * 1000:.1f} ms ({t_score / events * 1e6:.2f} us/event), pipeline {t_pipe * 1000:.1f} ms"
            )
            click.echo(f"  events_per_s={events / t_pipe:.0f} ratio_vs_parse={t_parse / t_pipe:.2f} peak_rss_mb={rss:.0f}")
        refs, clicks = ADVERSARIAL
        path = Path(tmp) / "agent-adversarial.jsonl"
        events = generate_adversarial(path, refs, clicks)
        record = read_run(path, path.name)
        t_index = _best(lambda r=record: replay(r))
        t0 = time.perf_counter()
        scanned = scan_landings(record)
        t_scan = time.perf_counter() - t0
        assert scanned == [land.ref for land in replay(record).landings]  # same landings, only faster
        t_adv = _best(lambda r=record: score_run(r, ctx))
        click.echo(f"  adversarial: {refs} referents on one cell x {clicks} clicks, {events} events: replay with the "
                   f"spatial index {t_index * 1000:.1f} ms, linear scan {t_scan * 1000:.1f} ms, "
                   f"replay+gate+metrics {t_adv * 1000:.1f} ms")
        click.echo(f"  adversarial_speedup={t_scan / t_index:.1f}")


def best_cpu(fn: Callable[[], Any], repeats: int) -> float:
    """Best CPU time (seconds) of `repeats` calls of `fn`."""
    return _best(fn, repeats, time.process_time)


STAGES = ("import", "verify", "validate", "score", "replay", "json_loads", "chain_sha256", "parse", "models", "dump",
          "payload_digest")
"""What is timed per case (see the module docstring); `verify` contains `validate` and `score`."""


@dataclass
class CaseTiming:
    """Best CPU seconds per stage for one ARG case, with its size."""

    name: str
    runs: int
    beats: int
    events: int
    seconds: dict[str, float] = field(default_factory=dict)


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def time_case(case: Path, tmp: Path, repeats: int) -> CaseTiming | None:
    """Import and verify one ARG case and time every stage; None for a store pair without a run."""
    truth = json.loads((case / "truth.json").read_text())
    if not truth.get("runs"):
        return None
    thresholds = thresholds_from_arg(truth["probe_thresholds"])
    counter = iter(range(10**6))

    def do_import() -> Path:
        out = tmp / f"{case.name}-{next(counter)}"
        import_submission(case / "state.db", case / "probe.db", out, thresholds=thresholds)
        return out

    sub = do_import()
    t: dict[str, float] = {"import": best_cpu(do_import, repeats)}
    report = verify_paths([sub], profile="arg-v1.0")  # warm-up, and the beats
    (result,) = report.submissions
    t["verify"] = best_cpu(lambda: verify_paths([sub], profile="arg-v1.0"), repeats)
    prereg = load_submission(sub, sub.name).prereg
    ctx = VerifyContext(profile="arg-v1.0", prereg=prereg)
    logs = sorted((sub / "runs").glob("*.jsonl"))

    def validate_all() -> list[KeptLog]:
        kept_logs = []
        for log in logs:
            kept = KeptLog(max_weight=1 << 40, container_bytes=REPLAY_CONTAINER_BYTES)
            validate_run_file(log, log.name, ValidationReport(), kept)
            kept_logs.append(kept)
        return kept_logs

    kept_logs = validate_all()
    records = [kept_record(k, log.name) for k, log in zip(kept_logs, logs, strict=True)]
    t["validate"] = best_cpu(validate_all, repeats)
    t["score"] = best_cpu(lambda: [score_run(r, ctx) for r in records], repeats)
    t["replay"] = best_cpu(lambda: [replay(r) for r in records], repeats)
    raw = [_lines(log) for log in logs]
    t["json_loads"] = best_cpu(lambda: [json.loads(line) for lines in raw for line in lines], repeats)
    t["chain_sha256"] = best_cpu(lambda: [hashlib.sha256(line).hexdigest() for lines in raw for line in lines], repeats)
    t["parse"] = best_cpu(lambda: [jiter.from_json(line, allow_inf_nan=False, catch_duplicate_keys=True)
                              for lines in raw for line in lines], repeats)
    validate = EVENT_ADAPTER.validator.validate_json
    t["models"] = best_cpu(lambda: [validate(line) for lines in raw for line in lines], repeats)
    # what writing a log costs beyond validating each event (the importer's `RunLogWriter`)
    events = [e for r in records for e in (r.start, *r.events, *([r.end] if r.end is not None else []))]
    t["dump"] = best_cpu(lambda: [canonical_line(e) for e in events], repeats)
    t["payload_digest"] = best_cpu(lambda: [_payload(r.events) for r in records], repeats)
    beats = sum(a for r in result.runs if isinstance(a := r.metric("actions"), int))
    return CaseTiming(case.name, len(result.runs), beats, sum(map(len, raw)), t)


def _payload(events: list[Any]) -> str:
    digest = PayloadDigest()
    digest.add_all(events)
    return digest.hexdigest()


def _per_beat(cases: list[CaseTiming], stage: str) -> float:
    """Milliseconds of CPU per beat over `cases` (summed time / summed beats)."""
    beats = sum(c.beats for c in cases)
    return 1000 * sum(c.seconds[stage] for c in cases) / beats if beats else float("nan")


def arg_cases(cases: Path, repeats: int, workdir: Path | None) -> list[CaseTiming]:
    """Time every ARG case with a run (see `time_case`)."""
    out = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for case in sorted(p for p in cases.iterdir() if (p / "truth.json").is_file()):
            timing = time_case(case, Path(tmp), repeats)
            if timing is not None:
                out.append(timing)
    return out


def report_lines(timings: list[CaseTiming]) -> list[str]:
    """The per-case table, then per-beat and per-event figures for all cases and for the long `d_*` runs."""
    lines = [f"  {'case':<26} {'runs':>4} {'beats':>5} {'events':>6}  {'import':>7} {'verify':>7} "
             f"{'validate':>8} {'score':>7}  (ms CPU, best)"]
    for c in timings:
        s = c.seconds
        lines.append(f"  {c.name:<26} {c.runs:>4} {c.beats:>5} {c.events:>6}  {s['import'] * 1000:7.1f} "
                     f"{s['verify'] * 1000:7.1f} {s['validate'] * 1000:8.1f} {s['score'] * 1000:7.1f}")
    for label, group in (("all cases", timings), ("d_* (ARG's agent loop)", [c for c in timings if c.name.startswith("d_")])):
        if not group:
            continue
        beats, events = sum(c.beats for c in group), sum(c.events for c in group)
        lines.append(f"{label}: {len(group)} store pairs, {sum(c.runs for c in group)} runs, {beats} beats, "
                     f"{events} events; ms CPU per beat (x ARG's probes at {ARG_PROBES_MS_PER_BEAT} ms/beat):")
        for stage, what in (("score", "replay + gate + metrics"), ("replay", "  of which replay"),
                            ("validate", "validate (one pass: read, chain, parse, models)"),
                            ("verify", "verify (validate + score + manifests, cells, results)"),
                            ("import", "import (SQLite -> canonical log)"), ("json_loads", "baseline: json.loads per line"),
                            ("chain_sha256", "inherent: SHA-256 per line (chain)"),
                            ("parse", "inherent: strict JSON parse (jiter)"),
                            ("models", "inherent: validating parse (validate_json)"),
                            ("dump", "inherent, writing: event model -> canonical line"),
                            ("payload_digest", "copy detection: payload digest")):
            ms = _per_beat(group, stage)
            per_event = 1e6 * sum(c.seconds[stage] for c in group) / events
            lines.append(f"  {what:<54} {ms:6.3f} ms/beat ({ms / ARG_PROBES_MS_PER_BEAT:4.2f}x)  {per_event:6.1f} us/event")
        both = _per_beat(group, "import") + _per_beat(group, "verify")
        lines.append(f"  {'import + verify':<54} {both:6.3f} ms/beat ({both / ARG_PROBES_MS_PER_BEAT:4.2f}x)")
    return lines


def summary(timings: list[CaseTiming]) -> dict[str, float]:
    """The headline figures over all cases."""
    score, verify, imp = (_per_beat(timings, s) for s in ("score", "verify", "import"))
    return {"score_ms_per_beat": score, "verify_ms_per_beat": verify, "import_verify_ms_per_beat": imp + verify,
            "score_vs_arg": score / ARG_PROBES_MS_PER_BEAT, "import_verify_vs_arg": (imp + verify) / ARG_PROBES_MS_PER_BEAT}


def run(cases: Path | None, repeats: int, startup_runs: int, with_synthetic: bool, workdir: Path | None) -> int:
    """`driftboard bench agent`: ARG cases, start-up, optionally the synthetic runs; the last line carries the figures."""
    folder = cases_dir_or_fail(cases)
    click.echo(machine_line())
    timings = arg_cases(folder, repeats, workdir)
    click.echo(f"ARG cases ({folder}), in-process, warm, best of {repeats}:")
    for line in report_lines(timings):
        click.echo(line)
    figures = summary(timings)
    click.echo(f"goals: replay + gate + metrics <= {SCORE_GOAL:g}x ARG's probes: "
               f"{'met' if figures['score_vs_arg'] <= SCORE_GOAL else 'NOT met'}; import + verify <= "
               f"{IMPORT_VERIFY_GOAL:g}x: {'met' if figures['import_verify_vs_arg'] <= IMPORT_VERIFY_GOAL else 'NOT met'}")
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        one = import_one_run(folder, Path(tmp) / "one-run")
        start = startup(one, Path(tmp), startup_runs)
    click.echo(f"start-up, fresh processes, one-run submission ({ONE_RUN_CASE}):")
    for line in startup_lines(start):
        click.echo(line)
    if with_synthetic:
        click.echo("synthetic runs (replay + gate + metrics per event):")
        synthetic(workdir)
    by = {t.name: t for t in start}
    click.echo(" ".join(f"{k}={v:.3f}" for k, v in figures.items())
               + f" startup_verify_s={by['driftboard verify'].wall_s:.3f}"
               + f" startup_validate_s={by['driftboard validate'].wall_s:.3f}")
    return 0
