"""Inspect AI: `inspect eval driftboard/constraint` with a scripted model, then `driftboard import inspect` and `verify`.

No network: the scripted model is a model provider registered here (`driftboard-scripted/...`) that
answers from a script keyed by (problem, turn, epoch); every output carries its token usage, so
Inspect never loads a tokenizer. The per-turn channels expected below are computed by hand from
the problem files of `problems/driftboard-suite-v1` (see the comments at `EPOCH1`).
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[test,inspect]' (make test does)")

from click.testing import CliRunner
from inspect_ai._cli.main import inspect as inspect_cli
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi

import driftboard._registry
from checker.harness.inspect_task.protocol import EXTRACTION_SYSTEM

# Inspect leaves anyio memory streams to the garbage collector (its own, not ours); collected right after each
# eval (gc.collect in `inspect_eval`) so that their ResourceWarnings are ignored here and never reach another module.
pytestmark = [
    # tenacity (Inspect's retry library) warns about Inspect's own call; warnings are errors in this suite
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in. <function MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]
SUITE = REPO / "problems" / "driftboard-suite-v1"
PROBLEMS = ("logic_grid_001", "scheduling_003", "seating_007")
SEED = 100  # -T seed=100: epoch e is asked with seed 100 + e - 1, which is how the script knows the epoch


def _problem(pid: str) -> dict[str, Any]:
    return json.loads((SUITE / f"{pid}.json").read_text(encoding="utf-8"))


def _gold(pid: str, t: int) -> dict[str, Any]:
    return _problem(pid)["turns"][t - 1]["gold_solution"]


def _new(pid: str, t: int) -> list[dict[str, Any]]:
    return [{"type": c["type"], "args": c["args"], "nl": c["nl"]} for c in _problem(pid)["turns"][t - 1]["new_constraints"]]


def _answer(solution: dict[str, Any]) -> str:
    return json.dumps({"solution": solution})


def _extraction(constraints: list[dict[str, Any]]) -> str:
    return json.dumps({"constraints": constraints})


GOLD_LG = _gold("logic_grid_001", 1)  # the same gold grid in every turn
DUPLICATE_RED = {**GOLD_LG, "Fumi": {**GOLD_LG["Fumi"], "color": "Red"}}  # Chen is Red too: breaks Distinct
GOLD_SEAT = _gold("seating_007", 1)  # Hal 1, Bea 2, Fay 3, Cyd 4, Jon 5, Ned 6 in every turn
JON_CYD_SWAPPED = {**GOLD_SEAT, "Jon": 4, "Cyd": 5}  # left_of(Jon, Cyd) needs seat(Jon) = seat(Cyd) + 1: 4 != 6

# (problem, turn) -> (answer, extraction) in epoch 1; epoch 2 answers gold and extracts every constraint.
EPOCH1: dict[tuple[str, int], tuple[str, str]] = {
    # logic grid: consistent; drift (two Reds violate the ledger's base axioms, the ledger is SAT); same_as(A, B, c)
    # with A != B is UNSAT under Distinct, so from turn 3 the ledger is UNSAT with MUS [C005] (C001-C004 came
    # from turns 1-2), and stays so in turn 4 (C006, C007 added); the answers of turns 3-4 are the gold grid.
    ("logic_grid_001", 1): (_answer(GOLD_LG), _extraction(_new("logic_grid_001", 1))),
    ("logic_grid_001", 2): (_answer(DUPLICATE_RED), _extraction(_new("logic_grid_001", 2))),
    ("logic_grid_001", 3): (_answer(GOLD_LG), _extraction([{"type": "same_as", "args": ["Chen", "Fumi", "color"]}])),
    ("logic_grid_001", 4): (_answer(GOLD_LG), _extraction(_new("logic_grid_001", 4))),
    # scheduling: gold and consistent throughout; turn 3's extraction finds nothing (the ledger just misses it)
    ("scheduling_003", 1): (_answer(_gold("scheduling_003", 1)), _extraction(_new("scheduling_003", 1))),
    ("scheduling_003", 2): (_answer(_gold("scheduling_003", 2)), _extraction(_new("scheduling_003", 2))),
    ("scheduling_003", 3): (_answer(_gold("scheduling_003", 3)), "No constraints here."),
    ("scheduling_003", 4): (_answer(_gold("scheduling_003", 4)), _extraction(_new("scheduling_003", 4))),
    # seating: consistent; drift (Jon/Cyd swapped violates left_of(Jon, Cyd) = C001 of a SAT ledger); no answer
    # (other); turn 4 extracts Jon at seat 1 and at seat 2: UNSAT, and the deletion MUS of C001..C005 is [C004, C005]
    ("seating_007", 1): (_answer(GOLD_SEAT), _extraction(_new("seating_007", 1))),
    ("seating_007", 2): (_answer(JON_CYD_SWAPPED), _extraction(_new("seating_007", 2))),
    ("seating_007", 3): ("Sorry, I cannot decide.", _extraction([])),
    ("seating_007", 4): (_answer(GOLD_SEAT), _extraction([{"type": "at_position", "args": ["Jon", 1]},
                                                          {"type": "at_position", "args": ["Jon", 2]}])),
}
# (problem, turn, correct, channel, ledger_sat, mus), hand-computed from the comments above
EXPECTED_EPOCH1 = [
    ("logic_grid_001", 1, True, "consistent", True, None),
    ("logic_grid_001", 2, False, "drift", True, None),
    ("logic_grid_001", 3, True, "contradiction", False, ["C005"]),
    ("logic_grid_001", 4, True, "contradiction", False, ["C005"]),
    *[("scheduling_003", t, True, "consistent", True, None) for t in (1, 2)],
    # the script's ledger leaves out the constraint turn 3 states (ledger sizes 4 -> 4 below), and never adds it: in
    # profile driftboard a ledger that cannot be checked against what the dialogue stated is unverifiable (issue 29)
    *[("scheduling_003", t, True, "unverifiable", True, None) for t in (3, 4)],
    ("seating_007", 1, True, "consistent", True, None),
    ("seating_007", 2, False, "drift", True, None),
    ("seating_007", 3, False, "other", True, None),
    ("seating_007", 4, True, "contradiction", False, ["C004", "C005"]),
]
EXPECTED_LEDGER_SIZES = {"logic_grid_001": [2, 4, 5, 7], "scheduling_003": [2, 4, 4, 6], "seating_007": [2, 3, 3, 5]}

_ENTITIES = {", ".join(_problem(pid)["entities"]): pid for pid in PROBLEMS}


def _which(text: str) -> str:
    m = re.search(r"Entities: ([^\n]*?)\.?$", text, re.MULTILINE)
    assert m is not None, text
    return _ENTITIES[m.group(1)]


def script(messages: list[Any], config: GenerateConfig) -> str:
    """The scripted model: (problem, turn, epoch) from the conversation and the seed, then the script's text."""
    epoch = (config.seed or SEED) - SEED + 1
    users = [m.text for m in messages if m.role == "user"]
    if messages[0].text == EXTRACTION_SYSTEM:
        pid, t = _which(users[0]), int(re.search(r"^Turn: (\d+)$", users[0], re.MULTILINE).group(1))
        return EPOCH1[(pid, t)][1] if epoch == 1 else _extraction(_new(pid, t))
    pid, t = _which(users[0]), len(users)
    return EPOCH1[(pid, t)][0] if epoch == 1 else _answer(_gold(pid, t))


