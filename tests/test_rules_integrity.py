"""Issue 14, items 2-4: each attack rebuilt on a copy of the shipped submissions, refused or without effect.

Every case asserts the finding text, the exit code and the figure that must not move. Expected
figures are counted from the logs themselves (recorded labels, beats), never taken from the
checker's output for the same input.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from cases.generate import chain
from test_ci import commit, git

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "submissions"
AGENT = "driftboard-microworld-agent"
CONSTRAINT = "driftboard-constraint-baselines"
PROBLEMS = REPO / "problems"


# --------------------------------------------------------------------------- helpers


def events(path: Path) -> list[dict[str, Any]]:
    """The events of a log without their chain fields."""
    return [{k: v for k, v in json.loads(line).items() if k not in ("seq", "prev")}
            for line in path.read_bytes().splitlines()]


def write_log(path: Path, evs: list[dict[str, Any]]) -> None:
    """Write events as a freshly chained log (what a forger does after editing)."""
    path.write_bytes(b"".join(line + b"\n" for line in chain(evs, evs[0]["run_id"])))


def copy_shipped(dest: Path, sid: str) -> Path:
    folder = dest / sid
    shutil.copytree(SHIPPED / sid, folder)
    return folder


def edit_prereg(folder: Path, change) -> None:
    """Apply `change` to the parsed prereg.yaml, write it, and re-chain every run's header digest."""
    doc = yaml.safe_load((folder / "prereg.yaml").read_text())
    change(doc)
    raw = yaml.safe_dump(doc, sort_keys=False).encode()
    (folder / "prereg.yaml").write_bytes(raw)
    digest = hashlib.sha256(raw).hexdigest()
    for log in sorted((folder / "runs").glob("*.jsonl")):
        evs = events(log)
        evs[0]["prereg_sha256"] = digest
        write_log(log, evs)


def verify(run_line, *paths: Path, tmp: Path | None = None) -> tuple[int, dict[str, Any], str]:
    args = ["verify", *map(str, paths), "--problems", str(PROBLEMS / "driftboard-suite-v1"), "--no-cache"]
    args += ["--out", str(tmp)] if tmp is not None else ["--no-results"]
    result = run_line([*args, "--format", "json"])
    out = result.stdout + result.stderr
    assert "Traceback" not in out
    doc = json.loads(result.stdout)
    assert doc["exit_code"] == result.exit_code
    return result.exit_code, doc, out


def problems(doc: dict[str, Any]) -> list[str]:
    return [(f"{p['path']}:{p['line']}" if p["line"] is not None else p["path"]) + f": {p['message']}"
            for p in doc["problems"]]


