"""Shared fixtures: a CliRunner wrapper, paths to the golden cases and to the shared data, and the
expensive outputs several test files read, made once per session under pytest's base temporary
folder (never in the checkout): the shipped submissions verified (`shipped_results`), the golden
cases verified and built into a site (`cases_site`), and the site of the synthetic fixture results
(`fixture_site`). Tests read those folders and never write into them.

Also a session guard: the test run must leave the checkout exactly as it found it (tracked,
untracked and ignored files alike, caches aside) and leave nothing in the temporary folder
outside pytest's own `tmp_path` folders. A test that writes `build/results/` into the checkout,
or a `tempfile.mkdtemp()` nobody removes, fails the session with the paths it left.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from checker.cli.main import cli

# Property tests are deterministic in CI: a fixed derandomised profile, no example database.
# `HYPOTHESIS_PROFILE=explore` draws fresh random examples (for local bug hunting).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", database=None, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "tests" / "cases"
SUITE = REPO / "problems" / "driftboard-suite-v1"
"""The problem set of the shipped constraint baselines and of the minimal constraint case."""

# What the reference data is and where it comes from, for every skip reason that needs it.
SHARED_DATA_SOURCE = (
    "set DRIFTBOARD_SHARED_DATA to the reference systems' shared data folder (default ../shared/data beside "
    "the repository, not shipped in it: ARG store pairs with ARG's own probe output, DRIFT-Bench problems, "
    "transcripts and paper tables)"
)


def shared_data() -> Path:
    """`DRIFTBOARD_SHARED_DATA`, else `../shared/data` next to the repository."""
    return Path(os.environ.get("DRIFTBOARD_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_data_reason(what: str, path: Path) -> str:
    """Skip reason for absent reference data: what is missing, where it was looked for, how to provide it."""
    return f"{what} not found at {path}: {SHARED_DATA_SOURCE}"


def require_shared(path: Path, what: str) -> Path:
    """`path` if it exists, else skip the test naming the data, the variable and where the data comes from."""
    if not path.exists():
        pytest.skip(shared_data_reason(what, path))
    return path


@pytest.fixture
def run_line():
    """Invoke the CLI in-process; exceptions propagate so a crash is a test failure, not exit 1."""

    def run(args: list[str], **kwargs) -> Result:
        return CliRunner().invoke(cli, args, catch_exceptions=False, **kwargs)

    return run


T = TypeVar("T")

SEARCH_TIMEOUT_MS = 45_000
"""How long a browser test waits for the site's search to show a result. The search worker builds its index from
`search/search_index.json` (about 0.5 MB for the shipped site) on first use: about 1 s on a quiet machine, but a
clean-clone run with two test workers and Chromium on 2 cores once took over 15 s. A search that never answers
still fails."""


def cpu_seconds(call: Callable[[], T]) -> tuple[float, T]:
    """(this process's CPU seconds for `call()`, its result), the collector paused.

    For cost-ratio tests: another test on the other core (`pytest -n`) or a collection triggered by
    earlier garbage must not move the ratio, as wall-clock time would.
    """
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        result = call()
        return time.process_time() - start, result
    finally:
        gc.enable()


# --------------------------------------------------------------------------- outputs shared across test files


@pytest.fixture(scope="session")
def shipped_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped `submissions/` verified once per session: its results files and `index.json`.

    Verified as `make site` does it: from the repository root, the shipped problem sets, no
    option, no cache. Every submission must verify (exit code 0).
    """
    from checker.pipeline.verify import default_problem_dirs, verify_paths

    out = tmp_path_factory.mktemp("shipped-results")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        report = verify_paths([Path("submissions")], problem_dirs=default_problem_dirs(), results_dir=out)
    assert report.exit_code == 0, [f.render() for f in report.unreadable + report.findings]
    return out


@pytest.fixture(scope="session")
def cases_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The minimal agent and constraint cases verified (`results/`) and built (`site/`) once per session.

    Run pages hold two timeline rows each (`checker.render.runs.TURNS_PER_PAGE` = 2), so that the
    small logs paginate; recorded run paths resolve from the working folder, as `driftboard build` does.
    """
    from checker.pipeline.verify import verify_paths
    from checker.render import runs
    from checker.render.site import build_site

    root = tmp_path_factory.mktemp("cases-site")
    verify_paths([CASES / "valid" / "minimal-agent", CASES / "valid" / "minimal-constraint"], None, [SUITE],
                 results_dir=root / "results")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runs, "TURNS_PER_PAGE", 2)
        build_site(root / "results", root / "site", logs_root=Path.cwd())
    return root


@pytest.fixture(scope="session")
def story_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped real-model constraint runs (drift-bench-examples) and microworld agent runs, verified and built.

    Verified from the repository root against the shipped problem sets (as `make site` does), built with
    the logs beside the results (the run viewer reads the dialogue and the timeline from them).
    """
    from checker.pipeline.verify import default_problem_dirs, verify_paths
    from checker.render.site import build_site

    root = tmp_path_factory.mktemp("story-site")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        report = verify_paths([Path("submissions") / "drift-bench-examples", Path("submissions") / "driftboard-microworld-agent"],
                              problem_dirs=default_problem_dirs(), results_dir=root / "results")
        assert report.exit_code == 0, [f.render() for f in report.unreadable + report.findings]
        assert build_site(root / "results", root / "site", logs_root=REPO) == 0
    return root


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of `site_fixtures.fixture_results` (synthetic, hostile and undefined cases), built once per session."""
    from site_fixtures import build_fixture_site

    return build_fixture_site(tmp_path_factory.mktemp("fixture-site"))


# --------------------------------------------------------------------------- session guard

# Paths the guard ignores: the virtual environment and tool caches (pytest's own among them).
GUARD_EXCLUDED = (".venv", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".import_linter_cache",
                  "__pycache__")
_guard: dict[str, object] = {}


def checkout_state(root: Path = REPO) -> dict[str, tuple[str, int, int]] | None:
    """Every changed, untracked or ignored path of the checkout -> (git status, mtime_ns, size).

    None when `root` is not a git checkout (e.g. an unpacked sdist) or git is missing: no guard then.
    Modification times and sizes catch a test that rewrites a file already present (a `build/`
    left by `make site`, a tracked file already edited).
    """
    if shutil.which("git") is None or not (root / ".git").exists():
        return None
    out = subprocess.run(
        ["git", "--no-optional-locks", "-C", str(root), "status", "--porcelain=v1", "-z", "--ignored=matching",
         "--untracked-files=all", "--no-renames"],
        capture_output=True, check=False,
    )
    if out.returncode != 0:
        return None
    state: dict[str, tuple[str, int, int]] = {}

    def add(rel: str, status: str) -> None:
        try:
            st = (root / rel).lstat()
            state[rel] = (status, st.st_mtime_ns, st.st_size)
        except OSError:
            state[rel] = (status, -1, -1)

    for entry in out.stdout.split(b"\0"):
        rel = os.fsdecode(entry[3:])
        if len(entry) < 4 or any(part in GUARD_EXCLUDED for part in Path(rel).parts):
            continue
        status = entry[:2].decode()
        if not rel.endswith("/"):
            add(rel, status)
            continue
        # an ignored folder (e.g. build/ from `make site`) is listed whole: list its files
        for folder, dirs, files in os.walk(root / rel):
            dirs[:] = sorted(d for d in dirs if d not in GUARD_EXCLUDED)
            for name in files:
                add((Path(folder) / name).relative_to(root).as_posix(), status)
    return state


def changed_paths(before: dict[str, tuple[str, int, int]], after: dict[str, tuple[str, int, int]]) -> list[str]:
    """Paths added, removed or rewritten between two `checkout_state` snapshots."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Snapshot the checkout before any test runs."""
    _guard["before"] = checkout_state()


@pytest.fixture(scope="session", autouse=True)
def _session_temp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Send every `tempfile` folder (and subprocesses' $TMPDIR) into pytest's base temp; cache there too.

    Tests never read or write the user's verification cache. Whatever is left in this folder after
    the last test is a leak the guard reports.
    """
    temp = tmp_path_factory.mktemp("tempfile", numbered=False)
    cache = tmp_path_factory.mktemp("verification-cache", numbered=False)
    saved = {k: os.environ.get(k) for k in ("TMPDIR", "DRIFTBOARD_CACHE_DIR")}
    saved_tempdir = tempfile.tempdir
    os.environ["TMPDIR"] = str(temp)
    os.environ["DRIFTBOARD_CACHE_DIR"] = str(cache)
    tempfile.tempdir = str(temp)
    _guard["temp"] = temp
    _guard["basetemp"] = tmp_path_factory.getbasetemp().resolve()
    try:
        yield
    finally:
        tempfile.tempdir = saved_tempdir
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the session when the checkout changed or a temporary folder was left behind."""
    problems: list[str] = []
    before = _guard.get("before")
    if isinstance(before, dict):
        after = checkout_state()
        if after is not None:
            base = _guard.get("basetemp")  # `--basetemp` inside the checkout is pytest's own folder
            inside = base.relative_to(REPO).as_posix() + "/" if isinstance(base, Path) and base.is_relative_to(REPO) else None
            problems += [f"checkout changed: {p}" for p in changed_paths(before, after)
                         if inside is None or not p.startswith(inside)]
    temp = _guard.get("temp")
    if isinstance(temp, Path) and temp.is_dir():
        problems += [f"left in the temporary folder: {p.name}" for p in sorted(temp.iterdir())]
    _guard["problems"] = problems
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    """Name what the session left behind (tests must write only under their `tmp_path`)."""
    problems = _guard.get("problems")
    if not problems or not isinstance(problems, list):
        return
    terminalreporter.section("tests left files behind", sep="=", red=True, bold=True)
    for line in problems[:50]:
        terminalreporter.write_line(line)
    if len(problems) > 50:
        terminalreporter.write_line(f"... and {len(problems) - 50} more")
    terminalreporter.write_line("Write under tmp_path (e.g. `verify --out tmp_path/...` or `--no-results`); "
                                "if you edited the checkout during the run, run the tests again.")
