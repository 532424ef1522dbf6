"""`driftboard bench fuzz`: the harness runs, counts, saves crashing inputs and replays them (a few seconds only:
the long run is not part of CI; its figures are in site/performance.md)."""

from __future__ import annotations

import json
import re

import pytest
from driftboard_tools.fuzz import run as fuzz_bench
from driftboard_tools.fuzz.mutations import Mutation, must_be_detected
from driftboard_tools.fuzz.targets import (
    SUITE,
    TARGETS,
    Case,
    ContractViolation,
    DomainsTarget,
    VerifyTarget,
    kind_of,
    submission_seeds,
    write_files,
)


def test_short_run_reports_figures_per_target(run_line, tmp_path):
    result = run_line(["bench", "fuzz", "--seconds", "3", "--target", "domains", "--target", "yaml",
                       "--crashes", str(tmp_path / "crashes")])
    assert result.exit_code == 0, result.output
    lines = {m.group(1): m.group(0) for m in re.finditer(r"^target=(\S+) inputs=(\d+) .*crashes=0 .*$", result.output, re.M)}
    assert sorted(lines) == ["domains", "yaml"]
    assert re.search(r"^fuzz_seconds=\d+ inputs=\d+ inputs_per_s=[\d.]+ distinct_findings=\d+ crashes=0$", result.output, re.M)
    assert not (tmp_path / "crashes").exists()


def test_unknown_target_is_a_usage_error(run_line):
    result = run_line(["bench", "fuzz", "--seconds", "1", "--target", "nope"])
    assert result.exit_code == 2 and "unknown fuzz target(s) nope" in result.stderr


class Exploding(DomainsTarget):
    name = "domains"

    def execute(self, case, work):
        raise ContractViolation("evaluator disagrees: made up")


def test_crashes_are_counted_saved_and_replayed(tmp_path, monkeypatch, run_line):
    stats = fuzz_bench.fuzz_target(Exploding(), 2.0, tmp_path, seed=0)
    assert stats.inputs > 0 and stats.crashes == stats.inputs
    (sig,) = stats.signatures
    assert sig.startswith("ContractViolation:evaluator disagrees@")
    saved = sorted(p.parent for p in tmp_path.glob("*/case.json"))
    assert len(saved) == min(stats.inputs, fuzz_bench.KEEP_PER_SIGNATURE)
    doc = json.loads((saved[0] / "case.json").read_text())
    assert doc["target"] == "domains" and "made up" in doc["error"] and doc["params"]["problem"]["domain"]
    # the saved case replays cleanly on the real target, and still crashes on the broken one
    assert run_line(["bench", "fuzz", "--replay", str(saved[0])]).exit_code == 0
    monkeypatch.setitem(TARGETS, "domains", Exploding)
    result = run_line(["bench", "fuzz", "--replay", str(tmp_path)])
    assert result.exit_code == 1 and f"replayed={len(saved)} still_crashing={len(saved)}" in result.output


def test_domains_target_checks_a_hand_made_case(tmp_path):
    case = Case({}, {"problem": {"domain": "seating", "entities": ["Ann", "Bob", "Cid"]},
                     "constraints": [{"type": "at_position", "args": ["Ann", 1]}, {"type": "at_position", "args": ["Bob", 1]}],
                     "response": '{"Ann": 1, "Bob": 2, "Cid": 3}'})
    kinds = DomainsTarget().execute(case, tmp_path)
    assert kinds == {"seating unsat", "seating answer complete wrong", "seating mus size 2"}


def test_detection_promise_covers_single_edits_before_the_last_line_only():
    seed = b'{"a":1}\n{"b":2}\n{"c":3}\n'
    flip = Mutation("bytes", "x", True, lambda d: d)
    assert must_be_detected(seed, b'{"a":9}\n{"b":2}\n{"c":3}\n', flip)
    assert not must_be_detected(seed, b'{"a":1}\n{"b":2}\n{"c":9}\n', flip)  # last line: pinned by the file digest only
    assert must_be_detected(seed, b'{"a":1}\n{"c":3}\n', Mutation("line", "x", True, lambda d: d))
    assert not must_be_detected(seed, b'{"a":1}\n{"c":3}\n', Mutation("havoc", "x", False, lambda d: d))
    assert not must_be_detected(seed, b'{"a":1}\n{"b"3}\n', Mutation("delete", "x", True, lambda d: d))  # spans lines


def test_kind_of_blanks_names_and_numbers():
    assert kind_of("seq 12, expected 3: field 'x' in /tmp/a/b.jsonl") == "seq N, expected N: field '…' in /…"


def _cli_kinds(run_line, sub, results, fmt):
    """The kinds the verify target saw when it drove the command line (the reference for the library calls)."""
    kinds = set()
    r = run_line(["validate", str(sub), "--format", fmt])
    kinds.add(f"validate exit {r.exit_code}")
    doc = json.loads(r.stdout) if fmt == "json" else {}
    kinds |= {kind_of(str(p["message"])) for p in doc.get("problems", [])}
    r = run_line(["verify", str(sub), "--no-cache", "--out", str(results), "--format", fmt, "--problems", str(SUITE)])
    kinds.add(f"verify exit {r.exit_code}")
    doc = json.loads(r.stdout) if fmt == "json" else {}
    kinds |= {f"verdict {run.get('verdict')}" for s in doc.get("submissions", []) for run in s.get("runs", [])}
    kinds |= {kind_of(str(p["message"])) for p in doc.get("problems", [])}
    return kinds


def _break_chain(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:1] + lines[2:])  # the second event dropped: the hash chain breaks


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("edit", ["none", "chain", "prereg"])
def test_verify_target_sees_what_the_command_line_reports(tmp_path, run_line, fmt, edit):
    seeds = dict(submission_seeds())
    name = "minimal-constraint" if edit == "prereg" else "minimal-agent"
    files = dict(seeds[name])
    if edit == "chain":
        log = sorted(rel for rel in files if rel.endswith(".jsonl"))[0]
        files[log] = _break_chain(files[log])
    elif edit == "prereg":
        files["prereg.yaml"] += b"\n# edited after the runs\n"
    case = Case({f"sub/{name}/{k}": v for k, v in files.items()}, {"submission": name, "format": fmt})
    kinds = VerifyTarget().execute(case, tmp_path / "lib")
    write_files(tmp_path / "cli", case.files)
    expected = _cli_kinds(run_line, tmp_path / "cli" / "sub" / name, tmp_path / "cli" / "results", fmt)
    assert kinds == expected
    if edit == "none":
        assert {"validate exit 0", "verify exit 0"} <= kinds
    else:
        assert "verify exit 1" in kinds and (fmt == "text" or len(kinds) > 2)
