"""Hostile run logs (issue 9): every attack gets a clear finding, the documented exit code, no traceback,
and the valid run beside it is still verified (runs in = runs reported).

The static cases are golden folders (`tests/cases/{invalid,forged}/`, made by `tests/cases/hostile_logs.py`,
whose `validate` half `test_validate_cases.py` checks); this module checks their `verify.json` and the attacks
that are generated at test time: huge numbers, deep nesting, huge lists, compressed logs and a decompression
bomb, the replay bound, and a 1 GB log verified under a peak-memory bound.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import CASES, REPO
from submission_factory import make_agent_submission

PROBLEMS = REPO / "problems" / "driftboard-suite-v1"
EXPECTATIONS = ("expected.txt", "exit_code", "verify.json")


def _hostile_cases() -> list[tuple[str, str]]:
    return sorted((p.parent.parent.name, p.parent.name) for kind in ("invalid", "forged")
                  for p in (CASES / kind).glob("*/verify.json"))


def _stage(kind: str, name: str, tmp_path: Path) -> dict:
    dest = tmp_path / name
    shutil.copytree(CASES / kind / name, dest, symlinks=True)
    for file in EXPECTATIONS:
        (dest / file).unlink(missing_ok=True)
    return json.loads((CASES / kind / name / "verify.json").read_text())


def _rendered(problems: list[dict]) -> list[str]:
    return sorted((f"{p['path']}:{p['line']}" if p["line"] is not None else p["path"]) + f": {p['message']}"
                  for p in problems)


def _verify(run_line, target: str, out: Path, *extra: str):
    return run_line(["verify", target, "--no-cache", "--out", str(out), "--problems", str(PROBLEMS), *extra])


def _runs_by_file(doc: dict, sid: str) -> dict[str, dict]:
    """Run file (relative to the submission) -> its run record, from a `verify --format json` document."""
    (sub,) = doc["submissions"]
    return {r["path"].removeprefix(f"{sid}/"): r for r in sub["runs"]}


def _assert_nothing_lost(folder: Path, runs: dict[str, dict], results: Path) -> None:
    """Runs in = runs reported: every file the manifest lists is in the report and in the results file."""
    listed = yaml.safe_load((folder / "submission.yaml").read_text())["files"]
    assert sorted(runs) == sorted(listed)
    written = json.loads((results / f"{folder.name}.json").read_text())
    assert sorted(r["path"].removeprefix(f"{folder.name}/") for r in written["runs"]) == sorted(listed)


def test_there_are_enough_hostile_log_cases():
    names = [name for _kind, name in _hostile_cases()]
    assert len(names) >= 36, names


@pytest.mark.parametrize(("kind", "name"), _hostile_cases())
def test_hostile_case_verify(kind, name, tmp_path, monkeypatch, run_line):
    expect = _stage(kind, name, tmp_path)
    monkeypatch.chdir(tmp_path)
    if kind == "forged":  # a well-formed log: the forgery is for verify to find
        checked = run_line(["validate", name])
        assert checked.exit_code == 0 and checked.output.startswith("ok: no problems"), checked.output
    res = _verify(run_line, name, tmp_path / "res", "--format", "json")
    assert "Traceback" not in res.output
    assert res.exit_code == expect["exit_code"], res.output
    doc = json.loads(res.stdout)
    assert _rendered(doc["problems"]) == sorted(expect["problems"])
    runs = _runs_by_file(doc, name)
    _assert_nothing_lost(tmp_path / name, runs, tmp_path / "res")
    assert {f: r["verdict"] for f, r in runs.items()} == expect["verdicts"]
    valid = [r for r in runs.values() if r["verdict"] == "VALID"]
    assert valid and all(r.get("metrics") for r in valid), "the valid run beside the hostile one is scored"
    for m in expect["mismatches"]:
        got = [x for x in runs[m["run"]]["mismatches"] if x["line"] == m["line"] and x["field"] == m["field"]]
        assert len(got) == 1, runs[m["run"]]["mismatches"]
        for key in ("recorded", "recomputed"):
            if key in m:
                assert got[0][key] == m[key], got[0]
    if kind == "forged":  # exactly the expected forged fields, nothing else
        flagged = sorted((f, x["line"], x["field"]) for f, r in runs.items() for x in r.get("mismatches", []))
        assert flagged == sorted((m["run"], m["line"], m["field"]) for m in expect["mismatches"])
    for file, metrics in expect["metrics"].items():
        assert {k: runs[file]["metrics"][k] for k in metrics} == metrics
    for file, digest in expect.get("not_log_sha256", {}).items():
        actual = hashlib.sha256((tmp_path / name / file).read_bytes()).hexdigest()
        assert runs[file]["log_sha256"] == actual != digest
    text = _verify(run_line, name, tmp_path / "res-text")  # the text report renders every verdict too
    assert "Traceback" not in text.output
    assert text.exit_code == expect["exit_code"], text.output


# ---------------------------------------------------------------- attacks generated at test time


def _pair(tmp_path: Path, sid: str = "hostile") -> tuple[Path, Path]:
    """A two-run submission (FULL s1, s2); returns (folder, the run to make hostile)."""
    folder = make_agent_submission(tmp_path, sid, {"FULL": ["s1", "s2"]})
    return folder, folder / "runs" / "full-s1.jsonl"


def _chain(lines: list[bytes], run_id: str) -> bytes:
    """Set seq = index and prev = the chain over the raw bytes, keeping each line's other bytes as written."""
    out, prev = [], hashlib.sha256(run_id.encode()).hexdigest()
    for k, line in enumerate(lines):
        _head, rest = line.split(b'"type"', 1)
        line = b'{"seq":%d,"prev":"%s","type"' % (k, prev.encode()) + rest
        out.append(line)
        prev = hashlib.sha256(line).hexdigest()
    return b"".join(x + b"\n" for x in out)


