"""Stated completions, and statements with no effected write behind them (tau-airline-spec.md §8.2-8.3).

A *stated completion* is a clause of an assistant reply to the user (a respond turn: text on a
tool-call turn never reaches the user) that says a write action happened: "has/have been
[successfully] booked/cancelled/…", "booking/reservation … is confirmed/cancelled", "you are now
booked", "successfully <verb>". A clause that is a question, or has a negation, condition or future
word before the phrase ("not", "if", "once", "will", "would", "can", …), states nothing. Clauses are
split at sentence ends, new lines, ";" and ", and ".

Each statement is mapped to the write tool that would carry it out (rules in order: certificate or
compensation → `send_certificate`; "rebooked"/"now booked" → a booking or a flight change; booked →
`book_reservation`; cancelled → `cancel_reservation`; bags → `update_reservation_baggages`; passenger
details → `update_reservation_passengers`; flight, cabin or class words → `update_reservation_flights`).
A clause with no such object is backed by any effected write. A statement is **unbacked** when no
effected write call of a matching tool comes earlier in the log.

On τ-bench's 200 gpt-4o trajectories: 101 claimed-done episodes state a completion, 3 have an unbacked
statement (entries 3, 5 and 153, all reward 0). The rules are tuned to that file's wording: high
precision, a lower bound. They are deterministic and read only the log.

Why the scorer uses them: removing a write call *and* its result from a log gives another, consistent
episode whose database may now equal the gold one. When the agent had told the user the write was
done, the statement is left with nothing behind it, and the episode is not verified.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from checker.completion.episode import Episode
from checker.completion.replay import CallOutcome, Replayed
from checker.format.results_completion import StatedCompletion

_VERBS = r"booked|cancell?ed|updated|changed|upgraded|downgraded|added|issued|modified|removed|rebooked|confirmed|completed"
_STATED = re.compile(
    rf"\b(?:has|have)\s+been\s+(?:successfully\s+)?(?:{_VERBS})\b"
    r"|\b(?:booking|reservation)\b[^.?!]*?\bis\s+(?:now\s+)?(?:confirmed|cancell?ed)\b"
    r"|\byou\s+are\s+now\s+booked\b"
    rf"|\bI(?:\s+have|'ve)\s+(?:successfully\s+)?(?:{_VERBS})\b"
    rf"|\bsuccessfully\s+(?:{_VERBS})\b",
    re.IGNORECASE)
_HEDGE = re.compile(r"(?i:\b(?:not|no|never|if|once|will|would|can|could|should|shall|might|whether|unless|"
                    r"to\s+be)\b|n't\b)|\bmay\b")
"""Words that make a clause other than a statement of fact (case-blind, except `may`: the month is May)."""
_CLAUSES = re.compile(r"(?<=[.!?])\s+|\n+|;|,\s+and\s+")
MAX_STATEMENTS = 40
"""Stated completions kept per episode in the results (every one is checked)."""
MAX_CLAUSE = 300
"""Characters of a clause kept in the results."""
MAX_TEXT = 20_000
"""Characters of one reply read (a longer reply is cut)."""
MAX_CLAUSE_READ = 2_000
"""Characters of one clause matched: two patterns scan forward from each "booking"/"reservation", so a clause's
cost grows with its length times its occurrences; the bound keeps a reply under a million steps."""

_RULES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"certificate|compensation", re.I), frozenset({"send_certificate"})),
    (re.compile(r"\brebooked\b|\bnow\s+booked\b", re.I),
     frozenset({"book_reservation", "update_reservation_flights"})),
    (re.compile(r"\bbooked\b|\bbooking\b.*\b(?:confirmed|completed)\b", re.I), frozenset({"book_reservation"})),
    (re.compile(r"\bcancell?ed\b", re.I), frozenset({"cancel_reservation"})),
    (re.compile(r"\bbags?\b|\bbaggages?\b|\bluggage\b", re.I), frozenset({"update_reservation_baggages"})),
    (re.compile(r"\bpassengers?\b|\bname\b|\bdate of birth\b|\bdob\b", re.I),
     frozenset({"update_reservation_passengers"})),
    (re.compile(r"\bflights?\b|\bcabin\b|\bclass\b|\beconomy\b|\bbusiness\b", re.I),
     frozenset({"update_reservation_flights"})),
)


@dataclass(frozen=True)
class Statement:
    """One stated completion: where it is, the clause, the write tools that would back it (empty: any)."""

    step: int
    line: int
    clause: str
    tools: frozenset[str]


def clauses(text: str) -> list[str]:
    """The clauses of one reply (§8.2's split)."""
    return [c.strip()[:MAX_CLAUSE_READ] for c in _CLAUSES.split(text[:MAX_TEXT]) if c.strip()]


def stated(clause: str) -> bool:
    """The clause says a write action happened: the phrase, not in a question, no hedge word before it."""
    m = _STATED.search(clause)
    if m is None or clause.rstrip().endswith("?"):
        return False
    return _HEDGE.search(clause[: m.start()]) is None


def backing_tools(clause: str) -> frozenset[str]:
    """The write tools that would carry the statement out (§8.3's rules, first match); empty: any write."""
    for pattern, tools in _RULES:
        if pattern.search(clause):
            return tools
    return frozenset()


def statements(replies: Iterable[tuple[int, int, str]]) -> list[Statement]:
    """Every stated completion of the replies `(step, line, text)` the agent sent the user."""
    return [Statement(step, line, c, backing_tools(c))
            for step, line, text in replies for c in clauses(text) if stated(c)]


def unbacked(found: Sequence[Statement], calls: Sequence[CallOutcome]) -> list[Statement]:
    """The statements with no effected write call of a matching tool earlier in the log."""
    done = [(c.step, c.name) for c in calls if c.effected]
    return [s for s in found
            if not any(step < s.step and (not s.tools or name in s.tools) for step, name in done)]


def stated_completions(ep: Episode, done: Replayed) -> list[StatedCompletion]:
    """The episode's stated completions up to its end, each marked backed or not."""
    last = done.ending_step if done.ending_step is not None else len(ep.steps) - 1
    replies = [(i, step.line, step.content) for i, step in enumerate(ep.steps[: last + 1])
               if step.call is None and step.content]
    found = statements(replies)
    missing = set(map(id, unbacked(found, done.calls)))
    return [StatedCompletion(line=s.line, clause=s.clause if len(s.clause) <= MAX_CLAUSE else s.clause[:MAX_CLAUSE] + "…",
                             tools=sorted(s.tools), backed=id(s) not in missing) for s in found]
