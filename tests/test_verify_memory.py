"""Verify at scale (issue 17): each submission's results are written and released as soon as it is
scored, a warm cache never parses whole results files, `--jobs` scores and serialises in the
workers, and the constraint scorer's per-problem state is bounded.

Expectations come from the pipeline's own single-process, uncached output (the reference for
"byte-identical") and from counting the shipped constraint baselines' per-turn records by hand
(4 runs over `driftboard-suite-v1`: 2,108 turns, see `submissions/driftboard-constraint-baselines`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from checker.format.results_model import ResultsFile, ResultsSummary
from checker.format.results_summary import KEEP_TURNS, SUMMARY_SUFFIX, summarize
from tests.submission_factory import make_agent_submission

REPO = Path(__file__).resolve().parents[1]
BASELINES = REPO / "submissions" / "driftboard-constraint-baselines"
SUITE = REPO / "problems" / "driftboard-suite-v1"


def _files(folder: Path) -> dict[str, bytes]:
    """The results folder's files, but binding.json, whose `cached` list says which came from the cache (it must)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "binding.json"}


def _agent_subs(root: Path, n: int) -> Path:
    for k in range(n):
        make_agent_submission(root, f"mem-{k}", {"FULL": ["s1", "s2"], "J0": ["s1"]})
    return root


def test_text_report_limit_matches_summary_limit():
    from checker.cli.report_text import TEXT_TURN_LIMIT

    # the summary keeps per-turn records exactly when the text report lists them
    assert KEEP_TURNS == TEXT_TURN_LIMIT


@pytest.mark.skipif(not BASELINES.is_dir() or not SUITE.is_dir(), reason="shipped constraint baselines not present")
def test_a_large_submission_is_released_and_read_back_whole(tmp_path):
    from checker.format.results_io import read_results
    from checker.pipeline.verify import verify_paths

    sub = shutil.copytree(BASELINES, tmp_path / "subs" / BASELINES.name)
    out = tmp_path / "out"
    report = verify_paths([sub], None, [SUITE], cache_dir=None, results_dir=out)
    assert report.exit_code == 0
    (s,) = report.submissions
    handle = s.results
    assert handle is not None
    # 2,108 per-turn records (more than KEEP_TURNS): held nowhere in memory once written
    assert handle.turn_records == 2108 > KEEP_TURNS
    assert handle.held is None
    assert all(r.turns is None for r in handle.summary.runs)
    assert all(r.turns is None for r in s.runs) and len(s.runs) == 4
    # ... but every other field is kept (run ids and digests, cells with their tables)
    assert all(r.run_id and r.log_sha256 and r.content_sha256 for r in s.runs)
    assert all(c.constraint_tables is not None for c in handle.summary.cells)
    # a summary that left records out is not a results file (code needing every record takes a ResultsFile)
    assert type(handle.summary) is ResultsSummary and not isinstance(handle.summary, ResultsFile)
    # the full file is read back on demand, equal to what was written
    assert handle.path == out / "driftboard-constraint-baselines.json"
    full = handle.load()
    assert full == read_results(handle.path)
    assert sum(len(r.turns or []) for r in full.runs) == 2108
    # a summary differs from its results file only by the left-out per-turn records
    assert summarize(full)[0] == handle.summary


def test_small_submission_keeps_its_turns_and_without_output_keeps_the_full_results(tmp_path):
    from checker.pipeline.verify import verify_paths

    subs = _agent_subs(tmp_path / "subs", 1)
    report = verify_paths([subs], None, [], cache_dir=None, results_dir=None)
    (s,) = report.submissions
    handle = s.results
    # nothing written anywhere: the full results stay in memory (the only copy)
    assert handle is not None and handle.path is None and handle.held is not None and handle.load() is handle.held
    assert handle.summary is handle.held  # no per-turn records: the summary is the file itself


