"""The verification cache: which code its key covers, and which inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import grimp

import checker
from checker.cache import NUMBER_MODULES, code_digest, module_file
from checker.scorers import SCORER_BY_TRACK


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
    # the scorers are imported by name (importlib), which no import graph sees: they are entries too
    entries = {"checker.verify", *SCORER_BY_TRACK.values()}
    closure = _import_closure(graph, entries)
    declared = set(NUMBER_MODULES)
    assert sorted(closure - declared) == [], "imported by the verify pipeline but not in cache.NUMBER_MODULES"
    assert sorted(declared - closure) == [], "in cache.NUMBER_MODULES but not imported by the verify pipeline"
    # the edges stay out: editing them must not invalidate cached verifications
    for edge in ("checker.cli", "checker.commands", "checker.render.site", "checker.importers.arg",
                 "checker.baselines.suite", "checker.bench.fuzz_targets", "checker.ci"):
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
    outside = ["render/site.py", "render/templates", "cli.py", "commands.py", "bench/fuzz_targets.py",
               "importers/arg.py", "baselines/suite.py", "ci_summary.py"]
    for rel in outside:
        target = package / rel
        if target.is_dir():  # a page template
            target = sorted(p for p in target.rglob("*") if p.is_file())[0]
        target.write_bytes(target.read_bytes() + b"\n# edited\n")
    (package / "render" / "new_page.py").write_text("X = 1\n", encoding="utf-8")
    assert code_digest(package) == before

    for rel in ["gate.py", "score/gds.py", "schema/__init__.py", "__init__.py"]:
        target = package / rel
        original = target.read_bytes()
        target.write_bytes(original + b"\n# edited\n")
        assert code_digest(package) != before, rel
        target.write_bytes(original)
        assert code_digest(package) == before, rel
