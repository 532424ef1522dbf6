"""The typed spine and the registries: what every stage and every reader relies on.

- every event type of the format is consumed by a stage (nothing is silently ignored);
- metrics are declared once, with the fields a reader needs, and every emitted metric is declared;
- gate conditions are declared once: the gate's records carry each condition's note and reason;
- one formatter: undefined is "—" in the CLI text, the job summary and the pages alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.agent.gate import CONDITIONS, GATE, run_gate
from checker.agent.replay import replay
from checker.format.gate_results import GateConditions
from checker.format.numbers import fmt
from checker.format.results_model import ResultsFile, RunResult
from checker.format.schema.agent import AGENT_EVENTS
from checker.format.schema.constraint import CONSTRAINT_EVENTS
from checker.format.schema.events import EVENT_TYPES, validate_event
from checker.format.schema.manifest import Thresholds
from checker.pipeline import metrics
from checker.stages.tracks import RunRecord

ROOT = Path(__file__).resolve().parent.parent
AGENT_LOGS = sorted((ROOT / "submissions" / "driftboard-microworld-agent" / "runs").glob("*.jsonl"))


def _first_of_each_type() -> dict[str, dict]:
    """The first event of every type in the shipped logs (every type of the format occurs there)."""
    found: dict[str, dict] = {}
    for path in sorted((ROOT / "submissions").glob("*/runs/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            found.setdefault(obj["type"], obj)
    return found


def test_every_event_type_of_the_format_occurs_in_the_shipped_logs() -> None:
    assert set(_first_of_each_type()) == set(EVENT_TYPES)


def _type_of(model: type) -> str:
    return model.model_fields["type"].annotation.__args__[0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", AGENT_EVENTS, ids=_type_of)
def test_every_agent_event_type_has_a_replay_handler(model: type) -> None:
    """Replaying one event of each agent type changes the replayed state: no type is silently ignored."""
    kind = _type_of(model)
    event = validate_event(_first_of_each_type()[kind])
    empty = replay(RunRecord(path="x", sha256="0", start=None, end=None, events=[], lines=[]))  # type: ignore[arg-type]
    one = replay(RunRecord(path="x", sha256="0", start=None, end=None, events=[event], lines=[2]))  # type: ignore[arg-type]
    assert one != empty, f"replay ignores {kind!r} events"


def test_constraint_events_are_read_by_the_constraint_scorer(verify_shipped: dict[str, ResultsFile]) -> None:
    types = {_type_of(m) for m in CONSTRAINT_EVENTS}
    assert types == {"problem_start", "turn"}
    runs = verify_shipped["driftboard-constraint-baselines"].runs
    # every logged turn is scored (527 per run), every started problem counted (90)
    assert {(r.metric("turns"), r.metric("problems_covered")) for r in runs} == {(527, 90)}


def test_metric_declarations_are_complete_and_unique() -> None:
    decls = metrics.declarations()
    assert len({m.name for m in decls}) == len(decls)
    for m in decls:
        assert m.definition and m.undefined, m.name
        assert m.kind in ("count", "rate", "ratio", "value", "flag", "table", "text"), m.name
        assert (m.worst is None) == (not m.worst_means), m.name
        if m.worst is not None:
            assert m.higher_is_better is not None, f"{m.name}: a worst value needs a direction"
    for track, names in metrics.HEADLINE.items():
        for name in names:
            assert metrics.get(name) is not None and metrics.get(name).track in (track, "both")  # type: ignore[union-attr]
        assert metrics.get(metrics.RANK_BY[track]).worst is not None  # type: ignore[union-attr]


def test_every_emitted_metric_is_declared(verify_shipped: dict[str, ResultsFile]) -> None:
    emitted = {k for r in verify_shipped.values() for run in r.runs for k in run.metrics} - {"run"}
    emitted |= {k for r in verify_shipped.values() for c in r.cells for k in c.metrics}
    assert emitted - metrics.documented() == set()


def test_directions_read_from_the_declaration() -> None:
    assert metrics.header("drift_total") == "drift_total ↓"
    assert metrics.header("turn_accuracy") == "turn_accuracy ↑"
    assert metrics.header("llm_calls") == "llm_calls"
    assert metrics.show("gds_bind", 0.37466666) == "0.375"
    assert metrics.show("llm_tokens", 155812.0) == "155812"
    assert metrics.show("gds_bind", None) == "—"


def test_gate_conditions_are_declared_once_and_carry_note_and_reason() -> None:
    assert tuple(GateConditions.model_fields) == CONDITIONS
    assert [c.name for c in GATE] == list(CONDITIONS)
    from checker.stages.tracks import RunRecord as Record

    # a run with no events: vacuous conditions are N/A, the missing startup probe FAILs with its reason
    state = replay(Record(path="x", sha256="0", start=None, end=None, events=[], lines=[]))  # type: ignore[arg-type]
    gate = run_gate(state, Thresholds(), "driftboard")
    assert gate.verdict == "INVALID"
    for name, record in gate.conditions.items():
        assert record.note, name
        assert (record.reason is not None) == (record.status == "FAIL"), name
    assert gate.conditions.startup_probe.reason == "startup probe: no startup_probe event"
    assert gate.reasons == ["startup probe: no startup_probe event"]


def test_run_results_are_typed_between_stages(verify_shipped: dict[str, ResultsFile]) -> None:
    for results in verify_shipped.values():
        assert results.runs and all(isinstance(run, RunResult) for run in results.runs)
    agent = verify_shipped["driftboard-microworld-agent"]
    invalid = [r for r in agent.runs if r.verdict == "INVALID"]
    assert len(invalid) == 1 and invalid[0].gate is not None
    assert invalid[0].gate.write_error_rate.status == "FAIL"
    assert invalid[0].gate.write_error_rate.reason == invalid[0].reasons[0]


def test_one_undefined_mark_everywhere(verify_shipped: dict[str, ResultsFile], shipped_outputs: dict[str, str]) -> None:
    assert fmt(None) == "—" and fmt(float("nan")) == "—"
    for name, text in shipped_outputs.items():
        assert "n/a" not in text.replace("N/A", ""), name
        assert "—" in text, name


@pytest.fixture(scope="module")
def verify_shipped(shipped_results: Path) -> dict[str, ResultsFile]:
    """The shipped submissions' results files (`conftest.shipped_results`), by submission id."""
    from checker.format.results_io import is_results_name, read_results

    files = [read_results(p) for p in sorted(shipped_results.glob("*.json")) if is_results_name(p.name)]
    return {r.submission_id: r for r in files}


@pytest.fixture(scope="module")
def shipped_outputs(verify_shipped: dict[str, ResultsFile], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The CLI text of both tracks and the job summary of the shipped submissions."""
    from checker.cli.ci_summary import parse_document, render_summary
    from checker.cli.report_text import track_text
    from checker.format.verify_document import SubmissionReport

    subs = [SubmissionReport(path=f"submissions/{r.submission_id}", submission_id=r.submission_id, track=r.track,
                             profile=r.profile, cached=False, runs=r.runs, cells=r.cells, claims=r.claims,
                             prereg_check=r.prereg_check, defeaters=r.defeaters, predictions=r.predictions,
                             null_results=r.null_results, digest=r.digest).model_dump(mode="json")
            for r in verify_shipped.values()]
    doc = parse_document({"command": "verify", "ok": True, "exit_code": 0, "problems": [], "submissions": subs}, "t")
    out = {f"text:{r.track}": track_text(r.track, r.runs) for r in verify_shipped.values()}
    out["summary"] = render_summary(doc)
    return out