def test_jobs_2_gives_the_same_bytes_findings_and_text(tmp_path, run_line, monkeypatch):
    subs = _agent_subs(tmp_path / "subs", 3)
    # one broken submission among them: its findings must survive the worker round trip
    (subs / "mem-1" / "runs" / "full-s2.jsonl").write_bytes(b'{"type": "run_start"}\n')
    monkeypatch.chdir(tmp_path)
    one = run_line(["verify", "subs", "--no-cache", "--out", "r1"])
    two = run_line(["verify", "subs", "--no-cache", "--out", "r2", "--jobs", "2"])
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output
    assert "MALFORMED subs/mem-1/runs/full-s2.jsonl" in one.output
    assert _files(tmp_path / "r1") == _files(tmp_path / "r2")
    j1 = json.loads(run_line(["verify", "subs", "--no-cache", "--format", "json"]).output)
    j2 = json.loads(run_line(["verify", "subs", "--no-cache", "--format", "json", "--jobs", "2"]).output)
    assert j1 == j2


def test_a_warm_pass_reads_summaries_only_and_copies_the_cached_bytes(tmp_path, run_line, monkeypatch):
    import checker.format.results_io as results_io
    import checker.pipeline.cache as cache
    import checker.pipeline.handle as handle
    import checker.pipeline.results as results
    import checker.pipeline.verify as verify

    _agent_subs(tmp_path / "subs", 2)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    cold = run_line(["verify", "subs", "--out", "cold", "--jobs", "2"])
    assert "cache 0 hit(s), 2 miss(es)" in cold.output
    assert len(list((tmp_path / "cache").glob(f"*{SUMMARY_SUFFIX}"))) == 2

    def boom(*_a, **_k):
        raise AssertionError("a warm pass must not score, nor parse a whole results file")

    for mod, name in ((verify, "_score_task"), (handle, "read_results"), (results, "read_results"),
                      (results_io, "read_results"), (cache, "cache_get")):
        monkeypatch.setattr(mod, name, boom)
    warm = run_line(["verify", "subs", "--out", "warm"])
    assert "cache 2 hit(s), 0 miss(es)" in warm.output
    assert _files(tmp_path / "cold") == _files(tmp_path / "warm")  # index.json included
    assert warm.output.replace(" (cached)", "").split("cache ")[0] == cold.output.split("cache ")[0]


def test_an_entry_without_summary_is_still_a_hit_and_gains_one(tmp_path, run_line, monkeypatch):
    _agent_subs(tmp_path / "subs", 1)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    run_line(["verify", "subs", "--out", "cold"])
    (summary,) = (tmp_path / "cache").glob(f"*{SUMMARY_SUFFIX}")
    summary.unlink()  # as stored before summaries existed
    warm = run_line(["verify", "subs", "--out", "warm"])
    assert "cache 1 hit(s), 0 miss(es)" in warm.output
    assert summary.is_file()
    assert _files(tmp_path / "cold") == _files(tmp_path / "warm")
    summary.write_text("{not json")  # a damaged summary is rebuilt from the entry, never trusted
    again = run_line(["verify", "subs", "--out", "again"])
    assert "cache 1 hit(s), 0 miss(es)" in again.output
    assert _files(tmp_path / "cold") == _files(tmp_path / "again")


@pytest.mark.skipif(not SUITE.is_dir(), reason="problems/driftboard-suite-v1 not present")
def test_problem_checkers_are_an_lru_and_released(monkeypatch):
    import checker.constraint.scorer as c
    from checker.constraint.problems import load_problem_sets

    sets = load_problem_sets([SUITE])
    (digest, ps), *_ = sorted(sets.items())
    p1, p2, p3 = sorted(ps.problems.values(), key=lambda p: p.problem_id)[:3]
    monkeypatch.setattr(c, "CHECKERS_SIZE", 2)
    c.release_checkers()
    first = c.checker_for(digest, p1)
    c.checker_for(digest, p2)
    assert c.checker_for(digest, p1) is first  # a hit, and p1 is now the most recently used
    c.checker_for(digest, p3)  # evicts p2, the least recently used
    assert list(c._CHECKERS) == [(digest, p1.problem_id), (digest, p3.problem_id)]
    c.release_checkers()
    assert not c._CHECKERS


@pytest.mark.parametrize("data", [
    {"a": 1, "digest": None, "z": [1.5, {"digest": "inner", "x": "é\n"}]},
    {"digest": None, "b": {"c": []}},
    {"a": {}, "digest": None},  # digest last: the cut cannot apply, the slow path answers
    {"digest": None},
])
def test_canonical_with_digest_equals_the_two_step_form(data):
    from checker.format.results_io import canonical_json, canonical_with_digest, content_digest

    reference = dict(data)
    reference["digest"] = content_digest(reference)
    expected = canonical_json(reference)
    assert canonical_with_digest(dict(data)) == expected
    copy = dict(data)
    canonical_with_digest(copy)
    assert copy["digest"] == reference["digest"]


