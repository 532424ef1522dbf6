"""Import an ARG store pair (state.db + probe.db) as a canonical agent-track submission.

Every run in the pair becomes one run log (`runs/<native id>.jsonl`); runs found only in the
probe store (ARG's BARE/RAW baselines, which write no state store) become comparator runs.
Both stores are opened read-only (`checker.importers.arg_store`), so a read-only mount works
and the files are never touched. The output bytes depend only on the two stores and the thresholds.

This module names the runs (cell from the run's config, seed from its arm, file name from its
id), writes the pre-registration and the manifest, and writes each run log from the events
`checker.importers.arg_events` maps from the rows (arg-spec.md §a). Tables no metric reads
(binding_record, action_model, annotate, experiment, procedure, relation, ...) are not carried over.

A run whose ARG status is still RUNNING (never closed out; ARG's hermetic fixtures) gets no
`run_end`, so Driftboard reports it INCOMPLETE; its gate is still computed and reported.
"""


from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.format.errors import UsageError
from checker.format.logio import EventError, RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN, Thresholds
from checker.importers.arg_events import EventQueue, Fields, probe_events, state_events
from checker.importers.arg_store import OPTIONAL_TABLES, ArgRun, collect_runs, open_ro, tables
from checker.importers.naming import unique

IMPORTER = "arg@1"
"""Importer name and version stamped into every run's `source`."""
PROFILE = "arg-v1.0"
"""Imported submissions are pre-registered under the profile that reproduces ARG's probes."""
HARNESS_COMMIT_UNKNOWN = "0000000"
"""ARG stores do not record the agent's commit; this placeholder says so (see the description)."""

ARG_THRESHOLD_NAMES = {
    "B_RENDER": "render_ceiling_B", "ARG_B": "render_ceiling_B",
    "WER_FLOOR": "wer_floor", "ARG_WER_FLOOR": "wer_floor",
    "WER_MIN_OPS": "wer_min_ops", "ARG_WER_MIN_OPS": "wer_min_ops",
    "ZCR_FLOOR": "canary_floor", "ARG_ZCR_FLOOR": "canary_floor",
    "ZCR_WARMUP_EPOCHS": "canary_warmup", "ARG_ZCR_WARMUP": "canary_warmup",
}
"""ARG's threshold names (probe constants and environment variables) -> `Thresholds` fields."""
_INTEGER_THRESHOLDS = ("render_ceiling_B", "wer_min_ops", "canary_warmup")

_GATE_FLAGS = ("join", "agenda", "search", "conseq", "retain", "seeds", "flat", "triggers", "goals", "fission")


def thresholds_from_arg(values: Mapping[str, Any]) -> Thresholds:
    """Build `Thresholds` from ARG names, e.g. truth.json's `probe_thresholds` or `{"ARG_B": "40"}`.

    Unknown names are ignored; missing ones keep ARG's defaults.

    Raises:
        UsageError: a value is not a number.
    """
    fields: dict[str, float] = {}
    for name, value in values.items():
        target = ARG_THRESHOLD_NAMES.get(name)
        if target is None:
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"threshold {name}={value!r} is not a number") from None
        fields[target] = int(number) if target in _INTEGER_THRESHOLDS else number
    return Thresholds.model_validate(fields)


def import_submission(
    state_db: Path, probe_db: Path, out: Path, thresholds: Thresholds | None = None
) -> int:
    """Convert every run of an ARG store pair into `out/` (submission.yaml, prereg.yaml, runs/).

    Args:
        state_db: ARG state ("model") store.
        probe_db: ARG probe ("observability") store.
        out: the submission folder to create (`submissions/<id>`); it must be absent or empty.
        thresholds: gate thresholds to pre-register (default: ARG's published defaults).

    Returns:
        0 on success.

    Raises:
        UsageError: unreadable or non-ARG input, a bad output folder, or a store pair without runs.
    """
    out = Path(out)
    submission_id = out.name
    if not re.match(SUBMISSION_ID_PATTERN, submission_id):
        raise UsageError(f"{out}: the folder name must be a submission id (lower-case letters, digits, '.', '_', '-')")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: output folder exists and is not empty")
    digests = {}
    for label, path in (("state.db", state_db), ("probe.db", probe_db)):
        if not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        digests[label] = file_sha256(Path(path))
    with open_ro(state_db) as state, open_ro(probe_db) as probe:
        runs = collect_runs(state, probe, state_db, probe_db)
        if not runs:
            raise UsageError(f"{state_db}, {probe_db}: no run in the state or probe store (ARG prints NO_RUN)")
        assign_labels(runs)
        out.mkdir(parents=True, exist_ok=True)
        prereg_bytes = _prereg_yaml(submission_id, runs, thresholds or Thresholds())
        (out / "prereg.yaml").write_bytes(prereg_bytes)
        stores = _Stores(state, probe, state_db, probe_db)
        header = _Header(submission_id, sha256_hex(prereg_bytes), digests)
        files = []
        for run in runs:
            rel = f"runs/{run.file}.jsonl"
            files.append(rel)
            _write_run(out / rel, run, header, stores)
    (out / "submission.yaml").write_bytes(_manifest_yaml(submission_id, runs[0].backbone, files, digests))
    return 0


