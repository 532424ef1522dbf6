"""Claimed vs verified milestones.

A model saying a step is done (`milestone_claim`) is a claim, not an event. A claim is
*verified* when deterministic evidence appears in the log before the claim and no earlier than
the claimed step's start; otherwise it is *declared only*.

The step's start is the claim's `step_started_turn` when given, else the beat number of the first
beat that executed `step_id`, else 0. Evidence (beat number t, start <= t <= claim beat, and an
earlier log line than the claim):

* irreversible: `level` events; a beat whose level counter or score rose over the previous beat;
  a receipt whose pre-registered prediction matched (the action was committed to the
  environment and its predicted effect observed); `evidence` events marked irreversible
  (writes, commits, messages sent, paid calls), with `exit_code` evidence counting only when the
  exit code is 0 and `file_digest` evidence only when `before` differs from `after`;
* reversible: `evidence` events marked reversible, and every `read`, `search` or `fetch` evidence
  event whatever its `irreversible` flag says (a read cannot commit anything).

By default only irreversible evidence verifies (`include_reversible=False`).
"""

from __future__ import annotations

import contextlib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from operator import itemgetter

from checker.agent.evidence import Contradiction, contradiction
from checker.agent.evidence.digests import chain_breaks, subject_key
from checker.agent.evidence_pool import MinTree
from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, Metric
from checker.format.results_model import MilestoneDetail, Mismatch
from checker.format.schema.agent import Evidence, MilestoneClaim

REVERSIBLE_KINDS = frozenset({"read", "search", "fetch"})
"""Evidence kinds that are reversible by nature, whatever the event's `irreversible` flag says."""

Key = tuple[object, ...]
"""The identity of a piece of evidence: rows recording the same fact share it (see `_key`)."""

Item = tuple[int, int, str, Key]
"""A row that is evidence: (line, beat, kind, identity of the piece of evidence it records)."""


@dataclass(frozen=True, slots=True)
class MilestoneFigures(Figures):
    """The run's milestone metrics."""

    milestone_claims: int
    milestones_verified: int
    milestones_declared_only: int
    milestone_verified_ratio: float | None


@dataclass(frozen=True, slots=True)
class Milestones:
    """Claimed vs verified milestones of one run."""

    figures: MilestoneFigures
    details: list[MilestoneDetail]
    """One per claim, in log order."""
    mismatches: list[Mismatch]
    """Recorded values not taken as given (see `milestones`), in line order."""


def _line(m: Mismatch) -> int:
    return m.line or 0


def _level_events(state: AgentState, as_recorded: bool = False) -> tuple[list[Item], list[Mismatch]]:
    """`level` events that are evidence, and those whose level no beat backs (as mismatches).

    A `level` event is evidence only when it raises the level counter or the score above the
    highest seen on earlier lines (beats and level events; both start at 0): repeating the current
    level proves nothing. When the run has beats, the rise must also be backed by the environment's
    own per-beat counters: some beat at or before the event's beat reports at least that level (or
    that score, for a score-only rise); an unbacked level event is listed as a mismatch and is not
    evidence. `as_recorded=True` accepts a backing beat anywhere in the run (the labels as
    recorded, used only to tell whether the evidence rule changes a figure).
    """
    items: list[Item] = []
    mismatches: list[Mismatch] = []
    if not state.level_events:
        return items, mismatches
    reached = _Reached(state)
    top = ((max(b.level_counter for b in state.beats), max(b.score for b in state.beats)) if state.beats else None)
    order = sorted([(ln, 0, b.level_counter, b.score) for b, ln in zip(state.beats, state.beat_lines, strict=True)]
                   + [(ln, 1, e.level_counter, e.score) for e, ln in zip(state.level_events, state.level_lines,
                                                                          strict=True)])
    turns = dict(zip(state.level_lines, (e.turn for e in state.level_events), strict=True))
    level = score = 0
    for line, is_event, lev, sc in order:
        if is_event and (lev > level or sc > score):
            rise = ("level_counter", lev, 0) if lev > level else ("score", sc, 1)
            unbacked = _unbacked_level(reached, top, line, turns[line], rise, as_recorded) if top else None
            if unbacked is not None:
                mismatches.append(unbacked)
                continue
            items.append((line, turns[line], "level", (rise[0], rise[1])))
        level, score = max(level, lev), max(score, sc)
    return items, mismatches


