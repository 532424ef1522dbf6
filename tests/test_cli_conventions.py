"""Command-line conventions (issue 18 item 5): `--format json` on every reporting command (README lists
the exceptions), progress only on a terminal's stderr, `build` says what it wrote, help examples that
work in a fresh clone, `schema --help` names every schema, `make site` says what each step does.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shlex
from itertools import pairwise
from pathlib import Path

import click
import pytest
import yaml
from conftest import REPO
from submission_factory import make_agent_submission

from checker.cli.commands import terminal_progress
from checker.cli.main import cli
from checker.render.citation import site_url

REPORTING = {"validate", "verify", "cite", "release", "ci", "ci-history"}
"""The commands whose output is a report of findings (they take `--format text|json`)."""


def leaf_commands(group: click.Group = cli, prefix: str = "") -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            out.update(leaf_commands(cmd, f"{prefix}{name} "))
        else:
            out[f"{prefix}{name}"] = cmd
    return out


def takes_json(cmd: click.Command) -> bool:
    opt = next((p for p in cmd.params if "--format" in getattr(p, "opts", [])), None)
    return opt is not None and isinstance(opt.type, click.Choice) and list(opt.type.choices) == ["text", "json"]


# --------------------------------------------------------------------------- --format json


def test_every_reporting_command_takes_format_json_and_the_readme_names_the_others():
    commands = leaf_commands()
    assert {name for name, cmd in commands.items() if takes_json(cmd)} == REPORTING
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^Reporting commands \((.+?)\) take `--format json`\. The others do not: (.+?)$", readme,
                      flags=re.MULTILINE)
    assert match, "README: the sentence naming the reporting commands and the exceptions"
    assert set(re.findall(r"`([a-z -]+)`", match.group(1))) == REPORTING
    exceptions = match.group(2)
    for name in sorted(set(commands) - REPORTING):
        top = name.split(" ")[0]
        assert f"`{name}`" in exceptions or f"`{top}`" in exceptions, f"README does not say why {name} has no JSON"


@pytest.fixture
def verified(tmp_path: Path, run_line) -> tuple[Path, Path]:
    """A two-cell agent submission verified into tmp_path/results: (submission folder, results folder)."""
    folder = make_agent_submission(tmp_path / "subs", "s-cite", {"FULL": ["s1", "s2"], "J0": ["s1"]})
    results = tmp_path / "results"
    done = run_line(["verify", str(folder), "--no-cache", "--out", str(results)])
    assert done.exit_code == 0, done.output
    return folder, results


def _logs_sha256(files: list[Path]) -> str:
    """SHA-256 of the sorted SHA-256s of the log files, one per line (the digest a citation names)."""
    digests = sorted(hashlib.sha256(f.read_bytes()).hexdigest() for f in files)
    return hashlib.sha256("".join(f"{d}\n" for d in digests).encode()).hexdigest()


def test_cite_json_holds_bibtex_text_permalink_and_digests(verified, run_line):
    folder, results = verified
    text = run_line(["cite", "s-cite/FULL", "--results", str(results)])
    res = run_line(["cite", "s-cite/FULL", "--results", str(results), "--format", "json"])
    assert (text.exit_code, res.exit_code) == (0, 0)
    doc = json.loads(res.stdout)
    full_logs = [p for p in sorted((folder / "runs").iterdir())
                 if json.loads(p.read_text().splitlines()[0]).get("cell") == "FULL"]
    assert len(full_logs) == 2
    assert doc["command"] == "cite" and doc["ok"] is True and doc["exit_code"] == 0 and doc["problems"] == []
    assert (doc["submission"], doc["cell"], doc["result_id"]) == ("s-cite", "FULL", "s-cite/FULL")
    assert doc["permalink"] == "https://driftboard.github.io/driftboard/results/s-cite/FULL/"
    assert doc["logs_sha256"] == _logs_sha256(full_logs)
    assert doc["reproduce"] == "driftboard verify submissions/s-cite"
    stored = json.loads((results / "s-cite.json").read_text())
    (cell,) = [c for c in stored["cells"] if c["cell"] == "FULL"]
    assert doc["result_digest"] == cell["digest"]
    assert doc["checker_version"] == stored["checker_version"] and doc["profile"] == "driftboard"
    # the same BibTeX and text as the text format prints
    assert text.stdout == f"{doc['bibtex']}\n\n{doc['text']}\n"


def test_cite_json_of_a_whole_submission_covers_every_log(verified, run_line):
    folder, results = verified
    doc = json.loads(run_line(["cite", "s-cite", "--results", str(results), "--format", "json"]).stdout)
    assert doc["cell"] is None and doc["permalink"] == "https://driftboard.github.io/driftboard/submissions/s-cite/"
    assert doc["logs_sha256"] == _logs_sha256(sorted((folder / "runs").iterdir()))


def test_cite_json_unknown_cell_is_a_usage_error(verified, run_line):
    _folder, results = verified
    res = run_line(["cite", "s-cite/NOPE", "--results", str(results), "--format", "json"])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == "Error: s-cite has no cell 'NOPE' (cells: FULL, J0)\n"


# --------------------------------------------------------------------------- progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal_and_only_when_enabled():
    with terminal_progress("verifying logs", stream=io.StringIO()) as progress:
        assert progress is None  # a pipe or a CI log: nothing
    with terminal_progress("verifying logs", enabled=False, stream=_Terminal()) as progress:
        assert progress is None  # JSON mode: nothing
    term = _Terminal()
    with terminal_progress("verifying logs", stream=term) as progress:
        assert progress is not None
        for done in (0, 1_500_000, 2_250_000, 3_000_000):
            progress(done, 3_000_000)
    drawn = term.getvalue()
    assert "verifying logs" in drawn and "50%" in drawn and "1.5 of 3.0 MB of logs" in drawn
    assert "100%" in drawn and "3.0 of 3.0 MB of logs" in drawn


def test_verify_reports_progress_in_bytes_of_logs(tmp_path):
    """Issue 34: the work is the stored logs' bytes; three short runs move it once each, by their sizes."""
    from checker.pipeline.verify import verify_paths

    folder = make_agent_submission(tmp_path / "subs", "s-progress", {"FULL": ["s1", "s2"], "J0": ["s1"]})
    sizes = sorted(p.stat().st_size for p in (folder / "runs").glob("*.jsonl"))
    total = sum(sizes)
    calls: list[tuple[int, int]] = []
    verify_paths([folder], progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, total) and calls[-1] == (total, total) and len(calls) == 4
    assert sorted(b[0] - a[0] for a, b in pairwise(calls)) == sizes