@modelapi(name="driftboard-scripted")
class ScriptedAPI(ModelAPI):
    """A model provider that plays `script` (no network, usage always set)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        text = script(input, config)
        out = ModelOutput.from_content(model=self.model_name, content=text)
        out.usage = ModelUsage(input_tokens=sum(len(m.text) for m in input), output_tokens=len(text),
                               total_tokens=sum(len(m.text) for m in input) + len(text))
        return out


def inspect_eval(log_dir: Path, method: str, epochs: int, fmt: str, problems: tuple[str, ...] = PROBLEMS) -> Path:
    """`inspect eval driftboard/constraint ...` through Inspect's own command line, in process."""
    test_task_is_registered_as_driftboard_constraint()
    args = ["eval", "driftboard/constraint", "--model", "driftboard-scripted/v1", "-T", f"problems={SUITE}",
            "-T", f"method={method}", "-T", f"seed={SEED}", "--epochs", str(epochs), "--sample-id", ",".join(problems),
            "--log-dir", str(log_dir), "--log-format", fmt, "--display", "none", "--no-log-realtime"]
    res = CliRunner().invoke(inspect_cli, args, catch_exceptions=False)
    gc.collect()
    assert res.exit_code == 0, res.output
    logs = sorted(log_dir.glob(f"*.{fmt}"))
    assert len(logs) == 1, logs
    return logs[0]