def _unbacked_level(reached: _Reached, top: tuple[int, int], line: int, turn: int, rise: tuple[str, int, int],
                    as_recorded: bool) -> Mismatch | None:
    """A mismatch when no beat reports the level (or score) a level event rose to: `rise` = (field, value, index).

    `top` is the highest (level, score) any beat reports; without `as_recorded` the backing beat
    must also be at or before the event's beat.
    """
    field, recorded, k = rise
    backed, backed_then = top[k], reached.at(turn)[k]
    if recorded > backed:
        return Mismatch(line=line, field=field, recorded=recorded, recomputed=backed,
                        reason=f"no beat reports {field} {recorded} (the highest any beat reports "
                               f"is {backed}): the level event is not evidence")
    if recorded > backed_then and not as_recorded:
        return Mismatch(line=line, field=field, recorded=recorded, recomputed=backed_then,
                        reason=f"no beat up to beat {turn} reports {field} {recorded} (the "
                               f"highest is {backed_then}; a later beat cannot back it): the level "
                               "event is not evidence")
    return None


def _counter_rises(state: AgentState) -> list[Item]:
    """Beats whose level counter (else score) rose over the previous beat."""
    items: list[Item] = []
    prev_level = prev_score = None
    for beat, line in zip(state.beats, state.beat_lines, strict=True):
        level, score = beat.level_counter, beat.score
        if prev_level is not None and level > prev_level:
            items.append((line, beat.turn, "level", ("level_counter", level)))
        elif prev_score is not None and score > prev_score:
            items.append((line, beat.turn, "score", ("score", score)))
        prev_level, prev_score = level, score
    return items


def _matched_receipts(state: AgentState, receipt_match: list[int | None] | None) -> list[Item]:
    """Receipts whose pre-registered prediction matched (`receipt_match`: recomputed, else as recorded)."""
    items: list[Item] = []
    matches = receipt_match if receipt_match is not None else [rc.match for rc in state.receipts]
    for rc, line, match in zip(state.receipts, state.receipt_lines, matches, strict=True):
        if rc.predictor_kind is not None and match == 1:
            items.append((line, rc.turn, "receipt", ("receipt", rc.turn)))  # one beat: one action, one observation
    return items


def _counts_as_evidence(ev: Evidence, include_reversible: bool) -> bool:
    """An `evidence` event that may verify a claim (irreversible unless allowed; a failed exit or an unchanged file is not)."""
    if not ((ev.irreversible and ev.kind not in REVERSIBLE_KINDS) or include_reversible):
        return False
    if ev.kind == "exit_code":
        return ev.exit_code == 0
    if ev.kind == "file_digest":
        return ev.before != ev.after
    return True


def _evidence_key(ev: Evidence) -> Key:
    """A piece of evidence's identity: a level / score value reached once, else (kind, subject, transition, beat)."""
    if ev.kind in ("level", "score") and ev.after is not None:
        with contextlib.suppress(ValueError):
            return ("level_counter" if ev.kind == "level" else "score", int(ev.after))
    subject = subject_key(ev.subject) if ev.subject is not None else None
    return (ev.kind, subject, ev.before, ev.after, ev.exit_code, ev.turn)


