"""The Inspect AI task of the constraint track (needs the `inspect` extra: `pip install "driftboard[inspect]"`).

`inspect eval driftboard/constraint --model <provider/model> -T problems=<set> -T method=<method>`
runs one sample per problem of the set (id = `problem_id`) and one epoch per seed. The solver
plays the dialogue of `checker.harness.inspect_task.protocol`; Inspect records every model call (its
input messages and output) as a model event of the sample, and `driftboard import inspect`
rebuilds the canonical run from those events alone.

The scorer is **provisional**: it recomputes each turn's correctness with the checker's own code,
but the leaderboard number comes only from `driftboard import inspect` + `driftboard verify`.
"""

from __future__ import annotations

import functools
from pathlib import Path

from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from checker.constraint.problems import Problem, load_problems, sets_of
from checker.harness.inspect_task.protocol import (
    EXTRACTION_SYSTEM,
    LEDGER_METHODS,
    METHODS,
    PROTOCOL_VERSION,
    SYSTEM_PROMPTS,
    LedgerEntry,
    commit,
    extraction_prompt,
    parse_extraction,
    turn_prompt,
)

DEFAULT_CONFIG = GenerateConfig(temperature=0.0, max_tokens=2048)
"""DRIFT-Bench's generation defaults (temperature 0, 2,048 output tokens); the command line overrides them."""


class TaskArgumentError(PrerequisiteError, ValueError):
    """A task argument Inspect cannot run with: `inspect eval` prints its one line, no traceback."""

    def __init__(self, message: str) -> None:
        PrerequisiteError.__init__(self, message)
        ValueError.__init__(self, message)


TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
"""The tokenizer Inspect's token estimate downloads on first use (`mockllm/model` counts tokens with it)."""


def tokenizer_cached() -> bool:
    """Whether tiktoken has the o200k_base tokenizer in its cache (the cache tiktoken itself reads)."""
    import hashlib
    import os
    import tempfile

    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") or str(
        Path(tempfile.gettempdir()) / "data-gym-cache")
    return (Path(folder) / hashlib.sha1(TIKTOKEN_URL.encode()).hexdigest()).is_file()


def refuse_offline_mockllm() -> None:
    """Refuse `--model mockllm/...` when its token count would download a tokenizer (one line, not a traceback).

    Raises:
        TaskArgumentError: the active model is Inspect's mockllm and the tokenizer is not cached.
    """
    from inspect_ai.model._model import active_model

    model = active_model()
    if model is None or not str(model).startswith("mockllm/") or tokenizer_cached():
        return
    raise TaskArgumentError(
        "--model mockllm/model counts tokens with a tokenizer Inspect downloads (o200k_base, not cached here): for "
        "an offline dry run use --model driftboard/scripted -M behaviour=perfect -M problems=DIR (the -T problems "
        "folder), see site/inspect.md, 'Try it offline'")


@functools.cache
def load_set(problems: str) -> tuple[dict[str, Problem], str, str]:
    """(problems by id, set name, set digest) of a problem-set folder.

    Raises:
        TaskArgumentError: the folder is missing, empty or holds invalid problems (one line per problem).
    """
    path = Path(problems)
    try:
        loaded, errors = load_problems([path])
    except Exception as exc:  # UsageError for a missing path
        raise TaskArgumentError(f"-T problems={problems}: {exc} (give the folder of a problem set, e.g. "
                                "problems/drift-bench-v1-lite)") from None
    if errors:
        raise TaskArgumentError(f"-T problems={problems}: {len(errors)} problem(s) refused:\n" + "\n".join(errors[:20]))
    if not loaded:
        raise TaskArgumentError(f"-T problems={problems}: no problem (*.json) in this folder (give the folder of a "
                                "problem set, e.g. problems/drift-bench-v1-lite)")
    pset = sets_of(loaded, path.name or "problems")[0]
    return {p.problem_id: p for p in loaded}, pset.name, pset.digest


@solver
def constraint_dialogue(method: str, problems: str, seed: int | None = None) -> Solver:
    """Play every turn of the sample's problem; for ledger methods, extract and commit the ledger after each answer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        problem = load_set(problems)[0][str(state.sample_id)]
        model = get_model()
        config = GenerateConfig(seed=seed + state.epoch - 1) if seed is not None else GenerateConfig()
        state.messages = [ChatMessageSystem(content=SYSTEM_PROMPTS[method])]
        ledger: list[LedgerEntry] | None = [] if method in LEDGER_METHODS else None
        for t in range(1, len(problem.turns) + 1):
            state.messages.append(ChatMessageUser(content=turn_prompt(problem, t, method, ledger)))
            output = await model.generate(state.messages, config=config)
            state.output = output
            state.messages.append(output.message)
            if ledger is not None:
                asked: list[ChatMessage] = [
                    ChatMessageSystem(content=EXTRACTION_SYSTEM),
                    ChatMessageUser(content=extraction_prompt(problem, t, output.completion)),
                ]
                extracted = await model.generate(asked, config=config)
                ledger = commit(ledger, parse_extraction(extracted.completion), t)
        return state

    return solve


@scorer(metrics=[mean(), stderr()], name="provisional_turn_accuracy")
def provisional_turn_accuracy(problems: str) -> Scorer:
    """PROVISIONAL share of the sample's turns whose answer satisfies the gold constraints (not the leaderboard figure)."""
    from checker.constraint.scorer import checker_for, score_turn
    from checker.format.schema.constraint import Turn

    async def score(state: TaskState, target: Target) -> Score:
        by_id, _, digest = load_set(problems)
        problem = by_id[str(state.sample_id)]
        answers = [m.text for m in state.messages if m.role == "assistant"]
        correct = 0
        for t, text in enumerate(answers, 1):
            turn = Turn(seq=0, prev="0" * 64, type="turn", problem_id=problem.problem_id, turn_number=t,
                        user_message=problem.turns[t - 1].user_message, raw_response=text)
            correct += bool(score_turn(checker_for(digest, problem), turn, 0).correct)
        n = len(problem.turns)
        return Score(value=correct / n, answer=answers[-1] if answers else None,
                     explanation=f"provisional: {correct} of {n} turns correct; the leaderboard figure comes only "
                                 "from `driftboard import inspect` then `driftboard verify`")

    return score


def build_task(problems: str, method: str = "direct", seed: int | None = None) -> Task:
    """The constraint-track task over the problem set in folder `problems`.

    Raises:
        ValueError: unknown method, or an unreadable problem set.
    """
    if method not in METHODS:
        raise TaskArgumentError(f"-T method={method}: not one of {', '.join(METHODS)}")
    refuse_offline_mockllm()
    by_id, name, digest = load_set(problems)
    samples = [
        Sample(id=pid, input=turn_prompt(p, 1, method, [] if method in LEDGER_METHODS else None), target="",
               metadata={"problem_id": pid, "domain": p.domain, "n_turns": len(p.turns)})
        for pid, p in sorted(by_id.items())
    ]
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=constraint_dialogue(method, problems, seed),
        scorer=provisional_turn_accuracy(problems),
        config=DEFAULT_CONFIG,
        version=PROTOCOL_VERSION,
        metadata={"driftboard": {"protocol_version": PROTOCOL_VERSION, "method": method, "seed": seed,
                                 "problem_set": {"name": name, "digest": digest}}},
    )
