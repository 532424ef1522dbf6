"""Replay: fold an agent run's events into state, in one pass, in log order.

State is computed from events only, never taken from a submitter's summary: a status is the
latest transition seen, a referent is its latest version, and the landing of every aimed
action is recomputed from geometry at the moment of the beat (arg-spec.md §e):

    landing(x, y) = the current, non-dormant referent with the fewest anchor cells among those
                    whose anchor cells contain (x, y); ties go to the referent whose current
                    version appears first in the log; none -> None (background)

"Current" means: the latest version seen *before* the beat in the log, and a referent is
dormant when its latest REFERENT_LIFE transition seen before the beat is DORMANT. Untargeted
actions (no integer `x` and `y` parameters) land nowhere (None).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from heapq import heappop, heappush
from itertools import count
from typing import Any, cast

from checker.format.schema.agent import (
    Beat,
    CanaryEcho,
    CanarySalt,
    Commitment,
    DeficitStamp,
    Evidence,
    Goal,
    GoalBinding,
    GoalEdge,
    LevelEvent,
    LlmCall,
    MilestoneClaim,
    PlanStep,
    Receipt,
    Referent,
    RelevanceEdge,
    RenderCapture,
    Rule,
    StartupProbe,
    StatusTransition,
    Substitution,
    WriteReject,
)
from checker.format.schema.events import Event
from checker.stages.tracks import RunRecord


@dataclass(slots=True)
class Landing:
    """The recomputed landing of one beat."""

    ref: str | None
    """Recomputed landing (None = background, or an untargeted action)."""
    aim: tuple[int, int] | None = None
    """(x, y) of the beat's integer `x` and `y` parameters (`aim_of`), None without them."""

    @property
    def aimed(self) -> bool:
        """True when the beat carries integer `x` and `y` parameters."""
        return self.aim is not None


@dataclass
class AgentState:
    """Everything the gate and the metrics read, folded from a run's events."""

    beats: list[Beat] = field(default_factory=list)
    beat_lines: list[int] = field(default_factory=list)
    landings: list[Landing] = field(default_factory=list)
    """Recomputed landing per beat (same index as `beats`)."""
    referent_ids: dict[str, int] = field(default_factory=dict)
    """Every referent id ever seen -> line of its first version."""
    referents: dict[str, Referent] = field(default_factory=dict)
    """Current (latest) version of each referent."""
    statuses: dict[tuple[str, str], StatusTransition] = field(default_factory=dict)
    """(entity_kind, entity_id) -> latest transition (file order)."""
    transitions: list[StatusTransition] = field(default_factory=list)
    transition_lines: list[int] = field(default_factory=list)
    plan_steps: dict[str, PlanStep] = field(default_factory=dict)
    """step_id -> first plan_step row with that id (ARG looks steps up by id only)."""
    plan_step_rows: list[PlanStep] = field(default_factory=list)
    step_first_beat: dict[str, int] = field(default_factory=dict)
    """step_id -> turn of the first beat that executed it (the step's start)."""
    commitments: dict[tuple[str, int], Commitment] = field(default_factory=dict)
    goals: dict[str, list[Goal]] = field(default_factory=dict)
    """goal_id -> its versions in log order."""
    bindings: list[GoalBinding] = field(default_factory=list)
    goal_edges: list[GoalEdge] = field(default_factory=list)
    deficit_stamps: list[DeficitStamp] = field(default_factory=list)
    relevance_edges: list[RelevanceEdge] = field(default_factory=list)
    rules: dict[str, Rule] = field(default_factory=dict)
    """rule_id -> latest version."""
    rule_versions: list[Rule] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    receipt_lines: list[int] = field(default_factory=list)
    llm_calls: list[LlmCall] = field(default_factory=list)
    llm_lines: list[int] = field(default_factory=list)
    write_rejects: list[WriteReject] = field(default_factory=list)
    salts: list[CanarySalt] = field(default_factory=list)
    echoes: list[CanaryEcho] = field(default_factory=list)
    echo_lines: list[int] = field(default_factory=list)
    captures: list[RenderCapture] = field(default_factory=list)
    capture_lines: list[int] = field(default_factory=list)
    startup: StartupProbe | None = None
    startup_failed: bool = False
    """Some startup_probe event (not necessarily the first) has image_receipt_ok false."""
    level_events: list[LevelEvent] = field(default_factory=list)
    level_lines: list[int] = field(default_factory=list)
    substitutions: list[Substitution] = field(default_factory=list)
    claims: list[MilestoneClaim] = field(default_factory=list)
    claim_lines: list[int] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    evidence_lines: list[int] = field(default_factory=list)

    def latest(self, kind: str, entity_id: str) -> str | None:
        """`to_status` of the latest transition of (kind, id), or None if it has none."""
        row = self.statuses.get((kind, entity_id))
        return row.to_status if row is not None else None


