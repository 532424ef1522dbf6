"""The verification cache: which code its key covers, and which inputs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import grimp
import pytest
from submission_factory import make_agent_submission

import checker
from checker.pipeline.cache import NUMBER_MODULES, code_digest, module_file


def _import_closure(graph: grimp.ImportGraph, entries: set[str]) -> set[str]:
    """Every module the entries import, directly or not, plus the packages holding them (run on import)."""
    closure: set[str] = set()
    todo = set(entries)
    while todo:
        module = todo.pop()
        if module in closure:
            continue
        closure.add(module)
        todo |= graph.find_upstream_modules(module) - closure
        parts = module.split(".")
        todo |= {".".join(parts[:i]) for i in range(1, len(parts))} - closure
    return closure


def test_number_modules_are_the_import_closure_of_the_verify_pipeline() -> None:
    graph = grimp.build_graph("checker", cache_dir=None)
    # the track scorers are imported where first needed (checker.pipeline.scorers): the graph sees them
    entries = {"checker.pipeline.verify"}
    closure = _import_closure(graph, entries)
    declared = set(NUMBER_MODULES)
    assert sorted(closure - declared) == [], "imported by the verify pipeline but not in cache.NUMBER_MODULES"
    assert sorted(declared - closure) == [], "in cache.NUMBER_MODULES but not imported by the verify pipeline"
    # the edges stay out: editing them must not invalidate cached verifications
    for edge in ("checker.cli.main", "checker.cli.commands", "checker.render.site", "checker.importers.arg",
                 "checker.harness.baselines.suite", "driftboard_tools.fuzz.targets", "checker.cli.ci"):
        assert edge not in declared


def _package_copy(tmp_path: Path) -> Path:
    source = Path(checker.__file__).resolve().parent
    copy = tmp_path / "checker"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_every_declared_module_has_a_source_file() -> None:
    package = Path(checker.__file__).resolve().parent
    assert [m for m in NUMBER_MODULES if not module_file(package, m).is_file()] == []


def test_code_digest_moves_only_with_code_that_decides_numbers(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    before = code_digest(package)
    outside = ["render/site.py", "render/templates", "cli/main.py", "cli/commands.py",
               "importers/arg.py", "harness/baselines/suite.py", "cli/ci_summary.py"]
    for rel in outside:
        target = package / rel
        if target.is_dir():  # a page template
            target = sorted(p for p in target.rglob("*") if p.is_file())[0]
        target.write_bytes(target.read_bytes() + b"\n# edited\n")
    (package / "render" / "new_page.py").write_text("X = 1\n", encoding="utf-8")
    assert code_digest(package) == before

    for rel in ["agent/gate/render_ceiling.py", "agent/gds.py", "format/schema/__init__.py", "__init__.py"]:
        target = package / rel
        original = target.read_bytes()
        target.write_bytes(original + b"\n# edited\n")
        assert code_digest(package) != before, rel
        target.write_bytes(original)
        assert code_digest(package) == before, rel


# ------------------------------------------------------------------- the key covers the repository and its history
def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


def _verify_json(run_line, folder: Path, cache: Path):
    result = run_line(["verify", str(folder), "--cache-dir", str(cache), "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


LATE_PREREG = ("prereg.yaml was first committed after 1 run log and was changed in 1 commit after run logs were "
               "committed: commit prereg.yaml before any run log (pre-register, then run); restore the prereg.yaml "
               "the runs were started with; a pre-registration is fixed before the runs and never edited after them")



def _commit_runs_then_prereg(repo, folder) -> None:
    """A repository whose history commits the run logs first and the same prereg.yaml bytes later."""
    prereg = folder / "prereg.yaml"
    text = prereg.read_bytes()
    prereg.unlink()
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "runs first")
    prereg.write_bytes(text)  # the same bytes: only the history differs
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "prereg later")

@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("cwd", ["repository", "elsewhere"])
def test_a_run_outside_git_is_not_reused_once_the_submission_is_in_a_repository(tmp_path, run_line, monkeypatch, cwd):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # tmp_path is in no repository, whatever holds it
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    folder = make_agent_submission(repo / "submissions", "s-late", {"FULL": ["s1"]})
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(repo if cwd == "repository" else tmp_path / "elsewhere")

    code, doc = _verify_json(run_line, folder, cache)
    assert code == 0, doc["problems"]
    assert doc["cache"] == {"hits": 0, "misses": 1}
    assert doc["submissions"][0]["prereg_check"]["commit_order"] == {}  # no repository: not checked

    _commit_runs_then_prereg(repo, folder)

    code, doc = _verify_json(run_line, folder, cache)
    assert doc["cache"] == {"hits": 0, "misses": 1}
    assert code == 1
    assert doc["submissions"][0]["prereg_check"]["commit_order"]["status"] == "violated"
    assert [p["message"] for p in doc["problems"]] == [LATE_PREREG]
    # under the working directory the path is shown relative to it, as the reader would type it
    assert doc["problems"][0]["path"] == (str(folder.relative_to(repo)) if cwd == "repository" else str(folder))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_commit_order_check_reads_the_submissions_repository_wherever_verify_runs(tmp_path, run_line, monkeypatch):
    """A cache filled from outside the repository must not hide the check from a run inside it."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    folder = make_agent_submission(repo / "submissions", "s-late", {"FULL": ["s1"]})
    _commit_runs_then_prereg(repo, folder)
    (tmp_path / "elsewhere").mkdir()
    (repo / "docs").mkdir()  # inside the repository, but not above the folder: the path stays absolute, the key equal
    for n, where in enumerate([tmp_path / "elsewhere", repo / "docs"]):
        monkeypatch.chdir(where)
        code, doc = _verify_json(run_line, folder, cache)
        assert doc["cache"] == {"hits": n, "misses": 1 - n}
        assert code == 1
        assert [p["message"] for p in doc["problems"]] == [LATE_PREREG]


def test_the_key_changes_with_every_input(tmp_path, monkeypatch):
    from checker.pipeline import cache
    from checker.stages.load import load_submission

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    folder = make_agent_submission(tmp_path / "subs", "s-key", {"FULL": ["s1"]})
    loaded = load_submission(folder, "subs/s-key")
    shown = [(p, f"subs/s-key/{p.name}") for p in loaded.run_paths]

    def key(profile="driftboard", problem_sets=None):
        return cache.submission_cache_key(loaded, shown, profile, problem_sets or {})

    base = key()
    assert key() == base
    assert key(profile="strict") != base

    class Set:
        def __init__(self, name):
            self.name = name

    assert key(problem_sets={"d" * 64: Set("a")}) != base
    assert key(problem_sets={"d" * 64: Set("a")}) != key(problem_sets={"d" * 64: Set("b")})
    monkeypatch.setattr(cache, "checker_code_digest", lambda: "0" * 64)
    assert key() != base


def test_the_live_code_digest_reads_the_installed_package() -> None:
    """The digest the cache keys use is over the `checker` package's real files, none missing."""
    from checker.pipeline.cache import checker_code_digest

    package = Path(checker.__file__).resolve().parent
    assert [m for m in NUMBER_MODULES if not module_file(package, m).is_file()] == []
    assert checker_code_digest() == code_digest(package)
