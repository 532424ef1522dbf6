"""The validator's fast path (issue 17) finds exactly what the full path finds, and keeps the same events.

The scanner (`checker.format.scan`) offers each line to the canonical parser (`CanonicalParser`: a line
whose bytes are the bytes its event serialises to, `checker.format.schema.events.canonical_line`, with
one validating parse) before the strict one (`StrictParser`: the strict parse, with duplicate keys,
NaN, nesting and number limits, then the schema). Each test here scans a log twice, with both parsers
and with the strict one alone, over logs where one line is mutated the way a careless or hostile
harness would, and asserts identical problems, run facts and kept events; every line the canonical
parser takes, the strict parser is given too, from the same chain state, and must take the same way.
`validate_run_file` is run with `FAST_PATH` on and off as well (findings as reported). The payload
digest of copy detection is checked against bytes written out by hand from its definition
(site/format.md, "Copies by content"), and against reformatted copies of a run.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import beat, click, referent, status, write_log
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.format.logio import EVENT_MODELS_BY_TYPE, REPLAY_CONTAINER_BYTES, genesis
from checker.format.scan import (
    DECLINED,
    GIVE_UP,
    CanonicalParser,
    Chain,
    LineParser,
    Parsed,
    Problem,
    Scanner,
    StrictParser,
    bounded_lines,
)
from checker.pipeline.verify import kept_record, read_run
from checker.stages import validate
from checker.stages.validate import KeptEvents, KeptLog, RunInfo, ValidationReport, validate_run_file

RAW = "\x00raw\x00"
"""Placeholder a mutation puts where a literal JSON text (not a Python value) goes."""

LITERALS = [
    b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"-0", b"0.0", b"1.0", b"1e-05", b"1e-5", b"2.5",
    b"9223372036854775807", b"9223372036854775808", b"-9223372036854775809", b"9" * 25, b"9" * 5000,
    b"[" * 190 + b"]" * 190, b"[" * 196 + b"]" * 196, b"[" * 197 + b"]" * 197, b"[" * 199 + b"]" * 199,
    b"[" * 201 + b"]" * 201, b'{"a":' * 99 + b"1" + b"}" * 99,
    b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"', "\"\U0001f600\"".encode(), b'"\\u00e9"', "\"é\"".encode(),
    b'"\\/"', b'"a\\u0000b"', b'"\\u001f"', b'"\x1f"', b'"\\r"', b'"\r"', b'"\xff"', b'"\xed\xa0\x80"',
    b'{"a":1,"a":1}', b'{"a":1,"a":2}', b'{"a":1,"b":2}', b"{}", b"[]", b"null", b"true", b"1", b'"1"',
]
"""JSON texts a number, a string or a free-form value may be replaced by: limits, non-canonical spellings, invalid UTF-8."""


def _events() -> list[dict[str, Any]]:
    return [
        {"type": "startup_probe", "turn": 0, "signal_vocab": ["score"], "action_interface": {"ACTION6": {"x": [0, 63]}}},
        referent(0, "R1", [[1, 1], [1, 2]]),
        beat(0, "RESET", source_stamp="RESET"),
        click(1, 1, 1, target_ref="R1", source_stamp="PROBE", render_tokens=12),
        {"type": "receipt", "turn": 1, "action": "ACTION6", "target_ref": "R1",
         "observed": {"cells_changed": 2, "ratio": 1e-05, "big": 1e16, "note": "é\u2028\n\"\x7f"},
         "predicted": {"cells_changed": "nonzero"}, "match": 1, "predictor_id": "RU1", "predictor_kind": "RULE"},
        status(1, "STEP", "K1-S1", "DONE"),
        {"type": "llm_call", "turn": 1, "organ": "SURVEYOR", "prompt_tokens": 10},
        click(2, 1, 2, target_ref="R1", source_stamp="PROBE", score=1),
    ]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    path = write_log(tmp_path_factory.mktemp("base") / "r.jsonl", _events())
    return path.read_bytes().split(b"\n")[:-1]


def _chained(lines: list[bytes], run_id: str, start: int) -> list[bytes]:
    """Re-link `prev` from line index `start` on (a log whose only fault is the mutated line)."""
    out = list(lines)
    for i in range(max(start, 1), len(out)):
        try:
            obj = json.loads(out[i])
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("prev"), str):
            out[i] = out[i].replace(obj["prev"].encode(), hashlib.sha256(out[i - 1]).hexdigest().encode(), 1)
    return out


def _state(chain: Chain) -> tuple[Any, ...]:
    return tuple(getattr(chain, name) for name in Chain.__slots__)


class Checked:
    """The canonical parser, with each line it takes given to a strict parser too, from a copy of the same chain."""

    def __init__(self) -> None:
        self.canonical = CanonicalParser()
        self.calls = 0

    def parse(self, data: bytes, lineno: int, chain: Chain) -> Parsed:
        self.calls += 1
        before = copy.copy(chain)
        got = self.canonical.parse(data, lineno, chain)
        if got is DECLINED:
            assert _state(chain) == _state(before)  # a declined line leaves the chain as it was
            return got
        problems: list[Problem] = []
        strict = StrictParser(problems).parse(data, lineno, before)
        assert problems == [] and isinstance(got, tuple) and isinstance(strict, tuple)
        assert strict[0] == got[0] and type(strict[0]) is type(got[0])
        assert got[1] == data  # taken because its bytes are canonical
        assert _state(before) == _state(chain)
        return got

    def finish(self) -> None:
        self.canonical.finish()


def scan(path: Path, fast: bool) -> tuple[Any, ...]:
    """Everything the scanner reports and its sinks keep for `path`: both parsers (fast) or the strict one alone."""
    problems: list[Problem] = []
    parsers: tuple[LineParser, ...] = (Checked(), StrictParser(problems)) if fast else (StrictParser(problems),)
    info = RunInfo("r.jsonl")
    kept = KeptLog(max_weight=1 << 40, container_bytes=REPLAY_CONTAINER_BYTES)
    keeper = KeptEvents(kept, path.stat().st_size)
    scanner = Scanner(parsers, info, keeper, problems)
    with path.open("rb") as fh:
        scanner.scan(bounded_lines(fh, keeper.observer()))
    if not scanner.refused:
        keeper.finish()
    return (problems, scanner.lines, scanner.refused, _state(scanner.chain), vars(info),
            kept.complete, kept.start, kept.end, kept.events, kept.lines, kept.sha256, kept.content_sha256)


def outcome(path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """Everything validation reports and keeps for `path`, with the fast path on or off."""
    monkeypatch.setattr(validate, "FAST_PATH", fast)
    report = ValidationReport()
    kept = KeptLog(max_weight=1 << 40, container_bytes=REPLAY_CONTAINER_BYTES)
    info = validate_run_file(path, "r.jsonl", report, kept)
    return ([f.render() for f in report.findings], [f.render() for f in report.unreadable], report.lines, vars(info),
            kept.complete, kept.start, kept.end, kept.events, kept.lines, kept.sha256, kept.content_sha256)


def _same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    both, strict = scan(path, True), scan(path, False)
    assert both == strict
    for a, b in zip(both[8], strict[8], strict=True):  # a dataclass's == compares every field; the types must agree too
        assert type(a) is type(b)
    fast, slow = outcome(path, True, monkeypatch), outcome(path, False, monkeypatch)
    assert fast == slow
    for a, b in zip(fast[7], slow[7], strict=True):
        assert type(a) is type(b)
    return fast


def _dumps(pairs: list[tuple[str, Any]], sep: tuple[str, str] = (",", ":"), ascii_only: bool = False) -> bytes:
    parts = [json.dumps(k, ensure_ascii=ascii_only) + sep[1] + json.dumps(v, separators=(",", ":"), ensure_ascii=ascii_only)
             for k, v in pairs]
    return ("{" + sep[0].join(parts) + "}").encode()


def mutate(line: bytes, kind: str, rnd: random.Random) -> bytes:
    """One line changed the way `kind` names (the line is canonical before)."""
    pairs = list(json.loads(line).items())
    keys = [k for k, _ in pairs]
    if kind == "duplicate key, same value":
        i = rnd.randrange(len(pairs))
        pairs.insert(i + 1, pairs[i])
    elif kind == "duplicate key, other value":
        i = rnd.randrange(len(pairs))
        k, v = pairs[i]
        pairs.insert(rnd.choice([i, i + 1]), (k, v + 1 if isinstance(v, int) and not isinstance(v, bool)
                                              else f"{v}x" if isinstance(v, str) else None))
    elif kind == "keys reordered":
        i = rnd.randrange(len(pairs) - 1)
        pairs[i], pairs[i + 1] = pairs[i + 1], pairs[i]
    elif kind == "spaces":
        return _dumps(pairs, (", ", ": "))
    elif kind == "explicit null":  # a field the event type has, with null as its default (the same event)
        fields = EVENT_MODELS_BY_TYPE[str(dict(pairs)["type"])].model_fields
        absent = sorted(name for name, info in fields.items() if info.default is None and name not in keys)
        if absent:
            pairs.insert(rnd.randrange(3, len(pairs) + 1), (rnd.choice(absent), None))
    elif kind == "field dropped":
        del pairs[rnd.randrange(len(pairs))]
    elif kind == "unknown field":
        pairs.insert(rnd.randrange(len(pairs) + 1), ("zz", 1))
    elif kind == "escaped ASCII":
        return _dumps(pairs).replace(b'"type"', b'"\\u0074ype"', 1)
    elif kind == "literal":
        target = rnd.choice(["seq", "turn", "free", "string"])
        if target == "free":
            free = [k for k in keys if k in ("observed", "predicted", "params", "action_interface")]
            if not free:
                return line
            i = keys.index(free[0])
            pairs[i] = (free[0], {"k": RAW})
        elif target == "string":
            strings = [i for i, (k, v) in enumerate(pairs) if isinstance(v, str) and k not in ("prev", "type")]
            if not strings:
                return line
            pairs[rnd.choice(strings)] = (pairs[rnd.choice(strings)][0], RAW)
        elif target in keys:
            pairs[keys.index(target)] = (target, RAW)
        return _dumps(pairs).replace(json.dumps(RAW).encode(), rnd.choice(LITERALS), 1)
    elif kind == "CR":
        return line + b"\r" if rnd.random() < 0.5 else line.replace(b'":"', b'":"\r', 1)
    elif kind == "seq":
        pairs[0] = ("seq", rnd.choice([pairs[0][1] + 1, pairs[0][1] - 1, 0, str(pairs[0][1]), -1]))
    elif kind == "prev":
        pairs[1] = ("prev", rnd.choice([str(pairs[1][1]).upper(), "0" * 64, "x", genesis("other")]))
    elif kind == "type":
        pairs[2] = ("type", rnd.choice(["run_start", "run_end", "nope", "Beat", 3]))
    elif kind == "not an object":
        return rnd.choice([b"[1]", b"", b" ", b"1", b'"x"', b"{", line[:-1], line + b"x"])
    return _dumps(pairs)


KINDS = ["duplicate key, same value", "duplicate key, other value", "keys reordered", "spaces", "explicit null",
         "field dropped", "unknown field", "escaped ASCII", "literal", "CR", "seq", "prev", "type", "not an object"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), where=st.integers(1, 9), rechain=st.booleans(), seed=st.integers(0, 1 << 16))
def test_fast_and_full_paths_agree_on_a_mutated_line(base, tmp_path_factory, monkeypatch, kind, where, rechain, seed):
    lines = list(base)
    where = min(where, len(lines) - 1)
    lines[where] = mutate(lines[where], kind, random.Random(seed))
    if rechain:
        lines = _chained(lines, "t/r1", where + 1)
    path = tmp_path_factory.mktemp("mut") / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _same_both_ways(path, monkeypatch)


@pytest.mark.parametrize("literal", LITERALS, ids=lambda b: repr(b[:24]))
@pytest.mark.parametrize("where", ["observed", "turn", "target_ref"])
def test_each_literal_gives_the_same_finding_both_ways(base, tmp_path, monkeypatch, literal, where):
    # every limit of the strict parse, on a line that is otherwise canonical and correctly chained
    i = next(n for n, line in enumerate(base) if b'"type":"receipt"' in line)
    pairs = json.loads(base[i]).items()
    pairs = [(k, {"k": RAW} if k == where == "observed" else RAW if k == where else v) for k, v in pairs]
    lines = list(base)
    lines[i] = _dumps(pairs).replace(json.dumps(RAW).encode(), literal, 1)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(_chained(lines, "t/r1", i + 1)) + b"\n")
    _same_both_ways(path, monkeypatch)


def test_the_fast_path_takes_canonical_lines(base, tmp_path, monkeypatch):
    # a log RunLogWriter wrote (floats, non-ASCII and escapes included) never reaches the strict parser
    # after line 1: its lines are canonical (else the fast path would be dead code)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(base) + b"\n")
    calls = []

    class Counting(StrictParser):
        def parse(self, data: bytes, lineno: int, chain: Chain) -> Parsed:
            calls.append(data)
            return super().parse(data, lineno, chain)

    for fast in (True, False):
        calls.clear()
        problems: list[Problem] = []
        parsers = (CanonicalParser(), Counting(problems)) if fast else (Counting(problems),)
        with path.open("rb") as fh:
            Scanner(parsers, RunInfo("r.jsonl"), None, problems).scan(bounded_lines(fh))
        assert problems == []
        assert calls == ([base[0]] if fast else base)
    findings, *_ = outcome(path, True, monkeypatch)
    assert findings == []


def test_payload_digest_is_the_canonical_bytes_without_chain_fields(tmp_path, monkeypatch):
    # written out by hand from site/format.md: compact JSON, fields in schema order (defaults included,
    # null fields left out), without `seq` and `prev`, one per line; run_start and run_end are left out
    events = [beat(0, "RESET", source_stamp="RESET"), click(1, 3, 7, target_ref="R1")]
    path = write_log(tmp_path / "r.jsonl", events)
    expected = hashlib.sha256(
        b'{"type":"beat","turn":0,"action":"RESET","drift_ref":"LIVE","source_stamp":"RESET","render_tokens":0,'
        b'"level_counter":0,"score":0}\n'
        b'{"type":"beat","turn":1,"action":"ACTION6","params":{"x":3,"y":7},"target_ref":"R1","drift_ref":"LIVE",'
        b'"render_tokens":0,"level_counter":0,"score":0}\n').hexdigest()
    for fast in (True, False):
        assert outcome(path, fast, monkeypatch)[-1] == expected
    assert read_run(path, "r.jsonl").content_sha256 == expected


@pytest.mark.parametrize("kind", ["keys reordered", "spaces", "explicit null", "escaped ASCII"])
def test_a_reformatted_copy_has_the_same_payload_digest(base, tmp_path, monkeypatch, kind):
    # a copied run re-serialised differently (and re-chained under a new run id) is still a copy
    rnd = random.Random(7)
    original = tmp_path / "a.jsonl"
    original.write_bytes(b"\n".join(base) + b"\n")
    start = json.loads(base[0]).items()
    start = [(k, "t/copy" if k == "run_id" else genesis("t/copy") if k == "prev" else v) for k, v in start]
    lines = [_dumps(start)] + [mutate(line, kind, rnd) if b'"type":"run_end"' not in line else line for line in base[1:]]
    lines = _chained(lines, "t/copy", 1)
    copy = tmp_path / "b.jsonl"
    copy.write_bytes(b"\n".join(lines) + b"\n")
    a, b = _same_both_ways(original, monkeypatch), _same_both_ways(copy, monkeypatch)
    assert a[0] == b[0] == []  # both valid
    assert a[-1] == b[-1] and a[-2] != b[-2]  # same payload digest, other file digest
    kept = KeptLog(max_weight=1 << 40, container_bytes=REPLAY_CONTAINER_BYTES)
    validate_run_file(copy, "b.jsonl", ValidationReport(), kept)
    assert kept_record(kept, "b.jsonl").content_sha256 == read_run(copy, "b.jsonl").content_sha256 == a[-1]


@pytest.mark.parametrize("log", sorted(Path(__file__).resolve().parents[1].glob("submissions/*/runs/*.jsonl"))[::7],
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_shipped_logs_give_the_same_result_both_ways(log, monkeypatch):
    findings, *_ = _same_both_ways(log, monkeypatch)
    assert findings == []


def test_a_log_of_non_canonical_lines_stops_trying_the_fast_path(tmp_path, monkeypatch):
    # a harness writing `json.dumps` defaults (spaces after separators): every line misses the fast path, so
    # after FAST_PATH_GIVE_UP + 1 misses it is not tried again (a miss costs a second parse); a duplicate key
    # late in the log is still found, and both ways agree
    events = [beat(t, "ACTION1") for t in range(60)]
    lines = write_log(tmp_path / "w.jsonl", events).read_bytes().split(b"\n")[:-1]
    spaced = [_dumps(list(json.loads(line).items()), (", ", ": ")) for line in lines]
    spaced[50] = spaced[50].replace(b'"turn": 49', b'"turn": 49, "turn": 49', 1)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(_chained(spaced, "t/r1", 1)) + b"\n")
    checked = Checked()
    problems: list[Problem] = []
    with path.open("rb") as fh:
        Scanner((checked, StrictParser(problems)), RunInfo("r.jsonl"), None, problems).scan(bounded_lines(fh))
    assert problems == [(51, "invalid JSON: duplicate key 'turn'")]
    assert checked.calls == GIVE_UP + 1  # one validating parse and one canonical serialisation each
    findings, *_ = _same_both_ways(path, monkeypatch)
    assert findings == ["r.jsonl:51: invalid JSON: duplicate key 'turn'"]
    assert validate.FAST_PATH_GIVE_UP == GIVE_UP
