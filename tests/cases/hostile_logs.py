"""Hostile run logs (issue 9, log-level half): golden cases for `generate.py`.

Each case is a submission with two runs: `runs/r1.jsonl`, the hostile one, and `runs/r2.jsonl`, a
valid run (seed s2, or "1" on the constraint track) that must still be verified and reported. Every
case holds, next to the mutation that makes it, hand-written expectations:

* `expected.txt` (+ `exit_code`): the exact findings of `driftboard validate <case>` (cases under
  `invalid/`; the ones under `forged/` are well-formed logs, so `validate` finds nothing);
* `verify.json`: what `driftboard verify <case> --format json` must report: `exit_code`, the exact
  `problems` (rendered `path:line: message`), each run file's `verdict`, the `mismatches` that name
  a forged field (`{run, line, field, recorded, recomputed}`), selected recomputed `metrics`, and
  for a wholesale rewrite the digest the log must *not* have (`not_log_sha256`).

`tests/test_hostile_logs.py` checks the `verify.json` half.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import generate as g

CHAIN_REMEDY = g.CHAIN_REMEDY
SEQ_REMEDY = g.SEQ_REMEDY

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO / "submissions" / "driftboard-constraint-baselines" / "runs" / "oracle-0.jsonl"
R1, R2 = "runs/r1.jsonl", "runs/r2.jsonl"


def reproduction_warning(name: str, field: str, recorded: object, recomputed: object, reason: str) -> str:
    """The warning a reproduction profile gives for one recorded label of r1's line 3 the log contradicts (issue 29)."""
    return (f"{name}/{R1}:3: profile drift-bench-v1 reproduces the reference system, and 1 recorded label(s) disagree "
            f"with this log: {field} × 1 (line 3); first: {field} {recorded!r} vs {recomputed!r} ({reason}). Each is "
            "listed in the run's mismatches; a label this profile reads as recorded (as the reference system does) "
            "moves its figure, which is never ranked; profile driftboard derives every one from the log")
MAX_INT = (1 << 63) - 1

Mutation = Callable[[g.Case], dict[str, bytes] | None]


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


