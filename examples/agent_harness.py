"""Example agent-track harness: a plan-following agent in a toy grid world, logged with `RunLogWriter`.

It writes a complete submission folder (`prereg.yaml`, `submission.yaml`, `runs/*.jsonl`) that
`driftboard validate` and `driftboard verify` accept as it stands:

    python examples/agent_harness.py --out /tmp/subs
    driftboard validate /tmp/subs/example-agent
    driftboard verify /tmp/subs/example-agent

The world (`ButtonWorld`) is an 8x8 grid with a button and a lamp; clicking the button completes
a level and moves the button. Each beat the harness binds what it sees to referents, compiles a
one-step plan ("click the button") when none is open, renders the Actuator's view, asks the
model for a click and executes it. The model is pluggable: any function `model(prompt) -> str`
returning a JSON reply such as `{"action": "ACTION6", "x": 3, "y": 5, "canary": "ZQ..."}`. The one
used here, `ScriptedModel`, needs no network: it remembers where it first saw each referent and
refreshes that memory only every few calls, so after the button moves it sometimes clicks where
the button was: aimed at the plan's target, landed elsewhere (*bind* drift), which the checker
recomputes from the logged geometry. Replace it with a call to your model.

What the log holds, so that the checker can gate and score the run (every event type is in the
format reference, site/format-reference.md): a `startup_probe`; the RESET beat; `referent`
versions with their anchor cells (landings are recomputed from them); `commitment` and
`plan_step` events (a beat naming its step is a reference beat); one `llm_call` per model call
with its tokens and accepted write operations; a salted canary per call (`canary_salt`, and
`canary_echo` with the reply, from which the checker recomputes the echo); the `beat` itself with
its aim, recorded landing and reference stamp (`drift_ref`); and `level` events.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from checker.format.logio import RunLogWriter

SIZE = 8
"""The grid is SIZE x SIZE cells; a click is (x = column, y = row)."""
HORIZON = 30
"""Beats per run, the RESET included."""
CELL = "FULL"
SEEDS = ("s1", "s2")

ModelFn = Callable[[str], str]
Cells = list[list[int]]


class ButtonWorld:
    """The environment: a 2-cell button and a 1-cell lamp; clicking the button completes a level and moves it."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.level = 0
        self.score = 0
        self.objects: dict[str, Cells] = {"lamp": [[0, 0]], "button": []}
        self.move_button()

    def move_button(self) -> None:
        """Put the button somewhere else (two cells side by side, away from the lamp)."""
        x, y = self.rng.randrange(1, SIZE - 1), self.rng.randrange(1, SIZE)
        self.objects["button"] = [[x, y], [x + 1, y]]

    def hit(self, x: int, y: int) -> str | None:
        """The object whose cells contain (x, y), or None (background)."""
        return next((name for name, cells in sorted(self.objects.items()) if [x, y] in cells), None)

    def click(self, x: int, y: int) -> tuple[str | None, bool]:
        """Apply a click; returns (object hit, whether a level was completed)."""
        hit = self.hit(x, y)
        if hit == "button":
            self.level += 1
            self.score += 10
            self.move_button()
            return hit, True
        return hit, False


def render_view(refs: dict[str, dict[str, Any]], step: dict[str, Any], nonce: str) -> str:
    """The Actuator's prompt: the plan step, the bound referents (zone Z1) and the canary (zone Z2)."""
    referents = {r["ref_id"]: r["cells"] for r in refs.values()}
    return (f"You control a click on an {SIZE}x{SIZE} grid.\n"
            f"Plan step {step['step_id']}: {step['action']} on {step['target_ref']}.\n"
            f"[Z1] referents: {json.dumps(referents, sort_keys=True)}\n"
            f"[Z2] canary: {nonce} (repeat it in your reply)\n"
            'Reply with JSON: {"action": "ACTION6", "x": column, "y": row, "canary": "..."}')


