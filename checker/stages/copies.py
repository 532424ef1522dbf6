"""Copies by content (issue 14): a run whose event payloads equal another run's is the same run.

Run ids, seed labels and the hash chain are the submitter's to choose, so a good run copied in as
another seed under a new run id (and re-chained) has new bytes but the same events. Two runs are
*copies* when their **payload digests** are equal: SHA-256 over every event between `run_start`
and `run_end`, each as canonical JSON (compact, fields in schema order, null fields left out:
`checker.format.schema.events.canonical_line`) without its chain fields (`seq`, `prev`), in log order.
`run_start` (ids, labels, `started_at` and the other declared inputs) and `run_end` (status and
free-text reason) are left out; events carry no other timestamp.

Near-copies are copies (issue 29): runs whose events mostly equal another run's (estimated Jaccard
similarity of their events at least 0.9, `checker.stages.near_copies`) are grouped with it too.

Rule: copies are flagged on every copy (an error finding naming the others), and within one
submission the copy that sorts first by path counts, the others are INVALID ("counts once").

Legitimately identical runs: a deterministic method (a scripted baseline) gives identical events
for identical inputs. Identical payloads are accepted only when the pre-registration declares both
cells `deterministic: true` **and** the runs differ in a declared input of `run_start` (`flags`,
`backbone`, `game_id`, `horizon`, `method`, problem set, `comparator`, track). Seed labels, run
ids and cell names are labels, not inputs: two runs of a deterministic cell that differ only in
their seed label are one run reported twice (declare one seed for a deterministic cell).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from checker.format.errors import Finding
from checker.format.results_model import RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.common import RunStart
from checker.format.schema.events import Event, canonical_line, payload_bytes
from checker.format.schema.manifest import Prereg
from checker.stages.near_copies import THRESHOLD, element, near_pairs, sketch
from checker.stages.verdict import with_fact


class PayloadDigest:
    """Incremental payload digest, fed one event at a time while a log is read.

    Each event adds its canonical bytes without the chain fields (`checker.format.schema.events.payload_bytes`
    of `checker.format.schema.events.canonical_line`) and a LF. `checker.stages.validate` feeds it the canonical
    lines it has already compared (`add_canonical`), so no event is serialised twice.
    """

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self._elements: list[int] = []

    def add(self, event: Event) -> None:
        """Add one body event (not `run_start` / `run_end`)."""
        self.add_canonical(canonical_line(event))

    def add_canonical(self, line: bytes) -> None:
        """Add one body event by its canonical bytes (`canonical_line` of the event)."""
        payload = payload_bytes(line)
        self._h.update(payload + b"\n")
        self._elements.append(element(payload))

    def add_all(self, events: Iterable[Event]) -> None:
        """Add body events in order."""
        for event in events:
            self.add(event)

    def hexdigest(self) -> str:
        """The digest of the events added so far."""
        return self._h.hexdigest()

    def sketch(self) -> str | None:
        """The MinHash sketch of the events added so far (`checker.stages.near_copies.sketch`)."""
        return sketch(self._elements)


def inputs_digest(start: RunStart) -> str:
    """SHA-256 of a run's declared inputs (not its labels: run id, submission, cell, seed, start time)."""
    inputs: dict[str, object] = {
        "track": start.track, "flags": dict(sorted(start.flags.items())), "backbone": start.backbone,
        "game_id": start.game_id, "horizon": start.horizon, "method": start.method, "comparator": start.comparator,
        "problem_set": start.problem_set.digest if start.problem_set is not None else None,
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode("utf-8")).hexdigest()


def _deterministic(prereg: Prereg | None, cell: str | None) -> bool:
    spec = prereg.cells.get(str(cell)) if prereg is not None else None
    return spec is not None and spec.deterministic


Copy = tuple[str, RunResult, Prereg | None]
"""(submission path, run result, pre-registration) of one run that has a payload digest."""


