"""An agent run's log as a timeline: one row per beat, plan step, milestone claim, evidence and level event.

The rows are what the log recorded, joined with what the checker recomputed for the same line (from
the run's record in the results file, never recomputed here): where the click landed when the
recomputed landing differs from the recorded one (`mismatches`, field `target_ref`), the gate's
breach lines (render ceiling, silent degrade, evidence contradictions; the gate keeps the first
20 of each), each milestone claim's verdict and each beat's outcome (aligned / bind / abandon, from
the record's outcome code; the checker's reference step and landing for the first `DRIFTED_KEPT`
drifted beats). The log is read only when the file at the run's path still has the SHA-256 the
results file recorded; otherwise the page says so and shows no timeline. Reading is one pass over
the log (linear in events) and the rows are paginated by the run viewer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue

from checker.format.beat_outcomes import decode, each_beat
from checker.format.errors import LogFormatError
from checker.format.logio import read_events
from checker.format.results_model import GdsBeat, MilestoneDetail, RunResult
from checker.format.schema.agent import Beat, Evidence, LevelEvent, MilestoneClaim, PlanStep
from checker.format.schema.constraint import Turn
from checker.format.schema.events import Event
from checker.format.storage import LogStorageError, log_sha256
from checker.render.tables import Row

MAX_LOG_BYTES = 512 * 1024 * 1024
"""A log larger than this is not read for the viewer (its page links the raw log instead)."""


def _sha256(path: Path) -> str | None:
    try:
        return None if path.stat().st_size > MAX_LOG_BYTES else log_sha256(path)
    except (OSError, LogStorageError):
        return None


def _aim(params: Mapping[str, object] | None) -> str | None:
    if not params:
        return None
    return ", ".join(f"{k}={v}" for k, v in sorted(params.items()))


@dataclass
class _Recomputed:
    """What the checker recomputed for a log's lines (from the run's record): landings, gate breaches, claim verdicts."""

    landed: dict[int, JsonValue]
    breaches: dict[int, list[str]]
    claims: dict[int, MilestoneDetail]
    outcomes: Iterator[str | None] | None = None
    """The checker's outcome of each beat of the log, in order (None: not a reference beat); None: not known."""
    n_outcomes: int = 0
    """Beats the outcomes name."""
    drifted: dict[int, GdsBeat] = field(default_factory=dict)
    """The drifted beats whose reference step and landing the record keeps (the first `DRIFTED_KEPT`), by line."""
    steps: dict[str, PlanStep] = field(default_factory=dict)
    """The plan steps read so far (a beat names its step)."""
    beats: int = 0
    """Beats read so far."""


def _recomputed(run: RunResult) -> _Recomputed:
    landed = {m.line: m.recomputed for m in run.mismatches if m.field == "target_ref" and m.line is not None}
    breaches: dict[int, list[str]] = {}
    if run.gate is not None:
        for lines, what in ((run.gate.render_ceiling.lines, "render ceiling"),
                            (run.gate.silent_degrade.lines, "silent degrade (no reference stamp)"),
                            (run.gate.evidence.lines, "label contradicts the log's own rows")):
            for line in lines:
                breaches.setdefault(line, []).append(what)
    segments = decode(run.gds.outcomes) if run.gds is not None and run.gds.outcomes else None
    drifted = {b.line: b for b in run.gds.drifted} if run.gds is not None else {}
    return _Recomputed(landed, breaches, {m.line: m for m in run.milestones or []},
                       each_beat(segments) if segments is not None else None, sum(n for _, n in segments or []), drifted)


