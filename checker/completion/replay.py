"""Replay an episode on its task's database and recompute τ-bench's reward; never read the recorded one.

Each assistant turn is one environment step. A turn that calls a tool runs the call on the episode's
database (the domain's tools, `checker.completion.domains`) and its recomputed observation is compared
with the logged `tool_result`: a disagreement means the log is not what this environment returns (a
result edited to show success, another environment version), and is reported, never accepted. A turn
that replies to the user ends the episode when the user's reply contains `###STOP###`; a call of an
episode-ending tool (a transfer to a human agent) ends it; so does the step limit of the task set.

The reward (τ-bench, reward rule since `718ffa1`): the episode's database against the database the
task's gold actions make from a fresh copy (equal data hashes), and every required output said in
some reply to the user (case-insensitive, commas removed from the reply). It is computed only for an
episode closed by the user or by a transfer; a step-limit episode scores 0, as in τ-bench.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.completion.domains.base import Database, EnvironmentCrash, data_hash, same_data
from checker.completion.episode import Episode
from checker.completion.tasks import GoldOutcome, Task, TaskSet
from checker.format.results_completion import Ending

STOP = "###STOP###"
"""The simulated user's token for "the conversation is over" (contained anywhere in its reply)."""


@dataclass
class CallOutcome:
    """One tool call as replayed."""

    step: int
    line: int
    name: str
    arguments: dict[str, object]
    observation: str
    logged: str | None
    """The logged result's text (None: the log has none)."""
    writes: bool
    """A write tool of the domain."""

    @property
    def effected(self) -> bool:
        """A write call the environment accepted (its observation is not an error)."""
        return self.writes and not self.observation.startswith("Error")


@dataclass
class Replayed:
    """What the replay of one episode found."""

    ending: Ending
    ending_step: int | None
    """Index of the step that ended the episode (None: unfinished)."""
    db: Database
    calls: list[CallOutcome] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    """The assistant's replies to the user, in order, up to the end."""
    past_end: int | None = None
    """Line of the first assistant turn logged after the episode ended (None: none)."""
    crash: str | None = None
    """Why the environment would have crashed (ending `error`)."""
    reward: float = 0.0
    reward_computed: bool = False
    database_matches: bool | None = None
    outputs: dict[str, bool] = field(default_factory=dict)
    data_hash: str | None = None
    gold: GoldOutcome | None = None

    @property
    def mismatched(self) -> list[CallOutcome]:
        """Calls whose logged result differs from the recomputed one."""
        return [c for c in self.calls if c.logged is not None and c.logged != c.observation]


def said_all(outputs: tuple[str, ...], said: list[str]) -> dict[str, bool]:
    """Required output -> found in some reply: lower-cased, the reply's commas removed (`$23,553` holds `23553`)."""
    replies = [text.lower().replace(",", "") for text in said]
    return {o: any(o.lower() in r for r in replies) for o in outputs}


def replay(task_set: TaskSet, task: Task, ep: Episode) -> Replayed:
    """Run the episode's tool calls on a fresh database, find its ending and recompute its reward."""
    db = task_set.fresh()
    domain = task_set.domain
    out = Replayed(ending="unfinished", ending_step=None, db=db)
    for i, step in enumerate(ep.steps):
        if out.ending != "unfinished":
            out.past_end = step.line
            break
        if step.call is not None:
            spec = domain.tools.get(step.call.name)
            try:
                observation = domain.invoke(db, step.call.name, step.call.arguments)
            except EnvironmentCrash as exc:
                out.ending, out.ending_step, out.crash = "error", i, str(exc)
                continue
            out.calls.append(CallOutcome(i, step.call_line or step.line, step.call.name, dict(step.call.arguments),
                                         observation, step.result.content if step.result is not None else None,
                                         spec is not None and spec.writes))
            if spec is not None and spec.ends_episode and step.result is not None:
                out.ending, out.ending_step = "transfer", i
                continue
            if step.result is None and i == len(ep.steps) - 1:
                break  # the log stops before the environment answered: unfinished (a gap inside is structural)
        else:
            out.said.append(step.content or "")
            if step.reply is None and i == len(ep.steps) - 1:
                break  # no user reply logged: unfinished (a reply missing inside the log is structural)
            if step.reply is not None and STOP in step.reply:
                out.ending, out.ending_step = "closed_as_done", i
                continue
        if i + 1 >= task_set.max_steps:
            out.ending, out.ending_step = "step_limit", i
    if out.ending in ("closed_as_done", "transfer"):
        _reward(task_set, task, out)
    out.data_hash = data_hash(db)
    return out


def _reward(task_set: TaskSet, task: Task, out: Replayed) -> None:
    gold = out.gold = task_set.gold(task.task_id)
    out.database_matches = same_data(out.db, gold.db)
    out.outputs = said_all(task.outputs, out.said)
    out.reward_computed = True
    out.reward = 1.0 if out.database_matches and all(out.outputs.values()) else 0.0


def gold_of(task_set: TaskSet, task: Task) -> GoldOutcome:
    """The task's gold outcome (for evidence when no reward was computed)."""
    return task_set.gold(task.task_id)


__all__ = ["STOP", "CallOutcome", "Replayed", "gold_of", "replay", "said_all"]
