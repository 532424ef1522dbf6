"""`site/inspect.md`'s agent-track commands run as written, and its pre-registration example is the runs' shape.

The offline block (the scripted model on the fixture game) is run line by line in a fresh folder:
`inspect ...` through Inspect's own command line, `driftboard ...` through ours, globs expanded
as a shell would. The provider commands (one per condition) are checked to name the task's own
parameters; the pre-registration example is checked against what the task and the importer write.
"""

from __future__ import annotations

import gc
import re
import shlex
from pathlib import Path

import pytest
import yaml
from conftest import REPO

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[test,inspect]' (make test does)")

from click.testing import CliRunner
from inspect_ai._cli.main import inspect as inspect_cli

from checker.format.schema.manifest import Prereg
from checker.harness.inspect_task.agent_protocol import CONDITIONS, DEFAULT_GAMES, DEFAULT_HORIZON
from checker.harness.inspect_task.agent_task import build_task

pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in. <function MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]
DOC = REPO / "site" / "inspect.md"


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.DOTALL)


def _block_with(needle: str, lang: str = "bash") -> list[str]:
    found = [b for b in _blocks(DOC.read_text(encoding="utf-8"), lang) if needle in b]
    assert len(found) == 1, needle
    return [line for line in found[0].replace("\\\n", " ").splitlines() if line.strip()]


def test_the_offline_commands_run_as_written(tmp_path, run_line, monkeypatch):
    lines = _block_with("driftboard/agent --model driftboard/scripted")
    assert [ln.split()[0] for ln in lines] == ["inspect"] * 5 + ["driftboard"] * 3
    assert sorted(re.search(r"condition=(\w+)", ln).group(1) for ln in lines[:5]) == sorted(CONDITIONS)
    monkeypatch.chdir(tmp_path)
    outputs = []
    for line in lines:
        args = shlex.split(line)
        expanded = [a for arg in args[1:] for a in (sorted(str(p) for p in Path().glob(arg)) if "*" in arg else [arg])]
        if args[0] == "inspect":
            res = CliRunner().invoke(inspect_cli, expanded, catch_exceptions=False)
            gc.collect()
        else:
            res = run_line(expanded)
        assert res.exit_code == 0, (line, res.output)
        outputs.append(res.output)
    assert len(list(Path("logs/scripted").glob("*.eval"))) == 5
    assert "5 run(s) from 5 log(s)" in outputs[5] and "0 finding(s)" in outputs[5]
    runs = sorted(Path("submissions/mylab-scripted/runs").iterdir())
    assert [p.name for p in runs] == sorted(f"{c.lower()}--w202--epoch1.jsonl" for c in CONDITIONS)
    assert "INVALID" not in outputs[7] and "INCOMPLETE" not in outputs[7]


def test_the_offline_constraint_commands_run_as_written(tmp_path, run_line, monkeypatch):
    """The constraint block: the scripted model answers the lite split perfectly; every line exits 0."""
    lines = _block_with("driftboard/constraint --model driftboard/scripted")
    assert [ln.split()[0] for ln in lines] == ["inspect"] + ["driftboard"] * 3
    (tmp_path / "problems").symlink_to(REPO / "problems", target_is_directory=True)  # read only
    monkeypatch.chdir(tmp_path)
    outputs = []
    for line in lines:
        args = shlex.split(line)
        expanded = [a for arg in args[1:] for a in (sorted(str(p) for p in Path().glob(arg)) if "*" in arg else [arg])]
        if args[0] == "inspect":
            res = CliRunner().invoke(inspect_cli, expanded, catch_exceptions=False)
            gc.collect()
        else:
            res = run_line(expanded)
        assert res.exit_code == 0, (line, res.output[-3000:])
        outputs.append(res.output)
    # the lite split: 126 problems, 882 turns (problems/README.md); `perfect` answers every one correctly
    assert "126 imported (126 in full)" in outputs[1]
    assert "882 of 882 turns correct" in outputs[3]
    assert re.search(r"driftboard/scripted/ledger_only: (ranked on board|not ranked: )", outputs[3])


def test_one_provider_command_per_condition_with_the_task_parameters():
    lines = [ln for ln in _block_with("--model openai/gpt-4o-mini -T condition=FULL") if ln.startswith("inspect ")]
    conditions = []
    for line in lines:
        args = shlex.split(line)
        assert args[:3] == ["inspect", "eval", "driftboard/agent"] and "driftboard/scripted" not in args
        params = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "-T")
        build_task(**params)  # every -T is a parameter of the task, with an accepted value
        conditions.append(params["condition"])
    assert conditions == list(CONDITIONS)


def test_the_preregistration_example_is_what_the_runs_will_be():
    (example,) = [b for b in _blocks(DOC.read_text(encoding="utf-8"), "yaml") if "track: agent" in b]
    prereg = Prereg.model_validate(yaml.safe_load(example))
    seeds = [f"{g}-epoch{e}" for g in DEFAULT_GAMES for e in (1, 2, 3)]
    assert list(prereg.cells) == list(CONDITIONS)
    for name, cell in prereg.cells.items():
        assert cell.flags == CONDITIONS[name] and cell.seeds == seeds and cell.comparator == (name == "BARE")
    assert prereg.horizon == DEFAULT_HORIZON and prereg.profile == "driftboard" and not prereg.written_after_runs


def test_submit_page_points_to_the_agent_task():
    text = (REPO / "site" / "submit.md").read_text(encoding="utf-8")
    assert "inspect eval driftboard/agent --model openai/gpt-4o-mini -T condition=FULL --epochs 3" in text
    assert ".venv/bin/driftboard import inspect logs/*.eval --out submissions/mylab-agent" in text