def runs_of(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {Path(r["path"]).name: r for s in doc["submissions"] for r in s["runs"]}


def cell(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for s in doc["submissions"] for c in s["cells"] if c["cell"] == name)


@pytest.fixture(scope="module")
def shipped_agent(tmp_path_factory, run_line_module) -> dict[str, Any]:
    """The shipped agent submission, verified once as shipped (the figures an attack must not move)."""
    code, doc, _ = verify(run_line_module, SHIPPED / AGENT)
    assert code == 0
    return doc


@pytest.fixture(scope="module")
def run_line_module():
    from click.testing import CliRunner

    from checker.cli.main import cli

    def run(args: list[str]):
        return CliRunner().invoke(cli, args, catch_exceptions=False)

    return run


# --------------------------------------------------------------------------- item 3: copies


def test_a_good_run_copied_in_as_another_seed_is_flagged_on_both_and_counts_once(tmp_path, run_line, shipped_agent):
    folder = copy_shipped(tmp_path, AGENT)
    good, bad = folder / "runs" / "full-s1.jsonl", folder / "runs" / "full-s3.jsonl"
    forged = events(good)
    forged[0].update(events(bad)[0])  # s3's header (run id, seed, start time), s1's events; re-chained
    forged[-1] = {"type": "run_end", "status": "COMPLETED", "reason": "copied"}
    write_log(bad, forged)
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    shown = f"{folder.as_posix()}/runs"
    tail = "(ids, seed labels, chain fields and timestamps aside): a copied run; it counts once"
    assert problems(doc) == [f"{shown}/full-s1.jsonl:1: same event payloads as {shown}/full-s3.jsonl {tail}",
                             f"{shown}/full-s3.jsonl:1: same event payloads as {shown}/full-s1.jsonl {tail}"]
    runs = runs_of(doc)
    assert runs["full-s1.jsonl"]["verdict"] == "VALID"
    assert runs["full-s3.jsonl"]["verdict"] == "INVALID"
    assert runs["full-s3.jsonl"]["reasons"][-1] == (f"a copy of {shown}/full-s1.jsonl (same event payloads): "
                                                    "the run counts once")
    # the FULL cell counts s1 and s2 once each: its figures are those of the two honest seeds
    full, before = cell(doc, "FULL"), cell(shipped_agent, "FULL")
    assert full["valid_runs"] == 2
    for metric in ("gds_bind", "gds_abandon", "completions"):
        assert full["metrics"][metric]["values"] == {s: before["metrics"][metric]["values"][s] for s in ("s1", "s2")}


def test_a_copy_in_another_submission_is_flagged_in_both(tmp_path, run_line):
    orig = copy_shipped(tmp_path / "col", AGENT)
    other = tmp_path / "col" / "other-lab"
    (other / "runs").mkdir(parents=True)
    prereg = {"format_version": "1.0", "submission_id": "other-lab", "track": "agent", "profile": "driftboard",
              "cells": {"FULL": {"seeds": ["s1"]}}, "horizon": 150}
    raw = yaml.safe_dump(prereg).encode()
    (other / "prereg.yaml").write_bytes(raw)
    manifest = yaml.safe_load((orig / "submission.yaml").read_text())
    manifest.update(id="other-lab", title="Other lab agent", files=["runs/full-s1.jsonl"], synthetic=False)
    (other / "submission.yaml").write_text(yaml.safe_dump(manifest))
    forged = events(orig / "runs" / "full-s1.jsonl")
    forged[0].update(run_id="other-lab-full-s1", submission_id="other-lab", prereg_sha256=hashlib.sha256(raw).hexdigest(),
                     started_at="2026-12-01T00:00:00Z")
    write_log(other / "runs" / "full-s1.jsonl", forged)
    code, doc, _ = verify(run_line, tmp_path / "col")
    assert code == 1
    a, b = f"{orig.as_posix()}/runs/full-s1.jsonl", f"{other.as_posix()}/runs/full-s1.jsonl"
    tail = "(ids, seed labels, chain fields and timestamps aside): a copied run; it counts once"
    assert set(problems(doc)) == {f"{a}:1: same event payloads as {b} {tail}", f"{b}:1: same event payloads as {a} {tail}"}


def _copy_between_cells(folder: Path, src: str, dest: str) -> None:
    evs = events(folder / "runs" / src)
    evs[0] = events(folder / "runs" / dest)[0]
    write_log(folder / "runs" / dest, evs)


def test_identical_runs_of_deterministic_cells_with_different_inputs_are_not_copies(tmp_path, run_line):
    """A0 and J0A0 differ in a declared input (ARG_JOIN): declared deterministic, identical events are allowed."""
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: [d["cells"][c].update(deterministic=True) for c in ("A0", "J0A0")])
    _copy_between_cells(folder, "a0-s1.jsonl", "j0a0-s1.jsonl")
    code, doc, _ = verify(run_line, folder)
    assert code == 0, problems(doc)
    assert runs_of(doc)["j0a0-s1.jsonl"]["verdict"] == "VALID"


def test_identical_runs_are_copies_without_the_deterministic_declaration(tmp_path, run_line):
    folder = copy_shipped(tmp_path, AGENT)
    _copy_between_cells(folder, "a0-s1.jsonl", "j0a0-s1.jsonl")
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    assert [p.split(":1: ")[1].split(" (")[0] for p in problems(doc)] == [
        f"same event payloads as {folder.as_posix()}/runs/j0a0-s1.jsonl",
        f"same event payloads as {folder.as_posix()}/runs/a0-s1.jsonl"]
    assert runs_of(doc)["j0a0-s1.jsonl"]["verdict"] == "INVALID"


