"""Issue 29, principle 6: near-copies are copies (`checker.stages.near_copies`).

A shipped micro-world run (full-s1) is copied in as another seed (full-s2's file, run id and seed
label), with one change per attack; the copy must be found, named in an error finding (exit 1),
and counted once: the copy is INVALID, so the FULL cell's VALID runs stay those of distinct runs
(hand count: full-s1 VALID, full-s2 replaced by the copy -> INVALID, full-s3 INVALID -> 1 VALID).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import cpu_seconds
from test_evidence import SUB, Events, _read, _write

from checker.format.results_model import RunResult
from checker.stages.copies import copies_across, groups
from checker.stages.near_copies import THRESHOLD, element, near_pairs, similarity, sketch


def _copy_as_s2(tmp_path: Path, mutate: Callable[[Events], Events]) -> Path:
    """The shipped submission with full-s2.jsonl replaced by full-s1's events (mutated), under full-s2's header."""
    sub = tmp_path / SUB.name
    shutil.copytree(SUB, sub)
    s1, s2 = _read(sub / "runs" / "full-s1.jsonl"), _read(sub / "runs" / "full-s2.jsonl")
    _write(sub / "runs" / "full-s2.jsonl", [s2[0], *mutate(s1[1:-1]), s1[-1]])
    return sub


def _one_event_changed(events: Events) -> Events:
    k = next(i for i, ev in enumerate(events) if ev["type"] == "llm_call")
    events[k]["prompt_tokens"] += 1
    return events


def _nonces_rewritten(events: Events) -> Events:
    # every nonce redrawn, consistently in the salt, the echo and the echo's output text (echoes stay echoed)
    for ev in events:
        if ev["type"] in ("canary_salt", "canary_echo"):
            new = ev["nonce"][::-1]
            if "output_text" in ev:
                ev["output_text"] = ev["output_text"].replace(ev["nonce"], new)
            ev["nonce"] = new
    return events


def _reordered(events: Events) -> Events:
    # swap every pair of neighbouring status rows of one beat (their order carries nothing)
    for k in range(len(events) - 1):
        a, b = events[k], events[k + 1]
        if a["type"] == b["type"] == "status" and a["turn"] == b["turn"] and a["entity_id"] != b["entity_id"]:
            events[k], events[k + 1] = b, a
    return events


def _every_tenth_render_changed(events: Events) -> Events:
    for k, ev in enumerate(events):
        if k % 40 == 0 and ev["type"] == "render_capture":
            ev["render_tokens"] = ev.get("render_tokens", 0) + 1
    return events


@pytest.mark.parametrize("mutate", [_one_event_changed, _nonces_rewritten, _reordered, _every_tenth_render_changed],
                         ids=["one-event", "nonces", "reordered", "sparse-edits"])
def test_a_near_copy_as_another_seed_counts_once(run_line, tmp_path, mutate):
    sub = _copy_as_s2(tmp_path, mutate)
    res = run_line(["verify", str(sub), "--format", "json", "--no-cache", "--no-results"])
    assert "Traceback" not in res.output
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    (submission,) = doc["submissions"]
    runs = {Path(r["path"]).name: r for r in submission["runs"]}
    assert runs["full-s2.jsonl"]["verdict"] == "INVALID"
    assert any("a copy of" in r and "full-s1.jsonl" in r for r in runs["full-s2.jsonl"]["reasons"])
    assert runs["full-s1.jsonl"]["verdict"] == "VALID"
    full = [r for r in submission["runs"] if r["cell"] == "FULL"]
    assert sum(r["verdict"] == "VALID" for r in full) == 1
    texts = [p["message"] for p in doc["problems"] if p["path"].endswith("full-s2.jsonl")]
    if mutate is not _reordered:  # a reorder alone changes the payload digest, so it is a near-copy too
        assert any("events mostly equal to" in t and "near-copies are copies" in t for t in texts), texts


def _result(path: str, sk: str | None, digest: str) -> RunResult:
    return RunResult(path=path, verdict="VALID", content_sha256=digest, content_sketch=sk, cell="FULL", run_id=path)


def test_near_copy_across_submissions_is_a_finding():
    rng = random.Random(1)
    events = [rng.getrandbits(64) for _ in range(200)]
    edited = list(events)
    edited[17] ^= 1
    a, b = _result("a/runs/x.jsonl", sketch(events), "d1"), _result("b/runs/y.jsonl", sketch(edited), "d2")
    assert a.content_sketch is not None and b.content_sketch is not None
    assert similarity(a.content_sketch, b.content_sketch) >= THRESHOLD
    found = copies_across([("a", [a], None), ("b", [b], None)])
    assert [f.path for f in found] == ["a/runs/x.jsonl", "b/runs/y.jsonl"]
    assert "events mostly equal to b/runs/y.jsonl's" in found[0].message


def test_distinct_runs_are_not_near_copies():
    rng = random.Random(2)
    shared = [rng.getrandbits(64) for _ in range(100)]
    a = sketch(shared + [rng.getrandbits(64) for _ in range(100)])  # Jaccard 1/3
    b = sketch(shared + [rng.getrandbits(64) for _ in range(100)])
    assert a and b and similarity(a, b) < 0.6
    assert groups([("s", _result("a", a, "1"), None), ("s", _result("b", b, "2"), None)]) == []


def test_repeated_events_are_a_multiset():
    # a run of one event repeated 100 times is not a near-copy of a run of that event repeated 30 times
    assert similarity(str(sketch([7] * 100)), str(sketch([7] * 30))) < THRESHOLD
    assert sketch([element(b"x")] * 5) is None  # too short to compare by share


def _time(n: int) -> float:
    rng = random.Random(n)
    bases = [[rng.getrandbits(64) for _ in range(40)] for _ in range(n // 2)]
    sketches = []
    for base in bases:  # n runs: half originals, half near-copies of them
        copy = list(base)
        copy[0] ^= 1
        sketches += [sketch(base), sketch(copy)]
    elapsed, pairs = cpu_seconds(lambda: near_pairs(sketches))
    assert len(pairs) >= 0.95 * (n // 2)  # (almost) every copy found
    return elapsed


def test_near_pairs_is_sub_quadratic():
    small, large = min(_time(400) for _ in range(3)), min(_time(1600) for _ in range(3))
    assert large / small <= 6, (small, large)


def test_sketch_cost_is_linear():
    rng = random.Random(3)
    xs = [rng.getrandbits(64) for _ in range(160_000)]

    def t(n: int) -> float:
        part = xs[:n]  # the slice is not what is timed
        return cpu_seconds(lambda: sketch(part))[0]
    small, large = min(t(40_000) for _ in range(5)), min(t(160_000) for _ in range(5))
    assert large / small <= 6, (small, large)
