"""Property tests of the hash chain: round trip through `RunLogWriter`, and which edits validation catches.

The contract (site/format.md, "Run logs"): line k carries `prev` = SHA-256 of line k-1's exact
bytes, the first line is chained to the run id, and the last event is `run_end`. So:

* guaranteed detected: ONE edit of a valid log that is a replaced byte, inserted bytes or bytes
  deleted within one line, anywhere before the last line (the next line's `prev` pins every
  byte); a whole line deleted, duplicated, swapped, moved or inserted anywhere (seq, chain,
  `run_end` placement); a truncation anywhere (the last line loses its LF or `run_end` goes);
  and, when `run_end` carries no free text, any replaced byte in the last line too (every byte
  of `{"seq":N,"prev":"…","type":"run_end","status":"…"}` is pinned by seq, prev, the schema or
  the JSON syntax);
* not guaranteed: an edit confined to the last line that keeps it a valid `run_end` (its
  `reason` text; no later line carries its digest: the log's SHA-256 in the results file pins
  it), and several edits together (anyone can recompute SHA-256: the chain detects changes, it
  does not authenticate who wrote the log).
"""

from __future__ import annotations

import hashlib
import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.format.logio import RunLogWriter, file_sha256, read_events
from checker.stages.validate import ValidationReport, validate_run_file

START = {
    "run_id": "run-1", "submission_id": "sub", "track": "agent", "cell": "FULL", "seed": "s1",
    "backbone": "m", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z",
}
FIXTURES = [HealthCheck.function_scoped_fixture]

text = st.text(st.characters(codec="utf-8"), max_size=12)  # no lone surrogates: not encodable as UTF-8
small = st.integers(0, 10_000)
json_obj = st.dictionaries(st.text(max_size=5), st.one_of(st.none(), st.booleans(), small, text), max_size=3)
events = st.lists(st.one_of(
    st.fixed_dictionaries({"type": st.just("beat"), "turn": small, "action": st.sampled_from(["RESET", "ACTION1", "ACTION6"])},
                          optional={"target_ref": text, "render_tokens": small, "drift_ref": st.sampled_from(["LIVE", "SHADOW"]),
                                    "params": st.fixed_dictionaries({"x": small, "y": small}), "match": st.integers(0, 1)}),
    st.fixed_dictionaries({"type": st.just("llm_call"), "turn": small,
                           "organ": st.sampled_from(["OBSERVER", "SURVEYOR", "ACTUATOR", "BASELINE"])},
                          optional={"prompt_tokens": small, "ops_rejected": small}),
    st.fixed_dictionaries({"type": st.just("status"), "turn": small, "entity_kind": text, "entity_id": text,
                           "to_status": text}, optional={"reason": text}),
    st.fixed_dictionaries({"type": st.just("rule"), "turn": small, "rule_id": text},
                          optional={"ctx": json_obj, "effect": json_obj}),
    st.fixed_dictionaries({"type": st.just("receipt"), "turn": small},
                          optional={"observed": json_obj, "match": st.integers(0, 1)}),
), min_size=1, max_size=12)
end_reason = st.one_of(st.none(), text)


def write_log(path, evs, reason=None):
    with RunLogWriter(path, START) as log:
        for ev in evs:
            log.write(ev)
        log.end("COMPLETED", reason)
    return path.read_bytes()


def problems(path, data):
    path.write_bytes(data)
    report = ValidationReport()
    validate_run_file(path, "r.jsonl", report)
    return [f.render() for f in report.findings + report.unreadable]


def lines_of(data):
    return data.splitlines(keepends=True)


@settings(max_examples=50, suppress_health_check=FIXTURES)
@given(evs=events, reason=end_reason)
def test_round_trip_validates_clean_and_reads_back_equal(tmp_path_factory, evs, reason):
    path = tmp_path_factory.mktemp("rt") / "r.jsonl"
    data = write_log(path, evs, reason)
    assert problems(path, data) == []
    got = list(read_events(path))
    assert [n for n, _ in got] == list(range(1, len(evs) + 3))
    assert [e.type for _, e in got] == ["run_start", *[ev["type"] for ev in evs], "run_end"]
    raw = lines_of(data)
    for k, ((_, event), written) in enumerate(zip(got, [START, *evs, {"status": "COMPLETED", "reason": reason}], strict=True)):
        dumped = event.model_dump(mode="json", by_alias=True)
        assert dumped["seq"] == k
        expected_prev = hashlib.sha256(raw[k - 1][:-1]).hexdigest() if k else hashlib.sha256(b"run-1").hexdigest()
        assert dumped["prev"] == expected_prev
        assert {key: dumped[key] for key, v in written.items() if v is not None} == {
            key: v for key, v in written.items() if v is not None}