def _evidence_events(state: AgentState, include_reversible: bool, as_recorded: bool,
                     items: list[Item], mismatches: list[Mismatch]) -> None:
    """The `evidence` events that are evidence (into `items`); those the log contradicts (`mismatches`).

    Unless `as_recorded`: a transition whose `before` is not its subject's previous `after`
    (`chain_breaks`), and `level` / `score` evidence at a beat where no beat's counter rises to its
    `after`, are not evidence.
    """
    reached: _Reached | None = None
    check_counters = bool(state.beats) and not as_recorded
    breaks = chain_breaks(state) if not as_recorded else {}
    for ev, line in zip(state.evidence, state.evidence_lines, strict=True):
        if not _counts_as_evidence(ev, include_reversible):
            continue
        if line in breaks:
            mismatches.append(breaks[line])
            continue
        if check_counters and ev.kind in ("level", "score"):
            reached = _Reached(state) if reached is None else reached
            unbacked = _unbacked_counter(reached, ev.kind, ev.after, ev.turn, line)
            if unbacked is not None:
                mismatches.append(unbacked)
                continue
        items.append((line, ev.turn, ev.kind, _evidence_key(ev)))


def _evidence(state: AgentState, include_reversible: bool, receipt_match: list[int | None] | None = None,
              as_recorded: bool = False) -> tuple[list[Item], list[Mismatch]]:
    """Evidence that may verify a claim, as (line, beat, kind, key) sorted by beat then line; what is refused.

    The second list holds the level events no beat backs and the `evidence` rows the log
    contradicts, as mismatches (see `_level_events`, `_evidence_events`).
    `receipt_match` replaces the receipts' recorded `match` (see `checker.agent.evidence.receipt_match`).
    """
    items, mismatches = _level_events(state, as_recorded)
    items.extend(_counter_rises(state))
    items.extend(_matched_receipts(state, receipt_match))
    _evidence_events(state, include_reversible, as_recorded, items, mismatches)
    items.sort(key=_BEAT_THEN_LINE)
    return items, mismatches


_BEAT_THEN_LINE = itemgetter(1, 0)
"""Sort key of an evidence item (line, beat, kind): (beat, line)."""


class _Reached:
    """The highest level counter and score the beats report up to a beat (prefix maxima, O(log n) a query)."""

    def __init__(self, state: AgentState) -> None:
        by_turn = sorted((b.turn, b.level_counter, b.score) for b in state.beats)
        self.turns = [t for t, _, _ in by_turn]
        self.prefix: list[tuple[int, int]] = []
        level = score = 0
        for _, lev, sc in by_turn:
            level, score = max(level, lev), max(score, sc)
            self.prefix.append((level, score))

    def at(self, turn: int) -> tuple[int, int]:
        """(level, score) reached by the beats numbered `turn` or lower ((0, 0) before any)."""
        k = bisect_right(self.turns, turn)
        return self.prefix[k - 1] if k else (0, 0)


def _unbacked_counter(reached: _Reached, kind: str, after: str | None, turn: int, line: int) -> Mismatch | None:
    """A mismatch when `level` / `score` evidence records no rise of the environment's own counter at its beat.

    The per-beat counters are the evidence, exactly as for level events: the beats up to the
    evidence's beat must reach `after`, and the beats before it must not (else the counter rose
    earlier and this row repeats a rise its beat did not see). An `after` that is not an integer is not evidence.
    """
    field = "level_counter" if kind == "level" else "score"
    try:
        value = int(after) if after is not None else None
    except ValueError:
        value = None
    if value is None:  # a level no beat can report cannot be backed by one
        return Mismatch(line=line, field="after", recorded=after, recomputed=None,
                        reason=f"{kind} evidence must give the {field} reached as an integer: not evidence")
    k = 0 if kind == "level" else 1
    top, before = reached.at(turn)[k], reached.at(turn - 1)[k]
    if value > top:
        return Mismatch(line=line, field="after", recorded=after, recomputed=str(top),
                        reason=f"no beat up to beat {turn} reports {field} {value} (the highest is {top}): "
                               f"the {kind} evidence is not evidence")
    if value <= before:
        return Mismatch(line=line, field="after", recorded=after, recomputed=str(before),
                        reason=f"no beat's {field} rises at beat {turn} (it was already {before} before): the "
                               f"{kind} evidence repeats an earlier rise and is not evidence")
    return None


