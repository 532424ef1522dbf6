"""The scripted agent's store and views: its configuration, the rows it keeps, and what its organs are shown.

`AgentState` holds one episode's state (the micro-world, the seeded RNG of organ noise, the
referent/rule/goal rows, the plan queue, the observations the Surveyor has not read yet) with
the helpers every organ uses: id minting, canary nonces, status rows, the harness's landing
rule, the rendered zones (Z1..Z6) and their `render_capture` rows, and the rule queries.
`checker.harness.baselines.surveyor` and `checker.harness.baselines.scripted_agent` build the
organs on it. Every event goes out through `emit` (the baseline generator passes
`RunLogWriter.write`, which validates it).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from checker.harness.baselines.common import Emit
from checker.harness.baselines.microworld import ACTIONS, MicroWorld

EPOCH = 8
"""Beats between Surveyor calls."""
OBSERVER_CANARY_EVERY = 8
"""The Observer is salted when its call counter is a multiple of this."""
LEASE = 20
"""`lease_max_beats` of every compiled plan step."""

Delta = dict[str, int | str]
"""A predicted effect or delta: component -> a number, or "nonzero" / "zero"."""
Observed = dict[str, int]
"""An observed delta: cells_changed, score_event, level_event."""


@dataclass(frozen=True)
class AgentConfig:
    """One run's configuration."""

    cell: str
    seed_label: str
    world_seed: int
    join: bool = True
    agenda: bool = True
    horizon: int = 150
    observer_noise: float = 0.03
    """Chance that one Observer bind op is rejected (then retried once)."""
    surveyor_noise: float = 0.06
    """Chance that one Surveyor proposal is rejected (then retried once)."""
    actuator_noise: float = 0.05
    """Chance that the Actuator's first click proposal falls outside the cited referent."""
    canary_deafness: float = 0.015
    """Chance that the Surveyor's output omits one zone's canary nonce."""
    records_believed_landing: bool = False
    """Harness defect: record the step's cited target when the click was inside its (stale) cells."""


@dataclass
class RefRow:
    """A referent as the agent's store holds it."""

    ref_id: str
    oid: str
    kind: str
    colour: int
    cells: frozenset[tuple[int, int]]
    version: int = 1
    dormant: bool = False
    rung: str = "ANCHORED"


@dataclass
class RuleRow:
    """An effect hypothesis."""

    rule_id: str
    action: str
    target: str | None
    effect: Delta
    status: str = "PROPOSED"
    matches: int = 0


@dataclass
class GoalRow:
    """A goal as the Surveyor's view lists it."""

    statement: str
    status: str


@dataclass
class Step:
    """A compiled plan step."""

    step_id: str
    commit_id: str
    kind: str
    target: str
    cells_at_compile: frozenset[tuple[int, int]]
    predicted: Delta
    goal_id: str
    rule_id: str | None
    last: bool = False
    substitutions: int = 0
    started: int | None = None


@dataclass
class Pending:
    """An observation the Surveyor has not read yet."""

    turn: int
    action: str
    ref: str | None
    score_event: int
    level_event: int


def match(predicted: Mapping[str, int | str], observed: Mapping[str, int]) -> int:
    """1 when every predicted component holds in the observed delta."""
    for key, want in predicted.items():
        got = observed.get(key, 0)
        if want == "nonzero":
            ok = bool(got)
        elif want == "zero":
            ok = not got
        else:
            ok = got == want
        if not ok:
            return 0
    return 1