@pytest.mark.parametrize("data", [
    "x", 1, 1.5, None, [], {}, [[]], {"k": {}},
    {"b": [{"é": "ü\u2028", "n": None, "t": True, "f": 0.1, "i": i, "z": {"a": [], "b": {}}} for i in range(20_000)],
     "a": "s", "": {}},  # about 400,000 pieces: several batches
])
def test_canonical_json_is_json_dumps_byte_for_byte(data):
    from checker.format.results_io import canonical_json

    assert canonical_json(data) == json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def test_progress_counts_every_log_once_with_loose_files_and_workers(tmp_path):
    from checker.pipeline.verify import verify_paths

    subs = _agent_subs(tmp_path / "subs", 2)  # 3 runs each
    loose = tmp_path / "loose.jsonl"
    loose.write_bytes((subs / "mem-0" / "runs" / "full-s1.jsonl").read_bytes())
    total = sum(p.stat().st_size for p in subs.rglob("*.jsonl")) + loose.stat().st_size
    for jobs in (1, 2):
        calls: list[tuple[int, int]] = []
        verify_paths([subs / "mem-0", subs / "mem-1", loose], None, [], jobs=jobs,
                     progress=lambda done, total, calls=calls: calls.append((done, total)))
        # bytes of stored logs, each counted once: from 0 to the total, never down, never past it
        assert calls[0] == (0, total) and calls[-1] == (total, total), (jobs, calls)
        assert [d for d, _ in calls] == sorted({d for d, _ in calls}), (jobs, calls)


def test_many_mismatches_are_cut_to_the_first_per_run_with_counts_kept(tmp_path):
    from checker.cli.report_text import agent_text
    from checker.format.results_model import Mismatch
    from checker.pipeline.verify import verify_paths

    subs = _agent_subs(tmp_path / "subs", 1)
    (s,) = verify_paths([subs], None, []).submissions
    assert s.results is not None
    full = s.results.load()
    assert len(full.runs) == 3
    many = [Mismatch(line=k, field="f", recorded=k, recomputed=None, reason="r") for k in range(1, 301)]
    # 300 + 300 + 0 = 600 > KEEP_TURNS in all: cut; the counts say how many there were
    runs = [r.model_copy(update={"mismatches": many if i < 2 else []}) for i, r in enumerate(full.runs)]
    summary, turns, counts = summarize(full.model_copy(update={"runs": runs}))
    assert turns == 0
    assert counts == {runs[0].path: 300, runs[1].path: 300, runs[2].path: 0}
    assert [len(r.mismatches) for r in summary.runs] == [1, 1, 0]
    assert summary.runs[0].mismatches[0].line == 1
    # the text report from the summary gives the same mismatch lines as from the full runs
    assert agent_text(summary.runs, counts) == agent_text(runs)
    # 400 in all is kept whole
    fewer = [r.model_copy(update={"mismatches": many[:200] if i < 2 else []}) for i, r in enumerate(full.runs)]
    kept, _, none = summarize(full.model_copy(update={"runs": fewer}))
    assert none is None and [len(r.mismatches) for r in kept.runs] == [200, 200, 0]


@pytest.mark.skipif(not SUITE.is_dir(), reason="problems/driftboard-suite-v1 not present")
def test_verify_tells_the_scorer_it_used_to_release_after_each_submission(monkeypatch):
    import checker.agent.scorer as a
    import checker.constraint.scorer as c
    from checker.pipeline.verify import verify_paths

    released: list[tuple[str, int]] = []
    for module, name in ((a, "agent"), (c, "constraint")):
        real = module.release
        monkeypatch.setattr(module, "release", lambda real=real, name=name: (
            released.append((name, len(c._CHECKERS))), real()))
    case = REPO / "tests" / "cases" / "valid" / "minimal-constraint"
    report = verify_paths([case], None, [SUITE])
    assert report.exit_code == 0
    # the constraint scorer held its problems' checkers for the submission, and let them go when it was done
    assert ("constraint", 0) not in released and any(name == "constraint" and n > 0 for name, n in released)
    assert not c._CHECKERS