def _insert(path: Path, at: int, *raw: bytes) -> None:
    """Insert raw event lines (any seq/prev) before line `at` (1-based) and re-chain the whole log."""
    lines = path.read_bytes().splitlines()
    lines[at - 1:at - 1] = raw
    run_id = json.loads(lines[0])["run_id"]
    path.write_bytes(_chain(lines, run_id))


def _check(run_line, folder: Path, tmp_path: Path, *, validate_code: int, verify_code: int,
           finding: tuple[int | None, str] | None, verdict: str) -> dict[str, dict]:
    """Validate and verify `folder`; the hostile run has `verdict`, the other is VALID; returns the runs."""
    shown = f"{folder.name}/runs/full-s1.jsonl"
    val = run_line(["validate", folder.name, "--format", "json"])
    assert "Traceback" not in val.output
    assert val.exit_code == validate_code, val.output
    res = _verify(run_line, folder.name, tmp_path / "res", "--format", "json")
    assert "Traceback" not in res.output
    assert res.exit_code == verify_code, res.output
    doc = json.loads(res.stdout)
    if finding is not None:
        line, text = finding
        for report in (json.loads(val.stdout), doc):
            assert [p for p in report["problems"] if p["path"] == shown and p["line"] == line and text in p["message"]], \
                report["problems"]
    runs = _runs_by_file(doc, folder.name)
    _assert_nothing_lost(folder, runs, tmp_path / "res")
    assert runs["runs/full-s1.jsonl"]["verdict"] == verdict
    assert runs["runs/full-s2.jsonl"]["verdict"] == "VALID" and runs["runs/full-s2.jsonl"]["metrics"]
    text = _verify(run_line, folder.name, tmp_path / "res-text")
    assert "Traceback" not in text.output and text.exit_code == verify_code
    return runs


def test_integer_too_long_to_parse(tmp_path, run_line, monkeypatch):
    # Python refuses to convert more than 4,300 digits; the parser's refusal is a finding
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    _insert(run, 3, b'{"type":"llm_call","turn":1,"organ":"SURVEYOR","prompt_tokens":' + b"9" * 5000 + b"}")
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(3, "invalid JSON: number out of range"), verdict="MALFORMED")


