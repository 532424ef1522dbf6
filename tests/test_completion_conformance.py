"""Conformance with τ-bench (issue 33): the recomputed reward equals the recorded one on all 200 trajectories.

Reads τ-bench's own file from the shared data (`DRIFTBOARD_SHARED_DATA`, default `../shared/data`; skipped with
the reason when absent), imports it with `driftboard import tau-bench` and verifies the result. Everything
compared against comes from the file itself (the recorded reward, `gt_data_hash`, outputs map, `info.source`,
the logged tool results) or from the specification's published counts: nothing from our own output.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from completion_helpers import SHIPPED, TASK_SET
from conftest import require_shared, shared_data

from checker.importers.tau_bench import import_submission
from checker.pipeline.verify import verify_paths

pytestmark = pytest.mark.shared_data

SOURCE = "trajectory-corpus/tau-bench/historical_trajectories/gpt-4o-airline.json"
ENV = "trajectory-corpus/tau-bench/env/airline"


@pytest.fixture(scope="module")
def source() -> Path:
    return require_shared(shared_data() / SOURCE, "τ-bench's gpt-4o airline trajectories")


@pytest.fixture(scope="module")
def recorded(source: Path) -> list[dict]:
    return json.loads(source.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def verified(source: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The shared file imported (one command) and verified against the shipped task set: its results file."""
    root = tmp_path_factory.mktemp("tau-conformance")
    out = root / "tau-bench-gpt-4o-airline"
    local = root / "gpt-4o-airline.json"
    shutil.copyfile(source, local)
    assert import_submission(local, "airline", out, TASK_SET) == 0
    report = verify_paths([out], problem_dirs=[TASK_SET], results_dir=root / "results")
    assert report.exit_code == 0, [f.render() for f in report.findings]
    return json.loads((root / "results" / "tau-bench-gpt-4o-airline.json").read_text(encoding="utf-8"))


def _by_entry(results: dict) -> dict[tuple[int, int], dict]:
    out = {}
    for run in results["runs"]:
        task, trial = run["episode"]["task_id"], int(run["seed"].rsplit("trial", 1)[1])
        out[(task, trial)] = run
    return out


def test_the_shipped_copies_are_the_shared_files_byte_for_byte(source: Path) -> None:
    assert SHIPPED.read_bytes() == source.read_bytes()
    for name in ("flights.json", "reservations.json", "users.json", "policy.md"):
        assert (TASK_SET / name).read_bytes() == (shared_data() / ENV / name).read_bytes(), name
    license_text = (shared_data() / "trajectory-corpus/tau-bench/LICENSE").read_bytes()
    assert (TASK_SET / "LICENSE").read_bytes() == license_text == (SHIPPED.parent / "LICENSE").read_bytes()


def test_recomputed_reward_equals_the_recorded_one_on_all_200(verified: dict, recorded: list[dict]) -> None:
    runs = _by_entry(verified)
    assert len(runs) == len(recorded) == 200
    agree = sum(1 for e in recorded if runs[(e["task_id"], e["trial"])]["episode"]["reward"] == e["reward"])
    assert agree == 200
    assert all(run["verdict"] == "VALID" for run in runs.values())
    assert sum(len(run["mismatches"]) for run in runs.values()) == 0  # reward, hash, outputs, ending: none differs


def test_gold_hashes_outputs_and_endings_are_reproduced(verified: dict, recorded: list[dict]) -> None:
    runs = _by_entry(verified)
    hashes = outputs = sources = 0
    for e in recorded:
        ep = runs[(e["task_id"], e["trial"])]["episode"]
        info = (e["info"].get("reward_info") or {}).get("info") or {}
        if "gt_data_hash" in info:
            hashes += ep["gold_data_hash"] == info["gt_data_hash"]
        if "outputs" in info:
            outputs += ep["outputs"] == info["outputs"]
        # a step-limit episode records no reward_info; its source is its last step's (`user` after a reply: spec §5)
        expected = ("step_limit" if e["info"]["reward_info"] is None else
                    {"user": "closed_as_done", "transfer_to_human_agents": "transfer"}[e["info"]["source"]])
        sources += ep["ending"] == expected
    assert (hashes, outputs, sources) == (182, 13, 200)


def test_every_logged_tool_result_is_recomputed_byte_for_byte(verified: dict, recorded: list[dict]) -> None:
    calls = sum(1 for e in recorded for m in e["traj"] if m["role"] == "tool")
    assert calls == 1164
    assert sum(run["metrics"]["tool_result_mismatches"] for run in verified["runs"]) == 0
    assert sum(run["metrics"]["tool_calls"] for run in verified["runs"]) == 1164


def test_the_claims_channel_counts_of_the_specification(verified: dict) -> None:
    """Spec §8.1: 147 closed as done, 49 verified (98 false claims: 19 + 77 + 2); 48 transfers (35 verified); 5 step limits."""
    eps = [run["episode"] for run in verified["runs"]]
    endings = Counter(e["ending"] for e in eps)
    assert endings == {"closed_as_done": 147, "transfer": 48, "step_limit": 5}
    claimed = [e for e in eps if e["claimed"]]
    assert sum(e["verified"] for e in claimed) == 49
    assert Counter(e["false_claim"] for e in claimed if not e["verified"]) == {
        "no_effected_write": 19, "wrong_writes": 77, "output_missing": 2}
    assert sum(e["verified"] for e in eps if e["transferred"]) == 35
    assert sum(e["verified"] for e in eps) == 84
    writes = Counter(w["status"] for e in eps for w in e["write_calls"] if w["line"] is not None)
    assert sum(writes.values()) == 250 and writes["error"] == 73  # 177 effected, 73 refused
    cell = verified["cells"][0]["tables"]
    assert (cell["verified"]["k"], cell["verified"]["n"]) == (84, 200)
    assert (cell["false_claims"]["k"], cell["false_claims"]["n"]) == (98, 147)
    assert cell["pass_k"][0]["value"] == pytest.approx(0.42)  # τ-bench's published airline pass^1 for gpt-4o