def tokens(text: str) -> int:
    """A rough token count (4 characters a token); a real harness logs what its API reports."""
    return -(-len(text) // 4)


class ScriptedModel:
    """A stand-in model with no network: clicks the first cell of the step's target, as it remembers it.

    It memorises each referent's cells when it first sees them and refreshes its memory only
    every `refresh_every` calls, so right after the target moves it may click its old place.
    """

    def __init__(self, refresh_every: int = 3) -> None:
        self.refresh_every = refresh_every
        self.memory: dict[str, Cells] = {}
        self.calls = 0

    def __call__(self, prompt: str) -> str:
        """Reply to one prompt."""
        self.calls += 1
        lines = prompt.splitlines()
        target = lines[1].rsplit(" ", 1)[-1].rstrip(".")
        seen = json.loads(lines[2].split(": ", 1)[1])
        nonce = lines[3].split()[2]
        if self.calls % self.refresh_every == 1 or target not in self.memory:
            self.memory = seen
        x, y = self.memory[target][0]
        return json.dumps({"action": "ACTION6", "x": x, "y": y, "canary": nonce})


def run_episode(log: RunLogWriter, world: ButtonWorld, model: ModelFn, nonce_rng: random.Random,
                horizon: int = HORIZON) -> int:
    """Play one run of `horizon` beats; returns the levels completed."""
    log.write({"type": "startup_probe", "turn": 0, "image_receipt_ok": None, "signal_vocab": ["score", "level"],
               "action_interface": {"ACTION6": {"params": ["x", "y"]}}})
    log.write({"type": "goal", "turn": 0, "goal_id": "G0001", "statement": "press the button",
               "provenance": "SEEDED"})
    refs: dict[str, dict[str, Any]] = {}  # object name -> {ref_id, version, cells}
    step: dict[str, Any] | None = None
    commitments = 0
    for turn in range(horizon):
        # observe: bind every object to a referent; a moved object gets a new version
        for name, cells in sorted(world.objects.items()):
            ref = refs.get(name)
            if ref is None or ref["cells"] != cells:
                ref = {"ref_id": ref["ref_id"] if ref else f"R{len(refs) + 1:04d}",
                       "version": ref["version"] + 1 if ref else 1, "cells": [list(c) for c in cells]}
                refs[name] = ref
                log.write({"type": "referent", "turn": turn, "ref_id": ref["ref_id"], "version": ref["version"],
                           "kind": "percept-cluster", "anchor_cells": ref["cells"]})
        if turn == 0:
            log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
                       "level_counter": world.level, "score": world.score})
            continue
        # plan: one commitment per level, a single INTERACT step on the button
        if step is None:
            commitments += 1
            commit_id = f"K{commitments:04d}"
            step = {"step_id": f"{commit_id}-S1", "action": "ACTION6", "target_ref": refs["button"]["ref_id"]}
            log.write({"type": "commitment", "turn": turn, "commit_id": commit_id, "goal_id": "G0001"})
            log.write({"type": "plan_step", "turn": turn, "commit_id": commit_id, "step_id": step["step_id"],
                       "step_ord": 1, "kind": "INTERACT", "target_ref": step["target_ref"], "action": "ACTION6",
                       "premises": [["TARGET_REF", step["target_ref"]]]})
            log.write({"type": "goal_binding", "turn": turn, "goal_id": "G0001", "ref_id": step["target_ref"]})
        # act: one Actuator call per beat, salted with a canary
        nonce = f"ZQ{nonce_rng.getrandbits(32):08x}"
        prompt = render_view(refs, step, nonce)
        log.write({"type": "canary_salt", "turn": turn, "organ": "ACTUATOR", "call_idx": turn, "zone": "Z2",
                   "nonce": nonce})
        reply = model(prompt)
        log.write({"type": "canary_echo", "turn": turn, "organ": "ACTUATOR", "call_idx": turn, "zone": "Z2",
                   "nonce": nonce, "echoed": nonce in reply, "output_text": reply})
        decision = json.loads(reply)
        log.write({"type": "llm_call", "turn": turn, "organ": "ACTUATOR", "call_idx": turn,
                   "prompt_tokens": tokens(prompt), "completion_tokens": tokens(reply),
                   "render_tokens": tokens(prompt), "ops_accepted": 1})
        x, y = int(decision["x"]), int(decision["y"])
        hit, level_done = world.click(x, y)
        landed = refs[hit]["ref_id"] if hit else None
        log.write({"type": "beat", "turn": turn, "action": decision["action"], "params": {"x": x, "y": y},
                   "target_ref": landed, "step_id": step["step_id"], "drift_ref": "LIVE",
                   "source_stamp": "COMMITMENT_STEP", "render_tokens": tokens(prompt),
                   "level_counter": world.level, "score": world.score})
        if landed != step["target_ref"]:
            log.write({"type": "substitution", "turn": turn, "step_target": step["target_ref"],
                       "landed_target": landed})
        if level_done:
            log.write({"type": "level", "turn": turn, "level_counter": world.level, "score": world.score})
            log.write({"type": "status", "turn": turn, "entity_kind": "COMMITMENT_STEP",
                       "entity_id": step["step_id"], "from_status": "OPEN", "to_status": "CONSUMED"})
            step = None
    return world.level


