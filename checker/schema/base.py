"""Shared base classes for every model in the canonical format."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

Sha256Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
"""A lower-case hex SHA-256 digest."""

Scalar = str | int | float | bool | None
"""A JSON scalar, as used in constraint arguments and action parameters."""

JsonObject = dict[str, Any]
"""A free-form JSON object (kept as written; the checker reads only documented keys)."""


class Model(BaseModel):
    """Base for manifest and prereg models: unknown fields are errors, types are strict."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class EventBase(Model):
    """Fields every run-log line carries.

    WARNING: `seq`, `prev` and `type` define the chain. Line k carries seq = k and
    prev = SHA-256 (hex) of line k-1's exact bytes without its newline; line 0 carries
    prev = SHA-256 of the UTF-8 run id.
    """

    seq: int = Field(ge=0)
    """Zero-based position of this line in the run log."""
    prev: Sha256Hex
    """SHA-256 of the previous line's exact bytes (line 0: of the run id)."""
