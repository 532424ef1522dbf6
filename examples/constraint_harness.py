"""Example constraint-track harness: play a problem set turn by turn and log every turn with `RunLogWriter`.

It writes a complete submission folder (`prereg.yaml`, `submission.yaml`, `runs/*.jsonl`) that
`driftboard validate` and `driftboard verify` accept as it stands:

    python examples/constraint_harness.py --out /tmp/subs
    driftboard validate /tmp/subs/example-constraint
    driftboard verify /tmp/subs/example-constraint --problems problems/driftboard-suite-v1

The model is pluggable: any function `model(messages) -> str` that takes the chat so far (a list
of `{"role", "content"}` messages, system prompt first) and returns the reply text. The one used
here, `ScriptedModel`, needs no network: it answers from the problem set's reference solutions
and "forgets" every few turns (it answers as if there were no constraints), so the figures are
not all perfect. Replace it with a call to your model, e.g. with an OpenAI-compatible client:

    def my_model(messages):
        reply = client.chat.completions.create(model="my-model", messages=messages)
        return reply.choices[0].message.content

    play(out, model=my_model, model_name="my-model")

What the log must hold for the checker to recompute every turn (see the format reference,
site/format-reference.md): the run header names the problem set by digest; each problem opens
with `problem_start`; each turn logs the problem set's user message exactly, the raw response
text (the checker extracts the answer itself) and, for ledger methods, the ledger the model
committed. Labels such as `answer_correct` are optional claims the checker recomputes, so this
harness does not write them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from checker.constraint.problems import problem_set_digest
from checker.format.logio import RunLogWriter

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = REPO / "problems" / "driftboard-suite-v1"
METHOD = "ledger_only"
"""The method label: the model keeps a ledger of the constraints and answers from it."""

Message = dict[str, str]
ModelFn = Callable[[list[Message]], str]

ANSWER_FORMATS = {
    "seating": 'a seat number (1 = first seat) per person: {"Ada": 1, "Bea": 2, ...}',
    "scheduling": 'a start slot and a duration per meeting: {"Review": {"start": 2, "duration": 1}, ...}',
    "logic_grid": 'an attribute per category per person: {"Chen": {"color": "Red", "pet": "Fish"}, ...}',
}


def system_prompt(problem: dict[str, Any]) -> str:
    """The system message of one problem: the task, the entities and the reply format."""
    extra = {k: problem[k] for k in ("table_shape", "num_slots", "max_duration", "categories") if k in problem}
    return (
        f"Problem: {problem['problem_id']} ({problem['domain']}).\n"
        f"Entities: {', '.join(problem['entities'])}.\n"
        + (f"Setting: {json.dumps(extra)}.\n" if extra else "")
        + "Each user message adds constraints; all earlier ones still hold. Keep a ledger of every constraint "
        "so far and reply with one JSON object: "
        '{"ledger": [{"type": ..., "args": [...], "nl": ...}, ...], "solution": ' + ANSWER_FORMATS[problem["domain"]]
        + "}."
    )


def parse_ledger(reply: str) -> list[dict[str, Any]] | None:
    """The ledger of a reply as log entries (ids `C001`...), or None when the reply holds no readable ledger."""
    try:
        obj = json.loads(reply)
    except ValueError:
        return None
    entries = obj.get("ledger") if isinstance(obj, dict) else None
    if not isinstance(entries, list):
        return None
    ledger = []
    for n, entry in enumerate(entries, start=1):
        if isinstance(entry, dict) and isinstance(entry.get("type"), str):
            ledger.append({"id": f"C{n:03d}", "type": entry["type"], "args": entry.get("args"),
                           "nl": entry.get("nl") if isinstance(entry.get("nl"), str) else None,
                           "source_turn": entry.get("source_turn") if isinstance(entry.get("source_turn"), int)
                           else None})
    return ledger


def tokens(text: str) -> int:
    """A rough token count (4 characters a token); a real harness logs what its API reports."""
    return -(-len(text) // 4)


def play_problem(log: RunLogWriter, problem: dict[str, Any], model: ModelFn) -> None:
    """One problem: `problem_start`, then one `turn` event per turn of the dialogue."""
    log.write({"type": "problem_start", "problem_id": problem["problem_id"], "domain": problem["domain"],
               "n_turns": len(problem["turns"])})
    messages: list[Message] = [{"role": "system", "content": system_prompt(problem)}]
    for turn in problem["turns"]:
        messages.append({"role": "user", "content": turn["user_message"]})
        try:
            reply: str | None = model(messages)
        except Exception as exc:  # a failed call is a logged turn (raw_response null), not a lost one
            print(f"{problem['problem_id']} turn {turn['turn_number']}: model call failed: {exc}")
            reply = None
        messages.append({"role": "assistant", "content": reply or ""})
        log.write({
            "type": "turn", "problem_id": problem["problem_id"], "turn_number": turn["turn_number"],
            "user_message": turn["user_message"], "raw_response": reply,
            "ledger": parse_ledger(reply) if reply is not None else None,
            "finish_reason": "stop" if reply is not None else "error",
            "tokens_in": sum(tokens(m["content"]) for m in messages[:-1]),
            "tokens_out": tokens(reply or ""),
        })


def naive_solution(problem: dict[str, Any]) -> dict[str, Any]:
    """A well-formed answer that ignores every constraint: entities in listed order."""
    entities = problem["entities"]
    if problem["domain"] == "seating":
        return {e: i + 1 for i, e in enumerate(entities)}
    if problem["domain"] == "scheduling":
        return {e: {"start": 1 + i % problem["num_slots"], "duration": 1} for i, e in enumerate(entities)}
    return {e: {c: values[i % len(values)] for c, values in problem["categories"].items()}
            for i, e in enumerate(entities)}


class ScriptedModel:
    """A stand-in model with no network: answers from the problem set's reference solutions.

    It reads the problem id from the system prompt and keeps the ledger right, but on every
    `forget_every`-th turn answers as if there were no constraints (`naive_solution`), which
    then violates its own, satisfiable ledger: the *drift* channel.
    """

    def __init__(self, problems: list[dict[str, Any]], forget_every: int = 4) -> None:
        self.by_id = {p["problem_id"]: p for p in problems}
        self.forget_every = forget_every

    def __call__(self, messages: list[Message]) -> str:
        """Reply to the chat so far."""
        problem_id = messages[0]["content"].split()[1]
        problem = self.by_id[problem_id]
        k = sum(1 for m in messages if m["role"] == "user")
        ledger = [{**c, "source_turn": t["turn_number"]}
                  for t in problem["turns"][:k] for c in t["new_constraints"]]
        solution = problem["turns"][k - 1]["gold_solution"]
        if k > 1 and k % self.forget_every == 0:
            solution = naive_solution(problem)  # ignores every constraint
        return json.dumps({"ledger": ledger, "solution": solution}, ensure_ascii=False)


def play(out: Path, model: ModelFn, model_name: str, *, submission_id: str = "example-constraint",
         problems_dir: Path = PROBLEMS, limit: int | None = None, seed: str = "0") -> Path:
    """Write a submission folder `out/<submission_id>` with one run over the problem set; returns the folder."""
    problems = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(problems_dir.glob("*.json"))]
    digest = problem_set_digest(problems)  # the set is named by the digest of all of it, even when playing part
    folder = out / submission_id
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    cell = f"{model_name}/{METHOD}"
    prereg_path = folder / "prereg.yaml"
    if not prereg_path.exists():  # pre-register first, and commit it before running for real
        prereg_path.write_text(yaml.safe_dump({
            "format_version": "1.0", "submission_id": submission_id, "track": "constraint",
            "profile": "driftboard", "cells": {cell: {"seeds": [seed]}}, "problem_set": digest,
        }, sort_keys=False), encoding="utf-8")
    prereg_sha256 = hashlib.sha256(prereg_path.read_bytes()).hexdigest()
    run_file = f"runs/{METHOD}-{seed}.jsonl"
    (folder / run_file).unlink(missing_ok=True)  # a run log is written once, never appended to by a re-run
    header = {
        "run_id": f"{submission_id}-{METHOD}-{seed}", "submission_id": submission_id, "track": "constraint",
        "cell": cell, "seed": seed, "backbone": model_name, "prereg_sha256": prereg_sha256,
        "started_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "method": METHOD,
        "problem_set": {"name": problems_dir.name, "digest": digest},
    }
    with RunLogWriter(folder / run_file, header) as log:  # an exception inside ends the log as ABORTED
        for problem in problems[:limit]:
            play_problem(log, problem, model)
        log.end("COMPLETED", "all problems played" if limit is None else f"first {limit} problems played")
    (folder / "submission.yaml").write_text(yaml.safe_dump({
        "format_version": "1.0", "id": submission_id, "title": "Example constraint harness (scripted model)",
        "authors": [{"name": "Ada Example", "affiliation": "Example Lab"}], "contact": "ada@example.org",
        "track": "constraint", "system": "example constraint harness", "backbone": model_name,
        "harness": {"name": "examples/constraint_harness.py", "version": "1.0", "commit": "0000000"},
        "license": "CC-BY-4.0", "files": [run_file],
        # the log's SHA-256 as written: `driftboard validate` reports a log edited afterwards, its last line included
        "logs_sha256": {run_file: hashlib.sha256((folder / run_file).read_bytes()).hexdigest()},
    }, sort_keys=False), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    """Command line: `--out DIR [--problems DIR] [--limit N] [--id ID]`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write the submission folder into")
    parser.add_argument("--problems", type=Path, default=PROBLEMS, help="problem-set folder (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=None, help="play only the first N problems")
    parser.add_argument("--id", default="example-constraint", help="submission id (default: %(default)s)")
    args = parser.parse_args(argv)
    problems = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(args.problems.glob("*.json"))]
    folder = play(args.out, ScriptedModel(problems), "scripted", submission_id=args.id,
                  problems_dir=args.problems, limit=args.limit)
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
