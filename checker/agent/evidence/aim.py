"""Aim: an action the run's startup probe declares targeted must carry integer `x`, `y` inside the declared ranges.

An `action_interface` entry with `x` and `y` ranges makes its action targeted; such a beat counts as
aimed either way (it was emitted with coordinates, logged or not).
"""

from __future__ import annotations

from checker.agent.evidence.contradiction import Contradiction, contradiction
from checker.agent.replay import AgentState
from checker.format.schema.agent import Beat

Range = tuple[int, int] | None
"""An inclusive [low, high] range; None when the probe's entry is malformed (not checked)."""


def targeted_actions(state: AgentState) -> dict[str, tuple[Range, Range]]:
    """Actions the startup probe declares targeted -> (x range, y range); ranges None when malformed."""
    probe = state.startup
    if probe is None or not probe.action_interface:
        return {}
    out: dict[str, tuple[Range, Range]] = {}
    for name, spec in probe.action_interface.items():
        if isinstance(spec, dict) and "x" in spec and "y" in spec:
            out[str(name)] = (_range(spec["x"]), _range(spec["y"]))
    return out


def _range(value: object) -> Range:
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                             for v in value)):
        return int(value[0]), int(value[1])
    return None


def _outside(beat: Beat, line: int, aim: tuple[int, int], spec: tuple[Range, Range]) -> list[Contradiction]:
    """The coordinates of a targeted beat that fall outside the ranges its probe declares."""
    out = []
    for value, bounds, axis in ((aim[0], spec[0], "x"), (aim[1], spec[1], "y")):
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            out.append(contradiction("aim", line, f"params.{axis}", value, list(bounds),
                                     f"{axis} {value} is outside the range [{bounds[0]}, {bounds[1]}] the "
                                     f"startup probe declares for {beat.action}"))
    return out


def aim(state: AgentState, found: list[Contradiction]) -> list[bool]:
    """Per beat: aimed (integer x, y) or an action the startup probe declares targeted; contradictions into `found`."""
    targeted = targeted_actions(state)
    if not targeted:
        return [landing.aimed for landing in state.landings]
    aimed: list[bool] = []
    # a beat's aim is in its `Landing` (`aim_of(params)`, computed by replay)
    for beat, line, landing in zip(state.beats, state.beat_lines, state.landings, strict=True):
        spec = targeted.get(beat.action)
        aimed.append(spec is not None or landing.aimed)
        if spec is None:
            continue
        xy, (xr, yr) = landing.aim, spec
        if xy is None:
            found.append(contradiction("aim", line, "params", beat.params, "integer x and y",
                                       f"{beat.action} is a targeted action in the run's startup probe "
                                       "(action_interface): it must carry the coordinates it was emitted with"))
        elif (xr is not None and not xr[0] <= xy[0] <= xr[1]) or (yr is not None and not yr[0] <= xy[1] <= yr[1]):
            found.extend(_outside(beat, line, xy, spec))
    return aimed


__all__ = ["aim", "targeted_actions"]
