"""`driftboard bench scale`: the smoke test of every stage (--quick), and its generators.

Not a timed test: it checks that the bench runs end to end and that what it reports is
consistent with the sizes it was asked for (cache hits and misses, curve points, identical
results across passes), not how fast anything is.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from driftboard_tools.bench.scale import curve_points
from driftboard_tools.generate.agent_logs import generate
from driftboard_tools.generate.leaderboards import (
    Sizes,
    _swap_answer,
    beats_for,
    generate_agent,
    generate_constraint,
    perturb,
    synthetic_problems,
)

from checker.constraint.problems import load_problem_sets
from checker.format.logio import RunLogWriter, read_events
from checker.harness.baselines.suite import problem_bytes
from checker.pipeline.verify import verify_paths


def test_quick_end_to_end(run_line, tmp_path: Path) -> None:
    out_json, out_md = tmp_path / "scale.json", tmp_path / "scale.md"
    res = run_line(["bench", "scale", "--quick", "--workdir", str(tmp_path / "work"), "--json", str(out_json),
                    "--markdown", str(out_md)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[-1].startswith("agent_events_per_s=")
    f = json.loads(out_json.read_text())["figures"]
    # --quick: 16 agent runs = 2 submissions of 4 cells x 2 seeds; 2 constraint submissions of
    # 4 runs over a 12-turn set = 48 turns each
    assert (f["agent_submissions"], f["agent_runs"]) == (2, 16)
    assert 0.8 * 8000 <= f["agent_events"] <= 1.2 * 8000
    assert (f["constraint_submissions"], f["constraint_runs"], f["constraint_turns"]) == (2, 8, 96)
    for half in ("agent", "constraint"):
        assert f[f"{half}_cold_j1_misses"] == 2
        assert (f[f"{half}_warm_j1_hits"], f[f"{half}_warm_j1_misses"]) == (2, 0)
        assert (f[f"{half}_one_changed_hits"], f[f"{half}_one_changed_misses"]) == (1, 1)
        assert f[f"{half}_results_identical_across_passes"] is True
        assert f[f"{half}_cold_j1_s"] > 0 and f[f"{half}_cold_j1_rss_max_mb"] > 0
        assert f[f"{half}_cold_j2_rss_tree_mb"] > 0  # the /proc sampler saw the process tree
        # the baseline ratio by CPU time too (json.loads in the bench process over the verify child's CPU);
        # at --quick sizes the child's start-up dominates, so only its presence and sign are checked
        assert f[f"{half}_json_loads_cpu_s"] >= 0 and f[f"{half}_cold_j1_cpu_s"] > 0
        assert 0 <= f[f"{half}_cold_j1_ratio_vs_json_loads_cpu"] < 1
    assert f["constraint_forced_z3_turns"] == 48
    assert f["site_pages"] > 0 and f["merge_results_mb"] > 0
    assert f["cores"] >= 1 and f["cpu"] and f["python"]
    curve = json.loads(out_json.read_text())["curve"]
    assert [(r["half"], r["submissions"]) for r in curve] == [("agent", 1), ("agent", 2), ("constraint", 1),
                                                              ("constraint", 2)]
    assert [r["units"] for r in curve if r["half"] == "constraint"] == [48, 96]
    # each curve point is also measured with --jobs 2 (speed-up and the process tree's memory)
    assert all(r["jobs"] == 2 and r["s_jobs"] > 0 and r["speedup"] > 0 and r["rss_tree_mb_jobs"] > 0 for r in curve)
    md = out_md.read_text()
    assert "| verify, cold cache, `--jobs 1` |" in md and "| site build (`build --no-verify`) |" in md


def test_bad_sizes_are_usage_errors(run_line, tmp_path: Path) -> None:
    res = run_line(["bench", "scale", "--quick", "--z3-subset", "3", "--workdir", str(tmp_path)])
    assert res.exit_code == 2 and "--z3-subset" in res.output and "Traceback" not in res.output
    res = run_line(["bench", "scale", "--quick", "--problems", str(tmp_path / "absent"), "--workdir", str(tmp_path)])
    assert res.exit_code == 2 and "no such problem folder" in res.output


def test_generated_data_is_reused_only_while_intact(tmp_path: Path) -> None:
    sizes = Sizes(agent_runs=4, agent_events=800, agent_seeds=1, jobs=1)
    first = generate_agent(tmp_path, sizes)
    assert not first.reused and len(first.submissions) == 1 and len(first.log_files) == 4
    again = generate_agent(tmp_path, sizes)
    assert again.reused and again.units == first.units
    victim = first.log_files[0]
    size = victim.stat().st_size
    victim.write_bytes(victim.read_bytes()[:-10])  # a truncated log is not reused: it is written again
    assert not generate_agent(tmp_path, sizes).reused
    assert victim.stat().st_size == size
    assert not generate_agent(tmp_path, Sizes(agent_runs=4, agent_events=900, agent_seeds=1, jobs=1)).reused


def test_beats_for_hits_the_event_count_of_the_agent_writer(tmp_path: Path) -> None:
    for target in (500, 2_000, 10_000):
        beats = beats_for(target)
        n = generate(tmp_path / f"{target}.jsonl", beats)
        assert n <= target < generate(tmp_path / f"{target}+1.jsonl", beats + 1)


def _verified_runs(sub: Path) -> dict[str, object]:
    report = verify_paths([sub], jobs=1)
    assert report.exit_code == 0
    (result,) = report.submissions
    return {Path(r.path).name: r for r in result.runs}


def _rewrite(path: Path, edit) -> None:
    """Re-chain a log with `edit(event dict)` applied to every body event (the forger's route past the chain)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.unlink()
    start = {k: v for k, v in rows[0].items() if k not in ("seq", "prev", "type")}
    with RunLogWriter(path, start) as log:
        for row in rows[1:-1]:
            log.write(edit({k: v for k, v in row.items() if k not in ("seq", "prev")}))
        log.end(rows[-1]["status"], rows[-1].get("reason"))


def test_generated_agent_runs_pass_every_evidence_check_and_a_forged_one_does_not(tmp_path: Path) -> None:
    # 4 runs of about 2,000 events (about 290 beats each): the agent half's runs at a small size
    half = generate_agent(tmp_path / "work", Sizes(agent_runs=4, agent_events=8_000, agent_seeds=1, jobs=1))
    (sub,) = half.submissions
    runs = _verified_runs(sub)
    # (about 2,000 events a run, ±20 %; at 6.89 events a beat the shortest has about 225 beats)
    assert len(runs) == 4 and all(r.gds.reference_beats >= 220 for r in runs.values())
    for run in runs.values():
        assert (run.verdict, run.mismatches, run.reasons) == ("VALID", [], [])
        assert {k: c.status for k, c in run.gate.items() if c.status != "NOT_APPLICABLE"} == {
            "canary_echo": "PASS", "evidence": "PASS", "render_ceiling": "PASS", "silent_degrade": "PASS",
            "write_error_rate": "PASS"}
    # the forger's edits, re-chained: one receipt's match flag flipped, one echo's nonce replaced
    victim = sorted(half.log_files)[0]
    done = {"match": False, "nonce": False}

    def forge(ev: dict) -> dict:
        if ev["type"] == "receipt" and "predicted" in ev and not done["match"]:
            done["match"] = True
            return {**ev, "match": 0}
        if ev["type"] == "canary_echo" and not done["nonce"]:
            done["nonce"] = True
            return {**ev, "nonce": "ZQforged"}
        return ev

    _rewrite(victim, forge)
    runs = _verified_runs(sub)
    forged = runs[victim.name]
    assert forged.verdict == "INVALID" and forged.gate.evidence.status == "FAIL"
    assert sorted((m.field, m.recorded) for m in forged.mismatches) == [("match", 0), ("nonce", "ZQforged")]
    assert all(r.verdict == "VALID" for name, r in runs.items() if name != victim.name)


def test_curve_points() -> None:
    assert curve_points(25) == [1, 5, 25]
    assert curve_points(50) == [1, 10, 50]
    assert curve_points(2) == [1, 2]
    assert curve_points(1) == [1]


def test_perturbations_change_a_turn_and_drop_its_labels() -> None:
    text = 'Final: {"solution": {"Ada": 1, "Bea": 2}}'
    assert _swap_answer(text, random.Random(0)) == 'Final: {"solution": {"Ada": 2, "Bea": 1}}'
    assert _swap_answer("no answer here", random.Random(0)) is None
    turn = {"type": "turn", "raw_response": text, "z3_sat": 1, "answer_correct": 1, "mus": None,
            "ledger": [{"id": "C001", "type": "adjacent", "args": ["Ada", "Bea"], "nl": "x"}]}
    rng = random.Random(1)
    changed = [perturb(turn, rng) for _ in range(400)]
    touched = [t for t in changed if t is not turn]
    assert 0.2 * 400 < len(touched) < 0.4 * 400  # PERTURB_RATE = 0.3
    assert all(t["z3_sat"] is None and t["answer_correct"] is None for t in touched)
    assert any(t["raw_response"] != text for t in touched)
    assert any(t["ledger"] != turn["ledger"] for t in touched)
    assert turn["z3_sat"] == 1  # the base event itself is never modified
    assert perturb({"type": "problem_start", "problem_id": "p"}, rng) == {"type": "problem_start", "problem_id": "p"}


def test_synthetic_problem_set_has_the_asked_turns_and_is_valid(tmp_path: Path) -> None:
    raws = synthetic_problems(40)
    assert sum(len(p["turns"]) for p in raws) == 40
    folder = tmp_path / "set"
    folder.mkdir()
    for p in raws:
        (folder / f"{p['problem_id']}.json").write_bytes(problem_bytes(p))
    assert len(load_problem_sets([folder])) == 1  # every gold turn re-checked with Z3 on load


def test_constraint_half_over_a_given_problem_folder(tmp_path: Path) -> None:
    folder = tmp_path / "problems" / "test"
    folder.mkdir(parents=True)
    for p in synthetic_problems(6):
        (folder / f"{p['problem_id']}.json").write_bytes(problem_bytes(p))
    half = generate_constraint(tmp_path / "work", Sizes(constraint_submissions=2, problems=str(tmp_path / "problems"),
                                                        jobs=1, z3_subset=1))
    assert half.problems == tmp_path / "problems"
    assert half.units == [4 * 6, 4 * 6]  # 4 methods x 6 turns per submission
    digest = next(iter(load_problem_sets([tmp_path / "problems"])))
    for log in half.log_files:
        start = next(read_events(log))[1]
        assert start.problem_set is not None and start.problem_set.digest == digest


def test_quick_storage_only(run_line, tmp_path: Path) -> None:
    """The storage stage (issue 32, item 4): each half in four forms of the same runs, bytes, verify passes, the fetch."""
    out_json, out_md = tmp_path / "storage.json", tmp_path / "storage.md"
    work = tmp_path / "work"
    res = run_line(["bench", "scale", "--quick", "--storage-only", "--workdir", str(work),
                    "--json", str(out_json), "--markdown", str(out_md)])
    assert res.exit_code == 0, res.output
    f = json.loads(out_json.read_text())["figures"]
    assert "agent_cold_j1_s" not in f and "site_pages" not in f  # storage only: no other stage ran
    # --quick: 16 agent runs in 2 submissions; 2 constraint submissions of 4 runs
    for half, runs in (("agent", 16), ("constraint", 8)):
        h = f"{half}_storage"
        # plain: every file of the generated submissions, counted here from the generator's folder
        generated = sum(p.stat().st_size for p in (work / half / "submissions").rglob("*") if p.is_file())
        assert abs(f[f"{h}_plain_repo_mb"] - round(generated / 1e6, 2)) <= 0.01
        assert f[f"{h}_zstd_repo_mb"] <= f[f"{h}_gzip_repo_mb"] < f[f"{h}_plain_repo_mb"]
        assert f[f"{h}_reference_repo_mb"] < 0.1 * f[f"{h}_plain_repo_mb"]  # the manifests only
        assert f[f"{h}_runs"] == f[f"{h}_blobs"] == f[f"{h}_fetch_blobs"] == f[f"{h}_verified_runs"] == runs
        assert (f[f"{h}_fetch_cold_downloaded"], f[f"{h}_fetch_warm_downloaded"]) == (runs, 0)
        assert f[f"{h}_runs_identical_across_forms"] is True
        for form in ("plain", "gzip", "zstd", "reference", "reference_warm"):
            assert f[f"{h}_{form}_j2_s"] > 0 and f[f"{h}_{form}_j2_rss_max_mb"] > 0
        assert f[f"{h}_plain_j2_ratio_vs_plain"] == 1.0
        assert f[f"{h}_zstd_compress_cpu_s"] > 0 and f[f"{h}_compressed_copies_reused"] is False
    md = out_md.read_text()
    assert md.count("| zstd (`.jsonl.zst`) |") == 2 and "Cost curve" not in md
    # run again on one half: the compressed copies are kept (zstd -19 is paid once per workdir), the figures stand
    res = run_line(["bench", "scale", "--quick", "--storage-only", "--half", "agent", "--workdir", str(work),
                    "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    f = json.loads(out_json.read_text())["figures"]
    assert f["agent_storage_compressed_copies_reused"] is True and "constraint_storage_jobs" not in f
    assert f["agent_storage_runs_identical_across_forms"] is True
    assert f["agent_storage_zstd_level"] == f["agent_storage_shipped_zstd_level"] == 19
    # --zstd-level: the copies at that level, and the shipped level measured on the first submission
    res = run_line(["bench", "scale", "--quick", "--storage-only", "--half", "agent", "--zstd-level", "3",
                    "--storage-verify-first", "1", "--workdir", str(work), "--json", str(out_json), "--markdown",
                    str(out_md)])
    assert res.exit_code == 0, res.output
    f = json.loads(out_json.read_text())["figures"]
    # --storage-verify-first 1: bytes of the whole half, passes and fetch on its first submission (8 runs)
    assert (f["agent_storage_submissions"], f["agent_storage_verified_submissions"]) == (2, 1)
    assert (f["agent_storage_verified_runs"], f["agent_storage_fetch_blobs"], f["agent_storage_blobs"]) == (8, 8, 16)
    assert f["agent_storage_zstd_level"] == 3 and f["agent_storage_compressed_copies_reused"] is False
    assert f["agent_storage_shipped_sample_mb"] < f["agent_storage_shipped_sample_plain_mb"]
    assert f["agent_storage_shipped_estimate_repo_mb"] > 0 and f["agent_storage_runs_identical_across_forms"] is True
    assert "not the level `driftboard compress` writes (19)" in out_md.read_text()


def test_half_goes_with_storage_only(run_line, tmp_path: Path) -> None:
    res = run_line(["bench", "scale", "--quick", "--half", "agent", "--workdir", str(tmp_path)])
    assert res.exit_code == 2 and "--half goes with --storage-only" in res.output
