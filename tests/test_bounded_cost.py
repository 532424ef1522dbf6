"""Integrity principle 7: bounded cost, no traceback, for every parser and walk over untrusted input.

`PARSERS` declares each parser with an input of size n: the CPU time at 4n is at most `MAX_RATIO`
times the time at n (linear is 4, quadratic 16; best of three runs, `time.process_time`, sizes
large enough that the time at n is well above timer noise). `DEEP` declares each parser with an
input nested far past any bound: it must end in one clear finding or usage error naming the file,
never a traceback (`RecursionError` included). A parser added later is covered by listing it here.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from checker.constraint.answers import extract_answer, extract_json
from checker.constraint.domains import Seating
from checker.format.errors import UsageError
from checker.format.logio import RunLogWriter, decode_json
from checker.format.names import Name, identity_findings
from checker.format.schema.manifest import Prereg
from checker.importers.arg_store import collect_runs, grid_cells, json_value, open_ro
from checker.importers.drift_bench_read import read_sqlite, read_transcripts
from checker.importers.tau_bench import read_source
from checker.stages.manifest_yaml import parse_yaml
from checker.stages.validate import ValidationReport, validate_run_file

MAX_RATIO = 6.0
DEEP_LEVELS = 100_000


@dataclass(frozen=True)
class Parser:
    """A parser under test: `build(folder, n)` writes or makes an input of size n and returns the call to time."""

    name: str
    build: Callable[[Path, int], Callable[[], object]]
    n: int


def _run_log(folder: Path, n: int) -> Callable[[], object]:
    path = folder / "run.jsonl"
    start = {"run_id": "cost-r1", "submission_id": "cost", "track": "agent", "cell": "FULL", "seed": "s1",
             "backbone": "toy", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z", "horizon": n + 2}
    with RunLogWriter(path, start) as log:
        for t in range(n):
            log.write({"type": "beat", "turn": t, "action": "ACTION1", "drift_ref": "LIVE", "source_stamp": "PROBE",
                       "post_frame_hash": f"{t:016x}"})
    return lambda: validate_run_file(path, "run.jsonl", ValidationReport())


def _json_line(folder: Path, n: int) -> Callable[[], object]:
    line = json.dumps({"type": "x", "values": list(range(n)), "text": "a" * n}).encode()
    return lambda: decode_json(line)


def _prereg(folder: Path, n: int) -> Callable[[], object]:
    cells = "".join(f"  cell-{i}:\n    seeds: [s1, s2]\n    flags: {{K: '1'}}\n" for i in range(n))
    raw = f'format_version: "1.0"\nsubmission_id: cost\ntrack: agent\ncells:\n{cells}'.encode()
    return lambda: parse_yaml(raw, Prereg, "prereg.yaml")


def _answer_shape(shape: str) -> Callable[[Path, int], Callable[[], object]]:
    def build(folder: Path, n: int) -> Callable[[], object]:
        text = shape * n
        return lambda: extract_json(text)
    return build


def _answer_text(folder: Path, n: int) -> Callable[[], object]:
    seat = Seating(["Karen", "Ruby", "Tina"])
    text = "Seat 1: Karen, Seat 2: Ruby {\n" * n
    return lambda: extract_answer(seat, text)


def _grid(folder: Path, n: int) -> Callable[[], object]:
    text = json.dumps([[i, i + 1] for i in range(n)])
    return lambda: grid_cells(text, folder, "L1")


def _arg_runs(folder: Path, n: int) -> Callable[[], object]:
    state, probe = folder / "state.db", folder / "probe.db"
    for path, table in ((state, "run"), (probe, "run_config")):
        con = sqlite3.connect(path)
        extra = ", status TEXT" if table == "run" else ", ended_at TEXT, arm TEXT"
        con.execute(f"CREATE TABLE {table} (run_id TEXT PRIMARY KEY, game_id TEXT, backbone TEXT, started_at TEXT, "
                    f"config_json TEXT{extra})")
        values = [(f"run-{i:07d}", "ls20", "toy", f"2026-11-01T{i % 24:02d}:00:00Z", '{"ARG_JOIN": "1"}', None)
                  for i in range(n)]
        con.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?{', ?' if table == 'run_config' else ''})",
                        [(*v, None) for v in values] if table == "run_config" else values)
        con.commit()
        con.close()

    def run() -> object:
        with open_ro(state) as s, open_ro(probe) as p:
            return collect_runs(s, p, state, probe)
    return run


def _tau(folder: Path, n: int) -> Callable[[], object]:
    path = folder / "tau.json"
    path.write_text(json.dumps([{"task_id": i, "reward": 1.0, "traj": [{"role": "user", "content": "hi " * 5}],
                                 "trial": 0} for i in range(n)]), encoding="utf-8")
    return lambda: read_source(path)


def _transcripts(folder: Path, n: int) -> Callable[[], object]:
    path = folder / "t.jsonl"
    lines = [json.dumps({"type": "problem_intro", "problem_id": "seating_001"})]
    lines += [json.dumps({"type": "model_trace", "model": "m", "method": "direct", "turn_number": t,
                          "response_snippet": "Seat 1: Karen"}) for t in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lambda: read_transcripts([path])


def _results_db(folder: Path, n: int) -> Callable[[], object]:
    path = folder / "results.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE results (id INTEGER PRIMARY KEY, model TEXT, method TEXT, domain TEXT, problem_id TEXT, "
                "turn_number INTEGER, raw_response TEXT, timestamp TEXT)")
    con.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(i, "m", "direct", "seating", f"seating_{i // 8:05d}", i % 8, "Seat 1: Karen", "2026-11-01T00:00:00")
                     for i in range(n)])
    con.commit()
    con.close()
    return lambda: read_sqlite(path)


def _ids(folder: Path, n: int) -> Callable[[], object]:
    words = ["lab", "agent", "drift", "board", "model", "run", "suite", "bench"]
    names = [Name("submission id", f"{words[i % 8]}-{words[(i // 8) % 8]}-{i:06d}-x{i * 7919 % 10007}", f"s{i}")
             for i in range(n)]
    return lambda: identity_findings(names)


PARSERS = [
    Parser("run log: validate_run_file (JSON lines, chain, schema)", _run_log, 3000),
    Parser("run log: one long line (decode_json)", _json_line, 400_000),
    Parser("manifest YAML: parse_yaml", _prereg, 400),
    Parser("answer reader: extract_json, unclosed braces", _answer_shape("{"), 20_000),
    Parser("answer reader: extract_json, open arrays", _answer_shape('[1, {"a": '), 5_000),
    Parser("answer reader: extract_json, many small objects", _answer_shape('x {"a": 1} '), 20_000),
    Parser("answer reader: extract_answer with the regex fallback", _answer_text, 5_000),
    Parser("ARG store: grid_cells", _grid, 200_000),
    Parser("ARG store: collect_runs over run and run_config", _arg_runs, 20_000),
    Parser("tau-bench: read_source", _tau, 50_000),
    Parser("DRIFT-Bench: read_transcripts", _transcripts, 10_000),
    Parser("DRIFT-Bench: read_sqlite (results database)", _results_db, 10_000),
    Parser("identity rules: identity_findings over submission ids", _ids, 500),
]


def _best_of_3(call: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        call()
        best = min(best, time.process_time() - t0)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("parser", PARSERS, ids=[p.name for p in PARSERS])
def test_cost_at_4n_is_at_most_6_times_the_cost_at_n(parser: Parser, tmp_path: Path) -> None:
    (tmp_path / "n").mkdir()
    (tmp_path / "4n").mkdir()
    small = parser.build(tmp_path / "n", parser.n)
    large = parser.build(tmp_path / "4n", 4 * parser.n)
    seen = []
    for _ in range(3):  # a shared machine can slow one measurement; a superlinear parser fails all three
        t_n, t_4n = _best_of_3(small), _best_of_3(large)
        assert t_n > 0.005, f"{parser.name}: {t_n:.4f}s at n={parser.n} is too close to timer noise; raise n"
        seen.append(f"{t_n:.3f}s at n, {t_4n:.3f}s at 4n (ratio {t_4n / t_n:.1f})")
        if t_4n / t_n <= MAX_RATIO:
            return
    pytest.fail(f"{parser.name}: {'; '.join(seen)}")


# --------------------------------------------------------------------------- depth


def _deep_log(folder: Path) -> list[str]:
    path = folder / "deep.jsonl"
    start = {"run_id": "deep-r1", "submission_id": "deep", "track": "agent", "cell": "FULL", "seed": "s1",
             "backbone": "toy", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z", "horizon": 5}
    with RunLogWriter(path, start) as log:
        log.write({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
    lines = path.read_bytes().splitlines()
    deep = b'{"seq":1,"prev":"' + b"0" * 64 + b'","type":"beat","x":' + b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS + b"}"
    path.write_bytes(lines[0] + b"\n" + deep + b"\n" + lines[-1] + b"\n")
    report = ValidationReport()
    validate_run_file(path, "deep.jsonl", report)
    return [f.render() for f in report.findings + report.unreadable]


def _deep_yaml(folder: Path) -> list[str]:
    raw = b'format_version: "1.0"\nsubmission_id: x\ncells: ' + b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS + b"\n"
    return [f.render() for f in parse_yaml(raw, Prereg, "prereg.yaml")[1]]


def _usage(call: Callable[[], object]) -> list[str]:
    try:
        call()
    except UsageError as exc:
        return [str(exc)]
    return []


def _deep_tau(folder: Path) -> list[str]:
    path = folder / "tau.json"
    path.write_bytes(b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS)
    return _usage(lambda: read_source(path))


def _deep_transcript(folder: Path) -> list[str]:
    path = folder / "t.jsonl"
    path.write_bytes(b'{"type": "problem_intro", "x": ' + b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS + b"}\n")
    return _usage(lambda: read_transcripts([path]))


DEEP: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("run log line", _deep_log, "deep.jsonl:2: "),
    ("manifest YAML", _deep_yaml, "prereg.yaml:3: nested deeper than 64 levels"),
    ("tau-bench source", _deep_tau, "tau.json: not valid JSON"),
    ("DRIFT-Bench transcript", _deep_transcript, "t.jsonl:1: invalid JSON"),
]


@pytest.mark.parametrize(("name", "parse", "expected"), DEEP, ids=[d[0] for d in DEEP])
def test_deep_nesting_is_one_clear_finding(name: str, parse: Callable[[Path], list[str]], expected: str,
                                           tmp_path: Path) -> None:
    found = parse(tmp_path)
    assert found and any(expected in m for m in found), (name, found[:3])


def test_deep_values_in_readers_that_keep_text() -> None:
    deep = "[" * DEEP_LEVELS + "]" * DEEP_LEVELS
    assert extract_json(deep) is None  # no answer, no RecursionError
    assert json_value(deep) == deep  # an ARG JSON column nested past the parser is kept as its text
    assert grid_cells(deep, Path("state.db"), "L1") == []


@pytest.mark.parametrize("column", ["backbone", "game_id", "started_at", "status"])
def test_arg_store_with_a_blob_in_a_text_column_imports_without_a_traceback(column: str, tmp_path: Path) -> None:
    """A fuzzed store: a BLOB where ARG writes text (run table) is read as text (it gave a TypeError traceback)."""
    import shutil

    from conftest import shared_data

    from checker.importers.arg import import_submission

    src = shared_data() / "arg" / "cases" / "d_multi_a0_full"
    if not (src / "state.db").is_file():
        pytest.skip("needs ../shared/data/arg/cases/d_multi_a0_full")
    for name in ("state.db", "probe.db"):
        shutil.copy(src / name, tmp_path / name)
    con = sqlite3.connect(tmp_path / "state.db")
    con.execute(f"UPDATE run SET {column} = ? WHERE rowid = (SELECT min(rowid) FROM run)", (b"\xff\x00blob",))
    con.commit()
    con.close()
    assert import_submission(tmp_path / "state.db", tmp_path / "probe.db", tmp_path / "out") == 0
    starts = [json.loads(p.read_text(encoding="utf-8").split("\n", 1)[0]) for p in (tmp_path / "out" / "runs").glob("*.jsonl")]
    assert all(isinstance(s["backbone"], str) and isinstance(s["started_at"], str) for s in starts)
