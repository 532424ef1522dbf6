"""Import an ARG store pair (state.db + probe.db) as a canonical agent-track submission.

Every run in the pair becomes one run log (`runs/<native id>.jsonl`); runs found only in the
probe store (ARG's BARE/RAW baselines, which write no state store) become comparator runs.
Both stores are opened read-only (`mode=ro&immutable=1`), so a read-only mount works and the
files are never touched. The output bytes depend only on the two stores and the thresholds.

Mapping (arg-spec.md §a): `turn_record` -> beat, `referent` + `locator_gridregion` -> referent,
`status_transition` -> status, `commitment` -> commitment, `commitment_step` + `step_premise` ->
plan_step, `rule`, `goal`, `goal_binding`, `goal_edge`, `deficit_stamp`, `relevance_edge`,
`consequence_record` -> receipt, `write_reject`, `substitution_caught` -> substitution;
probe store `llm_calls`, `zcr_salt`, `zcr_echo`, `render_capture` (the view text is kept as its
SHA-256 and byte length), `startup_probe`, `scorecards` -> level. Tables no metric reads
(binding_record, action_model, annotate, experiment, procedure, relation, api_log, ...) are not
carried over. Events are ordered by beat; within a beat the beat comes first and the rows written
while processing it follow (that is what lets replay recompute a click's landing against the
referents known *before* the action).

A run whose ARG status is still RUNNING (never closed out; ARG's hermetic fixtures) gets no
`run_end`, so Driftboard reports it INCOMPLETE; its gate is still computed and reported.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from itertools import chain
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml
from pydantic import ValidationError

from checker import FORMAT_VERSION
from checker.format.errors import UsageError
from checker.format.logio import EventError, RunLogWriter, file_sha256, format_validation_error, sha256_hex
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN, Thresholds

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

_ORGANS = {"observer": "OBSERVER", "surveyor": "SURVEYOR", "actuator": "ACTUATOR", "baseline": "BASELINE"}
_GATE_FLAGS = ("join", "agenda", "search", "conseq", "retain", "seeds", "flat", "triggers", "goals", "fission")


def thresholds_from_arg(values: Mapping[str, Any]) -> Thresholds:
    """Build `Thresholds` from ARG names, e.g. truth.json's `probe_thresholds` or `{"ARG_B": "40"}`.

    Unknown names are ignored; missing ones keep ARG's defaults.

    Raises:
        UsageError: a value is not a number.
    """
    fields: dict[str, Any] = {}
    for name, value in values.items():
        target = ARG_THRESHOLD_NAMES.get(name)
        if target is None:
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"threshold {name}={value!r} is not a number") from None
        fields[target] = int(number) if target in ("render_ceiling_B", "wer_min_ops", "canary_warmup") else number
    return Thresholds(**fields)


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
    with _open_ro(state_db) as state, _open_ro(probe_db) as probe:
        runs = _collect_runs(state, probe, state_db, probe_db)
        if not runs:
            raise UsageError(f"{state_db}, {probe_db}: no run in the state or probe store (ARG prints NO_RUN)")
        _assign_labels(runs)
        backbone = runs[0]["backbone"]
        out.mkdir(parents=True, exist_ok=True)
        prereg_bytes = _prereg_yaml(submission_id, runs, thresholds or Thresholds())
        (out / "prereg.yaml").write_bytes(prereg_bytes)
        prereg_sha = sha256_hex(prereg_bytes)
        files = []
        for run in runs:
            rel = f"runs/{run['file']}.jsonl"
            files.append(rel)
            _write_run(out / rel, run, submission_id, prereg_sha, digests, state, probe, state_db, probe_db)
    (out / "submission.yaml").write_bytes(_manifest_yaml(submission_id, backbone, files, digests))
    return 0


@contextmanager
def _open_ro(path: Path) -> Iterator[sqlite3.Connection]:
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: not a readable SQLite database ({exc})") from None
    with closing(conn):
        yield conn


BASELINE_PREFIXES = ("argbare", "argraw")
"""Run-id prefixes of ARG's BARE / RAW comparator baselines (arg-spec.md §a.3)."""
OPTIONAL_TABLES = ("deficit_stamp", "goal_edge")
"""State tables older ARG stores lack; ARG reports the metrics read from them as None (arg-spec.md §c.6)."""


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _rows(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...], path: Path) -> list[sqlite3.Row]:
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.Error as exc:
        raise UsageError(f"{path}: not an ARG store ({exc})") from None


