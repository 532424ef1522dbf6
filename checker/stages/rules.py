"""Rules fixed before the runs (issue 14): threshold bounds, comparator kinds, the horizon, ranking.

A pre-registration chooses what a profile leaves open (cells, seeds, horizon, defeaters) and may
tighten the profile's gate thresholds; it may never loosen them, make an ablation a comparator, or
let events past its own horizon count. Only the `driftboard` profile is ranked: `arg-v1.0` and
`drift-bench-v1` reproduce the reference systems (conformance) and their submissions are shown
apart, never ranked.

Everything here reads the pre-registration and a run's events; nothing is trusted from the run's
own header when the pre-registration says otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from checker.format.errors import Finding
from checker.format.results_model import Mismatch
from checker.format.schema.manifest import Prereg, Thresholds
from checker.stages.tracks import RunRecord

RANKED_PROFILE = "driftboard"
"""The one profile the leaderboard ranks."""
REPRODUCTION_PROFILES = ("arg-v1.0", "drift-bench-v1")
"""Profiles kept for conformance and reproduction of the reference systems: never ranked."""
COMPARATOR_KINDS = ("BARE", "RAW")
"""The only cells that may be comparators (ARG's `argbare` / `argraw` agents: one LLM call per
action, no state store, never gated, used for compute parity only)."""

TIGHTER = {
    "render_ceiling_B": "lower",
    "wer_floor": "lower",
    "wer_min_ops": "lower",
    "canary_floor": "higher",
    "canary_warmup": "lower",
}
"""Gate threshold -> the direction in which a value is stricter than the profile's.

