"""Regenerate the golden validate cases: `python tests/cases/generate.py`.

Each case is a submission folder named after the case. Invalid cases hold `expected.txt`:
the exact findings `driftboard validate <case>` must print (one per line, before the total),
and `exit_code` when it is not 1. The expected messages are written here by hand, next to the
mutation that should produce them; they are the specification, not a snapshot of the output.
The hostile run logs of `hostile_logs.py` add `invalid/log-*` and `forged/*` (well-formed logs
with forged values), each with a `verify.json` that `tests/test_hostile_logs.py` checks.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
PREV0 = "0" * 64
CHAIN_REMEDY = ("the log changed after it was written (a line edited, lost, added or reordered): never edit "
                "a run log; restore the file your harness wrote, or re-run the run")
"""The end of every chain-broken message: what to do."""
SEQ_REMEDY = "seq numbers the lines from 0 without gaps: write logs with RunLogWriter, and never edit one"
"""The end of every seq message: what to do."""
SUITE_DIGEST = "cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0"
"""Digest of problems/driftboard-suite-v1, as problems/README.md states it."""
AGENT_CLAIM_NAMES = (
    "actions", "actions_per_level", "APR", "attribution_mismatches", "bins", "completions", "decision_mix",
    "deficit_goals", "deficit_stamps", "DPR", "drift_ref_beats", "drift_total", "DTL", "ECR", "edges_unverified",
    "edges_verified", "effect_rules", "FBR", "FCR", "FSN", "GA", "gds_abandon", "gds_aligned", "gds_bind", "goal_bound_referents",
    "goal_status", "grounding_rate_all", "hypothesis_formed", "ICR", "llm_calls", "llm_input_tokens", "llm_output_tokens",
    "llm_tokens", "max_render_tokens",
    "milestone_accepted", "milestone_claims", "milestone_conversion", "milestone_goals", "milestone_verified_ratio",
    "milestones_declared_only", "milestones_verified", "R9_ok", "referents", "render_ceiling_B", "RGR",
    "rules_tested", "rung_distribution", "runs", "SCL", "SRR", "steps_consumed", "steps_written",
    "targeted_effect_rules", "tokens_per_level", "tokens_vs_beat_slope", "valid_runs", "WER", "wer_per_organ",
    "write_rejects",
)
"""What a claim on the agent track may name: the metrics of site metrics page (agent and both tracks) and the
cell counts `runs` / `valid_runs`, case-insensitively sorted."""

MANIFEST = """format_version: "1.0"
id: {id}
title: {title}
authors:
  - name: Ada Example
    affiliation: Example Lab
contact: ada@example.org
track: {track}
system: toy-agent
backbone: none
harness:
  name: toy-harness
  version: "1.0"
  commit: 0123abcd
license: CC-BY-4.0
files:
{files}
"""

PREREG_AGENT = """format_version: "1.0"
submission_id: {id}
track: agent
profile: driftboard
cells:
  FULL:
    seeds: [s1]
horizon: 10
thresholds:
  render_ceiling_B: 6000
  wer_floor: 0.25
  wer_min_ops: 5
  canary_floor: 0.9
  canary_warmup: 2
defeaters:
  - id: zero-completions
    text: "~0 completions across all valid runs"
    metric: completions
    op: "<="
    value: 0
"""

PREREG_CONSTRAINT = """format_version: "1.0"
submission_id: {id}
track: constraint
profile: drift-bench-v1
cells:
  toy-model/direct:
    seeds: ["0"]