def test_one_long_run_moves_the_progress_before_it_ends(tmp_path):
    """A run of ~20,000 events reports the bytes read as it goes (every 4,096 lines), not once at its end."""
    from driftboard_tools.generate.agent_logs import generate

    from checker.pipeline.verify import verify_paths

    log = tmp_path / "long.jsonl"
    events = generate(log, 3000)
    total = log.stat().st_size
    calls: list[tuple[int, int]] = []
    verify_paths([log], None, [], progress=lambda done, total: calls.append((done, total)))
    inside = [done for done, _ in calls if 0 < done < total]
    assert len(inside) >= events // 4096 - 1 >= 3, (events, calls)
    assert [d for d, _ in calls] == sorted({d for d, _ in calls}) and calls[-1] == (total, total)


def test_workers_report_a_long_run_while_it_is_read(tmp_path, monkeypatch):
    """With --jobs 2, bytes read in the workers reach the bar while the runs are read (a shared counter, polled)."""
    from driftboard_tools.generate.agent_logs import generate

    from checker.pipeline import verify

    monkeypatch.setattr(verify, "POLL_SECONDS", 0.01)
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for k, log in enumerate(logs):
        generate(log, 3000, {"run_id": f"long-{k}", "seed": f"s{k + 1}"})
    sizes = [log.stat().st_size for log in logs]
    calls: list[tuple[int, int]] = []
    verify.verify_paths(logs, None, [], jobs=2, progress=lambda done, total: calls.append((done, total)))
    boundaries = {0, sizes[0], sizes[1], sum(sizes)}
    assert calls[0] == (0, sum(sizes)) and calls[-1] == (sum(sizes), sum(sizes))
    assert [d for d, _ in calls] == sorted({d for d, _ in calls})
    assert any(done not in boundaries for done, _ in calls), calls  # some report fell inside a run


