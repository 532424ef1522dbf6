"""Property tests of the importers on random, schema-conforming native inputs.

ARG store pairs are built from ARG's table definitions (columns, NOT NULL, CHECK; see
`driftboard_tools.generate.stores`), DRIFT-Bench inputs from the runner's `results` table and the
transcript format, over three problems of the repository's own suite. Expectations come from
the importers' documented mapping: every row of a run in a mapped table becomes one event, every
DRIFT-Bench model turn one `turn` event, and the output is a submission that validates and is
byte-identical when imported again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import REPO
from driftboard_tools.generate.stores import (
    arg_store_pair,
    drift_bench_rows,
    write_arg_stores,
    write_results_db,
    write_transcript,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.importers import arg, drift_bench
from checker.stages.validate import INCOMPLETE_MESSAGE, validate_paths

FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
STATE_TABLES = ("turn_record", "referent", "goal", "goal_binding", "goal_edge", "rule", "commitment", "commitment_step",
                "relevance_edge", "deficit_stamp", "consequence_record", "write_reject", "substitution_caught",
                "status_transition")
PROBE_TABLES = ("startup_probe", "llm_calls", "zcr_salt", "zcr_echo", "render_capture", "scorecards")
SUITE = REPO / "problems" / "driftboard-suite-v1"
PROBLEMS = [json.loads((SUITE / f"{n}.json").read_text()) for n in ("seating_001", "scheduling_001", "logic_grid_001")]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def events_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def rows_per_run(state_db: Path, probe_db: Path) -> dict[str, tuple[int, bool]]:
    """Native run id -> (rows of the run in the mapped tables, closed?), counted straight from the stores."""
    state, probe = sqlite3.connect(state_db), sqlite3.connect(probe_db)

    def count(con, tables, rid):
        return sum(con.execute(f"SELECT count(*) FROM {t} WHERE run_id=?", (rid,)).fetchone()[0] for t in tables)

    out = {}
    for rid, status in state.execute("SELECT run_id, status FROM run"):
        closed = status in ("COMPLETED", "ABORTED", "FAILED")
        out[rid] = (count(state, STATE_TABLES, rid) + count(probe, PROBE_TABLES, rid), closed)
    for rid, ended in probe.execute("SELECT run_id, ended_at FROM run_config"):
        if rid not in out:  # probe-only: an ARG BARE/RAW comparator (its beats come from api_log), or a gated run
            if rid.startswith(("argbare", "argraw")):
                out[rid] = (count(probe, (*PROBE_TABLES, "api_log"), rid), ended is not None)
            else:  # an agent run without its run row: its state rows are still read (issue 15)
                out[rid] = (count(state, STATE_TABLES, rid) + count(probe, PROBE_TABLES, rid), ended is not None)
    state.close()
    probe.close()
    return out


@settings(max_examples=15, suppress_health_check=FIXTURES)
@given(spec=arg_store_pair(wild=False))
def test_arg_import_of_conforming_stores_validates_counts_and_repeats(tmp_path_factory, spec):
    tmp = tmp_path_factory.mktemp("arg")
    state, probe = tmp / "state.db", tmp / "probe.db"
    write_arg_stores(spec, state, probe)
    out = tmp / "a" / "imported"
    assert arg.import_submission(state, probe, out) == 0
    expected = rows_per_run(state, probe)
    logs = sorted((out / "runs").glob("*.jsonl"))
    assert len(logs) == len(expected)
    incomplete = set()
    for log in logs:
        evs = events_of(log)
        native = evs[0]["source"]["native_run_id"]
        rows, closed = expected[native]
        assert len(evs) == 1 + rows + closed  # run_start + one event per row + run_end when the run closed
        assert (evs[-1]["type"] == "run_end") == closed
        if not closed:
            incomplete.add(f"{out.as_posix()}/runs/{log.name}: {INCOMPLETE_MESSAGE}")
    report = validate_paths([out])
    assert {f.render() for f in report.findings} == incomplete and not report.unreadable
    again = tmp / "b" / "imported"
    arg.import_submission(state, probe, again)
    assert tree(out) == tree(again)


@settings(max_examples=20, suppress_health_check=FIXTURES)
@given(rows=drift_bench_rows(PROBLEMS, wild=False), kind=st.sampled_from(["transcript", "sqlite"]))
def test_drift_bench_import_of_conforming_rows_validates_counts_and_repeats(tmp_path_factory, rows, kind):
    tmp = tmp_path_factory.mktemp("db")
    problems = tmp / "problems"
    for p in PROBLEMS:
        (problems / "test").mkdir(parents=True, exist_ok=True)
        (problems / "test" / f"{p['problem_id']}.json").write_text(json.dumps(p))
    src = tmp / ("t.jsonl" if kind == "transcript" else "results.db")
    write_transcript(rows, PROBLEMS, src) if kind == "transcript" else write_results_db(rows, src)
    out = tmp / "a" / "imported"
    assert drift_bench.import_submission(src, problems, out) == 0
    runs = {(r["model"], r["method"]) for r in rows}
    logs = sorted((out / "runs").glob("*.jsonl"))
    assert len(logs) == len(runs)
    turns = []
    for log in logs:
        evs = events_of(log)
        assert evs[0]["type"] == "run_start" and evs[-1]["type"] == "run_end"
        turns += [(evs[0]["backbone"], evs[0]["method"], e["problem_id"], e["turn_number"]) for e in evs if e["type"] == "turn"]
    assert sorted(turns) == sorted((r["model"], r["method"], r["problem_id"], r["turn_number"]) for r in rows)
    report = validate_paths([out])
    assert report.ok and not report.findings, [f.render() for f in report.findings]
    again = tmp / "b" / "imported"
    drift_bench.import_submission(src, problems, again)
    assert tree(out) == tree(again)


# ------------------------------------------------------------- regressions found by `driftboard bench fuzz`
RUN_ROW = {"run_id": "arg-1", "game_id": "ls20", "backbone": "m", "seed": 0, "config_json": "{}", "render_ceiling_B": 6000,
           "started_at": "2026-01-01T00:00:00Z", "ended_at": None, "status": "COMPLETED"}


def arg_pair(tmp: Path, run: dict, locator_cells: object = None) -> tuple[Path, Path]:
    spec = {"state": {"run": [{**RUN_ROW, **run}]}, "probe": {}, "missing": []}
    if locator_cells is not None:
        spec["state"]["locator_gridregion"] = [{"run_id": "arg-1", "locator_id": "L1", "cells_json": locator_cells,
                                                "colors_json": "{}", "bbox_x0": 0, "bbox_y0": 0, "bbox_x1": 0, "bbox_y1": 0}]
    write_arg_stores(spec, tmp / "state.db", tmp / "probe.db")
    return tmp / "state.db", tmp / "probe.db"


@pytest.mark.parametrize(("run", "cells", "message"), [
    ({"config_json": "[1]"}, None, "config_json is not a JSON object"),  # was AttributeError: 'list' has no 'get'
    ({"config_json": "[" * 5000 + "]" * 5000}, None, "config_json is not a JSON object"),  # was RecursionError
    ({"run_id": b"arg-1"}, None, "table run has run_id b'arg-1', not a text id"),  # was TypeError in startswith/join
    ({}, "[1, 2]", "cells_json holds 1, not an [x, y] pair of integers"),  # was TypeError: 'int' is not subscriptable
    ({"run_id": "arg-\x8a"}, None, "a row does not fit the canonical format (field 'run_id': value error, contains U+008A"),
])
def test_hostile_arg_rows_are_usage_errors_not_tracebacks(tmp_path, run_line, run, cells, message):
    state, probe = arg_pair(tmp_path, run, cells)
    result = run_line(["import", "arg", str(state), str(probe), "--out", str(tmp_path / "out" / "sub")])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_infinite_turn_ids_do_not_crash_the_arg_import(tmp_path):
    state, probe = arg_pair(tmp_path, {})
    con = sqlite3.connect(state)
    con.execute("INSERT INTO status_transition VALUES ('arg-1', 1, 9e999, 'GOAL', 'G1', NULL, 'OPEN', NULL)")
    con.commit()
    con.close()
    assert arg.import_submission(state, probe, tmp_path / "out" / "sub") == 0  # was OverflowError in int(inf)
    (log,) = (tmp_path / "out" / "sub" / "runs").glob("*.jsonl")
    assert [e["type"] for e in events_of(log)] == ["run_start", "status", "run_end"]


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])  # raw in the file: json.dumps escapes only < U+0020
def test_transcript_strings_may_hold_unicode_line_separators(tmp_path, separator):
    """JSONL lines end at LF only (the importer split at every Unicode line boundary: "invalid JSON")."""
    problems = tmp_path / "problems"
    (problems / "test").mkdir(parents=True)
    (problems / "test" / "seating_001.json").write_text(json.dumps(PROBLEMS[0]))
    response = f'{{"Ann": 1}}{separator}done'
    rows = [{"model": "m", "method": "direct", "problem_id": "seating_001", "turn_number": 1, "raw_response": response}]
    write_transcript(rows, PROBLEMS, tmp_path / "t.jsonl")
    assert drift_bench.import_submission(tmp_path / "t.jsonl", problems, tmp_path / "out" / "sub") == 0
    (log,) = (tmp_path / "out" / "sub" / "runs").glob("*.jsonl")
    assert [e.get("raw_response") for e in events_of(log) if e["type"] == "turn"] == [response]


@pytest.mark.parametrize(("trace", "expected"), [
    ('"tokens_out": Infinity', {"tokens_out": None}),  # was OverflowError: cannot convert float infinity
    ('"repair_events": [{"attempt": 1, "codes": 5}]', {"repair_attempts": [{"attempt": 1, "codes": ["5"]}]}),  # TypeError
])
def test_odd_transcript_values_import(tmp_path, trace, expected):
    problems = tmp_path / "problems"
    (problems / "test").mkdir(parents=True)
    (problems / "test" / "seating_001.json").write_text(json.dumps(PROBLEMS[0]))
    src = tmp_path / "t.jsonl"
    src.write_text('{"type": "problem_intro", "problem_id": "seating_001"}\n'
                   f'{{"type": "model_trace", "model": "m", "turn_number": 1, "response_snippet": "x", {trace}}}\n')
    assert drift_bench.import_submission(src, problems, tmp_path / "out" / "sub") == 0
    (log,) = (tmp_path / "out" / "sub" / "runs").glob("*.jsonl")
    (turn,) = [e for e in events_of(log) if e["type"] == "turn"]
    assert {k: turn.get(k) for k in expected} == expected


def test_a_lone_surrogate_in_a_transcript_is_a_usage_error(tmp_path, run_line):
    problems = tmp_path / "problems"
    (problems / "test").mkdir(parents=True)
    (problems / "test" / "seating_001.json").write_text(json.dumps(PROBLEMS[0]))
    src = tmp_path / "t.jsonl"
    src.write_text('{"type": "problem_intro", "problem_id": "seating_001"}\n'
                   '{"type": "model_trace", "model": "m", "turn_number": 1, "response_snippet": "x\\ud800"}\n')
    result = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o" / "s")])
    assert result.exit_code == 2  # was UnicodeEncodeError escaping the importer
    assert "cannot write a valid event" in result.stderr and "surrogates not allowed" in result.stderr
    assert "Traceback" not in result.output


def test_a_refused_run_start_leaves_no_file_and_no_open_handle(tmp_path):
    """RunLogWriter left the new file open (a ResourceWarning later) and empty when run_start was invalid."""
    import gc
    import warnings

    from checker.format.logio import EventError, RunLogWriter

    path = tmp_path / "r.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with pytest.raises(EventError):
            RunLogWriter(path, {"run_id": "bad\x8a", "submission_id": "s", "track": "agent", "cell": "C", "seed": "s",
                                "backbone": "m", "prereg_sha256": "0" * 64, "started_at": "t"})
        gc.collect()
    assert not path.exists()


def one_turn_source(tmp_path: Path, models: list[str]) -> tuple[Path, Path]:
    problems = tmp_path / "problems"
    (problems / "test").mkdir(parents=True)
    (problems / "test" / "seating_001.json").write_text(json.dumps(PROBLEMS[0]))
    rows = [{"model": m, "method": "direct", "problem_id": "seating_001", "turn_number": 1, "raw_response": "{}"} for m in models]
    write_transcript(rows, PROBLEMS, tmp_path / "t.jsonl")
    return tmp_path / "t.jsonl", problems


def test_long_and_colliding_model_names_get_distinct_bounded_run_files(tmp_path):
    """A long model name made a file name too long (OSError); "a b" and "a/b" both wrote runs/a-b--direct--seed42.jsonl."""
    models = ["m" * 90, "a b", "a/b"]
    src, problems = one_turn_source(tmp_path, models)
    out = tmp_path / "out" / "sub"
    assert drift_bench.import_submission(src, problems, out) == 0
    logs = sorted(p.name for p in (out / "runs").glob("*.jsonl"))
    assert logs == ["a-b--direct--seed42.jsonl", "a-b--direct-2--seed42.jsonl", f"{'m' * 50}--direct--seed42.jsonl"]
    assert sorted(events_of(out / "runs" / name)[0]["backbone"] for name in logs) == sorted(models)
    report = validate_paths([out])
    assert report.ok, [f.render() for f in report.findings]


def test_a_model_name_too_long_for_a_cell_is_a_usage_error(tmp_path, run_line):
    src, problems = one_turn_source(tmp_path, ["m" * 300])
    result = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o" / "s")])
    assert result.exit_code == 2 and "field 'cell': string should have at most 100 characters" in result.stderr
    assert "Traceback" not in result.output


def test_a_long_arg_run_id_gets_a_bounded_file_name_and_run_id(tmp_path):
    native = "arg-" + "x" * 300
    state, probe = arg_pair(tmp_path, {"run_id": native})
    out = tmp_path / "out" / "sub"
    assert arg.import_submission(state, probe, out) == 0  # was OSError: file name too long
    (log,) = (out / "runs").glob("*.jsonl")
    assert log.name == native[:100] + ".jsonl"
    start = events_of(log)[0]
    assert start["source"]["native_run_id"] == native
    assert len(start["run_id"]) <= 200 and start["run_id"].startswith("sub/arg-xxx")
    assert validate_paths([out]).ok


def test_an_arm_stored_as_a_blob_is_read_as_text(tmp_path):
    state, probe = arg_pair(tmp_path, {})
    con = sqlite3.connect(probe)
    con.execute("INSERT INTO run_config (run_id, arm) VALUES ('arg-1', ?)", (b"A0,r7",))  # was TypeError in str.split
    con.commit()
    con.close()
    out = tmp_path / "out" / "sub"
    assert arg.import_submission(state, probe, out) == 0
    (log,) = (out / "runs").glob("*.jsonl")
    assert events_of(log)[0]["seed"] == "r7"
