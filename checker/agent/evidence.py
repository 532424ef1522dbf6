"""Evidence cross-checks: labels a submitter writes, checked against lower-level rows of the same log.

The gate and the metrics read some fields as written. Each function here derives such a field
from lower-level evidence in the log, or checks it against that evidence, and reports every
disagreement as a `Contradiction` (the check's name and a `Mismatch`). In profile `driftboard`
the derived values are used in the figures and the gate's `evidence` condition fails the run on
any of these mismatches (see `site/tracks/agent.md`, "What the checker derives and what it
trusts"). Profile `arg-v1.0` reproduces ARG, which reads these fields as recorded.

Checks (profile `driftboard`):

* **reference stamps** — a beat's `step_id` must name a `plan_step` of the log; a beat whose
  turn has a STEP receipt (`predictor_kind` STEP) must carry that receipt's step, and one with a
  `substitution` row or a `source_stamp` of COMMITMENT_STEP / FALLBACK must carry a step at all;
  a `shadow_step_id` must be `goal|action|target|rule` whose goal, rule and target exist in the log;
  a SHADOW-stamped acted beat without a shadow step while the previous beat's shadow step is
  still in force (its goal not closed, its rule not demoted) has dropped it; a step marked
  CONSUMED must have been executed by an earlier beat.
* **aim** — an action the run's startup probe declares targeted (`action_interface` entry with
  `x` and `y` ranges) must carry integer `x`, `y` inside those ranges; it counts as aimed either way.
* **canary nonces** — an echo's nonce must be the nonce of the salt row of the same organ, call
  and zone; the echo is recomputed against the salt's nonce (no salt, or no output text with a
  wrong nonce: not echoed).
* **receipts** — `match` is recomputed from `predicted` vs `observed` (`zero` / `nonzero` /
  equal value, for every predicted key).
* **write rejects** — per organ, the calls' `ops_rejected` must equal the number of
  `write_reject` rows (canary rows aside, which ARG writes without counting them on the call);
  the larger of the two counts as the organ's rejects; MISSING_CANARY rows must be at least the
  salted calls that echoed none of their nonces; an Actuator call accepts at most one op.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from checker.agent.replay import AgentState
from checker.format.results_model import Mismatch
from checker.format.schema.agent import Beat, Receipt

CLOSED_GOAL = frozenset({"ACCEPTED", "REJECTED", "ABANDONED", "RETIRED", "COMPLETED", "DONE", "FAILED",
                         "SUPERSEDED"})
"""Goal statuses after which a shadow step compiled toward the goal is no longer in force."""
DROPPED_RULE = frozenset({"DEMOTED", "REJECTED", "RETIRED", "REFUTED"})
"""Rule statuses after which a shadow step citing the rule is no longer in force."""
LIVE_STAMPS = frozenset({"COMMITMENT_STEP", "FALLBACK"})
"""`source_stamp` values that say the beat executed a live plan step."""
CANARY_VIOLATION = "MISSING_CANARY"

Reference = tuple[str | None, str | None, bool]
"""(reference action, reference target, live) of a reference beat."""


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


def _order(c: Contradiction) -> tuple[int, str]:
    return c.line, c.mismatch.field


@dataclass
class EvidenceResult:
    """Derived values and the disagreements with what the log records."""

    mismatches: list[Contradiction] = field(default_factory=list)
    """Every disagreement, in (line, field) order (`check_evidence`; `figure_check`'s is appended last)."""
    references: list[Reference | None] = field(default_factory=list)
    """Per beat: the derived reference step (None = not a reference beat)."""
    aimed: list[bool] = field(default_factory=list)
    """Per beat: aimed (integer x, y) or an action the startup probe declares targeted."""
    receipt_match: list[int | None] = field(default_factory=list)
    """Per receipt: `match` recomputed from predicted vs observed (recorded when not recomputable)."""
    rejects: dict[str, int] = field(default_factory=dict)
    """Organ -> rejected ops derived from the reject rows and the calls' `ops_rejected`."""
    accepted: dict[str, int] = field(default_factory=dict)
    """Organ -> accepted ops, an Actuator call counting at most one op (`accepted_counts`)."""
    echoed: list[bool] | None = None
    """Per canary echo: `echoed` derived from the salt's nonce (`echo_values`), for the gate's condition 5."""

    def public_mismatches(self) -> list[Mismatch]:
        """The mismatches as the results list them."""
        return [c.mismatch for c in self.mismatches]

    def by_check(self) -> dict[str, int]:
        """Number of mismatches per check, in name order."""
        out: dict[str, int] = {}
        for c in self.mismatches:
            out[c.check] = out.get(c.check, 0) + 1
        return dict(sorted(out.items()))


_mm = contradiction


def targeted_actions(state: AgentState) -> dict[str, tuple[tuple[int, int] | None, tuple[int, int] | None]]:
    """Actions the startup probe declares targeted -> (x range, y range); ranges None when malformed."""
    probe = state.startup
    if probe is None or not probe.action_interface:
        return {}
    out: dict[str, tuple[tuple[int, int] | None, tuple[int, int] | None]] = {}
    for name, spec in probe.action_interface.items():
        if isinstance(spec, dict) and "x" in spec and "y" in spec:
            out[str(name)] = (_range(spec["x"]), _range(spec["y"]))
    return out


def _range(value: Any) -> tuple[int, int] | None:
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                             for v in value)):
        return int(value[0]), int(value[1])
    return None