def test_a_deterministic_cell_reported_under_two_seed_labels_is_one_run(tmp_path, run_line):
    """Same cell, same inputs: a seed label is not an input, so the declaration does not excuse it."""
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: d["cells"]["A0"].update(deterministic=True))
    _copy_between_cells(folder, "a0-s1.jsonl", "a0-s2.jsonl")
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    assert runs_of(doc)["a0-s2.jsonl"]["verdict"] == "INVALID"
    assert len(problems(doc)) == 2


# --------------------------------------------------------------------------- item 2: constraint coverage


@pytest.fixture(scope="module")
def lossy(tmp_path_factory) -> tuple[list[dict[str, Any]], int, int, int]:
    """lossy-ledger-0's events, and counted from its recorded labels: turns, correct turns, UNSAT ledgers."""
    evs = events(SHIPPED / CONSTRAINT / "runs" / "lossy-ledger-0.jsonl")
    turns = [e for e in evs if e["type"] == "turn"]
    return evs, len(turns), sum(t["answer_correct"] for t in turns), sum(1 for t in turns if t["z3_sat"] == 0)


def test_shipped_constraint_run_covers_every_turn(tmp_path, run_line, lossy):
    _evs, n, correct, _unsat = lossy
    code, doc, _ = verify(run_line, SHIPPED / CONSTRAINT)
    assert code == 0
    m = runs_of(doc)["lossy-ledger-0.jsonl"]["metrics"]
    assert (m["turns_declared"], m["turns_missing"], m["turns_missing_in_started"]) == (n, 0, 0) == (527, 0, 0)
    assert (m["ledger_declared"], m["ledger_missing"], m["unverifiable"]) == (True, 0, 0)
    assert m["turn_accuracy_all_declared"] == correct / n


def test_deleting_the_wrong_turns_makes_the_run_incomplete_and_they_count_wrong(tmp_path, run_line, lossy):
    evs, n, correct, _unsat = lossy
    folder = copy_shipped(tmp_path, CONSTRAINT)
    kept = [e for e in evs if e["type"] != "turn" or e["answer_correct"] == 1]
    write_log(folder / "runs" / "lossy-ledger-0.jsonl", kept)
    code, doc, _ = verify(run_line, folder)
    assert code == 0  # INCOMPLETE is a result, not a format failure
    run = runs_of(doc)["lossy-ledger-0.jsonl"]
    assert run["verdict"] == "INCOMPLETE"
    assert run["reasons"][0].startswith(f"{n - correct} turn(s) of the problems the run started are not logged (")
    assert run["reasons"][0].endswith("): a run logs every turn of every problem it starts")
    m = run["metrics"]
    assert m["turn_accuracy"] == 1.0  # over the turns logged: the number the attack wanted
    assert (m["turns_declared"], m["turns_missing"], m["turns_missing_in_started"]) == (n, n - correct, n - correct)
    assert m["turn_accuracy_all_declared"] == correct / n == 167 / 527  # unmoved: the missing turns count wrong
    assert cell(doc, "scripted/lossy-ledger")["valid_runs"] == 0


def test_deleting_whole_problems_lowers_the_all_declared_figure(tmp_path, run_line, lossy):
    evs, n, correct, _unsat = lossy
    folder = copy_shipped(tmp_path, CONSTRAINT)
    wrong = {e["problem_id"] for e in evs if e["type"] == "turn" and e["answer_correct"] == 0}
    kept = [e for e in evs if e.get("problem_id") not in wrong]
    left = [e for e in kept if e["type"] == "turn"]
    write_log(folder / "runs" / "lossy-ledger-0.jsonl", kept)
    code, doc, _ = verify(run_line, folder)
    assert code == 0
    m = runs_of(doc)["lossy-ledger-0.jsonl"]["metrics"]
    assert m["turn_accuracy"] == 1.0
    assert (m["turns_missing"], m["turns_missing_in_started"]) == (n - len(left), 0)
    assert m["turn_accuracy_all_declared"] == len(left) / n < correct / n