def excused(a: Copy, b: Copy) -> bool:
    """Identical payloads that are legitimate: deterministic cells run on different declared inputs."""
    (_, ra, pa), (_, rb, pb) = a, b
    return _deterministic(pa, ra.cell) and _deterministic(pb, rb.cell) and ra.inputs_sha256 != rb.inputs_sha256


def groups(runs: Iterable[Copy]) -> list[list[Copy]]:
    """Copies grouped (only groups of two or more), each sorted by path, the groups in a fixed order.

    Two runs are in one group when their payload digests are equal, or when they are near-copies
    (`checker.stages.near_copies`: estimated Jaccard similarity of their events at least 0.9),
    and groups are closed under both (union-find).
    """
    items = [c for c in runs if c[1].content_sha256 is not None and c[1].verdict != "MALFORMED"]
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, c in enumerate(items):
        parent[root(i)] = root(first.setdefault(str(c[1].content_sha256), i))
    for i, j, _ in near_pairs([c[1].content_sketch for c in items]):
        parent[root(j)] = root(i)
    by_root: dict[int, list[Copy]] = {}
    for i, c in enumerate(items):
        by_root.setdefault(root(i), []).append(c)
    out = [sorted(g, key=lambda c: c[1].path) for g in by_root.values() if len(g) > 1]
    return sorted(out, key=lambda g: (g[0][1].path, g[0][0]))


def is_near(group: list[Copy]) -> bool:
    """True when the group holds runs of different payload digests (near-copies, not byte-equal payloads)."""
    return len({c[1].content_sha256 for c in group}) > 1


def message(others: list[str], near: bool = False) -> str:
    """The finding text on one copy."""
    if near:
        return (f"events mostly equal to {', '.join(others)}'s (estimated Jaccard similarity of the events at "
                f"least {THRESHOLD}; ids, seed labels, chain fields, event order aside): a copied run, "
                "near-copies are copies; it counts once")
    return (f"same event payloads as {', '.join(others)} (ids, seed labels, chain fields and timestamps aside): "
            "a copied run; it counts once")


def mark_copies(sub_path: str, runs: list[RunResult], prereg: Prereg | None) -> tuple[list[RunResult], list[Finding]]:
    """Within one submission: flag every copy, and make all but the first (by path) INVALID.

    Called before the submission's results are built, so a copy never counts twice in a cell.
    Returns the runs (copies after the first replaced by INVALID ones) and the findings.
    """
    out: list[Finding] = []
    invalid: dict[str, str] = {}
    for group in groups((sub_path, r, prereg) for r in runs):
        copies = _unexcused(group)
        near = is_near(group)
        for n, (_, run, _) in enumerate(copies):
            others = [o[1].path for o in copies if o[1] is not run]
            out.append(Finding(run.path, 1, message(others, near)))
            if n > 0:
                how = "events mostly equal" if near else "same event payloads"
                invalid[run.path] = f"a copy of {copies[0][1].path} ({how}): the run counts once"
    marked = [with_fact(r, Fact("copy", invalid[r.path])) if r.path in invalid else r for r in runs]
    return marked, out


def _unexcused(group: list[Copy]) -> list[Copy]:
    """The runs of a group that are a copy of at least one other without an excuse (`excused`)."""
    return [c for c in group if any(not excused(c, o) for o in group if o is not c)]


def copies_across(subs: Iterable[tuple[str, list[RunResult], Prereg | None]]) -> list[Finding]:
    """Across submissions: flag every copy whose payloads equal a run's in another submission."""
    items = [(path, r, prereg) for path, runs, prereg in subs for r in runs]
    out: list[Finding] = []
    for group in groups(items):
        for item in group:
            others = [o[1].path for o in group if o[0] != item[0] and not excused(item, o)
                      and o[1].run_id != item[1].run_id]  # one run id twice is reported by id
            if others:
                out.append(Finding(item[1].path, 1, message(others, is_near(group))))
    return out


__all__ = ["PayloadDigest", "copies_across", "excused", "groups", "inputs_digest", "is_near", "mark_copies",
           "message"]