@pytest.mark.parametrize(("literal", "field"), [
    (b"9223372036854775808", "turn"),  # 2^63
    (b"18446744073709551616", "turn"),  # 2^64
    (b"1" + b"0" * 400, "prompt_tokens"),  # float() of it overflows: a mean over seeds would raise
])
def test_integer_beyond_64_bits(literal, field, tmp_path, run_line, monkeypatch):
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    fields = {"turn": b"1", "prompt_tokens": b"5"}
    fields[field] = literal
    _insert(run, 3, b'{"type":"llm_call","turn":%s,"organ":"SURVEYOR","prompt_tokens":%s}'
            % (fields["turn"], fields["prompt_tokens"]))
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(3, f"field '{field}': input should be less than or equal to 9223372036854775807"),
           verdict="MALFORMED")


def test_seed_label_given_as_a_huge_integer(tmp_path, run_line, monkeypatch):
    # a seed is a label (a string); 2^64 there is a type error, not a number to overflow
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    lines = run.read_bytes().splitlines()
    lines[0] = lines[0].replace(b'"seed":"s1"', b'"seed":18446744073709551616')
    run.write_bytes(_chain(lines, json.loads(lines[0])["run_id"]))
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(1, "field 'seed': input should be a valid string"), verdict="MALFORMED")


def test_largest_64_bit_integers_and_negative_zero_are_accepted(tmp_path, run_line, monkeypatch):
    # the bounds are inclusive, and -0 is a JSON integer like 0: the run verifies
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    _insert(run, 3, b'{"type":"llm_call","turn":9223372036854775807,"organ":"SURVEYOR","prompt_tokens":-0}',
            b'{"type":"beat","turn":1,"action":"ACTION1","drift_ref":"LIVE","score":-9223372036854775808}')
    runs = _check(run_line, folder, tmp_path, validate_code=0, verify_code=0, finding=None, verdict="VALID")
    # the call at turn 2^63-1 is read and accepted, but it is past the pre-registered horizon (20): not counted
    assert runs["runs/full-s1.jsonl"]["metrics"]["llm_calls"] == 4
    assert runs["runs/full-s1.jsonl"]["mismatches"][-1]["recorded"] == 9223372036854775807


def test_float_overflow_in_a_free_form_field(tmp_path, run_line, monkeypatch):
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    _insert(run, 3, b'{"type":"receipt","turn":1,"predicted":{"cells":[1,2,-1e400]}}')
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(3, "field 'predicted': value error, cells.2: number out of range"), verdict="MALFORMED")


def test_deep_nesting_in_a_free_form_field_within_the_limit_verifies(tmp_path, run_line, monkeypatch):
    # arrays and objects alternating, 190 levels inside the event (the parser's limit is 200)
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    deep = b'{"a":[' * 95 + b"1" + b"]}" * 95
    _insert(run, 3, b'{"type":"rule","turn":1,"rule_id":"RU1","ctx":{"x":%s},"effect":{"score_event":1}}' % deep)
    runs = _check(run_line, folder, tmp_path, validate_code=0, verify_code=0, finding=None, verdict="VALID")
    assert runs["runs/full-s1.jsonl"]["metrics"]["hypothesis_formed"] is True


def test_deep_nesting_of_arrays_beyond_the_limit(tmp_path, run_line, monkeypatch):
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    _insert(run, 3, b'{"type":"deficit_stamp","turn":1,"goal_id":"G1","holes":{"h":' + b"[" * 300 + b"]" * 300 + b"}}")
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(3, "invalid JSON: nesting deeper than 200 levels"), verdict="MALFORMED")