def derive_cell(config: Mapping[str, Any]) -> str:
    """The campaign cell of a run from its `config_json` (e.g. FULL, J0, A0, J0A0, FULL+SEEDS0).

    Returns `UNKNOWN` when the config records no gates (ARG's unit fixtures).
    """
    gates = config.get("gates")
    if config.get("baseline"):
        return f"BASELINE-{str(config['baseline']).upper()}"
    if not isinstance(gates, dict):
        return "UNKNOWN"
    join, agenda = gates.get("join", True), gates.get("agenda", True)
    cell = "J0A0" if not join and not agenda else "J0" if not join else "A0" if not agenda else "FULL"
    for name in ("seeds", "goals", "search", "conseq", "retain", "flat", "triggers"):
        if gates.get(name) is False:
            cell += f"+{name.upper()}0"
    return cell


def _flags(config: Mapping[str, Any]) -> dict[str, str]:
    """The ARG environment switches a run's config records (`ARG_JOIN=0`, `ARG_SPLIT=1`, `ARG_BASELINE=...`)."""
    gates = config.get("gates")
    flags: dict[str, str] = {}
    if isinstance(gates, dict):
        for name in _GATE_FLAGS:
            if gates.get(name) is False:
                flags[f"ARG_{name.upper()}"] = "0"
        if gates.get("split") is True:
            flags["ARG_SPLIT"] = "1"
    if config.get("baseline"):
        flags["ARG_BASELINE"] = str(config["baseline"])
    return flags


def assign_labels(runs: list[ArgRun]) -> None:
    """Give every run its cell, a seed label unique within the cell, and a file name unique in the submission."""
    used_files: set[str] = set()
    used_seeds: set[tuple[str, str]] = set()
    for run in runs:
        if not run.comparator:
            run.cell = derive_cell(run.config)
        run.seed = _seed_label(run, used_seeds)
        run.file = unique(re.sub(r"[^A-Za-z0-9._-]", "_", run.native)[:100] or "run", used_files)  # a name, not a path


def _seed_label(run: ArgRun, used: set[tuple[str, str]]) -> str:
    """The arm's own tags (after the cell tag), else the run id; `@<run id>` added when the cell already has it."""
    tags = [t for t in (run.arm or "").split(",") if t]
    own = tags[1:] or [t for t in tags[:1] if t not in ("FULL", "baseline")] or [run.native]
    seed = ",".join(own)
    if (run.cell, seed) in used:
        seed = f"{seed}@{run.native}"
    used.add((run.cell, seed))
    return seed[:100]


def _horizon(config: Mapping[str, object]) -> int | None:
    """The run's `max_actions` when it is an integer."""
    value = config.get("max_actions")
    return value if isinstance(value, int) else None


def _prereg_yaml(submission_id: str, runs: list[ArgRun], thresholds: Thresholds) -> bytes:
    cells: dict[str, dict[str, object]] = {}
    seeds: dict[str, list[str]] = {}
    for run in runs:
        if run.cell not in cells:
            seeds[run.cell] = []
            cells[run.cell] = {"flags": _flags(run.config), "seeds": seeds[run.cell]}
        if run.comparator:
            cells[run.cell]["comparator"] = True
        seeds[run.cell].append(run.seed)
    horizon = max((int(h) for r in runs if (h := _horizon(r.config)) is not None), default=None)
    doc: dict[str, object] = {
        "format_version": FORMAT_VERSION,
        "submission_id": submission_id,
        "track": "agent",
        "profile": PROFILE,
        "cells": cells,
    }
    if horizon:
        doc["horizon"] = horizon
    doc["thresholds"] = thresholds.model_dump()
    doc["written_after_runs"] = True  # the runs existed before this file: an import is not a pre-registration
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000).encode("utf-8")