def _window_start(state: AgentState, claim: MilestoneClaim, line: int, mismatches: list[Mismatch]) -> int:
    """The beat a claim's window starts at (see the module docstring); an impossible recorded start is listed."""
    step = state.plan_steps.get(claim.step_id) if claim.step_id else None
    if claim.step_started_turn is not None:
        start = claim.step_started_turn
    elif claim.step_id and claim.step_id in state.step_first_beat:
        start = state.step_first_beat[claim.step_id]
    elif step is not None:
        start = step.turn
    else:
        start = 0
    if step is not None and claim.step_started_turn is not None and start < step.turn:
        # an early start would widen the window to evidence from before the step existed
        mismatches.append(Mismatch(line=line, field="step_started_turn", recorded=start, recomputed=step.turn,
                                   reason=f"step {claim.step_id} was compiled at beat {step.turn}: "
                                          "it cannot have started earlier"))
        start = step.turn
    return start


def _detail(claim: MilestoneClaim, line: int, start: int, hit: Item | None) -> MilestoneDetail:
    """A claim's detail: VERIFIED by the evidence `hit`, or DECLARED_ONLY without one."""
    if hit is None:
        return MilestoneDetail(claim_id=claim.claim_id, line=line, step_id=claim.step_id, window=[start, claim.turn],
                               status="DECLARED_ONLY", evidence_line=None, evidence_kind=None)
    return MilestoneDetail(claim_id=claim.claim_id, line=line, step_id=claim.step_id, window=[start, claim.turn],
                           status="VERIFIED", evidence_line=hit[0], evidence_kind=hit[2])


class _Pool:
    """Evidence sorted by (beat, line) that claims draw from; drawing a piece takes every row recording it."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        self.turns = [it[1] for it in items]
        self.tree = MinTree([it[0] for it in items])
        self.all = MinTree([it[0] for it in items])
        """The same lines, never taken: which taken piece a claim's window held (for the message)."""
        self.rows: dict[Key, list[int]] = {}
        for k, it in enumerate(items):
            self.rows.setdefault(it[3], []).append(k)
        self.backed: dict[Key, MilestoneClaim] = {}

    def draw(self, start: int, claim: MilestoneClaim, line: int) -> tuple[Item | None, Item | None]:
        """(the earliest untaken evidence in the claim's window logged before it, taken; else a taken one that fits).

        The second item names the evidence another claim already drew, when only such evidence fits.
        """
        lo, hi = bisect_left(self.turns, start), bisect_right(self.turns, claim.turn)
        k = self.tree.find(lo, hi, line)
        if k is not None:
            hit = self.items[k]
            self.backed[hit[3]] = claim
            for row in self.rows.pop(hit[3]):
                self.tree.take(row)
            return hit, None
        spent = self.all.find(lo, hi, line)
        return None, self.items[spent] if spent is not None else None


def _reused(claim: MilestoneClaim, line: int, spent: Item, by: MilestoneClaim) -> Mismatch:
    return Mismatch(line=line, field="claim_id", recorded=claim.claim_id, recomputed=None,
                    reason=f"the only evidence in claim {claim.claim_id}'s window ({spent[2]} at line {spent[0]}, "
                           f"beat {spent[1]}) already backs claim {by.claim_id}: one piece of evidence backs at most "
                           "one claim, so this claim is declared only")