def test_verify_prints_no_progress_when_stderr_is_not_a_terminal(tmp_path, run_line):
    folder = make_agent_submission(tmp_path / "subs", "s-quiet", {"FULL": ["s1"]})
    for fmt in ("text", "json"):
        res = run_line(["verify", str(folder), "--no-cache", "--no-results", "--format", fmt])
        assert res.exit_code == 0 and res.stderr == ""


# --------------------------------------------------------------------------- build


@pytest.mark.slow
def test_build_says_how_many_pages_it_wrote_where_and_the_site_url(verified, run_line, tmp_path):
    folder, results = verified
    out = tmp_path / "site"
    # the tree being built is the submissions folder that holds s-cite (build renders only its results)
    res = run_line(["build", "--no-verify", "--submissions", str(folder.parent), "--results", str(results),
                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert {"index.html", "404.html", "submissions/s-cite/index.html", "results/s-cite/FULL/index.html"} <= set(pages)
    assert res.stdout == (f"built {len(pages)} pages into {out} (site URL {site_url()}); "
                          f"preview: driftboard serve --out {out}\n")


def test_build_without_results_is_a_usage_error(tmp_path, run_line):
    res = run_line(["build", "--no-verify", "--results", str(tmp_path / "none"), "--out", str(tmp_path / "site")])
    assert res.exit_code == 2 and res.stdout == ""
    assert not (tmp_path / "site").exists()


def test_import_says_how_many_run_logs_it_wrote_and_where(run_line, tmp_path, monkeypatch):
    """The help example of `import drift-bench` (into tmp_path): DRIFT-Bench's example transcripts hold 4 models' runs."""
    monkeypatch.chdir(REPO)
    (args,) = examples(leaf_commands()["import drift-bench"])
    out = tmp_path / "imported"
    args[args.index("--out") + 1] = str(out)
    res = run_line(args)
    assert res.exit_code == 0, res.output
    assert res.stdout == f"imported 4 run logs into {out}; check them: driftboard verify {out}\n"
    again = run_line(args)  # the folder is not empty now: refused, nothing claimed
    assert again.exit_code == 2 and again.stdout == ""


# --------------------------------------------------------------------------- help


def examples(cmd: click.Command) -> list[list[str]]:
    """The `driftboard ...` example lines of a command's help (continuation lines joined)."""
    text = (cmd.help or "").replace("\\\n", " ")
    return [shlex.split(line.strip())[1:] for line in text.splitlines() if line.strip().startswith("driftboard ")]


def test_help_examples_name_only_what_a_fresh_clone_has():
    """Paths under submissions/, problems/ and examples/ exist; no `..`; cited ids and cells exist."""
    shipped_cells = {p.parent.name: set(yaml.safe_load(p.read_text())["cells"])
                     for p in (REPO / "submissions").glob("*/prereg.yaml")}
    seen = 0
    for name, cmd in leaf_commands().items():
        for args in examples(cmd):
            seen += 1
            assert args[: len(name.split())] == name.split(), (name, args)
            for token in args:
                assert ".." not in token.split("/"), f"{name}: {token} is outside the clone"
                if token.startswith(("submissions/", "problems/", "examples/")) and "*" not in token:
                    out_of = args[args.index(token) - 1] if args.index(token) else ""
                    if out_of != "--out":  # a folder the command creates
                        assert (REPO / token).exists(), f"{name}: {token} is not in the repository"
            if name == "cite":
                sid, _, cell = args[1].partition("/")
                assert sid in shipped_cells and (not cell or cell in shipped_cells[sid]), args
    assert seen >= 15


def test_help_validate_examples_run_in_the_clone(run_line, monkeypatch):
    monkeypatch.chdir(REPO)
    for args in examples(leaf_commands()["validate"]):
        res = run_line(args)
        assert res.exit_code == 0, (args, res.output)


@pytest.mark.slow
def test_help_verify_examples_run_in_the_clone(run_line, monkeypatch):
    """The example naming a problem set runs here, with --no-results (tests never write into the clone).

    (`verify submissions/` itself is what tests/test_drift_bench_examples.py and test_metric_docs.py run.)
    """
    monkeypatch.chdir(REPO)
    (args,) = [a for a in examples(leaf_commands()["verify"]) if "--problems" in a]
    res = run_line([*args, "--no-results", "--no-cache"])
    assert res.exit_code == 0, (args, res.output)


def test_schema_help_names_every_schema_it_writes(run_line, tmp_path):
    from checker.format.schema.export import schemas

    names = sorted(schemas())
    assert "results.schema.json" in names
    res = run_line(["schema", "--help"])
    assert res.exit_code == 0
    for name in names:
        assert name in res.stdout
    written = run_line(["schema", "--out", str(tmp_path)])
    assert written.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == names


# --------------------------------------------------------------------------- make site


def test_make_site_says_what_each_step_does_and_pip_is_not_silenced():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("$(VENV)/bin/pip:", "$(SITE_STAMP):", "$(ALL_STAMP):", "site:"):
        body = makefile.split(target, 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        commands = [line.strip() for line in body if line.startswith("\t")]
        for i, line in enumerate(commands):
            if line.startswith("$(") or line.startswith("$(PY)"):
                assert i > 0 and commands[i - 1].startswith("@echo "), f"{target} runs `{line}` without saying so"
    assert "--quiet" not in makefile and "-q " not in makefile


def test_make_site_installs_driftboard_alone_and_make_test_everything():
    """Issue 34: the main job installs what verify and build need, no test, inspect or tools packages."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")

    def body(target: str) -> list[str]:
        return [ln.strip() for ln in makefile.split(f"\n{target}", 1)[1].split("\n\n", 1)[0].splitlines()[1:]]

    assert makefile.split("\nsite:", 1)[1].splitlines()[0].split() == ["$(SITE_STAMP)"]
    assert "$(BIN)/pip install -e ." in body("$(SITE_STAMP):")
    assert not any("[" in line or "tools/" in line for line in body("$(SITE_STAMP):") if "pip install" in line)
    assert '$(BIN)/pip install -e ".[test,inspect]" -e tools/' in body("$(ALL_STAMP):")
    for target in ("test", "lint", "bench"):
        assert makefile.split(f"\n{target}:", 1)[1].splitlines()[0].split() == ["$(ALL_STAMP)"], target


def test_a_bench_workdir_is_created_and_one_that_cannot_be_is_bad_usage(run_line, tmp_path):
    # `bench validate --workdir` of a folder that does not exist yet used to end in a traceback
    missing = tmp_path / "not" / "yet"
    result = run_line(["bench", "validate", "--size-mb", "1", "--workdir", str(missing)])
    assert result.exit_code == 0, result.output
    assert missing.is_dir() and "ratio_vs_json_loads=" in result.output
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    for command in (["validate", "--size-mb", "1"], ["agent", "--generated"], ["cli"], ["site"], ["scale", "--quick"]):
        result = run_line(["bench", *command, "--workdir", str(blocked / "sub")])
        assert result.exit_code == 2, (command, result.output)
        assert "cannot create the folder" in result.output and "Traceback" not in result.output
