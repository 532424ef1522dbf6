"""Reference stamps: each acted beat's reference step derived from the log, and the stamps that contradict it.

A beat's `step_id` must name a `plan_step` of the log; a beat whose turn has a STEP receipt
(`predictor_kind` STEP) must carry that receipt's step, and one with a `substitution` row or a
`source_stamp` of COMMITMENT_STEP / FALLBACK must carry a step at all; a `shadow_step_id` must be
`goal|action|target|rule` whose goal, rule and target exist in the log; a SHADOW-stamped acted beat
without a shadow step while the previous beat's shadow step is still in force (its goal not closed,
its rule not demoted) has dropped it; a step marked CONSUMED must have been executed by an earlier beat.
"""

from __future__ import annotations

from bisect import bisect_right

from checker.agent.evidence.contradiction import Contradiction, contradiction
from checker.agent.replay import AgentState
from checker.format.schema.agent import Beat

CLOSED_GOAL = frozenset({"ACCEPTED", "REJECTED", "ABANDONED", "RETIRED", "COMPLETED", "DONE", "FAILED",
                         "SUPERSEDED"})
"""Goal statuses after which a shadow step compiled toward the goal is no longer in force."""
DROPPED_RULE = frozenset({"DEMOTED", "REJECTED", "RETIRED", "REFUTED"})
"""Rule statuses after which a shadow step citing the rule is no longer in force."""
LIVE_STAMPS = frozenset({"COMMITMENT_STEP", "FALLBACK"})
"""`source_stamp` values that say the beat executed a live plan step."""

Reference = tuple[str | None, str | None, bool]
"""(reference action, reference target, live) of a reference beat."""


def _status_history(state: AgentState, kind: str) -> dict[str, tuple[list[int], list[str]]]:
    """Per entity: (lines, statuses) of its transitions of `kind`, in log order."""
    out: dict[str, tuple[list[int], list[str]]] = {}
    for row, line in zip(state.transitions, state.transition_lines, strict=True):
        if row.entity_kind == kind:
            lines, values = out.setdefault(row.entity_id, ([], []))
            lines.append(line)
            values.append(row.to_status)
    return out


def _status_at(history: dict[str, tuple[list[int], list[str]]], entity: str, line: int) -> str | None:
    entry = history.get(entity)
    if entry is None:
        return None
    k = bisect_right(entry[0], line)
    return entry[1][k - 1] if k else None


