"""The Inspect AI task of the agent track (needs the `inspect` extra: `pip install "driftboard[inspect]"`).

`inspect eval driftboard/agent --model <provider/model> -T condition=FULL` plays the micro-world's
games (one sample per game, `-T games=w101,w202,w303`; one epoch per replicate, `--epochs N`)
for `-T horizon` actions each, with the model in the organs of the ARG-style harness
(`checker.harness.inspect_task.agent_harness`; conditions FULL, J0, A0, J0A0 and the BARE
comparator). Inspect records every organ call (its prompt and the model's output) as a model
event of the sample; `driftboard import inspect` replays those through the same harness and
writes what the environment and the harness emit: the log holds no evidence of its own.

The score is **provisional**: levels completed in the game (a quick look while the eval runs);
the leaderboard figures come only from `driftboard import inspect` + `driftboard verify`.
"""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from checker.harness.inspect_task.agent_harness import Episode, Reply, reply_from
from checker.harness.inspect_task.agent_protocol import (
    CONDITIONS,
    DEFAULT_GAMES,
    DEFAULT_HORIZON,
    GAME_ID,
    PROTOCOL_VERSION,
    Messages,
    game_seed,
)

DEFAULT_CONFIG = GenerateConfig(max_tokens=1024)
"""Organ replies are a few lines; the command line overrides this (and sets temperature, reasoning, ...)."""
DEFAULT_GAMES_TEXT = ",".join(DEFAULT_GAMES)
SUMMARY = "driftboard_agent"
"""Store key of the sample's provisional summary (levels, score, beats played)."""


def chat(messages: Messages) -> list[ChatMessage]:
    """(role, text) pairs as Inspect chat messages."""
    out: list[ChatMessage] = []
    for role, text in messages:
        if role == "system":
            out.append(ChatMessageSystem(content=text))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=text))
        else:
            out.append(ChatMessageUser(content=text))
    return out


@solver
def arg_harness(condition: str, horizon: int) -> Solver:
    """Play the sample's game with the model in the harness's organs."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()

        async def call(organ: str, messages: Messages) -> Reply:
            out = await model.generate(chat(messages))
            return reply_from(out.completion, out.usage)

        events = [0]

        def count(_: dict[str, object]) -> None:
            events[0] += 1

        episode = Episode(condition, str(state.sample_id), state.epoch, horizon, state.uuid, count, call)
        await episode.run()
        world = episode.world
        state.store.set(SUMMARY, {"levels": world.level_counter if world else 0, "score": world.score if world else 0,
                                  "beats": episode.turn, "events": events[0]})
        return state

    return solve


@scorer(metrics=[mean(), stderr()], name="provisional_levels")
def provisional_levels() -> Scorer:
    """PROVISIONAL levels completed in the game (not a leaderboard figure)."""

    async def score(state: TaskState, target: Target) -> Score:
        summary = state.store.get(SUMMARY) or {}
        levels = int(summary.get("levels", 0))
        return Score(value=levels, explanation=(
            f"provisional: {levels} level(s), score {summary.get('score', 0)} in {summary.get('beats', 0)} beat(s); "
            "the leaderboard figures come only from `driftboard import inspect` then `driftboard verify`"))

    return score


def game_list(games: str | list[str] | tuple[str, ...]) -> list[str]:
    """Game ids from `-T games=w101,w202` (or a list), in the given order, each once.

    Raises:
        ValueError: an id that is not `w<seed>`, or no game.
    """
    names = games.split(",") if isinstance(games, str) else [str(g) for g in games]
    out: list[str] = []
    for name in (n.strip() for n in names):
        game_seed(name)
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("no game: give -T games=w101,w202,...")
    return out


def build_task(condition: str = "FULL", games: str | list[str] = DEFAULT_GAMES_TEXT,
               horizon: int = DEFAULT_HORIZON) -> Task:
    """The agent-track task: one sample per game, the harness of `condition`, `horizon` actions per game.

    Raises:
        ValueError: unknown condition, a bad game id or a horizon below 1.
    """
    if condition not in CONDITIONS:
        raise ValueError(f"condition {condition!r} is not one of {', '.join(CONDITIONS)}")
    horizon = int(horizon)
    if horizon < 1:
        raise ValueError(f"horizon {horizon} must be at least 1")
    names = game_list(games)
    samples = [Sample(id=g, input=f"{GAME_ID} game {g} (world seed {game_seed(g)}), condition {condition}, "
                                  f"{horizon} actions", target="",
                      metadata={"game": g, "world_seed": game_seed(g)}) for g in names]
    return Task(
        dataset=MemoryDataset(samples, name=f"{GAME_ID}-{condition}"),
        solver=arg_harness(condition, horizon),
        scorer=provisional_levels(),
        config=DEFAULT_CONFIG,
        version=PROTOCOL_VERSION,
        metadata={"driftboard": {"protocol_version": PROTOCOL_VERSION, "condition": condition, "horizon": horizon,
                                 "games": names, "game_id": GAME_ID}},
    )


__all__ = ["DEFAULT_CONFIG", "SUMMARY", "arg_harness", "build_task", "chat", "game_list", "provisional_levels"]
