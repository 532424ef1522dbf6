"""Inspect AI integration of both tracks.

Constraint track: `protocol` holds the dialogue protocol (no Inspect import); `task` the task itself.
Agent track: `agent_protocol` holds the organs' prompts, views and reply parsers and
`agent_harness` the ARG-style harness with a model in its organs (no Inspect import; the importer
replays logs through it); `agent_task` the task itself. `scripted` is the offline scripted model
of both tasks and `scripted_model` registers it as the Inspect model provider `driftboard`.
The modules that import `inspect_ai` (`task`, `agent_task`, `scripted_model`) need the `inspect` extra.
"""
