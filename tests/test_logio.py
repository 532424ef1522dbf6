"""The chained log writer and reader: chaining, appending, ending, and tamper detection."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.format.logio import RunLogWriter, read_events
from checker.stages.validate import ValidationReport, validate_run_file

START = {
    "run_id": "run-1", "submission_id": "sub", "track": "agent", "cell": "FULL", "seed": "s1",
    "backbone": "m", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z",
}


def _validate(path):
    report = ValidationReport()
    validate_run_file(path, "r.jsonl", report)
    return [f.render() for f in report.findings]


def test_writer_chains_lines_as_documented(tmp_path):
    path = tmp_path / "r.jsonl"
    with RunLogWriter(path, START) as log:
        log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE"})
    raw = path.read_bytes().split(b"\n")
    assert raw[-1] == b""
    lines = raw[:-1]
    assert json.loads(lines[0])["prev"] == hashlib.sha256(b"run-1").hexdigest()
    for k in range(1, len(lines)):
        obj = json.loads(lines[k])
        assert obj["seq"] == k
        assert obj["prev"] == hashlib.sha256(lines[k - 1]).hexdigest()
    assert json.loads(lines[-1]) == {"seq": 2, "prev": hashlib.sha256(lines[1]).hexdigest(),
                                     "type": "run_end", "status": "COMPLETED"}
    assert _validate(path) == []


def test_writer_appends_to_an_open_run(tmp_path):
    path = tmp_path / "r.jsonl"
    log = RunLogWriter(path, START)
    log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE"})
    log.close()
    with RunLogWriter(path) as again:
        again.write({"type": "beat", "turn": 1, "action": "ACTION1", "drift_ref": "LIVE"})
        again.end("ABORTED", "connection error")
    assert [e.type for _, e in read_events(path)] == ["run_start", "beat", "beat", "run_end"]
    assert _validate(path) == []


def test_writer_records_an_exception_as_aborted(tmp_path):
    path = tmp_path / "r.jsonl"
    with pytest.raises(RuntimeError), RunLogWriter(path, START):
        raise RuntimeError("boom")
    last = json.loads(path.read_bytes().splitlines()[-1])
    assert last["status"] == "ABORTED"
    assert last["reason"] == "RuntimeError: boom"


def test_writer_refuses_invalid_events(tmp_path):
    from checker.format.logio import EventError

    with RunLogWriter(tmp_path / "r.jsonl", START) as log, pytest.raises(EventError):
        log.write({"type": "beat", "turn": -1, "action": "X"})


def test_writer_errors_name_the_event_type_the_field_and_the_fields_expected(tmp_path):
    """Not pydantic's raw report (a 26-type union and web links): the type, the field, what the type takes."""
    from checker.format.logio import EventError

    path = tmp_path / "r.jsonl"
    with pytest.raises(EventError) as caught, RunLogWriter(path, START) as log:
        log.write({"type": "beat", "trun": 1, "action": "ACTION1"})
    first, expected = str(caught.value).split("\n")
    assert first == "beat event: missing field 'turn'; unexpected field 'trun' (did you mean 'turn'?)"
    assert expected.startswith("beat fields: turn (required), action (required), params, target_ref, step_id, ")
    assert "seq" not in expected and "prev" not in expected  # the writer fills those in
    assert "https://" not in str(caught.value)
    # the ABORTED run_end carries the one-line problem, not the field list
    last = json.loads(path.read_bytes().splitlines()[-1])
    assert last["reason"] == "EventError: " + first


@pytest.mark.parametrize(("event", "message"), [
    ({"type": "beats", "turn": 1}, "event: unknown event type 'beats' (did you mean 'beat'?)"),
    ({"turn": 1}, "event: missing field 'type'"),
    ({"type": "turn", "problem_id": "p", "turn_number": 0, "user_message": "m"},
     "turn event: field 'turn_number': input should be greater than or equal to 1"),
])
def test_writer_error_messages(tmp_path, event, message):
    from checker.format.logio import EventError

    with RunLogWriter(tmp_path / "r.jsonl", START) as log, pytest.raises(EventError) as caught:
        log.write(event)
    first, expected = str(caught.value).split("\n")
    assert first == message
    if "type" not in event or event["type"] == "beats":
        assert expected.startswith("the event types are: run_start, run_end, beat, referent, ")
    else:
        assert expected.startswith("turn fields: problem_id (required), turn_number (required), user_message (required), ")


def test_abort_reason_is_one_bounded_line():
    from checker.format.logio import MAX_REASON_CHARS, abort_reason

    assert abort_reason(RuntimeError, RuntimeError("boom")) == "RuntimeError: boom"
    assert abort_reason(KeyboardInterrupt, KeyboardInterrupt()) == "KeyboardInterrupt"
    long = abort_reason(ValueError, ValueError("x" * 1000 + "\nsecond line"))
    assert len(long) == MAX_REASON_CHARS and long.endswith("…") and "second" not in long


def test_incomplete_run_is_reported(tmp_path):
    path = tmp_path / "r.jsonl"
    log = RunLogWriter(path, START)
    log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE"})
    log.close()
    assert _validate(path) == ["r.jsonl: run has no run_end event: the run is INCOMPLETE"]


beats = st.lists(
    st.fixed_dictionaries({
        "type": st.just("beat"),
        "turn": st.integers(0, 10_000),
        "action": st.sampled_from(["RESET", "ACTION1", "ACTION6"]),
        "target_ref": st.one_of(st.none(), st.text(min_size=1, max_size=8)),
        "render_tokens": st.integers(0, 10_000),
    }),
    min_size=1, max_size=20,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=beats, data=st.data())
def test_any_byte_change_is_detected(tmp_path_factory, events, data):
    """Flip one byte anywhere in a valid log: validation always finds a problem."""
    path = tmp_path_factory.mktemp("log") / "r.jsonl"
    with RunLogWriter(path, START) as log:
        for ev in events:
            log.write(ev)
    assert _validate(path) == []
    blob = bytearray(path.read_bytes())
    i = data.draw(st.integers(0, len(blob) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != blob[i]))
    blob[i] = new
    path.write_bytes(bytes(blob))
    assert _validate(path) != []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=beats, data=st.data())
def test_any_line_deletion_or_swap_is_detected(tmp_path_factory, events, data):
    path = tmp_path_factory.mktemp("log") / "r.jsonl"
    with RunLogWriter(path, START) as log:
        for ev in events:
            log.write(ev)
    lines = path.read_bytes().splitlines(keepends=True)
    i = data.draw(st.integers(0, len(lines) - 1))
    if data.draw(st.booleans()) or i == len(lines) - 1:
        del lines[i]
    else:
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    path.write_bytes(b"".join(lines))
    assert _validate(path) != []