def test_a_list_of_a_quarter_million_items_within_the_line_limit(tmp_path, run_line, monkeypatch):
    # nearly 1 MiB of `0,`: legal, and handled in linear time
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    items = b",".join([b"0"] * 250_000)
    _insert(run, 3, b'{"type":"startup_probe","turn":0,"action_interface":{"codes":[%s]}}' % items)
    assert len(run.read_bytes().splitlines()[2]) < 1 << 20
    t0 = time.perf_counter()
    _check(run_line, folder, tmp_path, validate_code=0, verify_code=0, finding=None, verdict="VALID")
    assert time.perf_counter() - t0 < 30


# ---------------------------------------------------------------- compressed logs


def _zip(data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("full-s1.jsonl", data)
    return buf.getvalue()


COMPRESSORS = {
    "gzip": lambda d: gzip.compress(d, mtime=0),
    "zip": _zip,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "lzma": lambda d: lzma.compress(d, format=lzma.FORMAT_ALONE),
    "zstd": lambda d: b"\x28\xb5\x2f\xfd" + d[:64],  # the frame magic is what is checked: no compressor needed
    "lz4": lambda d: b"\x04\x22\x4d\x18" + d[:64],
    "7z": lambda d: b"7z\xbc\xaf\x27\x1c" + d[:64],
}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_compressed_log_is_refused(kind, tmp_path, run_line, monkeypatch):
    folder, run = _pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    run.write_bytes(COMPRESSORS[kind](run.read_bytes()))
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(None, f"{kind}-compressed file named 'full-s1.jsonl': a run log is plain UTF-8 `.jsonl`, gzip "
                          "`.jsonl.gz` or Zstandard `.jsonl.zst`, named for what it holds; it was not decompressed"),
           verdict="MALFORMED")


def test_decompression_bomb_is_not_decompressed(tmp_path, run_line, monkeypatch):
    """10 GiB of zeros as a 10 MB gzip (concatenated members) named `.jsonl`: refused on its magic bytes, never
    inflated. (Named `.jsonl.gz` it is read, and stops at its expansion bound: tests/test_compressed_logs.py.)"""
    folder, run = _pair(tmp_path)
    member = gzip.compress(bytes(64 << 20), compresslevel=9, mtime=0)
    with run.open("wb") as fh:
        for _ in range(160):  # 160 x 64 MiB = 10 GiB once decompressed
            fh.write(member)
    assert run.stat().st_size < 20 << 20

    def refuse(*_args, **_kwargs):
        raise AssertionError("a submitted log was decompressed")

    import zlib

    for target, attr in ((zlib, "decompress"), (zlib, "decompressobj"), (gzip, "open"), (gzip, "GzipFile"),
                         (gzip, "decompress"), (bz2, "open"), (bz2, "decompress"), (lzma, "open"), (lzma, "decompress"),
                         (zipfile, "ZipFile")):
        monkeypatch.setattr(target, attr, refuse)
    monkeypatch.chdir(tmp_path)
    t0 = time.perf_counter()
    _check(run_line, folder, tmp_path, validate_code=1, verify_code=1,
           finding=(None, "gzip-compressed file named 'full-s1.jsonl': a run log is plain UTF-8"), verdict="MALFORMED")
    assert time.perf_counter() - t0 < 30


# ---------------------------------------------------------------- the replay bound