def receipt_match(rc: Receipt) -> int | None:
    """`match` recomputed from `predicted` vs `observed`; None when the receipt predicts nothing.

    Every predicted key must hold in `observed` (a key `observed` lacks is read from the receipt's
    own `score_event` / `level_event` / `life_event` columns, as ARG stores them): `"zero"` -> the
    observed value is 0, `"nonzero"` -> it is a number other than 0, anything else -> equal
    (booleans and 0/1 compare equal).
    """
    return _match(rc, rc.predicted)


def _match(rc: Receipt, predicted: dict[str, Any] | None) -> int | None:
    """`receipt_match` of `rc`, whose `predicted` the caller has read already."""
    if not predicted:
        return None
    observed = rc.observed or {}
    for key, want in predicted.items():
        # a key `observed` lacks is read from the receipt's own columns (no dict built per receipt)
        got = observed[key] if key in observed else getattr(rc, key) if key in _RECEIPT_COLUMNS else None
        if want == "nonzero":
            if not isinstance(got, _NUMBER) or isinstance(got, bool) or got == 0:
                return 0
        elif want == "zero":
            if not isinstance(got, _NUMBER) or isinstance(got, bool) or got != 0:
                return 0
        elif got is None or got != want:
            return 0
    return 1


_NUMBER = (int, float)
"""`isinstance` with a tuple, not `int | float` (a union object built on every call)."""
_RECEIPT_COLUMNS = frozenset({"score_event", "level_event", "life_event"})
"""Receipt columns a prediction may name when `observed` lacks the key (`receipt_match`)."""


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


