"""A small deterministic grid micro-world for the agent-track reference runs.

The world is a 24 x 24 grid of colour values (0 = background). Each level lays out, from a
seeded RNG:

* a **board** (a filled 14 x 14 region) that encloses everything below, so containment matters:
  a click on a board cell that no smaller object covers lands on the board;
* a **tray** (a 6 x 6 region inside the board) holding a **ring** (a 3 x 3 ring whose
  centroid is its hole, i.e. a board-or-tray cell) and one decoy;
* a **key**: clicking it scores one point, and the key then jumps to a new free spot;
  it also drifts on its own every `KEY_DRIFT` beats;
* a **switch**: clicking it after enough key presses in the level (`KEYS_PER_LEVEL`)
  completes the level (the level counter rises and a new layout is drawn); clicking it too
  early resets the level's key count;
* two more decoys (nothing happens when clicked; key, switch and decoys get a random shape from
  `SHAPES`) and a **lamp** outside the board that lights
  while the level's key count is non-zero.

Actions: `ACTION1`..`ACTION4` shift the tray (and its contents) by one cell inside the board,
`ACTION5` does nothing, `ACTION6` clicks the cell `(x, y)`. A click lands on the smallest
object whose cells contain it (the same rule the checker uses for landings).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

SIZE = 24
"""Grid width and height."""
KEYS_PER_LEVEL = (2, 3)
"""Key presses needed before the switch completes a level: 2 in the first level, 3 afterwards."""
SHAPES = ((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2))
"""Width x height choices for the key, the switch and two decoys (drawn per level)."""
KEY_DRIFT = 11
"""The key jumps to a new free spot every this many beats."""
ACTIONS = ("ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6")
MOVES = {"ACTION1": (0, -1), "ACTION2": (0, 1), "ACTION3": (-1, 0), "ACTION4": (1, 0)}

Cell = tuple[int, int]


@dataclass
class Obj:
    """One object of the world (a future referent)."""

    oid: str
    """World-internal name, stable within a level (e.g. `L1.key`)."""
    role: str
    colour: int
    cells: frozenset[Cell]
    kind: str = "percept-cluster"


@dataclass
class StepOutcome:
    """What one action did."""

    landed: str | None
    """oid of the object the action landed on (None: background or untargeted)."""
    cells_changed: int
    score_event: int = 0
    level_event: int = 0
    moved: list[str] = field(default_factory=list)


def rect(x0: int, y0: int, w: int, h: int) -> frozenset[Cell]:
    """The cells of a filled rectangle."""
    return frozenset((x, y) for x in range(x0, x0 + w) for y in range(y0, y0 + h))


def ring(x0: int, y0: int) -> frozenset[Cell]:
    """A 3 x 3 ring (its centre cell is a hole)."""
    return rect(x0, y0, 3, 3) - {(x0 + 1, y0 + 1)}


class MicroWorld:
    """The deterministic micro-world; every random choice comes from one seeded RNG."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.level = 0
        self.level_counter = 0
        self.score = 0
        self.beat = 0
        self.keys_this_level = 0
        self.objects: dict[str, Obj] = {}
        self._layout()

    # -- layout ------------------------------------------------------------------------
    def _layout(self) -> None:
        rng = self.rng
        lv = self.level + 1
        bx, by = rng.randint(1, 8), rng.randint(1, 8)
        self.board = rect(bx, by, 14, 14)
        tx, ty = bx + rng.randint(1, 7), by + rng.randint(1, 7)
        objs = [
            Obj(f"L{lv}.board", "board", 8, self.board, "region"),
            Obj(f"L{lv}.tray", "tray", 9, rect(tx, ty, 6, 6), "region"),
            Obj(f"L{lv}.ring", "ring", 7, ring(tx + 1, ty + 1)),
            Obj(f"L{lv}.decoy1", "decoy", 4, rect(tx + 4, ty + 4, 1, 2)),
            Obj(f"L{lv}.lamp", "lamp", 10, frozenset({(0, 0)}), "signal"),
        ]
        self.objects = {o.oid: o for o in objs}
        movable = [("key", 2), ("switch", 3), ("decoy", 5), ("decoy", 6)]
        rng.shuffle(movable)
        for role, colour in movable:
            w, h = rng.choice(SHAPES)
            oid = f"L{lv}.{role}" if role != "decoy" else f"L{lv}.decoy{colour - 3}"
            self.objects[oid] = Obj(oid, role, colour, self._free_spot(w, h))
        self.keys_this_level = 0

    def _occupied(self, exclude: str | None = None) -> set[Cell]:
        taken: set[Cell] = set()
        for o in self.objects.values():
            if o.role in ("board", "lamp") or o.oid == exclude:
                continue
            taken |= o.cells
        return taken

    def _free_spot(self, w: int, h: int, exclude: str | None = None) -> frozenset[Cell]:
        """A w x h rectangle inside the board touching no other object (tray included)."""
        taken = self._occupied(exclude)
        xs = sorted({x for x, _ in self.board})
        ys = sorted({y for _, y in self.board})
        options = [
            rect(x, y, w, h)
            for x in range(xs[0], xs[-1] - w + 2)
            for y in range(ys[0], ys[-1] - h + 2)
            if not (rect(x - 1, y - 1, w + 2, h + 2) & taken) and rect(x, y, w, h) <= self.board
        ]
        return self.rng.choice(options)

    # -- observation -------------------------------------------------------------------
    def grid(self) -> list[list[int]]:
        """The frame: later (smaller, inner) objects paint over earlier ones."""
        g = [[0] * SIZE for _ in range(SIZE)]
        order = sorted(self.objects.values(), key=lambda o: -len(o.cells))
        for o in order:
            colour = o.colour
            if o.role == "lamp":
                colour = 11 if self.keys_this_level else 10
            for x, y in o.cells:
                g[y][x] = colour
        return g

    def frame_text(self) -> str:
        """The frame as the organs see it: one row of hex digits per grid row."""
        return "\n".join("".join(f"{v:x}" for v in row) for row in self.grid())

    def status_line(self, turn: int, horizon: int) -> str:
        """The status zone (Z1) of a view: beat, level counter and score."""
        return f"beat {turn}/{horizon}; level {self.level_counter}; score {self.score}"

    def frame_digest(self) -> str:
        """SHA-256 of the frame's bytes (row-major, one byte per cell)."""
        return hashlib.sha256(bytes(v for row in self.grid() for v in row)).hexdigest()

    def land(self, x: int, y: int) -> str | None:
        """The smallest object containing (x, y), or None (background)."""
        best: Obj | None = None
        for o in self.objects.values():
            if (x, y) in o.cells and (best is None or len(o.cells) < len(best.cells)):
                best = o
        return best.oid if best else None

    def by_role(self, role: str) -> Obj:
        """The (first) object with a role."""
        return next(o for o in self.objects.values() if o.role == role)

    # -- dynamics ----------------------------------------------------------------------
    def step(self, action: str, x: int | None = None, y: int | None = None) -> StepOutcome:
        """Apply one action and advance the world by one beat."""
        self.beat += 1
        before = self.grid()
        out = StepOutcome(None, 0)
        if action == "ACTION6" and x is not None and y is not None:
            out.landed = self.land(x, y)
            obj = self.objects.get(out.landed) if out.landed else None
            if obj is not None and obj.role == "key":
                self.score += 1
                out.score_event = 1
                self.keys_this_level += 1
                self._move_key(out)
            elif obj is not None and obj.role == "switch":
                if self.keys_this_level >= self.keys_needed():
                    self.level += 1
                    self.level_counter += 1
                    out.level_event = 1
                    self._layout()
                else:
                    self.keys_this_level = 0
        elif action in MOVES:
            self._shift_tray(*MOVES[action], out)
        if not out.level_event and self.beat % KEY_DRIFT == 0:
            self._move_key(out)
        after = self.grid()
        out.cells_changed = sum(1 for r in range(SIZE) for c in range(SIZE) if before[r][c] != after[r][c])
        return out

    def keys_needed(self) -> int:
        """Key presses the current level needs before the switch."""
        return KEYS_PER_LEVEL[min(self.level, len(KEYS_PER_LEVEL) - 1)]

    def _move_key(self, out: StepOutcome) -> None:
        key = self.by_role("key")
        xs = {x for x, _ in key.cells}
        ys = {y for _, y in key.cells}
        key.cells = self._free_spot(len(xs), len(ys), exclude=key.oid)
        out.moved.append(key.oid)

    def _shift_tray(self, dx: int, dy: int, out: StepOutcome) -> None:
        lv = self.level + 1
        members = [f"L{lv}.tray", f"L{lv}.ring", f"L{lv}.decoy1"]
        moved = {m: frozenset((cx + dx, cy + dy) for cx, cy in self.objects[m].cells) for m in members}
        tray = moved[f"L{lv}.tray"]
        others = self._occupied() - set().union(*(self.objects[m].cells for m in members))
        if not tray <= self.board or tray & others:
            return
        for m, cells in moved.items():
            self.objects[m].cells = cells
            out.moved.append(m)


__all__ = ["ACTIONS", "KEYS_PER_LEVEL", "MOVES", "SIZE", "MicroWorld", "Obj", "StepOutcome"]
