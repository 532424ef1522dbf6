"""Field types and units shared by the agent-track events (`agent_loop`, `agent_state`, `agent_calls`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from checker.format.schema.base import Int64, unit

Organ = Literal["OBSERVER", "SURVEYOR", "ACTUATOR", "BASELINE"]
Cell = Annotated[list[Int64], Field(min_length=2, max_length=2)]
"""An anchor cell as [x = column, y = row]."""
Pair = Annotated[list[str], Field(min_length=2, max_length=2)]
"""A (kind, id) pair."""

BEAT = unit("beat")
TOKENS = unit("tokens")
FLAG = unit("0/1")
VERSION = unit("version number")
CALL = unit("call number")
OPS = unit("write operations")
"""Units of the numeric fields (`json_schema_extra`: the JSON Schema and the format reference show them)."""
