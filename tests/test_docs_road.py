"""`site/submit.md`'s dry run, both tracks, followed as written: init, run, import, validate, verify, two PRs, build.

The page's blocks marked `# dry run (<track>) k/3` are read from the page and run line by line in
a copy of the repository's tracked files (without the shipped submissions, to keep it fast) whose
`upstream` (the leaderboard) and `origin` (the fork) are local repositories; between blocks the test
merges the pushed branch into upstream's `main` with `--no-ff`, as a maintainer merging the pull
request would. Lines run as a shell would run them, with `.venv/bin/X` being this environment's X:
`driftboard` and `inspect` in-process through their click commands, `python` and `git` as
programs, globs expanded. Nothing is written into the checkout. The end: the new cell is ranked
first on its board of the built site.
"""

from __future__ import annotations

import gc
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from conftest import REPO

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[test,inspect]' (make test does)")

from inspect_ai._cli.main import inspect as inspect_cli

from checker.cli.main import cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in. <function MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]
DOC = REPO / "site" / "submit.md"
MARK = re.compile(r"^# dry run \((\w+)\) (\d)/3")
FIRST_PR_CI = ".venv/bin/driftboard ci --base upstream/main"


def dry_run_blocks(track: str) -> list[list[str]]:
    """The three blocks of `track`'s dry run, in order, as command lines (comments and blank lines dropped)."""
    found: dict[int, list[str]] = {}
    for block in re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL):
        mark = MARK.match(block)
        if mark and mark.group(1) == track:
            found[int(mark.group(2))] = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
    assert sorted(found) == [1, 2, 3], f"site/submit.md needs blocks '# dry run ({track}) 1/3' .. 3/3"
    return [found[k] for k in (1, 2, 3)]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fork's clone of a copy of the leaderboard (`upstream`: tmp/upstream, `origin`: tmp/fork.git); cwd is the clone."""
    if not (REPO / ".git").exists():
        pytest.skip("needs the repository's git checkout (its tracked files are copied)")
    for key, value in {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Ada",
                       "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
                       "GIT_COMMITTER_EMAIL": "ada@example.org", "DRIFTBOARD_CACHE_DIR": str(tmp_path / "cache"),
                       "INSPECT_LOG_DIR": str(tmp_path / "inspect-logs")}.items():
        monkeypatch.setenv(key, value)
    upstream = tmp_path / "upstream"
    tracked = _git(REPO, "ls-files", "-z").split("\0")
    for name in tracked:
        if not name or name.startswith(("submissions/", "tests/")) or not (REPO / name).is_file():
            continue
        (upstream / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, upstream / name)
    (upstream / "submissions").mkdir(exist_ok=True)
    (upstream / "submissions" / ".gitkeep").write_text("", encoding="utf-8")
    _git(upstream, "init", "-q", "-b", "main")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-q", "-m", "The leaderboard")
    _git(tmp_path, "clone", "-q", "--bare", str(upstream), str(tmp_path / "fork.git"))
    work = tmp_path / "work"
    _git(tmp_path, "clone", "-q", str(tmp_path / "fork.git"), str(work))
    _git(work, "remote", "add", "upstream", str(upstream))
    _git(work, "fetch", "-q", "upstream")
    monkeypatch.chdir(work)
    return work


def merge_pull_request(work: Path, branch: str) -> None:
    """What a maintainer's merge button does: the fork's branch merged into upstream's main, `--no-ff`."""
    upstream = work.parent / "upstream"
    _git(upstream, "fetch", "-q", str(work.parent / "fork.git"), branch)
    _git(upstream, "merge", "-q", "--no-ff", "-m", f"Merge pull request: {branch}", "FETCH_HEAD")


def run(line: str) -> tuple[int, str]:
    """One documented line, as a shell in the clone would run it: (exit code, output)."""
    args = shlex.split(line)
    expanded = [a for arg in args[1:] for a in (sorted(str(p) for p in Path().glob(arg)) or [arg] if "*" in arg else [arg])]
    program = args[0].removeprefix(".venv/bin/")
    if program == "driftboard":
        res = CliRunner().invoke(cli, expanded, catch_exceptions=False)
        return res.exit_code, res.output
    if program == "inspect":
        res = CliRunner().invoke(inspect_cli, expanded, catch_exceptions=False)
        gc.collect()
        return res.exit_code, res.output
    if program == "python":
        done = subprocess.run([sys.executable, *expanded], capture_output=True, text=True, check=False,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])})
        return done.returncode, done.stdout + done.stderr
    assert program == "git", f"site/submit.md's dry run runs only driftboard, inspect, python and git: {line}"
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def follow(work: Path, track: str) -> dict[str, str]:
    """Run the three blocks with a merge after each of the first two; every line must exit 0 but the first PR's `ci`."""
    outputs: dict[str, str] = {}
    for k, block in enumerate(dry_run_blocks(track), 1):
        for line in block:
            code, output = run(line)
            outputs[f"{k}:{line}"] = output
            if k == 1 and line == FIRST_PR_CI:
                continue  # a pre-registration-only pull request: test_first_pull_request_is_the_preregistration
            assert code == 0, (line, output[-3000:])
        if k < 3:
            branch = next(ln.split()[-1] for ln in block if ln.startswith("git push"))
            merge_pull_request(work, branch)
    return outputs


