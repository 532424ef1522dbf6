"""Evidence is consistent before it verifies anything: per subject, transitions chain.

An `evidence` event that records a transition (`subject`, `before`, `after` all given) says the
subject held `before` when it was observed, and `after` afterwards. Taken in beat order (then line
order), across the whole run, the transitions of one (kind, subject) must chain: each `before`
equals the previous `after` (subjects compared after NFKC, stripping and case folding). A transition
whose `before` contradicts the previous `after` is listed as a mismatch (field `before`), and then
no record of that (kind, subject) is evidence, the first one included: which of them is the true
one, the log cannot tell (a log that records the same `a → b` change of one file at every claim
contradicts itself from the second record on, and keeping the first would still credit a change the
log disowns). The chain continues from the contradicting record's `after`, so one bad record is one
mismatch, not a cascade.
"""

from __future__ import annotations

import unicodedata

from checker.agent.replay import AgentState
from checker.format.results_model import Mismatch


def subject_key(subject: str) -> str:
    """A subject as compared: NFKC, outer spaces stripped, case folded (`a.txt ` and `A.TXT` are one subject)."""
    return unicodedata.normalize("NFKC", subject).strip().casefold()


def chain_breaks(state: AgentState) -> dict[int, Mismatch]:
    """Log line -> mismatch, for every record of a (kind, subject) whose transitions do not chain.

    The records whose `before` is not the previous `after` name it (field `before`); the other
    records of a broken subject say which record broke it (field `subject`).
    """
    order = sorted((ev.turn, line, k) for k, (ev, line) in enumerate(zip(state.evidence, state.evidence_lines,
                                                                               strict=True))
                   if ev.subject is not None and ev.before is not None and ev.after is not None)
    last: dict[tuple[str, str], tuple[str, int, int]] = {}
    records: dict[tuple[str, str], list[tuple[int, int]]] = {}
    out: dict[int, Mismatch] = {}
    first_break: dict[tuple[str, str], int] = {}
    for turn, line, k in order:
        ev = state.evidence[k]
        key: tuple[str, str] = (ev.kind, subject_key(str(ev.subject)))
        records.setdefault(key, []).append((turn, line))
        prev = last.get(key)
        if prev is not None and ev.before != prev[0]:
            first_break.setdefault(key, line)
            out[line] = Mismatch(
                line=line, field="before", recorded=ev.before, recomputed=prev[0],
                reason=f"{ev.kind} evidence for {ev.subject!r} at beat {turn} starts from {ev.before!r}, but the "
                       f"previous record of that subject (line {prev[2]}, beat {prev[1]}) ended at {prev[0]!r}: "
                       "the transitions do not chain, so no record of this subject is evidence")
        last[key] = (str(ev.after), turn, line)
    for key, broke in first_break.items():
        for turn, line in records[key]:
            out.setdefault(line, Mismatch(
                line=line, field="subject", recorded=key[1], recomputed=None,
                reason=f"the {key[0]} records of {key[1]!r} contradict each other (line {broke} does not chain): "
                       f"this one (beat {turn}) is not evidence either"))
    return out


__all__ = ["chain_breaks"]
