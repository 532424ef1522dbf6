"""Completion-track events: one tool-using dialogue episode, as the harness logged it.

A completion run is one episode of one task of a task set (τ-bench airline today): it opens with
`episode_start`, then the dialogue in order: `message` events (the system prompt, the user's and
the assistant's turns), and for an assistant turn that calls a tool, a `tool_call` right after it
and the `tool_result` the environment returned. `episode_end` closes the episode with what the
harness recorded about it (how it ended, the reward it computed): those are claims the checker
recomputes from the database, never inputs. Where the episode came from (repository, commit, file
digest, model, task, trial) is in `run_start.source`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.base import EventBase, Int64Max, JsonObject, Sha256Hex, event_model, examples, unit


@event_model
class EpisodeStart(EventBase):
    """Opens the episode: which task of the run's task set it attempts."""

    model_config = examples({"type": "episode_start", "domain": "airline", "task_id": 7}, seq=1)

    type: Literal["episode_start"]
    """Event type `episode_start`."""
    domain: str = Field(min_length=1, max_length=100)
    """The task set's domain, e.g. `airline` (must match the task set named in `run_start.problem_set`)."""
    task_id: Int64Max = Field(ge=0, json_schema_extra=unit("task index"))
    """The task's index in the task set (τ-bench's task id)."""


@event_model
class Message(EventBase):
    """One message of the dialogue, in order: the system prompt, then the user's and the assistant's turns."""

    model_config = examples({"type": "message", "role": "assistant",
                             "content": "Your reservation has been cancelled."}, seq=4)

    type: Literal["message"]
    """Event type `message`."""
    role: Literal["system", "user", "assistant"]
    """Who wrote it: the system prompt (the domain policy), the (simulated) user, or the agent."""
    content: str | None = None
    """The text as logged; null for an assistant turn that only calls a tool. An assistant turn's text
    reaches the user only when the turn calls no tool."""


@event_model
class ToolCall(EventBase):
    """The tool call of the assistant turn just before it (one per turn: the one the environment ran)."""

    model_config = examples({"type": "tool_call", "call_id": "call_abc123", "name": "cancel_reservation",
                             "arguments": {"reservation_id": "GV1N64"}}, seq=5)

    type: Literal["tool_call"]
    """Event type `tool_call`."""
    call_id: str = Field(min_length=1, max_length=200)
    """The call's id, as the model's API gave it (its `tool_result` names it)."""
    name: str = Field(min_length=1, max_length=200)
    """The tool called (any name: an unknown tool is a logged action too)."""
    arguments: JsonObject
    """The arguments, parsed (the JSON object the model wrote)."""


@event_model
class ToolResult(EventBase):
    """What the environment returned for the call just before it, as logged (the checker recomputes it)."""

    model_config = examples({"type": "tool_result", "call_id": "call_abc123", "name": "cancel_reservation",
                             "content": "Error: reservation not found"}, seq=6)

    type: Literal["tool_result"]
    """Event type `tool_result`."""
    call_id: str = Field(min_length=1, max_length=200)
    """The id of the call it answers."""
    name: str = Field(min_length=1, max_length=200)
    """The tool's name, as the call's."""
    content: str
    """The observation text the agent saw."""


@event_model
class EpisodeEnd(EventBase):
    """Closes the episode with what the harness recorded; every field is a claim the checker recomputes."""

    model_config = examples({"type": "episode_end", "source": "user", "reward": 1.0,
                             "data_hash": "4a02dcbc0e3ace4d398988d60a33e73afad4d201deb426303159f086cadad20f",
                             "outputs": None, "error": None}, seq=30)

    type: Literal["episode_end"]
    """Event type `episode_end`."""
    source: str | None = None
    """Recorded: what ended the episode (τ-bench's `info.source`: `user`, `transfer_to_human_agents`, or the
    last tool when the step limit cut it)."""
    reward: float | None = Field(default=None, json_schema_extra=unit("0-1"))
    """Recorded reward (never read to score: the checker recomputes it from the database)."""
    data_hash: Sha256Hex | None = None
    """Recorded data hash of the gold database (τ-bench's `gt_data_hash`), when the harness wrote it."""
    outputs: dict[str, bool] | None = None
    """Recorded required-outputs check: required string -> found in the agent's replies."""
    error: str | None = None
    """Recorded harness error that ended the episode (null when none)."""


COMPLETION_EVENTS = (EpisodeStart, Message, ToolCall, ToolResult, EpisodeEnd)

__all__ = ["COMPLETION_EVENTS", "EpisodeEnd", "EpisodeStart", "Message", "ToolCall", "ToolResult"]
