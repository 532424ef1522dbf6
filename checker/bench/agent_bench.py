"""`driftboard bench agent`: replay + gate + metrics on synthetic runs of 400 and 10,000 beats.

Each run log is written with `RunLogWriter` (an ARG-like mix per beat: the beat, a coverage and a
rule receipt, status transitions, a referent version every 4 beats, an LLM call with render
captures and canary echoes every 5 beats, some write rejects). Two timings, best of three, in
this process on the same file:

* parse: `read_run` (strict JSON decoding + event-model validation), which every consumer of
  the log pays;
* pipeline: parse + `score_run` (replay, the six gate conditions, GDS with recomputed landings,
  the whole metric table, milestones).

A third run is the adversarial shape of issue 15: many referents all covering one cell and as
many clicks on it. Its replay (landings from the spatial index of `checker.replay`) is timed
against the linear scan over the cell's referents that the index replaced, on the same events.

The last line is `events_per_s=<pipeline, largest run> ratio_vs_parse=<t_parse / t_pipeline>
peak_rss_mb=<peak resident set of this process> adversarial_speedup=<t_scan / t_index>`;
linearity shows as equal per-event cost on the two sizes.
"""

from __future__ import annotations

import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from checker.logio import RunLogWriter
from checker.replay import replay
from checker.score.agent import score_run
from checker.tracks import VerifyContext
from checker.verify import read_run

SIZES = (400, 10_000)
REPEATS = 3
ADVERSARIAL = (1_000, 10_000)
"""(referents covering one cell, clicks on it) of the adversarial run."""


