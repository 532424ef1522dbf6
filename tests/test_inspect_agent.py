"""The agent track through Inspect AI: `inspect eval driftboard/agent` -> `driftboard import inspect` -> validate -> verify.

No network: the model is the package's scripted model (`--model driftboard/scripted -M behaviour=...`).
The fixture game is `w202` (world seed 202) for 20 actions. Its layout, as the micro-world draws
it (asserted below): board R0001 (14x14 at (7,8)), tray R0002, ring R0003, decoy1 R0004 at
(15,19)-(15,20), lamp R0005 at (0,0), decoy2 R0006 at (13,8)-(13,9), decoy3 R0007 at
(17,10)-(17,12), key R0008 at (19,8)-(19,9), switch R0009 at (7,20)-(8,21) (ids in minting
order). The key jumps when clicked and every 11th beat, to K1 (10,8)-(10,9), K2 (19,13)-(19,14),
K3 (20,17)-(20,18), K4 (20,15)-(20,16), K5 (20,19)-(20,20) in turn. Two key presses, then the
switch, complete level 1; the switch pressed earlier resets the count.

Hand computation (`follow`; the Surveyor runs at beats 1, 9, 17; a step is consumed when its click
lands on its target, and a step substituted twice is blocked with the rest of its commitment):

* FULL: beat 1 plans probes on the two least-tried smallest referents, lamp and decoy1 (beats 1,
  2: aligned). Beats 3-8 explore colour `beat mod 9` of [2,3,4,5,6,7,8,9,a]: decoy2, decoy3, ring,
  board, tray, lamp (nothing happens). Beat 9 plans probes on the untried key and switch: beat 9
  presses the key (score 1, key -> K1), beat 10 the switch (count reset): aligned. Beat 11 explores
  decoy1 and the key drifts to K2; beats 12-16 explore. Beat 17 reads the score at beat 9: rule
  "key scores", goal "raise the score", the level goal; plan: key, key, then the least-tried other
  referent (the switch, tried once). Beat 17 presses the key at K2 (-> K3), beat 18 at K3 (join:
  its current cells; -> K4), beat 19 the switch: level 1. 7 reference beats, all aligned.
* J0: the same plans, but beat 18 clicks the key's compiled cells (19,13), where the board now
  is: bind, substitution; beat 19 the same step again: bind, blocked. 7 reference beats: 5
  aligned, 2 bind; no level.
* A0 (no plan; every beat the model's, the shadow step stamped): beats 1-16 explore (beat 1: the
  switch; beat 9: the key, score -> K1; beat 10: switch; beat 11: decoy1, drift -> K2), no shadow
  step before the rule. From beat 17 the shadow step is "key" and the model clicks the key's
  bounding-box corner at K2, K3, K4, K5: 4 shadow reference beats, aligned.
* A0 `abandon`: the same until beat 17, then it waits (ACTION5) on beats 17-20: 4 abandon.
* A0 `bind`: from beat 17 it clicks the row after the key in Z6, the switch: 4 bind.
* FULL `bind`: each live step clicks the row after its target (lamp -> decoy2 at beats 1 and 2,
  blocked; then decoy1 and the key are the least-tried: decoy1 -> lamp at 9 and 10; the key,
  never pressed, drifts to K1 at 11; the plan of beat 17 is key and switch: key -> switch at
  17 and 18): 6 reference beats, 6 bind.
* FULL `abandon`: it answers every live step with ACTION5; each is rejected, re-prompted, rejected
  again, and clicked at the target's rounded centroid (FALLBACK), which lands on it: the plan of
  FULL `follow` is executed, 7 reference beats aligned, 0 abandon (commitment repair), and the
  Actuator's write-error rate is 14 rejects / (14 + 13 free beats) = 0.519: INVALID.
* J0A0: the Surveyor can name no referent (no bound rows, no plan), so no rule and no shadow
  step: no reference beat (GDS undefined).
"""

from __future__ import annotations

import gc
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[test,inspect]' (make test does)")

from click.testing import CliRunner
from inspect_ai import eval as inspect_eval
from inspect_ai._cli.main import inspect as inspect_cli

import driftboard._registry
from checker.harness.baselines.microworld import MicroWorld, StepOutcome
from checker.harness.inspect_task.agent_protocol import ACTUATOR_FREE_SYSTEM, ACTUATOR_STEP_SYSTEM, CONDITIONS

pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in. <function MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]
GAME, HORIZON = "w202", 20
SEED = f"{GAME}-epoch1"

# (behaviour, condition) -> (reference beats, bind, aligned, abandon), from the module docstring
EXPECTED_GDS = {
    ("follow", "FULL"): (7, 0, 7, 0),
    ("follow", "J0"): (7, 2, 5, 0),
    ("follow", "A0"): (4, 0, 4, 0),
    ("follow", "J0A0"): (0, 0, 0, 0),
    ("abandon", "A0"): (4, 0, 0, 4),
    ("bind", "A0"): (4, 4, 0, 0),
    ("bind", "FULL"): (6, 6, 0, 0),
    ("abandon", "FULL"): (7, 0, 7, 0),
}
RUNS = {"follow": tuple(CONDITIONS), "bind": ("FULL", "A0"), "abandon": ("FULL", "A0")}


def test_fixture_game_is_the_one_computed_by_hand():
    world = MicroWorld(202)
    layout = {o.role if o.role != "decoy" else o.oid[3:]: (min(o.cells), max(o.cells)) for o in world.objects.values()}
    assert layout == {"board": ((7, 8), (20, 21)), "tray": ((11, 15), (16, 20)), "ring": ((12, 16), (14, 18)),
                      "decoy1": ((15, 19), (15, 20)), "lamp": ((0, 0), (0, 0)), "decoy2": ((13, 8), (13, 9)),
                      "decoy3": ((17, 10), (17, 12)), "key": ((19, 8), (19, 9)), "switch": ((7, 20), (8, 21))}
    jumps = []
    for _ in range(5):
        world._move_key(StepOutcome(None, 0))
        jumps.append(sorted(world.by_role("key").cells))
    assert jumps == [[(10, 8), (10, 9)], [(19, 13), (19, 14)], [(20, 17), (20, 18)], [(20, 15), (20, 16)],
                     [(20, 19), (20, 20)]]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, dict[str, Path]]:
    """behaviour -> condition -> its log, from one Python-API eval per behaviour (all its conditions at once)."""
    out: dict[str, dict[str, Path]] = {}
    for behaviour, conditions in RUNS.items():
        d = tmp_path_factory.mktemp(f"agent-{behaviour}")
        tasks = [driftboard._registry.agent(condition=c, games=GAME, horizon=HORIZON) for c in conditions]
        results = inspect_eval(tasks, model="driftboard/scripted", model_args={"behaviour": behaviour}, log_dir=str(d),
                               display="none", log_realtime=False, log_format="json" if behaviour == "bind" else "eval")
        gc.collect()
        assert all(r.status == "success" for r in results)
        out[behaviour] = {r.eval.task_args["condition"]: Path(r.location) for r in results}
    return out


