"""`Contradiction`: a recorded label the log's own lower-level rows contradict, with the check that found it."""

from __future__ import annotations

from dataclasses import dataclass

from checker.format.results_model import Mismatch


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A recorded label that the log's own lower-level rows contradict, and the check that found it."""

    check: str
    """The check's name (reference, aim, canary, receipts, write_rejects, milestones)."""
    mismatch: Mismatch
    """What the results list for it (an agent-track mismatch always names its line)."""

    @property
    def line(self) -> int:
        """The log line holding the label."""
        return self.mismatch.line or 0


def contradiction(check: str, line: int, fld: str, recorded: object, recomputed: object, reason: str) -> Contradiction:
    """A `Contradiction` found by `check` at `line`: `fld` recorded as `recorded`, recomputed as `recomputed`."""
    return Contradiction(check, Mismatch(line=line, field=fld, recorded=recorded, recomputed=recomputed, reason=reason))


def log_order(c: Contradiction) -> tuple[int, str]:
    """Sort key: (line, field)."""
    return c.line, c.mismatch.field


__all__ = ["Contradiction", "contradiction", "log_order"]