def _beat_row(line: int, ev: Beat, known: _Recomputed) -> Row:
    """A beat: its label, the click, the plan step it follows and where it aimed, where it landed, any breach."""
    if ev.step_id:
        step = known.steps.get(ev.step_id)
        plan, aimed = ev.step_id, step.target_ref if step is not None else None
    elif ev.shadow_step_id:
        fields = ev.shadow_step_id.split("|")
        plan = ev.shadow_step_id
        aimed = fields[2] if len(fields) >= 3 and fields[2] != "-" else None
    else:
        plan, aimed = None, None
    recomputed = known.landed.get(line, ev.target_ref)
    outcome: str | None = None
    if known.outcomes is not None and known.beats < known.n_outcomes:
        outcome = next(known.outcomes) or "not a reference beat"
    known.beats += 1
    drifted = known.drifted.get(line)
    if drifted is not None:  # the checker's reference step and landing (from the log's evidence)
        aimed, recomputed = drifted.aimed_at, drifted.landed
    return {"line": line, "turn": ev.turn, "event": "beat",
            "what": f"{ev.action} ({ev.source_stamp or 'no label'})", "click": _aim(ev.params),
            "plan": plan, "aimed": aimed, "recorded": ev.target_ref, "landed": recomputed, "outcome": outcome,
            "breach": "; ".join(known.breaches.get(line, [])) or None}


def _row(line: int, ev: Event, known: _Recomputed) -> Row | None:
    """The timeline row of one log event (None for an event the timeline does not show)."""
    if isinstance(ev, PlanStep):
        known.steps[ev.step_id] = ev
        return {"line": line, "turn": ev.turn, "event": "plan step",
                "what": f"{ev.step_id} {ev.kind}" + (f" {ev.action}" if ev.action else ""), "aimed": ev.target_ref}
    if isinstance(ev, Beat):
        return _beat_row(line, ev, known)
    if isinstance(ev, MilestoneClaim):
        verdict = known.claims.get(line)
        return {"line": line, "turn": ev.turn, "event": "milestone claimed",
                "what": f"{ev.claim_id}" + (f" ({ev.step_id})" if ev.step_id else ""),
                "breach": f"claim {verdict.status}" if verdict is not None else None}
    if isinstance(ev, Evidence):
        return {"line": line, "turn": ev.turn, "event": "evidence",
                "what": f"{ev.kind}" + (f" {ev.subject}" if ev.subject else "")}
    if isinstance(ev, LevelEvent):
        return {"line": line, "turn": ev.turn, "event": "level",
                "what": f"levels completed {ev.level_counter}, score {ev.score}"}
    return None


def agent_timeline(run: RunResult, root: Path = Path(".")) -> tuple[list[Row] | None, str]:
    """(rows, note): the timeline rows of an agent run, or None with the reason it cannot be shown."""
    path = root / run.path
    if run.log_sha256 is None or _sha256(path) != run.log_sha256:
        return None, ("The log is not available beside these results (or its bytes differ from the recorded SHA-256): "
                      "no timeline; follow the raw-log link.")
    known = _recomputed(run)
    rows: list[Row] = []
    try:
        for line, ev in read_events(path):
            row = _row(line, ev, known)
            if row is not None:
                rows.append(row)
    except (LogFormatError, OSError) as exc:
        return None, f"The log could not be read for the timeline ({exc})."
    if known.outcomes is not None and known.beats != known.n_outcomes:
        # the record names another number of beats than the log holds: no outcome is shown
        rows = [{**row, "outcome": None} if row["event"] == "beat" else row for row in rows]
    return rows, ""


DIALOGUE_CHARS = 600
"""Longest excerpt of a user message or a model response shown per turn (the raw log holds it all)."""


def _excerpt(text: str) -> str:
    return text if len(text) <= DIALOGUE_CHARS else text[:DIALOGUE_CHARS] + f"… ({len(text):,} characters)"


def constraint_dialogue(run: RunResult, root: Path = Path(".")) -> tuple[dict[int, tuple[str, str]] | None, str]:
    """(line -> (user message, model response), note): a constraint run's dialogue read from its log.

    None, with the reason, when the log is not beside the results or its bytes differ from the
    recorded SHA-256 (the page then shows the recomputed labels only and links the raw log).
    """
    path = root / run.path
    if run.log_sha256 is None or _sha256(path) != run.log_sha256:
        return None, ("The log is not available beside these results (or its bytes differ from the recorded SHA-256): "
                      "the dialogue is not shown; follow the raw-log link.")
    out: dict[int, tuple[str, str]] = {}
    try:
        for line, ev in read_events(path):
            if isinstance(ev, Turn):
                out[line] = (_excerpt(ev.user_message), _excerpt(ev.raw_response or ""))
    except (LogFormatError, OSError) as exc:
        return None, f"The log could not be read for the dialogue ({exc})."
    return out, ""
