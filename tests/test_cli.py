"""Exit codes and output shape of the command line."""

from __future__ import annotations

import json

from conftest import CASES


def test_missing_path_is_usage_error(tmp_path, run_line):
    result = run_line(["validate", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"Error: {tmp_path / 'nope'}: no such file or directory\n"


def test_no_arguments_is_usage_error(run_line):
    result = run_line(["validate"])
    assert result.exit_code == 2


def test_unreadable_run_file_exits_2(tmp_path, run_line):
    """A run file that cannot be opened (here: a dangling link) is unreadable input, not a finding."""
    link = tmp_path / "r.jsonl"
    link.symlink_to(tmp_path / "missing.jsonl")
    result = run_line(["validate", str(link)])
    assert result.exit_code == 2
    assert result.stdout.startswith(f"{link}: cannot read: No such file or directory\n")


def test_json_output_shape_for_valid_input(run_line):
    result = run_line(["validate", str(CASES / "valid" / "minimal-agent" / "runs" / "r1.jsonl"), "--format", "json"])
    doc = json.loads(result.output)
    assert doc == {
        "command": "validate",
        "ok": True,
        "exit_code": 0,
        "problems": [],
        "summary": {"submissions": 0, "runs": 1, "lines": 9, "problems": 0},
    }


def test_every_command_has_help(run_line):
    from checker.cli.main import cli

    def walk(group, prefix):
        for name, cmd in group.commands.items():
            assert cmd.help, f"{prefix}{name} has no help"
            if hasattr(cmd, "commands"):
                walk(cmd, f"{prefix}{name} ")

    walk(cli, "")


def test_absolute_and_relative_paths_give_the_same_results(tmp_path, run_line, monkeypatch):
    """`verify $PWD/submissions/x` writes the bytes `verify submissions/x` writes: no machine path in results."""
    import shutil
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    work = tmp_path / "work"
    shutil.copytree(repo / "submissions" / "drift-bench-examples", work / "submissions" / "x")
    shutil.copytree(repo / "problems", work / "problems")
    monkeypatch.chdir(work)
    outs = {}
    for label, target in (("rel", "submissions/x"), ("abs", str(work / "submissions" / "x"))):
        result = run_line(["verify", target, "--no-cache", "--out", str(tmp_path / label)])
        assert result.exit_code in (0, 1), result.output
        outs[label] = (tmp_path / label / "drift-bench-examples.json").read_bytes()
    assert str(work).encode() not in outs["abs"]
    assert outs["abs"] == outs["rel"]
