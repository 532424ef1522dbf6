"""Domain exceptions and the finding record; `cli.py` is the one place that maps them to exit codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


class DriftboardError(Exception):
    """Base of every expected, user-fixable failure (printed without a traceback)."""


class UsageError(DriftboardError):
    """The command was called wrongly, or its input cannot be read at all (exit 2)."""


class LogFormatError(DriftboardError):
    """A run log breaks the canonical format (exit 1 when verifying)."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.path = path
        self.line = line
        self.message = message


class MissingInputError(DriftboardError):
    """A run cannot be recomputed because an input it names (e.g. its problem set) was not given.

    The run is reported as UNVERIFIED with this message; other runs are still verified.
    """


class UnsupportedVersionError(DriftboardError):
    """A log or manifest declares a newer major format version than this checker reads."""


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in the input, located as `path:line`."""

    path: str
    line: int | None
    message: str
    severity: Literal["error", "warning"] = "error"
    unreadable: bool = False
    """The input could not be read at all (exit code 2), as opposed to a problem found in it."""

    def render(self) -> str:
        """`path:line: message` (or `path: message` when the problem has no line)."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{where}: {prefix}{self.message}"

    def to_json(self) -> dict[str, object]:
        """The finding as a JSON object (one shape for every command)."""
        return {"path": self.path, "line": self.line, "message": self.message, "severity": self.severity}