def test_turns_out_of_order_make_the_run_invalid(tmp_path, run_line, lossy):
    evs, *_ = lossy
    folder = copy_shipped(tmp_path, CONSTRAINT)
    first = next(i for i, e in enumerate(evs) if e["type"] == "turn")
    evs = list(evs)
    evs[first], evs[first + 1] = evs[first + 1], evs[first]
    write_log(folder / "runs" / "lossy-ledger-0.jsonl", evs)
    code, doc, _ = verify(run_line, folder)
    run = runs_of(doc)["lossy-ledger-0.jsonl"]
    assert run["verdict"] == "INVALID"
    pid = evs[first]["problem_id"]
    assert f"turn 1 of {pid!r} is logged after turn 2: a problem's turns are logged in order" in run["reasons"][0]
    assert code == 0


def test_nulling_the_unsatisfiable_ledgers_is_a_finding_and_they_are_unverifiable(tmp_path, run_line, lossy):
    evs, n, _correct, unsat = lossy
    assert unsat > 0
    folder = copy_shipped(tmp_path, CONSTRAINT)
    forged = [{**e, "ledger": None, "z3_sat": None, "mus": None} if e["type"] == "turn" and e["z3_sat"] == 0 else e
              for e in evs]
    lines = [k + 1 for k, e in enumerate(forged) if e["type"] == "turn" and e["ledger"] is None]
    write_log(folder / "runs" / "lossy-ledger-0.jsonl", forged)
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    shown = f"{folder.as_posix()}/runs/lossy-ledger-0.jsonl"
    listed = ", ".join(map(str, lines[:10])) + (f" and {len(lines) - 10} more" if len(lines) > 10 else "")
    assert problems(doc) == [f"{shown}:{lines[0]}: {unsat} turn(s) log no ledger although the run declares one "
                             f"(other turns of the run log a ledger), at line(s) {listed}: each counts as "
                             "unverifiable, not consistent"]
    m = runs_of(doc)["lossy-ledger-0.jsonl"]["metrics"]
    assert (m["contradiction"], m["unverifiable"], m["ledger_missing"]) == (0, unsat, unsat)
    assert m["channel_turns"] == n  # the nulled turns stay in the denominator
    assert m["unverifiable_share"] == unsat / n
    _c, shipped, _o = verify(run_line, SHIPPED / CONSTRAINT)
    before = runs_of(shipped)["lossy-ledger-0.jsonl"]["metrics"]
    assert before["contradiction"] == unsat  # the channel the attack emptied
    assert m["consistent_share"] == before["consistent_share"]  # unmoved: nothing became consistent


def test_a_ledger_method_with_no_ledger_at_all_is_flagged(tmp_path, run_line, lossy):
    evs, n, *_ = lossy
    folder = copy_shipped(tmp_path, CONSTRAINT)
    forged = [{**e, "ledger": None, "z3_sat": None, "mus": None} if e["type"] == "turn" else e for e in evs]
    forged[0]["method"] = "mus_repair"
    write_log(folder / "runs" / "lossy-ledger-0.jsonl", forged)
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    assert f"{n} turn(s) log no ledger although the run declares one (method 'mus_repair' is a ledger method)" \
        in problems(doc)[0]
    m = runs_of(doc)["lossy-ledger-0.jsonl"]["metrics"]
    assert (m["unverifiable_share"], m["consistent_share"], m["contradiction_share"]) == (1.0, 0.0, 0.0)


# --------------------------------------------------------------------------- item 4: rules fixed before the runs