def _collect_runs(state: sqlite3.Connection, probe: sqlite3.Connection, state_db: Path, probe_db: Path) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    state_ids: set[str] = set()
    configs: dict[str, sqlite3.Row] = {}
    if "run_config" in _tables(probe):
        for row in _rows(probe, "SELECT * FROM run_config ORDER BY started_at, run_id", (), probe_db):
            configs[_run_id(row, probe_db, "run_config")] = row
    if "run" in _tables(state):
        for row in _rows(state, "SELECT * FROM run ORDER BY started_at, run_id", (), state_db):
            run_id = _run_id(row, state_db, "run")
            rc = configs.get(run_id)
            state_ids.add(run_id)
            runs.append({
                "native": run_id, "game_id": row["game_id"], "backbone": row["backbone"] or "unknown",
                "started_at": row["started_at"] or "", "status": row["status"],
                "config": _config(row["config_json"], state_db, run_id),
                "arm": _text(rc["arm"]) if rc is not None else None, "comparator": False,
                "render_ceiling_B": row["render_ceiling_B"],
            })
    for run_id, rc in configs.items():
        if run_id in state_ids:
            continue
        # ARG's baselines (argbare-/argraw- ids) write only the probe store and are never gated; any other
        # run missing from the state store is an agent run whose state rows are absent: ARG's probes
        # still score it (metrics of 0, legibility from the probe rows), so it is gated, not a comparator
        baseline = run_id.startswith(BASELINE_PREFIXES)
        runs.append({
            "native": run_id, "game_id": rc["game_id"], "backbone": rc["backbone"] or "unknown",
            "started_at": rc["started_at"] or "", "status": "COMPLETED" if rc["ended_at"] else "RUNNING",
            "config": _config(rc["config_json"], probe_db, run_id), "arm": _text(rc["arm"]), "comparator": baseline,
            "render_ceiling_B": None,
            **({"cell": "RAW" if run_id.startswith("argraw") else "BARE"} if baseline else {}),
        })
    return runs


def _run_id(row: sqlite3.Row, path: Path, table: str) -> str:
    """A row's run id, which must be non-empty text (it names files and the canonical run id)."""
    value = row["run_id"]
    if not isinstance(value, str) or not value:
        raise UsageError(f"{path}: not an ARG store (table {table} has run_id {value!r}, not a text id)")
    return value


def _config(text: Any, path: Path, run_id: str) -> dict[str, Any]:
    """A run's `config_json`: a JSON object, or NULL (no config)."""
    value = _json(text)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{path}: run {run_id!r}: config_json is not a JSON object")
    return value


