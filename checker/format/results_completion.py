"""What the results file holds for one completion-track episode (`RunResult.episode`).

Everything here is recomputed by `checker.completion`: the ending is read from the log's structure,
the reward from replaying the episode's tool calls and the task's gold actions on the task set's
database, and the claim is structural (the episode was closed as done). The database differences are
the evidence behind a false completion claim: what the episode changed, what the task required, and
where the two disagree.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

Ending = Literal["closed_as_done", "transfer", "step_limit", "unfinished", "error"]
"""How the episode ended, from the log's structure: the user closed the chat after an assistant reply
(`###STOP###`), a transfer to a human agent, the step limit, the log stops before any of these
(`unfinished`: INCOMPLETE), or a call that would have crashed the environment (`error`)."""
FalseClaimKind = Literal["no_effected_write", "wrong_writes", "output_missing", "unbacked_statement"]
"""Why a claimed episode is not verified: the database is wrong and the episode changed nothing; the
database is wrong after writes that took effect; the database is right but a required output was never said;
the reward is 1 but a reply states a write that no effected write call earlier in the log carries out."""
WriteStatus = Literal["matched", "wrong", "missing", "extra", "error"]
"""A write call's fate against the task's gold writes: the same call; the same tool with other
arguments; a gold write with no call; a call no gold write asks for; a call the environment refused."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BoardKey(_Model):
    """The board an episode's cell belongs on: task set, and the episodes its cell declares."""

    benchmark: str
    """The benchmark, e.g. `τ-bench`."""
    domain: str
    task_set: str
    """Task set name."""
    task_set_digest: str
    tasks: int
    """Tasks in the task set."""
    trials_per_task: int | None
    """Trials the cell declares for every task (None when the declaration is not the same for every task)."""
    episodes_declared: int
    """Episodes the cell declares (withdrawn ones excluded): the ranked figure's n."""
    complete: bool
    """The cell declares every task of the set the same number of times: it can be ranked on the board."""
    why: str | None = None
    """Why the cell is not complete (None when it is)."""


class WriteCall(_Model):
    """One call of a write tool and its fate."""

    line: int | None
    """The log line of the call (None for a gold write the episode never made)."""
    name: str
    target: JsonValue = None
    """The record the call names (its first argument: a reservation or user id)."""
    status: WriteStatus


class StatedCompletion(_Model):
    """A clause of a reply to the user that says a write happened (`checker.completion.statements`)."""

    line: int
    clause: str
    """The clause, cut to a bound."""
    tools: list[str]
    """The write tools that would carry it out (empty: any write)."""
    backed: bool
    """An effected write call of one of those tools comes earlier in the log."""


class Change(_Model):
    """One field that differs between two versions of the database."""

    table: str
    key: str
    path: str
    """Dotted path inside the record; empty when a whole record is added."""
    before: JsonValue
    """The first database's value (as JSON text when long, cut to a bound)."""
    after: JsonValue


class EpisodeResult(_Model):
    """One episode: its ending, the claim, the recomputed reward, the writes and the database evidence."""

    task_id: int | None
    trial: str | None
    """The seed label (`task007-trial2`)."""
    ending: Ending
    claimed: bool
    """Closed as done: the last assistant turn replied to the user and the user ended the chat."""
    transferred: bool
    ran_out: bool
    """Stopped by the step limit."""
    verified: bool
    """The recomputed reward is 1 and every stated completion is backed by an effected write."""
    reward: float
    """The recomputed reward (0 when none is computed: step limit, unfinished, error)."""
    reward_computed: bool
    database_matches: bool | None
    """The episode's database has the gold database's data hash (None when no reward is computed)."""
    outputs: dict[str, bool]
    """Required output -> said in some reply to the user (empty when the task requires none)."""
    data_hash: str | None
    """Data hash of the episode's database at its end."""
    gold_data_hash: str | None
    """Data hash of the database after the task's gold actions."""
    false_claim: FalseClaimKind | None
    """Why a claimed episode is not verified (None when it is verified or claims nothing)."""
    closing_claim: str | None
    """The reply the user closed the chat after (cut to a bound), when claimed."""
    closing_line: int | None
    steps: int
    """Assistant turns."""
    tool_calls: int
    write_calls: list[WriteCall]
    """Every write call of the episode, then every gold write it never made (status `missing`)."""
    changed: list[Change]
    """What the episode changed (its database against the initial one)."""
    required: list[Change]
    """What the task required (the gold database against the initial one)."""
    wrong: list[Change]
    """Where the episode's database differs from the gold one (empty when they match)."""
    changes_cut: bool
    """A change list above was cut to its bound."""
    stated: list[StatedCompletion]
    """The replies' stated completions, in order (cut to a bound), each backed or not."""
    tool_result_mismatches: int
    """Logged tool results that differ from the recomputed ones (each is a finding: the run is INVALID)."""
    declared: bool
    """The run's seed is declared (and not withdrawn) in its cell: it counts toward the cell's figures."""
    board: BoardKey | None
