"""Under a reproduction profile, every disagreement between a recorded label and the log is a finding.

The reproduction profiles (`arg-v1.0`, `drift-bench-v1`: `checker.stages.rules.REPRODUCTION_PROFILES`)
read recorded labels as the reference system reads them, on purpose: their figures reproduce the
reference system's own output. That trust is never silent: a run whose recorded labels disagree
with what its log shows (the run's `mismatches`: a click landing the geometry contradicts, an echo
its output text contradicts, a receipt's `match` its own fields contradict, ...) gets one warning
finding, in the verify output and in the submission's findings on its page, listing the
disagreements by field with their first lines. A figure that reads such a label as recorded stays
(that is the reproduction) and is never ranked (only profile `driftboard` ranks).
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.format.errors import Finding
from checker.format.results_model import Mismatch
from checker.stages.rules import REPRODUCTION_PROFILES

SHOWN_LINES = 5
"""Lines listed per field (the run's `mismatches` list every one)."""


def disagreement_finding(path: str, profile: str | None, mismatches: Sequence[Mismatch]) -> Finding | None:
    """The warning finding of a reproduction-profile run whose recorded labels disagree with its log (else None)."""
    if profile not in REPRODUCTION_PROFILES or not mismatches:
        return None
    by_field: dict[str, list[int]] = {}
    for m in mismatches:
        by_field.setdefault(m.field, []).append(m.line or 0)
    parts = []
    for name, lines in sorted(by_field.items()):
        shown = ", ".join(str(n) for n in sorted(lines)[:SHOWN_LINES]) + (", …" if len(lines) > SHOWN_LINES else "")
        parts.append(f"{name} × {len(lines)} (line {shown})")
    first = min(mismatches, key=lambda m: (m.line or 0, m.field))
    return Finding(path, first.line,
                   f"profile {profile} reproduces the reference system, and {len(mismatches)} recorded label(s) "
                   f"disagree with this log: {'; '.join(parts)}; first: {first.field} {first.recorded!r} vs "
                   f"{first.recomputed!r} ({first.reason}). Each is listed in the run's mismatches; a label this "
                   "profile reads as recorded (as the reference system does) moves its figure, which is never "
                   "ranked; profile driftboard derives every one from the log",
                   severity="warning")


__all__ = ["SHOWN_LINES", "disagreement_finding"]