"""


def yaml_str(text: str) -> str:
    """A YAML scalar: plain when it is a plain path, else double-quoted with escapes (JSON's are YAML's)."""
    return text if re.fullmatch(r"[A-Za-z0-9._/-]+", text) else json.dumps(text)


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def dump(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def chain(events: list[dict], run_id: str) -> list[bytes]:
    """Serialise events with seq and prev filled in."""
    lines: list[bytes] = []
    prev = sha(run_id.encode())
    for k, ev in enumerate(events):
        line = dump({"seq": k, "prev": prev, **ev})
        lines.append(line)
        prev = sha(line)
    return lines


def rechain(lines: list[bytes], run_id: str) -> list[bytes]:
    """Recompute every parseable line's prev from the raw bytes before it (keeps seq as is)."""
    out: list[bytes] = []
    prev = sha(run_id.encode())
    for line in lines:
        core = line[:-1] if line.endswith(b"\r") else line
        try:
            obj = json.loads(core)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "prev" in obj:
            obj["prev"] = prev
            line = dump(obj) + (b"\r" if line.endswith(b"\r") else b"")
        out.append(line)
        prev = sha(line)
    return out


def relink(lines: list[bytes], k: int) -> list[bytes]:
    """After line k was changed by hand, re-link the lines after it (so only line k is wrong)."""
    return lines[: k + 1] + rechain_from(lines, k + 1) if k + 1 < len(lines) else lines


def agent_events(submission_id: str, run_id: str, prereg: bytes) -> list[dict]:
    return [
        {"type": "run_start", "format_version": "1.0", "run_id": run_id, "submission_id": submission_id,
         "track": "agent", "cell": "FULL", "seed": "s1", "flags": {}, "backbone": "none",
         "prereg_sha256": sha(prereg), "started_at": "2026-11-01T00:00:00Z", "horizon": 10, "game_id": "toy"},
        {"type": "startup_probe", "turn": 0, "image_receipt_ok": None},
        {"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET"},
        {"type": "referent", "turn": 0, "ref_id": "R0001", "version": 1, "kind": "percept-cluster",
         "anchor_cells": [[1, 1], [1, 2]]},
        {"type": "llm_call", "turn": 1, "organ": "OBSERVER", "prompt_tokens": 900, "completion_tokens": 120,
         "render_tokens": 800, "ops_accepted": 3},
        {"type": "beat", "turn": 1, "action": "ACTION6", "params": {"x": 1, "y": 2}, "target_ref": "R0001",
         "drift_ref": "LIVE", "source_stamp": "PROBE", "render_tokens": 400},
        {"type": "beat", "turn": 2, "action": "ACTION1", "drift_ref": "LIVE", "source_stamp": "PROBE",
         "level_counter": 1, "score": 1},
        {"type": "level", "turn": 2, "level_counter": 1, "score": 1},
        {"type": "run_end", "status": "COMPLETED", "reason": "horizon reached"},
    ]


def constraint_events(submission_id: str, run_id: str, prereg: bytes) -> list[dict]:
    return [
        {"type": "run_start", "format_version": "1.0", "run_id": run_id, "submission_id": submission_id,
         "track": "constraint", "cell": "toy-model/direct", "seed": "0", "backbone": "toy-model",
         "prereg_sha256": sha(prereg), "started_at": "2026-11-01T00:00:00Z", "method": "direct",
         "problem_set": {"name": "driftboard-suite-v1", "digest": SUITE_DIGEST}},
        {"type": "problem_start", "problem_id": "seating_001", "domain": "seating", "n_turns": 1},
        {"type": "turn", "problem_id": "seating_001", "turn_number": 1,
         "user_message": "Liam and Diana must have at least 1 seats between them.",
         "raw_response": "{\"solution\": {\"Diana\": 1, \"Liam\": 7}}", "answer_correct": 1},
        {"type": "run_end", "status": "COMPLETED"},
    ]