def _receipts(state: AgentState, res: EvidenceResult) -> tuple[list[Contradiction], dict[int, tuple[int, str]]]:
    """One pass over the receipts: `match` recomputed (into `res.receipt_match`) and its mismatches; STEP receipts.

    Returns the mismatches and, per beat number, (line, step) of its first STEP receipt (`_references`).
    """
    step_receipt: dict[int, tuple[int, str]] = {}
    mismatches: list[Contradiction] = []
    matches = res.receipt_match
    for rc, line in zip(state.receipts, state.receipt_lines, strict=True):
        if rc.predictor_kind == "STEP" and rc.predictor_id and rc.turn not in step_receipt:
            step_receipt[rc.turn] = (line, rc.predictor_id)
        predicted = rc.predicted
        derived = _match(rc, predicted) if predicted else None  # no prediction: nothing to recompute
        matches.append(derived)
        if rc.match != derived:
            mismatches.append(_mm("receipts", line, "match", rc.match, derived,
                                  f"predicted {_short(predicted)} vs observed {_short(rc.observed)}: "
                                  + ("no prediction to match" if derived is None else
                                     f"the prediction {'held' if derived else 'failed'}")))
    return mismatches, step_receipt


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
        derived_sid = self._live_step(beat, line)
        if derived_sid is not None:
            step = self.steps[derived_sid]
            return step.action, step.target_ref, True
        if beat.turn in self.substituted:  # no step_id, or one naming no plan step
            return beat.action, self.substituted[beat.turn], True
        if beat.step_id:
            return None
        if beat.shadow_step_id:
            return self._shadow(beat.shadow_step_id, line)
        if beat.drift_ref == "SHADOW" and self.in_force is not None:
            return self._dropped_shadow(self.in_force, line)
        return None

    def _live_step(self, beat: Beat, line: int) -> str | None:
        """The plan step the beat executed: its STEP receipt's, else its own `step_id` when the log defines it."""
        sid, turn, steps = beat.step_id, beat.turn, self.steps
        if sid and sid not in steps:
            self.found.append(_mm("reference", line, "step_id", sid, None,
                                  f"the beat's live stamp names step {sid}, which no plan_step of the log defines"))
        receipt = self.step_receipt.get(turn) if self.step_receipt else None
        if receipt is not None and receipt[1] in steps and receipt[1] != sid:
            self.found.append(_mm("reference", line, "step_id", sid, receipt[1],
                                  f"the STEP receipt of beat {turn} (line {receipt[0]}) was registered "
                                  f"for step {receipt[1]}: the beat executed that step"))
            return receipt[1]
        subst = turn in self.substituted
        if not sid and (subst or beat.source_stamp in LIVE_STAMPS):
            why = (f"a substitution row of beat {turn} says a live step's aimed action landed elsewhere"
                   if subst else f"its source_stamp {beat.source_stamp} says it executed a live step")
            self.found.append(_mm("reference", line, "step_id", None, "a plan step",
                                  f"the beat carries no step_id but {why}"))
        return sid if sid in steps else None

    def _shadow(self, shadow: str, line: int) -> Reference | None:
        """A beat naming a shadow step: the step's reference when it parses, and whether the log defines it."""
        parsed = self.shadows.get(shadow)
        if parsed is None:
            fields = shadow.split("|")
            parsed = self.shadows[shadow] = (_shadow_problem(self.state, fields), (
                (fields[1], None if fields[2] == "-" else fields[2], False) if len(fields) >= 3 else None))
        problem, ref = parsed
        if problem:
            self.found.append(_mm("reference", line, "shadow_step_id", shadow, None,
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
        self.found.append(_mm("reference", line, "shadow_step_id", None, in_force,
                              f"the shadow step {in_force} of the previous beat is still in force "
                              f"(goal {fields[0]} {goal_status or 'without status'}): a SHADOW stamp "
                              "without it drops the beat from the reference set"))
        return fields[1], None if fields[2] == "-" else fields[2], False

    def _status_at(self, kind: str, entity: str, line: int) -> str | None:
        if kind not in self.histories:
            self.histories[kind] = _status_history(self.state, kind)
        return _status_at(self.histories[kind], entity, line)


def _references(state: AgentState, res: EvidenceResult, step_receipt: dict[int, tuple[int, str]]) -> None:
    """Derive each beat's reference step (into `res.references`) and check the recorded stamps against the log.

    `step_receipt` is, per beat number, (line, step) of the beat's first STEP receipt (`_receipts`).
    """
    deriver = _References(state, res.mismatches, step_receipt)
    reference = deriver.reference
    res.references = [None if beat.action == "RESET" else reference(beat, line)
                      for beat, line in zip(state.beats, state.beat_lines, strict=True)]


def _consumed_steps(state: AgentState, res: EvidenceResult) -> None:
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
            res.mismatches.append(_mm("reference", line, "step_id", None, row.entity_id,
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


def _aim(state: AgentState, res: EvidenceResult) -> None:
    targeted = targeted_actions(state)
    aimed = res.aimed
    # a beat's aim is in its `Landing` (`aim_of(params)`, computed by replay)
    for beat, line, landing in zip(state.beats, state.beat_lines, state.landings, strict=True):
        spec = targeted.get(beat.action) if targeted else None
        if spec is None:
            aimed.append(landing.aimed)
            continue
        aimed.append(True)
        aim = landing.aim
        if aim is None:
            res.mismatches.append(_mm("aim", line, "params", beat.params, "integer x and y",
                                      f"{beat.action} is a targeted action in the run's startup probe "
                                      "(action_interface): it must carry the coordinates it was emitted with"))
            continue
        (x, y), (x_range, y_range) = aim, spec
        if (x_range is None or x_range[0] <= x <= x_range[1]) and (y_range is None or y_range[0] <= y <= y_range[1]):
            continue
        for value, bounds, axis in ((x, x_range, "x"), (y, y_range, "y")):
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                res.mismatches.append(_mm("aim", line, f"params.{axis}", value, list(bounds),
                                          f"{axis} {value} is outside the range [{bounds[0]}, {bounds[1]}] the "
                                          f"startup probe declares for {beat.action}"))


def salt_nonces(state: AgentState) -> dict[tuple[str, int, str], list[str]]:
    """(organ, call_idx, zone) -> nonces of the salt rows, in log order."""
    out: dict[tuple[str, int, str], list[str]] = {}
    for salt in state.salts:
        out.setdefault((salt.organ, salt.call_idx, salt.zone), []).append(salt.nonce)
    return out


def echo_values(state: AgentState) -> tuple[list[bool], list[Contradiction]]:
    """Per canary echo: `echoed` derived from the salt's nonce; and the nonce mismatches.

    The nonce of an echo is the salt row's of the same organ, call and zone. With the output text
    logged, echoed = that nonce occurs in the text; without it, the recorded flag stands only when
    the recorded nonce is the salt's. An echo no salt row accounts for keeps its own nonce (and is
    listed: the `evidence` condition fails on it).
    """
    salts = salt_nonces(state)
    values: list[bool] = []
    mismatches: list[Contradiction] = []
    for echo, line in zip(state.echoes, state.echo_lines, strict=True):
        nonces = salts.get((echo.organ, echo.call_idx, echo.zone))  # never an empty list
        recorded = echo.nonce
        if nonces is not None and recorded in nonces:
            nonce: str | None = recorded
        else:
            nonce = nonces[0] if nonces else recorded
            where = f"{echo.organ} call {echo.call_idx} zone {echo.zone}"
            mismatches.append(_mm("canary", line, "nonce", recorded, nonce if nonces else None,
                                  f"the salt row of {where} placed {nonce}" if nonces else
                                  f"no canary_salt row salts {where}: the echo cannot be checked"))
        text = echo.output_text
        if text is not None:
            values.append(bool(nonce) and nonce is not None and nonce in text)  # "" is in every text
        else:
            values.append(echo.echoed and nonce == recorded)
    return values, mismatches


def reject_counts(state: AgentState, echoed: list[bool] | None = None) -> tuple[dict[str, int], list[Contradiction]]:
    """Rejected ops per organ from both the reject rows and the calls' `ops_rejected`, and the disagreements.

    Per organ: rows = its `write_reject` rows other than MISSING_CANARY ones (ARG writes those
    without counting them on the call), called = the sum of its calls' `ops_rejected`; the organ's
    rejects are max(rows, called) plus max(MISSING_CANARY rows, deaf calls), a deaf call being a
    salted call none of whose echoes echoed (`echo_values`): ARG writes one MISSING_CANARY row per
    deaf call (arg-spec.md §b), so fewer rows than deaf calls means rows were removed. Totals per
    organ, not per beat: ARG's Actuator records a click's rejections on the call of another beat
    than its reject rows. `echoed` is `echo_values(state)[0]` when the caller has it already.
    """
    rows: dict[str, int] = {}
    canary: dict[str, int] = {}
    for wr in state.write_rejects:
        bucket = canary if wr.violation_class == CANARY_VIOLATION else rows
        bucket[wr.organ] = bucket.get(wr.organ, 0) + 1
    called: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for call, line in zip(state.llm_calls, state.llm_lines, strict=True):
        called[call.organ] = called.get(call.organ, 0) + call.ops_rejected
        first_line.setdefault(call.organ, line)
    if echoed is None:
        echoed, _ = echo_values(state)
    heard: dict[tuple[str, int], bool] = {}
    echo_line: dict[tuple[str, int], int] = {}
    for echo, value, line in zip(state.echoes, echoed, state.echo_lines, strict=True):
        key = (echo.organ, echo.call_idx)
        heard[key] = heard.get(key, False) or value
        echo_line.setdefault(key, line)
    deaf: dict[str, int] = {}
    deaf_line: dict[str, int] = {}
    for salted in {(salt.organ, salt.call_idx) for salt in state.salts}:
        if salted in heard and not heard[salted]:
            deaf[salted[0]] = deaf.get(salted[0], 0) + 1
            deaf_line[salted[0]] = min(deaf_line.get(salted[0], echo_line[salted]), echo_line[salted])
    out: dict[str, int] = {}
    mismatches = []
    for who in sorted(set(canary) | set(deaf)):
        n_rows, n_deaf = canary.get(who, 0), deaf.get(who, 0)
        out[who] = max(n_rows, n_deaf)
        if n_rows < n_deaf:
            mismatches.append(_mm("write_rejects", deaf_line[who], "MISSING_CANARY", n_rows, n_deaf,
                                  f"{n_deaf} salted {who} call(s) echoed none of their nonces, but the log has "
                                  f"{n_rows} MISSING_CANARY write_reject row(s) for {who}: {n_deaf} counted"))
    for organ in sorted(set(rows) | set(called)):
        r, c = rows.get(organ, 0), called.get(organ, 0)
        out[organ] = out.get(organ, 0) + max(r, c)
        if r != c:
            mismatches.append(_mm("write_rejects", first_line.get(organ, 1), "ops_rejected", c, r,
                                  f"the {organ} calls record {c} rejected op(s) in all but the log has {r} "
                                  f"write_reject row(s) for {organ} (MISSING_CANARY rows aside): {max(r, c)} "
                                  "counted as rejected"))
    return out, mismatches


def accepted_counts(state: AgentState) -> tuple[dict[str, int], list[Contradiction]]:
    """Accepted ops per organ; an Actuator call realises one click, so it accepts at most one op.

    ARG counts one Actuator op per click realisation, accepted or rejected (arg-spec.md §c.5): a
    call recording more (`ops_accepted` + `ops_rejected` > 1) is listed, and counts
    max(0, 1 - `ops_rejected`) accepted ops. The Observer's and the Surveyor's accepted ops have no
    lower-level row to be checked against (trusted).
    """
    out: dict[str, int] = {}
    mismatches = []
    for call, line in zip(state.llm_calls, state.llm_lines, strict=True):
        accepted = call.ops_accepted
        if call.organ == "ACTUATOR" and call.ops_accepted + call.ops_rejected > 1:
            accepted = max(0, 1 - call.ops_rejected)
            mismatches.append(_mm("write_rejects", line, "ops_accepted", call.ops_accepted, accepted,
                                  f"an ACTUATOR call realises one click (one op, accepted or rejected); this one "
                                  f"records {call.ops_accepted} accepted and {call.ops_rejected} rejected"))
        out[call.organ] = out.get(call.organ, 0) + accepted
    return out, mismatches


def check_evidence(state: AgentState) -> EvidenceResult:
    """Run every evidence cross-check over a replayed run (see the module docstring)."""
    res = EvidenceResult()
    receipt_mm, step_receipt = _receipts(state, res)
    _references(state, res, step_receipt)
    _consumed_steps(state, res)
    _aim(state, res)
    res.echoed, echo_mm = echo_values(state)
    res.mismatches.extend(echo_mm)
    res.mismatches.extend(receipt_mm)
    res.rejects, reject_mm = reject_counts(state, res.echoed)
    res.mismatches.extend(reject_mm)
    res.accepted, accepted_mm = accepted_counts(state)
    res.mismatches.extend(accepted_mm)
    res.mismatches.sort(key=_order)
    return res


def _short(obj: Any) -> str:
    import json

    return json.dumps(obj, sort_keys=True, separators=(",", ":"))[:120]


__all__ = ["EvidenceResult", "accepted_counts", "check_evidence", "echo_values", "receipt_match", "reject_counts", "salt_nonces",
           "targeted_actions"]