def _text(value: Any) -> str | None:
    """A free-text column that may hold another SQLite type (bytes are decoded, numbers spelled)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


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


def _assign_labels(runs: list[dict[str, Any]]) -> None:
    used_files: set[str] = set()
    used_seeds: set[tuple[str, str]] = set()
    for run in runs:
        if not run["comparator"]:
            run["cell"] = derive_cell(run["config"])
        tags = [t for t in (run["arm"] or "").split(",") if t]
        own = [t for t in tags[1:]] or [t for t in tags[:1] if t not in ("FULL", "baseline")] or [run["native"]]
        seed = ",".join(own)
        if (run["cell"], seed) in used_seeds:
            seed = f"{seed}@{run['native']}"
        used_seeds.add((run["cell"], seed))
        run["seed"] = seed[:100]
        base = re.sub(r"[^A-Za-z0-9._-]", "_", run["native"])[:100] or "run"  # a file name, not a path
        name, k = base, 1
        while name in used_files:
            k += 1
            name = f"{base}-{k}"
        used_files.add(name)
        run["file"] = name


def _prereg_yaml(submission_id: str, runs: list[dict[str, Any]], thresholds: Thresholds) -> bytes:
    cells: dict[str, dict[str, Any]] = {}
    for run in runs:
        cell = cells.setdefault(run["cell"], {"flags": _flags(run["config"]), "seeds": []})
        if run["comparator"]:
            cell["comparator"] = True
        cell["seeds"].append(run["seed"])
    horizon = max((int(r["config"]["max_actions"]) for r in runs if isinstance(r["config"].get("max_actions"), int)),
                  default=None)
    doc: dict[str, Any] = {
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


def _manifest_yaml(submission_id: str, backbone: str, files: list[str], digests: dict[str, str]) -> bytes:
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


def _json(text: Any) -> Any:
    if text is None:
        return None
    if not isinstance(text, str | bytes):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON (or nested beyond the parser): kept as the text
        return text


def _obj(text: Any) -> dict[str, Any] | None:
    """A JSON object column; non-object JSON is wrapped as {"value": ...} so nothing is lost."""
    value = _json(text)
    if value is None:
        return None
    return value if isinstance(value, dict) else {"value": value}


def _int(value: Any, default: int = 0) -> int:
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: a REAL column holding inf
        return default


def _cells(text: Any, path: Path, locator: Any) -> list[list[int]]:
    """A GridRegion's `cells_json`: a list of [x, y] integer pairs ([] when it is not a list)."""
    value = _json(text)
    if not isinstance(value, list):
        return []
    # the common case checked with C-level loops (a region can hold thousands of cells); any doubt
    # falls through to the cell-by-cell check below, which names the first bad cell
    if set(map(type, value)) <= {list} and set(map(len, value)) <= {2} \
            and set(map(type, chain.from_iterable(value))) <= {int}:
        return value  # fresh lists from the JSON parser, already [x, y] integer pairs
    out = []
    for cell in value:
        if not (isinstance(cell, list) and len(cell) == 2 and all(type(c) is int for c in cell)):
            raise UsageError(f"{path}: locator {locator!r}: cells_json holds {cell!r}, not an [x, y] pair of integers")
        out.append([cell[0], cell[1]])
    return out


def _organ(value: Any, path: Path) -> str:
    organ = _ORGANS.get(str(value or "").lower())
    if organ is None:
        raise UsageError(f"{path}: unknown organ {value!r} (expected observer, surveyor, actuator or baseline)")
    return organ


class _Events:
    """Collects (turn, priority, order, payload) and yields payloads in log order."""

    def __init__(self) -> None:
        self.items: list[tuple[int, int, int, dict[str, Any]]] = []

    def add(self, turn: int, prio: int, payload: dict[str, Any]) -> None:
        payload["turn"] = turn
        self.items.append((turn, prio, len(self.items), payload))

    def sorted(self) -> list[dict[str, Any]]:
        return [p for _, _, _, p in sorted(self.items, key=lambda t: t[:3])]


