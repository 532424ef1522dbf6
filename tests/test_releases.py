"""Dated releases (issue 16 item 5): release files, the changelog between releases, archived pages, permalinks.

Expectations are hand-written release files and figures, or recomputed here from the log bytes
(SHA-256 with hashlib), never read back from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from conftest import REPO
from site_fixtures import fixture_results

from checker.cli.main import cli
from checker.format.errors import UsageError
from checker.format.release_model import ReleaseFile
from checker.format.results_io import canonical_json, content_digest
from checker.format.results_model import ResultsFile
from checker.pipeline.releases import Commit, anchor, diff, entries, make_release, read_release, read_releases
from checker.render.citation import cite_text
from checker.render.releases import results_changelog
from checker.render.site import assemble, run_mkdocs

pytestmark = pytest.mark.slow

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}
RANK = {"agent": "drift_total", "constraint": "turn_accuracy"}.__getitem__
"""The ranking metrics as the README states them (hand-written, not read from the registry)."""
SHA_A = "a" * 40
SHA_B = "b" * 40


def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env)
    return out.stdout.strip()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def combined(digests: list[str]) -> str:
    """The citation's combined log digest, written out: SHA-256 of the sorted digests, one per line."""
    return hashlib.sha256("".join(d + "\n" for d in sorted(digests)).encode()).hexdigest()


# ---------------------------------------------------------------- hand-written release files


def cell(result_id: str, figure: float | None, *, valid_only: float | None = None, n_valid: int = 3,
         n_declared: int = 3, logs: str = "1" * 64, digest: str = "2" * 64, withdrawn: dict[str, str] | None = None,
         comparator: bool = False, log_list: list[str] | None = None) -> dict:
    extra = {"log_sha256": log_list} if log_list is not None else {}
    return {**extra, "result_id": result_id, "metric": None if comparator else "drift_total", "figure": figure,
            "valid_only": valid_only, "n_valid": n_valid, "n_declared": n_declared, "runs": n_valid, "logs": n_valid,
            "logs_sha256": logs, "digest": digest, "comparator": comparator, "withdrawn_seeds": withdrawn or {}}


def submission(cells: dict[str, dict], checker: str = "0.1.0") -> dict:
    return {"track": "agent", "title": "t", "ranked": True, "checker_version": checker, "profile": "driftboard",
            "verified": "2026-01-01", "commit": SHA_A, "results_digest": "3" * 64, "cells": cells}


def release_text(date: str, commit: str, at: str, subs: dict[str, dict], withdrawn: list[dict] | None = None) -> str:
    data = {"release_format": "1.0", "release": f"{date}-{commit[:7]}", "date": date, "committed_at": at,
            "commit": commit, "checker_version": "0.1.0", "submissions": subs, "withdrawn": withdrawn or []}
    data["digest"] = content_digest(data)
    return canonical_json(data)


