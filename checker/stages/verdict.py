"""The one verdict function: every stage reports what it found about a run; `judge` decides the verdict.

A run's verdict used to be written in four places (the verify loop, the gate, the agent scorer, copy
detection), each overriding the last in an order no one had stated. Now each of them records a
`Fact` (a kind and a reason line) and only `judge` turns the facts into a verdict, by the precedence
table `PRECEDENCE`: the first rule whose kind is among the facts wins; with no fact at all the run is
VALID. The reasons shown are every fact's reason, in the order the stages recorded them.

| precedence | fact kind      | verdict    | meaning |
|---|---|---|---|
| 1 | `malformed`    | MALFORMED  | the log is not the format (unreadable, broken chain, a foreign header): nothing is read |
| 2 | `unverified`   | UNVERIFIED | well-formed but not scored (too large to replay, a named input not given) |
| 3 | `copy`         | INVALID    | the same event payloads as an earlier run of the submission: a copy counts once |
| 4 | `inconsistent` | INVALID    | the log contradicts what it must match (its problem set, its pre-registration) |
| 5 | `incomplete`   | INCOMPLETE | the run did not finish: no `run_end`, ABORTED or FAILED, or declared turns missing |
| 6 | `invalid`      | INVALID    | a condition of the validity gate failed |
| 7 | `comparator`   | COMPARATOR | a run of a pre-registered comparator cell (BARE, RAW) whose gate passed: compute parity only |
| - | (none)         | VALID      | every check passed |

A contradiction outranks an unfinished run (a reader is told first that the log disagrees with its
inputs, not that it stopped early); a gate failure does not (an unfinished run is judged unfinished
first, its gate outcome stays in `gate_verdict`). A gate failure outranks a comparator cell: every
run is gated, as ARG's legibility probe gates every run it is given (a probe-only store pair of a
comparator cell with no startup row is INVALID there, issue 29); a comparator run counts toward
compute parity only when its own log passes the gate.
Every verdict but VALID and COMPARATOR counts as the worst outcome in a ranked figure
(intent-to-treat), so the order decides only which name a reader sees first, never whether a run counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from checker.format.results_model import FactKind, RunResult, Verdict
from checker.format.results_model import VerdictFact as Fact


@dataclass(frozen=True, slots=True)
class Rule:
    """A row of the precedence table."""

    kind: FactKind
    verdict: Verdict
    meaning: str


PRECEDENCE: tuple[Rule, ...] = (
    Rule("malformed", "MALFORMED", "the log is not the format: nothing in it is read"),
    Rule("unverified", "UNVERIFIED", "the log is well-formed but could not be scored"),
    Rule("copy", "INVALID", "a copy of another run of the submission: it counts once"),
    Rule("inconsistent", "INVALID", "the log contradicts what it must match (problem set, pre-registration)"),
    Rule("incomplete", "INCOMPLETE", "the run did not finish"),
    Rule("invalid", "INVALID", "a condition of the validity gate failed"),
    Rule("comparator", "COMPARATOR", "a pre-registered comparator run whose gate passed: compute parity only"),
)
"""Highest precedence first; `judge` takes the first rule whose kind is among a run's facts."""


def judge(facts: Iterable[Fact]) -> tuple[Verdict, list[str]]:
    """The verdict of a run with these facts, and its reasons (every fact's reason, in order)."""
    facts = list(facts)
    kinds = {f.kind for f in facts}
    verdict: Verdict = next((rule.verdict for rule in PRECEDENCE if rule.kind in kinds), "VALID")
    return verdict, [f.reason for f in facts]


def facts_of(run: RunResult) -> list[Fact]:
    """The facts a run's verdict was judged from (kept beside the run, never written to a results file)."""
    return list(run.verdict_facts)


def judged(run: RunResult, facts: Sequence[Fact]) -> RunResult:
    """`run` with its verdict and reasons judged from `facts` (which it keeps for a later `with_fact`)."""
    verdict, reasons = judge(facts)
    out = run.model_copy(update={"verdict": verdict, "reasons": reasons})
    out._verdict_facts = tuple(facts)
    return out


def judged_run(facts: Sequence[Fact], **fields: object) -> RunResult:
    """A new `RunResult` with these fields, its verdict and reasons judged from `facts`."""
    verdict, reasons = judge(facts)
    out = RunResult.model_validate({**fields, "verdict": verdict, "reasons": reasons})
    out._verdict_facts = tuple(facts)
    return out


def with_fact(run: RunResult, fact: Fact) -> RunResult:
    """`run` judged again with one more fact (copy detection, after every run of a submission is scored)."""
    return judged(run, [*facts_of(run), fact])


__all__ = ["PRECEDENCE", "Fact", "FactKind", "Rule", "facts_of", "judge", "judged", "judged_run", "with_fact"]