def _state_events(ev: _Events, conn: sqlite3.Connection, rid: str, path: Path) -> None:
    tables = _tables(conn)

    def q(table: str, sql: str) -> list[sqlite3.Row]:
        return _rows(conn, sql, (rid,), path) if table in tables else []

    for r in q("turn_record", "SELECT * FROM turn_record WHERE run_id=? ORDER BY turn_id"):
        params = _json(r["params_json"])
        ev.add(_int(r["turn_id"]), 0, {
            "type": "beat", "action": r["action"],
            "params": params if isinstance(params, dict) else None,
            "target_ref": r["target_ref"], "step_id": r["commitment_step_id"],
            "shadow_step_id": r["shadow_step_id"], "drift_ref": r["drift_ref"],
            "source_stamp": r["source_stamp"], "render_tokens": _int(r["render_tokens"]),
            "match": r["match"], "level_counter": _int(r["level_counter"]), "score": _int(r["score"]),
            "lives": r["lives"], "pre_frame_hash": r["pre_frame_hash"], "post_frame_hash": r["post_frame_hash"],
        })
    cells: dict[str, list[list[int]]] = {}
    for r in q("locator_gridregion", "SELECT locator_id, cells_json FROM locator_gridregion WHERE run_id=?"):
        cells[r["locator_id"]] = _cells(r["cells_json"], path, r["locator_id"])
    for r in q("referent", "SELECT * FROM referent WHERE run_id=? ORDER BY rowid"):
        ev.add(_int(r["created_turn"]), 1, {
            "type": "referent", "ref_id": r["ref_id"], "version": _int(r["version"], 1), "kind": r["kind"] or "",
            "anchor_cells": cells.get(r["anchor_locator_id"], []), "signature": r["signature"],
            "provenance": r["provenance"] or "OBSERVER_BIND",
        })
    goal_turns: dict[tuple[str, int], int] = {}
    for r in q("goal", "SELECT * FROM goal WHERE run_id=? ORDER BY rowid"):
        goal_turns[(r["goal_id"], _int(r["version"], 1))] = _int(r["created_turn"])
        ev.add(_int(r["created_turn"]), 2, {
            "type": "goal", "goal_id": r["goal_id"], "version": _int(r["version"], 1), "parent_goal": r["parent_goal"],
            "statement": r["statement"], "provenance": r["provenance"],
        })
    for r in q("goal_binding", "SELECT * FROM goal_binding WHERE run_id=? ORDER BY rowid"):
        version = _int(r["goal_version"], 1)
        ev.add(goal_turns.get((r["goal_id"], version), 0), 3, {
            "type": "goal_binding", "goal_id": r["goal_id"], "goal_version": version, "ref_id": r["ref_id"],
        })
    for r in q("goal_edge", "SELECT * FROM goal_edge WHERE run_id=? ORDER BY rowid"):
        ev.add(_int(r["created_turn"]), 4, {
            "type": "goal_edge", "parent_goal": r["parent_goal"], "child_goal": r["child_goal"],
            "verified": bool(r["verified"]),
        })
    for r in q("rule", "SELECT * FROM rule WHERE run_id=? ORDER BY rowid"):
        ev.add(_int(r["created_turn"]), 5, {
            "type": "rule", "rule_id": r["rule_id"], "version": _int(r["version"], 1), "template": r["template"],
            "ctx": _obj(r["ctx_pred_json"]) or {}, "effect": _obj(r["effect_pattern_json"]) or {},
            "scope": r["scope"], "ttl_turn": r["ttl_turn"],
        })
    commit_turns: dict[tuple[str, int], int] = {}
    for r in q("commitment", "SELECT * FROM commitment WHERE run_id=? ORDER BY rowid"):
        turn = _int(r["compiled_turn"] if r["compiled_turn"] is not None else r["created_turn"])
        commit_turns[(r["commit_id"], _int(r["version"], 1))] = turn
        ev.add(turn, 6, {
            "type": "commitment", "commit_id": r["commit_id"], "version": _int(r["version"], 1),
            "goal_id": r["goal_id"], "procedure_id": r["procedure_id"],
        })
    premises: dict[tuple[str, int, str], list[list[str]]] = {}
    for r in q("step_premise", "SELECT * FROM step_premise WHERE run_id=? ORDER BY rowid"):
        key = (r["commit_id"], _int(r["commit_version"], 1), r["step_id"])
        premises.setdefault(key, []).append([str(r["member_kind"]), str(r["member_id"])])
    for r in q("commitment_step", "SELECT * FROM commitment_step WHERE run_id=? ORDER BY rowid"):
        version = _int(r["commit_version"], 1)
        turn = r["compilation_turn_id"]
        ev.add(_int(turn) if turn is not None else commit_turns.get((r["commit_id"], version), 0), 7, {
            "type": "plan_step", "commit_id": r["commit_id"], "commit_version": version, "step_id": r["step_id"],
            "step_ord": _int(r["step_ord"]), "kind": r["kind"] or "", "target_ref": r["target_ref"],
            "action": r["action"], "premises": premises.get((r["commit_id"], version, r["step_id"]), []),
            "predicted_delta": _obj(r["predicted_delta_json"]), "lease_max_beats": r["lease_max_beats"],
        })
    for r in q("relevance_edge", "SELECT * FROM relevance_edge WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 8, {
            "type": "relevance_edge", "goal_id": r["goal_id"], "target_kind": r["target_kind"],
            "target_id": r["target_id"],
        })
    for r in q("deficit_stamp", "SELECT * FROM deficit_stamp WHERE run_id=? ORDER BY seq"):
        holes = _json(r["holes_json"])
        ev.add(_int(r["turn_id"]), 9, {
            "type": "deficit_stamp", "goal_id": r["goal_id"],
            "holes": holes if isinstance(holes, dict) or (
                isinstance(holes, list) and all(isinstance(h, dict) for h in holes)) else None,
        })
    for r in q("consequence_record", "SELECT * FROM consequence_record WHERE run_id=? ORDER BY turn_id, seq"):
        ev.add(_int(r["turn_id"]), 10, {
            "type": "receipt", "action": r["action"], "target_ref": r["target_ref"],
            "context_class": r["context_class_id"], "predicted": _obj(r["predicted_delta_json"]),
            "observed": _obj(r["observed_delta_json"]), "match": r["match"], "predictor_id": r["predictor_id"],
            "predictor_kind": r["predictor_kind"], "score_event": 1 if r["score_event"] else 0,
            "level_event": 1 if r["level_event"] else 0, "life_event": 1 if r["life_event"] else 0,
        })
    for r in q("write_reject", "SELECT * FROM write_reject WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 11, {
            "type": "write_reject", "organ": _organ(r["organ"], path), "op_type": r["op_type"],
            "violation_class": r["violation_class"], "retry_count": _int(r["retry_count"]),
        })
    for r in q("substitution_caught", "SELECT * FROM substitution_caught WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 12, {
            "type": "substitution", "step_target": r["step_target"], "landed_target": r["landed_target"],
        })
    for r in q("status_transition", "SELECT * FROM status_transition WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 13, {
            "type": "status", "entity_kind": r["entity_kind"], "entity_id": r["entity_id"],
            "from_status": r["from_status"], "to_status": r["to_status"], "reason": r["reason"],
        })


