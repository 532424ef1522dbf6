"""Publication computes, never reads (issue 29, principle 1): forged results files are refused wherever they are.

A tiny agent submission (one VALID run, `completions` = 1, written through RunLogWriter by
`test_ci.make_submission`) is verified honestly; then a results file with an altered figure is
planted in `build/results`, in the verification cache, in a shard output and in the tree. Each is
refused with its finding and exit code, and the figure on the built site does not move: the
honest value (1 completion) stays, the forged one (86420 completions) appears nowhere.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO
from test_ci import make_submission

from checker.format.results_io import canonical_json, content_digest

FORGED = 86420
"""The forged figure: completions of the one cell (honest: 1)."""


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "tree"
    make_submission(root, "toy")
    monkeypatch.chdir(root)
    monkeypatch.delenv("DRIFTBOARD_JOB", raising=False)
    return root


def forge(path: Path, recompute_digest: bool = True) -> None:
    """Raise the cell's completions (and the null-results headline) to FORGED; re-sign the content digest."""
    data = json.loads(path.read_text())
    text = json.dumps(data)
    assert '"completions"' in text
    data = json.loads(text.replace('"completions": 1,', f'"completions": {FORGED},')
                      .replace("1 completion", f"{FORGED} completions"))
    assert f'"completions": {FORGED}' in json.dumps(data)  # the figure did move in the forged file
    if recompute_digest:
        data["digest"] = content_digest(data)
    path.write_text(canonical_json(data))


def verify(run_line, *args: str):
    return run_line(["verify", "submissions/", *args])


def build(run_line, *args: str):
    return run_line(["build", "--project", str(REPO), "--out", "build/site", *args])


def site_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in (root / "build" / "site").rglob("*.html"))


def assert_not_built(root: Path) -> None:
    assert not (root / "build" / "site" / "index.html").exists()


# --------------------------------------------------------------------------- build/results


def test_build_refuses_an_altered_results_file_in_build_results(tree, run_line):
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    forge(tree / "build" / "results" / "toy.json")
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert "build/results/toy.json: changed after it was written (its SHA-256 is not the one binding.json records)" \
        in result.stderr
    assert "publication computes, never reads; nothing built" in result.stderr
    assert_not_built(tree)


@pytest.mark.parametrize("name", ["evil.json", "notes.txt"])
def test_build_refuses_a_results_file_the_verification_did_not_write(tree, run_line, name):
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    planted = tree / "build" / "results" / name
    shutil.copyfile(tree / "build" / "results" / "toy.json", planted)
    forge(planted)
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert f"build/results/{name}: " in result.stderr and "refused" in result.stderr
    assert_not_built(tree)


def test_build_publishes_each_boards_comparisons_unchanged_and_refuses_an_altered_one(tree, run_line):
    """A board's comparisons file (beside boards.json, bound by binding.json) is published byte for byte; an edited
    one is refused like an edited results file."""
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    results = tree / "build" / "results"
    [board] = json.loads((results / "boards.json").read_text())["boards"]
    name = board["comparisons"]["file"]
    raw = (results / name).read_bytes()
    assert raw == b"a,b,shared,test,p,significant\r\n"  # one cell, not ranked (one seed): no pair, the header only
    assert json.loads((results / "binding.json").read_text())["files"][name] == hashlib.sha256(raw).hexdigest()
    result = build(run_line, "--no-verify")
    assert result.exit_code == 0, result.output
    assert (tree / "build" / "site" / "downloads" / "boards" / name).read_bytes() == raw
    page = (tree / "build" / "site" / "leaderboards" / "agent" / "index.html").read_text()
    assert f'downloads/boards/{name}" download>CSV</a>' not in page  # nothing ranked: no board listed with its pairs
    (results / name).write_bytes(raw + b"toy/FULL,toy/FULL,1,exact McNemar,0.5,false\r\n")
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert f"build/results/{name}: changed after it was written: refused" in result.stderr


def test_build_refuses_results_without_a_binding(tree, run_line):
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    (tree / "build" / "results" / "binding.json").unlink()
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert "binding.json: missing: these results were not written by `driftboard verify --out`" in result.stderr
    assert_not_built(tree)


def test_build_refuses_results_whose_logs_are_not_the_trees(tree, run_line):
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    log = tree / "submissions" / "toy" / "runs" / "r1.jsonl"
    log.write_bytes(log.read_bytes() + b"\n")
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert "run log submissions/toy/runs/r1.jsonl is not the same in this tree" in result.stderr


def test_build_with_verify_recomputes_over_a_forged_file(tree, run_line):
    """`build` (verifying first) overwrites a planted results file: the honest figure is published."""
    (tree / "build" / "results").mkdir(parents=True)
    assert verify(run_line, "--no-cache", "--out", "build/results").exit_code == 0
    forge(tree / "build" / "results" / "toy.json")
    result = build(run_line)
    assert result.exit_code == 0, result.output
    text = site_text(tree)
    assert "1 completion across 1 valid run" in text and f"{FORGED} completion" not in text