def milestones(state: AgentState, include_reversible: bool = False, receipt_match: list[int | None] | None = None,
               as_recorded: bool = False) -> Milestones:
    """Per run: claims, verified, declared only, verified ratio (None with no claim), details and mismatches.

    `mismatches` lists recorded values the checker does not take as given: a claim's
    `step_started_turn` earlier than the beat its step was compiled (the window then starts at the
    compilation beat), level events no beat at or before them backs (see `_level_events`),
    `evidence` rows the log contradicts (`_evidence_events`), and claims whose only evidence
    already backs an earlier claim (one piece of evidence backs at most one claim: the rows that
    record one fact share a `Key`, and claims draw, in log order, the earliest untaken piece).
    `receipt_match` (per receipt, derived from predicted vs observed) replaces the recorded flags;
    `as_recorded` reads level events and evidence rows as recorded (only to tell whether the
    derivation moves a figure).
    """
    items, mismatches = (_evidence(state, include_reversible, receipt_match, as_recorded) if state.claims
                         else ([], []))
    pool = _Pool(items)
    details: list[MilestoneDetail] = []
    for claim, line in zip(state.claims, state.claim_lines, strict=True):
        start = _window_start(state, claim, line, mismatches)
        # O(log n) per claim (a segment tree of lines over the evidence sorted by beat): no n^2 on hostile logs
        hit, spent = pool.draw(start, claim, line)
        if spent is not None:
            mismatches.append(_reused(claim, line, spent, pool.backed[spent[3]]))
        details.append(_detail(claim, line, start, hit))
    n = len(state.claims)
    verified = sum(d.status == "VERIFIED" for d in details)
    figures = MilestoneFigures(milestone_claims=n, milestones_verified=verified, milestones_declared_only=n - verified,
                               milestone_verified_ratio=round(verified / n, 3) if n else None)
    return Milestones(figures, details, sorted(mismatches, key=_line))


METRICS: tuple[Metric, ...] = (
    # agent: claimed vs verified milestones
    Metric(
        name="milestone_claims",
        track="agent",
        kind="count",
        definition="`milestone_claim` events (a claim is not an event).",
        undefined=NEVER,
    ),
    Metric(
        name="milestones_verified",
        track="agent",
        kind="count",
        definition=(
            "Claims with deterministic evidence in their window: beat number between the claimed step's start "
            "(`step_started_turn`, else the first beat that executed the step, else 0) and the claim's beat, "
            "on an earlier log line than the claim. Only irreversible evidence counts: a `level` event, a "
            "rise of the level counter or score, a receipt whose pre-registered prediction matched, an "
            "irreversible `evidence` event (`exit_code` only when 0, `file_digest` only when changed)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="milestones_declared_only",
        track="agent",
        kind="count",
        definition="milestone_claims − milestones_verified: claims with no such evidence.",
        undefined=NEVER,
    ),
    Metric(
        name="milestone_verified_ratio",
        track="agent",
        kind="rate",
        higher_is_better=True,
        definition="r3(milestones_verified / milestone_claims).",
        undefined=(
            "No milestone claim (every imported ARG run). "
            + BOTH_UNDEF
        ),
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.pipeline.metrics`)."""


def figure_check(state: AgentState, verified: int, receipt_match: list[int | None]) -> list[Contradiction]:
    """Mismatches when the milestone figure from the evidence differs from the one the labels give.

    `verified` is `milestones_verified` with receipts' `match` recomputed, level events backed only
    at or before their beat, and `evidence` rows the log contradicts refused (digest transitions
    that do not chain; level / score evidence at a beat where no counter rises); the labels as
    recorded give the other figure. A difference fails the run (`evidence` gate condition): one
    mismatch for the figure, and one per claim the labels alone would verify.
    """
    if not state.claims:
        return []
    as_recorded = milestones(state, as_recorded=True)
    recorded = as_recorded.figures.milestones_verified
    if recorded == verified:
        return []
    derived = milestones(state, receipt_match=receipt_match)
    changed = [(a, b) for a, b in zip(as_recorded.details, derived.details, strict=True) if a.status != b.status]
    line = changed[0][0].line if changed else state.claim_lines[0]
    out = [contradiction("milestones", line, "milestones_verified", recorded, verified,
                         f"{recorded} of {len(state.claims)} milestone(s) are verified by the labels as recorded, "
                         f"{verified} by the evidence (receipt match recomputed from predicted vs observed; a level "
                         "event backed only by a later beat, a digest transition that does not chain and level "
                         "evidence at a beat where no level rises are not evidence)")]
    out += [contradiction("milestones", a.line, "claim_id", a.claim_id, None,
                          f"claim {a.claim_id} is verified only by evidence the log contradicts (line "
                          f"{a.evidence_line}, {a.evidence_kind}): declared only")
            for a, _ in changed if a.status == "VERIFIED"]
    return out


__all__ = ["MilestoneFigures", "Milestones", "figure_check", "milestones"]