def _probe_events(ev: _Events, conn: sqlite3.Connection, rid: str, path: Path, comparator: bool) -> None:
    tables = _tables(conn)

    def q(table: str, sql: str) -> list[sqlite3.Row]:
        return _rows(conn, sql, (rid,), path) if table in tables else []

    for r in q("startup_probe", "SELECT * FROM startup_probe WHERE run_id=?"):
        ok = r["image_receipt_ok"]
        vocab = _json(r["signal_vocab_json"])
        ev.add(0, -1, {
            "type": "startup_probe", "image_receipt_ok": None if ok is None else bool(ok),
            "signal_vocab": sorted(vocab) if isinstance(vocab, dict) else vocab if isinstance(vocab, list) else None,
            "action_interface": _obj(r["action_interface_json"]),
        })
    if comparator:
        for r in q("api_log", "SELECT * FROM api_log WHERE run_id=? ORDER BY turn_id, step_id"):
            ev.add(_int(r["turn_id"]), 0, {
                "type": "beat", "action": r["action"], "source_stamp": r["source_stamp"],
                "level_counter": _int(r["levels_completed"]), "score": _int(r["score"]),
            })
    for r in q("llm_calls", "SELECT * FROM llm_calls WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 20, {
            "type": "llm_call", "organ": _organ(r["organ"], path), "call_idx": _int(r["call_idx"]),
            "retry_count": _int(r["retry_count"]), "prompt_tokens": _int(r["prompt_tokens"]),
            "completion_tokens": _int(r["completion_tokens"]), "reasoning_tokens": _int(r["reasoning_tokens"]),
            "render_tokens": _int(r["render_tokens"]), "ops_accepted": _int(r["ops_accepted"]),
            "ops_rejected": _int(r["ops_rejected"]),
        })
    for r in q("zcr_salt", "SELECT * FROM zcr_salt WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 21, {
            "type": "canary_salt", "organ": _organ(r["organ"], path), "call_idx": _int(r["call_idx"]),
            "zone": str(r["zone_tier"]), "nonce": str(r["nonce"]),
        })
    for r in q("zcr_echo", "SELECT * FROM zcr_echo WHERE run_id=? ORDER BY seq"):
        ev.add(_int(r["turn_id"]), 22, {
            "type": "canary_echo", "organ": _organ(r["organ"], path), "call_idx": _int(r["call_idx"]),
            "zone": str(r["zone_tier"]), "nonce": str(r["nonce"]), "echoed": bool(r["echoed"]),
        })
    for r in q("render_capture", "SELECT * FROM render_capture WHERE run_id=? ORDER BY rowid"):
        view = r["view_bytes"]
        data = view if isinstance(view, bytes) else str(view if view is not None else "").encode("utf-8")
        ev.add(_int(r["turn_id"]), 23, {
            "type": "render_capture", "organ": _organ(r["organ"], path) if r["organ"] else None,
            "call_idx": _int(r["call_idx"]), "zone": str(r["zone_tier"]), "view_sha256": sha256_hex(data),
            "view_bytes": len(data), "render_tokens": _int(r["render_tokens"]), "shadow": bool(r["shadow_flag"]),
        })
    for r in q("scorecards", "SELECT * FROM scorecards WHERE run_id=? ORDER BY seq"):
        card = _obj(r["scorecard_json"]) or {}
        ev.add(_int(r["turn_id"]), 24, {
            "type": "level", "level_counter": max(_int(card.get("levels_completed")), 0),
            "score": _int(card.get("score")),
        })