class Case:
    """A submission folder under construction."""

    def __init__(self, name: str, track: str = "agent") -> None:
        self.name = name
        self.track = track
        self.prereg = (PREREG_AGENT if track == "agent" else PREREG_CONSTRAINT).format(id=name).encode()
        self.runs: dict[str, list[bytes]] = {}
        self.files: list[str] = []
        self.manifest_extra = ""
        self.title = "Toy submission"
        self.expected: list[str] = []
        self.exit_code = 1
        self.links: dict[str, str] = {}
        self.no_manifest = False
        self.no_prereg = False
        self.manifest_text: str | None = None

    def add_run(self, file: str, run_id: str | None = None) -> list[bytes]:
        run_id = run_id or f"{self.name}-r1"
        make = agent_events if self.track == "agent" else constraint_events
        lines = chain(make(self.name, run_id, self.prereg), run_id)
        self.runs[file] = lines
        self.files.append(file)
        return lines

    def manifest(self) -> str:
        if self.manifest_text is not None:
            return self.manifest_text
        files = "\n".join(f"  - {yaml_str(f)}" for f in self.files) or "  []"
        return MANIFEST.format(id=self.name, title=self.title, track=self.track, files=files) + self.manifest_extra

    def write(self, root: Path, raw: dict[str, bytes] | None = None) -> None:
        d = root / self.name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        if not self.no_manifest:
            (d / "submission.yaml").write_text(self.manifest())
        if not self.no_prereg:
            (d / "prereg.yaml").write_bytes(self.prereg)
        for file, lines in self.runs.items():
            p = d / file
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(b"".join(line + b"\n" for line in lines))
        for file, data in (raw or {}).items():
            p = d / file
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        for link, target in self.links.items():
            (d / link).symlink_to(target)
        if self.expected or root.name == "invalid":
            body = "\n".join(self.expected) + "\n"
            (d / "expected.txt").write_text(body)
            if self.exit_code != 1:
                (d / "exit_code").write_text(f"{self.exit_code}\n")


RUN = "runs/r1.jsonl"


def valid_cases() -> list[Case]:
    a = Case("minimal-agent")
    a.add_run(RUN)
    c = Case("minimal-constraint", track="constraint")
    c.add_run("runs/toy-direct-0.jsonl")
    two = Case("two-runs")
    two.prereg = two.prereg.replace(b"seeds: [s1]", b"seeds: [s1, s2]")
    two.add_run(RUN)
    lines = two.add_run("runs/r2.jsonl", run_id="two-runs-r2")
    header = json.loads(lines[0])
    header["seed"] = "s2"  # a seed is reported once
    two.runs["runs/r2.jsonl"] = rechain([dump(header), *lines[1:]], "two-runs-r2")
    return [a, c, two]


