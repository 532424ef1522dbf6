"""Golden cases: every valid case validates; every invalid case prints exactly its expected findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CASES


def _cases(kind: str) -> list[str]:
    return sorted(p.name for p in (CASES / kind).iterdir() if p.is_dir())


def _stage(case: Path, tmp_path: Path) -> Path:
    """Copy a case (links kept as links) without its expectation files."""
    dest = tmp_path / case.name
    shutil.copytree(case, dest, symlinks=True)
    for name in ("expected.txt", "exit_code", "verify.json"):
        (dest / name).unlink(missing_ok=True)
    return dest


def test_there_are_enough_invalid_cases():
    assert len(_cases("invalid")) >= 25


@pytest.mark.parametrize("name", _cases("valid"))
def test_valid_case(name, tmp_path, monkeypatch, run_line):
    _stage(CASES / "valid" / name, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_line(["validate", name])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: no problems")


@pytest.mark.parametrize("name", _cases("invalid"))
def test_invalid_case(name, tmp_path, monkeypatch, run_line):
    case = CASES / "invalid" / name
    expected = (case / "expected.txt").read_text().splitlines()
    code_file = case / "exit_code"
    expected_code = int(code_file.read_text()) if code_file.exists() else 1
    _stage(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_line(["validate", name])
    lines = result.output.splitlines()
    assert result.exit_code == expected_code, result.output
    assert lines[:-1] == expected, result.output
    assert lines[-1].startswith(f"{len(expected)} problem")
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", _cases("invalid"))
def test_invalid_case_json(name, tmp_path, monkeypatch, run_line):
    """--format json reports the same findings as the text reporter."""
    case = CASES / "invalid" / name
    expected = (case / "expected.txt").read_text().splitlines()
    _stage(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_line(["validate", name, "--format", "json"])
    doc = json.loads(result.output)
    assert doc["ok"] is False
    rendered = [
        (f"{p['path']}:{p['line']}" if p["line"] is not None else p["path"]) + f": {p['message']}"
        for p in doc["problems"]
    ]
    assert rendered == expected


def test_all_invalid_cases_at_once_lose_nothing(tmp_path, monkeypatch, run_line):
    """Validating the whole folder reports the union of every case's findings, nothing dropped."""
    expected: list[str] = []
    for name in _cases("invalid"):
        _stage(CASES / "invalid" / name, tmp_path)
        expected += (CASES / "invalid" / name / "expected.txt").read_text().splitlines()
    for name in _cases("valid"):
        _stage(CASES / "valid" / name, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_line(["validate", "."])
    got = [line.removeprefix("./") for line in result.output.splitlines()[:-1]]
    # the cases share one title and have ids a word apart (`chain-edited-line`, `chain-deleted-line`): the identity
    # rules across submissions (tests/test_identity.py) flag them together; each case alone has none of these
    across = ("the title of submission", "edit(s) from submission id")
    got = [line for line in got if not any(a in line for a in across)]
    # duplicate-run-id across submissions: cases reuse no run id, so the union is exact
    assert sorted(got) == sorted(expected)
    assert result.exit_code == 1