class HostileCase(g.Case):
    """A two-run case: r1 (made hostile by the mutation) and a valid r2; writes `verify.json` too."""

    def __init__(self, name: str, track: str = "agent") -> None:
        super().__init__(name, track)
        seeds = ("seeds: [s1]", "seeds: [s1, s2]") if track == "agent" else ('seeds: ["0"]', 'seeds: ["0", "1"]')
        self.prereg = self.prereg.replace(seeds[0].encode(), seeds[1].encode())
        self.verify: dict[str, Any] = {}

    def add_run(self, file: str, run_id: str | None = None) -> list[bytes]:
        run_id = run_id or f"{self.name}-{Path(file).stem}"
        second = file == R2
        if self.track == "agent":
            events = g.agent_events(self.name, run_id, self.prereg)
            if second:
                events[0]["seed"] = "s2"
        else:
            events = constraint_events(self.name, run_id, self.prereg, seed="1" if second else "0")
        lines = g.chain(events, run_id)
        self.runs[file] = lines
        self.files.append(file)
        return lines

    def write(self, root: Path, raw: dict[str, bytes] | None = None) -> None:
        super().write(root, raw)
        if self.verify:
            doc = {"exit_code": 1, "problems": self.expected, "verdicts": {R1: "MALFORMED", R2: "VALID"},
                   "mismatches": [], "metrics": {}, **self.verify}
            (root / self.name / "verify.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def missing_slot(name: str, seed: str = "s1") -> str:
    """verify's finding for a declared seed whose only log cannot be read (its header names no cell or seed)."""
    # at its line of prereg.yaml: line 7 of generate.PREREG_AGENT holds `seeds: [s1]`
    return (f"{name}/prereg.yaml:7: cell FULL, seed {seed}: declared in prereg.yaml but no readable run log is reported "
            "for it; "
            "every declared run counts (as the worst outcome while missing): add its log, or withdraw the seed in "
            "prereg.yaml (cells.<cell>.withdrawn) before it runs")


def oracle_problem() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The shipped oracle baseline's problem_set header and its first problem (problem_start + turns)."""
    lines = [json.loads(x) for x in ORACLE.read_bytes().splitlines()]
    events = []
    for obj in lines[1:]:
        if obj["type"] == "problem_start" and events:
            break
        events.append({k: v for k, v in obj.items() if k not in ("seq", "prev")})
    return lines[0]["problem_set"], events


def constraint_events(submission_id: str, run_id: str, prereg: bytes, seed: str) -> list[dict[str, Any]]:
    problem_set, body = oracle_problem()
    return [
        {"type": "run_start", "format_version": "1.0", "run_id": run_id, "submission_id": submission_id,
         "track": "constraint", "cell": "toy-model/direct", "seed": seed, "backbone": "toy-model",
         "prereg_sha256": sha(prereg), "started_at": "2026-11-01T00:00:00Z", "method": "direct",
         "problem_set": problem_set},
        *body,
        {"type": "run_end", "status": "COMPLETED"},
    ]


def renumber(lines: list[bytes], run_id: str) -> list[bytes]:
    """Give every line seq = its index and re-chain the whole log (a consistent forgery)."""
    objs = [json.loads(x) for x in lines]
    for k, o in enumerate(objs):
        o["seq"] = k
    return g.rechain([g.dump(o) for o in objs], run_id)


def edit(line: bytes, **fields: Any) -> bytes:
    o = json.loads(line)
    for key, value in fields.items():
        if value is KeyError:
            del o[key]
        else:
            o[key] = value
    return g.dump(o)


def invalid_log_cases() -> list[tuple[g.Case, Mutation]]:
    """Hostile logs that break the format: `validate` and `verify` report them; r2 is still scored."""
    cases: list[tuple[g.Case, Mutation]] = []

    def case(name: str, track: str = "agent") -> Callable[[Mutation], None]:
        def deco(fn: Mutation) -> None:
            c = HostileCase(name, track)
            cases.append((c, fn))
        return deco

    def start(c: g.Case) -> tuple[list[bytes], str]:
        """Add r1 (returned for mutation) and the valid r2; `p` is r1's displayed path."""
        lines = c.add_run(R1)
        c.add_run(R2)
        return lines, f"{c.name}/{R1}"

    # ---------------------------------------------------------------- the chain field itself
    @case("log-prev-missing")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], prev=KeyError)
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: missing field 'prev'"]
        c.verify = {"exit_code": 1}

    @case("log-prev-null")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], prev=None)
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: field 'prev': input should be a valid string"]
        c.verify = {"exit_code": 1}

    @case("log-prev-wrong-length")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], prev=sha(lines[2])[:40])  # a truncated digest of the right line
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: chain broken: prev is not the SHA-256 of line 3; {CHAIN_REMEDY}",
                      f"{p}:4: field 'prev': string should match pattern '^[0-9a-f]{{64}}$'"]
        c.verify = {"exit_code": 1}

    @case("log-prev-uppercase")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], prev=sha(lines[2]).upper())
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: chain broken: prev is the SHA-256 of line 3 but in upper-case hex "
                      "(digests are lower-case); write digests in lower-case hex, as RunLogWriter does",
                      f"{p}:4: field 'prev': string should match pattern '^[0-9a-f]{{64}}$'"]
        c.verify = {"exit_code": 1}

    @case("log-prev-not-hex")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], prev="z" * 64)
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: chain broken: prev is not the SHA-256 of line 3; {CHAIN_REMEDY}",
                      f"{p}:4: field 'prev': string should match pattern '^[0-9a-f]{{64}}$'"]
        c.verify = {"exit_code": 1}

    @case("log-header-from-other-run")
    def _(c: g.Case) -> None:
        # r1's header replaced by r2's (a self-consistent genesis of another run id): line 2 no longer links
        lines, p = start(c)
        lines[0] = c.runs[R2][0]
        dup = f"{c.name}/{R2}:1: duplicate run id '{c.name}-r2' (also in {p}:1)"
        c.expected = [f"{p}:2: chain broken: prev is not the SHA-256 of line 1; {CHAIN_REMEDY}", dup]
        # verify scores each log on its own: the duplicate id is a validate finding; the broken log's header
        # now claims seed s2, so s1's slot has no readable log and s2 is reported twice
        c.verify = {"exit_code": 1, "problems": [
            *c.expected[:1], missing_slot(c.name),
            f"{c.name}: cell FULL, seed s2: 2 runs carry this seed label (a seed is reported once)"]}

    @case("log-genesis-of-other-run-id")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[0] = edit(lines[0], prev=sha(f"{c.name}-r2".encode()))
        c.runs[R1] = g.relink(lines, 0)
        c.expected = [f"{p}:1: chain broken: prev of the first line is not the SHA-256 of the run id; {CHAIN_REMEDY}"]
        c.verify = {"exit_code": 1}

    # ---------------------------------------------------------------- lines spliced, cut, doubled
    @case("log-two-logs-spliced")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        other = g.chain(g.agent_events(c.name, f"{c.name}-r3", c.prereg), f"{c.name}-r3")
        c.runs[R1] = lines + other  # a whole second run appended after run_end, its own chain intact
        c.expected = [f"{p}:10: seq 0 out of order (after seq 8); {SEQ_REMEDY}",
                      f"{p}:10: chain broken: prev is not the SHA-256 of line 9; {CHAIN_REMEDY}",
                      f"{p}:10: event after run_end (line 9)",
                      f"{p}:10: run_start may only be the first event",
                      *(f"{p}:{10 + k}: seq {k} out of order (after seq 8); {SEQ_REMEDY}" for k in range(1, 8)),
                      f"{p}:18: duplicated seq 8; {SEQ_REMEDY}"]
        c.verify = {"exit_code": 1}

    @case("log-truncated-mid-file")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        cut = lines[4][: lines[4].index(b',"type"')]  # a write cut short after the prev field, then more lines
        c.runs[R1] = [*lines[:4], cut, *lines[5:]]
        c.expected = [f"{p}:5: invalid JSON: EOF while parsing an object at line 1 column {len(cut)}",
                      f"{p}:6: chain broken: prev is not the SHA-256 of line 5; {CHAIN_REMEDY}"]
        c.verify = {"exit_code": 1}

    @case("log-line-duplicated")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        c.runs[R1] = [*lines[:4], lines[3], *lines[4:]]  # a verbatim copy: its bytes hash like the original
        c.expected = [f"{p}:5: duplicated seq 3; {SEQ_REMEDY}",
                      f"{p}:5: chain broken: prev is not the SHA-256 of line 4; {CHAIN_REMEDY}"]
        c.verify = {"exit_code": 1}

    @case("log-second-run-start")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines.insert(4, lines[0])
        c.runs[R1] = renumber(lines, f"{c.name}-r1")
        c.expected = [f"{p}:5: run_start may only be the first event"]
        c.verify = {"exit_code": 1}

    @case("log-run-end-claims-metrics")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[-1] = edit(lines[-1], metrics={"completions": 12, "gds_bind": 0.0}, verdict="VALID")
        c.runs[R1] = g.rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p}:9: unexpected field 'metrics'", f"{p}:9: unexpected field 'verdict'",
                      f"{p}: run has no run_end event: the run is INCOMPLETE"]  # no valid run_end
        c.verify = {"exit_code": 1}

    # ---------------------------------------------------------------- bytes that are not what they seem
    @case("log-cr-inside-line")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = lines[3].replace(b',"type"', b',\r"type"')  # valid JSON whitespace, but not LF-only
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: carriage return (CR) inside the line: a line ends with one LF and holds no other CR"]
        c.verify = {"exit_code": 1}

    @case("log-lone-cr-separator")
    def _(c: g.Case) -> None:
        # two events on one physical line, separated by an old-Mac CR line ending
        lines, p = start(c)
        merged = lines[3] + b"\r" + lines[4]
        c.runs[R1] = g.rechain([*lines[:3], merged, *lines[5:]], f"{c.name}-r1")
        c.expected = [f"{p}:4: carriage return (CR) inside the line: a line ends with one LF and holds no other CR",
                      f"{p}:4: invalid JSON: trailing characters at line 1 column {len(lines[3]) + 2}",
                      f"{p}:5: seq 5, expected 4: seq 4 is missing; {SEQ_REMEDY}"]
        c.verify = {"exit_code": 1}

    @case("log-line-separator-u2028")
    def _(c: g.Case) -> None:
        # U+2028/U+2029 are legal inside JSON strings and split no line: the finding after them keeps its number
        lines, p = start(c)
        lines[1] = edit(lines[1], signal_vocab=["level\u2028score", "end\u2029"])
        lines = g.rechain(lines, f"{c.name}-r1")
        lines[6] = lines[6].replace(b'"turn":2', b'"turn":2,"turn":3')
        c.runs[R1] = g.relink(lines, 6)
        c.expected = [f"{p}:7: invalid JSON: duplicate key 'turn'"]
        c.verify = {"exit_code": 1}

    @case("log-nul-byte")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = lines[3].replace(b'"ref_id":"R0001"', b'"ref_id":"R0001\x00"')
        c.runs[R1] = g.relink(lines, 3)
        col = lines[3].index(b"\x00") + 1
        c.expected = [f"{p}:4: invalid JSON: control character (\\u0000-\\u001F) found while parsing a string "
                      f"at line 1 column {col}"]
        c.verify = {"exit_code": 1}

    @case("log-lone-surrogate")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[-1] = lines[-1].replace(b'"horizon reached"', b'"horizon \\ud800reached"')
        c.runs[R1] = g.relink(lines, 8)
        col = lines[-1].index(b"\\ud800") + 1
        c.expected = [f"{p}:9: invalid JSON: lone surrogate escape '\\ud800' at column {col} "
                      "(strings must be valid Unicode)",
                      f"{p}: run has no run_end event: the run is INCOMPLETE"]  # its run_end is unreadable
        c.verify = {"exit_code": 1}

    @case("log-overlong-utf8")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = lines[3].replace(b'"kind":"percept-cluster"', b'"kind":"percept\xc0\xafcluster"')  # overlong "/"
        c.runs[R1] = g.relink(lines, 3)
        col = lines[3].index(b"\xc0") + 1
        c.expected = [f"{p}:4: not valid UTF-8: byte 0xc0 at column {col}"]
        c.verify = {"exit_code": 1}

    @case("log-utf8-encoded-surrogate")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = lines[3].replace(b'"kind":"percept-cluster"', b'"kind":"percept\xed\xa0\x80"')  # CESU-8 U+D800
        c.runs[R1] = g.relink(lines, 3)
        col = lines[3].index(b"\xed") + 1
        c.expected = [f"{p}:4: not valid UTF-8: byte 0xed at column {col}"]
        c.verify = {"exit_code": 1}

    # ---------------------------------------------------------------- numbers
    @case("log-int-beyond-64-bits")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[6] = edit(lines[6], level_counter=2**64)  # 2^64 completions, were it believed
        lines[4] = edit(lines[4], prompt_tokens=10**400)  # a 401-digit count: float() of it overflows
        c.runs[R1] = g.rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p}:5: field 'prompt_tokens': input should be less than or equal to {MAX_INT}",
                      f"{p}:7: field 'level_counter': input should be less than or equal to {MAX_INT}"]
        c.verify = {"exit_code": 1}

    @case("log-seq-2-to-the-64")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], seq=2**64)  # one wild seq: the next line is still in place
        c.runs[R1] = g.relink(lines, 3)
        c.expected = [f"{p}:4: field 'seq': input should be less than or equal to {MAX_INT}"]
        c.verify = {"exit_code": 1}

    @case("log-negative-seq-and-turn")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = edit(lines[3], seq=-1)
        lines[5] = edit(lines[5], turn=-1)
        c.runs[R1] = g.rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p}:4: field 'seq': input should be greater than or equal to 0",
                      f"{p}:6: field 'turn': input should be greater than or equal to 0"]
        c.verify = {"exit_code": 1}

    @case("log-float-where-int")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        lines[3] = lines[3].replace(b'"seq":3,', b'"seq":3.0,')
        lines[5] = lines[5].replace(b'"turn":1,', b'"turn":1.5,')
        c.runs[R1] = g.rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p}:4: field 'seq': input should be a valid integer",
                      f"{p}:6: field 'turn': input should be a valid integer"]
        c.verify = {"exit_code": 1}

    @case("log-float-overflow")
    def _(c: g.Case) -> None:
        # 1e400 is a valid JSON number that parses as infinity: refused in a free-form field too
        lines, p = start(c)
        lines.insert(4, g.dump({"seq": 4, "prev": "", "type": "rule", "turn": 0, "rule_id": "RU1",
                                "effect": {"score_event": 1}}).replace(b'"score_event":1', b'"score_event":1e400'))
        c.runs[R1] = renumber_raw(lines, f"{c.name}-r1")
        c.expected = [f"{p}:5: field 'effect': value error, score_event: number out of range "
                      "(it overflows a 64-bit float to infinity)"]
        c.verify = {"exit_code": 1}

    # ---------------------------------------------------------------- nesting
    @case("log-nesting-objects")
    def _(c: g.Case) -> None:
        lines, p = start(c)
        deep = b'{"a":' * 250 + b"1" + b"}" * 250
        rule = g.dump({"seq": 4, "prev": "", "type": "rule", "turn": 0, "rule_id": "RU1", "ctx": {}})
        lines.insert(4, rule.replace(b'"ctx":{}', b'"ctx":' + deep))
        c.runs[R1] = renumber_raw(lines, f"{c.name}-r1")
        c.expected = [f"{p}:5: invalid JSON: nesting deeper than 200 levels"]
        c.verify = {"exit_code": 1}

    # ---------------------------------------------------------------- compressed logs
    @case("log-gzip-named-jsonl")
    def _(c: g.Case) -> dict[str, bytes]:
        lines, p = start(c)
        del c.runs[R1]
        data = gzip.compress(b"".join(x + b"\n" for x in lines), mtime=0)
        c.expected = [f"{p}: gzip-compressed file named 'r1.jsonl': a run log is plain UTF-8 `.jsonl`, gzip "
                      "`.jsonl.gz` or Zstandard `.jsonl.zst`, named for what it holds; it was not decompressed"]
        c.verify = {"exit_code": 1, "problems": [*c.expected, missing_slot(c.name)]}
        return {R1: data}

    @case("log-zstd-named-jsonl-gz")
    def _(c: g.Case) -> dict[str, bytes]:
        start(c)
        del c.runs[R1]
        c.files[c.files.index(R1)] = "runs/r1.jsonl.gz"
        p = f"{c.name}/runs/r1.jsonl.gz"
        c.expected = [f"{p}: zstd-compressed file named 'r1.jsonl.gz': a run log is plain UTF-8 `.jsonl`, gzip "
                      "`.jsonl.gz` or Zstandard `.jsonl.zst`, named for what it holds; it was not decompressed"]
        c.verify = {"exit_code": 1, "verdicts": {"runs/r1.jsonl.gz": "MALFORMED", R2: "VALID"},
                    "problems": [*c.expected, missing_slot(c.name)]}
        # a zstd frame header and junk: the magic bytes alone decide
        return {"runs/r1.jsonl.gz": b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 4}

    # ---------------------------------------------------------------- header fields
    @case("log-run-id-too-long")
    def _(c: g.Case) -> None:
        _lines, p = start(c)
        long_id = "r" * 201
        c.runs[R1] = g.chain(g.agent_events(c.name, long_id, c.prereg), long_id)  # chained on its own genesis
        c.expected = [f"{p}:1: field 'run_id': string should have at most 200 characters"]
        c.verify = {"exit_code": 1, "problems": [*c.expected, missing_slot(c.name)]}

    return cases