def invalid_cases() -> list[tuple[Case, Callable[[Case], dict[str, bytes] | None]]]:
    cases: list[tuple[Case, Callable[[Case], dict[str, bytes] | None]]] = []

    def case(name: str, track: str = "agent") -> Callable[[Callable[[Case], dict[str, bytes] | None]], None]:
        def deco(fn: Callable[[Case], dict[str, bytes] | None]) -> None:
            c = Case(name, track)
            cases.append((c, fn))
        return deco

    p = "{n}/" + RUN

    @case("truncated-last-line")
    def _(c: Case) -> dict[str, bytes]:
        lines = c.add_run(RUN)
        c.files = [RUN]
        del c.runs[RUN]
        data = b"".join(x + b"\n" for x in lines[:-1]) + lines[-1][:30]
        c.expected = [f"{p.format(n=c.name)}:9: truncated last line (no newline at end of file)",
                      f"{p.format(n=c.name)}: run has no run_end event: the run is INCOMPLETE"]
        return {RUN: data}

    @case("non-utf8")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[2] = lines[2].replace(b'"RESET","drift_ref"', b'"RES\xffET","drift_ref"')
        c.runs[RUN] = relink(lines, 2)
        col = lines[2].index(b"\xff") + 1
        c.expected = [f"{p.format(n=c.name)}:3: not valid UTF-8: byte 0xff at column {col}"]

    @case("byte-order-mark")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[0] = b"\xef\xbb\xbf" + lines[0]
        c.runs[RUN] = relink(lines, 0)
        c.expected = [f"{p.format(n=c.name)}:1: UTF-8 byte order mark at start of file is not allowed"]

    @case("crlf-line-endings")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        c.runs[RUN] = rechain([x + b"\r" for x in lines], f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:1: CRLF line endings on 9 line(s): lines must end with LF only"]

    @case("invalid-json")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[4] = lines[4][:-1]  # drop the closing brace
        c.runs[RUN] = relink(lines, 4)
        c.expected = [f"{p.format(n=c.name)}:5: invalid JSON: EOF while parsing an object at line 1 column {len(lines[4])}"]

    @case("nan-value")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[6] = lines[6].replace(b'"score":1', b'"score":NaN')
        c.runs[RUN] = relink(lines, 6)
        c.expected = [f"{p.format(n=c.name)}:7: invalid JSON: NaN is not a JSON number"]

    @case("infinity-value")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[4] = lines[4].replace(b'"prompt_tokens":900', b'"prompt_tokens":Infinity')
        c.runs[RUN] = relink(lines, 4)
        c.expected = [f"{p.format(n=c.name)}:5: invalid JSON: Infinity is not a JSON number"]

    @case("duplicate-key")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"action":"ACTION6"', b'"action":"ACTION6","action":"ACTION1"')
        c.runs[RUN] = relink(lines, 5)
        c.expected = [f"{p.format(n=c.name)}:6: invalid JSON: duplicate key 'action'"]

    @case("unknown-event-type")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[6] = lines[6].replace(b'"type":"beat"', b'"type":"teleport"')
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:7: unknown event type 'teleport'"]

    @case("missing-field")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"action":"ACTION6",', b"")
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:6: missing field 'action'"]

    @case("extra-field")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"action":"ACTION6"', b'"action":"ACTION6","mood":"happy"')
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:6: unexpected field 'mood'"]

    @case("wrong-type")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"turn":1', b'"turn":"1"')
        lines[4] = lines[4].replace(b'"organ":"OBSERVER"', b'"organ":"oracle"')
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [
            f"{p.format(n=c.name)}:5: field 'organ': input should be 'OBSERVER', 'SURVEYOR', 'ACTUATOR' or 'BASELINE'",
            f"{p.format(n=c.name)}:6: field 'turn': input should be a valid integer",
        ]

    @case("seq-out-of-order")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        a, b = json.loads(lines[3]), json.loads(lines[4])
        a["seq"], b["seq"] = 4, 3
        lines[3], lines[4] = dump(a), dump(b)
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:4: seq 4, expected 3: seq 3 is missing; {SEQ_REMEDY}",
                      f"{p.format(n=c.name)}:5: seq 3 out of order (after seq 4); {SEQ_REMEDY}"]

    @case("seq-duplicated")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines.insert(3, lines[2])
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        # the copy shifts every later line down one, but their own seq values stay consecutive
        c.expected = [f"{p.format(n=c.name)}:4: duplicated seq 2; {SEQ_REMEDY}"]

    @case("seq-missing")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        objs = [json.loads(x) for x in lines]
        for k, o in enumerate(objs):
            if k >= 4:
                o["seq"] = k + 1
        c.runs[RUN] = rechain([dump(o) for o in objs], f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:5: seq 5, expected 4: seq 4 is missing; {SEQ_REMEDY}"]

    @case("chain-edited-line")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"target_ref":"R0001"', b'"target_ref":"R0002"')
        c.expected = [f"{p.format(n=c.name)}:7: chain broken: prev is not the SHA-256 of line 6; {CHAIN_REMEDY}"]

    @case("chain-deleted-line")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        del lines[4]
        c.expected = [f"{p.format(n=c.name)}:5: seq 5, expected 4: seq 4 is missing; {SEQ_REMEDY}",
                      f"{p.format(n=c.name)}:5: chain broken: prev is not the SHA-256 of line 4; {CHAIN_REMEDY}"]

    @case("chain-inserted-line")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        forged = dump({"seq": 5, "prev": sha(lines[4]), "type": "beat", "turn": 1, "action": "ACTION2",
                       "drift_ref": "LIVE"})
        lines.insert(5, forged)
        c.expected = [f"{p.format(n=c.name)}:7: duplicated seq 5; {SEQ_REMEDY}",
                      f"{p.format(n=c.name)}:7: chain broken: prev is not the SHA-256 of line 6; {CHAIN_REMEDY}"]

    @case("chain-swapped-lines")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5], lines[6] = lines[6], lines[5]
        c.expected = [f"{p.format(n=c.name)}:6: seq 6, expected 5: seq 5 is missing; {SEQ_REMEDY}",
                      f"{p.format(n=c.name)}:6: chain broken: prev is not the SHA-256 of line 5; {CHAIN_REMEDY}",
                      f"{p.format(n=c.name)}:7: seq 5 out of order (after seq 6); {SEQ_REMEDY}",
                      f"{p.format(n=c.name)}:7: chain broken: prev is not the SHA-256 of line 6; {CHAIN_REMEDY}",
                      f"{p.format(n=c.name)}:8: chain broken: prev is not the SHA-256 of line 7; {CHAIN_REMEDY}"]

    @case("chain-wrong-genesis")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        o = json.loads(lines[0])
        o["prev"] = PREV0
        lines[0] = dump(o)
        c.runs[RUN] = relink(lines, 0)
        c.expected = [f"{p.format(n=c.name)}:1: chain broken: prev of the first line is not the SHA-256 of the run id; "
                      f"{CHAIN_REMEDY}"]

    @case("missing-run-start")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        c.runs[RUN] = rechain(lines[1:], f"{c.name}-r1")
        objs = [json.loads(x) for x in c.runs[RUN]]
        for k, o in enumerate(objs):
            o["seq"] = k
        c.runs[RUN] = rechain([dump(o) for o in objs], f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:1: first event must be run_start, not 'startup_probe'"]

    @case("missing-run-end")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        c.runs[RUN] = lines[:-1]
        c.expected = [f"{p.format(n=c.name)}: run has no run_end event: the run is INCOMPLETE"]

    @case("event-after-run-end")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        extra = json.loads(lines[6])
        extra["seq"] = 9
        extra["turn"] = 3
        c.runs[RUN] = rechain([*lines, dump(extra)], f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:10: event after run_end (line 9)"]

    @case("oversize-line")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        o = json.loads(lines[5])
        o["params"] = {"x": 1, "y": 2, "pad": "x" * (1 << 20)}
        lines[5] = dump(o)
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:6: line is {len(lines[5])} bytes, longer than the 1048576-byte limit"]

    @case("nesting-bomb")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[5] = lines[5].replace(b'"params":{"x":1,"y":2}', b'"params":{"x":' + b"[" * 300 + b"]" * 300 + b"}")
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:6: invalid JSON: nesting deeper than 200 levels"]

    @case("newer-format-version")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[0] = lines[0].replace(b'"format_version":"1.0"', b'"format_version":"2.0"')
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:1: format version 2.0 is newer than this checker reads (1.x); upgrade driftboard"]

    @case("blank-line")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines.insert(3, b"")
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:4: blank line"]

    @case("not-an-object")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines.insert(3, b"[1,2,3]")
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:4: event must be a JSON object, not an array",
                      f"{p.format(n=c.name)}:5: duplicated seq 3; {SEQ_REMEDY}"]

    @case("empty-run-file")
    def _(c: Case) -> dict[str, bytes]:
        c.files = [RUN]
        c.expected = [f"{p.format(n=c.name)}: empty run log (no events)"]
        return {RUN: b""}

    @case("empty-submission-folder")
    def _(c: Case) -> None:
        c.no_manifest = True
        c.no_prereg = True
        c.expected = [f"{c.name}: empty submission folder (no submission.yaml)"]

    @case("duplicate-run-id")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.add_run("runs/r2.jsonl", run_id=f"{c.name}-r1")
        c.expected = [f"{c.name}/runs/r2.jsonl:1: duplicate run id '{c.name}-r1' (also in {c.name}/{RUN}:1)"]

    @case("manifest-path-escape")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.files.append("../minimal-agent/runs/r1.jsonl")
        c.expected = [f"{c.name}/submission.yaml:18: files: '../minimal-agent/runs/r1.jsonl' escapes the submission folder"]

    @case("manifest-absolute-path")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.files.append("/etc/passwd")
        c.expected = [f"{c.name}/submission.yaml:18: files: '/etc/passwd' is absolute"
                      " (paths must be relative to the submission folder)"]

    @case("symlink")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.files.append("runs/link.jsonl")
        c.links["runs/link.jsonl"] = "r1.jsonl"
        c.expected = [f"{c.name}/runs/link.jsonl: symbolic links are not allowed in a submission"]

    @case("manifest-missing-title")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.manifest_text = c.manifest().replace("title: Toy submission\n", "")
        c.expected = [f"{c.name}/submission.yaml:1: missing field 'title'"]

    @case("manifest-duplicate-key")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.manifest_text = c.manifest().replace(
            "contact: ada@example.org\n", "contact: ada@example.org\ncontact: bob@example.org\n")
        c.expected = [f"{c.name}/submission.yaml:8: duplicate key 'contact'"]

    @case("prereg-missing")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.no_prereg = True
        c.expected = [f"{c.name}: no prereg.yaml in the submission folder"]

    # Checks validate runs without scoring (checker/precheck.py): each message says what to do.
    @case("claim-unknown-names")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.manifest_extra = ("claims:\n  - cell: FULL\n    metric: gds-bind\n    value: 0.3\n"
                            "  - cell: FULLL\n    metric: completions\n    value: 1\n")
        man = f"{c.name}/submission.yaml: "
        c.expected = [man + "claims[0]: unknown metric 'gds-bind' (did you mean 'gds_bind'?); the agent-track "
                            "metrics are: " + ", ".join(AGENT_CLAIM_NAMES),
                      man + "claims[1]: unknown cell 'FULLL' (did you mean 'FULL'?); the cells of prereg.yaml are: "
                            "FULL"]

    @case("prereg-edited-after-runs")
    def _(c: Case) -> None:
        c.add_run(RUN)
        before = sha(c.prereg)
        c.prereg = c.prereg.replace(b"horizon: 10", b"horizon: 12")  # an uncommitted edit after the run started
        c.expected = [f"{c.name}/{RUN}:1: prereg_sha256 {before[:12]}… is not the SHA-256 of prereg.yaml "
                      f"({sha(c.prereg)[:12]}…): prereg.yaml was changed after this run started (committed or not); "
                      "restore the prereg.yaml the runs were started with (`git restore` for an uncommitted edit, "
                      "else from git history): a pre-registration is not edited once runs have started"]

    @case("constraint-no-problem-set", track="constraint")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        o = json.loads(lines[0])
        del o["problem_set"]
        c.runs[RUN] = rechain([dump(o), *lines[1:]], o["run_id"])
        c.expected = [f"{c.name}/{RUN}:1: constraint run names no problem_set in run_start, so verify cannot "
                      "recompute it: write `problem_set: {name, digest}` into the run header from your harness; "
                      "problems/README.md gives the digest of each set shipped under problems/"]

    @case("constraint-problem-set-differs", track="constraint")
    def _(c: Case) -> None:
        c.prereg += f"problem_set: {'ab' * 32}\n".encode()
        c.add_run(RUN)
        c.expected = [f"{c.name}/{RUN}:1: run uses problem set cf04926fc25c…, prereg.yaml names abababababab…: "
                      "run the problem set the pre-registration names"]

    @case("run-undeclared")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        header = json.loads(lines[0])
        header["cell"] = "J0"
        c.runs[RUN] = rechain([dump(header), *lines[1:]], header["run_id"])
        c.expected = [f"{c.name}/{RUN}:1: cell 'J0' is not declared in prereg.yaml (declared: FULL: s1): report only "
                      "pre-registered runs; a run outside the plan belongs in a new submission pre-registered "
                      "before it ran"]

    @case("seed-reported-twice")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.add_run("runs/r2.jsonl", run_id=f"{c.name}-r2")  # another run id, the same cell and seed label
        c.expected = [f"{c.name}/runs/r2.jsonl:1: cell 'FULL', seed 's1' is already reported by {c.name}/{RUN}: a "
                      "seed is reported once; remove a copied log, and report a second real run of this seed in a "
                      "new submission that pre-registers it"]

    @case("run-not-listed")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.add_run("runs/r2.jsonl", run_id=f"{c.name}-r2")
        c.files = [RUN]
        c.expected = [f"{c.name}/runs/r2.jsonl: run log is not listed in submission.yaml"]

    @case("wrong-submission-id")
    def _(c: Case) -> None:
        lines = c.add_run(RUN)
        lines[0] = lines[0].replace(f'"submission_id":"{c.name}"'.encode(), b'"submission_id":"someone-else"')
        c.runs[RUN] = rechain(lines, f"{c.name}-r1")
        c.expected = [f"{p.format(n=c.name)}:1: submission_id 'someone-else' does not match the submission '{c.name}'"]

    # ---------------------------------------------------------------- hostile submissions (issue 9)
    # Manifest paths: every way to name a file outside the folder, or a name that is not what it seems.
    man = "{n}/submission.yaml:18: files: "  # the listed path's line: the second item of `files:`
    rule = "names may use only A-Z a-z 0-9 . _ -"
    ambiguous = "a non-ASCII character: look-alike letters and Unicode normalisation make such names ambiguous"

    def listed_extra(name: str, path: str, expected: str) -> None:
        @case(name)
        def _(c: Case) -> None:
            c.add_run(RUN)
            c.files.append(path)
            c.expected = [man.format(n=c.name) + expected]

    listed_extra("manifest-path-backslash", "runs\\r1.jsonl", "'runs\\\\r1.jsonl' is not a plain relative path")
    listed_extra("manifest-path-dot-slash-escape", "./../manifest-path-escape/runs/r1.jsonl",
                 "'./../manifest-path-escape/runs/r1.jsonl' escapes the submission folder")
    listed_extra("manifest-path-percent-encoded", "%2e%2e/%2e%2e/etc/passwd",
                 f"'%2e%2e/%2e%2e/etc/passwd' has U+0025 PERCENT SIGN (not a portable file-name character) in "
                 f"'%2e%2e': {rule}")
    listed_extra("manifest-path-nul", "runs/r1.jsonl\x00.txt", "'runs/r1.jsonl\\x00.txt' is not a plain relative path")
    long_name = "runs/" + "a" * 300 + ".jsonl"
    listed_extra("manifest-path-too-long", long_name,
                 f"{long_name[:100]!r}... (311 characters) is 311 characters long, longer than the 255-character limit")
    listed_extra("manifest-path-unicode-normalisation", "runs/cafe\u0301.jsonl",
                 f"'runs/cafe\u0301.jsonl' has U+0301 COMBINING ACUTE ACCENT ({ambiguous}) in 'cafe\u0301.jsonl': {rule}")
    listed_extra("manifest-path-homoglyph", "runs/r1.js\u043enl",
                 f"'runs/r1.js\u043enl' has U+043E CYRILLIC SMALL LETTER O ({ambiguous}) in 'r1.js\u043enl': {rule}")
    listed_extra("manifest-path-zero-width", "runs/r1\u200b.jsonl",
                 "'runs/r1\\u200b.jsonl' has U+200B ZERO WIDTH SPACE (a bidi or zero-width formatting character) in "
                 f"'r1\\u200b.jsonl': {rule}")
    listed_extra("manifest-lists-manifest", "submission.yaml",
                 "'submission.yaml' is the manifest or the pre-registration, not a run log")
    listed_extra("manifest-lists-folder", "runs", "'runs' is a folder, not a run log")

    @case("manifest-path-case")
    def _(c: Case) -> None:
        c.add_run(RUN)
        c.files = ["runs/R1.jsonl"]
        c.expected = [f"{c.name}/submission.yaml:17: files: 'runs/R1.jsonl' does not exist (names are case-sensitive: "
                      "there is 'runs/r1.jsonl'); add the log, or remove the line",
                      f"{c.name}/{RUN}: run log is not listed in submission.yaml"]

    # Reserved submission ids: `index` would overwrite results/index.json and the submissions index page.
    def reserved(name: str, sid: str) -> None:
        @case(name)
        def _(c: Case) -> None:
            c.prereg = c.prereg.replace(f"submission_id: {c.name}".encode(), f"submission_id: {sid}".encode())
            c.add_run(RUN)
            c.manifest_text = c.manifest().replace(f"id: {c.name}\n", f"id: {sid}\n")
            why = (f"value error, {sid!r} is reserved (its results file would clash with the results index or a "
                   "shard); choose another id")
            c.expected = [f"{c.name}/submission.yaml:2: field 'id': {why}",
                          f"{c.name}/prereg.yaml:2: field 'submission_id': {why}"]

    reserved("reserved-id-index", "index")
    reserved("reserved-id-shard", "shard-1")

    # Identifiers in run headers and the pre-registration: printable ASCII only.
    ascii_only = "identifiers use printable ASCII only"

    def header(name: str, key: str, value: str, what: str) -> None:
        @case(name)
        def _(c: Case) -> None:
            lines = c.add_run(RUN)
            o = json.loads(lines[0])
            o[key] = value
            run_id = o["run_id"]
            c.runs[RUN] = rechain([dump(o), *lines[1:]], run_id)
            c.expected = [f"{p.format(n=c.name)}:1: field {key!r}: value error, contains {what}: {ascii_only}"]

    header("run-id-bidi-override", "run_id", "run-id-bidi-override-r1\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE "
           "(a bidi or zero-width formatting character)")
    header("run-id-terminal-escape", "run_id", "run-\x1b[31mred", "U+001B (a control character)")
    header("cell-name-zero-width", "cell", "FU\u200bLL", "U+200B ZERO WIDTH SPACE (a bidi or zero-width formatting "
           "character)")
    header("seed-homoglyph", "seed", "\u04551", f"U+0455 CYRILLIC SMALL LETTER DZE ({ambiguous})")

    def prereg_label(name: str, old: str, new: str, expected: str) -> None:
        @case(name)
        def _(c: Case) -> None:
            c.prereg = c.prereg.replace(old.encode(), new.encode())
            c.add_run(RUN)
            c.expected = [f"{c.name}/prereg.yaml:{expected}: {ascii_only}"]

    prereg_label("prereg-cell-bidi-isolate", "  FULL:\n", '  "FULL\\u2066":\n',
                 "6: key 'FULL\\u2066' of 'cells': value error, contains U+2066 LEFT-TO-RIGHT ISOLATE "
                 "(a bidi or zero-width formatting character)")
    prereg_label("prereg-seed-control-char", "seeds: [s1]", 'seeds: ["s1\\a"]',
                 "7: field 'cells.FULL.seeds.0': value error, contains U+0007 (a control character)")
    prereg_label("prereg-defeater-id-homoglyph", "- id: zero-completions", "- id: zero-c\u043empletions",
                 f"16: field 'defeaters.0.id': value error, contains U+043E CYRILLIC SMALL LETTER O ({ambiguous})")

    return cases


def rechain_from(lines: list[bytes], start: int) -> list[bytes]:
    """Re-link lines[start:] to the (already final) lines before them."""
    out = []
    prev = sha(lines[start - 1])
    for line in lines[start:]:
        o = json.loads(line)
        o["prev"] = prev
        line = dump(o)
        out.append(line)
        prev = sha(line)
    return out


def main() -> None:
    from hostile_logs import forged_cases, invalid_log_cases  # hostile run logs: see tests/cases/hostile_logs.py

    for sub in ("valid", "invalid", "forged"):
        root = HERE / sub
        if root.exists():
            shutil.rmtree(root)
        root.mkdir()
    for c in valid_cases():
        c.write(HERE / "valid")
    invalid = [*invalid_cases(), *invalid_log_cases()]
    for c, mutate in invalid:
        raw = mutate(c)
        c.write(HERE / "invalid", raw)
    forged = forged_cases()
    for c, mutate in forged:
        c.write(HERE / "forged", mutate(c))
    print(f"{len(valid_cases())} valid, {len(invalid)} invalid, {len(forged)} forged cases")


if __name__ == "__main__":
    main()