@pytest.fixture(scope="module")
def ledger_log(tmp_path_factory, monkeypatch_module):
    d = tmp_path_factory.mktemp("inspect-ledger")
    monkeypatch_module.setenv("INSPECT_LOG_DIR", str(d))
    return inspect_eval(d, "ledger_only", 2, "eval")


@pytest.fixture(scope="module")
def direct_log(tmp_path_factory, monkeypatch_module):
    d = tmp_path_factory.mktemp("inspect-direct")
    monkeypatch_module.setenv("INSPECT_LOG_DIR", str(d))
    return inspect_eval(d, "direct", 1, "json", ("logic_grid_001", "seating_007"))


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _verify(run_line, out: Path, tmp: Path) -> dict[str, dict[str, Any]]:
    res = run_line(["verify", str(out), "--problems", str(SUITE), "--out", str(tmp / "results"), "--format", "json"])
    assert res.exit_code == 0, res.output
    return {r["seed"] + "|" + r["cell"]: r for r in json.loads(res.output)["submissions"][0]["runs"]}


def test_ledger_run_round_trip_matches_hand_computed_channels(ledger_log, tmp_path, run_line):
    out = tmp_path / "subs" / "scripted-inspect"
    res = run_line(["import", "inspect", str(ledger_log), "--problems", str(SUITE), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "samples: 6 read, 6 imported (6 in full), 0 not imported; 0 finding(s)" in res.output
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "driftboard-scripted-v1--ledger_only--epoch1.jsonl", "driftboard-scripted-v1--ledger_only--epoch2.jsonl"]
    assert run_line(["validate", str(out)]).exit_code == 0
    runs = _verify(run_line, out, tmp_path)
    cell = "driftboard-scripted/v1/ledger_only"
    one, two = runs[f"epoch1|{cell}"], runs[f"epoch2|{cell}"]
    assert one["verdict"] == two["verdict"] == "VALID"
    got = [(t["problem_id"], t["turn_number"], t["correct"], t["channel"], t["ledger_sat"], t["mus"]) for t in one["turns"]]
    assert got == EXPECTED_EPOCH1
    assert [t["answer_satisfies_ledger"] for t in one["turns"] if t["channel"] == "drift"] == [False, False]
    sizes: dict[str, list[int]] = {}
    for t in one["turns"]:
        sizes.setdefault(t["problem_id"], []).append(t["ledger_size"])
    assert sizes == EXPECTED_LEDGER_SIZES
    m = one["metrics"]
    assert (m["turns"], m["correct_turns"], m["consistent"], m["drift"], m["contradiction"], m["other"]) == (12, 9, 4, 2, 3, 1)
    assert m["turn_accuracy"] == 0.75 and m["problems_covered"] == 3
    assert {(t["correct"], t["channel"]) for t in two["turns"]} == {(True, "consistent")} and len(two["turns"]) == 12


def test_run_header_traces_back_to_the_inspect_log(ledger_log, tmp_path, run_line):
    from inspect_ai.log import read_eval_log

    out = tmp_path / "trace"
    assert run_line(["import", "inspect", str(ledger_log), "--problems", str(SUITE), "--out", str(out)]).exit_code == 0
    start = json.loads((out / "runs" / "driftboard-scripted-v1--ledger_only--epoch1.jsonl").read_text().splitlines()[0])
    log = read_eval_log(str(ledger_log), header_only=True)
    src = start["source"]
    assert src["importer"] == "inspect@1" and src["native_run_id"] == f"{log.eval.eval_id}/epoch1"
    assert src["files"] == {ledger_log.name: __import__("hashlib").sha256(ledger_log.read_bytes()).hexdigest()}
    details = src["details"]
    assert details["model"] == "driftboard-scripted/v1" and details["provider"] == "driftboard-scripted"
    assert details["inspect"]["eval_id"] == log.eval.eval_id and details["inspect"]["task_id"] == log.eval.task_id
    assert details["generate_config"]["temperature"] == 0.0 and details["generate_config"]["max_tokens"] == 2048
    assert set(details["sample_uuids"]) == set(PROBLEMS) and all(details["sample_uuids"].values())
    # usage = the scripted model's own counts, summed over the epoch's calls (main and extraction)
    assert details["usage"]["output_tokens"] == sum(len(a) + len(e) for (p, t), (a, e) in EPOCH1.items())
    assert (start["cell"], start["seed"], start["backbone"], start["method"]) == (
        "driftboard-scripted/v1/ledger_only", "epoch1", "driftboard-scripted/v1", "ledger_only")


def test_json_log_of_a_method_without_ledger(direct_log, tmp_path, run_line):
    out = tmp_path / "direct-json"
    res = run_line(["import", "inspect", str(direct_log), "--problems", str(SUITE), "--out", str(out)])
    assert res.exit_code == 0, res.output
    runs = _verify(run_line, out, tmp_path)
    (run,) = runs.values()
    # the same epoch-1 answers: logic grid right, wrong (two Reds), right, right; seating right, wrong, none, right
    assert [(t["problem_id"], t["correct"], t["channel"], t["ledger_size"]) for t in run["turns"]] == [
        *[("logic_grid_001", c, None, None) for c in (True, False, True, True)],
        *[("seating_007", c, None, None) for c in (True, False, False, True)]]
    # tokens from the log's turns (the provider's usage as Inspect recorded it): the scripted model counts one output
    # token per character of its answer, so Σ tokens_out is the answers' length; direct asks no extraction call
    m = run["metrics"]
    answers = sum(len(a) for (p, _t), (a, _e) in EPOCH1.items() if p in ("logic_grid_001", "seating_007"))
    assert m["llm_output_tokens"] == answers and m["llm_input_tokens"] > 0
    assert m["llm_tokens"] == m["llm_input_tokens"] + m["llm_output_tokens"]


def test_importing_twice_is_byte_identical(ledger_log, direct_log, tmp_path, run_line):
    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    a, b = tmp_path / "a" / "twice", tmp_path / "b" / "twice"
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    shutil.copy(ledger_log, copy / ledger_log.name)
    shutil.copy(direct_log, copy / direct_log.name)
    assert run_line(["import", "inspect", str(ledger_log), str(direct_log), "--problems", str(SUITE),
                     "--out", str(a)]).exit_code == 0
    assert run_line(["import", "inspect", str(copy / direct_log.name), str(copy / ledger_log.name),
                     "--problems", str(SUITE), "--out", str(b)]).exit_code == 0
    assert files(a) == files(b) and len(files(a)) == 5  # prereg, manifest, 3 runs


def test_existing_prereg_is_kept_and_used(ledger_log, tmp_path, run_line):
    out = tmp_path / "pre"
    out.mkdir()
    prereg = ("format_version: '1.0'\nsubmission_id: pre\ntrack: constraint\nprofile: drift-bench-v1\ncells:\n"
              "  driftboard-scripted/v1/ledger_only:\n    seeds: [epoch1, epoch2]\n"
              "problem_set: cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0\n")
    (out / "prereg.yaml").write_text(prereg, encoding="utf-8")
    res = run_line(["import", "inspect", str(ledger_log), "--problems", str(SUITE), "--out", str(out)])
    assert res.exit_code == 0 and "the existing prereg.yaml was kept" in res.output
    assert (out / "prereg.yaml").read_text(encoding="utf-8") == prereg
    start = json.loads((out / "runs" / "driftboard-scripted-v1--ledger_only--epoch2.jsonl").read_text().splitlines()[0])
    assert start["prereg_sha256"] == __import__("hashlib").sha256(prereg.encode()).hexdigest()


def test_tampered_prompt_makes_the_run_invalid(direct_log, tmp_path, run_line):
    """A log whose turn-2 prompt carries other constraints than the set's: the turn is kept as sent, verify says INVALID."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(direct_log), resolve_attachments=True)
    log.samples = [s for s in log.samples if s.id == "seating_007"]
    calls = [e for e in log.samples[0].events if e.event == "model"]
    assert "Hal must sit next to Bea." in calls[1].input[-1].text
    calls[1].input[-1].content = calls[1].input[-1].text.replace("Hal must sit next to Bea.", "Hal must sit next to Ned.")
    forged = tmp_path / "forged.json"
    write_eval_log(log, str(forged), format="json")
    out = tmp_path / "forged-sub"
    res = run_line(["import", "inspect", str(forged), "--problems", str(SUITE), "--out", str(out)])
    assert res.exit_code == 1
    assert "sample 'seating_007' epoch 1: turn 2: the model was not sent the protocol's conversation" in res.output
    assert "2 of 4 turns imported" in res.output
    res = run_line(["verify", str(out), "--problems", str(SUITE), "--out", str(tmp_path / "r"), "--format", "json"])
    (run,) = json.loads(res.output)["submissions"][0]["runs"]
    assert run["verdict"] == "INVALID" and any("asked something else" in r for r in run["reasons"])


def test_other_task_and_errored_samples_are_reported(direct_log, tmp_path, run_line):
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    log = read_eval_log(str(direct_log), resolve_attachments=True)
    # seating_007 crashed after its first call: keep one model event and mark the sample errored
    sample = next(s for s in log.samples if s.id == "seating_007")
    first = next(i for i, e in enumerate(sample.events) if e.event == "model")
    sample.events = [e for i, e in enumerate(sample.events) if e.event != "model" or i == first]
    sample.messages = sample.messages[:3]
    sample.error = EvalError(message="RateLimitError: too many requests", traceback="", traceback_ansi="")
    errored = tmp_path / "errored.json"
    write_eval_log(log, str(errored), format="json")
    other = log.model_copy(deep=True)
    other.eval.task = other.eval.task_registry_name = "someone/else"
    elsewhere = tmp_path / "other-task.json"
    write_eval_log(other, str(elsewhere), format="json")
    out = tmp_path / "reported"
    res = run_line(["import", "inspect", str(errored), str(elsewhere), "--problems", str(SUITE), "--out", str(out)])
    assert res.exit_code == 1
    assert "other-task.json: log of task 'someone/else', not driftboard/constraint: skipped (2 sample(s))" in res.output
    assert ("errored.json: sample 'seating_007' epoch 1: error: RateLimitError: too many requests; 1 of 4 turns "
            "imported") in res.output
    assert "samples: 4 read, 2 imported (1 in full), 2 not imported; 2 finding(s)" in res.output
    (run_file,) = (out / "runs").iterdir()
    end = json.loads(run_file.read_text().splitlines()[-1])
    assert end["status"] == "FAILED" and "seating_007: error: RateLimitError" in end["reason"]
    runs = _verify(run_line, out, tmp_path)
    (run,) = runs.values()
    assert run["metrics"]["turns"] == 5 and run["metrics"]["problems_covered"] == 2


def test_bad_input_is_exit_2_without_traceback(tmp_path, run_line):
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip")
    res = run_line(["import", "inspect", str(junk), "--problems", str(SUITE), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "junk.eval: cannot read as an Inspect eval log" in res.output
    res = run_line(["import", "inspect", str(tmp_path / "absent.eval"), "--problems", str(SUITE), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "absent.eval: no such file" in res.output


def test_task_is_registered_as_driftboard_constraint():
    from inspect_ai._util.registry import registry_info

    # the name is right whether Inspect sees the package as installed (it adds the prefix) or not (the egg-info
    # of an editable install in the checkout, first on the path under `python -m pytest`, hides the metadata)
    assert registry_info(driftboard._registry.constraint).name == "driftboard/constraint"


def test_entry_point_is_declared():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["inspect_ai"] == {"driftboard": "driftboard._registry"}
    assert any(d.startswith("inspect-ai") for d in project["project"]["optional-dependencies"]["inspect"])
    eps = {ep.name: ep.value for ep in metadata.entry_points(group="inspect_ai")}
    if "driftboard" not in eps:
        pytest.skip("the installed driftboard metadata predates the entry point; reinstall (make test does)")
    assert eps["driftboard"] == "driftboard._registry"


def test_unfinished_eval_gives_incomplete_runs_and_a_failed_eval_failed_ones(direct_log, tmp_path, run_line):
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    log = read_eval_log(str(direct_log), resolve_attachments=True)
    log.status = "cancelled"
    write_eval_log(log, str(tmp_path / "cancelled.json"), format="json")
    log.status, log.error = "error", EvalError(message="APIConnectionError: gone\nmore", traceback="", traceback_ansi="")
    write_eval_log(log, str(tmp_path / "failed.json"), format="json")
    ends = {}
    for name in ("cancelled", "failed"):
        out = tmp_path / f"sub-{name}"
        res = run_line(["import", "inspect", str(tmp_path / f"{name}.json"), "--problems", str(SUITE), "--out", str(out)])
        assert res.exit_code == 0, res.output
        (run_file,) = (out / "runs").iterdir()
        ends[name] = json.loads(run_file.read_text().splitlines()[-1])
        res = run_line(["verify", str(out), "--problems", str(SUITE), "--out", str(tmp_path / f"r-{name}"), "--format", "json"])
        (run,) = json.loads(res.output)["submissions"][0]["runs"]
        ends[name]["verdict"] = run["verdict"]
    assert ends["cancelled"]["type"] == "turn" and ends["cancelled"]["verdict"] == "INCOMPLETE"
    assert (ends["failed"]["type"], ends["failed"]["status"], ends["failed"]["reason"]) == (
        "run_end", "FAILED", "the eval stopped on an error: APIConnectionError: gone")


def test_logs_of_another_problem_set_or_protocol_are_skipped(direct_log, tmp_path, run_line):
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(direct_log), resolve_attachments=True)
    other_set = log.model_copy(deep=True)
    other_set.eval.metadata["driftboard"]["problem_set"] = {"name": "elsewhere", "digest": "0" * 64}
    write_eval_log(other_set, str(tmp_path / "other-set.json"), format="json")
    old = log.model_copy(deep=True)
    old.eval.metadata["driftboard"]["protocol_version"] = "0"
    write_eval_log(old, str(tmp_path / "old.json"), format="json")
    res = run_line(["import", "inspect", str(tmp_path / "other-set.json"), str(tmp_path / "old.json"),
                    "--problems", str(SUITE), "--out", str(tmp_path / "none")])
    assert res.exit_code == 2 and "nothing to import" in res.output
    assert f"other-set.json: the eval used problem set 'elsewhere' (digest {'0' * 64}), which --problems" in res.output
    assert "old.json: protocol version '0' / method 'direct': this checker imports version '1'" in res.output
    assert not (tmp_path / "none").exists()


def test_mangled_logs_never_give_a_traceback(direct_log, tmp_path_factory):
    """Any byte-level damage to a log: exit 0, 1 or 2 with a message, never an exception (CliRunner re-raises)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from checker.cli.main import cli

    data = direct_log.read_bytes()

    @settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(start=st.integers(0, len(data) - 1), length=st.integers(0, 64), junk=st.binary(max_size=16))
    def check(start: int, length: int, junk: bytes) -> None:
        d = tmp_path_factory.mktemp("mangled")
        (d / "log.json").write_bytes(data[:start] + junk + data[start + length:])
        res = CliRunner().invoke(cli, ["import", "inspect", str(d / "log.json"), "--problems", str(SUITE),
                                       "--out", str(d / "out")], catch_exceptions=False)
        assert res.exit_code in (0, 1, 2) and "Traceback" not in res.output

    check()