def test_loosened_thresholds_are_findings_and_unranked(tmp_path, run_line):
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: d["thresholds"].update(render_ceiling_B=2**63 - 1, wer_floor=1.0, canary_floor=0.0))
    code, doc, _ = verify(run_line, folder, tmp=tmp_path / "res")
    assert code == 1
    p = f"{folder.as_posix()}/prereg.yaml"
    assert problems(doc) == [
        f"{p}: thresholds.render_ceiling_B is {2**63 - 1}, looser than the driftboard profile's 6000: a "
        "pre-registration may tighten a threshold, never loosen it (render_ceiling_B must be at most 6000)",
        f"{p}: thresholds.wer_floor is 1.0, looser than the driftboard profile's 0.25: a pre-registration may "
        "tighten a threshold, never loosen it (wer_floor must be at most 0.25)",
        f"{p}: thresholds.canary_floor is 0.0, looser than the driftboard profile's 0.9: a pre-registration may "
        "tighten a threshold, never loosen it (canary_floor must be at least 0.9)",
    ]
    results = json.loads((tmp_path / "res" / f"{AGENT}.json").read_text())
    assert (results["ranked"], results["unranked_reason"]) == (False, "the pre-registration loosens gate thresholds")
    code_v = run_line(["validate", str(folder)]).exit_code
    assert code_v == 1


def test_tightened_thresholds_are_allowed(tmp_path, run_line):
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: d["thresholds"].update(canary_floor=0.95, wer_min_ops=3))
    code, doc, _ = verify(run_line, folder, tmp=tmp_path / "res")
    assert code == 0, problems(doc)
    assert json.loads((tmp_path / "res" / f"{AGENT}.json").read_text())["ranked"] is True


def _truncated_at(folder: Path, name: str, horizon: int) -> None:
    evs = events(folder / "runs" / name)
    write_log(folder / "runs" / name, [e for e in evs if e.get("turn", 0) <= horizon or e["type"] == "run_end"])


def test_events_past_the_horizon_do_not_count(tmp_path, run_line):
    long = copy_shipped(tmp_path / "a", AGENT)
    edit_prereg(long, lambda d: d.update(horizon=100))
    code, doc, _ = verify(run_line, long)
    assert code == 0
    run = runs_of(doc)["full-s1.jsonl"]
    evs = events(long / "runs" / "full-s1.jsonl")
    past = [k for k, e in enumerate(evs) if e.get("turn", 0) > 100 and e["type"] != "run_end"]
    assert run["mismatches"][-1] == {"line": past[0] + 1, "field": "turn", "recorded": 150, "recomputed": 100,
                                     "reason": f"{len(past)} event(s) past the pre-registered horizon of 100 "
                                               "(turns up to 150) are not counted"}
    assert run["metrics"]["actions"] == 101 == sum(1 for e in evs if e["type"] == "beat" and e["turn"] <= 100)
    # the same figures as the log cut at the horizon by hand
    short = copy_shipped(tmp_path / "b", AGENT)
    edit_prereg(short, lambda d: d.update(horizon=100))
    _truncated_at(short, "full-s1.jsonl", 100)
    _c, cut, _o = verify(run_line, short)
    cut_run = runs_of(cut)["full-s1.jsonl"]
    assert run["metrics"] == cut_run["metrics"] and run["verdict"] == cut_run["verdict"]
    assert run["gds"] == cut_run["gds"]


@pytest.mark.parametrize("profile", ["arg-v1.0"])
def test_a_reproduction_profile_is_never_ranked(tmp_path, run_line, profile):
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: d.update(profile=profile))
    code, _doc, _ = verify(run_line, folder, tmp=tmp_path / "res")
    assert code == 0
    results = json.loads((tmp_path / "res" / f"{AGENT}.json").read_text())
    assert results["profile"] == profile and results["ranked"] is False
    assert results["unranked_reason"] == (f"pre-registered under profile {profile}, which reproduces a reference "
                                          "system (conformance only); the leaderboard ranks profile driftboard only")


def test_shipped_submissions_rank_status(tmp_path, run_line):
    code, _doc, _ = verify(run_line, SHIPPED / AGENT, SHIPPED / CONSTRAINT, tmp=tmp_path / "res")
    assert code == 0
    agent = json.loads((tmp_path / "res" / f"{AGENT}.json").read_text())
    constraint = json.loads((tmp_path / "res" / f"{CONSTRAINT}.json").read_text())
    assert (agent["ranked"], agent["unranked_reason"]) == (True, None)
    assert constraint["ranked"] is False and "profile drift-bench-v1" in constraint["unranked_reason"]


