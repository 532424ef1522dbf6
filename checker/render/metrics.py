"""Every metric the site shows: its definition and its undefined case (rendered on `metrics.md`).

Metric names are the scorers' keys. A metric that appears in results but is missing here is
listed on the page as "not yet documented", so the page cannot silently fall behind the scorers.
"""

from __future__ import annotations

from checker.render.context import MetricDoc

_A = "agent"
_C = "constraint"
_ALL = "both"

METRICS: list[MetricDoc] = [
    # agent track: decomposition (arg-spec §c.2)
    {"name": "drift_ref_beats", "track": _A,
     "definition": "Reference beats: acted (non-RESET) beats with a live plan step found in the log, or a shadow "
                   "step of at least three `|`-separated fields.",
     "undefined": "Never undefined; 0 when the run has no reference beat."},
    {"name": "gds_bind", "track": _A,
     "definition": "Share of reference beats that are **bind**: on plan, the step names a target, the action is "
                   "aimed, and it landed on a different referent (or on the background).",
     "undefined": "Undefined (—) when the run has no reference beat; 0 when it has reference beats and none binds."},
    {"name": "gds_aligned", "track": _A,
     "definition": "Share of reference beats that are **aligned**: live beats that are not bind, and shadow beats "
                   "that are on plan and landed on the step's target.",
     "undefined": "Undefined (—) when the run has no reference beat."},
    {"name": "gds_abandon", "track": _A,
     "definition": "Share of reference beats that are **abandon** (shadow beats only): off plan, or landed off the "
                   "step's target. A live beat is never abandon.",
     "undefined": "Undefined (—) when the run has no reference beat; 0 by construction in agenda-on cells."},
    {"name": "drift_total", "track": _A,
     "definition": "(bind + abandon) / reference beats, computed from counts (may differ by 0.001 from the sum "
                   "of the two rounded rates).",
     "undefined": "Undefined (—) when the run has no reference beat."},
    {"name": "completions", "track": _A,
     "definition": "Levels completed in the run, read from the game's own score events. Shown first: a cell "
                   "with 0 completions is a null result whatever its mechanism numbers.",
     "undefined": "Never undefined for a VALID run; runs that are not VALID are not counted."},
    {"name": "RGR", "track": _A, "definition": "Referent grounding rate (arg-spec §c.3).",
     "undefined": "Undefined when the run has no grounded action to judge."},
    {"name": "GA", "track": _A, "definition": "Goal admission rate (arg-spec §c.4).",
     "undefined": "Undefined when no goal was proposed."},
    {"name": "ICR", "track": _A, "definition": "Invalid-commitment rate (arg-spec §c.4).",
     "undefined": "Undefined when no commitment was compiled."},
    {"name": "WER", "track": _A,
     "definition": "Write error rate: rejected writes / write operations, per organ and in total (arg-spec §c.5); "
                   "an organ above the pre-registered floor (with at least the minimum number of operations) "
                   "fails the gate.",
     "undefined": "Undefined for an organ with no write operation."},
    {"name": "grounding_rate_all", "track": _A, "definition": "Grounded beats / acted beats (arg-spec §c.3).",
     "undefined": "Undefined when the run has no acted beat."},
    {"name": "llm_calls", "track": _ALL, "definition": "LLM calls recorded in the log.",
     "undefined": "Never undefined (0 when none)."},
    {"name": "llm_tokens", "track": _ALL, "definition": "Prompt + completion tokens recorded in the log.",
     "undefined": "Undefined when the log records no token counts."},
    {"name": "milestone_verified_ratio", "track": _A,
     "definition": "Milestones with deterministic evidence in the log / milestones claimed.",
     "undefined": "Undefined when no milestone is claimed."},
    # constraint track (drift-spec §b.6)
    {"name": "turns", "track": _C, "definition": "Dialogue turns scored in the run.",
     "undefined": "Never undefined."},
    {"name": "correct_turns", "track": _C,
     "definition": "Turns whose answer satisfies the gold cumulative constraints (recomputed with Z3).",
     "undefined": "Never undefined; runs that are not VALID are not counted."},
    {"name": "turn_accuracy", "track": _C, "definition": "correct_turns / turns (a micro mean over turns).",
     "undefined": "Undefined when the run has no scored turn."},
    {"name": "consistent_rate", "track": _C, "definition": "Share of turns labelled **consistent** (answer correct).",
     "undefined": "Undefined when the run has no scored turn."},
    {"name": "drift_rate", "track": _C,
     "definition": "Share of turns labelled **drift**: the answer is wrong while the model's own ledger is "
                   "satisfiable (satisfiable drift).",
     "undefined": "Undefined when the run has no scored turn."},
    {"name": "contradiction_rate", "track": _C,
     "definition": "Share of turns labelled **contradiction**: the answer is wrong and the ledger is unsatisfiable.",
     "undefined": "Undefined when the run has no scored turn."},
    {"name": "other_rate", "track": _C,
     "definition": "Share of turns labelled **other**: wrong, and the ledger's satisfiability could not be decided "
                   "(no ledger, Z3 error).",
     "undefined": "Undefined when the run has no scored turn."},
    {"name": "parse_fail_rate", "track": _C, "definition": "Share of turns whose answer could not be parsed.",
     "undefined": "Undefined when the run has no scored turn."},
]


def documented() -> set[str]:
    """Names with an entry in `METRICS`."""
    return {m["name"] for m in METRICS}
