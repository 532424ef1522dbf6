"""Read a completion run's events into one episode: the system prompt, the user's first message, and steps.

A step is one assistant turn, which is one environment step in τ-bench: either it calls a tool
(`message` assistant, `tool_call`, `tool_result`) or it replies to the user (`message` assistant,
then the user's `message` unless the log ends there). The order is fixed; anything out of order,
an event of another track, a second episode or anything after `episode_end` is a structural problem
(the run is INVALID: its dialogue is not one episode a harness could have logged).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.format.schema.completion import EpisodeEnd, EpisodeStart, Message, ToolCall, ToolResult
from checker.format.schema.events import Event


@dataclass
class Step:
    """One assistant turn."""

    line: int
    content: str | None
    call: ToolCall | None = None
    call_line: int | None = None
    result: ToolResult | None = None
    result_line: int | None = None
    reply: str | None = None
    """The user's reply to a turn that calls no tool (None: the log ends after the turn)."""
    reply_line: int | None = None


@dataclass
class Episode:
    """The dialogue of one run, in steps, and what is wrong with its structure."""

    start: EpisodeStart | None = None
    start_line: int | None = None
    system: str | None = None
    system_line: int | None = None
    first_user: str | None = None
    steps: list[Step] = field(default_factory=list)
    end: EpisodeEnd | None = None
    end_line: int | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)
    """(line, what) of every structural problem, in log order."""


def read_episode(events: list[Event], lines: list[int]) -> Episode:
    """The episode the events log, with its structural problems (never raises)."""
    ep = Episode()
    pending: Step | None = None  # an assistant turn waiting for its call, result or reply

    def problem(line: int, text: str) -> None:
        ep.problems.append((line, text))

    for event, line in zip(events, lines, strict=True):
        if ep.end is not None:
            problem(line, f"{_kind(event)} after episode_end: an episode ends with its episode_end")
            continue
        if isinstance(event, EpisodeStart):
            if ep.start is not None:
                problem(line, f"second episode_start (the first is at line {ep.start_line}): a run is one episode")
            else:
                if ep.system is not None or ep.steps or ep.first_user is not None:
                    problem(line, "episode_start after the dialogue began")
                ep.start, ep.start_line = event, line
            continue
        if ep.start is None and not isinstance(event, EpisodeEnd):
            problem(line, f"{_kind(event)} before episode_start")
            continue
        if isinstance(event, Message):
            if event.role == "system":
                if ep.system is not None or ep.first_user is not None or ep.steps:
                    problem(line, "a system message after the dialogue began (the system prompt comes first, once)")
                else:
                    ep.system, ep.system_line = event.content, line
            elif event.role == "user":
                if ep.first_user is None and not ep.steps:
                    ep.first_user = event.content or ""
                elif pending is not None and pending.call is None and pending.reply is None:
                    pending.reply, pending.reply_line = event.content or "", line
                else:
                    problem(line, "a user message that answers no assistant reply (a tool-calling turn is answered by "
                                  "its tool_result; each reply by one user message)")
            else:
                if ep.first_user is None:
                    problem(line, "an assistant turn before the user's first message")
                if pending is not None and pending.call is not None and pending.result is None:
                    problem(line, f"an assistant turn while the tool call at line {pending.call_line} has no tool_result")
                elif pending is not None and pending.call is None and pending.reply is None:
                    problem(line, f"an assistant turn right after the reply at line {pending.line}: the user's message "
                                  "comes between")
                pending = Step(line=line, content=event.content)
                ep.steps.append(pending)
        elif isinstance(event, ToolCall):
            if pending is None or pending.call is not None or pending.reply is not None:
                problem(line, "a tool_call that does not follow an assistant turn (one call per turn, right after it)")
            else:
                pending.call, pending.call_line = event, line
        elif isinstance(event, ToolResult):
            if pending is None or pending.call is None or pending.result is not None:
                problem(line, "a tool_result that answers no tool_call")
            elif event.call_id != pending.call.call_id or event.name != pending.call.name:
                problem(line, f"tool_result for {event.name!r} ({event.call_id}) answers the call at line "
                              f"{pending.call_line}, {pending.call.name!r} ({pending.call.call_id})")
                pending.result, pending.result_line = event, line
            else:
                pending.result, pending.result_line = event, line
        elif isinstance(event, EpisodeEnd):
            ep.end, ep.end_line = event, line
        else:
            problem(line, f"{_kind(event)} is not a completion-track event")
    if ep.start is None:  # said first: every other event is then "before episode_start"
        ep.problems.insert(0, (lines[0] if lines else 1, "no episode_start: the run logs no episode"))
    return ep


def _kind(event: Event) -> str:
    return f"a {getattr(event, 'type', type(event).__name__)} event"