def renumber_raw(lines: list[bytes], run_id: str) -> list[bytes]:
    """Set seq = index and re-chain, editing the bytes in place (keeps literals json.dumps would rewrite)."""
    out: list[bytes] = []
    prev = sha(run_id.encode())
    for k, line in enumerate(lines):
        _head, rest = line.split(b'"type"', 1)
        line = b'{"seq":%d,"prev":"%s","type"' % (k, prev.encode()) + rest
        out.append(line)
        prev = sha(line)
    return out


def own_first_frame(c: g.Case, file: str) -> None:
    """Give a run its own first frame (a hash on its RESET beat), so that it is not a copy of its neighbour.

    Runs whose events are equal are copies (`checker.copies`): a case whose two runs differ only in the
    forged header field would otherwise also be about a copy.
    """
    lines = c.runs[file]
    k = next(i for i, x in enumerate(lines) if b'"action":"RESET"' in x)
    lines[k] = edit(lines[k], post_frame_hash=sha(file.encode())[:16])
    c.runs[file] = g.rechain(lines, json.loads(lines[0])["run_id"])


def forged_cases() -> list[tuple[g.Case, Mutation]]:
    """Well-formed logs that record a favourable value the evidence contradicts, or were rewritten whole.

    `validate` finds nothing; `verify` uses the recomputed value and lists the forged field.
    """
    cases: list[tuple[g.Case, Mutation]] = []

    def case(name: str, track: str = "agent") -> Callable[[Mutation], None]:
        def deco(fn: Mutation) -> None:
            c = HostileCase(name, track)
            cases.append((c, fn))
        return deco

    def agent(c: g.Case, events: list[dict[str, Any]]) -> list[bytes]:
        """r1 = the given events between r1's header and run_end; plus the valid r2."""
        base = g.agent_events(c.name, f"{c.name}-r1", c.prereg)
        c.add_run(R1)
        c.add_run(R2)
        c.runs[R1] = g.chain([base[0], *events, base[-1]], f"{c.name}-r1")
        return c.runs[R1]

    probe = {"type": "startup_probe", "turn": 0, "image_receipt_ok": None}
    reset = {"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET"}
    ref = {"type": "referent", "turn": 0, "ref_id": "R0001", "version": 1, "kind": "percept-cluster",
           "anchor_cells": [[1, 1], [1, 2]]}
    step = {"type": "plan_step", "turn": 1, "commit_id": "C1", "step_id": "C1-S0", "step_ord": 0, "kind": "INTERACT",
            "target_ref": "R0001", "action": "ACTION6"}

    @case("forged-click-landing")
    def _(c: g.Case) -> None:
        # the click at (7, 7) hits no referent, but the log records R0001: an on-plan, aligned beat, were it believed
        agent(c, [probe, reset, ref, step,
                  {"type": "beat", "turn": 1, "action": "ACTION6", "params": {"x": 7, "y": 7}, "target_ref": "R0001",
                   "step_id": "C1-S0", "drift_ref": "LIVE", "source_stamp": "COMMITMENT_STEP"}])
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "VALID", R2: "VALID"},
                    "mismatches": [{"run": R1, "line": 6, "field": "target_ref", "recorded": "R0001",
                                    "recomputed": None}],
                    "metrics": {R1: {"gds_bind": 1.0, "gds_aligned": 0.0, "attribution_mismatches": 1}}}

    @case("forged-canary-echo")
    def _(c: g.Case) -> None:
        # the organ's output does not contain the nonce, but the row records `echoed: true`
        agent(c, [probe, reset,
                  {"type": "canary_salt", "turn": 1, "organ": "OBSERVER", "call_idx": 3, "zone": "Z1",
                   "nonce": "N-7f3a"},
                  {"type": "canary_echo", "turn": 1, "organ": "OBSERVER", "call_idx": 3, "zone": "Z1",
                   "nonce": "N-7f3a", "echoed": True, "output_text": "I saw nothing special."},
                  # the deaf call's MISSING_CANARY reject, as ARG writes it (else the evidence check lists it too)
                  {"type": "write_reject", "turn": 1, "organ": "OBSERVER", "op_type": "CANARY",
                   "violation_class": "MISSING_CANARY"}])
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "INVALID", R2: "VALID"},
                    "mismatches": [{"run": R1, "line": 5, "field": "echoed", "recorded": True, "recomputed": False}]}

    @case("forged-comparator-flag")
    def _(c: g.Case) -> None:
        # a run that calls itself a comparator to escape the gate; FULL is not a comparator cell
        c.add_run(R1)
        c.add_run(R2)
        own_first_frame(c, R2)
        lines = c.runs[R1]
        lines[0] = edit(lines[0], comparator=True)
        c.runs[R1] = g.rechain(lines, f"{c.name}-r1")
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "VALID", R2: "VALID"},
                    "mismatches": [{"run": R1, "line": 1, "field": "comparator", "recorded": True,
                                    "recomputed": False}]}

    @case("forged-milestone-step-start")
    def _(c: g.Case) -> None:
        # the claim says its step started at beat 0, before the step was compiled (beat 3), so that the
        # level reached at beat 1 would fall inside its window
        agent(c, [probe, reset,
                  {"type": "beat", "turn": 1, "action": "ACTION1", "drift_ref": "LIVE", "level_counter": 1, "score": 1},
                  {"type": "level", "turn": 1, "level_counter": 1, "score": 1},
                  {**step, "turn": 3},
                  {"type": "beat", "turn": 3, "action": "ACTION6", "drift_ref": "LIVE", "step_id": "C1-S0",
                   "level_counter": 1, "score": 1},
                  {"type": "milestone_claim", "turn": 3, "claim_id": "M1", "step_id": "C1-S0", "step_started_turn": 0}])
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "VALID", R2: "VALID"},
                    "mismatches": [{"run": R1, "line": 8, "field": "step_started_turn", "recorded": 0,
                                    "recomputed": 3}],
                    "metrics": {R1: {"milestones_verified": 0, "milestones_declared_only": 1}}}

    @case("forged-level-event")
    def _(c: g.Case) -> None:
        # a level event no beat backs (every beat reports level 0) offered as evidence for a claim
        agent(c, [probe, reset,
                  {"type": "beat", "turn": 1, "action": "ACTION1", "drift_ref": "LIVE"},
                  {"type": "level", "turn": 1, "level_counter": 1, "score": 1},
                  {"type": "milestone_claim", "turn": 2, "claim_id": "M1", "step_started_turn": 0},
                  {"type": "beat", "turn": 2, "action": "ACTION1", "drift_ref": "LIVE"}])
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "VALID", R2: "VALID"},
                    "mismatches": [{"run": R1, "line": 5, "field": "level_counter", "recorded": 1, "recomputed": 0}],
                    "metrics": {R1: {"completions": 0, "milestones_verified": 0}}}

    @case("forged-rehashed-edit")
    def _(c: g.Case) -> None:
        # a beat rendered 7,000 tokens (above B = 6,000: INVALID); the edit lowers it and re-hashes every later
        # line, so the chain is intact. Only the log's digest, published in the results file, changes.
        lines = c.add_run(R1)
        c.add_run(R2)
        own_first_frame(c, R2)
        lines[5] = edit(lines[5], render_tokens=7000)
        original = g.rechain(lines, f"{c.name}-r1")
        lines = list(original)
        lines[5] = edit(lines[5], render_tokens=400)
        c.runs[R1] = g.relink(lines, 5)
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "VALID", R2: "VALID"},
                    "not_log_sha256": {R1: sha(b"".join(x + b"\n" for x in original))}}

    def constraint(c: g.Case, change: Callable[[list[dict[str, Any]]], None]) -> None:
        c.add_run(R1)
        c.add_run(R2)
        objs = [json.loads(x) for x in c.runs[R1]]
        change(objs)
        c.runs[R1] = g.rechain([g.dump(o) for o in objs], f"{c.name}-r1")

    @case("forged-z3-sat", "constraint")
    def _(c: g.Case) -> None:
        # turn 1's ledger gets a constraint contradicting C001 (strict order both ways): UNSAT, recorded SAT
        def change(objs: list[dict[str, Any]]) -> None:
            objs[2]["ledger"].append({"id": "C999", "type": "ordered", "args": ["Chen", "Hana", "pet"]})
            assert objs[2]["z3_sat"] == 1
        constraint(c, change)
        c.verify = {"exit_code": 0, "verdicts": {R1: "VALID", R2: "VALID"},
                    "problems": [reproduction_warning(c.name, "z3_sat", 1, 0,
                                                      "SAT(base axioms ∧ recorded ledger) is false")],
                    "mismatches": [{"run": R1, "line": 3, "field": "z3_sat", "recorded": 1, "recomputed": 0}]}

    @case("forged-answer-correct", "constraint")
    def _(c: g.Case) -> None:
        # Hana's and Chen's pets swapped: Hana's pet no longer comes before Chen's; still recorded correct
        def change(objs: list[dict[str, Any]]) -> None:
            raw = objs[2]["raw_response"]
            assert raw.count('"pet": "Bird"') == 1 and raw.count('"pet": "Dog"') == 1
            objs[2]["raw_response"] = raw.replace('"pet": "Bird"', '"pet": "@"').replace(
                '"pet": "Dog"', '"pet": "Bird"').replace('"pet": "@"', '"pet": "Dog"')
            assert objs[2]["answer_correct"] == 1
        constraint(c, change)
        c.verify = {"exit_code": 0, "verdicts": {R1: "VALID", R2: "VALID"},
                    "problems": [reproduction_warning(c.name, "answer_correct", 1, 0, "the parsed answer does not extend "
                                                      "to a solution of the gold cumulative constraints")],
                    "mismatches": [{"run": R1, "line": 3, "field": "answer_correct", "recorded": 1, "recomputed": 0}],
                    "metrics": {R1: {"correct_turns": 3, "turns": 4}, R2: {"correct_turns": 4, "turns": 4}}}

    @case("forged-user-message", "constraint")
    def _(c: g.Case) -> None:
        # the model was handed the answer in the prompt; the log still names the problem's turn
        def change(objs: list[dict[str, Any]]) -> None:
            objs[2]["user_message"] += " Hint: Hana has the Dog and Chen the Bird."
        constraint(c, change)
        asked = "Hana's pet comes before Chen's in the order Cat, Dog, Bird, Fish. Also, Emil and Fumi have different colors."
        c.verify = {"exit_code": 0, "verdicts": {R1: "INVALID", R2: "VALID"},
                    "problems": [reproduction_warning(c.name, "user_message", asked + " Hint: Hana has the Dog and Chen the "
                                                      "Bird.", asked, "the problem set's user message for this turn differs")],
                    "mismatches": [{"run": R1, "line": 3, "field": "user_message"}]}

    @case("forged-unknown-problem", "constraint")
    def _(c: g.Case) -> None:
        # turns of a problem the problem set does not have (so nothing can be recomputed)
        def change(objs: list[dict[str, Any]]) -> None:
            for o in objs:
                if o.get("problem_id") == "logic_grid_001":
                    o["problem_id"] = "logic_grid_999"
        constraint(c, change)
        c.verify = {"exit_code": 0, "problems": [], "verdicts": {R1: "INVALID", R2: "VALID"},
                    "metrics": {R1: {"turns": 0}}}

    return cases