A run fails the render ceiling when a beat renders more than B tokens (lower B: stricter), an organ
when its write-error rate is above the floor (lower floor: stricter) once it has at least
`wer_min_ops` ops (fewer: more organs judged), a zone when its canary echo rate is below the
floor (higher floor: stricter); echo rows up to the warm-up are ignored (fewer: stricter)."""


def profile_thresholds(profile: str) -> Thresholds:
    """The thresholds a profile sets (all three profiles use ARG's published constants)."""
    del profile  # one set today; kept as a parameter so a future profile can differ
    return Thresholds()


def loosened_thresholds(prereg: Prereg) -> list[tuple[str, Any, Any, str]]:
    """(field, declared, profile value, direction) of every threshold looser than the profile's."""
    base = profile_thresholds(prereg.profile)
    out = []
    for name, direction in TIGHTER.items():
        declared, allowed = getattr(prereg.thresholds, name), getattr(base, name)
        looser = declared > allowed if direction == "lower" else declared < allowed
        if looser:
            out.append((name, declared, allowed, direction))
    return out


def prereg_findings(prereg: Prereg, display: str) -> list[Finding]:
    """Rule violations of a pre-registration: loosened thresholds, comparator cells of an unknown kind.

    Each is an error finding on `prereg.yaml` (verification exits 1, the pull-request check fails).
    Under a reproduction profile (`arg-v1.0`, `drift-bench-v1`: never ranked) a loosened threshold
    is a warning instead: reproducing a reference run may need the thresholds it was judged by
    (ARG reads them from its environment), and such a submission is shown apart, unranked.
    """
    out = []
    severity: Literal["error", "warning"] = "warning" if prereg.profile in REPRODUCTION_PROFILES else "error"
    for name, declared, allowed, direction in loosened_thresholds(prereg):
        bound = "at most" if direction == "lower" else "at least"
        tail = "" if severity == "error" else "; allowed only to reproduce a reference run: never ranked"
        out.append(Finding(display, None, f"thresholds.{name} is {declared}, looser than the {prereg.profile} "
                                          f"profile's {allowed}: a pre-registration may tighten a threshold, never "
                                          f"loosen it ({name} must be {bound} {allowed}){tail}", severity))
    for cell, spec in sorted(prereg.cells.items()):
        if not spec.comparator:
            continue
        if prereg.track != "agent":
            out.append(Finding(display, None, f"cell {cell!r} is declared a comparator: comparator cells exist on "
                                              "the agent track only"))
        elif cell not in COMPARATOR_KINDS:
            out.append(Finding(display, None, f"cell {cell!r} is declared a comparator, but a comparator cell must be "
                                              f"one of the comparator kinds {', '.join(COMPARATOR_KINDS)} (an "
                                              "ablation is gated and scored like any other cell)"))
    return out


def is_comparator_cell(prereg: Prereg | None, cell: str) -> bool:
    """True when `cell` is a pre-registered comparator cell of an allowed kind (agent track)."""
    if prereg is None or prereg.track != "agent" or cell not in COMPARATOR_KINDS:
        return False
    spec = prereg.cells.get(cell)
    return spec is not None and spec.comparator


def rank_status(profile: str, prereg: Prereg | None, track: str) -> tuple[bool, str | None]:
    """Whether a submission's results may be ranked, and why not.

    Ranked: scored under the `driftboard` profile, which its pre-registration names; thresholds
    not loosened; every comparator cell of an allowed kind; on the agent track, a declared horizon.
    """
    if prereg is None:
        return False, "no readable pre-registration"
    if prereg.profile != RANKED_PROFILE:
        return False, (f"pre-registered under profile {prereg.profile}, which reproduces a reference system "
                       f"(conformance only); the leaderboard ranks profile {RANKED_PROFILE} only")
    if profile != RANKED_PROFILE:
        return False, f"scored under profile {profile}; the leaderboard ranks profile {RANKED_PROFILE} only"
    if loosened_thresholds(prereg):
        return False, "the pre-registration loosens gate thresholds"
    if any(spec.comparator and not is_comparator_cell(prereg, cell) for cell, spec in prereg.cells.items()):
        return False, "the pre-registration declares a comparator cell of a kind that is not a comparator"
    if track == "agent" and prereg.horizon is None:
        return False, "the pre-registration declares no horizon"
    return True, None


def within_horizon(run: RunRecord, prereg: Prereg | None) -> tuple[RunRecord, Mismatch | None]:
    """The run without its events past the pre-registered horizon, and a mismatch record if any were dropped.

    The horizon is the number of actions a run may take: beats are numbered by `turn` (0 = the
    initial RESET), so events whose `turn` exceeds the horizon happened after the run should have
    stopped. They do not count: the run is replayed, gated and scored as if the log ended at the
    horizon (its verdict and figures are those of the pre-registered experiment). `run_end` is kept,
    so a run that ran past its horizon is not INCOMPLETE for it.
    """
    horizon = prereg.horizon if prereg is not None else None
    if horizon is None:
        return run, None
    keep = [getattr(e, "turn", 0) <= horizon for e in run.events]
    if all(keep):
        return run, None
    trimmed = replace(run, events=[e for e, k in zip(run.events, keep, strict=True) if k],
                      lines=[line for line, k in zip(run.lines, keep, strict=True) if k])
    return trimmed, _past_horizon(run, keep, horizon)


def _past_horizon(run: RunRecord, keep: list[bool], horizon: int) -> Mismatch:
    """The mismatch record of a run whose events past the horizon were dropped (`keep` False)."""
    dropped = [(e, line) for e, line, k in zip(run.events, run.lines, keep, strict=True) if not k]
    last = max(getattr(e, "turn", 0) for e, _ in dropped)
    return Mismatch(line=dropped[0][1], field="turn", recorded=last, recomputed=horizon,
                    reason=f"{len(dropped)} event(s) past the pre-registered horizon of {horizon} "
                           f"(turns up to {last}) are not counted")


__all__ = [
    "COMPARATOR_KINDS", "RANKED_PROFILE", "REPRODUCTION_PROFILES", "TIGHTER", "is_comparator_cell",
    "loosened_thresholds", "prereg_findings", "profile_thresholds", "rank_status", "within_horizon",
]