class _Geometry:
    """Spatial index: per cell, a heap of the referents containing it, best landing on top.

    The key of a referent is (anchor-cell count, log position of its current version, id), the
    order of arg-spec.md §e. A new version pushes fresh entries and bumps the referent's
    generation; entries of an older generation are dropped when they reach the top. An entry of a
    dormant referent that reaches the top is parked with the referent and pushed back when it
    revives. Every push is paid for by an anchor cell of a version or by an earlier pop, so a click
    costs O(log n) amortised whatever the number of referents covering its cell (it was O(n)), and
    a dormancy change costs O(1) plus the entries it un-parks.
    """

    __slots__ = ("by_cell", "cells", "dormant", "gen", "order", "parked")

    def __init__(self) -> None:
        self.by_cell: dict[tuple[int, int], list[tuple[int, int, str, int]]] = {}
        self.cells: dict[str, int] = {}
        self.order: dict[str, int] = {}
        self.gen: dict[str, int] = {}
        self.dormant: set[str] = set()
        self.parked: dict[str, list[tuple[tuple[int, int], tuple[int, int, str, int]]]] = {}

    def update(self, ref: Referent, position: int) -> None:
        """A new current version of `ref`, first seen at log position `position`."""
        # (x, y) pairs: the schema holds exactly two 64-bit ints per cell
        cells = cast("frozenset[tuple[int, int]]", frozenset(map(tuple, ref.anchor_cells)))
        gen = self.gen.get(ref.ref_id, 0) + 1
        self.gen[ref.ref_id], self.order[ref.ref_id], self.cells[ref.ref_id] = gen, position, len(cells)
        self.parked.pop(ref.ref_id, None)
        entry = (len(cells), position, ref.ref_id, gen)
        by_cell = self.by_cell
        for c in cells:  # the hot loop of replay (ARG regions hold thousands of cells): no empty list per cell
            heap = by_cell.get(c)
            if heap is None:
                by_cell[c] = [entry]
            else:
                heappush(heap, entry)

    def set_dormant(self, ref_id: str, dormant: bool) -> None:
        """Record the referent's latest REFERENT_LIFE transition (DORMANT or not)."""
        if dormant:
            self.dormant.add(ref_id)
        elif ref_id in self.dormant:
            self.dormant.discard(ref_id)
            for cell, entry in self.parked.pop(ref_id, ()):
                heappush(self.by_cell[cell], entry)

    def land(self, x: int, y: int) -> str | None:
        """The landing of a click at (x, y) (None = background)."""
        heap = self.by_cell.get((x, y))
        while heap:
            entry = heap[0]
            ref_id = entry[2]
            if entry[3] != self.gen[ref_id]:
                heappop(heap)
            elif ref_id in self.dormant:
                self.parked.setdefault(ref_id, []).append(((x, y), heappop(heap)))
            else:
                return ref_id
        return None


def aim_of(params: dict[str, Any] | None) -> tuple[int, int] | None:  # a beat's `params`: free-form JSON from the log
    """(x, y) when the parameters aim at a cell (integer `x` and `y`), else None."""
    if not params:
        return None
    x, y = params.get("x"), params.get("y")
    if type(x) is int and type(y) is int:  # the usual click
        return x, y
    if isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool) and not isinstance(y, bool):
        return x, y
    return None


