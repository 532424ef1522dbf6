"""Per-cell aggregation, pre-registration enforcement, results files, cache, shards and citations."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from submission_factory import make_agent_submission

from checker.format.results_model import RunResult


def _verify(run_line, *args):
    return run_line(["verify", *[str(a) for a in args]])


def _results(path):
    return json.loads(path.read_text())


def test_missing_declared_run_is_reported_not_dropped(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-missing", {"FULL": ["s1", "s2", "s3"]}, runs=[("FULL", "s1")])
    result = _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    doc = _results(tmp_path / "res" / "s-missing.json")
    assert doc["prereg_check"]["missing"] == [
        {"cell": "FULL", "seed": "s2", "status": "missing (not reported)"},
        {"cell": "FULL", "seed": "s3", "status": "missing (not reported)"},
    ]
    assert "FULL / s2: missing (not reported)" in result.output
    # intent-to-treat: a declared run that is not reported fails verification (and counts as worst)
    assert result.exit_code == 1
    assert "cell FULL, seed s3: declared in prereg.yaml but no readable run log is reported for it" in result.output


def test_undeclared_run_fails_verification(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-undeclared", {"FULL": ["s1"]}, runs=[("FULL", "s1"), ("J0", "s1")])
    result = _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    doc = _results(tmp_path / "res" / "s-undeclared.json")
    assert [(u["cell"], u["seed"]) for u in doc["prereg_check"]["undeclared"]] == [("J0", "s1")]
    assert result.exit_code == 1
    assert "undeclared run s-undeclared-J0-s1 (cell J0, seed s1)" in result.output


def test_prereg_digest_mismatch_is_flagged(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-digest", {"FULL": ["s1", "s2"]},
                          header_prereg={("FULL", "s2"): "ab" * 32})
    result = _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    doc = _results(tmp_path / "res" / "s-digest.json")
    assert [m["run_id"] for m in doc["prereg_check"]["digest_mismatch"]] == ["s-digest-FULL-s2"]
    assert result.exit_code == 1


@pytest.mark.parametrize(("levels", "triggered", "headline"), [
    ({}, True, "0 completions across 2 valid runs"),
    ({("FULL", "s2"): 2}, False, "2 completions across 2 valid runs"),
])
def test_zero_completion_defeater(tmp_path, run_line, levels, triggered, headline):
    make_agent_submission(tmp_path / "subs", "s-null", {"FULL": ["s1", "s2"]}, completions=levels)
    _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    doc = _results(tmp_path / "res" / "s-null.json")
    assert doc["defeaters"][0]["triggered"] is triggered
    assert doc["null_results"]["headline"] == headline
    assert doc["null_results"]["triggered_defeaters"] == (["zero-completions"] if triggered else [])


def test_efficiency_only_for_completed_levels(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-eff", {"FULL": ["s1", "s2"]}, completions={("FULL", "s2"): 2})
    _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    cell = _results(tmp_path / "res" / "s-eff.json")["cells"][0]
    per_level = cell["metrics"]["actions_per_level"]
    assert per_level["values"]["s1"] is None  # no level completed: undefined, not 0 or infinity
    assert per_level["n_defined"] == 1
    actions = cell["metrics"]["actions"]["values"]["s2"]
    assert per_level["values"]["s2"] == actions / 2


def test_undefined_seeds_are_left_out_not_zero(tmp_path, run_line):
    from checker.stages.aggregate import aggregate_metrics

    runs = [
        RunResult(path="a", verdict="VALID", cell="A0", seed="a", metrics={"gds_abandon": 1.0}),
        RunResult(path="b", verdict="VALID", cell="A0", seed="b", metrics={"gds_abandon": None}),
        RunResult(path="c", verdict="VALID", cell="A0", seed="c", metrics={"gds_abandon": 0.5}),
        RunResult(path="d", verdict="INVALID", cell="A0", seed="d", metrics={"gds_abandon": 0.0}),
    ]
    agg = aggregate_metrics("x/A0", runs)["gds_abandon"]
    assert (agg.n_defined, agg.n) == (2, 3)
    assert agg.mean == 0.75
    assert agg.values == {"a": 1, "b": None, "c": 0.5}
    assert agg.ci95 is None  # two defined values: too few for a bootstrap interval (the page shows n)
    more = [RunResult(path=str(i), verdict="VALID", cell="A0", seed=str(i), metrics={"gds_abandon": v})
            for i, v in enumerate([1.0, 0.5, 0.5, 0.0, 1.0])]
    lo, hi = aggregate_metrics("x/A0", more)["gds_abandon"].ci95
    assert 0.0 <= lo <= 0.6 <= hi <= 1.0  # mean 0.6 of five values
    assert aggregate_metrics("x/A0", more)["gds_abandon"].ci95 == [lo, hi]  # seeded


def test_pooled_rate_differs_from_mean_of_rates():
    from checker.stages.aggregate import aggregate_metrics

    runs = [RunResult(path="a", verdict="VALID", cell="A0", seed="a", metrics={"gds_bind": 1.0}),
            RunResult(path="b", verdict="VALID", cell="A0", seed="b", metrics={"gds_bind": 0.0})]
    agg = aggregate_metrics("x/A0", runs, {"gds_bind": {"a": [1, 1], "b": [0, 9]}})["gds_bind"]
    assert agg.mean == 0.5
    assert agg.pooled == 0.1


def test_cache_hit_and_miss(tmp_path, run_line, monkeypatch):
    subs = tmp_path / "subs"
    folder = make_agent_submission(subs, "s-cache", {"FULL": ["s1"]})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    first = _verify(run_line, "subs", "--out", "res")
    assert "cache 0 hit(s), 1 miss(es)" in first.output
    before = (tmp_path / "res" / "s-cache.json").read_bytes()

    import checker.pipeline.verify as verify

    def boom(*_a, **_k):
        raise AssertionError("a cache hit must not recompute")

    monkeypatch.setattr(verify, "_score_task", boom)
    second = _verify(run_line, "subs", "--out", "res")
    assert "cache 1 hit(s), 0 miss(es)" in second.output
    assert (tmp_path / "res" / "s-cache.json").read_bytes() == before
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    # any change to a log changes the key: a miss
    log = folder / "runs" / "full-s1.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"backbone":"toy"', b'"backbone":"toy2"'))
    third = _verify(run_line, "subs", "--out", "res")
    assert "cache 0 hit(s), 1 miss(es)" in third.output
    assert third.exit_code == 1  # the edit broke the chain


def test_shards_merge_to_the_same_bytes_as_one_run(tmp_path, run_line):
    subs = tmp_path / "subs"
    five = [f"s{k}" for k in range(1, 6)]  # five declared seeds: cells that rank, so a board with comparisons
    for i, cells in enumerate([{"FULL": five}, {"A0": five}, {"FULL": ["s1"], "J0": ["s1"]}]):
        make_agent_submission(subs, f"s-shard-{i}", cells, game_id="world-a")
    _verify(run_line, subs, "--out", tmp_path / "single", "--no-cache")
    _verify(run_line, subs, "--out", tmp_path / "shard1", "--shard", "1/2", "--no-cache", "--jobs", "2")
    _verify(run_line, subs, "--out", tmp_path / "shard2", "--shard", "2/2", "--no-cache")
    merged = run_line(["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--out", str(tmp_path / "merged")])
    assert merged.exit_code == 0, merged.output
    single = {p.name: p.read_bytes() for p in (tmp_path / "single").iterdir()}
    combined = {p.name: p.read_bytes() for p in (tmp_path / "merged").iterdir()}
    # binding.json: what binds the folder to the job, the code and the logs (issue 29, publication computes)
    # each board's comparisons in a file of their own, named by the board id's digest (bound like the rest)
    board = json.loads(single["boards.json"])["boards"]
    assert [b["comparisons"]["pairs"] for b in board] == [1]  # two ranked cells, one pair
    comparisons = "comparisons-" + hashlib.sha256(board[0]["id"].encode()).hexdigest()[:16] + ".csv"
    assert sorted(single) == ["binding.json", "boards.json", comparisons, "index.json", "s-shard-0.json",
                              "s-shard-1.json", "s-shard-2.json"]
    assert json.loads(single["binding.json"])["files"][comparisons] == hashlib.sha256(single[comparisons]).hexdigest()
    assert combined == single
    assert sorted(p.name for p in (tmp_path / "shard1").iterdir()) == ["binding.json", "s-shard-0.json",
                                                                       "s-shard-2.json"]


def test_bad_shard_is_usage_error(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-x", {"FULL": ["s1"]})
    result = _verify(run_line, tmp_path / "subs", "--shard", "3/2")
    assert result.exit_code == 2
    assert "K must be between 1 and N" in result.stderr


def test_results_are_deterministic_and_digested(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-det", {"FULL": ["s1", "s2"], "A0": ["s1"]})
    _verify(run_line, tmp_path / "subs", "--out", tmp_path / "a", "--no-cache")
    _verify(run_line, tmp_path / "subs", "--out", tmp_path / "b", "--no-cache", "--jobs", "2")
    a = (tmp_path / "a" / "s-det.json").read_bytes()
    assert a == (tmp_path / "b" / "s-det.json").read_bytes()
    doc = json.loads(a)
    body = {k: v for k, v in doc.items() if k != "digest"}
    canonical = json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert doc["digest"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert [c["result_id"] for c in doc["cells"]] == ["s-det/A0", "s-det/FULL"]
    logs = sorted(p for p in (tmp_path / "subs" / "s-det" / "runs").iterdir())
    assert sorted(entry["sha256"] for entry in doc["logs"]) == sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in logs)


def test_claims_are_checked(tmp_path, run_line):
    make_agent_submission(tmp_path / "subs", "s-claims", {"FULL": ["s1", "s2"]}, claims=[
        {"cell": "FULL", "metric": "valid_runs", "value": 2},
        {"cell": "FULL", "metric": "completions", "value": 3, "source": "paper table 2"},
    ])
    result = _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    claims = _results(tmp_path / "res" / "s-claims.json")["claims"]
    assert [(c["metric"], c["agrees"]) for c in claims] == [("valid_runs", True), ("completions", False)]
    assert result.exit_code == 1
    assert "claim FULL/completions: claimed 3, recomputed 0.0" in result.output


def test_claim_precision():
    from checker.stages.preregistration import agrees

    assert agrees(0.4, 0.4004)
    assert not agrees(0.4, 0.46)
    assert agrees(0.333, 1 / 3)
    assert agrees(None, None)
    assert not agrees(0.0, None)  # undefined is not zero
    assert not agrees(0.0, 0.4)  # "0.0" is a one-decimal claim
    assert agrees(0.0, 0.04)
    assert not agrees(0, 0.3)  # an integer claim is exact
    assert agrees(2, 2.0)


def test_prereg_committed_after_runs_is_flagged(tmp_path, run_line, monkeypatch):
    repo = tmp_path / "repo"
    folder = make_agent_submission(repo / "submissions", "s-order", {"FULL": ["s1"]})
    prereg = (folder / "prereg.yaml").read_bytes()
    (folder / "prereg.yaml").unlink()

    def git(*args):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                       check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "runs first")
    (folder / "prereg.yaml").write_bytes(prereg)
    git("add", "-A")
    git("commit", "-qm", "prereg later")
    monkeypatch.chdir(repo)
    result = _verify(run_line, "submissions", "--out", "res", "--no-cache")
    order = _results(repo / "res" / "s-order.json")["prereg_check"]["commit_order"]
    assert order["status"] == "violated"
    assert result.exit_code == 1


def test_cite_names_permalink_log_digest_version_and_command(tmp_path, run_line):
    folder = make_agent_submission(tmp_path / "subs", "s-cite", {"FULL": ["s1", "s2"]})
    _verify(run_line, tmp_path / "subs", "--out", tmp_path / "res", "--no-cache")
    result = run_line(["cite", "s-cite/FULL", "--results", str(tmp_path / "res")])
    assert result.exit_code == 0
    logs = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in (folder / "runs").iterdir())
    combined = hashlib.sha256("".join(f"{d}\n" for d in logs).encode()).hexdigest()
    assert result.output.startswith("@misc{driftboard:s-cite-FULL,")
    assert combined in result.output
    assert "results/s-cite/FULL/" in result.output
    assert "driftboard verify submissions/s-cite" in result.output
    from checker import __version__

    assert f"checker {__version__}" in result.output
    missing = run_line(["cite", "s-cite/NOPE", "--results", str(tmp_path / "res")])
    assert missing.exit_code == 2
    assert "has no cell 'NOPE'" in missing.stderr


def test_build_without_verify_needs_results(tmp_path, run_line):
    result = run_line(["build", "--no-verify", "--results", str(tmp_path / "none"), "--out", str(tmp_path / "site")])
    assert result.exit_code == 2
    assert "no index.json; run `driftboard verify`" in result.stderr


def test_bootstrap_depends_on_values_not_order():
    from checker.stages.aggregate import bootstrap_ci

    assert bootstrap_ci([0.1, 0.9, 0.4], "k") == bootstrap_ci([0.9, 0.4, 0.1], "k")
    assert bootstrap_ci([0.5], "k") is None


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.floats(min_value=-1e300, max_value=1e300), st.integers(-10**6, 10**6),
                       st.sampled_from([0.1, 1 / 3, -0.0, 0.0, 1e-300, 2.5e-5])),
       n=st.integers(5, 40), key=st.text(max_size=8))
def test_bootstrap_of_equal_values_is_the_full_bootstrap(value, n, key):
    # the shortcut for a sample of equal values gives what the 2,000 resamples give, bit for bit
    import numpy as np

    from checker.format.numbers import clean
    from checker.stages.aggregate import BOOTSTRAP_RESAMPLES, bootstrap_ci, seed_for

    values = [value] * n
    rng = np.random.default_rng(seed_for(key))
    arr = np.sort(np.asarray(values, dtype=float))
    means = arr[rng.integers(0, len(arr), size=(BOOTSTRAP_RESAMPLES, len(arr)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    full = [clean(float(lo)), clean(float(hi))]
    got = bootstrap_ci(values, key)
    assert got is not None and [x.hex() for x in got] == [x.hex() for x in full]
