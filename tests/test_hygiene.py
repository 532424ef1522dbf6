"""The session guard of conftest.py: it sees every file a test run adds or rewrites in a checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GUARD_EXCLUDED, changed_paths, checkout_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (the guard reads `git status`)")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout with one tracked file, `build/` ignored and already holding a file (as after `make site`)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n.venv/\n")
    (root / "tracked.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm",
                    "init"], check=True)
    (root / "build" / "site").mkdir(parents=True)
    (root / "build" / "site" / "index.html").write_text("old\n")
    return root


def _bump(path: Path) -> None:
    """Give a rewritten file a later modification time even on a coarse clock."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_a_clean_checkout_has_no_changes(repo: Path) -> None:
    assert changed_paths(checkout_state(repo), checkout_state(repo)) == []


def test_new_files_inside_an_ignored_folder_that_already_exists_are_seen(repo: Path) -> None:
    before = checkout_state(repo)
    (repo / "build" / "results").mkdir()
    (repo / "build" / "results" / "index.json").write_text("{}")
    assert changed_paths(before, checkout_state(repo)) == ["build/results/index.json"]


def test_rewritten_ignored_untracked_and_tracked_files_are_seen(repo: Path) -> None:
    (repo / "notes.txt").write_text("untracked\n")
    before = checkout_state(repo)
    for rel, text in (("build/site/index.html", "new\n"), ("notes.txt", "changed\n"), ("tracked.txt", "b\n")):
        (repo / rel).write_text(text)
        _bump(repo / rel)
    assert changed_paths(before, checkout_state(repo)) == ["build/site/index.html", "notes.txt", "tracked.txt"]


def test_a_deleted_file_is_seen(repo: Path) -> None:
    before = checkout_state(repo)
    (repo / "build" / "site" / "index.html").unlink()
    assert changed_paths(before, checkout_state(repo)) == ["build/site/index.html"]


def test_the_virtual_environment_and_caches_are_not_the_guards_business(repo: Path) -> None:
    before = checkout_state(repo)
    for name in (".venv", "__pycache__", ".pytest_cache", ".hypothesis"):
        assert name in GUARD_EXCLUDED
        (repo / name).mkdir()
        (repo / name / "f").write_text("x")
    (repo / "build" / "__pycache__").mkdir()
    (repo / "build" / "__pycache__" / "m.pyc").write_text("x")
    assert changed_paths(before, checkout_state(repo)) == []


def test_no_guard_outside_a_git_checkout(tmp_path: Path) -> None:
    assert checkout_state(tmp_path) is None