def test_an_ablation_declared_a_comparator_is_refused_and_still_gated(tmp_path, run_line, shipped_agent):
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: d["cells"]["FULL"].update(comparator=True))
    for name in ("full-s1.jsonl", "full-s2.jsonl", "full-s3.jsonl"):
        evs = events(folder / "runs" / name)
        evs[0]["comparator"] = True
        write_log(folder / "runs" / name, evs)
    code, doc, _ = verify(run_line, folder)
    assert code == 1
    assert problems(doc) == [f"{folder.as_posix()}/prereg.yaml: cell 'FULL' is declared a comparator, but a "
                             "comparator cell must be one of the comparator kinds BARE, RAW (an ablation is gated "
                             "and scored like any other cell)"]
    before = {Path(r["path"]).name: r["verdict"] for s in shipped_agent["submissions"] for r in s["runs"]}
    runs = runs_of(doc)
    for name in ("full-s1.jsonl", "full-s2.jsonl", "full-s3.jsonl"):
        assert runs[name]["verdict"] == before[name] != "COMPARATOR"
        assert runs[name]["comparator"] is False
    full = cell(doc, "FULL")
    assert full["comparator"] is False  # never shown as a comparator, so it stays in the drift tables
    assert full["valid_runs"] == cell(shipped_agent, "FULL")["valid_runs"]


# --------------------------------------------------------------------------- item 4a: the two-PR flow


@pytest.fixture
def leaderboard(tmp_path, monkeypatch) -> Path:
    """A git repository whose main branch holds the shipped agent submission's prereg.yaml only."""
    repo = tmp_path / "repo"
    folder = copy_shipped(repo / "submissions", AGENT)
    shutil.move(folder / "runs", tmp_path / "runs")
    manifest = (folder / "submission.yaml").read_bytes()
    (folder / "submission.yaml").unlink()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "pre-register (first pull request, merged)")
    git(repo, "checkout", "-q", "-b", "pr")
    shutil.move(tmp_path / "runs", folder / "runs")
    (folder / "submission.yaml").write_bytes(manifest)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    return repo


def test_two_pr_flow_passes(leaderboard, run_line):
    commit(leaderboard, "runs (second pull request)")
    result = run_line(["ci", "--base", "main"])
    assert result.exit_code == 0, result.stdout
    git(leaderboard, "checkout", "-q", "main")
    git(leaderboard, "merge", "-q", "--no-ff", "--no-edit", "pr")
    assert run_line(["ci-history"]).exit_code == 0


def test_prereg_edited_with_the_runs_and_history_squashed_is_refused(leaderboard, run_line):
    """The prereg is edited after the results and the branch squashed: main still has the merged one."""
    edit_prereg(leaderboard / "submissions" / AGENT, lambda d: d.update(horizon=120))
    commit(leaderboard, "runs and a better prereg, squashed")
    result = run_line(["ci", "--base", "main"])
    assert result.exit_code == 1
    # the whole diff is judged (issue 29): the merged prereg.yaml is append-only, whatever else the branch holds
    assert (f"submissions/{AGENT}/prereg.yaml: this pull request changes a merged file; merged run logs and "
            "pre-registrations are append-only") in result.stdout


def test_prereg_and_runs_in_one_pull_request_are_refused(tmp_path, run_line, monkeypatch):
    """A back-dated prereg commit on the branch itself (rebase) does not put it on the base branch."""
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    (repo / "README.md").write_text("leaderboard\n")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    folder = copy_shipped(repo / "submissions", AGENT)
    runs = folder / "runs"
    shutil.move(runs, tmp_path / "runs")
    commit(repo, "pre-register (back-dated on the branch)")
    shutil.move(tmp_path / "runs", runs)
    commit(repo, "runs")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    result = run_line(["ci", "--base", "main"])
    assert result.exit_code == 1
    # a new submission's first pull request holds exactly submission.yaml and prereg.yaml: each run log is refused
    doc = run_line(["ci", "--base", "main", "--format", "json"])
    refused = [p["path"] for p in json.loads(doc.stdout)["problems"]
               if "first pull request holds exactly submission.yaml and prereg.yaml" in p["message"]]
    assert len(refused) == 13 and all(p.startswith(f"submissions/{AGENT}/runs/") for p in refused)
    # merged anyway (say, by mistake): the publish job's first-parent check refuses it
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-edit", "pr")
    history = run_line(["ci-history"])
    assert history.exit_code == 1
    merge = git(repo, "rev-parse", "HEAD").strip()[:12]
    assert history.stdout == (f"submissions/{AGENT}/prereg.yaml: commit {merge} adds or changes 13 run log(s), but "
                              f"submissions/{AGENT}/prereg.yaml is not in its first parent: the pre-registration "
                              "lands first, in a pull request of its own; the runs follow in a later one (see How to "
                              "submit)\n")
    assert run_line(["ci-history", "--since", "HEAD"]).exit_code == 0