def ranked_rows(page: Path) -> list[list[str]]:
    """The rows of a leaderboard page's ranked table (the one table under "Ranked cells"), as cell texts."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    heading = next((h for h in soup.find_all("h2") if h.get_text(strip=True).startswith("Ranked cells")), None)
    assert heading is not None, page
    table = heading.find_next("table")
    assert table is not None, page
    return [[c.get_text(" ", strip=True) for c in tr.select("td")] for tr in table.select("tr") if tr.select("td")]


def test_the_constraint_dry_run_ends_ranked_on_the_built_site(clone):
    outputs = follow(clone, "constraint")
    verify = next(v for k, v in outputs.items() if k.startswith("2:") and "driftboard verify submissions/mylab-dry" in k)
    assert "driftboard/scripted/ledger_only: ranked on board constraint:c97c5fc3c39e:driftboard:p1" in verify
    assert "882 of 882 turns correct" in verify
    rows = ranked_rows(clone / "build" / "site" / "leaderboards" / "constraint" / "index.html")
    assert [r[:3] for r in rows if "driftboard/scripted/ledger_only" in " ".join(r)] == [
        ["1", "constraint:c97c5fc3c39e:driftboard:p1", "driftboard/scripted/ledger_only"]]
    # and first of its own board's rows (the table lists each board's rows together, in rank order), a board the
    # list above the table names with its key
    mine = [r for r in rows if r[1] == "constraint:c97c5fc3c39e:driftboard:p1" and r[0] != "—"]
    assert mine[0][:3] == ["1", "constraint:c97c5fc3c39e:driftboard:p1", "driftboard/scripted/ledger_only"]
    page = BeautifulSoup((clone / "build" / "site" / "leaderboards" / "constraint" / "index.html").read_text(encoding="utf-8"),
                         "html.parser")
    board = [" ".join(li.get_text().split()) for li in page.select("li.db-board-rule") if "drift-bench-v1-lite" in li.get_text()]
    assert len(board) == 1 and f"(constraint:c97c5fc3c39e:driftboard:p1, {len(mine)} ranked row(s))" in board[0], board
    assert (clone / "build" / "site" / "submissions" / "mylab-dry" / "index.html").is_file()


def test_the_agent_dry_run_ends_ranked_on_the_built_site(clone):
    outputs = follow(clone, "agent")
    verify = next(v for k, v in outputs.items() if k.startswith("2:") and "driftboard verify submissions/mylab-dry" in k)
    assert "FULL: ranked on board agent:button-world:driftboard:p1" in verify
    rows = ranked_rows(clone / "build" / "site" / "leaderboards" / "agent" / "index.html")
    mine = [r for r in rows if "mylab-dry-agent" in " ".join(r)]
    assert len(mine) == 1 and mine[0][0] == "1", rows
    assert (clone / "build" / "site" / "submissions" / "mylab-dry-agent" / "index.html").is_file()


@pytest.mark.parametrize("track", ["constraint", "agent"])
def test_first_pull_request_is_the_preregistration(clone, track):
    first = dry_run_blocks(track)[0]
    assert FIRST_PR_CI in first
    for line in first[: first.index(FIRST_PR_CI) + 1]:
        code, output = run(line)
        assert code == 0, (line, output[-3000:])


def test_init_writes_what_the_runs_will_be(tmp_path, run_line):
    """`init` under the ranked profile, both files valid as written, every field with a comment above or beside it."""
    import yaml

    from checker.format.schema.manifest import Prereg, Submission
    from checker.stages.rules import RANKED_PROFILE

    res = run_line(["init", "mylab-x", "--track", "constraint", "--out", str(tmp_path),
                    "--split", str(REPO / "problems" / "drift-bench-v1-lite"), "--seeds", "epoch1,epoch2"])
    assert res.exit_code == 0, res.output
    prereg = Prereg.model_validate(yaml.safe_load((tmp_path / "mylab-x" / "prereg.yaml").read_text()))
    assert prereg.profile == RANKED_PROFILE == "driftboard"
    # the lite split's digest, as problems/README.md publishes it
    assert prereg.problem_set == "c97c5fc3c39e9faa136cb9340687ddff0a1180a5dfcf7aedf9f48be0cd045001"
    assert prereg.cells["driftboard/scripted/ledger_only"].seeds == ["epoch1", "epoch2"]
    Submission.model_validate(yaml.safe_load((tmp_path / "mylab-x" / "submission.yaml").read_text()))
    again = run_line(["init", "mylab-x", "--track", "agent", "--out", str(tmp_path)])
    assert again.exit_code == 2 and "already holds files" in again.output


def test_problems_digest_prints_the_published_digest(run_line):
    res = run_line(["problems", "digest", str(REPO / "problems" / "driftboard-suite-v1")])
    assert res.exit_code == 0
    assert res.output == ("cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0  driftboard-suite-v1 "
                          "(90 problems, 527 turns)\n")
    missing = run_line(["problems", "digest", "no-such-folder"])
    assert missing.exit_code == 2 and missing.output.count("\n") == 1