def _import(run_line, logs: list[Path], out: Path) -> Any:
    res = run_line(["import", "inspect", *map(str, logs), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return res


def _verify(run_line, sub: Path, results: Path) -> dict[str, Any]:
    res = run_line(["verify", str(sub), "--out", str(results), "--format", "json"])
    assert res.exit_code == 0, res.output
    return {r["cell"]: r for r in json.loads(res.output)["submissions"][0]["runs"]}


@pytest.fixture(scope="module")
def verified(logs, tmp_path_factory) -> dict[tuple[str, str], dict[str, Any]]:
    """(behaviour, condition) -> the verified run: each behaviour's logs imported into one submission."""
    runner = CliRunner()
    from checker.cli.main import cli

    def run_line(args: list[str]) -> Any:
        return runner.invoke(cli, args, catch_exceptions=False)

    out: dict[tuple[str, str], dict[str, Any]] = {}
    for behaviour, by_condition in logs.items():
        d = tmp_path_factory.mktemp(f"sub-{behaviour}")
        sub = d / f"scripted-{behaviour}"
        _import(run_line, list(by_condition.values()), sub)
        assert run_line(["validate", str(sub)]).exit_code == 0
        for cell, run in _verify(run_line, sub, d / "results").items():
            out[(behaviour, cell)] = run
        results = json.loads((d / "results" / f"scripted-{behaviour}.json").read_text())
        assert (results["profile"], results["ranked"], results["unranked_reason"]) == ("driftboard", True, None)
    return out


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_every_condition_imports_validates_and_verifies(verified, condition):
    run = verified[("follow", condition)]
    assert run["seed"] == SEED and run["end_status"] == "COMPLETED"
    if condition == "BARE":
        assert run["verdict"] == "COMPARATOR" and run["comparator"] is True
        assert run["metrics"]["llm_calls"] == HORIZON  # one call per action
    else:
        assert run["verdict"] == "VALID", run["reasons"]
        assert run["mismatches"] == []


@pytest.mark.parametrize(("behaviour", "condition"), sorted(EXPECTED_GDS))
def test_hand_computed_gds(verified, behaviour, condition):
    gds = verified[(behaviour, condition)]["gds"]
    assert (gds["reference_beats"], gds["bind"], gds["aligned"], gds["abandon"]) == EXPECTED_GDS[(behaviour, condition)]
    assert gds["live"] == (gds["reference_beats"] if condition in ("FULL", "J0") else 0)


def test_hand_computed_levels_and_the_invalid_abandoning_actuator(verified):
    assert verified[("follow", "FULL")]["metrics"]["completions"] == 1  # the switch at beat 19
    assert verified[("follow", "J0")]["metrics"]["completions"] == 0
    assert verified[("follow", "J0A0")]["metrics"]["gds_bind"] is None  # no reference beat: undefined
    run = verified[("abandon", "FULL")]
    assert run["verdict"] == "INVALID"
    assert run["reasons"] == ["write-error rate above 0.25 (min ops 5): ACTUATOR 14/27 = 0.519"]
    assert run["metrics"]["decision_mix"] == {"ACTUATOR_LLM": 13, "FALLBACK": 7, "RESET": 1}
    # model calls of FULL/follow: Observer at beats 0, 10, 12, 18, 19, 20 (something moved), Surveyor at 1, 9, 17,
    # Actuator once per beat
    assert verified[("follow", "FULL")]["metrics"]["llm_calls"] == 6 + 3 + HORIZON


def _model_calls(log: Path) -> list[Any]:
    from inspect_ai.log import read_eval_log

    (sample,) = read_eval_log(str(log), resolve_attachments=True).samples
    return [e for e in sample.events if e.event == "model"]


def test_ablations_show_in_the_log(logs, verified, tmp_path):
    follow = logs["follow"]
    prompts = {c: [(e.input[0].text, e.input[-1].text) for e in _model_calls(follow[c])] for c in ("FULL", "J0", "A0")}
    full_steps = [u for s, u in prompts["FULL"] if s == ACTUATOR_STEP_SYSTEM]
    j0_steps = [u for s, u in prompts["J0"] if s == ACTUATOR_STEP_SYSTEM]
    assert len(full_steps) == len(j0_steps) == 7
    # FULL: every live step carries the working-set join line and the bound-referent rows; J0: neither
    assert all("\njoin R" in u and "[Z6]" in u for u in full_steps)
    assert not any("\njoin " in u for _, u in prompts["J0"])
    assert not any("[Z6]" in u for s, u in prompts["J0"] if s in (ACTUATOR_STEP_SYSTEM, ACTUATOR_FREE_SYSTEM))
    # A0: no plan step is ever shown or executed, and every beat carries the shadow step once a rule exists
    assert not any(s == ACTUATOR_STEP_SYSTEM for s, _ in prompts["A0"])
    run = verified[("follow", "A0")]
    assert run["metrics"]["decision_mix"] == {"ACTUATOR_LLM": HORIZON, "RESET": 1}
    sub = tmp_path / "a0"
    from checker.cli.main import cli

    assert CliRunner().invoke(cli, ["import", "inspect", str(follow["A0"]), "--out", str(sub)]).exit_code == 0
    beats = [json.loads(line) for line in (sub / "runs" / f"a0--{GAME}--epoch1.jsonl").read_text().splitlines()
             if '"type":"beat"' in line]
    shadows = {b["turn"]: b.get("shadow_step_id") for b in beats if b["turn"]}
    assert all(b["drift_ref"] == "SHADOW" and b.get("step_id") is None for b in beats)
    assert [t for t, s in shadows.items() if s] == [17, 18, 19, 20]
    assert shadows[17] == "G0002|ACTION6|R0008|RU0001"


def test_run_header_traces_back_to_the_log(logs, tmp_path, run_line):
    from inspect_ai.log import read_eval_log

    log = logs["follow"]["J0"]
    sub = tmp_path / "trace"
    _import(run_line, [log], sub)
    start = json.loads((sub / "runs" / f"j0--{GAME}--epoch1.jsonl").read_text().splitlines()[0])
    header = read_eval_log(str(log), header_only=True)
    src = start["source"]
    assert src["importer"] == "inspect-agent@1"
    assert src["files"] == {log.name: hashlib.sha256(log.read_bytes()).hexdigest()}
    assert src["native_run_id"] == f"{header.eval.eval_id}/{GAME}/epoch1"
    d = src["details"]
    assert d["inspect"]["inspect_ai"] == header.eval.packages["inspect_ai"]
    assert d["inspect"]["task"] == "driftboard/agent"
    assert d["inspect"]["task_args"] == {"condition": "J0", "games": GAME, "horizon": HORIZON}
    assert d["model"] == "driftboard/scripted" and d["model_args"] == {"behaviour": "follow"}
    assert d["task_parameters"]["condition"] == "J0" and d["task_parameters"]["protocol_version"] == "1"
    assert d["model_calls"] == d["model_calls_replayed"] == 27 and d["sample_uuid"]
    assert (start["cell"], start["seed"], start["backbone"], start["flags"], start["horizon"]) == (
        "J0", SEED, "driftboard/scripted", {"ARG_JOIN": "0"}, HORIZON)
    prereg = (sub / "prereg.yaml").read_text()
    assert "written_after_runs: true" in prereg and "profile: driftboard" in prereg


def test_importing_twice_in_any_order_is_byte_identical(logs, tmp_path, run_line):
    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    paths = list(logs["follow"].values())
    _import(run_line, paths, tmp_path / "a" / "twice")
    _import(run_line, paths[::-1], tmp_path / "b" / "twice")
    assert files(tmp_path / "a" / "twice") == files(tmp_path / "b" / "twice")


def test_a_tampered_prompt_stops_the_replay(logs, tmp_path, run_line):
    """A log whose recorded prompt is not the harness's (here: another frame) keeps the beats before it; INCOMPLETE."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(logs["follow"]["FULL"]), resolve_attachments=True)
    calls = [e for e in log.samples[0].events if e.event == "model"]
    steps = [e for e in calls if e.input[0].text == ACTUATOR_STEP_SYSTEM]
    beat9 = steps[2]  # the key press of beat 9
    assert "beat 9/20" in beat9.input[-1].text
    beat9.input[-1].content = beat9.input[-1].text.replace("[Z2]\n", "[Z2]\n0", 1)
    forged = tmp_path / "forged.json"
    write_eval_log(log, str(forged), format="json")
    sub = tmp_path / "forged-sub"
    res = run_line(["import", "inspect", str(forged), "--out", str(sub)])
    assert res.exit_code == 1
    assert "replay stopped at beat 9 of 20: model call" in res.output and "8 beat(s) imported" in res.output
    run = _verify(run_line, sub, tmp_path / "r")["FULL"]
    assert run["verdict"] == "INCOMPLETE" and run["end_status"] == "FAILED"
    assert max(b["turn"] for b in _beats(sub, "full")) == 8


def _beats(sub: Path, cond: str) -> list[dict[str, Any]]:
    (path,) = (sub / "runs").glob(f"{cond}--*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if '"type":"beat"' in line]


def test_model_outputs_choose_actions_never_evidence(logs, tmp_path, run_line):
    """An output that claims a landing and a score changes nothing: landings, receipts and levels are the harness's."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(logs["follow"]["FULL"]), resolve_attachments=True)
    calls = [e for e in log.samples[0].events if e.event == "model"]
    last = calls[-1]  # the free beat 20
    assert last.input[0].text == ACTUATOR_FREE_SYSTEM
    claim = "CLICK 23 23\nlanded on R0008, score+1, level+1, target_ref R0008, canary echoed, milestone reached"
    last.output.choices[0].message.content = last.output.completion = claim
    forged = tmp_path / "claims.json"
    write_eval_log(log, str(forged), format="json")
    sub = tmp_path / "claims-sub"
    _import(run_line, [forged], sub)
    beat20 = _beats(sub, "full")[-1]
    assert (beat20["turn"], beat20["params"], beat20.get("target_ref"), beat20["score"], beat20["level_counter"]) == (
        20, {"x": 23, "y": 23}, None, 3, 1)  # the background: no landing; score and level unchanged


def test_unreadable_replies_are_organ_failures_not_crashes(tmp_path, run_line):
    results = inspect_eval([driftboard._registry.agent(condition="FULL", games=GAME, horizon=10)], model="driftboard/scripted",
                           model_args={"behaviour": "mute"}, log_dir=str(tmp_path / "logs"), display="none",
                           log_realtime=False)
    gc.collect()
    sub = tmp_path / "mute"
    _import(run_line, [Path(results[0].location)], sub)
    run = _verify(run_line, sub, tmp_path / "r")["FULL"]
    assert run["end_status"] == "COMPLETED" and run["verdict"] == "INVALID"
    rejects = [json.loads(line) for line in (sub / "runs" / f"full--{GAME}--epoch1.jsonl").read_text().splitlines()
               if '"type":"write_reject"' in line]
    assert {(r["organ"], r["violation_class"]) for r in rejects} == {
        ("OBSERVER", "OUT_OF_SCHEMA"), ("SURVEYOR", "OUT_OF_SCHEMA"), ("SURVEYOR", "MISSING_CANARY"),
        ("ACTUATOR", "OUT_OF_SCHEMA")}
    assert run["metrics"]["decision_mix"] == {"FALLBACK": 4, "PROBE": 6, "RESET": 1}


def test_epochs_are_seeds_and_a_deterministic_replay_of_one_world_is_never_counted_twice(tmp_path, run_line):
    """Two epochs of the deterministic scripted model in one world are seeds of one cell. They play nearly the same
    run: fresh canary nonces no longer keep them apart (issue 29, principle 6, nonces blanked), and their estimated
    event similarity sits at the near-copy threshold (0.9), so either both are flagged as near-copies of each other
    (exit 1, the second counts once) or neither is; never one alone. A real model at a non-zero temperature, or one
    world per seed, gives runs far from the threshold."""
    args = ["eval", "driftboard/agent", "--model", "driftboard/scripted", "-T", "condition=A0", "-T", f"games={GAME}",
            "-T", "horizon=12", "--epochs", "2", "--log-dir", str(tmp_path / "logs"), "--display", "none",
            "--no-log-realtime"]
    res = CliRunner().invoke(inspect_cli, args, catch_exceptions=False)
    gc.collect()
    assert res.exit_code == 0, res.output
    sub = tmp_path / "epochs"
    _import(run_line, list((tmp_path / "logs").glob("*.eval")), sub)
    res = run_line(["verify", str(sub), "--out", str(tmp_path / "r"), "--format", "json"])
    doc = json.loads(res.output)
    runs = doc["submissions"][0]["runs"]
    assert sorted(r["seed"] for r in runs) == [f"{GAME}-epoch1", f"{GAME}-epoch2"]
    flagged = {p["path"].rsplit("/", 1)[-1] for p in doc["problems"] if "near-copies are copies" in p["message"]}
    assert flagged in (set(), {f"a0--{GAME}--epoch1.jsonl", f"a0--{GAME}--epoch2.jsonl"}), doc["problems"]
    assert res.exit_code == (1 if flagged else 0), res.output
    assert doc["problems"] == [] or flagged


def test_the_scripted_model_answers_the_constraint_task_too(tmp_path, run_line):
    suite = REPO / "problems" / "driftboard-suite-v1"
    args = ["eval", "driftboard/constraint", "--model", "driftboard/scripted", "-T", f"problems={suite}", "-T",
            "method=ledger_only", "--sample-id", "seating_007,logic_grid_001", "--log-dir", str(tmp_path / "logs"),
            "--display", "none", "--no-log-realtime"]
    res = CliRunner().invoke(inspect_cli, args, catch_exceptions=False)
    gc.collect()
    assert res.exit_code == 0, res.output
    sub = tmp_path / "constraint-scripted"
    res = run_line(["import", "inspect", *map(str, (tmp_path / "logs").glob("*.eval")), "--problems", str(suite),
                    "--out", str(sub)])
    assert res.exit_code == 0, res.output
    res = run_line(["verify", str(sub), "--problems", str(suite), "--out", str(tmp_path / "r"), "--format", "json"])
    (run,) = json.loads(res.output)["submissions"][0]["runs"]
    assert run["verdict"] == "VALID" and run["metrics"]["turns"] == 8


def test_logs_of_both_tracks_are_refused_together(logs, tmp_path, run_line):
    res = run_line(["import", "inspect", str(logs["follow"]["FULL"]), "--out", str(tmp_path / "x")])
    assert res.exit_code == 0
    junk = tmp_path / "constraint.json"
    from inspect_ai.log import read_eval_log, write_eval_log

    other = read_eval_log(str(logs["follow"]["FULL"]), resolve_attachments=True)
    other.eval.task = other.eval.task_registry_name = "driftboard/constraint"
    write_eval_log(other, str(junk), format="json")
    res = run_line(["import", "inspect", str(logs["follow"]["FULL"]), str(junk), "--out", str(tmp_path / "y")])
    assert res.exit_code == 2 and "import each track into its own submission" in res.output


def test_task_and_model_are_registered():
    from inspect_ai._util.registry import registry_info

    assert registry_info(driftboard._registry.agent).name == "driftboard/agent"
    from inspect_ai.model import get_model

    assert str(get_model("driftboard/scripted", behaviour="bind")) == "driftboard/scripted"


@pytest.mark.parametrize(("text", "expected"), [
    ("CLICK 19 13 R0008", ("ACTION6", 19, 13, "R0008")),
    ("I would not ACTION5 here.\nCLICK (19, 13) R0008", ("ACTION6", 19, 13, "R0008")),  # the last action counts
    ("**`CLICK 3,7`**", ("ACTION6", 3, 7, None)),
    ("ACTION6 3 7", ("ACTION6", 3, 7, None)),
    ("CLICK 3 7\nno, rather ACTION2", ("ACTION2", None, None, None)),
    ("click -1 5 r0004", ("ACTION6", -1, 5, "R0004")),  # read as written; the harness rejects it (outside the grid)
    ("I am not sure.", None),
])
def test_actions_are_read_from_the_last_action_line(text, expected):
    from checker.harness.inspect_task.agent_protocol import parse_action

    assert parse_action(text) == expected


def test_observer_and_surveyor_replies_are_read_line_by_line():
    from checker.harness.inspect_task.agent_protocol import parse_bindings, parse_survey

    assert parse_bindings("c1: R0008\nc2 -> new\nc1 = R0009\nc7 R0001", ["c1", "c2", "c3"]) == {"c1": "R0009", "c2": "NEW"}
    assert parse_survey("- RULE R0008 score\n2. GOAL level\nRANK R0005\nRULE the key scores\nACK ZQ1") == [
        ("PROPOSE_RULE", "R0008", "score"), ("PROPOSE_GOAL", "level", ""), ("RANK_TIEBREAK", "R0005", ""),
        ("PARSE", "RULE the key scores", "")]
    assert parse_survey("NONE\nACK ZQ1") == [] and parse_survey("no idea") is None


def test_an_errored_sample_keeps_its_finished_beats_and_a_cancelled_eval_gives_no_run_end(logs, tmp_path, run_line):
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    log = read_eval_log(str(logs["follow"]["A0"]), resolve_attachments=True)
    sample = log.samples[0]
    calls = [i for i, e in enumerate(sample.events) if e.event == "model"]
    # A0's calls: Observer at beat 0, Surveyor 1, Actuator 1..8, Surveyor 9, Actuator 9, then the Observer of beat 10
    # (the key jumped at beat 9): cut there
    cut = calls[12]
    assert sample.events[cut].input[-1].text.startswith("[Z1]\nbeat 10\n")
    sample.events = sample.events[:cut]
    sample.error = EvalError(message="RateLimitError: too many requests\nmore", traceback="", traceback_ansi="")
    write_eval_log(log, str(tmp_path / "errored.json"), format="json")
    sub = tmp_path / "errored-sub"
    res = run_line(["import", "inspect", str(tmp_path / "errored.json"), "--out", str(sub)])
    assert res.exit_code == 1
    assert "error: RateLimitError: too many requests; replay stopped at beat 10 of 20: no model call left" in res.output
    assert max(b["turn"] for b in _beats(sub, "a0")) == 9
    assert _verify(run_line, sub, tmp_path / "r")["A0"]["verdict"] == "INCOMPLETE"

    log = read_eval_log(str(logs["follow"]["A0"]), resolve_attachments=True)
    log.status = "cancelled"
    write_eval_log(log, str(tmp_path / "cancelled.json"), format="json")
    sub = tmp_path / "cancelled-sub"
    _import(run_line, [tmp_path / "cancelled.json"], sub)
    (path,) = (sub / "runs").iterdir()
    assert json.loads(path.read_text().splitlines()[-1])["type"] != "run_end"
    assert _verify(run_line, sub, tmp_path / "r2")["A0"]["verdict"] == "INCOMPLETE"