def test_loosened_thresholds_under_a_reproduction_profile_are_a_warning_and_unranked(tmp_path, run_line):
    """Reproducing ARG's own verdicts may need its environment thresholds; such a submission is never ranked."""
    folder = copy_shipped(tmp_path, AGENT)
    edit_prereg(folder, lambda d: (d.update(profile="arg-v1.0"), d["thresholds"].update(wer_floor=0.95)))
    code, doc, _ = verify(run_line, folder, tmp=tmp_path / "res")
    assert code == 0
    warnings = [(p["severity"], p["message"]) for p in doc["problems"]]
    assert ("warning", "thresholds.wer_floor is 0.95, looser than the arg-v1.0 profile's 0.25: a pre-registration may "
                       "tighten a threshold, never loosen it (wer_floor must be at most 0.25); allowed only to "
                       "reproduce a reference run: never ranked") in warnings
    # and, under a reproduction profile, the labels it keeps on trust that the log contradicts (issue 29, principle 5):
    # the shipped J0/s2 records 9 landings its geometry contradicts
    (trusted,) = [m for s, m in warnings if "recorded label(s) disagree with this log" in m]
    assert trusted.startswith("profile arg-v1.0 reproduces the reference system, and 9 recorded label(s) disagree")
    assert len(warnings) == 2 and all(s == "warning" for s, _ in warnings)
    assert json.loads((tmp_path / "res" / f"{AGENT}.json").read_text())["ranked"] is False


def _prereg(**over: Any):
    from checker.format.schema.manifest import Prereg

    doc = {"format_version": "1.0", "submission_id": "x", "track": "agent", "profile": "driftboard",
           "cells": {"FULL": {"seeds": ["s1"]}}, "horizon": 10, **over}
    return Prereg.model_validate(doc)


@pytest.mark.parametrize(("over", "profile", "expected"), [
    ({}, "driftboard", (True, None)),
    ({"horizon": None}, "driftboard", (False, "the pre-registration declares no horizon")),
    ({}, "arg-v1.0", (False, "scored under profile arg-v1.0; the leaderboard ranks profile driftboard only")),
    ({"cells": {"RAW": {"seeds": ["s1"], "comparator": True}}}, "driftboard", (True, None)),
    ({"cells": {"J0": {"seeds": ["s1"], "comparator": True}}}, "driftboard",
     (False, "the pre-registration declares a comparator cell of a kind that is not a comparator")),
    ({"thresholds": {"canary_warmup": 3}}, "driftboard", (False, "the pre-registration loosens gate thresholds")),
])
def test_rank_status(over, profile, expected):
    from checker.stages.rules import rank_status

    assert rank_status(profile, _prereg(**over), "agent") == expected


def test_rank_status_without_a_prereg_and_on_the_constraint_track():
    from checker.stages.rules import rank_status

    assert rank_status("driftboard", None, "agent") == (False, "no readable pre-registration")
    constraint = _prereg(track="constraint", horizon=None, cells={"m/direct": {"seeds": ["0"]}})
    assert rank_status("driftboard", constraint, "constraint") == (True, None)


def test_a_comparator_cell_on_the_constraint_track_is_a_finding():
    from checker.stages.rules import prereg_findings

    bad = _prereg(track="constraint", cells={"BARE": {"seeds": ["0"], "comparator": True}})
    assert [f.message for f in prereg_findings(bad, "p.yaml")] == [
        "cell 'BARE' is declared a comparator: comparator cells exist on the agent track only"]