def write_release(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rid = json.loads(text)["release"]
    path = folder / f"{rid}.json"
    path.write_text(text, encoding="utf-8")
    return path


def current(results: list[ResultsFile], sid: str) -> ResultsFile:
    return next(r for r in results if r.submission_id == sid)


def two_releases() -> tuple[str, str]:
    """Release A (2026-01-01): s0/FULL 0.5, s0/J0, gone/FULL. Release B (2026-02-01): FULL 0.25 with a new checker
    and new logs, J0 with a seed withdrawn, A0 added, gone withdrawn."""
    a = release_text("2026-01-01", SHA_A, "2026-01-01T10:00:00Z", {
        "s0": submission({"FULL": cell("s0/FULL", 0.5, valid_only=0.4, log_list=["6" * 64, "7" * 64]),
                          "J0": cell("s0/J0", 0.7, n_declared=3)}),
        "gone": submission({"FULL": cell("gone/FULL", 0.9)}),
    })
    b = release_text("2026-02-01", SHA_B, "2026-02-01T10:00:00Z", {
        "s0": submission({"FULL": cell("s0/FULL", 0.25, valid_only=0.4, logs="4" * 64, digest="5" * 64,
                                       log_list=["6" * 64, "8" * 64]),
                          "J0": cell("s0/J0", 0.7, n_declared=2, withdrawn={"s3": "quota ran out"}),
                          "A0": cell("s0/A0", 0.1)}, checker="0.2.0"),
    }, withdrawn=[{"submission": "gone", "cell": None, "reason": "removed at the submitter's request",
                   "last_release": "2026-01-01-aaaaaaa"}])
    return a, b


def test_changelog_lists_what_each_release_added_changed_and_withdrew(tmp_path: Path) -> None:
    a, b = (ReleaseFile.model_validate_json(t) for t in two_releases())
    d = diff(a.submissions, b.submissions, b.withdrawn)
    assert [(c.submission, c.cell, c.what) for c in d.added] == [("s0", "A0", "figure 0.1, valid 3 of 3 declared")]
    assert [(c.submission, c.cell, c.what, c.reasons) for c in d.changed] == [
        ("s0", "FULL", "figure 0.5 → 0.25; logs SHA-256 111111111111… → 444444444444…",
         ["re-verified with checker 0.2.0 (was 0.1.0)", "run logs changed: 1 log(s) replaced or removed, 1 added"]),
        ("s0", "J0", "declared 3 → 2", ["re-verified with checker 0.2.0 (was 0.1.0)", "seed(s) withdrawn: s3 (quota ran out)"]),
    ]
    assert [(c.submission, c.cell, c.what) for c in d.withdrawn] == [
        ("gone", None, "removed at the submitter's request"), ("s0", "J0", "seed s3 withdrawn: quota ran out")]
    # nothing between a release and itself
    assert diff(b.submissions, b.submissions).empty()


def test_a_submission_leaving_the_ranking_is_a_change() -> None:
    a, _ = two_releases()
    old = ReleaseFile.model_validate_json(a)
    data = json.loads(a)
    data["submissions"]["s0"].update(ranked=False, profile="arg-v1.0")
    new = ReleaseFile.model_validate(data)
    d = diff(old.submissions, new.submissions)
    assert [(c.submission, c.cell, c.what, c.reasons) for c in d.changed] == [
        ("s0", None, "ranked → not ranked", ["profile driftboard → arg-v1.0"])]


def test_changelog_page_diffs_releases_newest_first_and_the_current_results(tmp_path: Path) -> None:
    a, b = (ReleaseFile.model_validate_json(t) for t in two_releases())
    results = fixture_results()
    text = results_changelog([a, b], results)
    unreleased = text.index("### Not yet released")
    rel_b, rel_a = text.index("### Release 2026-02-01-bbbbbbb"), text.index("### Release 2026-01-01-aaaaaaa")
    assert unreleased < rel_b < rel_a < text.index("## Software")
    # the current results against release B: every fixture submission is new, s0 is no longer published
    now = text[unreleased:rel_b]
    assert "**added** [synthetic-0000](submissions/synthetic-0000.md)" in now
    assert "**withdrawn** s0: no longer published" in now
    # B's entries link into the archived pages' rows (B's for what it has, A's for what it withdrew)
    in_b = text[rel_b:rel_a]
    assert f"[s0 / A0](releases/2026-02-01-bbbbbbb.md#{anchor('s0', 'A0')})" in in_b
    assert "**withdrawn** [gone](releases/2026-01-01-aaaaaaa.md): removed at the submitter&#39;s request" in in_b
    assert "the first release" in text[rel_a:]


def test_no_release_yet_says_so_and_lists_everything_as_added() -> None:
    results = fixture_results()[:2]
    text = results_changelog([], results)
    assert "No release has been made yet" in text
    assert text.count("- **added**") == 2


# ---------------------------------------------------------------- the release command


@pytest.fixture(scope="module")
def verified_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A git repository holding the shipped micro-world submission, committed on 2020-01-02 (+01:00), and its results."""
    base = tmp_path_factory.mktemp("release-repo")
    repo = base / "repo"
    shutil.copytree(REPO / "submissions" / "driftboard-microworld-agent", repo / "submissions" / "driftboard-microworld-agent")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "submission", date="2020-01-02T03:04:05+01:00")
    out = CliRunner().invoke(cli, ["verify", str(repo / "submissions"), "--out", str(base / "results"), "--no-cache"])
    assert out.exit_code == 0, out.output
    return repo, base / "results"


def test_release_is_dated_from_the_commit_and_byte_identical(verified_repo, tmp_path: Path, run_line) -> None:
    repo, results = verified_repo
    sha = git(repo, "rev-parse", "HEAD")
    args = ["release", "--submissions", str(repo / "submissions"), "--results", str(results)]
    first = run_line([*args, "--releases", str(tmp_path / "one")])
    assert first.exit_code == 0, first.output
    second = run_line([*args, "--releases", str(tmp_path / "two")])
    assert second.exit_code == 0, second.output
    name = f"2020-01-02-{sha[:7]}.json"  # the commit's date in its own zone, never today's
    assert [p.name for p in (tmp_path / "one").iterdir()] == [name]
    one, two = (tmp_path / "one" / name).read_bytes(), (tmp_path / "two" / name).read_bytes()
    assert one == two
    data = json.loads(one)
    assert data["commit"] == sha and data["date"] == "2020-01-02" and data["committed_at"] == "2020-01-02T02:04:05Z"
    assert data["digest"] == hashlib.sha256(canonical_json({k: v for k, v in data.items() if k != "digest"})
                                            .encode()).hexdigest()
    assert one.decode() == canonical_json(data)  # sorted keys, 2-space indent
    full = data["submissions"]["driftboard-microworld-agent"]["cells"]["FULL"]
    runs = repo / "submissions" / "driftboard-microworld-agent" / "runs"
    full_logs = sorted(sha256_file(runs / f"full-s{i}.jsonl") for i in (1, 2, 3))
    assert full["logs_sha256"] == combined(full_logs) and full["log_sha256"] == full_logs
    assert full["metric"] == "drift_total" and full["logs"] == 3
    r = json.loads((results / "driftboard-microworld-agent.json").read_text())
    rc = next(c for c in r["cells"] if c["cell"] == "FULL")
    assert full["figure"] == rc["all_declared"]["drift_total"]["value"]
    assert full["valid_only"] == rc["metrics"]["drift_total"]["mean"]
    assert full["digest"] == rc["digest"] and full["n_valid"] == rc["valid_runs"]
    assert data["submissions"]["driftboard-microworld-agent"]["cells"]["BARE"]["metric"] is None
    # again into the same folder: nothing rewritten
    again = run_line([*args, "--releases", str(tmp_path / "one")])
    assert again.exit_code == 0 and "(unchanged)" in again.output


def test_release_refuses_an_uncommitted_tree(verified_repo, tmp_path: Path, run_line) -> None:
    repo, results = verified_repo
    extra = repo / "submissions" / "driftboard-microworld-agent" / "notes.txt"
    extra.write_text("not committed\n")
    try:
        out = run_line(["release", "--submissions", str(repo / "submissions"), "--results", str(results),
                        "--releases", str(tmp_path / "rel")])
    finally:
        extra.unlink()
    assert out.exit_code == 1 and "uncommitted changes" in out.output
    assert not (tmp_path / "rel").exists()


def test_release_records_what_the_previous_release_published_and_this_one_withdrew() -> None:
    a, _b = two_releases()
    previous = ReleaseFile.model_validate_json(a)
    results = [current(fixture_results(), "synthetic-0000")]
    commit = Commit(sha="c" * 40, date="2026-03-01", committed_at="2026-03-01T00:00:00Z")
    rel, text = make_release(results, commit, previous, RANK)
    assert make_release(results, commit, previous, RANK)[1] == text
    assert [(w.submission, w.cell, w.last_release) for w in rel.withdrawn] == [
        ("gone", None, "2026-01-01-aaaaaaa"), ("s0", None, "2026-01-01-aaaaaaa")]
    assert rel.release == "2026-03-01-ccccccc"
    full = rel.submissions["synthetic-0000"].cells["FULL"]
    assert (full.figure, full.metric) == (0.625, "drift_total")  # fixture_results: synthetic-0000/FULL all declared


# ---------------------------------------------------------------- untrusted release files


def test_malformed_release_file_is_bad_input_with_its_line(tmp_path: Path) -> None:
    a, _ = two_releases()
    data = json.loads(a)
    data["submissions"]["s0"]["cells"]["FULL"]["figure"] = "high"
    data["digest"] = content_digest(data)
    text = canonical_json(data)
    path = write_release(tmp_path / "releases", text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if '"figure": "high"' in s)
    fixture = fixture_results()[:1]
    results = tmp_path / "results"
    results.mkdir()
    (results / "synthetic-0000.json").write_text(fixture[0].model_dump_json())
    out = CliRunner().invoke(cli, ["cite", "synthetic-0000/FULL", "--results", str(results),
                                   "--releases", str(tmp_path / "releases")])
    assert out.exit_code == 2
    assert f"{path.as_posix()}:{line}: submissions.s0.cells.FULL.figure:" in out.output
    assert "Traceback" not in out.output
    path.write_text(text[:200])  # cut short: not JSON
    with pytest.raises(UsageError, match=r":\d+: not valid JSON"):
        read_release(path)
    path.write_text("x" * 17_000_000)
    with pytest.raises(UsageError, match="larger than"):
        read_release(path)


def test_an_edited_figure_is_refused(tmp_path: Path) -> None:
    a, _ = two_releases()
    folder = tmp_path / "repo" / "releases"
    path = write_release(folder, a)
    # edited without recomputing the digest: the file does not match its own digest
    path.write_text(a.replace('"figure": 0.5', '"figure": 0.05'))
    with pytest.raises(UsageError, match="digest does not match"):
        read_release(path)
    # edited *with* the digest recomputed, after it was committed: git history says what was published
    path.write_text(a)
    git(tmp_path / "repo", "init", "-q")
    git(tmp_path / "repo", "add", "-A")
    git(tmp_path / "repo", "commit", "-qm", "release A")
    assert [r.release for r in read_releases(folder)] == ["2026-01-01-aaaaaaa"]
    data = json.loads(a)
    data["submissions"]["s0"]["cells"]["FULL"]["figure"] = 0.05
    data["digest"] = content_digest(data)
    path.write_text(canonical_json(data))
    assert read_release(path).submissions["s0"].cells["FULL"].figure == 0.05  # self-consistent on its own
    with pytest.raises(UsageError, match="differs from the one published in commit"):
        read_releases(folder)
    # and committing the edit does not launder it: the first committed bytes are the record
    git(tmp_path / "repo", "commit", "-qam", "edit")
    with pytest.raises(UsageError, match="differs from the one published in commit"):
        read_releases(folder)


def test_a_removed_release_is_refused(tmp_path: Path) -> None:
    a, b = two_releases()
    repo = tmp_path / "repo"
    write_release(repo / "releases", a)
    write_release(repo / "releases", b)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "releases")
    assert len(read_releases(repo / "releases")) == 2
    git(repo, "rm", "-q", "releases/2026-01-01-aaaaaaa.json")
    git(repo, "commit", "-qm", "drop the old release")
    with pytest.raises(UsageError, match=r"2026-01-01-aaaaaaa\.json: release was published and then removed"):
        read_releases(repo / "releases")
    git(repo, "rm", "-qr", "releases")
    git(repo, "commit", "-qm", "drop them all")
    with pytest.raises(UsageError, match="2 published release"):
        read_releases(repo / "releases")


def test_a_release_named_for_another_commit_is_refused(tmp_path: Path) -> None:
    a, _ = two_releases()
    path = tmp_path / "2026-01-01-bbbbbbb.json"
    path.write_text(a)
    with pytest.raises(UsageError, match="not named by its file"):
        read_release(path)


# ---------------------------------------------------------------- the site: archived pages, permalinks, citations


def test_archived_page_keeps_the_published_figures_and_cites_the_release(tmp_path: Path) -> None:
    results = fixture_results()
    s0 = current(results, "synthetic-0000")
    a0 = next(c for c in s0.cells if c.cell == "A0")
    # released: FULL at 0.123 (the current results say 0.625), A0 exactly as it is now
    subs = {"synthetic-0000": submission({
        "FULL": cell("synthetic-0000/FULL", 0.123),
        "A0": cell("synthetic-0000/A0", 0.68725, valid_only=a0.metrics["drift_total"].mean, n_valid=a0.valid_runs,
                   n_declared=a0.n_declared,
                   logs=combined(a0.log_sha256), digest=a0.digest)}),
        "old-sub": submission({"X": cell("old-sub/X", 0.3)})}
    repo = tmp_path / "repo"
    write_release(repo / "releases", release_text("2026-01-01", SHA_A, "2026-01-01T10:00:00Z", subs))
    (repo / "CHANGELOG.md").write_text("# Changelog\n\n## Unreleased\n")
    shutil.copytree(REPO / "site", repo / "site")
    docs, site = tmp_path / "docs", tmp_path / "site"
    run_mkdocs(docs, site, assemble(results, docs, repo=repo))

    page = BeautifulSoup((site / "releases" / "2026-01-01-aaaaaaa" / "index.html").read_text(), "html.parser")
    row = page.find(id="synthetic-0000--FULL")
    assert row is not None
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[3] == "0.123"  # the published figure, not the current 0.625
    assert cells[-1] == "changed since: now 0.625"
    assert row.find_all("a")[-1]["href"] == "../../results/synthetic-0000/FULL/"
    assert "Superseded figures" in page.get_text()
    assert "no longer published" in page.find(id="old-sub--X").get_text()
    assert "unchanged" in page.find(id="synthetic-0000--A0").get_text()

    def cite_block(c: str) -> str:
        html = (site / "results" / "synthetic-0000" / c / "index.html").read_text()
        block = BeautifulSoup(html, "html.parser").select_one("pre.db-cite-text code")
        assert block is not None
        return block.get_text()

    releases = read_releases(repo / "releases")
    # A0 is cited with the release that published exactly it, and its row anchor exists on that page
    permalink = "releases/2026-01-01-aaaaaaa/#synthetic-0000--A0"
    assert cite_block("A0") == cite_text(s0, "A0", releases=releases)
    assert "release 2026-01-01-aaaaaaa, " in cite_block("A0") and permalink in cite_block("A0")
    # FULL changed since: no release published these figures yet
    assert "not yet in a release" in cite_block("FULL")
    # the command prints the same bytes
    rdir = tmp_path / "results"
    rdir.mkdir()
    (rdir / "synthetic-0000.json").write_text(s0.model_dump_json())
    out = CliRunner().invoke(cli, ["cite", "synthetic-0000/A0", "--results", str(rdir),
                                   "--releases", str(repo / "releases")])
    assert out.exit_code == 0, out.output
    assert out.output == cite_block("A0")
    # every in-site link to a release row names an anchor the page has
    home = BeautifulSoup((site / "changelog" / "index.html").read_text(), "html.parser")
    for a in [*home.find_all("a", href=True), *page.find_all("a", href=True)]:
        href = a["href"]
        if "#" in href and "releases/" in href:
            path, frag = href.split("#", 1)
            target = site / "releases" / path.split("releases/", 1)[1] / "index.html"
            assert BeautifulSoup(target.read_text(), "html.parser").find(id=frag) is not None, href
    # the home page names the release and says the results moved on
    index = BeautifulSoup((site / "index.html").read_text(), "html.parser").select_one(".db-asof").get_text()
    assert "2026-01-01-aaaaaaa + unreleased changes" in index


def test_entries_match_the_release_of_the_same_results() -> None:
    results = fixture_results()[:2]
    commit = Commit(sha="d" * 40, date="2026-04-01", committed_at="2026-04-01T00:00:00Z")
    rel, _ = make_release(results, commit, None, RANK)
    assert diff(rel.submissions, entries(results, RANK)).empty()