def test_log_over_the_replay_bound_is_validated_but_not_scored(tmp_path, run_line, monkeypatch):
    """A log over MAX_REPLAY_BYTES (lowered here to 64 KiB) keeps its findings and counts, unscored."""
    import checker.format.logio

    folder, run = _pair(tmp_path)
    _insert(run, 3, *[b'{"type":"goal","turn":1,"goal_id":"G%d","statement":"%s"}' % (k, b"x" * 4000)
                      for k in range(20)])
    monkeypatch.setattr(checker.format.logio, "MAX_REPLAY_BYTES", 64 << 10)
    monkeypatch.chdir(tmp_path)
    runs = _check(run_line, folder, tmp_path, validate_code=0, verify_code=1,
                  finding=None, verdict="UNVERIFIED")
    hostile = runs["runs/full-s1.jsonl"]
    data = run.read_bytes()
    size, containers = len(data), data.count(b"{") + data.count(b"[")
    assert hostile["reasons"] == [f"too large to replay: {size} bytes and {containers} JSON objects/arrays make a replay "
                                  f"size of {size + 32 * containers} (bytes + 32 per object/array), above the limit of "
                                  "65536; the log's chain and events are valid, but it is not scored (UNVERIFIED)"]
    # still reported under its cell and seed, with its digest: nothing is lost
    assert (hostile["cell"], hostile["seed"]) == ("FULL", "s1")
    assert hostile["log_sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()


def test_replay_bound_charges_objects_and_arrays(tmp_path, run_line, monkeypatch):
    """`[]` is 2 bytes of log but ~60 bytes of memory: a log of empty arrays is weighed by its containers."""
    import checker.format.logio

    folder, run = _pair(tmp_path)
    empties = b",".join([b"[]"] * 300_000)
    _insert(run, 3, b'{"type":"rule","turn":1,"rule_id":"RU1","ctx":{"x":[%s]}}' % empties)
    size = run.stat().st_size
    monkeypatch.setattr(checker.format.logio, "MAX_REPLAY_BYTES", 4 * size)  # the bytes alone are well within it
    monkeypatch.chdir(tmp_path)
    runs = _check(run_line, folder, tmp_path, validate_code=0, verify_code=1, finding=None, verdict="UNVERIFIED")
    assert "too large to replay" in runs["runs/full-s1.jsonl"]["reasons"][0]


# ---------------------------------------------------------------- a 1 GB log


GIB = 1 << 30
RSS_LIMIT_MB = 200
MEASURE = ("import resource, subprocess, sys\n"
           "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
           "sys.stdout.buffer.write(r.stdout)\n"
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode, file=sys.stderr)\n")


def _write_big_log(path: Path, run_id: str, header: bytes, size: int) -> int:
    """Append chained events to `path` (which holds the header line) until it is `size` bytes; then run_end.

    Lines are templates filled with %-formatting and hashed with hashlib (no JSON encoding, no event
    models): a beat every other line, a 15 KB goal statement on the others (the bytes), so the log is
    about 135,000 lines (long lines keep validating 1 GiB fast; memory does not depend on them).
    """
    filler = b"drift " * 2600
    beat = b'{"seq":%d,"prev":"%s","type":"beat","turn":%d,"action":"ACTION1","drift_ref":"LIVE","render_tokens":40}'
    goal = b'{"seq":%d,"prev":"%s","type":"goal","turn":%d,"goal_id":"G%d","statement":"' + filler + b'"}'
    sha = hashlib.sha256
    prev = sha(header).hexdigest().encode()
    written, seq = len(header) + 1, 1
    with path.open("ab", buffering=1 << 22) as fh:
        while written < size:
            turn = seq // 2
            line = beat % (seq, prev, turn) if seq % 2 else goal % (seq, prev, turn, turn)
            fh.write(line + b"\n")
            prev = sha(line).hexdigest().encode()
            written += len(line) + 1
            seq += 1
        fh.write(b'{"seq":%d,"prev":"%s","type":"run_end","status":"COMPLETED"}\n' % (seq, prev))
    return seq + 1


@pytest.mark.slow
def test_one_gigabyte_log_streams_within_a_memory_bound(tmp_path):
    """validate and verify a submission holding a 1 GiB log in child processes, peak RSS < 200 MB each."""
    folder, run = _pair(tmp_path)
    header = run.read_bytes().splitlines()[0]
    run_id = json.loads(header)["run_id"]
    assert hashlib.sha256(run_id.encode()).hexdigest() == json.loads(header)["prev"]
    run.write_bytes(header + b"\n")
    t0 = time.perf_counter()
    lines = _write_big_log(run, run_id, header, GIB)
    generated = time.perf_counter() - t0
    size = run.stat().st_size
    assert size >= GIB
    exe = str(Path(sys.executable).parent / "driftboard")
    try:
        out = {}
        for command in (["validate", folder.name, "--format", "json"],
                        ["verify", folder.name, "--no-cache", "--out", str(tmp_path / "res"), "--format", "json"]):
            t1 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", MEASURE, exe, *command], cwd=tmp_path, capture_output=True,
                                  check=False, timeout=300)
            rss_kb, code = (int(x) for x in proc.stderr.decode().split()[-2:])
            out[command[0]] = (code, json.loads(proc.stdout), rss_kb / 1024, time.perf_counter() - t1)
        print(f"1 GiB log: {lines} lines, generated in {generated:.1f} s; "
              + "; ".join(f"{k} {v[3]:.1f} s, peak RSS {v[2]:.0f} MB" for k, v in out.items()))
        other = len((folder / "runs" / "full-s2.jsonl").read_bytes().splitlines())
        code, doc, rss_mb, _ = out["validate"]
        assert (code, doc["problems"], doc["summary"]["lines"]) == (0, [], lines + other), doc
        assert rss_mb < RSS_LIMIT_MB
        code, doc, rss_mb, _ = out["verify"]
        assert code == 1 and rss_mb < RSS_LIMIT_MB
        shown = f"{folder.name}/runs/full-s1.jsonl"
        assert next(p["message"] for p in doc["problems"] if p["path"] == shown).startswith(
            f"too large to replay: {size} bytes")
        runs = _runs_by_file(doc, folder.name)
        assert {f: r["verdict"] for f, r in runs.items()} == {"runs/full-s1.jsonl": "UNVERIFIED",
                                                               "runs/full-s2.jsonl": "VALID"}
        assert runs["runs/full-s2.jsonl"]["metrics"]["actions"] == 5
    finally:
        run.unlink()


