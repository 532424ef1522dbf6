"""Evidence cross-checks: labels a submitter writes, checked against lower-level rows of the same log.

The gate and the metrics read some fields as written. Each check here derives such a field from
lower-level evidence in the log, or checks it against that evidence, and reports every
disagreement as a `Contradiction` (the check's name and a `Mismatch`). In profile `driftboard`
the derived values are used in the figures and the gate's `evidence` condition fails the run on
any of these mismatches (see `site/tracks/agent.md`, "What the checker derives and what it
trusts"). Profile `arg-v1.0` reproduces ARG, which reads these fields as recorded.

Checks (profile `driftboard`), one module each:

* `references` — **reference stamps**: a beat's `step_id` must name a `plan_step` of the log; a
  beat whose turn has a STEP receipt must carry that receipt's step, and one with a `substitution`
  row or a live `source_stamp` must carry a step at all; a `shadow_step_id` must name a goal, rule
  and target of the log; a SHADOW-stamped beat must not drop a shadow step still in force; a step
  marked CONSUMED must have been executed by an earlier beat.
* `aim` — an action the run's startup probe declares targeted (`action_interface` entry with
  `x` and `y` ranges) must carry integer `x`, `y` inside those ranges; it counts as aimed either way.
* `canary` — **canary nonces**: an echo's nonce must be the nonce of the salt row of the same
  organ, call and zone; the echo is recomputed against the salt's nonce (no salt, or no output text
  with a wrong nonce: not echoed).
* `receipts` — `match` is recomputed from `predicted` vs `observed` (`zero` / `nonzero` /
  equal value, for every predicted key).
* `write_ops` — **write rejects**: per organ, the calls' `ops_rejected` must equal the number of
  `write_reject` rows (canary rows aside, which ARG writes without counting them on the call);
  the larger of the two counts as the organ's rejects; MISSING_CANARY rows must be at least the
  salted calls that echoed none of their nonces; an Actuator call accepts at most one op.

`contradiction` holds the record every check reports; `check_evidence` runs them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.agent.evidence.aim import aim, targeted_actions
from checker.agent.evidence.canary import echo_values, salt_nonces
from checker.agent.evidence.contradiction import Contradiction, contradiction, log_order
from checker.agent.evidence.receipts import receipt_match, receipts
from checker.agent.evidence.references import Reference, consumed_steps, references
from checker.agent.evidence.write_ops import accepted_counts, reject_counts
from checker.agent.replay import AgentState
from checker.format.results_model import Mismatch


@dataclass
class EvidenceResult:
    """Derived values and the disagreements with what the log records."""

    mismatches: list[Contradiction] = field(default_factory=list)
    """Every disagreement, in (line, field) order (`check_evidence`; the milestone figure's is appended last)."""
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


def check_evidence(state: AgentState) -> EvidenceResult:
    """Run every evidence cross-check over a replayed run (see the module docstring)."""
    found: list[Contradiction] = []
    matches, receipt_found, step_receipt = receipts(state)
    derived_references = references(state, found, step_receipt)
    consumed_steps(state, found)
    aimed = aim(state, found)
    echoed, echo_found = echo_values(state)
    rejects, reject_found = reject_counts(state, echoed)
    accepted, accepted_found = accepted_counts(state)
    found += echo_found + receipt_found + reject_found + accepted_found
    found.sort(key=log_order)
    return EvidenceResult(mismatches=found, references=derived_references, aimed=aimed, receipt_match=matches,
                          rejects=rejects, accepted=accepted, echoed=echoed)


__all__ = ["Contradiction", "EvidenceResult", "Reference", "accepted_counts", "check_evidence", "contradiction",
           "echo_values", "receipt_match", "reject_counts", "salt_nonces", "targeted_actions"]