def _manifest_yaml(submission_id: str, backbone: object, files: list[str], digests: dict[str, str]) -> bytes:
    doc = {
        "format_version": FORMAT_VERSION,
        "id": submission_id,
        "title": f"ARG store import ({submission_id})",
        "authors": [{"name": "ARG (arjmandi/ARG) run stores, imported by driftboard"}],
        "contact": "unknown (imported)",
        "track": "agent",
        "system": "ARG",
        "backbone": backbone,
        "harness": {"name": "ARG", "version": "unknown", "commit": HARNESS_COMMIT_UNKNOWN},
        "license": "MIT",
        "description": (
            "Imported by `driftboard import arg` from state.db sha256 " + digests["state.db"]
            + " and probe.db sha256 " + digests["probe.db"]
            + ". ARG stores do not record the agent's commit: harness.commit is a placeholder."
        ),
        "files": files,
    }
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000).encode("utf-8")


@dataclass(frozen=True)
class _Stores:
    """The open store pair and the paths its errors name."""

    state: sqlite3.Connection
    probe: sqlite3.Connection
    state_db: Path
    probe_db: Path


@dataclass(frozen=True)
class _Header:
    """What every run's `run_start` shares: the submission, its pre-registration's digest, the stores' digests."""

    submission_id: str
    prereg_sha: str
    digests: dict[str, str]


def _run_start(run: ArgRun, header: _Header, absent: list[str]) -> Fields:
    sid, native, cfg = header.submission_id, run.native, run.config
    source: Fields = {"importer": IMPORTER, "files": dict(header.digests), "native_run_id": native}
    if run.backbone != "unknown":  # the model the store's run row records (provenance: shown as derived, not declared)
        source["details"] = {"model": run.backbone}
    if absent:
        source["absent_tables"] = absent
    return {
        # the native id when it fits in 200 characters, else its start and a digest of all of it
        "run_id": f"{sid}/{native}" if len(native) <= 199 - len(sid)
        else f"{sid}/{native[:60]}~{sha256_hex(native.encode('utf-8'))[:16]}",
        "submission_id": sid, "track": "agent", "cell": run.cell, "seed": run.seed,
        "flags": _flags(cfg), "backbone": run.backbone, "prereg_sha256": header.prereg_sha,
        "started_at": run.started_at, "comparator": run.comparator,
        "horizon": _horizon(cfg),
        "game_id": run.game_id, "source": source,
    }


def _write_run(path: Path, run: ArgRun, header: _Header, stores: _Stores) -> None:
    ev = EventQueue()
    if not run.comparator:
        state_events(ev, stores.state, run.native, stores.state_db)
    probe_events(ev, stores.probe, run.native, stores.probe_db, run.comparator)
    absent = [] if run.comparator else [t for t in OPTIONAL_TABLES if t not in tables(stores.state)]
    try:
        log = RunLogWriter(path, _run_start(run, header, absent), flush=False)  # ids must be printable ASCII
    except ValueError as exc:
        raise _unfit(run, exc) from None
    try:
        for payload in ev.sorted():
            log.write(payload)
        if run.status == "COMPLETED":
            log.end("COMPLETED", "ARG run status COMPLETED (won)")
        elif run.status in ("ABORTED", "FAILED"):
            log.end(str(run.status), f"ARG run status {run.status}")
    except ValueError as exc:
        raise _unfit(run, exc) from None
    finally:
        log.close()


def _unfit(run: ArgRun, exc: ValueError) -> UsageError:
    """The usage error for a row the canonical format refuses (pydantic's errors as `field: message`)."""
    detail = "; ".join(format_validation_error(exc)) if isinstance(exc, ValidationError) else str(exc)
    if isinstance(exc, EventError):
        detail = "; ".join(exc.problems)
    return UsageError(f"run {run.native!r}: a row does not fit the canonical format ({detail})")


__all__ = ["ARG_THRESHOLD_NAMES", "IMPORTER", "PROFILE", "assign_labels", "derive_cell", "import_submission",
           "thresholds_from_arg"]