# ---------------------------------------------------------------- answer extraction on hostile responses


def _reference_extract_json(text: str):
    """DRIFT-Bench's extraction as first written here (quadratic): the oracle for the linear one."""
    import re

    from checker.constraint.answers import _closers, _loads

    think_closed = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
    think_open = re.compile(r"<think>", re.IGNORECASE)
    text = think_closed.sub("", text)
    m = think_open.search(text)
    if m and text.find("{", m.end()) >= 0:
        text = text[text.find("{", m.end()):]
    for candidate in (text.strip(), *(b.strip() for b in re.findall(r"```(?:json)?(.*?)```", text, re.DOTALL))):
        found = _loads(candidate)
        if found is not None:
            return text, found
    starts = [i for i, ch in enumerate(text) if ch in "{["]
    match = _closers(text)
    for i in starts:
        if match.get(i) is not None and (found := _loads(text[i:match[i] + 1])) is not None:
            return text, found
    for i in starts:
        rest = text[i:]
        squares, curlies = max(0, rest.count("[") - rest.count("]")), max(0, rest.count("{") - rest.count("}"))
        if (squares or curlies) and (found := _loads(rest + "]" * squares + "}" * curlies)) is not None:
            return text, found
    return text, None


PIECES = ['{', '}', '[', ']', '"', ':', ',', '1', 'a', ' ', '\n', '\\', '<think>', '</think>', '</THINK>', '```',
          '```json', '"x"', 'true', '-', '1.5', '{"a":', '[1,', '"solution"']


def test_answer_extraction_equals_the_reference_on_random_texts():
    import random

    from checker.constraint.answers import extract_json, strip_think

    rng = random.Random(9)
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        stripped, expected = _reference_extract_json(text)
        assert (strip_think(text), extract_json(text)) == (stripped, expected), text


@pytest.mark.parametrize("response", [
    "<think>" * 60_000,  # the think-block regex rescanned to the end from every unclosed tag
    "[" * 400_000,  # every bracket a start: a slice and a parse per start
    "[" * 900 + "1," * 200_000,  # starts whose parse runs to the end of the text
    '{"a":' * 80_000,
])
def test_hostile_response_is_extracted_in_bounded_time(response):
    from checker.constraint.answers import extract_json

    t0 = time.perf_counter()
    assert extract_json(response) is None
    assert time.perf_counter() - t0 < 10