def generate(path: Path, beats: int, header: dict[str, Any] | None = None) -> int:
    """Write a synthetic, valid agent run of `beats` beats; returns the number of events.

    `header` overrides fields of the `run_start` event (run id, submission, cell, seed, prereg digest).
    """
    start = {"run_id": f"bench-agent-{beats}", "submission_id": "bench", "track": "agent", "cell": "FULL",
             "seed": "s1", "backbone": "synthetic", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z",
             **(header or {})}
    n = 0
    with RunLogWriter(path, start) as log:

        def w(ev: dict[str, Any]) -> None:
            nonlocal n
            log.write(ev)
            n += 1

        w({"type": "startup_probe", "turn": 0})
        for r in range(40):
            x, y = (r * 7) % 60, (r * 3) % 60
            w({"type": "referent", "turn": 0, "ref_id": f"R{r:04d}", "version": 1, "kind": "percept-cluster",
               "anchor_cells": [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]})
        w({"type": "plan_step", "turn": 0, "commit_id": "C0001", "step_id": "C0001-S0", "step_ord": 0,
           "kind": "INTERACT", "target_ref": "R0003", "action": "ACTION6", "premises": [["RULE", "RU0001"]]})
        w({"type": "rule", "turn": 0, "rule_id": "RU0001", "ctx": {"action": "ACTION6", "target": "R0003"},
           "effect": {"score_event": 1}})
        w({"type": "goal_binding", "goal_id": "G0001", "ref_id": "R0003"})
        w({"type": "goal", "turn": 0, "goal_id": "G0001", "statement": "synthetic"})
        # each run's own first frame: runs with identical events would be copies (checker.copies)
        first_frame = hashlib.sha256(str(start["run_id"]).encode()).hexdigest()[:16]
        w({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
           "post_frame_hash": first_frame})
        for t in range(1, beats + 1):
            ref = f"R{t % 40:04d}"
            r = t % 40
            x, y = (r * 7) % 60, (r * 3) % 60
            live = t % 3 == 0
            w({"type": "beat", "turn": t, "action": "ACTION6", "params": {"x": x, "y": y}, "target_ref": ref,
               "step_id": "C0001-S0" if live else None,
               "shadow_step_id": None if live else f"G0001|ACTION6|R{(t + 1) % 40:04d}|RU0001",
               "drift_ref": "LIVE" if live else "SHADOW", "source_stamp": "COMMITMENT_STEP" if live else "PROBE",
               "render_tokens": 400 + t % 50, "match": t % 2, "level_counter": t // 1000, "score": t // 500})
            w({"type": "receipt", "turn": t, "action": "ACTION6", "target_ref": ref, "context_class": "CC0001",
               "observed": {"cells_changed": 4}})
            w({"type": "receipt", "turn": t, "action": "ACTION6", "target_ref": ref, "context_class": "CC0001",
               "predicted": {"cells_changed": "nonzero"}, "observed": {"cells_changed": 4}, "match": 1,
               "predictor_id": "RU0001", "predictor_kind": "RULE"})
            w({"type": "status", "turn": t, "entity_kind": "REFERENT_RUNG", "entity_id": ref, "to_status": "ENGAGED"})
            if t % 4 == 0:
                w({"type": "referent", "turn": t, "ref_id": ref, "version": 1 + t // 4, "kind": "percept-cluster",
                   "anchor_cells": [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]})
            if t % 5 == 0:
                for zone in ("Z2", "Z3", "Z6"):
                    w({"type": "canary_salt", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "nonce": f"ZQ{t:08x}"})
                w({"type": "llm_call", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "prompt_tokens": 900 + t % 97,
                   "completion_tokens": 120, "render_tokens": 800, "ops_accepted": 3, "ops_rejected": int(t % 50 == 0)})
                for zone in ("Z2", "Z3", "Z6"):
                    w({"type": "canary_echo", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "nonce": f"ZQ{t:08x}", "echoed": True})
                    w({"type": "render_capture", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "view_sha256": f"{t:064x}", "view_bytes": 3000, "render_tokens": 700})
            if t % 50 == 0:
                w({"type": "write_reject", "turn": t, "organ": "SURVEYOR", "op_type": "PROPOSE_GOAL",
                   "violation_class": "OUT_OF_SCHEMA"})
                w({"type": "milestone_claim", "turn": t, "claim_id": f"M{t}", "step_id": "C0001-S0"})
        log.end("COMPLETED", "horizon reached")
    return n + 2


def generate_adversarial(path: Path, referents: int, clicks: int) -> int:
    """Write a run whose `referents` referents all contain cell (5, 5), clicked `clicks` times; returns events."""
    start = {"run_id": f"bench-adversarial-{referents}x{clicks}", "submission_id": "bench", "track": "agent",
             "cell": "FULL", "seed": "s1", "backbone": "synthetic", "prereg_sha256": "0" * 64,
             "started_at": "2026-11-01T00:00:00Z"}
    with RunLogWriter(path, start) as log:
        log.write({"type": "startup_probe", "turn": 0})
        for r in range(referents):
            log.write({"type": "referent", "turn": 0, "ref_id": f"R{r:05d}", "version": 1, "kind": "region",
                       "anchor_cells": [[5, 5], [6 + r % 50, 5]]})
        for t in range(1, clicks + 1):
            log.write({"type": "beat", "turn": t, "action": "ACTION6", "params": {"x": 5, "y": 5},
                       "drift_ref": "LIVE", "source_stamp": "PROBE"})
        log.end("COMPLETED", "horizon reached")
    return referents + clicks + 3


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


def _best(fn: Any) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(workdir: Path | None) -> int:
    """Generate, measure, print; the last line carries the figures."""
    ctx = VerifyContext(profile="driftboard", prereg=None)
    last = ""
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
                f"{beats} beats, {events} events: parse {t_parse * 1000:.1f} ms, replay+gate+metrics "
                f"{t_score * 1000:.1f} ms ({t_score / events * 1e6:.2f} us/event), pipeline {t_pipe * 1000:.1f} ms"
            )
            last = f"events_per_s={events / t_pipe:.0f} ratio_vs_parse={t_parse / t_pipe:.2f} peak_rss_mb={rss:.0f}"
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
        click.echo(f"adversarial: {refs} referents on one cell x {clicks} clicks, {events} events: replay with the "
                   f"spatial index {t_index * 1000:.1f} ms, linear scan {t_scan * 1000:.1f} ms, "
                   f"replay+gate+metrics {t_adv * 1000:.1f} ms")
        last += f" adversarial_speedup={t_scan / t_index:.1f}"
    click.echo(last)
    return 0