@settings(max_examples=70, suppress_health_check=FIXTURES)
@given(evs=events, reason=end_reason, data=st.data())
def test_one_replaced_byte_before_the_last_line_is_detected(tmp_path_factory, evs, reason, data):
    path = tmp_path_factory.mktemp("flip") / "r.jsonl"
    blob = bytearray(write_log(path, evs, reason))
    last_start = len(blob) - len(lines_of(bytes(blob))[-1])
    i = data.draw(st.integers(0, last_start - 1))
    blob[i] = data.draw(st.integers(0, 255).filter(lambda b: b != blob[i]))
    assert problems(path, bytes(blob)) != []


@settings(max_examples=70, suppress_health_check=FIXTURES)
@given(evs=events, data=st.data())
def test_any_replaced_byte_is_detected_when_run_end_has_no_free_text(tmp_path_factory, evs, data):
    path = tmp_path_factory.mktemp("flip") / "r.jsonl"
    blob = bytearray(write_log(path, evs, None))
    last_start = len(blob) - len(lines_of(bytes(blob))[-1])
    i = data.draw(st.integers(last_start, len(blob) - 1))  # the run_end line and its LF
    blob[i] = data.draw(st.integers(0, 255).filter(lambda b: b != blob[i]))
    assert problems(path, bytes(blob)) != []


@settings(max_examples=70, suppress_health_check=FIXTURES)
@given(evs=events, reason=end_reason, data=st.data())
def test_inserted_bytes_or_a_deletion_within_one_line_before_the_last_line_is_detected(tmp_path_factory, evs, reason, data):
    path = tmp_path_factory.mktemp("ins") / "r.jsonl"
    blob = write_log(path, evs, reason)
    lines = lines_of(blob)
    k = data.draw(st.integers(0, len(lines) - 2))
    start = sum(len(x) for x in lines[:k])
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(blob) - len(lines[-1]) - 1))  # strictly before the last line's first byte
        mutated = blob[:i] + data.draw(st.binary(min_size=1, max_size=6)) + blob[i:]
    else:
        body = len(lines[k]) - 1  # the line without its LF
        i = data.draw(st.integers(0, body - 1))
        n = data.draw(st.integers(1, body - i))
        mutated = blob[: start + i] + blob[start + i + n:]
    assert problems(path, mutated) != []


@settings(max_examples=90, suppress_health_check=FIXTURES)
@given(evs=events, reason=end_reason, data=st.data(),
       op=st.sampled_from(["delete", "duplicate", "swap", "move", "insert", "truncate"]))
def test_whole_line_edits_and_truncation_are_detected_anywhere(tmp_path_factory, evs, reason, data, op):
    path = tmp_path_factory.mktemp("line") / "r.jsonl"
    blob = write_log(path, evs, reason)
    lines = lines_of(blob)
    i = data.draw(st.integers(0, len(lines) - 1))
    j = data.draw(st.integers(0, len(lines) - 1))
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op in ("swap", "move"):
        assume(lines[i] != lines[j])
        if op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(j, lines.pop(i))
    elif op == "insert":
        new = data.draw(st.one_of(st.sampled_from(lines), st.binary(max_size=30),
                                  st.builds(lambda ev: json.dumps(ev).encode(), events.map(lambda x: x[0]))))
        lines.insert(i, new.rstrip(b"\n") + b"\n")
    else:
        lines = [blob[: data.draw(st.integers(0, len(blob) - 1))]]
    mutated = b"".join(lines)
    assume(mutated != blob)
    assert problems(path, mutated) != []


@settings(max_examples=40, suppress_health_check=FIXTURES)
@given(evs=events, reason=text.filter(lambda r: r != "x"))
def test_contract_limit_the_last_lines_free_text_is_pinned_only_by_the_file_digest(tmp_path_factory, evs, reason):
    """Editing run_end's reason leaves a valid log; only the log's SHA-256 (in the results file) changes."""
    path = tmp_path_factory.mktemp("last") / "r.jsonl"
    blob = write_log(path, evs, reason)
    digest = file_sha256(path)
    last = json.loads(lines_of(blob)[-1])
    last["reason"] = "x"
    forged = b"".join(lines_of(blob)[:-1]) + json.dumps(last, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    assert problems(path, forged) == []
    assert file_sha256(path) != digest


@settings(max_examples=40, suppress_health_check=FIXTURES)
@given(evs=events, data=st.data())
def test_contract_limit_a_rewritten_tail_rebuilds_a_valid_chain(tmp_path_factory, evs, data):
    """Truncating and appending a run_end chained by hand validates: the chain is not a signature."""
    path = tmp_path_factory.mktemp("tail") / "r.jsonl"
    blob = write_log(path, evs)
    lines = lines_of(blob)
    keep = data.draw(st.integers(1, len(lines) - 1))
    tail = {"seq": keep, "prev": hashlib.sha256(lines[keep - 1][:-1]).hexdigest(), "type": "run_end", "status": "COMPLETED"}
    forged = b"".join(lines[:keep]) + json.dumps(tail, separators=(",", ":")).encode() + b"\n"
    assert problems(path, forged) == []