def play(out: Path, model_for: Callable[[], ModelFn], model_name: str, *,
         submission_id: str = "example-agent") -> Path:
    """Write a submission folder `out/<submission_id>`: one run per declared seed; returns the folder.

    `model_for()` makes a fresh model for each run (a run must not inherit another's memory). A
    `prereg.yaml` already in the folder (e.g. from `driftboard init --track agent`) is kept and
    followed: its cells' seeds are the runs, its horizon their length; the manifest's own fields
    (title, authors, contact, licence) are kept too.
    """
    folder = out / submission_id
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    prereg_path = folder / "prereg.yaml"
    if not prereg_path.exists():  # pre-register first, and commit it before running for real
        prereg_path.write_text(yaml.safe_dump({
            "format_version": "1.0", "submission_id": submission_id, "track": "agent", "profile": "driftboard",
            "cells": {CELL: {"seeds": list(SEEDS), "description": "plan-following agent, scripted model"}},
            "horizon": HORIZON,
            "defeaters": [{"id": "zero-completions", "text": "~0 completions across all valid runs",
                           "metric": "completions", "op": "<=", "value": 0}],
        }, sort_keys=False), encoding="utf-8")
    prereg_sha256 = hashlib.sha256(prereg_path.read_bytes()).hexdigest()
    prereg = yaml.safe_load(prereg_path.read_text(encoding="utf-8"))
    horizon = int(prereg.get("horizon") or HORIZON)
    seeds = [str(s) for s in prereg["cells"].get(CELL, {}).get("seeds", SEEDS)]
    files, levels = [], []
    for seed in seeds:
        run_file = f"runs/{CELL.lower()}-{seed}.jsonl"
        (folder / run_file).unlink(missing_ok=True)  # a run log is written once, never appended to by a re-run
        header = {
            "run_id": f"{submission_id}-{CELL.lower()}-{seed}", "submission_id": submission_id, "track": "agent",
            "cell": CELL, "seed": seed, "backbone": model_name, "prereg_sha256": prereg_sha256,
            "started_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "horizon": horizon,
            "game_id": "button-world",
        }
        with RunLogWriter(folder / run_file, header) as log:  # an exception inside ends the log as ABORTED
            levels.append(run_episode(log, ButtonWorld(seed), model_for(), random.Random(f"canary-{seed}"), horizon))
            log.end("COMPLETED", "horizon reached")
        files.append(run_file)
    manifest: dict[str, Any] = {
        "format_version": "1.0", "id": submission_id, "title": "Example agent harness (scripted model)",
        "authors": [{"name": "Ada Example", "affiliation": "Example Lab"}], "contact": "ada@example.org",
        "track": "agent", "system": "example agent harness", "backbone": model_name,
        "harness": {"name": "examples/agent_harness.py", "version": "1.0", "commit": "0000000"},
        "license": "CC-BY-4.0", "files": files,
        # each log's SHA-256 as written: `driftboard validate` reports a log edited afterwards, its last line included
        "logs_sha256": {f: hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in files},
        # a figure the harness counted itself: the checker recomputes it from the logs and fails on a mismatch
        "claims": [{"cell": CELL, "metric": "completions", "value": sum(levels) / len(levels),
                    "source": "the harness's own level count"}],
    }
    manifest_path = folder / "submission.yaml"
    if manifest_path.exists():  # the merged manifest (the first pull request's): the runs' pull request only appends
        old = yaml.safe_load(manifest_path.read_text(encoding="utf-8")) or {}
        listed = list(old.get("files") or [])
        manifest = {**old, "files": listed + [f for f in files if f not in listed],
                    "logs_sha256": {**manifest["logs_sha256"], **(old.get("logs_sha256") or {})},
                    "claims": list(old.get("claims") or []) + manifest["claims"]}
    manifest_path.write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    """Command line: `--out DIR [--id ID]`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write the submission folder into")
    parser.add_argument("--id", default="example-agent", help="submission id (default: %(default)s)")
    args = parser.parse_args(argv)
    folder = play(args.out, ScriptedModel, "scripted", submission_id=args.id)
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