class _Folder:
    """Folds the less frequent events that do more than append themselves to the state (a method per event class)."""

    __slots__ = ("geo", "st")

    def __init__(self, st: AgentState) -> None:
        """Fold into `st`, with a fresh spatial index."""
        self.st, self.geo = st, _Geometry()

    def handlers(self) -> dict[type[Any], Callable[[Any, int, int], None]]:
        """Event class -> its fold (event, line, log position)."""
        return {Referent: self.referent, PlanStep: self.plan_step,
                Commitment: self.commitment, Goal: self.goal, Rule: self.rule, StartupProbe: self.startup}

    def referent(self, event: Referent, line: int, position: int) -> None:
        """A referent version: current when no later version was seen."""
        st = self.st
        st.referent_ids.setdefault(event.ref_id, line)
        cur = st.referents.get(event.ref_id)
        if cur is None or event.version >= cur.version:
            st.referents[event.ref_id] = event
            self.geo.update(event, position)

    def plan_step(self, event: PlanStep, _line: int, _position: int) -> None:
        """A plan step: every row kept, the first per id looked up."""
        self.st.plan_step_rows.append(event)
        self.st.plan_steps.setdefault(event.step_id, event)

    def commitment(self, event: Commitment, _line: int, _position: int) -> None:
        """A commitment version (the first row per (id, version))."""
        self.st.commitments.setdefault((event.commit_id, event.version), event)

    def goal(self, event: Goal, _line: int, _position: int) -> None:
        """A goal version, in log order."""
        self.st.goals.setdefault(event.goal_id, []).append(event)

    def rule(self, event: Rule, _line: int, _position: int) -> None:
        """A rule version: every version kept, the latest per id current."""
        st = self.st
        st.rule_versions.append(event)
        cur = st.rules.get(event.rule_id)
        if cur is None or event.version >= cur.version:
            st.rules[event.rule_id] = event

    def startup(self, event: StartupProbe, _line: int, _position: int) -> None:
        """A startup probe: ARG reads the first; any failed one is remembered."""
        if self.st.startup is None:
            self.st.startup = event
        if event.image_receipt_ok is False:
            self.st.startup_failed = True


def _collected(st: AgentState) -> dict[type[Any], tuple[Callable[[Any], None], Callable[[int], None] | None]]:
    """Event class -> appends of the rows that are only collected in log order (and of their lines where findings cite them).

    By event model (each model has one `type`), so a collected row costs one lookup of its class and its appends.
    """
    collected: dict[type[Any], tuple[list[Any], list[int] | None]] = {
        Receipt: (st.receipts, st.receipt_lines), CanaryEcho: (st.echoes, st.echo_lines),
        RenderCapture: (st.captures, st.capture_lines), LlmCall: (st.llm_calls, st.llm_lines),
        CanarySalt: (st.salts, None), WriteReject: (st.write_rejects, None),
        GoalBinding: (st.bindings, None), GoalEdge: (st.goal_edges, None),
        DeficitStamp: (st.deficit_stamps, None), RelevanceEdge: (st.relevance_edges, None),
        LevelEvent: (st.level_events, st.level_lines), Substitution: (st.substitutions, None),
        MilestoneClaim: (st.claims, st.claim_lines), Evidence: (st.evidence, st.evidence_lines),
    }
    return {cls: (rows.append, lines.append if lines is not None else None) for cls, (rows, lines) in collected.items()}


def _numbered(run: RunRecord) -> Iterator[tuple[int, Event, int]]:
    """(log position, event, line) of every event of the run."""
    if len(run.events) != len(run.lines):
        raise ValueError("a run record holds one line number per event")
    return zip(count(), run.events, run.lines)


def replay(run: RunRecord) -> AgentState:
    """Fold a run's events into an `AgentState` (one pass; cost linear in the number of events)."""
    st = AgentState()
    folder = _Folder(st)
    get_appends, get_handler = _collected(st).get, folder.handlers().get
    add_beat, add_line, add_landing = st.beats.append, st.beat_lines.append, st.landings.append
    add_transition, add_transition_line, statuses = st.transitions.append, st.transition_lines.append, st.statuses
    land, set_dormant, first_beat = folder.geo.land, folder.geo.set_dormant, st.step_first_beat
    for position, event, line in _numbered(run):
        cls = type(event)
        into = get_appends(cls)
        if into is not None:
            into[0](event)
            if into[1] is not None:
                into[1](line)
        elif isinstance(event, Beat):  # the most frequent folded event: in line, its landing recomputed here
            add_beat(event)
            add_line(line)
            aim = aim_of(event.params)
            add_landing(Landing(land(aim[0], aim[1]) if aim else None, aim))
            if event.step_id:
                first_beat.setdefault(event.step_id, event.turn)
        elif isinstance(event, StatusTransition):  # as frequent: the latest per entity, and a referent's dormancy
            add_transition(event)
            add_transition_line(line)
            statuses[(event.entity_kind, event.entity_id)] = event
            if event.entity_kind == "REFERENT_LIFE":
                set_dormant(event.entity_id, event.to_status == "DORMANT")
        elif (handler := get_handler(cls)) is not None:
            handler(event, line, position)
    return st


__all__ = ["AgentState", "Landing", "aim_of", "replay"]