class _References:
    """Derives each acted beat's reference step and checks its recorded stamps (the state kept across beats)."""

    __slots__ = ("found", "histories", "in_force", "shadows", "state", "step_receipt", "steps", "substituted")

    def __init__(self, state: AgentState, found: list[Contradiction], step_receipt: dict[int, tuple[int, str]]) -> None:
        """`step_receipt`: per beat number, (line, step) of the beat's first STEP receipt (`_receipts`)."""
        self.state, self.found, self.step_receipt, self.steps = state, found, step_receipt, state.plan_steps
        self.substituted: dict[int, str] = {}
        for sub in state.substitutions:
            self.substituted.setdefault(sub.turn, sub.step_target)
        self.histories: dict[str, dict[str, tuple[list[int], list[str]]]] = {}  # GOAL / RULE, built when first needed
        # shadow_step_id -> (problem, reference): a shadow step is parsed and looked up once per log
        self.shadows: dict[str, tuple[str | None, Reference | None]] = {}
        self.in_force: str | None = None
        """The shadow step of the last beat that named one, while it is in force."""

    def reference(self, beat: Beat, line: int) -> Reference | None:
        """The reference step of an acted beat (None: not a reference beat), listing what contradicts its stamps."""
        turn = beat.turn
        if beat.step_id or turn in self.step_receipt or turn in self.substituted or beat.source_stamp in LIVE_STAMPS:
            decided, ref = self._live_reference(beat, line)
            if decided:
                return ref
        if beat.shadow_step_id:  # no step_id (or a STEP receipt or live stamp naming no plan step)
            return self._shadow(beat.shadow_step_id, line)
        if beat.drift_ref == "SHADOW" and self.in_force is not None:
            return self._dropped_shadow(self.in_force, line)
        return None

    def _live_reference(self, beat: Beat, line: int) -> tuple[bool, Reference | None]:
        """(decided, reference) of a beat with a live stamp or a sign of one; not decided: read its shadow stamps."""
        derived_sid = self._live_step(beat, line)
        if derived_sid is not None:
            step = self.steps[derived_sid]
            return True, (step.action, step.target_ref, True)
        if beat.turn in self.substituted:  # no step_id, or one naming no plan step
            return True, (beat.action, self.substituted[beat.turn], True)
        return bool(beat.step_id), None

    def _live_step(self, beat: Beat, line: int) -> str | None:
        """The plan step the beat executed: its STEP receipt's, else its own `step_id` when the log defines it."""
        sid, turn, steps = beat.step_id, beat.turn, self.steps
        if sid and sid not in steps:
            self.found.append(contradiction("reference", line, "step_id", sid, None,
                                            f"the beat's live stamp names step {sid}, which no plan_step of the log "
                                            "defines"))
        receipt = self.step_receipt.get(turn) if self.step_receipt else None
        if receipt is not None and receipt[1] in steps and receipt[1] != sid:
            self.found.append(contradiction("reference", line, "step_id", sid, receipt[1],
                                            f"the STEP receipt of beat {turn} (line {receipt[0]}) was registered "
                                            f"for step {receipt[1]}: the beat executed that step"))
            return receipt[1]
        if not sid:
            self._unstamped_live(beat, line)
        return sid if sid in steps else None

    def _unstamped_live(self, beat: Beat, line: int) -> None:
        """A beat without `step_id` that a substitution row or its `source_stamp` says executed a live step."""
        turn = beat.turn
        subst = turn in self.substituted
        if subst or beat.source_stamp in LIVE_STAMPS:
            why = (f"a substitution row of beat {turn} says a live step's aimed action landed elsewhere"
                   if subst else f"its source_stamp {beat.source_stamp} says it executed a live step")
            self.found.append(contradiction("reference", line, "step_id", None, "a plan step",
                                            f"the beat carries no step_id but {why}"))

    def _shadow(self, shadow: str, line: int) -> Reference | None:
        """A beat naming a shadow step: the step's reference when it parses, and whether the log defines it."""
        parsed = self.shadows.get(shadow)
        if parsed is None:
            fields = shadow.split("|")
            parsed = self.shadows[shadow] = (_shadow_problem(self.state, fields), (
                (fields[1], None if fields[2] == "-" else fields[2], False) if len(fields) >= 3 else None))
        problem, ref = parsed
        if problem:
            self.found.append(contradiction("reference", line, "shadow_step_id", shadow, None,
                                            f"not a shadow step of this log: {problem}"))
        if ref is not None:
            self.in_force = shadow
        return ref

    def _dropped_shadow(self, in_force: str, line: int) -> Reference | None:
        """A SHADOW-stamped beat without a shadow step: the previous one's, if still in force (then listed)."""
        fields = in_force.split("|")
        goal_status = self._status_at("GOAL", fields[0], line)
        rule_status = self._status_at("RULE", fields[3], line) if len(fields) > 3 and fields[3] != "-" else None
        if goal_status in CLOSED_GOAL or rule_status in DROPPED_RULE:
            self.in_force = None
            return None
        self.found.append(contradiction("reference", line, "shadow_step_id", None, in_force,
                                        f"the shadow step {in_force} of the previous beat is still in force "
                                        f"(goal {fields[0]} {goal_status or 'without status'}): a SHADOW stamp "
                                        "without it drops the beat from the reference set"))
        return fields[1], None if fields[2] == "-" else fields[2], False

    def _status_at(self, kind: str, entity: str, line: int) -> str | None:
        if kind not in self.histories:
            self.histories[kind] = _status_history(self.state, kind)
        return _status_at(self.histories[kind], entity, line)


def references(state: AgentState, found: list[Contradiction], step_receipt: dict[int, tuple[int, str]]) -> list[Reference | None]:
    """Per beat, the reference step derived from the log (None: not a reference beat); contradicted stamps into `found`.

    `step_receipt` is, per beat number, (line, step) of the beat's first STEP receipt
    (`checker.agent.evidence.receipts.receipts`).
    """
    reference = _References(state, found, step_receipt).reference
    return [None if beat.action == "RESET" else reference(beat, line)
            for beat, line in zip(state.beats, state.beat_lines, strict=True)]


def consumed_steps(state: AgentState, found: list[Contradiction]) -> None:
    """A step the log marks CONSUMED must have been executed by a beat logged before that transition."""
    consumed = [(row, line) for row, line in zip(state.transitions, state.transition_lines, strict=True)
                if row.entity_kind == "COMMITMENT_STEP" and row.to_status == "CONSUMED"]
    first_beat: dict[str, int] = {}
    for beat, line in zip(state.beats, state.beat_lines, strict=True) if consumed else ():
        if beat.step_id:
            first_beat.setdefault(beat.step_id, line)
    for row, line in consumed:
        executed = first_beat.get(row.entity_id)
        if executed is None or executed > line:
            found.append(contradiction("reference", line, "step_id", None, row.entity_id,
                                       f"step {row.entity_id} is marked CONSUMED here, but no beat before this line "
                                       "carries its step_id: a beat that executed it lost its live stamp"))


def _shadow_problem(state: AgentState, fields: list[str]) -> str | None:
    if len(fields) < 3:
        return f"{len(fields)} field(s), a shadow step is goal|action|target|rule"
    goal, target = fields[0], fields[2]
    rule = fields[3] if len(fields) > 3 else "-"
    if goal not in ("", "-") and goal not in state.goals:
        return f"goal {goal} is not in the log"
    if target != "-" and target not in state.referent_ids:
        return f"target {target} is not a referent of the log"
    if rule not in ("", "-") and rule not in state.rules:
        return f"rule {rule} is not in the log"
    return None


__all__ = ["CLOSED_GOAL", "DROPPED_RULE", "LIVE_STAMPS", "Reference", "consumed_steps", "references"]