def _write_run(
    path: Path, run: dict[str, Any], submission_id: str, prereg_sha: str, digests: dict[str, str],
    state: sqlite3.Connection, probe: sqlite3.Connection, state_db: Path, probe_db: Path,
) -> None:
    ev = _Events()
    if not run["comparator"]:
        _state_events(ev, state, run["native"], state_db)
    _probe_events(ev, probe, run["native"], probe_db, run["comparator"])
    cfg = run["config"]
    start: dict[str, Any] = {
        # the native id when it fits in 200 characters, else its start and a digest of all of it
        "run_id": f"{submission_id}/{run['native']}" if len(run["native"]) <= 199 - len(submission_id)
        else f"{submission_id}/{run['native'][:60]}~{sha256_hex(run['native'].encode('utf-8'))[:16]}",
        "submission_id": submission_id, "track": "agent", "cell": run["cell"], "seed": run["seed"],
        "flags": _flags(cfg), "backbone": run["backbone"], "prereg_sha256": prereg_sha,
        "started_at": run["started_at"], "comparator": run["comparator"],
        "horizon": cfg.get("max_actions") if isinstance(cfg.get("max_actions"), int) else None,
        "game_id": run["game_id"],
        "source": {"importer": IMPORTER, "files": dict(digests), "native_run_id": run["native"]},
    }
    absent = [] if run["comparator"] else [t for t in OPTIONAL_TABLES if t not in _tables(state)]
    if absent:
        start["source"]["absent_tables"] = absent
    try:
        log = RunLogWriter(path, start, flush=False)  # run ids, cells and seeds must be printable ASCII
    except ValueError as exc:
        raise _unfit(run, exc) from None
    try:
        for payload in ev.sorted():
            log.write(payload)
        status = run["status"]
        if status == "COMPLETED":
            log.end("COMPLETED", "ARG run status COMPLETED (won)")
        elif status in ("ABORTED", "FAILED"):
            log.end(status, f"ARG run status {status}")
    except ValueError as exc:
        raise _unfit(run, exc) from None
    finally:
        log.close()


def _unfit(run: dict[str, Any], exc: ValueError) -> UsageError:
    """The usage error for a row the canonical format refuses (pydantic's errors as `field: message`)."""
    detail = "; ".join(format_validation_error(exc)) if isinstance(exc, ValidationError) else str(exc)
    if isinstance(exc, EventError):
        detail = "; ".join(exc.problems)
    return UsageError(f"run {run['native']!r}: a row does not fit the canonical format ({detail})")