@dataclass
class AgentState:
    """One episode's state in a fresh micro-world, and the helpers every organ uses."""

    cfg: AgentConfig
    emit: Emit
    world: MicroWorld = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.world = MicroWorld(self.cfg.world_seed)
        digest = hashlib.sha256(f"{self.cfg.cell}|{self.cfg.seed_label}".encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))
        self.counters: dict[str, int] = {}
        self.refs: dict[str, RefRow] = {}
        self.by_oid: dict[str, str] = {}
        self.rules: dict[str, RuleRow] = {}
        self.goals: dict[str, GoalRow] = {}
        self.queue: list[Step] = []
        self.plan_targets: set[str] = set()
        self.pending: list[Pending] = []
        self.tried_action: dict[str, int] = {a: 0 for a in ACTIONS}
        self.tried_ref: dict[str, int] = {}
        self.calls: dict[str, int] = {"OBSERVER": 0, "SURVEYOR": 0, "ACTUATOR": 0}
        self.score_goal: str | None = None
        self.deficit_goal: str | None = None
        self.level_rule_refs: set[str] = set()
        self.turn = 0
        """The beat being played (0: the initial RESET)."""

    # -- helpers ------------------------------------------------------------------------
    def mint(self, prefix: str) -> str:
        """Next id for a prefix, zero-padded to width 4 (ARG's minting)."""
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return f"{prefix}{n:04d}"

    def nonce(self) -> str:
        """A canary nonce, `ZQ` + 8 hex."""
        return "ZQ" + f"{self.rng.getrandbits(32):08x}"

    def status(self, turn: int, kind: str, entity: str, old: str | None, new: str, reason: str | None = None) -> None:
        """Emit a status transition."""
        self.emit({"type": "status", "turn": turn, "entity_kind": kind, "entity_id": entity,
                   "from_status": old, "to_status": new, "reason": reason})

    def current_refs(self) -> list[RefRow]:
        """Current, non-dormant referents in id order."""
        return [r for r in self.refs.values() if not r.dormant]

    def landing(self, x: int, y: int) -> str | None:
        """The harness's landing: smallest current non-dormant referent containing (x, y)."""
        best: RefRow | None = None
        for r in self.refs.values():
            if r.dormant or (x, y) not in r.cells:
                continue
            if best is None or len(r.cells) < len(best.cells):
                best = r
        return best.ref_id if best else None

    # -- rendering ------------------------------------------------------------------------
    def frame_text(self) -> str:
        """Z2: the frame as 24 rows of hex digits."""
        return self.world.frame_text()

    def roster(self, rows: list[RefRow]) -> str:
        """Z6: referent rows."""
        out = []
        for r in rows:
            xs = [c[0] for c in r.cells]
            ys = [c[1] for c in r.cells]
            out.append(f"{r.ref_id} v{r.version} {r.kind} colour={r.colour} n={len(r.cells)} "
                       f"bbox=({min(xs)},{min(ys)})-({max(xs)},{max(ys)}) rung={r.rung}")
        return "\n".join(out)

    def surveyor_view(self, turn: int, salts: dict[str, str]) -> dict[str, str]:
        """The Surveyor's zones Z1..Z6 (salts appended to their zones)."""
        visible = self.visible_refs()
        zones = {
            "Z1": self.world.status_line(turn, self.cfg.horizon),
            "Z2": "goals:\n" + "\n".join(f"{g} {d.statement} [{d.status}]" for g, d in self.goals.items()),
            "Z3": "recent:\n" + "\n".join(
                f"t{p.turn} {p.action} -> {p.ref if p.ref in visible else '?'} score+{p.score_event} "
                f"level+{p.level_event}" for p in self.pending[-12:]),
            "Z4": self.rules_zone(),
            "Z5": "plan:\n" + "\n".join(f"{s.step_id} {s.kind} ACTION6@{s.target}" for s in self.queue),
            "Z6": "referents:\n" + self.roster([self.refs[r] for r in sorted(visible)]),
        }
        for zone, salt in salts.items():
            zones[zone] += f"\n[canary {salt}]"
        return zones

    def rules_zone(self) -> str:
        """Z4: the rules, each with its context, effect and status."""
        return "rules:\n" + "\n".join(
            f"{r.rule_id} {r.action}@{r.target or '-'} => {r.effect} [{r.status}]" for r in self.rules.values())

    def visible_refs(self) -> set[str]:
        """Referents the Surveyor can name: bound rows (join) or plan-step targets (agenda)."""
        visible: set[str] = set()
        if self.cfg.join:
            visible |= {r.ref_id for r in self.current_refs()}
        if self.cfg.agenda:
            visible |= {t for t in self.plan_targets if not self.refs[t].dormant}
        return visible

    def capture(self, turn: int, organ: str, call_idx: int, zones: dict[str, str], shadow: bool) -> int:
        """Emit one render_capture per zone; returns the view's render tokens (ceil(chars / 4))."""
        total = 0
        for zone, text in zones.items():
            data = text.encode()
            tokens = math.ceil(len(text) / 4)
            total += len(text)
            self.emit({"type": "render_capture", "turn": turn, "organ": organ, "call_idx": call_idx, "zone": zone,
                       "view_sha256": hashlib.sha256(data).hexdigest(), "view_bytes": len(data),
                       "render_tokens": tokens, "shadow": shadow})
        return math.ceil(total / 4)

    # -- rule queries -----------------------------------------------------------------------
    def has_rule(self, ref: str, effect: str) -> bool:
        """Whether a rule already predicts `effect` for a click on `ref`."""
        return any(r.target == ref and r.effect.get(effect) == 1 for r in self.rules.values())

    def level_rule(self) -> RuleRow | None:
        """The first live rule that a click on a current referent triggers the level."""
        return self._live_rule("level_event")

    def score_rule(self) -> RuleRow | None:
        """The first live rule that a click on a current referent scores."""
        return self._live_rule("score_event")

    def _live_rule(self, effect: str) -> RuleRow | None:
        for r in self.rules.values():
            if r.target and not self.refs[r.target].dormant and r.effect.get(effect) == 1 and r.status != "DEMOTED":
                return r
        return None


__all__ = ["EPOCH", "LEASE", "OBSERVER_CANARY_EVERY", "AgentConfig", "AgentState", "Delta", "Emit", "GoalRow",
           "Observed", "Pending", "RefRow", "RuleRow", "Step", "match"]