# --------------------------------------------------------------------------- the cache


def test_a_forged_cache_entry_is_recomputed(tree, run_line, tmp_path):
    cache = tmp_path / "cache"
    assert verify(run_line, "--cache-dir", str(cache), "--out", "build/honest").exit_code == 0
    (entry,) = [p for p in cache.glob("*.json") if not p.name.endswith(".summary.json") and "summary" not in p.name]
    forge(entry, recompute_digest=False)
    result = verify(run_line, "--cache-dir", str(cache), "--out", "build/results")
    assert result.exit_code == 0
    assert "its content digest does not match its content (edited?); ignored, recomputed" in result.output
    assert "cache 0 hit(s), 1 miss(es)" in result.output
    assert (tree / "build" / "results" / "toy.json").read_bytes() == (tree / "build" / "honest" / "toy.json").read_bytes()


def test_a_publishing_job_refuses_results_from_a_cache(tree, run_line, tmp_path, monkeypatch):
    monkeypatch.setenv("DRIFTBOARD_JOB", "run-7")
    cache = tmp_path / "cache"
    assert verify(run_line, "--cache-dir", str(cache), "--out", "build/warm").exit_code == 0
    assert verify(run_line, "--cache-dir", str(cache), "--out", "build/results").exit_code == 0  # a hit
    result = build(run_line, "--no-verify")
    assert result.exit_code == 1
    assert "results file(s) restored from a verification cache: a publishing job publishes only results it computed" \
        in result.stderr
    assert_not_built(tree)


# --------------------------------------------------------------------------- shard outputs


def shard(run_line, out: str, job: str, monkeypatch) -> None:
    monkeypatch.setenv("DRIFTBOARD_JOB", job)
    assert verify(run_line, "--no-cache", "--shard", "1/1", "--out", out).exit_code == 0


def test_merge_accepts_a_bound_shard_and_build_publishes_it(tree, run_line, monkeypatch):
    shard(run_line, "build/shard-1", "run-1", monkeypatch)
    merged = run_line(["merge", "build/shard-1", "--out", "build/results"])
    assert merged.exit_code == 0, merged.output
    result = build(run_line, "--no-verify")
    assert result.exit_code == 0, result.output
    assert "1 completion across 1 valid run" in site_text(tree)


@pytest.mark.parametrize("attack", ["altered", "extra", "other-job", "other-logs"])
def test_merge_refuses_a_forged_shard_output(tree, run_line, monkeypatch, attack):
    shard(run_line, "build/shard-1", "run-1", monkeypatch)
    out = tree / "build" / "shard-1"
    expected = {"altered": "build/shard-1/toy.json: changed after it was written",
                "extra": "build/shard-1/toy2.json: not written by the verification that wrote binding.json",
                "other-job": "written by job 'run-1', not by this job ('run-2')",
                "other-logs": "run log submissions/toy/runs/r1.jsonl is not the same in this tree"}[attack]
    if attack == "altered":
        forge(out / "toy.json")
    elif attack == "extra":
        shutil.copyfile(out / "toy.json", out / "toy2.json")
        forge(out / "toy2.json")
    elif attack == "other-job":
        monkeypatch.setenv("DRIFTBOARD_JOB", "run-2")
    else:
        log = tree / "submissions" / "toy" / "runs" / "r1.jsonl"
        log.write_bytes(log.read_bytes().replace(b'"score":1', b'"score":2'))
    merged = run_line(["merge", "build/shard-1", "--out", "build/results"])
    assert merged.exit_code == 1
    assert expected in merged.stderr and "nothing merged (publication computes, never reads)" in merged.stderr
    assert not (tree / "build" / "results").exists()


# --------------------------------------------------------------------------- committed in the tree


@pytest.mark.parametrize("name", ["results.json", "runs/verified.txt", "extra/boards.yaml"])
def test_verify_flags_a_results_file_committed_in_a_submission_folder(tree, run_line, name):
    honest = verify(run_line, "--no-cache", "--out", "build/honest", "--format", "json")
    assert honest.exit_code == 0
    planted = tree / "submissions" / "toy" / name
    planted.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tree / "build" / "honest" / "toy.json", planted)
    forge(planted)
    result = verify(run_line, "--no-cache", "--out", "build/results")
    assert result.exit_code == 1
    assert f"submissions/toy/{name}: a results-looking file committed in the tree: publication computes" in result.output
    assert (json.loads((tree / "build" / "results" / "toy.json").read_text())["null_results"]["headline"]
            == "1 completion across 1 valid run")
